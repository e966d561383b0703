"""Every figure of the article, drawn as an SVG (or HTML table) string by one function each.

The build calls these in CPython to pre-render the page; the browser calls the very same
functions in Pyodide when a slider moves, and the JavaScript only swaps the markup in. All
text that reaches the markup goes through :func:`escape`. Colours that carry data are
presentation attributes (the page's Content-Security-Policy forbids inline ``style``);
text and axes use CSS classes so that dark mode can restyle them.

Palette: a diverging blue/vermilion scale centred on 1.0x, with a near-neutral middle so that
break-even reads as "no colour".
"""

import math

from .jsformat import to_fixed

__all__ = ["escape", "speedup_colour", "heatmap_svg", "heatmap_selection_svg", "heatmap_table_html", "breakdown_svg", "distributions_svg",
           "outputs_svg", "trace_svg", "COLOURS"]

# The heatmap's continuous scale is computed here (Okabe-Ito blue and vermilion, safe for
# the common colour-vision deficiencies); categorical marks carry a ``k-<kind>`` class that
# widgets.css colours, so the figure and its HTML legend share one colour per kind.
COLOURS = {"faster": "#0072b2", "slower": "#d55e00", "neutral": "#f2f2f2"}
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"})


def escape(text) -> str:
    """Exactly ``html.escape(str(text), quote=True)``, without importing :mod:`html`, whose
    import is a measurable part of the lab's start-up in the browser."""
    return str(text).translate(_ESCAPES)


SATURATION_SPEEDUP = 3.0  # 3x faster (or slower) is the fully saturated end of the scale


def _mix(start: str, end: str, t: float) -> str:
    a = [int(start[i:i + 2], 16) for i in (1, 3, 5)]
    b = [int(end[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(a, b))


COLOUR_STEPS = 12  # shades on each side of break-even


def speedup_colour(speedup: float) -> str:
    """Blue for faster than baseline, vermilion for slower, on a log scale saturating at 3x,
    in :data:`COLOUR_STEPS` shades a side (cells of one shade share one path in the SVG)."""
    if not speedup > 0:
        return COLOURS["slower"]
    t = min(1.0, abs(math.log(speedup)) / math.log(SATURATION_SPEEDUP))
    return _mix(COLOURS["neutral"], COLOURS["faster" if speedup >= 1 else "slower"],
                round(t * COLOUR_STEPS) / COLOUR_STEPS)


def _fmt(value: float, digits: int = 2) -> str:
    return to_fixed(value, digits)


def _svg(width: int, height: int, label: str, body: list[str], css_class: str) -> str:
    return (f'<svg class="figure {css_class}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">' + "".join(body) + "</svg>")


# --- part one -------------------------------------------------------------------------------

HEATMAP_LAYOUT = {"cell_w": 40, "cell_h": 14, "left": 60, "top": 8, "bottom": 34}


def _heatmap_size(lookaheads, acceptances) -> tuple[int, int]:
    cell_w, cell_h, left, top, bottom = HEATMAP_LAYOUT.values()
    return left + len(lookaheads) * cell_w + 8, top + len(acceptances) * cell_h + bottom


def heatmap_svg(grid, lookaheads, acceptances) -> str:
    """Speedup heatmap: one column per lookahead, one row per acceptance (highest on top).

    Cells faster than baseline are blue, slower vermilion, on a log scale; a dark line follows
    the break-even boundary. The cells carry no tooltips: the same numbers are in
    :func:`heatmap_table_html`, and the page stays light. The selected cell is a separate
    overlay (:func:`heatmap_selection_svg`), so moving acceptance or lookahead, which leaves
    these cells as they are, redraws only the overlay."""
    cell_w, cell_h, left, top, _ = HEATMAP_LAYOUT.values()
    rows, cols = len(acceptances), len(lookaheads)
    # One path per shade, in cell units (the group scales them): a fraction of the bytes of
    # one rect per cell, which matters because the page ships this figure pre-rendered.
    shades: dict[str, list[str]] = {}
    for r in range(rows):
        for c in range(cols):
            shades.setdefault(speedup_colour(grid[r][c]), []).append(f"M{c} {rows - 1 - r}h1v1h-1z")
    body = [f'<g transform="translate({left} {top}) scale({cell_w} {cell_h})">']
    body += [f'<path fill="{colour}" d="{"".join(cells)}"/>' for colour, cells in sorted(shades.items())]
    body.append("</g>")
    for r, acceptance in enumerate(acceptances):
        if acceptance % 10 == 0:
            y = top + (rows - 1 - r) * cell_h
            body.append(f'<text class="fig-tick" x="{left - 4}" y="{y + cell_h - 3}" text-anchor="end">'
                        f'{escape(_fmt(acceptance, 0))}%</text>')
    # break-even boundary: an edge between a faster cell and a slower neighbour
    path = []
    for r in range(rows):
        for c in range(cols):
            faster = grid[r][c] > 1
            x, y = left + c * cell_w, top + (rows - 1 - r) * cell_h
            if c + 1 < cols and (grid[r][c + 1] > 1) != faster:
                path.append(f"M{x + cell_w} {y}v{cell_h}")
            if r + 1 < rows and (grid[r + 1][c] > 1) != faster:
                path.append(f"M{x} {y}h{cell_w}")
    if path:
        body.append(f'<path class="fig-breakeven" d="{"".join(path)}" fill="none" stroke-width="2.5"/>')
    for c, m in enumerate(lookaheads):
        body.append(f'<text class="fig-tick" x="{left + c * cell_w + cell_w / 2}" y="{top + rows * cell_h + 13}" '
                    f'text-anchor="middle">{m}</text>')
    body.append(f'<text class="fig-axis" x="{left + cols * cell_w / 2}" y="{top + rows * cell_h + 30}" '
                f'text-anchor="middle">lookahead m (draft tokens per verifier call)</text>')
    body.append(f'<text class="fig-axis" transform="rotate(-90)" x="{-(top + rows * cell_h / 2)}" y="12" '
                f'text-anchor="middle">acceptance per draft token</text>')
    width, height = _heatmap_size(lookaheads, acceptances)
    label = (f"Heatmap of speedup over lookahead {lookaheads[0]} to {lookaheads[-1]} and acceptance "
             f"{_fmt(acceptances[0], 0)} to {_fmt(acceptances[-1], 0)} percent; blue is faster than plain decoding, "
             f"vermilion slower. The table below the figure lists every value.")
    return _svg(width, height, label, body, "heatmap")


def heatmap_selection_svg(grid, lookaheads, acceptances, selected: tuple[int, int]) -> str:
    """The outline of the selected (row, column) cell, drawn on the heatmap's own canvas so it
    can sit exactly on top of :func:`heatmap_svg`."""
    cell_w, cell_h, left, top, _ = HEATMAP_LAYOUT.values()
    r, c = selected
    width, height = _heatmap_size(lookaheads, acceptances)
    body = [f'<rect class="fig-selected" x="{left + c * cell_w + 1}" y="{top + (len(acceptances) - 1 - r) * cell_h + 1}" '
            f'width="{cell_w - 2}" height="{cell_h - 2}" fill="none" stroke-width="3"/>']
    label = (f"Selected setting: acceptance {_fmt(acceptances[r], 0)}% and lookahead {lookaheads[c]}, "
             f"{_fmt(grid[r][c])}x.")
    return _svg(width, height, label, body, "heatmap-selection")


def heatmap_table_html(grid, lookaheads, acceptances, selected: tuple[int, int]) -> str:
    """The heatmap as a data table (screen readers, copy-paste); the selected cell is marked."""
    head = "".join(f'<th scope="col">m = {m}</th>' for m in lookaheads)
    rows = []
    for r in range(len(acceptances) - 1, -1, -1):
        cells = []
        for c in range(len(lookaheads)):
            mark = ' class="selected" aria-current="true"' if (r, c) == selected else ""
            cells.append(f"<td{mark}>{_fmt(grid[r][c])}</td>")
        rows.append(f'<tr><th scope="row">{escape(_fmt(acceptances[r], 0))}%</th>{"".join(cells)}</tr>')
    return (f'<table class="heatmap-table"><caption>Speedup (x) by acceptance (rows) and lookahead (columns)</caption>'
            f'<thead><tr><th scope="col">acceptance</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>')


def breakdown_svg(draft_ms: float, verify_ms: float, overhead_ms: float, baseline_ms: float, tokens: float) -> str:
    """One cycle split into draft work, verifier work and overhead, above the time plain
    decoding needs for the same expected number of tokens (``baseline_ms``)."""
    width, left, bar_h = 640, 150, 22
    scale = (width - left - 70) / max(draft_ms + verify_ms + overhead_ms, baseline_ms, 1e-9)
    body = []
    x = left
    for key, value, name in (("draft", draft_ms, "draft work"), ("verify", verify_ms, "verifier work"),
                             ("overhead", overhead_ms, "overhead")):
        w = value * scale
        body.append(f'<rect x="{x:.2f}" y="8" width="{w:.2f}" height="{bar_h}" class="k-{key}">'
                    f'<title>{name}: {_fmt(value, 1)} ms</title></rect>')
        if w > 44:
            body.append(f'<text class="fig-inbar" x="{x + w / 2:.2f}" y="{8 + bar_h - 7}" text-anchor="middle">'
                        f'{_fmt(value, 1)}</text>')
        x += w
    cycle = draft_ms + verify_ms + overhead_ms
    body.append(f'<text class="fig-tick" x="{left - 6}" y="{8 + bar_h - 7}" text-anchor="end">speculative cycle</text>')
    body.append(f'<text class="fig-tick" x="{x + 6:.2f}" y="{8 + bar_h - 7}">{_fmt(cycle, 1)} ms</text>')
    y2 = 8 + bar_h + 10
    w = baseline_ms * scale
    body.append(f'<rect class="fig-baseline" x="{left}" y="{y2}" width="{w:.2f}" height="{bar_h}">'
                f'<title>plain decoding of {_fmt(tokens)} tokens: {_fmt(baseline_ms, 1)} ms</title></rect>')
    body.append(f'<text class="fig-tick" x="{left - 6}" y="{y2 + bar_h - 7}" text-anchor="end">plain, {_fmt(tokens)} tokens</text>')
    body.append(f'<text class="fig-tick" x="{left + w + 6:.2f}" y="{y2 + bar_h - 7}">{_fmt(baseline_ms, 1)} ms</text>')
    label = (f"One cycle: draft work {_fmt(draft_ms, 1)} ms, verifier work {_fmt(verify_ms, 1)} ms, overhead "
             f"{_fmt(overhead_ms, 1)} ms, total {_fmt(cycle, 1)} ms, against {_fmt(baseline_ms, 1)} ms of plain decoding "
             f"for the same {_fmt(tokens)} expected tokens.")
    return _svg(width, y2 + bar_h + 6, label, body, "breakdown")


# --- part three -----------------------------------------------------------------------------

def _token_axis(vocabulary, left, column, baseline) -> list[str]:
    return [f'<text class="fig-tick" x="{left + i * column + column / 2}" y="{baseline}" text-anchor="middle">'
            f'{escape(word)}</text>' for i, word in enumerate(vocabulary)]


def distributions_svg(p, q, vocabulary) -> str:
    """p and q token by token. The p bar splits into the overlap min(p, q), which surviving
    drafts deliver, and the residual max(0, p - q), which corrections deliver; beside it
    the q bar shows in orange the excess q - p that the verifier rejects."""
    width, height, left, top, plot_h = 640, 190, 8, 10, 150
    column = (width - 2 * left) / len(p)
    peak = max(max(p), max(q), 1e-12)
    body = [f'<line class="fig-axisline" x1="{left}" x2="{width - left}" y1="{top + plot_h}" y2="{top + plot_h}"/>']
    for i, (p_x, q_x) in enumerate(zip(p, q)):
        overlap, residual, excess = min(p_x, q_x), max(0.0, p_x - q_x), max(0.0, q_x - p_x)
        x = left + i * column + column * 0.14
        bar = column * 0.34
        for offset, parts in ((0, (("kept", overlap, "overlap min(p, q)"), ("residual", residual, "residual p - q"))),
                              (bar + 2, (("kept", overlap, "overlap min(p, q)"), ("excess", excess, "rejected excess q - p")))):
            y = top + plot_h
            for key, value, name in parts:
                h = value / peak * plot_h
                if h > 0:
                    y -= h
                    body.append(f'<rect x="{x + offset:.2f}" y="{y:.2f}" width="{bar:.2f}" height="{h:.2f}" '
                                f'class="k-{key}"><title>{escape(vocabulary[i])}: {name} {_fmt(value, 4)}</title></rect>')
        body.append(f'<text class="fig-small" x="{x + bar / 2:.2f}" y="{top + plot_h + 12}" text-anchor="middle">p</text>')
        body.append(f'<text class="fig-small" x="{x + bar * 1.5 + 2:.2f}" y="{top + plot_h + 12}" text-anchor="middle">q</text>')
    body += _token_axis(vocabulary, left, column, height - 4)
    label = "Target p and draft q per token: " + "; ".join(
        f"{w} p {_fmt(a, 3)} q {_fmt(b, 3)}" for w, a, b in zip(vocabulary, p, q))
    return _svg(width, height, label, body, "distributions")


def outputs_svg(p, speculative, buggy, vocabulary, exact=None, exact_buggy=None) -> str:
    """Target p (outlined) against the empirical output of the speculative sampler and of the
    buggy sampler (fractions of their samples). ``exact`` and ``exact_buggy``, the computed
    output distributions, are drawn as a tick across each sampler's bar: sampling noise is the
    gap between bar and tick, bias the gap between tick and target."""
    width, height, left, top, plot_h = 640, 170, 8, 10, 136
    column = (width - 2 * left) / len(p)
    exact = exact if exact is not None else p
    exact_buggy = exact_buggy if exact_buggy is not None else buggy
    peak = max(max(p), max(speculative), max(buggy), max(exact_buggy), 1e-12)
    body = [f'<line class="fig-axisline" x1="{left}" x2="{width - left}" y1="{top + plot_h}" y2="{top + plot_h}"/>']
    ticks = []
    for i, values in enumerate(zip(p, speculative, buggy)):
        bar = column * 0.26
        x0 = left + i * column + column * 0.1
        for j, (key, value, name) in enumerate(zip(("target", "speculative", "buggy"), values,
                                                   ("target p", "speculative sampler", "buggy sampler"))):
            h = value / peak * plot_h
            x = x0 + j * (bar + 1)
            attrs = (f'class="fig-target" fill="none" stroke-width="1.5"' if key == "target"
                     else f'class="k-{key}"')
            body.append(f'<rect x="{x:.2f}" y="{top + plot_h - h:.2f}" width="{bar:.2f}" height="{h:.2f}" {attrs}>'
                        f'<title>{escape(vocabulary[i])}: {name} {_fmt(value, 4)}</title></rect>')
            if key != "target":
                computed = (exact if key == "speculative" else exact_buggy)[i]
                y = top + plot_h - computed / peak * plot_h
                ticks.append(f"M{x - 1:.2f} {y:.2f}h{bar + 2:.2f}")
    body.append(f'<path class="fig-exact" d="{"".join(ticks)}" fill="none" stroke-width="2"/>')
    body += _token_axis(vocabulary, left, column, height - 6)
    label = "Output frequencies per token (target, speculative, buggy): " + "; ".join(
        f"{w} {_fmt(a, 3)}, {_fmt(b, 3)}, {_fmt(c, 3)}" for w, a, b, c in zip(vocabulary, p, speculative, buggy))
    return _svg(width, height, label, body, "outputs")


def trace_svg(calls, vocabulary) -> str:
    """The seeded generation call by call: green accepted drafts, an orange corrected token
    after a rejection, a blue bonus token when a whole block survived.

    Squares of one kind share one path; each call has one hover target whose tooltip reads
    out what the call committed (one tooltip per token would triple the figure's bytes)."""
    width, cell, gap, call_gap, row_h, left = 640, 11, 1, 5, 18, 4
    x, y = left, 4
    squares = {"accepted": [], "corrected": [], "bonus": []}
    targets = []
    for number, call in enumerate(calls, 1):
        committed = call["committed"]
        span = len(committed) * (cell + gap) - gap
        if x + span > width - left and x > left:
            x, y = left, y + row_h
        for index in range(len(committed)):
            last = index == len(committed) - 1
            kind = ("corrected" if call["rejected"] else "bonus") if last else "accepted"
            squares[kind].append(f"M{x + index * (cell + gap)} {y}h{cell}v{cell}h-{cell}z")
        words = " ".join(vocabulary[token] for token in committed)
        ending = (f"draft \u2018{vocabulary[call['drafts'][len(committed) - 1]]}\u2019 rejected, corrected"
                  if call["rejected"] else "every draft accepted, plus a bonus token")
        targets.append(f'<rect x="{x}" y="{y}" width="{span}" height="{cell}" fill="none" pointer-events="all">'
                       f'<title>call {number}: {escape(words)} ({escape(ending)})</title></rect>')
        x += span + gap + call_gap
    body = [f'<path class="k-{kind}" d="{"".join(parts)}"/>' for kind, parts in squares.items() if parts] + targets
    height = y + row_h
    tokens = sum(len(c["committed"]) for c in calls)
    label = (f"Trace of {tokens} tokens in {len(calls)} verifier calls: {len(squares['accepted'])} accepted drafts, "
             f"{len(squares['corrected'])} corrections after a rejection, {len(squares['bonus'])} bonus tokens.")
    return _svg(width, height, label, body, "trace")


# --- the audit --------------------------------------------------------------------------------

def audit_checks_html(checks) -> str:
    """The named checks as an ordered list: pass or fail, what each asserts, how many
    settings or cases it visited, and the first counterexample of a failure."""
    items = []
    for check in checks:
        state = "pass" if check["passed"] else "fail"
        detail = f' <span class="check-detail">{escape(check["detail"])}</span>' if check["detail"] else ""
        items.append(f'<li class="check check-{state}" data-check="{escape(check["name"])}">'
                     f'<span class="check-state">{state}</span> <code>{escape(check["name"])}</code> '
                     f'<span class="check-visited">({check["visited"]} cases)</span> '
                     f'<span class="check-description">{escape(check["description"])}</span>{detail}</li>')
    return f'<ol class="audit-checks">{"".join(items)}</ol>'
