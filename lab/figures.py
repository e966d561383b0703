"""Every figure of the article, drawn as an SVG (or HTML table) string by one function each.

The build calls these in CPython to pre-render the page; the browser calls the very same
functions in Pyodide when a slider moves, and the JavaScript only swaps the markup in. All
text that reaches the markup goes through :func:`escape`. Colours that carry data are
presentation attributes (the page's Content-Security-Policy forbids inline ``style``);
text, axes and categorical marks use CSS classes so that dark mode can restyle them.

Width. Every figure function takes ``width`` (CSS pixels, :func:`fit_width` clamps it to
``MIN_WIDTH..MAX_WIDTH``, default :data:`DEFAULT_WIDTH`) and lays itself out for it: the SVG's
``viewBox`` and ``width`` attributes are both that width, so one user unit is one CSS pixel
and no text is ever drawn smaller than :data:`MIN_TEXT` (12 px). The page sends the width of
the figure panel (see docs/PALETTE.md); the build pre-renders at the default.

Palette. :data:`COLOURS` is the one table of what each colour means (docs/PALETTE.md): one
concept, one colour, in every figure and legend. A categorical mark carries the class
``k-<concept>``; style.css defines ``--k-<concept>`` for the light and the dark scheme with
exactly these values (a test holds the two together). The heatmap's continuous scale is the
one exception: it is computed here, from :data:`HEATMAP_SCALE`, and is the same in both
schemes, so the marks drawn on it (break-even line, selection) are fixed dark ink.
"""

import math

from .jsformat import to_fixed

__all__ = ["escape", "speedup_colour", "heatmap_svg", "heatmap_selection_svg", "heatmap_table_html", "breakdown_svg",
           "distributions_svg", "outputs_svg", "trace_svg", "COLOURS", "HEATMAP_SCALE", "fit_width",
           "line_path", "nice_ticks", "tick_label", "DEFAULT_WIDTH", "MIN_WIDTH", "MAX_WIDTH", "MIN_TEXT"]

# concept -> (light scheme, dark scheme). Every value has >= 3:1 contrast against the widget
# surface of its scheme and >= 4.5:1 against the dark ink used for labels drawn on a mark
# (the ``fig-onmark`` class), so a label may sit on any of them in either scheme.
COLOURS = {
    "draft": ("#b567c5", "#cf9cd9"),        # the proposer's serial work
    "verify": ("#00977e", "#00c4a3"),       # the target's verification pass
    "overhead": ("#858585", "#adadad"),     # scheduling, launches, sampling
    "accepted": ("#309926", "#3ec732"),     # a draft the verifier keeps; the overlap min(p, q)
    "correction": ("#b57900", "#ec9d00"),   # the verifier's token after a rejection; the residual p - q
    "rejected": ("#e05282", "#ec93b1"),     # draft mass the verifier turns down: the excess q - p
    "bonus": ("#0091b5", "#00bcec"),        # the verifier's free token after a fully accepted block
    "speculative": ("#7b7bd9", "#a8a8e6"),  # what the speculative sampler emits
    "buggy": ("#ad7a56", "#c9a78e"),        # what the buggy sampler emits
    "conditional": ("#3f86e0", "#66a3ff"),  # a measured conditional survival rate: draft i kept given i - 1 was
    "lull": ("#8c8c00", "#b8b800"),         # a bad stretch of bursty acceptance: drafts rarely survive
    "tree": ("#4887df", "#86b0ea"),         # a token tree's curve (the chain it beats is neutral dashed ink)
    "typical": ("#8f8a00", "#b8b200"),      # what Medusa's typical acceptance emits (approximate)
}
# The heatmap's diverging scale (Okabe-Ito blue and vermilion, safe for the common
# colour-vision deficiencies), the same in both schemes.
HEATMAP_SCALE = {"faster": "#0072b2", "slower": "#d55e00", "neutral": "#f2f2f2"}
INK = "#1b1d21"  # lines and labels drawn on data colours, in both schemes

DEFAULT_WIDTH, MIN_WIDTH, MAX_WIDTH = 640, 320, 960
MIN_TEXT = 12  # px: no figure text is smaller, at any width
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"})


def escape(text) -> str:
    """Exactly ``html.escape(str(text), quote=True)``, without importing :mod:`html`, whose
    import is a measurable part of the lab's start-up in the browser."""
    return str(text).translate(_ESCAPES)


def fit_width(width) -> int:
    """A figure width in CSS pixels, clamped to MIN_WIDTH..MAX_WIDTH; anything that is not a
    finite number gives the default.

    >>> fit_width(390), fit_width(100), fit_width("5000"), fit_width("wide"), fit_width(None)
    (390, 320, 960, 640, 640)
    """
    try:
        value = float(width)
    except (TypeError, ValueError, OverflowError):
        return DEFAULT_WIDTH
    if not math.isfinite(value):
        return DEFAULT_WIDTH
    return int(min(MAX_WIDTH, max(MIN_WIDTH, round(value))))


def split_width(raw):
    """``(raw, width)``: the reader's settings without the figure width, and the width.

    The page adds ``width`` (the figure panel's width in CSS pixels, in steps of 40) to the
    values it sends, and sends a URL query as ``{"query": "?a=1&b=2", "width": "920"}``; the
    width is presentation, never part of the settings or of the URL. Clamped by
    :func:`lab.fit_width` (320..960, default 640, also for a bare query string).

    >>> split_width({"acceptance": "80", "width": "390"})
    ({'acceptance': '80'}, 390)
    >>> split_width({"query": "?acceptance=80", "width": "5000"})
    ('?acceptance=80', 960)
    >>> split_width("?acceptance=80")
    ('?acceptance=80', 640)
    """
    if isinstance(raw, dict):
        rest = {key: value for key, value in raw.items() if key != "width"}
        width = fit_width(raw.get("width"))
        if isinstance(rest.get("query"), str) and len(rest) == 1:
            return rest["query"], width
        return rest, width
    return raw, DEFAULT_WIDTH


def _text_width(text: str, size: float = MIN_TEXT) -> float:
    """A generous estimate of the width of ``text`` in the page's sans-serif at ``size`` px."""
    return len(text) * size * 0.6


SATURATION_SPEEDUP = 3.0  # 3x faster (or slower) is the fully saturated end of the scale
COLOUR_STEPS = 12  # shades on each side of break-even


def _mix(start: str, end: str, t: float) -> str:
    a = [int(start[i:i + 2], 16) for i in (1, 3, 5)]
    b = [int(end[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(a, b))


def speedup_colour(speedup: float) -> str:
    """Blue for faster than baseline, vermilion for slower, on a log scale saturating at 3x,
    in :data:`COLOUR_STEPS` shades a side (cells of one shade share one path in the SVG)."""
    if not speedup > 0:
        return HEATMAP_SCALE["slower"]
    t = min(1.0, abs(math.log(speedup)) / math.log(SATURATION_SPEEDUP))
    return _mix(HEATMAP_SCALE["neutral"], HEATMAP_SCALE["faster" if speedup >= 1 else "slower"],
                round(t * COLOUR_STEPS) / COLOUR_STEPS)


def _fmt(value: float, digits: int = 2) -> str:
    return to_fixed(value, digits)


def nice_ticks(low: float, high: float, count: int = 4) -> list[float]:
    """Tick values inside ``low..high`` at a round step: 1, 2 or 5 times a power of ten, the
    smallest such step that needs at most about ``count`` intervals (an axis reads 0, 2, 4, not
    0, 2.2, 4.3). Empty when high <= low.

    step = the least of {1, 2, 5, 10} x 10^floor(log10(span / count)) that is >= span / count

    >>> nice_ticks(0, 4.3), nice_ticks(0, 0.26), nice_ticks(1, 128), nice_ticks(0.8, 2.35, 3)
    ([0.0, 2.0, 4.0], [0.0, 0.1, 0.2], [50.0, 100.0], [1.0, 2.0])
    """
    span = high - low
    if not span > 0:
        return []
    raw = span / max(1, count)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw * (1 - 1e-9))
    first, last = math.ceil(low / step - 1e-9), math.floor(high / step + 1e-9)
    return [round(i * step, 10) for i in range(first, last + 1)]


def tick_label(value: float, ticks: list[float]) -> str:
    """A tick's text with as many decimals as its axis's step needs, and no more.

    >>> [tick_label(v, [0.0, 0.1, 0.2]) for v in (0.0, 0.1)], tick_label(4.0, [0.0, 2.0, 4.0])
    (['0.0', '0.1'], '4')
    """
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    digits = max(0, -math.floor(math.log10(step) + 1e-9)) if step < 1 else 0
    if digits and abs(step * 10 ** digits - round(step * 10 ** digits)) > 1e-6:
        digits += 1  # a step of 0.25 needs two decimals, not one
    return to_fixed(value, digits)


def _tenths(tenths: int) -> str:
    """A whole number of tenths as SVG's shortest decimal: no trailing '.0', no leading '0'.

    >>> [_tenths(t) for t in (440, 2, -5, 123, 0, -30)]
    ['44', '.2', '-.5', '12.3', '0', '-3']
    """
    if tenths % 10 == 0:
        return str(tenths // 10)
    size = -tenths if tenths < 0 else tenths
    whole = size // 10
    return ("-" if tenths < 0 else "") + (str(whole) if whole else "") + "." + str(size % 10)


def line_path(points) -> str:
    """SVG path data through ``points``: the first absolute, then relative steps (``l``), which
    repeat from point to point of a smooth curve and so compress to a fraction of absolute ones.
    Each point is rounded to 0.1 px first and the steps are taken between rounded points, so no
    rounding error accumulates along the line.

    >>> line_path([(44.0, 109.44), (48.31, 65.7), (52.62, 47.4)])
    'M44 109.4l4.3-43.7 4.3-18.3'
    >>> line_path([])
    ''
    """
    parts, px, py = [], None, None
    for x, y in points:
        tx, ty = round(x * 10), round(y * 10)
        if px is None:
            parts.append(f"M{_tenths(tx)} {_tenths(ty)}")
        else:
            dx, dy = _tenths(tx - px), _tenths(ty - py)
            # a minus sign separates numbers; otherwise a space does (none before the first step)
            gap = "l" if len(parts) == 1 else "" if dx[0] == "-" else " "
            parts.append(gap + dx + (dy if dy[0] == "-" else " " + dy))
        px, py = tx, ty
    return "".join(parts)


def _svg(width: int, height: float, label: str, body: list[str], css_class: str) -> str:
    """One figure: width and viewBox agree, so a user unit is a CSS pixel."""
    height = math.ceil(height)
    return (f'<svg class="figure {css_class}" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            f'role="img" aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">' + "".join(body) + "</svg>")


# --- part one -------------------------------------------------------------------------------

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


def breakeven_path(grid, left: float, top: float, cell_w: float, cell_h: float) -> str:
    """The break-even line of a speedup grid (row 0 drawn at the bottom): one path along every
    edge between a cell faster than baseline and a neighbour that is not; empty if there is none.

    >>> breakeven_path([[0.5, 2.0]], 0, 0, 10, 10)
    '<path class="fig-breakeven" d="M10.00 0v10" fill="none" stroke="#1b1d21" stroke-width="3"/>'
    """
    rows, cols = len(grid), len(grid[0]) if grid else 0
    edges = []
    for r in range(rows):
        for c in range(cols):
            faster = grid[r][c] > 1
            x, y = left + c * cell_w, top + (rows - 1 - r) * cell_h
            if c + 1 < cols and (grid[r][c + 1] > 1) != faster:
                edges.append(f"M{x + cell_w:.2f} {y}v{cell_h}")
            if r + 1 < rows and (grid[r + 1][c] > 1) != faster:
                edges.append(f"M{x:.2f} {y}h{cell_w:.2f}")
    if not edges:
        return ""
    return f'<path class="fig-breakeven" d="{"".join(edges)}" fill="none" stroke="{INK}" stroke-width="3"/>'


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
    # One path per shade, in cell units (the group scales them): a fraction of the bytes of
    # one rect per cell, which matters because the page ships this figure pre-rendered.
    shades: dict[str, list[str]] = {}
    for r in range(rows):
        for c in range(cols):
            shades.setdefault(speedup_colour(grid[r][c]), []).append(f"M{c} {rows - 1 - r}h1v1h-1z")
    scale = f'transform="translate({left} {top}) scale({cell_w:.3f} {cell_h})"'
    body = [f'<g {scale} shape-rendering="crispEdges">']
    body += [f'<path fill="{colour}" d="{"".join(cells)}"/>' for colour, cells in sorted(shades.items())]
    body.append("</g>")
    for r, acceptance in enumerate(acceptances):
        if acceptance % 10 == 0 and (cell_h >= 16 or acceptance % 20 == 0):
            y = top + (rows - 1 - r) * cell_h
            body.append(f'<text class="fig-tick" x="{left - 5}" y="{y + cell_h / 2 + 4:.1f}" text-anchor="end">'
                        f'{escape(_fmt(acceptance, 0))}%</text>')
    body.append(breakeven_path(grid, left, top, cell_w, cell_h))
    grid_bottom = lay["grid_bottom"]
    for c, m in enumerate(lookaheads):
        body.append(f'<text class="fig-tick" x="{left + c * cell_w + cell_w / 2:.1f}" y="{grid_bottom + 16}" '
                    f'text-anchor="middle">{m}</text>')
    title = "lookahead \u03b3 (draft tokens per verifier call)"
    if _text_width(title, 13) > width - left:
        title = "lookahead \u03b3"
    body.append(f'<text class="fig-axis" x="{left + cols * cell_w / 2:.1f}" y="{grid_bottom + 35}" '
                f'text-anchor="middle">{title}</text>')
    body.append(f'<text class="fig-axis" transform="rotate(-90)" x="{-(top + rows * cell_h / 2)}" y="14" '
                f'text-anchor="middle">acceptance per draft token</text>')
    # the colour bar: the scale's shades, framed so that its pale middle shows on any surface
    bar_x, bar_y, bar_w, bar_h = lay["bar_x"], lay["bar_y"], lay["bar_w"], lay["bar_h"]
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
    return _svg(width, lay["height"], label, body, "heatmap")


def heatmap_selection_svg(grid, lookaheads, acceptances, selected: tuple[int, int],
                          width: int = DEFAULT_WIDTH, value: float | None = None) -> str:
    """The outline of the selected (row, column) cell, and the setting's speedup marked on the
    colour bar (``value``, the exact setting's, which may sit between grid rows; the cell's
    own value if not given), drawn on the heatmap's own canvas so it can sit exactly on top
    of :func:`heatmap_svg`."""
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
            f'fill="none" stroke="#ffffff" stroke-width="1"/>']
    mark = lay["bar_x"] + _scale_position(speedup) * lay["bar_w"]
    bar_y = lay["bar_y"]
    body.append(f'<path class="fig-marker" d="M{mark - 6:.1f} {bar_y - 9}h12l-6 8z"/>')
    text = f"your setting: {_fmt(speedup)}x"
    half = _text_width(text) / 2
    tx = min(max(mark, lay["bar_x"] + half), width - 4 - half)
    body.append(f'<text class="fig-tick fig-strong" x="{tx:.1f}" y="{bar_y - 13}" text-anchor="middle">'
                f'{escape(text)}</text>')
    label = (f"Selected setting: the cell of acceptance {_fmt(acceptances[r], 0)}% and lookahead {lookaheads[c]} "
             f"is outlined; your setting gives {_fmt(speedup)}x.")
    return _svg(width, lay["height"], label, body, "heatmap-selection")


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
            if _text_width(text) + 8 <= w:
                body.append(f'<text class="fig-onmark" x="{x + w / 2:.2f}" y="{y + bar_h / 2 + 4}" '
                            f'text-anchor="middle" fill="{INK}">{escape(text)}</text>')
                break
        x += w
    y2 = y + bar_h + 22
    w = baseline_ms * scale
    title = f"plain decoding of the same {_fmt(tokens)} tokens: {_fmt(baseline_ms, 1)} ms"
    if _text_width(title) > width - 2 * left:
        title = f"plain decoding, {_fmt(tokens)} tokens: {_fmt(baseline_ms, 1)} ms"
    body.append(f'<text class="fig-tick" x="{left}" y="{y2 - 6}">{escape(title)}</text>')
    body.append(f'<rect class="fig-baseline" x="{left + 0.75}" y="{y2 + 0.75}" width="{max(w - 1.5, 0):.2f}" '
                f'height="{bar_h - 1.5}"><title>plain decoding of {_fmt(tokens)} tokens: '
                f'{_fmt(baseline_ms, 1)} ms</title></rect>')
    label = (f"One cycle: draft work {_fmt(draft_ms, 1)} ms, verifier work {_fmt(verify_ms, 1)} ms, overhead "
             f"{_fmt(overhead_ms, 1)} ms, total {_fmt(cycle, 1)} ms, against {_fmt(baseline_ms, 1)} ms of plain decoding "
             f"for the same {_fmt(tokens)} expected tokens.")
    return _svg(width, y2 + bar_h + 2, label, body, "breakdown")


# --- part three -----------------------------------------------------------------------------

def _token_axis(vocabulary, left, column, baseline) -> tuple[list[str], float]:
    """Words centred under their columns; when they would touch, every other word drops a
    line. Returns the text elements and the height they take below ``baseline``."""
    widest = max(_text_width(word) for word in vocabulary)
    staggered = widest + 6 > column
    parts = [f'<text class="fig-tick" x="{left + i * column + column / 2:.1f}" '
             f'y="{baseline + (15 if staggered and i % 2 else 0)}" text-anchor="middle">{escape(word)}</text>'
             for i, word in enumerate(vocabulary)]
    return parts, 15 if staggered else 0


def distributions_svg(p, q, vocabulary, width: int = DEFAULT_WIDTH) -> str:
    """p and q token by token. The p bar splits into the overlap min(p, q), which surviving
    drafts deliver, and the residual max(0, p - q), which corrections deliver; beside it
    the q bar shows the excess q - p that the verifier rejects."""
    width = fit_width(width)
    left, top = 4, 8
    plot_h = 120 if width < 480 else 150
    column = (width - 2 * left) / len(p)
    peak = max(max(p), max(q), 1e-12)
    body = [f'<line class="fig-axisline" x1="{left}" x2="{width - left}" y1="{top + plot_h}" y2="{top + plot_h}"/>']
    for i, (p_x, q_x) in enumerate(zip(p, q)):
        overlap, residual, excess = min(p_x, q_x), max(0.0, p_x - q_x), max(0.0, q_x - p_x)
        bar = column * 0.34
        x = left + i * column + (column - 2 * bar - 2) / 2
        for offset, parts in ((0, (("accepted", overlap, "overlap min(p, q)"), ("correction", residual, "residual p - q"))),
                              (bar + 2, (("accepted", overlap, "overlap min(p, q)"), ("rejected", excess, "rejected excess q - p")))):
            y = top + plot_h
            for key, value, name in parts:
                h = value / peak * plot_h
                if h > 0:
                    y -= h
                    body.append(f'<rect x="{x + offset:.2f}" y="{y:.2f}" width="{bar:.2f}" height="{h:.2f}" '
                                f'class="k-{key}"><title>{escape(vocabulary[i])}: {name} {_fmt(value, 4)}</title></rect>')
        body.append(f'<text class="fig-small" x="{x + bar / 2:.2f}" y="{top + plot_h + 14}" text-anchor="middle">p</text>')
        body.append(f'<text class="fig-small" x="{x + bar * 1.5 + 2:.2f}" y="{top + plot_h + 14}" text-anchor="middle">q</text>')
    words, extra = _token_axis(vocabulary, left, column, top + plot_h + 31)
    body += words
    label = "Target p and draft q per token: " + "; ".join(
        f"{w} p {_fmt(a, 3)} q {_fmt(b, 3)}" for w, a, b in zip(vocabulary, p, q))
    return _svg(width, top + plot_h + 36 + extra, label, body, "distributions")


def outputs_svg(p, speculative, buggy, vocabulary, exact=None, exact_buggy=None, width: int = DEFAULT_WIDTH) -> str:
    """Target p (outlined) against the empirical output of the speculative sampler and of the
    buggy sampler (fractions of their samples). ``exact`` and ``exact_buggy``, the computed
    output distributions, are drawn as a tick across each sampler's bar: sampling noise is the
    gap between bar and tick, bias the gap between tick and target."""
    width = fit_width(width)
    left, top = 4, 8
    plot_h = 110 if width < 480 else 136
    column = (width - 2 * left) / len(p)
    exact = exact if exact is not None else p
    exact_buggy = exact_buggy if exact_buggy is not None else buggy
    peak = max(max(p), max(speculative), max(buggy), max(exact_buggy), 1e-12)
    body = [f'<line class="fig-axisline" x1="{left}" x2="{width - left}" y1="{top + plot_h}" y2="{top + plot_h}"/>']
    ticks = []
    for i, values in enumerate(zip(p, speculative, buggy)):
        bar = column * 0.26
        x0 = left + i * column + (column - 3 * bar - 2) / 2
        for j, (key, value, name) in enumerate(zip(("target", "speculative", "buggy"), values,
                                                   ("target p", "speculative sampler", "buggy sampler"))):
            h = value / peak * plot_h
            x = x0 + j * (bar + 1)
            if key == "target":
                body.append(f'<rect x="{x + 1:.2f}" y="{top + plot_h - h + 1:.2f}" width="{max(bar - 2, 0):.2f}" '
                            f'height="{max(h - 1, 0):.2f}" class="fig-target" fill="none" stroke-width="2">'
                            f'<title>{escape(vocabulary[i])}: {name} {_fmt(value, 4)}</title></rect>')
                continue
            body.append(f'<rect x="{x:.2f}" y="{top + plot_h - h:.2f}" width="{bar:.2f}" height="{h:.2f}" class="k-{key}">'
                        f'<title>{escape(vocabulary[i])}: {name} {_fmt(value, 4)}</title></rect>')
            computed = (exact if key == "speculative" else exact_buggy)[i]
            y = top + plot_h - computed / peak * plot_h
            ticks.append(f"M{x - 2:.2f} {y:.2f}h{bar + 4:.2f}")
    # the tick crosses bars of any colour: a halo of the surface colour keeps it apart from them
    body.append(f'<path class="fig-halo" d="{"".join(ticks)}" fill="none" stroke-width="6"/>')
    body.append(f'<path class="fig-exact" d="{"".join(ticks)}" fill="none" stroke-width="2.5"/>')
    words, extra = _token_axis(vocabulary, left, column, top + plot_h + 17)
    body += words
    label = "Output frequencies per token (target, speculative, buggy): " + "; ".join(
        f"{w} {_fmt(a, 3)}, {_fmt(b, 3)}, {_fmt(c, 3)}" for w, a, b, c in zip(vocabulary, p, speculative, buggy))
    return _svg(width, top + plot_h + 22 + extra, label, body, "outputs")


def trace_svg(calls, vocabulary, width: int = DEFAULT_WIDTH) -> str:
    """The seeded generation call by call: accepted drafts, then the verifier's own token,
    a correction after a rejection or a bonus token when a whole block survived.

    Squares of one kind share one path; each call has one hover target whose tooltip reads
    out what the call committed (one tooltip per token would triple the figure's bytes)."""
    width = fit_width(width)
    cell = 12 if width >= 480 else 11
    gap, call_gap, row_h, left = 1, 5, cell + 7, 2
    x, y = left, 2
    squares = {"accepted": [], "correction": [], "bonus": []}
    targets = []
    for number, call in enumerate(calls, 1):
        committed = call["committed"]
        span = len(committed) * (cell + gap) - gap
        if x + span > width - left and x > left:
            x, y = left, y + row_h
        for index in range(len(committed)):
            last = index == len(committed) - 1
            kind = ("correction" if call["rejected"] else "bonus") if last else "accepted"
            squares[kind].append(f"M{x + index * (cell + gap)} {y}h{cell}v{cell}h-{cell}z")
        words = " ".join(vocabulary[token] for token in committed)
        ending = (f"draft \u2018{vocabulary[call['drafts'][len(committed) - 1]]}\u2019 rejected, corrected"
                  if call["rejected"] else "every draft accepted, plus a bonus token")
        targets.append(f'<rect x="{x}" y="{y}" width="{span}" height="{cell}" fill="none" pointer-events="all">'
                       f'<title>call {number}: {escape(words)} ({escape(ending)})</title></rect>')
        x += span + gap + call_gap
    body = [f'<path class="k-{kind}" d="{"".join(parts)}"/>' for kind, parts in squares.items() if parts] + targets
    height = y + cell + 2
    tokens = sum(len(c["committed"]) for c in calls)
    label = (f"Trace of {tokens} tokens in {len(calls)} verifier calls: {len(squares['accepted'])} accepted drafts, "
             f"{len(squares['correction'])} corrections after a rejection, {len(squares['bonus'])} bonus tokens.")
    return _svg(width, height, label, body, "trace")


# --- the audit --------------------------------------------------------------------------------

def audit_checks_html(checks) -> str:
    """The named checks as an ordered list: pass or fail, what each asserts, how many
    settings or cases it visited, and the first counterexample of a failure.

    What a check asserts is its docstring. The browser's lab is shipped without docstrings
    (sitebuild/pystrip.py), so there the description comes out empty and marked
    ``data-keep``: the page keeps the sentence the build wrote in that place.

    >>> audit_checks_html([{"name": "a", "passed": True, "detail": "", "visited": 3, "description": ""}])
    '<ol class="audit-checks"><li class="check check-pass" data-check="a"><span class="check-state">pass</span> <code>a</code> <span class="check-visited">(3 cases)</span> <span class="check-description" data-keep="check-a"></span></li></ol>'
    """
    items = []
    for check in checks:
        state = "pass" if check["passed"] else "fail"
        name = escape(check["name"])
        detail = f' <span class="check-detail">{escape(check["detail"])}</span>' if check["detail"] else ""
        items.append(f'<li class="check check-{state}" data-check="{name}">'
                     f'<span class="check-state">{state}</span> <code>{name}</code> '
                     f'<span class="check-visited">({check["visited"]} cases)</span> '
                     f'<span class="check-description" data-keep="check-{name}">{escape(check["description"])}</span>'
                     f'{detail}</li>')
    return f'<ol class="audit-checks">{"".join(items)}</ol>'
