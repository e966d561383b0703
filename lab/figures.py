"""What every figure of the article shares: escaping, widths, the palette, path and SVG primitives,
and the audits' check lists. The figures themselves live with their widgets, one function each
(``lab/widgets/NAME.py``).

The build calls the figure functions in CPython to pre-render the page; the browser calls the
very same functions in Pyodide when a slider moves, and the JavaScript only swaps the markup in.
All text that reaches the markup goes through :func:`escape`. Colours that carry data are
presentation attributes (the page's Content-Security-Policy forbids inline ``style``);
text, axes and categorical marks use CSS classes so that dark mode can restyle them.

Width. Every figure function takes ``width`` (CSS pixels, :func:`fit_width` clamps it to
``MIN_WIDTH..MAX_WIDTH``, default :data:`DEFAULT_WIDTH`) and lays itself out for it: the SVG's
``viewBox`` and ``width`` attributes are both that width, so one user unit is one CSS pixel
and no text is ever drawn smaller than :data:`MIN_TEXT` (12 px). The page sends the width of
the figure panel (see docs/PALETTE.md); the build pre-renders at the default.

Palette. :data:`COLOURS` is the one table of what each colour means (docs/PALETTE.md): one
concept, one colour, in every figure and legend. A categorical mark carries the class
``k-<concept>``; the build writes ``--k-<concept>`` into style.css for the light and the dark
scheme from this table (sitebuild/palette.py; no stylesheet types a value of it). The heatmap's
continuous scale is the one exception: it is computed here, from :data:`HEATMAP_SCALE`, and is the
same in both schemes, so the marks drawn on it (break-even line, selection) are fixed dark ink
(:data:`INK`, with a :data:`RING` inside the selection); the build writes those into style.css too,
for the legends' swatches.
"""

import math
from bisect import bisect_left
from itertools import chain
from operator import itemgetter

from .jsformat import to_fixed

__all__ = ["escape", "speedup_colour", "breakeven_path", "audit_checks_html", "COLOURS", "HEATMAP_SCALE", "fit_width",
           "split_width", "line_path", "nice_ticks", "tick_label", "plural", "place_labels", "line_boxes", "column_box", "tv_text", "vertical_line", "hatch_path", "hatch_rects", "one_x_label", "DEFAULT_WIDTH", "MIN_WIDTH", "MAX_WIDTH", "WIDTH_STEP", "MIN_TEXT",
           "svg", "text_width", "label_box", "kept", "FIGURES_KEPT"]

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
RING = "#ffffff"  # the inner ring of the heatmaps' selection, inside its INK ring: seen on every shade

DEFAULT_WIDTH, MIN_WIDTH, MAX_WIDTH = 640, 320, 960
WIDTH_STEP = 40  # the page asks for panel widths in these steps, so a small resize does not redraw
MIN_TEXT = 12  # px: no figure text is smaller, at any width
ASCENT, DESCENT = 0.8, 0.25  # the figure font's reach above and below the baseline, in em (label boxes)
LABEL_GAP = 2  # px the collision pass keeps between a label and anything else


FIGURES_KEPT = 32  # markup kept per kind in a worker (a few slider sessions' worth; each a few KB)
_kept: dict = {}   # kind -> {key: markup}, least recently used first (a dict keeps insertion order)


def kept(kind: str, key: tuple, draw) -> str:
    """The ``kind`` markup for ``key``, drawn by ``draw()`` once and kept: a slider step redraws only
    the figures its slider feeds. ``key`` holds the drawing function and every value the markup is
    drawn from (settings, width, and the function that computed a drawn result when it is not one
    of the settings), so a function replaced in the worker (the audit's mutations do it) draws afresh
    instead of meeting the old text. Markup never changes once drawn, so a kept one is the same text;
    the least recently used of a kind goes first (:data:`FIGURES_KEPT`). ``kept.cache_clear()``
    empties every kind (tests/mutation.clear_caches finds it in each widget that imports it).

    >>> kept("example", ("a",), lambda: "<svg/>"), kept("example", ("a",), lambda: "other")
    ('<svg/>', '<svg/>')
    >>> kept.cache_clear(); kept("example", ("a",), lambda: "other")
    'other'
    """
    store = _kept.setdefault(kind, {})
    markup = store.pop(key, None)
    if markup is None:
        markup = draw()
    store[key] = markup  # now the most recent
    while len(store) > FIGURES_KEPT:
        del store[next(iter(store))]
    return markup


kept.cache_clear = _kept.clear


def escape(text) -> str:
    """Exactly ``html.escape(str(text), quote=True)``, without importing :mod:`html`, whose
    import is a measurable part of the lab's start-up in the browser: its five replacements, ``&`` first, as it
    makes them (a chain of ``str.replace`` is several times faster than ``str.translate`` with a table).

    >>> escape('a < b & "c" > ' + "'d'")
    'a &lt; b &amp; &quot;c&quot; &gt; &#x27;d&#x27;'
    """
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("'", "&#x27;"))


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

    The page adds ``width`` (the figure panel's width in CSS pixels, in steps of :data:`WIDTH_STEP`) to the
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


def text_width(text: str, size: float = MIN_TEXT) -> float:
    """A generous estimate of the width of ``text`` in the page's sans-serif at ``size`` px."""
    return len(text) * size * 0.6


def plural(count, word: str, many: str = "") -> str:
    """``count`` and ``word``, the word in the plural unless the count is exactly one ("1 sequence",
    "8 sequences", "1.5 tokens"); ``many`` names an irregular plural (default: ``word + "s"``).

    >>> plural(1, "sequence"), plural(8, "sequence"), plural(1.5, "token"), plural(0, "batch", "batches")
    ('1 sequence', '8 sequences', '1.5 tokens', '0 batches')
    """
    return f"{count} {word if count == 1 else many or word + 's'}"


def span(word: str, first: int, last: int) -> str:
    """Positions ``first`` to ``last`` in words: one position by itself, a range in the plural.

    >>> span("position", 4, 4), span("position", 4, 7), span("level", 5, 5)
    ('position 4', 'positions 4 to 7', 'level 5')
    """
    return f"{word} {first}" if first == last else f"{word}s {first} to {last}"


def label_box(label, size) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of a text label ``(x, y, words, anchor)`` whose baseline is ``y``:
    the estimate of :func:`text_width` across, the font's :data:`ASCENT` and :data:`DESCENT` (0.8 and 0.25 em) down."""
    x, y, words, anchor = label
    span = text_width(words, size)
    left = x - span if anchor == "end" else x - span / 2 if anchor == "middle" else x
    return left, y - ASCENT * size, left + span, y + DESCENT * size


def line_boxes(points, reach: float = 2) -> list[tuple[float, float, float, float]]:
    """Obstacle boxes along a drawn line for :func:`place_labels`: a box ``reach`` px around each
    point and around points along each step, at most ``reach`` px apart (so a steep step leaves no
    gap a label could slip through), so a label placed clear of them does not sit on the line.

    >>> line_boxes([(0, 0), (4, 0)], 1)
    [(-1, -1, 1, 1), (0.0, -1.0, 2.0, 1.0), (1.0, -1.0, 3.0, 1.0), (2.0, -1.0, 4.0, 1.0), (3, -1, 5, 1)]
    >>> len(line_boxes([(0, 0), (0, 100)], 2))  # a steep step: a box every 2 px
    51
    """
    boxes = []
    for i, (x, y) in enumerate(points):
        if i:
            px, py = points[i - 1]
            steps = max(1, math.ceil(math.hypot(x - px, y - py) / reach))
            for j in range(1, steps):
                mx, my = px + (x - px) * j / steps, py + (y - py) * j / steps
                boxes.append((mx - reach, my - reach, mx + reach, my + reach))
        boxes.append((x - reach, y - reach, x + reach, y + reach))
    return boxes


def _blocked_baselines(intervals) -> tuple[list, list]:
    """Open intervals ``(start, end)`` merged where they overlap (touching ones are not: their
    common end is free), as sorted starts and ends.

    >>> _blocked_baselines([(5, 9), (0, 2), (1, 3), (3, 4)])
    ([0, 3, 5], [3, 4, 9])
    """
    starts, ends = [], []
    for start, end in sorted(intervals):
        if ends and start < ends[-1]:
            if end > ends[-1]:
                ends[-1] = end
        else:
            starts.append(start)
            ends.append(end)
    return starts, ends


def _free_shift(y, low, high, limit, starts, ends, sign: int):
    """The least even shift s <= ``limit`` for which ``y + sign * s`` lies in ``low..high`` and in
    none of the merged open intervals ``starts``/``ends``; None if none does. A candidate inside an
    interval jumps to the interval's far side (every candidate short of it is inside too), so a
    column a curve's many boxes block costs a step per interval, not one per 2 px.

    >>> [_free_shift(10, 0, 100, 70, [5, 30], [21, 40], sign) for sign in (1, -1)]
    [12, 6]
    """
    shift = 0
    while shift <= limit:
        candidate = y + sign * shift
        if candidate > high if sign > 0 else candidate < low:
            return None
        if low <= candidate <= high:
            index = bisect_left(starts, candidate) - 1  # the last interval that starts below it
            if not (index >= 0 and candidate < ends[index]):
                return shift
            edge = ends[index] - y if sign > 0 else y - starts[index]
        else:  # short of the near bound: on to it
            edge = low - y if sign > 0 else y - high
        # rounded down to the grid, so no free candidate is jumped over (a rounding that lands
        # one step short costs one more pass)
        shift = max(shift + 2, 2 * math.floor(edge / 2))
    return None


def place_labels(labels, top: float, bottom: float, size: float = MIN_TEXT, obstacles=(), gap: float = LABEL_GAP,
                 travel: float | None = None):
    """The collision pass for a figure's labels: each ``(x, y, words, anchor)`` (``y`` its baseline)
    keeps its x and moves up or down the fewest pixels (in steps of 2) so that its box overlaps
    no label placed before it and no ``obstacles`` box ``(left, top, right, bottom)``, staying
    between ``top`` and ``bottom``; labels are placed in the order given, so the most important
    comes first. A label with no free place within ``travel`` px of its own y (default: anywhere
    between ``top`` and ``bottom``) comes back as None: a label drawn over another is unreadable.

    >>> place_labels([(10, 50, "vLLM 1.5x", "start"), (10, 52, "vLLM 2.8x", "start")], 0, 100)
    [(10, 50, 'vLLM 1.5x', 'start'), (10, 66, 'vLLM 2.8x', 'start')]
    """
    placed, boxes = [], list(obstacles)
    ascent, descent = ASCENT * size, DESCENT * size
    for x, y, words, anchor in labels:
        # A label keeps its x, so its box spans the same columns at every height: only the boxes
        # within ``gap`` of those columns can block it, each for the baselines c strictly between
        # its top less the descent and gap and its bottom plus the ascent and gap (boxes closer
        # than ``gap`` overlap), and those open intervals are merged.
        left, _, right, _ = label_box((x, y, words, anchor), size)
        starts, ends = _blocked_baselines((box[1] - descent - gap, box[3] + ascent + gap) for box in boxes
                                          if left < box[2] + gap and box[0] < right + gap)
        # the fewest pixels in steps of 2; at the same distance, down the figure (y + shift) first
        limit, low, high = int(bottom - top if travel is None else travel) + 1, top + ascent, bottom - descent
        down = _free_shift(y, low, high, limit, starts, ends, 1)
        up = _free_shift(y, low, high, limit, starts, ends, -1)
        best = (None if down is None and up is None
                else y + down if up is None or (down is not None and down <= up) else y - up)
        placed.append(None if best is None else (x, best, words, anchor))
        if best is not None:
            boxes.append(label_box((x, best, words, anchor), size))
    return placed


def tv_text(value, digits: int = 3) -> str:
    """A total variation as the page shows it: "0 (exact)" where it is exactly zero (the verifiers'
    outputs are computed in fractions, so an exact one gives exactly 0), else ``digits`` decimals.

    >>> tv_text(0.0), tv_text(0.0762549)
    ('0 (exact)', '0.076')
    """
    return "0 (exact)" if value == 0 else to_fixed(value, digits)


def column_box(x: float, top: float, bottom: float, reach: float = 2) -> tuple[float, float, float, float]:
    """The obstacle box of a vertical mark at ``x`` from ``top`` to ``bottom`` for :func:`place_labels`.

    >>> column_box(10, 0, 50)
    (8, 0, 12, 50)
    """
    return (x - reach, top, x + reach, bottom)


def hatch_path(left: float, top: float, right: float, bottom: float, spacing: float = 8) -> str:
    """Path data of a hatch filling the rectangle: the pieces inside it of the lines
    ``x + y = n * spacing`` (rising to the right), on one lattice for every rectangle, so that
    hatched rectangles side by side join into one hatch. Empty for a rectangle with no area.

    >>> hatch_path(0, 0, 10, 10, 8)
    'M0 8L8 0M6 10L10 6'
    """
    pieces = []
    for n in range(math.floor((left + top) / spacing) + 1, math.ceil((right + bottom) / spacing)):
        line = n * spacing
        start, end = max(left, line - bottom), min(right, line - top)
        if start < end:
            ends = (start, line - start, end, line - end)
            pieces.append("M{} {}L{} {}".format(*(_tenths(round(value * 10)) for value in ends)))
    return "".join(pieces)


def hatch_rects(rects, spacing: float = 8) -> str:
    """Path data of one hatch over a union of rectangles ``(left, top, right, bottom)``: the lines of
    :func:`hatch_path`, each drawn once along every stretch where it runs through the union, rather than
    once per rectangle (a heatmap's hatched cells: the same lines, a third of the path data).

    >>> hatch_rects([(0, 0, 10, 10), (10, 0, 20, 10)], 8) == hatch_path(0, 0, 20, 10, 8)
    True
    """
    spans: dict[int, list[list[float]]] = {}
    for left, top, right, bottom in rects:
        for n in range(math.floor((left + top) / spacing) + 1, math.ceil((right + bottom) / spacing)):
            start, end = max(left, n * spacing - bottom), min(right, n * spacing - top)
            if start < end:
                spans.setdefault(n, []).append([start, end])
    pieces = []
    for n in sorted(spans):
        line, merged = n * spacing, []
        for start, end in sorted(spans[n]):
            if merged and start <= merged[-1][1] + 1e-9:  # rectangles that touch along this line
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        for start, end in merged:
            ends = (start, line - start, end, line - end)
            pieces.append("M{} {}L{} {}".format(*(_tenths(round(value * 10)) for value in ends)))
    return "".join(pieces)


def vertical_line(x: float, top: float, bottom: float, attributes: str, around=None, reach: float = 2) -> str:
    """A vertical ``<line>`` at ``x`` from ``top`` to ``bottom``, broken 2 px above and below the box
    ``around`` (a label's ``(left, top, right, bottom)``) where it would run through it (within
    ``reach`` px of its sides); a piece of 4 px or less is left out.

    >>> vertical_line(10, 0, 50, 'class="m"').count("<line"), vertical_line(10, 0, 50, 'class="m"', (0, 20, 30, 30)).count("<line")
    (1, 2)
    """
    spans = [(top, bottom)]
    if around and around[0] - reach <= x <= around[2] + reach and top < around[3] + 2 and around[1] - 2 < bottom:
        spans = [(a, b) for a, b in ((top, around[1] - 2), (around[3] + 2, bottom)) if b - a > 4]
    return "".join(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{a:.1f}" y2="{b:.1f}" {attributes}/>' for a, b in spans)


def one_x_label(x0: float, x1: float, y: float, wordings, obstacles=()) -> tuple:
    """Where a 1x line's own label goes, ``(x, baseline, words, anchor)``: just under the line at
    its left end (where a speedup curve that starts above 1x leaves room), moved by the collision
    pass (:func:`place_labels`) if something else is there; where nothing near the left end is free,
    the right end, then each shorter wording in turn; then anywhere along the line, left to right
    (between two vertical marks that block both ends). ``wordings`` run longest first; those wider
    than 0.6 of the axis are skipped. The line always says what it is: as a last resort its
    shortest wording, above the line at the right end.

    >>> one_x_label(40, 400, 100, ("1x: break-even",))
    (44, 114, '1x: break-even', 'start')
    >>> one_x_label(40, 400, 100, ("1x: break-even",), obstacles=[(40, 100, 400, 130)])[1:]
    (94, '1x: break-even', 'start')
    >>> one_x_label(40, 400, 100, ("1x: break-even",), obstacles=[(99, 0, 101, 200), (299, 0, 301, 200)])
    (108, 114, '1x: break-even', 'start')
    """
    fitting = [words for words in wordings if text_width(words) <= (x1 - x0) * 0.6] or [wordings[-1]]
    ends = ((words, x, anchor) for words in fitting for x, anchor in ((x0 + 4, "start"), (x1 - 4, "end")))
    along = ((words, x, "start") for words in fitting  # tried only when both ends are blocked
             for x in range(int(x0) + 12, int(x1 - 4 - text_width(words)), 8))
    top, bottom = y - 40, y + 30
    # The search along a line whose ends are blocked tries dozens of places against a curve's
    # hundreds of boxes. Every try searches the same band, so the boxes that can block no baseline
    # in it are dropped once (the same float tests as place_labels' intervals), and each try gets
    # only the boxes that start near its own columns (place_labels tests those exactly).
    ascent, descent, gap = ASCENT * MIN_TEXT, DESCENT * MIN_TEXT, LABEL_GAP
    band = sorted((box for box in obstacles
                   if box[3] + ascent + gap > top + ascent and box[1] - descent - gap < bottom - descent),
                  key=itemgetter(0))
    lefts = [box[0] for box in band]
    widest = max((box[2] - box[0] for box in band), default=0)
    for words, x, anchor in chain(ends, along):
        left, _, right, _ = label_box((x, y + 14, words, anchor), MIN_TEXT)
        near = band[bisect_left(lefts, left - gap - widest - 1):bisect_left(lefts, right + gap)]
        spot = place_labels([(x, y + 14, words, anchor)], top, bottom, obstacles=near)[0]
        if spot:
            return spot
    return (x1 - 4, y - 4, wordings[-1], "end")


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


def svg(width: int, height: float, label: str, body: list[str], css_class: str) -> str:
    """One figure: width and viewBox agree, so a user unit is a CSS pixel."""
    height = math.ceil(height)
    return (f'<svg class="figure {css_class}" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            f'role="img" aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">' + "".join(body) + "</svg>")


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


# --- the audit --------------------------------------------------------------------------------

def audit_checks_html(checks) -> str:
    """The named checks as an ordered list: pass or fail, what each asserts, how many
    settings or cases it visited, and the first counterexample of a failure.

    What a check asserts is its docstring. The browser's lab is shipped without docstrings
    (sitebuild/pystrip.py), so there the description comes out empty: the page keeps the sentence
    the build wrote in that check's place (site/audit.js, by the item's ``data-check``).

    >>> audit_checks_html([{"name": "a", "passed": True, "detail": "", "visited": 3, "description": ""}])
    '<ol class="audit-checks"><li class="check check-pass" data-check="a"><span class="check-state">pass</span> <code>a</code> <span class="check-visited">(3 cases)</span> <span class="check-description"></span></li></ol>'
    """
    items = []
    for check in checks:
        state = "pass" if check["passed"] else "fail"
        name = escape(check["name"])
        detail = f' <span class="check-detail">{escape(check["detail"])}</span>' if check["detail"] else ""
        items.append(f'<li class="check check-{state}" data-check="{name}">'
                     f'<span class="check-state">{state}</span> <code>{name}</code> '
                     f'<span class="check-visited">({plural(check["visited"], "case")})</span> '
                     f'<span class="check-description">{escape(check["description"])}</span>'
                     f'{detail}</li>')
    return f'<ol class="audit-checks">{"".join(items)}</ol>'

