"""The latency ledger widget (part one): a speedup heatmap over lookahead and acceptance, its
table, and one cycle's breakdown against plain decoding, for one setting of the six sliders.

The model is :mod:`lab.ledger`; the sliders are the seed contract's (:data:`SLIDERS`, defined
with the other seed ranges in :mod:`lab.urlstate`). Every figure is a string of SVG or HTML
drawn for its panel's width (docs/PALETTE.md), its text through :func:`lab.figures.escape`.

Measured-curve mode: with ``trcCurve`` (a traces preset name or ``custom:a1,a2,...``, sent by the
traces widget or read from the address) a measured per-position curve replaces the acceptance
slider in the ledger, the best lookahead and the breakdown (the heatmap stays the map of one alpha).
"""

from functools import lru_cache
import math

from ..figures import (COLOUR_STEPS, DEFAULT_WIDTH, INK, RING, SATURATION_SPEEDUP, svg, text_width, breakeven_path, escape, span,
                       fit_width, speedup_colour, split_width)
from ..jsformat import to_fixed, to_js_string
from ..ledger import (LedgerSettings, best_lookahead, heatmap_axes, ledger, ledger_from_curve,
                      speedup_grid)
from ..urlstate import LEDGER_SLIDERS, format_query, read_controls, requested_curve

__all__ = ["SLIDERS", "CURVE_KEY", "view", "page_context", "heatmap_svg", "heatmap_selection_svg",
           "heatmap_table_html", "breakdown_svg"]

SLIDERS = LEDGER_SLIDERS
CURVE_KEY = "trcCurve"  # the ledger's measured-curve mode: a traces preset name or custom:a1,a2,...


def _fmt(value: float, digits: int = 2) -> str:
    return to_fixed(value, digits)



def _heatmap_layout(width: int, lookaheads, acceptances) -> dict:
    """Where everything of the heatmap goes at ``width``: both heatmap SVGs share it."""
    left, right, top = 54, 10, 8
    cell_w = (width - left - right) / len(lookaheads)
    cell_h = 14 if width < 480 else 16 if width < 760 else 18
    grid_bottom = top + len(acceptances) * cell_h
    bar_w = min(width - left - right, 360)
    return {"left": left, "top": top, "cell_w": cell_w, "cell_h": cell_h, "grid_bottom": grid_bottom,
            "bar_x": left, "bar_w": bar_w, "bar_y": grid_bottom + 62, "bar_h": 12,
            "height": grid_bottom + 98}


def _scale_position(speedup: float) -> float:
    """0..1 along the colour bar: 1/3x at 0, 1x at 0.5, 3x at 1 (log scale, clamped)."""
    if not speedup > 0:
        return 0.0
    return min(1.0, max(0.0, 0.5 + math.log(speedup) / (2 * math.log(SATURATION_SPEEDUP))))



def heatmap_svg(grid, lookaheads, acceptances, width: int = DEFAULT_WIDTH) -> str:
    """Speedup heatmap: one column per lookahead, one row per acceptance (highest on top).

    Cells faster than baseline are blue, slower vermilion, on a log scale; a dark line follows
    the break-even boundary, and a colour bar under the map gives the scale (1/3x, 1x, 3x).
    One transparent target over the grid lists the cells' values (``data-tip-values``, row by
    row from the top, with ``data-tip-rows``, ``data-tip-cols`` and ``data-tip-format``) for
    the page's hover and tap readout; the same numbers are in :func:`heatmap_table_html`. The selected cell is a separate overlay
    (:func:`heatmap_selection_svg`), so moving acceptance or lookahead, which leaves these
    cells as they are, redraws only the overlay."""
    width = fit_width(width)
    lay = _heatmap_layout(width, lookaheads, acceptances)
    left, top, cell_w, cell_h = lay["left"], lay["top"], lay["cell_w"], lay["cell_h"]
    rows, cols = len(acceptances), len(lookaheads)
    body = _heatmap_cells(grid, rows, cols, left, top, cell_w, cell_h)
    body += _acceptance_ticks(acceptances, left, top, cell_h)
    body.append(breakeven_path(grid, left, top, cell_w, cell_h))
    grid_bottom = lay["grid_bottom"]
    for c, k in enumerate(lookaheads):
        body.append(f'<text class="fig-tick" x="{left + c * cell_w + cell_w / 2:.1f}" y="{grid_bottom + 16}" '
                    f'text-anchor="middle">{k}</text>')
    title = "lookahead k (draft tokens per verifier call)"
    if text_width(title, 13) > width - left:
        title = "lookahead k"
    body.append(f'<text class="fig-axis" x="{left + cols * cell_w / 2:.1f}" y="{grid_bottom + 35}" '
                f'text-anchor="middle">{title}</text>')
    body.append(f'<text class="fig-axis" transform="rotate(-90)" x="{-(top + rows * cell_h / 2)}" y="14" '
                f'text-anchor="middle">per-token acceptance \u03b1</text>')
    body += _colour_bar(lay["bar_x"], lay["bar_y"], lay["bar_w"], lay["bar_h"])
    # one hover and tap target over the grid: the page reads a cell's value out of the lists
    values = " ".join(_fmt(grid[r][c]) for r in range(rows - 1, -1, -1) for c in range(cols))
    body.append(f'<rect class="fig-hits" x="{left}" y="{top}" width="{cols * cell_w:.2f}" height="{rows * cell_h}" '
                f'fill="transparent" data-tip-format="acceptance {{row}}%, lookahead {{col}}: {{value}}x" '
                f'data-tip-cols="{" ".join(str(m) for m in lookaheads)}" '
                f'data-tip-rows="{" ".join(_fmt(a, 0) for a in reversed(acceptances))}" data-tip-values="{values}"/>')
    label = (f"Heatmap of speedup over lookahead {lookaheads[0]} to {lookaheads[-1]} and acceptance "
             f"{_fmt(acceptances[0], 0)} to {_fmt(acceptances[-1], 0)} percent; blue is faster than plain decoding, "
             f"vermilion slower, on a scale from a third as fast to three times as fast. The table below the "
             f"figure lists every value.")
    return svg(width, lay["height"], label, body, "heatmap")


def _heatmap_cells(grid, rows: int, cols: int, left: float, top: float, cell_w: float, cell_h: float) -> list:
    """The heatmap's cells: one path per shade, in cell units (the group scales them): a fraction of the bytes of
    one rect per cell, which matters because the page ships this figure pre-rendered."""
    shades: dict[str, list[str]] = {}
    for r in range(rows):
        for c in range(cols):
            shades.setdefault(speedup_colour(grid[r][c]), []).append(f"M{c} {rows - 1 - r}h1v1h-1z")
    scale = f'transform="translate({left} {top}) scale({cell_w:.3f} {cell_h})"'
    body = [f'<g {scale} shape-rendering="crispEdges">']
    body += [f'<path fill="{colour}" d="{"".join(cells)}"/>' for colour, cells in sorted(shades.items())]
    body.append("</g>")
    return body


def _acceptance_ticks(acceptances, left: float, top: float, cell_h: float) -> list:
    """The acceptance axis' labels: every 10% where the rows are tall enough, else every 20%."""
    rows, body = len(acceptances), []
    for r, acceptance in enumerate(acceptances):
        if acceptance % 10 == 0 and (cell_h >= 16 or acceptance % 20 == 0):
            y = top + (rows - 1 - r) * cell_h
            body.append(f'<text class="fig-tick" x="{left - 5}" y="{y + cell_h / 2 + 4:.1f}" text-anchor="end">'
                        f'{escape(_fmt(acceptance, 0))}%</text>')
    return body


def _colour_bar(bar_x: float, bar_y: float, bar_w: float, bar_h: float) -> list:
    """The colour bar under the map: the scale's shades, framed so that its pale middle shows on any surface, with
    its three marks (1/3x, 1x, 3x)."""
    body = []
    steps = 2 * COLOUR_STEPS + 1
    for i in range(steps):
        speedup = SATURATION_SPEEDUP ** ((i - COLOUR_STEPS) / COLOUR_STEPS)
        body.append(f'<rect x="{bar_x + i * bar_w / steps:.2f}" y="{bar_y}" width="{bar_w / steps + 0.5:.2f}" '
                    f'height="{bar_h}" fill="{speedup_colour(speedup)}" shape-rendering="crispEdges"/>')
    body.append(f'<rect class="fig-frame" x="{bar_x}" y="{bar_y}" width="{bar_w}" height="{bar_h}" fill="none"/>')
    for position, text, anchor in ((0, "\u2153x slower", "start"), (0.5, "1x", "middle"), (1, "3x faster", "end")):
        x = bar_x + position * bar_w
        body.append(f'<path class="fig-axisline" d="M{x:.1f} {bar_y + bar_h}v4"/>'
                    f'<text class="fig-tick" x="{x:.1f}" y="{bar_y + bar_h + 17}" text-anchor="{anchor}">{text}</text>')
    return body


def heatmap_selection_svg(grid, lookaheads, acceptances, selected: tuple[int, int],
                          width: int = DEFAULT_WIDTH, value: float | None = None,
                          acceptance: float | None = None, curve: bool = False) -> str:
    """The outline of the selected (row, column) cell, and the setting's speedup marked on the
    colour bar (``value``, the exact setting's, which may sit between grid rows; the cell's
    own value if not given), drawn on the heatmap's own canvas so it can sit exactly on top
    of :func:`heatmap_svg`. With ``curve`` (measured-curve mode) ``value`` is the curve's speedup,
    which has no row in a map of one acceptance at every position: the label says the outline is the
    set-aside slider's row."""
    width = fit_width(width)
    lay = _heatmap_layout(width, lookaheads, acceptances)
    left, top, cell_w, cell_h = lay["left"], lay["top"], lay["cell_w"], lay["cell_h"]
    r, c = selected
    speedup = grid[r][c] if value is None else value
    x, y = left + c * cell_w, top + (len(acceptances) - 1 - r) * cell_h
    # a dark ring with a white inner ring: visible on every shade of the scale
    body = [f'<rect class="fig-selected" x="{x + 1.5:.2f}" y="{y + 1.5}" width="{cell_w - 3:.2f}" '
            f'height="{cell_h - 3}" fill="none" stroke="{INK}" stroke-width="3"/>',
            f'<rect x="{x + 3.5:.2f}" y="{y + 3.5}" width="{max(cell_w - 7, 1):.2f}" height="{max(cell_h - 7, 1)}" '
            f'fill="none" stroke="{RING}" stroke-width="1"/>']
    mark = lay["bar_x"] + _scale_position(speedup) * lay["bar_w"]
    bar_y = lay["bar_y"]
    body.append(f'<path class="fig-marker" d="M{mark - 6:.1f} {bar_y - 9}h12l-6 8z"/>')
    text = f"your setting: {_fmt(speedup)}x"
    half = text_width(text) / 2
    tx = min(max(mark, lay["bar_x"] + half), width - 4 - half)
    body.append(f'<text class="fig-tick fig-strong" x="{tx:.1f}" y="{bar_y - 13}" text-anchor="middle">'
                f'{escape(text)}</text>')
    # the reader's acceptance as the slider shows it (74%), and the grid's row by its own name when they differ
    # (the 75% row): one number per thing, never the row's rounded in place of the reader's
    row = f"{_fmt(acceptances[r], 0)}%"
    yours = row if acceptance is None else f"{to_js_string(acceptance)}%"
    where = "" if yours == row else f" in the {row} row, the nearest to it"
    label = (f"Selected setting: acceptance {yours} and lookahead {lookaheads[c]}, outlined{where}; "
             f"your setting gives {_fmt(speedup)}x.")
    if curve:  # the map is one alpha's; the curve's speedup is marked on the bar, the outline is the slider's row
        label = (f"Outlined: the set-aside acceptance slider's {row} row at lookahead {lookaheads[c]} (the map is one "
                 f"acceptance at every position; your measured curve has no row in it); your curve gives "
                 f"{_fmt(speedup)}x.")
    return svg(width, lay["height"], label, body, "heatmap-selection")


def heatmap_table_html(grid, lookaheads, acceptances, selected: tuple[int, int]) -> str:
    """The heatmap as a data table (screen readers, copy-paste); the selected cell is marked."""
    head = "".join(f'<th scope="col">k = {k}</th>' for k in lookaheads)
    rows = []
    for r in range(len(acceptances) - 1, -1, -1):
        cells = []
        for c in range(len(lookaheads)):
            mark = ' class="selected" aria-current="true"' if (r, c) == selected else ""
            cells.append(f"<td{mark}>{_fmt(grid[r][c])}</td>")
        rows.append(f'<tr><th scope="row">{escape(_fmt(acceptances[r], 0))}%</th>{"".join(cells)}</tr>')
    return (f'<table class="heatmap-table"><caption>Speedup (x) by acceptance (rows) and lookahead (columns)</caption>'
            f'<thead><tr><th scope="col">acceptance</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>')


def breakdown_svg(draft_ms: float, verify_ms: float, overhead_ms: float, baseline_ms: float, tokens: float,
                  width: int = DEFAULT_WIDTH) -> str:
    """One cycle split into draft work, verifier work and overhead, above the time plain
    decoding needs for the same expected number of tokens (``baseline_ms``). Each part is
    labelled on the bar itself when it is wide enough, and in the row's title otherwise."""
    width = fit_width(width)
    bar_h, left = 26, 1
    cycle = draft_ms + verify_ms + overhead_ms
    scale = (width - 2 * left) / max(cycle, baseline_ms, 1e-9)
    body = [f'<text class="fig-tick" x="{left}" y="13">speculative cycle: {_fmt(cycle, 1)} ms</text>']
    x, y = left, 19
    for key, value, name in (("draft", draft_ms, "draft"), ("verify", verify_ms, "verify"),
                             ("overhead", overhead_ms, "overhead")):
        w = value * scale
        body.append(f'<rect x="{x:.2f}" y="{y}" width="{w:.2f}" height="{bar_h}" class="k-{key}">'
                    f'<title>{name}: {_fmt(value, 1)} ms</title></rect>')
        for text in (f"{name} {_fmt(value, 1)} ms", f"{name} {_fmt(value, 1)}", _fmt(value, 1)):
            if text_width(text) + 8 <= w:
                body.append(f'<text class="fig-onmark" x="{x + w / 2:.2f}" y="{y + bar_h / 2 + 4}" '
                            f'text-anchor="middle" fill="{INK}">{escape(text)}</text>')
                break
        x += w
    y2 = y + bar_h + 22
    w = baseline_ms * scale
    title = f"plain decoding of the same {_fmt(tokens)} tokens: {_fmt(baseline_ms, 1)} ms"
    if text_width(title) > width - 2 * left:
        title = f"plain decoding, {_fmt(tokens)} tokens: {_fmt(baseline_ms, 1)} ms"
    body.append(f'<text class="fig-tick" x="{left}" y="{y2 - 6}">{escape(title)}</text>')
    body.append(f'<rect class="fig-baseline" x="{left + 0.75}" y="{y2 + 0.75}" width="{max(w - 1.5, 0):.2f}" '
                f'height="{bar_h - 1.5}"><title>plain decoding of {_fmt(tokens)} tokens: '
                f'{_fmt(baseline_ms, 1)} ms</title></rect>')
    label = (f"One cycle: draft work {_fmt(draft_ms, 1)} ms, verifier work {_fmt(verify_ms, 1)} ms, overhead "
             f"{_fmt(overhead_ms, 1)} ms, total {_fmt(cycle, 1)} ms, against {_fmt(baseline_ms, 1)} ms of plain decoding "
             f"for the same {_fmt(tokens)} expected tokens.")
    return svg(width, y2 + bar_h + 2, label, body, "breakdown")


def _nearest_cell(value: float, axis) -> int:
    """The index of the cell of an evenly spaced ``axis`` nearest ``value`` (halves to even, as
    :func:`round`), by the axis' own first value and step, not a typed copy of them.

    >>> _nearest_cell(74, (0.0, 5.0, 10.0)), _nearest_cell(5, tuple(range(1, 13)))
    (15, 4)
    """
    return round((value - axis[0]) / (axis[1] - axis[0]))


@lru_cache(maxsize=32)
def _heatmap(draft_cost, overhead_ms, target_ms, verify_tax, width) -> tuple[list[list[float]], str]:
    """The grid and its figure depend on four sliders only; acceptance and lookahead just
    move the selection overlay, so dragging them reuses this (and the page skips the swap)."""
    settings = LedgerSettings(draftCost=draft_cost, overheadMs=overhead_ms, targetMs=target_ms, verifyTax=verify_tax)
    lookaheads, acceptances = heatmap_axes()
    grid = speedup_grid(settings, lookaheads, acceptances)
    return grid, heatmap_svg(grid, lookaheads, acceptances, width)


def view(raw=None) -> dict:
    """Part one for one slider setting: heatmap, its table, breakdown bar, summary sentence.
    With ``trcCurve`` it runs in measured-curve mode: a measured per-position curve replaces the
    acceptance slider in the ledger, the best lookahead and the breakdown (the heatmap stays the
    map of one alpha)."""
    raw, width = split_width(raw)
    params, notes = read_controls(raw, SLIDERS)
    settings = LedgerSettings(**params)
    result = ledger(settings)
    best_k, best_speedup = best_lookahead(settings)
    on_curve = curve = None
    found = requested_curve(raw, CURVE_KEY, notes)
    curve_value, measured = found if found else ("", None)
    opening = f"At {_fmt(settings.acceptance, 0)}% acceptance and lookahead {settings.lookahead}"
    if measured:
        result, on_curve, curve, opening = _on_measured_curve(settings, curve_value, measured)
        best_k, best_speedup = on_curve["k"], on_curve["speedup"]
    lookaheads, acceptances = heatmap_axes()
    grid, heatmap = _heatmap(settings.draftCost, settings.overheadMs, settings.targetMs, settings.verifyTax,
                           width)
    selected = (_nearest_cell(settings.acceptance, acceptances), _nearest_cell(settings.lookahead, lookaheads))
    lead, summary, live = _texts(settings, result, (best_k, best_speedup, best_k == lookaheads[-1]), on_curve, curve,
                                 opening)
    return {
        "params": params,
        "shown": {**{name: to_js_string(value) for name, value in params.items()}, CURVE_KEY: curve_value},
        "notes": notes,
        "query": format_query(params, SLIDERS) + (f"&{CURVE_KEY}={curve_value}" if measured and measured[2] else ""),
        "curveMode": bool(measured),
        "ledger": result._asdict(),
        "bestLookahead": best_k,
        "bestSpeedup": best_speedup,
        "bestOnCurve": on_curve,
        "lead": lead,
        "summary": summary,
        "live": live,
        "width": width,
        "figures": _figures(settings, result, (grid, heatmap, lookaheads, acceptances, selected), width, bool(measured)),
    }


def _figures(settings: LedgerSettings, result, heatmap_parts: tuple, width: int, measured: bool) -> dict:
    """The heatmap (drawn once for its four sliders), its selection overlay (on a measured curve, no acceptance
    row is the reader's), its table and the breakdown bar. ``heatmap_parts`` is (grid, its figure, the lookaheads,
    the acceptances, the selected cell)."""
    grid, heatmap, lookaheads, acceptances, selected = heatmap_parts
    return {
        "heatmap": heatmap,
        "heatmapSelection": heatmap_selection_svg(grid, lookaheads, acceptances, selected, width, result.speedup,
                                                  None if measured else settings.acceptance,
                                                  **({"curve": True} if measured else {})),
        "table": heatmap_table_html(grid, lookaheads, acceptances, selected),
        "breakdown": breakdown_svg(result.draftMs, result.verifyMs, settings.overheadMs,
                                   result.outputTokens * settings.targetMs, result.outputTokens, width),
    }


def _on_measured_curve(settings: LedgerSettings, curve_value: str, measured: tuple) -> tuple:
    """(the ledger on the curve, its best lookahead, the curve as priced, the summary's opening) in measured-curve
    mode: past the measured positions the acceptance model continues the curve (as the trace reader does), never
    its last rate repeated; the one best-k rule (lab.acceptance.best_lookahead) never goes past the plateau's start
    plus one."""
    curve, label, _ = measured  # unlinkable data: requested_curve has said so
    # imported here so that the page's first load (this widget, in the lab's core) does not carry the curve
    # library, which only a measured curve needs
    from ..acceptance import TOKEN_POSITIONS, best_lookahead_on_curve, extended_rates, token_measured_at, token_method

    measured_k = token_measured_at(curve_value) or len(curve)
    curve = extended_rates(curve, max(settings.lookahead, TOKEN_POSITIONS), measured_k, token_method(curve_value))
    result = ledger_from_curve(settings, curve)
    on_curve = best_lookahead_on_curve(settings, curve, measured_at=measured_k)
    opening = (f"In measured curve mode ({label}; the acceptance slider is set aside"
               + (f"; {span('position', measured_k + 1, settings.lookahead)} extrapolated by the acceptance model "
                  f"past the measured k = {measured_k}" if settings.lookahead > measured_k else "")
               + f"), at lookahead {settings.lookahead}")
    return result, on_curve, curve, opening


def _texts(settings: LedgerSettings, result, best: tuple, on_curve, curve, opening: str) -> tuple:
    """(lead, summary, live announcement): what a verifier call buys and the cycle costs, the speedup, and the best
    lookahead (``best``: k, its speedup, whether it is the scan's last, which a larger one may beat; on a curve,
    what it rests on)."""
    best_k, best_speedup, edge = best
    verdict = "faster" if result.speedup > 1 else "slower" if result.speedup < 1 else "no faster"
    # The scan stops at the last lookahead: a best lookahead there may really be larger.
    best_text = f"{best_k} or more" if edge else str(best_k)
    best_shown = f"\u2265 {best_k}" if edge else str(best_k)
    edge_note = ", the edge of the scan" if edge else "" if on_curve is None else curve_best_note(on_curve, curve)
    summary = (
        f"{opening}, one verifier call buys "
        f"{_fmt(result.outputTokens)} tokens on average ({_fmt(result.accepted)} accepted drafts plus the verifier's own; "
        f"{_fmt(result.wastedDrafts)} drafts wasted). The cycle costs {_fmt(result.cycleMs, 1)} ms (draft "
        f"{_fmt(result.draftMs, 1)}, verify {_fmt(result.verifyMs, 1)}, overhead {_fmt(settings.overheadMs, 1)}), so a token "
        f"costs {_fmt(result.msPerToken, 1)} ms instead of {_fmt(settings.targetMs, 1)} ms: {_fmt(result.speedup)}x, "
        f"{verdict} than plain decoding. The best lookahead here is {best_shown} ({_fmt(best_speedup)}x{edge_note}).")
    live = f"{_fmt(result.speedup)}x {verdict}; best lookahead {best_text}"
    lead = (("On the measured curve, speculation" if on_curve is not None else "Speculation")
            + f" at lookahead {settings.lookahead} runs {_fmt(result.speedup)}x, {verdict} than plain decoding; the "
            f"best lookahead here is {best_shown} ({_fmt(best_speedup)}x{edge_note}).")
    return lead, summary, live


def curve_best_note(best: dict, rates=None) -> str:
    """What the best k on a measured curve rests on (:func:`lab.acceptance.best_lookahead`'s answer):
    the plateau cap when it binds (in :func:`lab.acceptance.plateau_words` on the curve's ``rates``), the
    extrapolation when k lies past the measured positions.

    >>> curve_best_note({"capped": True, "plateauStart": 3, "uncappedK": 12, "extrapolatedFrom": 2})
    '; capped: the curve plateaus from k = 3 (each further draft adds under 0.05 tokens a call), so no k past 4; past the measured k = 2'
    """
    from ..acceptance import plateau_words

    note = ""
    if best["capped"]:
        note += f"; capped: the curve {plateau_words(best['plateauStart'], rates)}"
    if best["extrapolatedFrom"] is not None:
        note += f"; past the measured k = {best['extrapolatedFrom']}"
    return note


def differs(view: dict) -> str:
    """Under the lead when the deployment panel sent these settings: why the number may differ from
    the panel's answer (one sentence, the reader's words)."""
    if view["curveMode"]:  # the panel sends its curve (a figure travels extended by its prior); a trace sends its own
        return ("It runs on the curve that was sent (the panel's own or a trace's) with your deployment's step times "
                "fitted to one line and rounded, so its speedup may differ from the panel's by a few hundredths.")
    return ("Its costs are your deployment's step times fitted to this one-line cycle and rounded to whole percent "
            "and ms, so its speedup may differ from the panel's by a few hundredths; the panel says when its best k "
            "differs.")


def page_context() -> dict:
    """What the build pre-renders: the default view and the slider specs."""
    from ..urlstate import slider_specs

    return {"view": view(None), "sliders": slider_specs(SLIDERS)}
