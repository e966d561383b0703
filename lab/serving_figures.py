"""The serving widget's figures and tables, one function each (:mod:`lab.widgets.serving` composes them
into its view and the article's section on how well the model predicts; it re-exports every name here).
Page conventions as in that module's docstring (docs/PALETTE.md): one SVG unit per CSS px, text in the
fig-* classes, speculative decoding ``k-speculative``, plain decoding the dashed baseline; every text
passes through :func:`lab.figures.escape`.
"""

from functools import lru_cache
import math

from . import figures, serving
from .figures import (DEFAULT_WIDTH, INK, RING, MIN_TEXT, label_box, text_width, breakeven_path, column_box, escape,
                       fit_width, line_boxes, line_path, nice_ticks, one_x_label, place_labels, speedup_colour, tick_label,
                       vertical_line, hatch_path, hatch_rects)
from .jsformat import to_fixed

WIDTH_DEFAULT = DEFAULT_WIDTH
TEXT = 13  # px in user units; every figure's viewBox width equals its CSS width, so text stays legible


def _f(value, digits=2) -> str:
    return to_fixed(value, digits)


def svg(width, height, label, body, css_class) -> str:
    """One figure through the page's own wrapper: width and viewBox agree (one unit, one CSS px)."""
    return figures.svg(width, height, label, body, f"srv-fig {css_class}")


def _text(x, y, words, anchor="start", css="fig-tick", extra="") -> str:
    return f'<text class="{css}" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>{escape(words)}</text>'


def _fit(options, room, size=MIN_TEXT) -> str:
    """The first of ``options`` (longest first) that fits in ``room`` px at ``size``; else the last."""
    for text in options:
        if text_width(text, size) <= room:
            return text
    return options[-1]


def _label_at(x, words, lo, hi, size=MIN_TEXT, gap=4) -> tuple[float, str]:
    """(x, anchor) for a label beside a vertical mark at ``x``: to its right if it fits before
    ``hi``, else to its left, kept within ``lo``..``hi``."""
    span = text_width(words, size)
    if x + gap + span <= hi:
        return x + gap, "start"
    return max(x - gap, lo + span), "end"


def _speedup_ticks(peak: float, x0: float, y_of, room: float) -> list[str]:
    """Tick labels of a linear speedup axis from 0 to ``peak`` at round steps (1, 2 or 5 times a
    power of ten, about one per 30 px of the axis's ``room``), each "<value>x" at the axis."""
    ticks = [v for v in nice_ticks(0, peak, max(2, int(room // 30))) if v > 0]
    return [_text(x0 - 6, y_of(v) + 4, tick_label(v, ticks) + "x", "end") for v in ticks]


ONE_X_WORDINGS = ("1x: as fast as plain decoding", "1x: plain decoding", "1x: plain")


def _one_x_label(x0, x1, y, obstacles=()) -> str:
    """The 1x line's own label (:func:`lab.figures.one_x_label`), drawn over a halo."""
    return _text(*one_x_label(x0, x1, y, ONE_X_WORDINGS, obstacles), "fig-small fig-clear")


def _compact(n: int) -> str:
    return f"{n // 1024}k" if n >= 1024 and n % 1024 == 0 else str(n)


# --- figures ----------------------------------------------------------------------------------
# Every figure is drawn for ``width`` CSS px (clamped by figures.fit_width): text in the page's
# fig-* classes (12 px ticks, 13 px axis titles), labels shortened where they would not fit.

def _heatmap_layout(width):
    narrow = width < 480
    left, right, top, bottom = 54 if narrow else 64, 8, 8, 44
    cols, rows = len(serving.HEATMAP_BATCHES), len(serving.HEATMAP_CONTEXTS)
    cell_w = (width - left - right) / cols
    cell_h = 22 if narrow else 26
    return left, top, cell_w, cell_h, top + rows * cell_h + bottom


def heatmap_svg(grid, fits, width: int = WIDTH_DEFAULT) -> str:
    """Speedup over batch (columns, 1..1024) and context (rows, 512..128k, longest on top), both
    on log axes: blue faster than plain decoding, vermilion slower, a dark break-even line
    between them, and a hatch on cells whose weights and KV caches do not fit in GPU memory.
    One transparent target over the grid carries the cells' values for the page's hover and
    tap readout (``data-tip-values``, as the ledger's heatmap)."""
    width = fit_width(width)
    batches, contexts = serving.HEATMAP_BATCHES, serving.HEATMAP_CONTEXTS
    left, top, cell_w, cell_h, height = _heatmap_layout(width)
    rows, cols = len(contexts), len(batches)
    shades: dict[str, list[str]] = {}
    for r in range(rows):
        for c in range(cols):
            x, y = left + c * cell_w, top + (rows - 1 - r) * cell_h
            shades.setdefault(speedup_colour(grid[r][c]), []).append(f"M{x:.1f} {y}h{cell_w:.1f}v{cell_h}h{-cell_w:.1f}z")
    body = [f'<path fill="{colour}" d="{"".join(parts)}"/>' for colour, parts in sorted(shades.items())]
    hatch = nofit_hatch(tuple(tuple(row) for row in fits), width)
    if hatch:  # one hatch over the cells that do not fit, each line drawn once through them
        body.append(f'<path class="srv-nofit" d="{hatch}" fill="none" stroke="{INK}" stroke-width="1"/>')
    body.append(breakeven_path(grid, left, top, cell_w, cell_h))
    for r, context in enumerate(contexts):
        body.append(_text(left - 6, top + (rows - 1 - r) * cell_h + cell_h / 2 + 4, _compact(context), "end"))
    step = 1 if cell_w >= 34 else 2
    for c, batch in enumerate(batches):
        if c % step == 0:
            body.append(_text(left + c * cell_w + cell_w / 2, top + rows * cell_h + 16, str(batch), "middle"))
    title = _fit(("batch B (sequences decoded together)", "batch B (sequences)", "batch B"), width - left, 13)
    body.append(_text(left + cols * cell_w / 2, top + rows * cell_h + 36, title, "middle", "fig-axis"))
    body.append(f'<text class="fig-axis" transform="rotate(-90)" x="{-(top + rows * cell_h / 2):.1f}" y="14" '
                f'text-anchor="middle">{escape(_fit(("context L (tokens)", "context L"), rows * cell_h, 13))}</text>')
    values = " ".join(_f(grid[r][c]) for r in range(rows - 1, -1, -1) for c in range(cols))
    body.append(f'<rect class="srv-hits" x="{left}" y="{top}" width="{cols * cell_w:.1f}" height="{rows * cell_h}" '
                f'fill="transparent" data-tip-format="context {{row}} tokens, batch {{col}}: {{value}}x" '
                f'data-tip-cols="{" ".join(str(b) for b in batches)}" '
                f'data-tip-rows="{" ".join(_compact(l) for l in reversed(contexts))}" data-tip-values="{values}"/>')
    label = ("Heatmap of speculative decoding's speedup over batch 1 to 1024 and context 512 to 128k tokens; "
             "blue is faster than plain decoding, vermilion slower, a dark line marks break-even and hatched cells "
             "do not fit in GPU memory. The table below lists every value.")
    return svg(width, height, label, body, "srv-heatmap")


@lru_cache(maxsize=16)
def nofit_hatch(fits: tuple, width: int) -> str:
    """The path data of :func:`heatmap_svg`'s hatch over the cells that do not fit (``fits``, a tuple of rows of
    booleans, one row per context), at ``width`` (already :func:`lab.figures.fit_width`'s); empty when every cell
    fits. Kept by what it is drawn from: an acceptance or lookahead step moves the speedups, not the fits.

    >>> nofit_hatch(((True,) * 11,) * 9, 640), nofit_hatch(((False,) + (True,) * 10,) * 9, 640)[:4]
    ('', 'M64 ')
    """
    left, top, cell_w, cell_h, _ = _heatmap_layout(width)
    rows, cols = len(serving.HEATMAP_CONTEXTS), len(serving.HEATMAP_BATCHES)
    cells = [(left + c * cell_w, top + (rows - 1 - r) * cell_h, left + (c + 1) * cell_w, top + (rows - r) * cell_h)
             for r in range(rows) for c in range(cols) if not fits[r][c]]
    return hatch_rects(cells, 6) if cells else ""


def heatmap_selection_svg(grid, selected, width: int = WIDTH_DEFAULT, fits: bool = True) -> str:
    """The reader's (context row, batch column) cell, outlined on the heatmap's own canvas: a
    dark ring with a white inner ring, visible on every shade (as the ledger's selection)."""
    width = fit_width(width)
    left, top, cell_w, cell_h, height = _heatmap_layout(width)
    r, c = selected
    rows = len(serving.HEATMAP_CONTEXTS)
    x, y = left + c * cell_w, top + (rows - 1 - r) * cell_h
    body = [f'<rect class="fig-selected" x="{x + 1.5:.1f}" y="{y + 1.5}" width="{cell_w - 3:.1f}" '
            f'height="{cell_h - 3}" fill="none" stroke="{INK}" stroke-width="3"/>',
            f'<rect x="{x + 3.5:.1f}" y="{y + 3.5}" width="{max(cell_w - 7, 1):.1f}" height="{max(cell_h - 7, 1)}" '
            f'fill="none" stroke="{RING}" stroke-width="1"/>']
    label = (f"Your setting: batch {serving.HEATMAP_BATCHES[c]}, context {serving.HEATMAP_CONTEXTS[r]} tokens, "
             + (f"{_f(grid[r][c])}x." if fits else f"{_f(grid[r][c])}x if it fitted; it {NO_FIT} in GPU memory."))
    return svg(width, height, label, body, "srv-heatmap-selection")


def _log_x(value, low, high, x0, x1):
    return x0 + (math.log(value) - math.log(low)) / (math.log(high) - math.log(low)) * (x1 - x0)


def _polyline(points, css, extra="") -> str:
    return f'<path class="{css}" d="{line_path(points)}" fill="none" stroke-width="2.5"{extra}/>'


# line classes: the speedup in neutral ink, plain decoding as the page's baseline (dashed),
# speculative decoding in the palette's speculative colour
SPEEDUP_LINE, PLAIN_LINE, SPEC_LINE = "srv-line srv-speedup", "fig-baseline srv-line", "k-speculative srv-line"


def batch_svg(rows, batch, crossover, width: int = WIDTH_DEFAULT, fits: float | None = None) -> str:
    """Two panels over batch (log axis): the speedup with the 1.0x line and the crossover batch,
    and the whole batch's throughput in tokens/s (log axis), plain against speculative. Batches
    past ``fits`` (the largest that fits in GPU memory) are hatched: no engine can run them."""
    width = fit_width(width)
    left, right, height = 64, 16, 330
    x0, x1 = left, width - right
    batches = [r["batch"] for r in rows]
    low, high = batches[0], batches[-1]
    bx = lambda b: _log_x(b, low, high, x0, x1)  # noqa: E731
    # panel 1: speedup, linear from 0 to the largest value (at least 2)
    top1, h1 = 10, 120
    top2, h2 = top1 + h1 + 34, 120  # panel 2 (throughput) under panel 1's title
    peak = max(2.0, max(r["speedup"] for r in rows) * 1.1)
    sy = lambda v: top1 + h1 - v / peak * h1  # noqa: E731
    curve = [(bx(r["batch"]), sy(r["speedup"])) for r in rows]
    curve_boxes = line_boxes(curve)
    body, note = [], None  # the label on the hatch, (x, baseline, words, anchor)
    if fits is not None and fits < high:
        body, note = _nofit_marks(x0 if fits < low else bx(fits), x0, x1, ((top1, h1), (top2, h2)), curve_boxes)
    note_box = label_box(note, MIN_TEXT) if note else None  # vertical marks break around it
    body += _speedup_axes(x0, x1, top1 + h1, sy, peak, h1) + [_polyline(curve, SPEEDUP_LINE)]
    mark = bx(batch)  # the reader's batch: a vertical line through both panels
    taken = curve_boxes + [column_box(mark, top1, top1 + h1)] + ([note_box] if note_box else [])
    if crossover is not None and crossover <= high:
        body += _crossover_batch_mark(crossover, bx(crossover), (x0, x1, width), (top1, h1), taken, note_box)
    body.append(_one_x_label(x0, x1, sy(1), taken))
    # the panel's title under its own axis, as the throughput panel's is: it names the panel above it
    speedup_title = _fit(("speedup over plain decoding (x) against batch B (log)", "speedup (x) against batch B",
                          "speedup (x)"), width - x0, 13)
    body.append(_text(x0, top1 + h1 + 16, speedup_title, "start", "fig-axis"))
    body += _throughput_curves(rows, bx, x0, x1, top2, h2)
    for y1, y2 in ((top1, top1 + h1), (top2, top2 + h2)):  # each panel, not the title between them
        body.append(vertical_line(mark, y1, y2, 'class="srv-you" stroke-width="1" stroke-dasharray="3 3"', note_box))
    body += _batch_axis_labels(bx, low, high, x0, width, top2 + h2)
    chosen = min(rows, key=lambda r: abs(math.log(r["batch"]) - math.log(batch)))
    label = (f"Speedup and throughput against batch 1 to {high} at this context. At batch {batch}: speedup "
             f"{_f(chosen['speedup'])}x, plain {chosen['plainTokensPerSecond']:.0f} and speculative "
             f"{chosen['specTokensPerSecond']:.0f} tokens/s. Crossover batch: {crossover or 'none up to 4096'}.")
    return svg(width, height, label, body, "srv-batch")


def _speedup_axes(x0: float, x1: float, ground: float, sy, peak: float, height: float) -> list:
    """A speedup panel's ground line, its 1.0x line and its ticks (linear from 0 to ``peak``)."""
    return ([f'<line class="fig-axisline" x1="{x0}" x2="{x1}" y1="{ground}" y2="{ground}"/>',
             f'<line class="srv-one" x1="{x0}" x2="{x1}" y1="{sy(1):.1f}" y2="{sy(1):.1f}" stroke-width="1.5"/>']
            + _speedup_ticks(peak, x0, sy, height))


def _batch_axis_labels(bx, low, high, x0: float, width: int, ground: float) -> list:
    """The batch axis' labels under the lower panel (powers of four within the sweep) and the panel's title."""
    body = [_text(bx(b), ground + 16, str(b), "middle") for b in (1, 4, 16, 64, 256, 1024) if low <= b <= high]
    title = _fit(("throughput of the whole batch, tokens/s (log) against batch B (log)",
                  "whole-batch tokens/s (log) against batch B (log)", "tokens/s (log) against batch B"),
                 width - x0, 13)
    return body + [_text(x0, ground + 34, title, "start", "fig-axis")]


def _nofit_marks(fx: float, x0: float, x1: float, panels: tuple, curve_boxes: list) -> tuple:
    """(markup, the note's spot or None): the hatch over the batches from ``fx`` on that do not fit in GPU memory,
    inside each panel (``panels``: (top, height) of each), and its note in the upper one."""
    (top1, h1), (top2, h2) = panels
    # inside each panel only (not across the title between them or the ticks under them); on the
    # panel, not on data colours: a neutral that follows the scheme (fixed ink vanished in dark)
    lines = hatch_path(fx, top1, x1, top1 + h1) + hatch_path(fx, top2, x1, top2 + h2)
    # 1 px, not 0.75: the browser paints a stroke under a pixel as a pixel at that fraction of its ink (2.7:1 at
    # 1x light, docs/PALETTE.md "Thin lines at 1x"); widgets.css draws it crisp, one full pixel a row
    body = [f'<path class="srv-nofit srv-nofit-line" d="{lines}" fill="none" stroke-width="1"/>']
    # inside the hatch where it fits; else just left of it, pointing at it; else nothing; high in
    # the panel, moved down by the collision pass where the speedup curve runs there
    if text_width("does not fit in memory") <= x1 - fx - 6:
        note = (x1 - 4, 24, "does not fit in memory", "end")
    else:
        words = _fit(("does not fit in memory →", "no room →", ""), fx - x0 - 8)
        note = (fx - 4, 24, words, "end") if words else None
    if note:
        note = place_labels([note], top1, top1 + h1, obstacles=curve_boxes)[0] or note
        body.append(_text(*note, "fig-small fig-clear"))
    return body, note


def _crossover_batch_mark(crossover, cx: float, across: tuple, down: tuple, taken: list, note_box) -> list:
    """The crossover batch's vertical line (broken around the hatch's note, ``note_box``) and its label, placed clear
    of what is ``taken`` (which gains both). ``across`` is (x0, x1, width), ``down`` the panel's (top, height)."""
    (x0, x1, width), (top1, h1) = across, down
    taken.append(column_box(cx, top1, top1 + h1))
    # beside the line, low in the panel (left of the crossover the curve runs above 1x, so the
    # corner under it is usually free), moved up by the collision pass where the curve or the
    # reader's batch is there; the short wording where the long one finds no room
    wordings = [w for w in (f"crossover B = {crossover}", f"B = {crossover}") if text_width(w) <= (x1 - x0) / 2]
    wordings = wordings or [f"B = {crossover}"]
    spot = None
    for words in wordings:
        sides = ([(cx - 4, "end")] if cx - 4 - text_width(words) >= x0 else []) + [_label_at(cx, words, x0, width - 2)]
        spot = next((found for tx, anchor in sides for found in
                     place_labels([(tx, top1 + h1 - 6, words, anchor)], top1, top1 + h1, obstacles=taken) if found),
                    None)
        if spot:
            break
    if spot is None:
        tx, anchor = _label_at(cx, wordings[-1], x0, width - 2)
        spot = (tx, top1 + h1 - 6, wordings[-1], anchor)
    taken.append(label_box(spot, MIN_TEXT))
    return [vertical_line(cx, top1, top1 + h1, 'class="srv-cross" stroke-width="1.5"', note_box),
            _text(*spot, "fig-tick fig-clear")]


def _throughput_curves(rows, bx, x0: float, x1: float, top: float, height: float) -> list:
    """The lower panel's axis, its decades of tokens/s (log) and the plain and speculative throughput curves."""
    values = [v for r in rows for v in (r["plainTokensPerSecond"], r["specTokensPerSecond"])]
    tlow = 10 ** math.floor(math.log10(min(values)))
    thigh = 10 ** math.ceil(math.log10(max(values)))
    ty = lambda v: top + height - (math.log(v) - math.log(tlow)) / (math.log(thigh) - math.log(tlow)) * height  # noqa: E731
    body = [f'<line class="fig-axisline" x1="{x0}" x2="{x1}" y1="{top + height}" y2="{top + height}"/>']
    decade = tlow
    while decade <= thigh:
        body.append(_text(x0 - 6, ty(decade) + 4, f"{decade:,.0f}" if decade < 1e6 else f"{decade:.0e}", "end"))
        decade *= 10
    body.append(_polyline([(bx(r["batch"]), ty(r["plainTokensPerSecond"])) for r in rows], PLAIN_LINE))
    body.append(_polyline([(bx(r["batch"]), ty(r["specTokensPerSecond"])) for r in rows], SPEC_LINE))
    return body


def _ratio_tag(speedup: float) -> str:
    """A measured latency ratio as its mark's tag: a speedup as itself, a slowdown as 1/its factor.

    >>> _ratio_tag(2.8), _ratio_tag(1 / 1.4)
    ('2.8x', '1/1.4x')
    """
    return f"{_f(speedup, 1)}x" if speedup >= 1 else f"1/{_f(1 / speedup, 1)}x"


# px right of the load chart's rate axis for the marks published without a rate (wide enough for
# "vLLM 1/1.8x" from 560 px up; narrower, the tags drop "vLLM", which the legend names)
HIGH_RATE_COLUMN, NARROW_RATE_COLUMN = 96, 80


def load_svg(rates, plain, spec, cross, width: int = WIDTH_DEFAULT, empty: str = "") -> str:
    """Decode latency per request against request rate (log-log; a curve ends where the server is
    overloaded), and below it plain latency over speculative latency with vLLM's measured points
    as labelled reference marks. Where no rate is served at all, the latency panel says why: ``empty``
    (the widget's "does not fit in 8 x H100 SXM"), else that every rate overloads both servers."""
    width = fit_width(width)
    left, right, height = 64, 16, 360
    x0, edge = left, width - right
    # vLLM's "high QPS" marks, published without a rate, get a column of their own right of the rate axis,
    # under "high QPS", rather than a place on it
    unrated = [mark for mark in serving.VLLM_REFERENCE if mark["rate"] is None]
    x1 = edge - ((HIGH_RATE_COLUMN if width >= 560 else NARROW_RATE_COLUMN) if unrated else 0)
    low, high = rates[0], _load_rate_end(rates, plain, spec)
    rx = lambda r: _log_x(r, low, high, x0, x1)  # noqa: E731
    shown = [i for i, r in enumerate(rates) if r <= high * 1.0001]
    rates, plain, spec = [rates[i] for i in shown], [plain[i] for i in shown], [spec[i] for i in shown]
    served = [v for v in plain + spec if v is not None]
    top1, h1 = 10, 130
    body = _latency_panel(rates, plain, spec, served, cross, rx, (x0, x1, width), (top1, h1), empty)
    body += _ratio_panel(rates, plain, spec, rx, (x0, x1, edge, width), (top1 + h1 + 34, 120), (low, high), unrated)
    label = ("Decode latency per request against request rate for plain and speculative decoding, and their ratio, "
             "with vLLM's measured points for Llama-3-70B on 4 H100s as reference marks: 1.5x (draft model) and 2.8x "
             "(n-gram) at 1 request per second, 1.4x and 1.8x slowdowns at a high rate." +
             (f" The curves cross at {cross:.3g} requests per second." if cross is not None else
              f" No rate is served: {empty or 'every rate overloads both servers'}." if not served else
              " The curves do not cross before the servers overload."))
    return svg(width, height, label, body, "srv-load")


def _load_rate_end(rates, plain, spec) -> float:
    """Where the load chart's rate axis ends: the power of ten at or past 1.5 times the last rate either server still
    serves and 3 times each rated mark's rate (room for its tag), not at the sweep's last rate, far past both
    overloads; the sweep's last rate when no rate is served.

    >>> _load_rate_end([0.1, 1, 10, 100, 1000], [1, 2, None, None, None], [1, 1.5, 3, None, None])
    100
    """
    served_rates = [r for r, p, q in zip(rates, plain, spec) if p is not None or q is not None]
    rated = [mark["rate"] * 3 for mark in serving.VLLM_REFERENCE if mark["rate"] is not None]
    return (min(rates[-1], 10 ** math.ceil(math.log10(max(max(served_rates) * 1.5, *rated))))
            if served_rates else rates[-1])


def _latency_panel(rates, plain, spec, served, cross, rx, across: tuple, down: tuple, empty: str) -> list:
    """The upper panel's markup: each server's decode latency per request against the rate (log-log; ``served``:
    every latency drawn, none when no rate is served, and the panel says why) and where the curves cross.
    ``across`` is (x0, x1, width), ``down`` (top, height)."""
    (x0, x1, width), (top1, h1) = across, down
    body = []
    llow = 10 ** math.floor(math.log10(min(served))) if served else 0.1
    lhigh = 10 ** math.ceil(math.log10(max(served))) if served else 10
    if lhigh <= llow:
        lhigh = llow * 10
    ly = lambda v: top1 + h1 - (math.log(v) - math.log(llow)) / (math.log(lhigh) - math.log(llow)) * h1  # noqa: E731
    body.append(f'<line class="fig-axisline" x1="{x0}" x2="{x1}" y1="{top1 + h1}" y2="{top1 + h1}"/>')
    decade = llow
    while decade <= lhigh * 1.0001:
        body.append(_text(x0 - 6, ly(decade) + 4, f"{decade:g} s", "end"))
        decade *= 10
    curves = []  # the curves' obstacle boxes, for the crossover label
    if not served:  # no curve to draw: say why in the panel, not empty axes
        why = (empty, "does not fit in memory", "does not fit") if empty else (
            "every rate overloads both servers", "every rate overloads")
        body.append(_text((x0 + x1) / 2, top1 + h1 / 2, _fit(why, x1 - x0 - 8, TEXT), "middle", "fig-axis"))
    for values, css in ((plain, PLAIN_LINE), (spec, SPEC_LINE)):
        points = [(rx(r), ly(v)) for r, v in zip(rates, values) if v is not None]
        if points:
            body.append(_polyline(points, css))
            curves += line_boxes(points)
    if cross is not None:
        body += _crossing_mark(cross, rx(cross), x0, width, top1, h1, curves)
    body.append(_text(x0, top1 + h1 + 16, _fit(("decode latency per request (log)", "latency per request (log)"),
                                               width - x0, 13), "start", "fig-axis"))
    return body


def _crossing_mark(cross: float, cx: float, x0: float, width: int, top: float, height: float, curves: list) -> list:
    """The vertical line where the latency curves cross, and its rate beside the line, on the side with more room
    (left by preference): never across it; high in the panel, moved down by the collision pass where a curve
    (``curves``: their obstacle boxes) runs there."""
    left_room, right_room = cx - 4 - x0, width - 2 - (cx + 4)
    words = _fit((f"curves cross: {cross:.3g} req/s", f"cross: {cross:.3g} req/s", f"{cross:.3g} req/s"),
                 max(left_room, right_room))
    tx, anchor = (cx - 4, "end") if text_width(words) <= left_room else (cx + 4, "start")
    spot = (place_labels([(tx, top + 14, words, anchor)], top, top + height, obstacles=curves)[0]
            or (tx, top + 14, words, anchor))
    return [f'<line class="srv-cross" x1="{cx:.1f}" x2="{cx:.1f}" y1="{top}" y2="{top + height}" stroke-width="1.5"/>',
            _text(*spot, "fig-tick fig-clear")]


def _ratio_panel(rates, plain, spec, rx, across: tuple, down: tuple, rate_range: tuple, unrated: list) -> list:
    """The lower panel's markup: plain latency over speculative latency against the rate, vLLM's measured marks
    (``unrated``: those published without a rate, in their own column) with their tags, and the rate axis.
    ``across`` is (x0, x1, edge, width), ``down`` (top, height), ``rate_range`` the rate axis' (low, high)."""
    (x0, x1, edge, width), (top2, h2), (low, high) = across, down, rate_range
    body = []
    ratios = [(r, p / s) for r, p, s in zip(rates, plain, spec) if p is not None and s is not None]
    peak = max([3.2] + [v for _, v in ratios])
    qy = lambda v: top2 + h2 - v / peak * h2  # noqa: E731
    body.append(f'<line class="fig-axisline" x1="{x0}" x2="{x1}" y1="{top2 + h2}" y2="{top2 + h2}"/>')
    body.append(f'<line class="srv-one" x1="{x0}" x2="{x1}" y1="{qy(1):.1f}" y2="{qy(1):.1f}" stroke-width="1.5"/>')
    body += _speedup_ticks(peak, x0, qy, h2)
    curve = [(rx(r), qy(v)) for r, v in ratios]
    if ratios:
        body.append(_polyline(curve, SPEEDUP_LINE))
    marks_body, marks, tags = _reference_marks(unrated, rx, qy, x1, edge, top2 + h2)
    body += marks_body
    # the collision pass over the marks' tags: each starts beside its mark (right of a mark at a known rate,
    # over the column's marks for the high-rate ones) and moves up or down only as far as it must to clear the
    # marks and the tags placed before it
    obstacles = [(x - 7, y - 7, x + 7, y + 7) for x, y in marks] + line_boxes(curve)
    placed = [spot for spot in place_labels(tags, top2, top2 + h2 - 2, obstacles=obstacles) if spot]
    body += [_text(*spot, "fig-small fig-clear") for spot in placed]
    body.append(_one_x_label(x0, x1, qy(1), obstacles + [label_box(spot, MIN_TEXT) for spot in placed]))
    for r in (0.1, 1, 10, 100, 1000):
        if low <= r <= high:
            body.append(_text(rx(r), top2 + h2 + 16, f"{r:g}", "middle"))
    title = _fit(("plain latency / speculative latency, against requests per second (log)",
                  "plain / speculative latency by requests/s (log)", "latency ratio by requests/s", "ratio by req/s"),
                 width - x0, 13)
    body.append(_text(x0, top2 + h2 + 34, title, "start", "fig-axis"))
    return body


def _reference_marks(unrated: list, rx, qy, x1: float, edge: float, ground: float) -> tuple:
    """(markup, the marks' centres, their tags to place) of vLLM's measured reference marks: a mark at a known rate
    on the rate axis, tagged right of it with the engine's name (a quoted number says whose it is); the high-rate
    ones side by side in their own column (its ground line at ``ground`` and its name), their tags stacked over
    it, the larger ratio on top, as the marks are. The column's tags come first, so that the stack keeps its
    order and the rated tags move around it."""
    body, marks, tags, rated_tags = [], [], [], []
    if unrated:  # the column's own ground line and name, apart from the rate axis
        body.append(f'<line class="fig-axisline" x1="{x1 + 8}" x2="{edge}" y1="{ground}" y2="{ground}"/>')
        body.append(_text((x1 + 8 + edge) / 2, ground + 16, _fit(("high QPS", "high"), edge - x1 - 20), "middle"))
    for mark in serving.VLLM_REFERENCE:
        if mark["rate"] is not None:
            x = rx(mark["rate"])
        else:  # side by side in the column, so that two close ratios do not cover each other
            slot = unrated.index(mark)
            x = x1 + 8 + (edge - x1 - 8) * (slot + 1) / (len(unrated) + 1)
        y = qy(mark["speedup"])
        marks.append((x, y))
        body.append(f'<path class="srv-ref" d="M{x - 6:.1f} {y:.1f}h12M{x:.1f} {y - 6:.1f}v12" stroke-width="2.5"/>')
        body.append(f'<circle class="srv-ref-dot" cx="{x:.1f}" cy="{y:.1f}" r="3.5"/>')
        if mark["rate"] is not None:  # the engine's name on every mark: a quoted number says whose it is
            rated_tags.append((x + 10, y + 4, f"vLLM {_ratio_tag(mark['speedup'])}", "start"))
    if unrated:  # stacked over the column's marks, the larger ratio on top, as the marks are
        ranked = sorted(unrated, key=lambda mark: -mark["speedup"])
        above = min(qy(mark["speedup"]) for mark in unrated) - 14  # a baseline clear of the marks' boxes
        for rank, mark in enumerate(ranked):
            ratio = _ratio_tag(mark["speedup"])
            words = _fit((f"vLLM {ratio}", ratio), edge - x1 - 6)  # "vLLM" where the column is wide enough
            tags.append(((x1 + 8 + edge) / 2, above - 14 * (len(ranked) - 1 - rank), words, "middle"))
    return body, marks, tags + rated_tags


def tail_svg(runs, seed, seed_speedup, width: int = WIDTH_DEFAULT) -> str:
    """Histogram of the per-request speedups of the exact lab's seeded runs, bins 0.1x wide, with
    the prediction (theoretical speedup) as a line and the exact lab's own seed marked."""
    width = fit_width(width)
    left, right, top, plot_h = 40, 16, 22, 144
    height = top + plot_h + 52  # the tick labels, then the axis title a full line below them
    x0, x1 = left, width - right
    speedups = runs["speedups"]
    low = math.floor(min(speedups + (runs["prediction"],)) * 10) / 10
    high = math.ceil(max(speedups + (runs["prediction"],)) * 10) / 10 + 0.1
    bins = max(1, round((high - low) * 10))
    counts = [0] * bins
    for value in speedups:
        counts[min(bins - 1, int((value - low) * 10 + 1e-9))] += 1
    tallest = max(counts)
    sx = lambda v: x0 + (v - low) / (high - low) * (x1 - x0)  # noqa: E731
    bar_w = (x1 - x0) / bins
    bars = []
    for i, count in enumerate(counts):
        if count:
            h = count / tallest * plot_h
            bars.append(f"M{x0 + i * bar_w + 1:.1f} {top + plot_h:.1f}v{-h:.1f}h{max(bar_w - 2, 1):.1f}v{h:.1f}z")
    body = [f'<path class="k-speculative" d="{"".join(bars)}"/>',
            f'<line class="fig-axisline" x1="{x0}" x2="{x1}" y1="{top + plot_h}" y2="{top + plot_h}"/>']
    px = sx(runs["prediction"])
    words = f"prediction {_f(runs['prediction'])}x"
    tx, anchor = _label_at(px, words, 2, width - 2)
    body.append(f'<line class="srv-predict" x1="{px:.1f}" x2="{px:.1f}" y1="{top - 6}" y2="{top + plot_h}" stroke-width="2.5"/>')
    body.append(_text(tx, top - 8, words, anchor))
    mx = sx(seed_speedup)
    body.append(f'<path class="fig-marker" d="M{mx - 6:.1f} {top + plot_h + 12:.1f}l6 -10l6 10z"/>')
    # round ticks, about one per 80 px, all with the decimals their step needs ("2.0x, 2.5x", not "2x, 2.5x")
    ticks = nice_ticks(low, high, max(2, int((x1 - x0) // 80)))
    for tick in ticks:
        words = tick_label(tick, ticks) + "x"
        if sx(tick) + text_width(words) / 2 <= width - 1:  # a tick at the right edge would run off the canvas
            body.append(_text(sx(tick), top + plot_h + 28, words, "middle"))
    title = _fit((f"speedup of one request ({runs['seeds']} seeds); triangle: seed {seed}",
                  f"one request's speedup; triangle: seed {seed}", f"speedup; triangle: seed {seed}"),
                 width - x0, 13)
    body.append(_text(x0, height - 5, title, "start", "fig-axis"))  # its descenders inside the figure
    label = (f"Histogram of {runs['seeds']} seeded requests' speedups, from {_f(runs['minimum'])}x to "
             f"{_f(runs['maximum'])}x (median {_f(runs['median'])}x), against the prediction {_f(runs['prediction'])}x; "
             f"seed {seed} gives {_f(seed_speedup)}x.")
    return svg(width, height, label, body, "srv-tail")


NO_FIT = "does not fit"  # what a table cell or readout says where weights and KV caches exceed GPU memory


def _cell(value: float, fits: bool) -> str:
    """One heatmap cell as the table prints it: the speedup, or :data:`NO_FIT` where the batch's
    weights and KV caches do not fit in GPU memory (no engine can run it, so no speedup is printed).

    >>> _cell(1.7345, True), _cell(1.7345, False)
    ('1.73', 'does not fit')
    """
    return _f(value) if fits else NO_FIT


def heatmap_table_html(grid, selected, fits=None) -> str:
    """The heatmap's cells as a table, one row per context; a cell whose batch does not fit in GPU
    memory (``fits[r][c]`` false) says so instead of printing a speedup no engine can reach."""
    head = "".join(f'<th scope="col">B&nbsp;=&nbsp;{b}</th>' for b in serving.HEATMAP_BATCHES)
    rows = []
    for r in range(len(serving.HEATMAP_CONTEXTS) - 1, -1, -1):
        mark = ' class="selected" aria-current="true"'
        cells = "".join(f'<td{mark if (r, c) == selected else ""}>{_cell(grid[r][c], fits is None or fits[r][c])}</td>'
                        for c in range(len(serving.HEATMAP_BATCHES)))
        rows.append(f'<tr><th scope="row">{_compact(serving.HEATMAP_CONTEXTS[r])}</th>{cells}</tr>')
    nofit = (f"; \u201c{NO_FIT}\u201d where the weights and KV caches exceed GPU memory"
             if fits is not None and not all(all(row) for row in fits) else "")
    return (f'<table class="heatmap-table"><caption>Speedup (x) by context L (rows, tokens) and batch B '
            f'(columns){nofit}</caption><thead><tr><th scope="col">L</th>{head}</tr></thead><tbody>{"".join(rows)}'
            f'</tbody></table>')


def rate_label(rate: float) -> str:
    """A request rate as the page prints it: three significant figures, with thousands separators
    from 1,000 up (never an exponent).

    >>> rate_label(0.0667), rate_label(133.4), rate_label(1188.5), rate_label(5000.0)
    ('0.0667', '133', '1,190', '5,000')
    """
    shown = float(f"{rate:.3g}")
    return f"{shown:,.0f}" if shown >= 1000 else f"{rate:.3g}"


def load_rows(rates, plain, spec) -> list:
    """The load table's rows: every rate up to and including the first at which both plain and
    speculative decoding are overloaded (the rows past it would all say so)."""
    rows = []
    for rate, p, s in zip(rates, plain, spec):
        rows.append((rate, p, s))
        if p is None and s is None:
            break
    return rows


def load_table_html(rates, plain, spec) -> str:
    rows = []
    for rate, p, s in load_rows(rates, plain, spec):
        show = lambda v: "overloaded" if v is None else _f(v, 2)  # noqa: E731
        ratio = "" if p is None or s is None else _f(p / s)
        rows.append(f'<tr><th scope="row">{rate_label(rate)}</th><td>{show(p)}</td><td>{show(s)}</td><td>{ratio}</td></tr>')
    return ('<table class="heatmap-table"><caption>Decode latency per request (s) by request rate</caption>'
            '<thead><tr><th scope="col">requests/s</th><th scope="col">plain</th><th scope="col">speculative</th>'
            f'<th scope="col">ratio</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')


def brackets_svg(rows, width: int = WIDTH_DEFAULT) -> str:
    """Where speculation stops paying, model against measurement: one row per published batch sweep
    (lab.serving_validation.crossover_comparison), its measured first loss as a shaded bracket
    (low, high], the model's crossover at the sweep's central acceptance as a dot and over its other
    acceptance lengths as a line, on a log2 batch axis. A sweep with no crossover at some acceptance
    has that end of its line at the largest batch the search visited (the row's ``fits``: all that fit in
    memory; without it, the axis's end), marked "no loss up to" that batch ("none" at the axis's end; the central dot
    then drawn open), and its text alternative
    says where the search stopped.

    >>> svg = brackets_svg([{"label": "a sweep", "engine": "vllm-v0", "low": 16, "high": 32, "fits": 50,
    ...                      "crossovers": (40, 20, None), "acceptanceLengths": (2.0, 1.7, 2.3)}], 390)
    >>> svg.count('class="srv-bracket"'), svg.count('class="k-speculative"'), "no loss up to 50</text>" in svg
    (1, 1, True)
    >>> "No loss up to batch 50, all that fit in memory." in svg, 'srv-open-dot' in svg
    (True, False)
    """
    width = fit_width(width)
    left, right, top, row_height, bottom = 14, 18, 6, 52, 44
    found = [c for row in rows for c in row["crossovers"] if c is not None]
    found += [row["fits"] for row in rows if None in row["crossovers"] and "fits" in row]
    low_exp = max(0, math.floor(math.log2(min([row["low"] for row in rows] + found) * 0.95)))  # room left of it
    high_exp = math.ceil(math.log2(max([row["high"] for row in rows] + found) * 1.05))
    right_edge = width - right
    span = right_edge - left
    sx = lambda batch: left + (math.log2(batch) - low_exp) / (high_exp - low_exp) * span  # noqa: E731
    body, spoken = [], []
    for i, row in enumerate(rows):
        marks, said = _bracket_row(row, top + i * row_height, sx, left, right_edge)
        body += marks
        spoken.append(said)
    axis = top + len(rows) * row_height + 4
    body.append(f'<line class="fig-axisline" x1="{left}" x2="{right_edge}" y1="{axis}" y2="{axis}"/>')
    for exponent in range(low_exp, high_exp + 1):
        x = sx(2 ** exponent)
        body.append(f'<line class="fig-axisline" x1="{x:.1f}" x2="{x:.1f}" y1="{axis}" y2="{axis + 4}"/>')
        body.append(_text(x, axis + 17, str(2 ** exponent), "middle"))
    body.append(_text(left + span / 2, axis + 36, "batch (sequences)", "middle", "fig-axis"))
    label = ("Where speculation stops paying, the model against published batch sweeps. " + " ".join(spoken))
    return svg(width, axis + bottom, label, body, "srv-brackets")


def _bracket_row(row: dict, y: float, sx, left: float, right_edge: float) -> tuple:
    """(markup, its text alternative) of one published sweep at ``y``: its label, the measured first loss as a
    shaded bracket, the model's crossovers as a line with a tick per other acceptance and a dot at the central one
    (open where it finds no loss), and where the search stopped when it found none."""
    engine = serving.ENGINES[row["engine"]].label
    body = [_text(left, y + 13, row["label"], "start", "fig-tick")]  # the caption names the engines
    bar = y + 31
    body.append(f'<rect class="srv-bracket" x="{sx(row["low"]):.1f}" y="{bar - 7}" '
                f'width="{sx(row["high"]) - sx(row["low"]):.1f}" height="14"/>')
    central, *others = row["crossovers"]
    none_at = sx(row["fits"]) if "fits" in row else right_edge
    ends = [none_at if c is None else sx(c) for c in (central, *others)]
    body.append(f'<line class="srv-predict" x1="{min(ends):.1f}" x2="{max(ends):.1f}" y1="{bar}" y2="{bar}" '
                f'stroke-width="2"/>')
    for x in ends[1:]:  # one tick per other acceptance
        body.append(f'<line class="srv-predict" x1="{x:.1f}" x2="{x:.1f}" y1="{bar - 5}" y2="{bar + 5}" stroke-width="2"/>')
    # one label where the search stopped, however many acceptances end there: on the bar's line, right of the
    # bracket and the line (above the bar it met the row's own label on a phone), or under it where no room is
    if None in row["crossovers"]:
        words = f"no loss up to {row['fits']}" if "fits" in row else "none"
        after = max(max(ends), sx(row["high"])) + 8
        body.append(_text(after, bar + 4, words, "start", "fig-small") if after + 7 * len(words) <= right_edge
                    else _text(none_at - 2, bar + 20, words, "end", "fig-small"))
    # no loss: an open dot, drawn by a class (the page's CSP refuses inline style attributes)
    dot = "k-speculative srv-open-dot" if central is None else "k-speculative"
    body.append(f'<circle class="{dot}" cx="{ends[0]:.1f}" cy="{bar}" r="5"/>')
    runs = ", ".join(f"{'none' if c is None else c} at acceptance length {_f(a)}"
                     for c, a in zip(row["crossovers"], row["acceptanceLengths"]))
    stopped = (f" No loss up to batch {row['fits']}, all that fit in memory."
               if None in row["crossovers"] and "fits" in row else "")
    return body, (f"{row['label']} on {engine}: measured first loss above batch {row['low']} and by "
                  f"{row['high']}; the model's crossover {runs}.{stopped}")


# px between two dot numbers: the browser's box for a 12 px number (getBBox) is about 1.2 px taller than
# label_box's 1.05 em, so numbers 1.4 px apart by the estimate touched once 34 rows crowded the chart
NUMBER_GAP = 3


def validation_svg(rows, width: int = WIDTH_DEFAULT) -> str:
    """Predicted against measured end-to-end speedup, one dot per published row, on linear axes
    from 0 to the largest value (at least 2x), with the diagonal where they agree and the 1.0x
    lines; each dot numbered as in the table."""
    width = fit_width(width)
    left, right, top, bottom = 52, 24, 12, 44
    size = min(width - left - right, 300)
    top_value = max(2.0, max(max(r["measured"], r["predicted"]) for r in rows) * 1.1)
    sx = lambda v: left + v / top_value * size  # noqa: E731
    sy = lambda v: top + size - v / top_value * size  # noqa: E731
    body = [f'<line class="fig-axisline" x1="{left}" x2="{left + size}" y1="{top + size}" y2="{top + size}"/>',
            f'<line class="fig-axisline" x1="{left}" x2="{left}" y1="{top}" y2="{top + size}"/>',
            # slanted, so a path: every <line> of a figure is drawn with crisp edges (docs/PALETTE.md, "Thin lines at 1x")
            f'<path class="srv-one" d="M{sx(0):.1f} {sy(0):.1f}L{sx(top_value):.1f} {sy(top_value):.1f}" fill="none" '
            f'stroke-width="1.5"/>']
    ticks = [v for v in nice_ticks(0, top_value, max(2, int(size // 40))) if v > 0]
    for v in ticks:
        body.append(_text(sx(v), top + size + 16, tick_label(v, ticks) + "x", "middle"))
        body.append(_text(left - 6, sy(v) + 4, tick_label(v, ticks) + "x", "end"))
    dots = [(sx(row["measured"]), sy(row["predicted"])) for row in rows]
    body += [f'<circle class="k-speculative" cx="{x:.1f}" cy="{y:.1f}" r="4"/>' for x, y in dots]
    # each dot's number beside it (right, else left), moved at most 8 px by the collision pass, clear
    # of the dots and of the diagonal; a number with no room that near is left out rather than drawn
    # over another or across the line (the table below numbers every row)
    taken = [(x - 4, y - 4, x + 4, y + 4) for x, y in dots] + line_boxes([(sx(0), sy(0)), (sx(top_value), sy(top_value))], 1.5)
    numbers = place_labels([(x + 7, y - 5, str(i), "start") for i, (x, y) in enumerate(dots, 1)], 0, top + size,
                           obstacles=taken, gap=NUMBER_GAP, travel=8)
    taken += [label_box(spot, MIN_TEXT) for spot in numbers if spot]
    for index, spot in enumerate(numbers):
        if spot is None:
            x, y = dots[index]
            numbers[index] = place_labels([(x - 7, y - 5, str(index + 1), "end")], 0, top + size, obstacles=taken,
                                          gap=NUMBER_GAP, travel=8)[0]
            if numbers[index]:
                taken.append(label_box(numbers[index], MIN_TEXT))
    body += [_text(*spot, "fig-small") for spot in numbers if spot]
    body.append(_text(left + size / 2, top + size + 36, "measured speedup", "middle", "fig-axis"))
    body.append(f'<text class="fig-axis" transform="rotate(-90)" x="{-(top + size / 2):.1f}" y="14" '
                f'text-anchor="middle">predicted</text>')
    label = ("Predicted against measured end-to-end speedup for " + str(len(rows)) + " published rows; points on "
             "the diagonal agree. " + " ".join(f"Row {i}: measured {_f(r['measured'])}x, predicted {_f(r['predicted'])}x."
                                               for i, r in enumerate(rows, 1)))
    # as wide as the square plot and its margins, not the width asked for: the page scales the figure to its
    # column, and 640 px holding a 376 px plot shrank the plot and its 12 px text by half on a phone
    return svg(left + size + right, top + size + bottom, label, body, "srv-validation")


def validation_table_html(rows) -> str:
    """The validation rows: setting, acceptance measured at, measured and predicted speedup, ratio
    and source, every text escaped. Each source is printed once, as a numbered note under the
    table, and a row names its note (S1, S2, ...) beside what it assumed, which is printed on the first row that
    says it and referred to after ("as row 19": 16 rows share one source and what they assumed).

    >>> html = validation_table_html([])
    >>> html.startswith("<table") and "<ol" not in html
    True
    """
    number, notes = _numbered_sources([r["source"] for r in rows], "srv-val-source", "the validation rows")
    body, first_with = [], {}   # a note a source repeats (16 rows share one) is printed once, then referred to
    for i, r in enumerate(rows, 1):
        said = first_with.setdefault((r["source"], r["note"]), i)
        note = escape(r["note"]) if said == i else f"as row {said}"
        gpu = serving.GPUS[r["gpu"]].label
        precision = "" if r.get("precision", "bf16") == "bf16" else f", {serving.PRECISIONS[r['precision']].label}"
        setting = (f"{serving.TARGETS[r['target']].label} + {serving.DRAFT_LABELS[r['draft']]}, {r['gpus']} x {gpu}"
                   f"{precision}, "
                   f"batch {r['batch']}, k = {r['lookahead']}"
                   f"{', a tree of ' + str(r['treeTokens']) + ' tokens' if r.get('treeTokens') else ''}, "
                   f"{serving.ENGINES[r['engine']].label}")
        body.append(f'<tr><th scope="row">{i}</th><td>{escape(r["label"])}</td><td>{escape(setting)}</td>'
                    f'<td>{_f(r["acceptanceLength"])}</td><td>{_f(r["measured"])}</td><td>{_f(r["predicted"])}</td>'
                    f'<td>{_f(r["ratio"])}</td>'
                    f'<td>{number[r["source"]]}; {note}</td></tr>')
    return ('<table class="heatmap-table srv-validation-table"><caption>Published end-to-end speedups against the '
            'model (acceptance: the mean acceptance length each was measured at; each row run with the engine of '
            'its date). None of these sources gave the calibration a step time, so every prediction here is already '
            'out of sample</caption><thead><tr>'
            '<th scope="col">#</th><th scope="col">row</th><th scope="col">setting</th>'
            '<th scope="col">acceptance length</th><th scope="col">measured</th><th scope="col">predicted</th>'
            '<th scope="col">ratio</th>'
            '<th scope="col">source</th></tr></thead><tbody>' + "".join(body)
            + '</tbody></table>' + notes)


def _numbered_sources(sources: list, anchor: str, what: str) -> tuple[dict, str]:
    """Each distinct source of a table printed once, as a numbered note under it: (source -> the
    row's link to its note, "S1" ..., and the notes' <ol>; empty when there is no row).

    >>> links, notes = _numbered_sources(["a", "b", "a"], "t-src", "the rows")
    >>> links["a"], notes.count("<li")
    ('<a href="#t-src-1">S1</a>', 2)
    """
    distinct = list(dict.fromkeys(sources))  # in row order
    links = {source: f'<a href="#{anchor}-{n}">S{n}</a>' for n, source in enumerate(distinct, 1)}
    notes = "".join(f'<li id="{anchor}-{n}">S{n}: {escape(source)}</li>' for n, source in enumerate(distinct, 1))
    return links, (f'<ol class="srv-table-sources" aria-label="Sources of {what}">{notes}</ol>' if distinct else "")


def calibration_table_html() -> str:
    """The measured step times the model is calibrated on, each with the engine that measured it, what was
    timed (lab.serving_calibration.KINDS) and the model's value for the same (lab.serving_validation.
    step_measurement_ms), every text escaped; each source once, as a numbered note under the table, and what a row
    assumed printed once for a run of rows that share it ("as above" after)."""
    from . import serving_calibration, serving_validation

    number, notes = _numbered_sources([m.source for m in serving_calibration.STEP_MEASUREMENTS], "srv-cal-source",
                                      "the calibration rows")
    body, previous = [], None
    for m in serving_calibration.STEP_MEASUREMENTS:
        got = serving_validation.step_measurement_ms(m)
        note, previous = ("as above" if (m.source, m.note) == previous else escape(m.note)), (m.source, m.note)
        engine = serving.ENGINES[m.engine].label if m.engine else "GPU pass alone"
        body.append(f'<tr><td>{escape(serving.TARGETS[m.target].label)}, {m.gpus} x {escape(serving.GPUS[m.gpu].label)}'
                    f'</td><td>{escape(engine)}, {escape(m.kind)}</td><td>{m.batch}</td><td>{m.newTokens}</td>'
                    f'<td>{_f(m.ms)}</td><td>{_f(got)}</td>'
                    f'<td>{_f(got / m.ms)}</td><td>{number[m.source]}; {note}</td></tr>')
    return ('<table class="heatmap-table srv-calibration-table"><caption>Measured step times (ms) the model is '
            'calibrated on, each on the engine that measured it, and the model beside each</caption><thead><tr>'
            '<th scope="col">model, GPUs</th><th scope="col">engine, what was timed</th>'
            '<th scope="col">batch</th><th scope="col">tokens per sequence</th><th scope="col">measured</th>'
            '<th scope="col">model</th><th scope="col">ratio</th><th scope="col">source</th></tr></thead><tbody>'
            + "".join(body) + '</tbody></table>' + notes)
