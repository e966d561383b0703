"""Slider specs, clamping, and the URL query that carries slider state.

Two behaviours, on purpose:

* Library calls that sliders and URLs reach (:func:`clamp_params`, :func:`parse_query`,
  ``lab.exact.evaluate``, ``lab.views``) never raise on bad values. They clamp a value into
  its range, round it to the slider's step, or fall back to the default when it is not a
  finite number, and report each change as a note (and, for ``evaluate``, in ``state``).
  Nothing the reader set is silently lost: every other parameter keeps its value.
* The CLI (``lab.cli``) refuses bad input instead: one line naming the parameter and its
  valid range on stderr, exit code 2 (people typing flags want to know, not to be corrected).
"""

from dataclasses import dataclass, replace
import math

from .jsformat import to_js_string

__all__ = ["Slider", "slider_specs", "LEDGER_SLIDERS", "EXACT_SLIDERS", "TREE_SLIDERS", "clamp_value", "clamp_params",
           "parse_query", "split_query", "format_query", "MAX_QUERY_LENGTH", "describe_range", "requested_curve",
           "raw_value", "was_sent", "shown_value", "reader_note", "ORIGIN_KEY", "UNLINKABLE_CURVE_NOTE", "Choice", "OptionalInteger", "Text", "read_controls", "quote",
           "QUOTE_LIMIT", "PANEL_FIGURE_TEXT", "panel_figure_from_link", "log_stop"]

MAX_QUERY_LENGTH = 2048  # a longer query is garbage, not slider state: ignored whole (every widget's reader)
QUOTE_LIMIT = 48         # characters of a rejected value repeated in its note (every widget's notes)


def log_stop(count: float, base: int) -> int:
    """A log slider's stop for a count, ``round(log_base n)``: the nearest power's exponent (the page's
    ``nearestStop`` in site/app.js keeps the same rule), the exact count travelling beside it.

    >>> log_stop(32, 2), log_stop(48, 2), log_stop(40, 2)
    (5, 6, 5)
    """
    return round(math.log(count, base))


@dataclass(frozen=True)
class Slider:
    """One input: its name (URL key and form field), label, range, step, default and unit."""

    name: str
    label: str
    minimum: float
    maximum: float
    step: float
    default: float
    unit: str = ""
    integer: bool = False
    url_key: str = ""   # the key in the page address, when the name is taken by the other widget
    control: str = "range"  # how the page shows it: "range" (a slider) or "number" (a number field)
    base: int = 0           # a log slider: the page shows and announces base ** value in the unit
    typed_key: str = ""     # a log slider's typed twin (the exact count, 48 between 32 and 64): its URL key

    @property
    def key(self) -> str:
        return self.url_key or self.name

    def nearest_stop(self, count: float) -> int:
        """This log slider's stop nearest ``count`` within its range (:func:`log_stop`, clamped)."""
        return int(min(max(log_stop(count, self.base), self.minimum), self.maximum))

    @property
    def typed_name(self) -> str:
        """The form name of a log slider's typed twin: its name without "Exp" ("batchExp" -> "batch")."""
        return self.name.removesuffix("Exp") if self.typed_key else ""


@dataclass(frozen=True)
class Choice:
    """One select of a widget: its name (form field), URL key, label, options (value -> title)
    and default value."""

    name: str
    url_key: str
    label: str
    options: dict
    default: str

    @property
    def key(self) -> str:
        return self.url_key or self.name

    def read(self, raw, label: str = "") -> tuple[str, str | None]:
        """The option ``raw`` names and ``None``, or the default and a note naming what was wrong.

        >>> Choice("mode", "tMode", "Mode", {"a": "A", "b": "B"}, "a").read("c")
        ('a', "Mode: 'c' is not one of “A”, “B”; using A")
        """
        if isinstance(raw, str) and raw in self.options:
            return raw, None
        if raw == "":  # an empty field sets nothing
            return self.default, None
        # in the reader's words: the options as the select shows them (a long list by its count)
        options = self.options if isinstance(self.options, dict) else {value: value for value in self.options}
        titles = [str(title) for title in options.values()]
        choices = (f"one of {', '.join(f'“{t}”' for t in titles)}" if len(titles) <= 6 and sum(map(len, titles)) <= 80
                   else f"one of the {len(titles)} choices")
        return self.default, (f"{label or self.label}: {quote(raw)!r} is not {choices}; "
                              f"using {options[self.default]}")


@dataclass(frozen=True)
class OptionalInteger:
    """A number box that may be left empty: an integer from ``minimum`` to ``maximum``, or ``None``
    when the widget works the value out itself (the trace reader's lookahead, read from the trace).
    A value that is not such an integer is read as empty, not clamped (a clamped lookahead would
    misread a trace), with a note that says what empty means (``if_empty``)."""

    name: str
    url_key: str
    label: str
    minimum: int
    maximum: int
    if_empty: str
    default = None  # a class attribute, not a field: an empty box

    @property
    def key(self) -> str:
        return self.url_key or self.name

    def read(self, raw, label: str = "") -> tuple[int | None, str | None]:
        """The integer ``raw`` holds and ``None``, or ``None`` and a note naming what was wrong.

        >>> box = OptionalInteger("k", "trcK", "Lookahead", 1, 64, "reading it from the trace")
        >>> box.read(" 5 "), box.read(""), box.read(5.0)
        ((5, None), (None, None), (5, None))
        >>> box.read("nine", "trcK")[1]
        "trcK: 'nine' is not an integer from 1 to 64; reading it from the trace"
        """
        if isinstance(raw, str) and not raw.strip():
            return None, None
        number = _as_number(raw)
        if number is not None and math.isfinite(number) and number.is_integer() \
                and self.minimum <= number <= self.maximum:
            return int(number), None
        shown = quote(raw) if isinstance(raw, str) else (repr(raw) if number is not None else type(raw).__name__)
        return None, (f"{label or self.name}: {shown!r} is not an integer from {self.minimum} to {self.maximum}; "
                      f"{self.if_empty}")


@dataclass(frozen=True)
class Text:
    """Text the reader types or pastes (a textarea, a text box). Unless ``linkable``, it is read from
    the form only: typed text never rides in a link, so a query's value under its key is ignored.
    Text longer than ``max_length`` (0: no limit) is cut there, with a note; ``strip`` trims white
    space at both ends first; a value that is not text reads as empty, with a note.

    >>> Text("prompt", "Prompt", max_length=3).read("abcdef", "prompt")
    ('abc', 'prompt: 6 characters, more than the 3 read; using the first 3')
    """

    name: str
    label: str
    max_length: int = 0
    strip: bool = False
    url_key: str = ""
    linkable: bool = False
    default: str = ""

    @property
    def key(self) -> str:
        return self.url_key or self.name

    def read(self, raw, label: str = "") -> tuple[str, str | None]:
        label = label or self.name
        if not isinstance(raw, str):
            return self.default, f"{label}: a value of type {type(raw).__name__} is not text; using nothing"
        text = raw.strip() if self.strip else raw
        if self.max_length and len(text) > self.max_length:
            return text[:self.max_length], (f"{label}: {len(text)} characters, more than the {self.max_length} read; "
                                            f"using the first {self.max_length}")
        return text, None


def slider_specs(sliders) -> list[dict]:
    """What a partial needs to draw each slider (its ``_slider.html.j2``), in the page's names.

    >>> slider_specs([Slider("k", "Lookahead k", 1, 12, 1, 4, "tokens")])[0]["max"]
    12
    """
    return [{"name": s.name, "label": s.label, "min": s.minimum, "max": s.maximum, "step": s.step,
             "default": s.default, "unit": s.unit, "control": s.control, "base": s.base, "typedName": s.typed_name} for s in sliders]


LEDGER_SLIDERS = (
    Slider("acceptance", "Per-token acceptance α", 0, 100, 1, 74, "%"),
    Slider("draftCost", "Draft pass cost", 0, 100, 1, 12, "% of target"),
    Slider("lookahead", "Lookahead k", 1, 12, 1, 5, "tokens", integer=True),
    Slider("overheadMs", "Overhead per cycle", 0, 200, 1, 6, "ms"),
    Slider("targetMs", "Target pass", 1, 500, 1, 80, "ms"),
    Slider("verifyTax", "Verify tax per extra token", 0, 50, 1, 3, "%"),
)

EXACT_SLIDERS = (
    Slider("certainty", "Target certainty", 0, 100, 1, 64, "%", integer=True),
    Slider("match", "Draft match", 0, 100, 1, 72, "%", integer=True),
    Slider("gamma", "Lookahead k (drafts per call)", 1, 12, 1, 5, "tokens", integer=True),
    Slider("draftCost", "Draft pass cost", 0, 100, 1, 9, "% of target", integer=True, url_key="exactDraftCost"),
    Slider("length", "Tokens to generate", 1, 256, 1, 96, "tokens", integer=True),
    Slider("seed", "Seed", 0, 9999, 1, 23, "", integer=True, control="number"),
)

# The trees widget's sliders (lab.widgets.trees.SLIDERS); `python -m lab tree` takes its curve mode's top-1, decay
# and candidates with these ranges and defaults.
TREE_SLIDERS = (
    Slider("budget", "Node budget (root included)", 1, 128, 1, 32, "nodes", integer=True, url_key="treeBudget"),
    Slider("maxDepth", "Max depth (levels, root included)", 1, 12, 1, 6, "levels", integer=True, url_key="treeDepth"),
    Slider("top1", "Per-token acceptance \u03b1 (top-1)", 0, 99, 1, 70, "%", integer=True, url_key="treeTop1"),
    Slider("decay", "Decay of lower ranks", 0, 100, 1, 50, "%", integer=True, url_key="treeDecay"),
    Slider("drafts", "Tree candidates per node", 1, 8, 1, 4, "candidates", integer=True, url_key="treeDrafts"),
    Slider("verifyTax", "Verify tax per extra node", 0, 20, 1, 3, "%", integer=True, url_key="treeVerifyTax"),
)


def describe_range(slider: Slider) -> str:
    kind = "an integer" if slider.integer else "a number"
    return f"{kind} from {to_js_string(slider.minimum)} to {to_js_string(slider.maximum)}"




def _as_number(raw):
    """A float from a number or a numeric string written in ASCII; ``None`` for anything else (no
    exceptions). Python's ``float`` reads other scripts' digits ('\u0663', '\uff15') and digits grouped
    by underscores ('1_000'); the trace reader and the CLI refuse them, and so does every slider (as
    JavaScript's Number does the underscores).

    >>> _as_number(" 3.5 "), _as_number("\u0663"), _as_number("\uff15"), _as_number("1_000")
    (3.5, None, None, None)
    """
    if isinstance(raw, bool):
        return None
    if isinstance(raw, (int, float)):
        try:
            return float(raw)
        except OverflowError:  # an int too large for a float: clamped like an infinity
            return math.inf if raw > 0 else -math.inf
    if isinstance(raw, str) and len(raw) <= 64 and raw.isascii() and "_" not in raw:
        try:
            return float(raw.strip())
        except ValueError:
            return None
    return None


def quote(raw) -> str:
    """What a note repeats of a rejected value: text up to :data:`QUOTE_LIMIT` characters (longer
    text cut there, with an ellipsis), anything else by its type's name.

    >>> quote("abc"), quote("x" * 60)[-3:], quote(3.5)
    ('abc', 'xx\u2026', 'float')
    """
    if isinstance(raw, str):
        return raw if len(raw) <= QUOTE_LIMIT else raw[:QUOTE_LIMIT] + "\u2026"
    return type(raw).__name__


def clamp_value(slider: Slider, raw, label: str = "") -> tuple[float | int, str | None]:
    """The valid value for ``raw`` and a note if it had to change (else ``None``); the note
    names the parameter as ``label`` (default: the slider's name)."""
    label = label or slider.name
    number = _as_number(raw)
    if number is None or math.isnan(number):
        # Quote what the reader gave (shortened), so the note says what was rejected;
        # a value that is not text at all is named by its type.
        shown = quote(raw)
        return _typed(slider, slider.default), (
            f"{label}: {shown!r} is not a number; using the default {to_js_string(slider.default)} "
            f"(valid: {describe_range(slider)})")
    value = min(max(number, slider.minimum), slider.maximum)
    if slider.integer:
        value = math.floor(value + 0.5)
    if value != number:
        return _typed(slider, value), (
            f"{label}: {to_js_string(number) if math.isfinite(number) else number} is not "
            f"{describe_range(slider)}; using {to_js_string(value)}")
    return _typed(slider, value), None


def shown_value(slider: Slider, value: float) -> str:
    """A slider's value as the page shows it, with its unit: a log slider's ``base ** value``
    ("1,024 sequences"; a huge exponent as "2^99"), a plural unit in the singular at 1.

    >>> batch = Slider("batchExp", "Batch B", 0, 10, 1, 5, "sequences", integer=True, base=2)
    >>> shown_value(batch, 10), shown_value(batch, 99), shown_value(batch, 0), shown_value(LEDGER_SLIDERS[0], 74)
    ('1,024 sequences', '2^99 sequences', '1 sequence', '74%')
    >>> shown_value(EXACT_SLIDERS[1], 3000), shown_value(EXACT_SLIDERS[1], 1e308)
    ('3,000%', '1e+308%')
    """
    if not math.isfinite(value):
        return "infinity" if value > 0 else "minus infinity"
    elif slider.base and float(value).is_integer() and abs(value) <= 40:
        text = f"{slider.base ** int(value):,}"
    elif slider.base:
        text = f"{slider.base}^{to_js_string(value)}"
    elif slider.integer and slider.unit and float(value).is_integer() and abs(value) < 1e21:
        # a count in a unit: "3,000 sequences", as the page shows it; from 1e21 on, JavaScript's own exponent form
        # ("1e+308"), so a huge number pasted into a link is not echoed back as 300 digits
        text = f"{int(value):,}"
    else:
        text = to_js_string(value)
    unit = slider.unit
    if unit and text == "1" and unit.endswith("s") and unit[:-1].isalpha() and len(unit) > 3:
        unit = unit[:-1]  # "1 sequence", as the page's slider says (site/app.js unitFor)
    return text + ("" if not unit else unit if unit.startswith("%") else f" {unit}")


def reader_note(slider: Slider, raw, label: str = "") -> tuple[float | int, str | None]:
    """:func:`clamp_value` in the reader's words, for the page's notes: the control's label, values
    in the unit the page shows (a log slider's 1,024, not its exponent 10) and the value used.

    >>> reader_note(Slider("batchExp", "Batch B", 0, 10, 1, 5, "sequences", integer=True, base=2), "99")
    (10, 'Batch B: 2^99 sequences is more than the largest, 1,024 sequences; using 1,024 sequences')
    >>> reader_note(EXACT_SLIDERS[-1], "inf")[1]
    'Seed: infinity is more than the largest, 9999; using 9999'
    >>> reader_note(LEDGER_SLIDERS[0], "x")[1]
    "Per-token acceptance α: 'x' is not a number; using 74% (valid: 0% to 100%)"
    """
    value, note = clamp_value(slider, raw)
    if note is None:
        return value, None
    label = label or slider.label
    label = label[:1].upper() + label[1:]
    number = _as_number(raw)
    if number is None or math.isnan(number):
        whole = "a whole number, " if slider.integer else ""
        low = shown_value(slider, slider.minimum) if slider.unit.startswith("%") else \
            shown_value(replace(slider, unit=""), slider.minimum)  # "1 to 8 tokens", "0% to 100%"
        return value, (f"{label}: {quote(raw)!r} is not a number; using {shown_value(slider, value)} "
                       f"(valid: {whole}{low} to {shown_value(slider, slider.maximum)})")
    if number > slider.maximum or number < slider.minimum:
        which = "more than the largest" if number > slider.maximum else "less than the smallest"
        return value, (f"{label}: {shown_value(slider, number)} is {which}, {shown_value(slider, value)}; "
                       f"using {shown_value(slider, value)}")
    # the words the page's typed twin says at once (site/app.js wireTypedTwins), so the answer that follows says the same
    def bare(v):  # the number as the page shows it (1,024), its unit said once, after the value used
        text = shown_value(slider, v)
        if slider.unit and not slider.unit.startswith("%"):
            for unit in (slider.unit, slider.unit[:-1]):
                if text.endswith(" " + unit):
                    return text[:-len(unit) - 1]
        return text
    return value, (f"{label}: {shown_value(slider, number)} is not a whole number from {bare(slider.minimum)} to "
                   f"{bare(slider.maximum)}; using {shown_value(slider, value)}")


def _typed(slider: Slider, value):
    return int(value) if slider.integer else float(value)


def clamp_params(sliders, raw: dict, by_url_key: bool = False) -> tuple[dict, list[str], list[str]]:
    """Valid params for every slider from ``raw`` (missing keys take defaults silently).
    ``raw`` is keyed by slider name, or by URL key when ``by_url_key``.

    Returns ``(params, changed_names, notes)``."""
    params, changed, notes = {}, [], []
    for slider in sliders:
        key = slider.key if by_url_key else slider.name
        if key in raw:
            value, note = clamp_value(slider, raw[key], key)
        else:
            value, note = _typed(slider, slider.default), None
        params[slider.name] = value
        if note:
            changed.append(slider.name)
            notes.append(note)
    return params, changed, notes


def parse_query(query, sliders) -> tuple[dict, list[str]]:
    """Slider params from a URL query string (``"?acceptance=80&lookahead=4"``) and notes:
    :func:`read_controls` for a query. Unknown keys are ignored; repeated keys keep the last value."""
    return read_controls(query if isinstance(query, str) else "", sliders)


def read_controls(raw, controls) -> tuple[dict, list[str]]:
    """A widget's settings from its declared controls (:class:`Slider`, :class:`Choice`,
    :class:`OptionalInteger`, :class:`Text`), read from a URL query string (by URL key; a
    :class:`Text` only when linkable) or a mapping of form values (by name): the one reader of
    URL and form state. Never raises: a slider's bad value is clamped or defaulted, a choice's
    replaced by its default, each with a note naming the control as the reader wrote it; a missing
    control takes its default silently; a query longer than :data:`MAX_QUERY_LENGTH` is ignored
    whole, with a note. Anything else (not a string, not a mapping) gives the defaults. Notes are in
    the reader's words (:func:`reader_note`): the control's label and the page's unit, one per control.

    >>> controls = (*LEDGER_SLIDERS[:1], Choice("mode", "ldMode", "Mode", {"a": "A", "b": "B"}, "a"))
    >>> read_controls("?acceptance=80&ldMode=b", controls)
    ({'acceptance': 80.0, 'mode': 'b'}, [])
    >>> read_controls({"acceptance": "x", "mode": "c"}, controls)[1]
    ["Per-token acceptance α: 'x' is not a number; using 74% (valid: 0% to 100%)", "Mode: 'c' is not one of “A”, “B”; using A"]
    """
    notes = []
    if isinstance(raw, str) or raw is None:
        query = raw or ""
        if len(query) > MAX_QUERY_LENGTH:
            notes.append(f"The link's settings were {len(query)} characters long "
                         f"(at most {MAX_QUERY_LENGTH} are read); using the defaults")
            query = ""
        pairs = dict(split_query(query.lstrip("?")))  # a repeated key: the last one wins
        values = {control.name: pairs[control.key] for control in controls
                  if control.key in pairs and getattr(control, "linkable", True)}
        by_url = True
    else:
        values = {c.name: raw[c.name] for c in controls if c.name in raw} if isinstance(raw, dict) else {}
        by_url = False
    params = {}
    for control in controls:
        # notes name the control as the page labels it, in the unit it shows (not its URL key)
        label = control.label[:1].upper() + control.label[1:]
        if control.name not in values:
            params[control.name] = _typed(control, control.default) if isinstance(control, Slider) else control.default
            continue
        reader = (lambda value, name: reader_note(control, value, name)) if isinstance(control, Slider) else control.read  # noqa: B023 (called in this iteration)
        params[control.name], note = reader(values[control.name], label)
        if note:
            notes.append(note)
    for control in controls:  # a log slider's exact count, from its typed twin
        if isinstance(control, Slider) and control.typed_key:
            typed = (pairs.get(control.typed_key) if by_url else
                     raw.get(control.typed_name) if isinstance(raw, dict) else None)
            label = control.label[:1].upper() + control.label[1:]
            count, exponent, note = read_typed(control, typed, params[control.name], control.name in values, label)
            params[control.typed_name], params[control.name] = count, exponent
            if note:
                notes.append(note)
    return params, notes


def read_typed(slider: Slider, raw, exponent: int, exponent_given: bool = True,
               label: str = "") -> tuple[int, int, str | None]:
    """A log slider's exact count ``n`` from its typed twin, the slider's stop and a note: the twin's
    whole number from ``base ** minimum`` to ``base ** maximum`` counts when its nearest stop,
    ``round(log_base n)``, is the slider's (the page keeps the two in step; a slider moved since, or an
    old link with the exponent alone, gives ``base ** exponent``); with no exponent given, the
    slider follows the twin. A bad number is named in the reader's words, as every slider's.

    >>> batch = Slider("batchExp", "Batch B", 0, 10, 1, 5, "sequences", integer=True, base=2, typed_key="bN")
    >>> read_typed(batch, "48", 6), read_typed(batch, "48", 7), read_typed(batch, "", 6), read_typed(batch, "40", 5, False)
    ((48, 6, None), (128, 7, None), (64, 6, None), (40, 5, None))
    >>> read_typed(batch, "3000", 5, False)
    (1024, 10, 'Batch B: 3,000 sequences is more than the largest, 1,024 sequences; using 1,024 sequences')
    """
    stop = slider.base ** int(exponent)
    if raw is None or raw == "":
        return stop, exponent, None
    twin = replace(slider, name=slider.typed_name, minimum=slider.base ** int(slider.minimum),
                   maximum=slider.base ** int(slider.maximum), step=1, default=stop, integer=True, base=0,
                   typed_key="")
    count, note = reader_note(twin, raw, label)
    nearest = slider.nearest_stop(count)
    if exponent_given and nearest != exponent:
        return stop, exponent, None
    return count, nearest, note


def split_query(query: str) -> list[tuple[str, str]]:
    """``urllib.parse.parse_qsl(query, keep_blank_values=True)``, for a page address.

    Written out because importing :mod:`urllib.parse` pulls in :mod:`ipaddress` and more,
    a measurable part of the lab's start-up in the browser; ``tests/test_urlstate.py``
    checks it against the original."""
    pairs = []
    for field in query.split("&"):
        if field:
            name, _, value = field.partition("=")
            pairs.append((_unquote_plus(name), _unquote_plus(value)))
    return pairs


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _unquote_plus(text: str) -> str:
    """``urllib.parse.unquote_plus``: '+' is a space; each run of ASCII (with %XX escapes read
    as bytes) decodes as UTF-8, invalid sequences becoming U+FFFD; other characters stay."""
    text = text.replace("+", " ")
    if "%" not in text:
        return text
    parts, run, index = [], bytearray(), 0
    while index < len(text):
        char = text[index]
        if char == "%" and text[index + 1:index + 2] in _HEX_DIGITS and text[index + 2:index + 3] in _HEX_DIGITS:
            run.append(int(text[index + 1:index + 3], 16))
            index += 3
            continue
        if ord(char) < 128:
            run.append(ord(char))
        else:
            parts += [run.decode("utf-8", "replace"), char]
            run = bytearray()
        index += 1
    parts.append(run.decode("utf-8", "replace"))
    return "".join(parts)


def format_query(params: dict, sliders) -> str:
    """The canonical query for ``params`` (every slider, in slider order, by URL key), with a log
    slider's exact count when it is not the slider's stop (an old link's exponent alone still loads).

    >>> batch = Slider("batchExp", "Batch B", 0, 10, 1, 5, "sequences", integer=True, url_key="b", base=2,
    ...                typed_key="bN")
    >>> format_query({"batchExp": 6, "batch": 48}, [batch]), format_query({"batchExp": 6, "batch": 64}, [batch])
    ('b=6&bN=48', 'b=6')
    """
    return "&".join(f"{slider.key}={to_js_string(params[slider.name])}"
                    + (f"&{slider.typed_key}={params[slider.typed_name]}"
                       if slider.typed_name in params and params[slider.typed_name] != slider.base ** params[slider.name]
                       else "")
                    for slider in sliders)


UNLINKABLE_CURVE_NOTE = ("This curve came from your own data: it cannot be put in a link, so the address keeps "
                         "only the sliders.")


def raw_value(raw, key: str) -> str:
    """One control's raw text from a URL query string or a mapping of form values; ``""`` when
    it is absent or not text (a query longer than :data:`MAX_QUERY_LENGTH` is ignored whole).

    >>> raw_value("?a=1&polCurve=x", "polCurve"), raw_value({"polCurve": 3}, "polCurve"), raw_value(None, "a")
    ('x', '', '')
    """
    if isinstance(raw, str):
        value = dict(split_query(raw.lstrip("?"))).get(key, "") if len(raw) <= MAX_QUERY_LENGTH else ""
    else:
        value = raw.get(key, "") if isinstance(raw, dict) else ""
    return value if isinstance(value, str) else ""


ORIGIN_KEY = "origin"  # a form's hidden input: "sent" while another widget's hand-off set its controls


def was_sent(raw) -> bool:
    """Whether a widget's form values say another widget (the deployment panel) sent its settings:
    the page's hidden ``origin`` input (templates/partials/_summary.html.j2) is ``"sent"``. A link
    never carries it, so a query string is never sent.

    >>> was_sent({"origin": "sent", "acceptance": "70"}), was_sent({"origin": ""}), was_sent("?origin=sent")
    (True, False, False)
    """
    return isinstance(raw, dict) and raw.get(ORIGIN_KEY) == "sent"


def requested_curve(raw, key: str, notes: list[str], fallback: str = "the acceptance slider"):
    """A widget's measured-curve mode: the token under ``key`` (a traces preset name or
    ``custom:a1,a2,...[@m][~family]``, sent by the traces widget or read from the address) in a query string
    or a mapping of form values, as ``(token, (curve, label, linkable))``; None when there is
    none. A token :func:`lab.traces.ledger_curve` rejects adds a note and gives None (``fallback``
    stays in charge); a curve from the reader's own data adds :data:`UNLINKABLE_CURVE_NOTE`. A bad drafter
    family (:func:`lab.acceptance_text.split_family`) adds its note and only the family is set aside: the token
    given back is the rest, its rates continued by the pooled prior. The traces model is imported only when a
    curve is asked for.

    >>> requested_curve({"srvCurve": "custom:0.9,0.5"}, "srvCurve", [])
    ('custom:0.9,0.5', ([0.9, 0.5], 'your own trace', False))
    >>> notes = []
    >>> requested_curve("?srvCurve=custom:2", "srvCurve", notes), requested_curve({}, "srvCurve", notes), notes
    (None, None, ['srvCurve: curve: rate 2 is not a fraction from 0 to 1; using the acceptance slider'])
    >>> notes = []
    >>> requested_curve("?srvCurve=custom:0.9,0.5@1~ngarm", "srvCurve", notes)[0], notes[0]
    ('custom:0.9,0.5@1', "srvCurve: a curve's drafter family (after ~) must be one of draft, block, eagle, mtp, ngram, suffix, got 'ngarm'; its rates are used, continued by the pooled prior")
    """
    value = raw_value(raw, key)
    if not value:
        return None
    from .traces import TraceError, ledger_curve

    family_error = None
    if "~" in value:  # a custom: curve's or a preset's drafter family (lab.acceptance_text.FAMILY_MARK)
        from .acceptance_text import FAMILY_MARK, split_family
        from .errors import LabValueError

        try:
            split_family(value[len("custom:"):] if value.startswith("custom:") else value)
        except LabValueError as error:  # only the family is refused: the rates and the measured mark stay
            family_error, value = error, value.partition(FAMILY_MARK)[0]
    try:
        found = ledger_curve(value)
    except TraceError as error:
        notes.append(f"{key}: {error}; using {fallback}")
        return None
    if family_error is not None:
        notes.append(f"{key}: {family_error}; its rates are used, continued by the pooled prior")
    if not found[2]:
        notes.append(UNLINKABLE_CURVE_NOTE)
    return value, found


# The deployment panel's acceptance figure as the trace reader reads one figure (lab.traces' single-figure
# forms), by the panel's unit (lab.deployment.UNITS); the panel's keys and defaults, which
# lab.widgets.deployment declares with these (tests/test_site_reader_link.py holds the two together).
PANEL_FIGURE_TEXT = {"alpha": "alpha {value}%", "rate": "acceptance rate {value}%",
                     "length": "mean acceptance length {value}"}
PANEL_UNIT_KEY, PANEL_VALUE_KEY, PANEL_MEASURED_K_KEY = "depUnit", "depValue", "depMeasuredK"
PANEL_DEFAULT_UNIT, PANEL_DEFAULT_MEASURED_K = "length", 4


def panel_figure_from_link(raw) -> str:
    """The trace reader's text for a link made after the panel's "Use in every instrument" (reader audit
    N4-20): the text a send puts in the trace reader cannot travel in a link, but the panel's figure does
    (depValue, depUnit), and the send leaves the trace reader's lookahead (trcLookahead) at the panel's
    measured k (depMeasuredK). "" for anything else: form values, a link with the trace reader's own text,
    preset or format, another lookahead, no figure, or a figure that is not a finite number.

    >>> panel_figure_from_link("?depValue=2.6&depMeasuredK=5&trcLookahead=5")
    'mean acceptance length 2.6'
    >>> panel_figure_from_link("depUnit=rate&depValue=44&trcLookahead=4")
    'acceptance rate 44%'
    >>> [panel_figure_from_link(q) for q in ("depValue=2.6&trcLookahead=6", "trcLookahead=4",
    ...  "depValue=inf&trcLookahead=4", "depValue=2.6&trcLookahead=4&trcPreset=specbench", "depUnit=x&depValue=2")]
    ['', '', '', '', '']
    >>> panel_figure_from_link({"depValue": "2.6", "trcLookahead": "4"})
    ''
    """
    if not isinstance(raw, str) or len(raw) > MAX_QUERY_LENGTH:
        return ""
    pairs = dict(split_query(raw.lstrip("?")))
    unit, value = pairs.get(PANEL_UNIT_KEY, PANEL_DEFAULT_UNIT), pairs.get(PANEL_VALUE_KEY, "")
    if unit not in PANEL_FIGURE_TEXT or any(key in pairs for key in ("trcText", "trcPreset", "trcFormat")):
        return ""
    if pairs.get("trcLookahead") != pairs.get(PANEL_MEASURED_K_KEY, str(PANEL_DEFAULT_MEASURED_K)):
        return ""
    try:
        finite = math.isfinite(float(value))
    except ValueError:
        return ""
    return PANEL_FIGURE_TEXT[unit].format(value=value) if finite else ""
