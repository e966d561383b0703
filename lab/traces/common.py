"""What every parser shares: the limits, the :class:`Trace` record, the one-line errors, the
number readers (ASCII digits only, counts below :data:`MAX_COUNT`) and the consistency check
(:func:`_validated`) every parser's result goes through.
"""

import json
import math
import os
import re
from typing import Callable, NamedTuple


MAX_LOOKAHEAD = 64
from ..ledger import ALPHA_TOLERANCE  # noqa: F401 (re-exported by lab.traces: alphaIid solves its equation to this)
MAX_DIGITS = 30           # a number written with more digits is refused before it is converted
MAX_COUNT = 10 ** 15      # a count must be below this: no engine counts that far, and every integer
#                           below 2^53 (about 9.007e15) is exact as a float, so the statistics stay exact
MAX_QUOTE = 48            # at most this many characters of a bad value are quoted in a message
# How far a printed mean acceptance length may sit from 1 + accepted / calls: engines print it to two
# decimals, so half the last digit (0.005), and a hair for the float sum behind it.
MEAN_LENGTH_SLACK = 0.0051
MAX_LABEL_SETS = 1000     # Prometheus label sets kept per metric; more is refused (memory stays bounded)
MAX_JSON_CHARS = 64 << 20  # per-request JSON is parsed whole; a bigger document is refused
MAX_STEPS = 10 ** 7        # per_step_accepted entries read per request
SPLIT_LONG_LINE = 1 << 20  # a line longer than 1 MB is cut after its last '}' (one-line JSON arrays)


class TraceError(ValueError):
    """Input that cannot be read as a trace; the message is the one line shown to the reader."""

def _v0_calls_and_accepted(drafted: int, emitted: int, k: int) -> tuple[int, int]:
    """vLLM V0's counts: it proposes ``k`` drafts per call, so ``calls = drafted / k``, and every call
    emits its accepted prefix plus one token, so ``accepted = emitted - calls``.

    >>> _v0_calls_and_accepted(12, 10, 3)
    (4, 6)
    """
    if drafted % k:
        raise TraceError(f"{drafted} draft tokens is not a multiple of k = {k}: V0 proposes k per call")
    calls = drafted // k
    accepted = emitted - calls
    if accepted < 0:
        raise TraceError(f"inconsistent counts: {emitted} emitted tokens but {calls} verifier calls each emit one")
    return calls, accepted



class ModelChoiceError(TraceError):
    """The input holds several models (or llama.cpp implementations, or benchmark runs): one must
    be chosen. ``models`` lists them in the order found."""

    def __init__(self, message: str, models):
        super().__init__(message)
        self.models = list(models)


# Their public home, as tracebacks (and the doctests) print them: ``lab.traces.TraceError``.
TraceError.__module__ = ModelChoiceError.__module__ = "lab.traces"


class Trace(NamedTuple):
    """What a trace says, in counts where the format has counts.

    ``drafts`` is the number of verifier calls that carried a draft. It is exact where the engine
    counts calls, rebuilt from a printed mean where it prints one, and a lower bound when
    ``callsBound`` is set (drafted tokens / k when drafts can stop short of k). ``perPosition`` may
    be rebuilt from printed rates; ``exact`` says whether every count was read as an integer.
    ``meanAcceptanceLength`` is set for formats that print only the mean acceptance length (SGLang, a single
    number). ``draftsPerPosition`` holds the engine's drafted-token count per position where it
    prints one (the per-position denominators). ``model`` names the model (or implementation, or
    run) when the input held several. ``method`` is the drafter's family (:data:`lab.acceptance.FAMILIES`) when
    the engine's configuration lines name one (:mod:`lab.traces.method`)."""

    format: str
    lookahead: int
    drafts: float | None
    draftTokens: int | None
    accepted: int | None
    perPosition: tuple | None
    exact: bool
    notes: tuple = ()
    meanAcceptanceLength: float | None = None
    callsBound: bool = False
    draftsPerPosition: tuple | None = None
    model: str | None = None
    method: str | None = None


# --- small helpers ------------------------------------------------------------------------------

def shortened(line: str, limit: int = MAX_QUOTE) -> str:
    """``line`` stripped, cut to at most ``limit`` (at most :data:`MAX_QUOTE`) characters and an
    ellipsis: a message never echoes a long bad value whole.

    >>> shortened("x" * 100)[-3:], len(shortened("x" * 100))
    ('xx\u2026', 49)
    """
    line = str(line).strip()
    limit = min(limit, MAX_QUOTE)
    return line if len(line) <= limit else line[:limit] + "\u2026"


def count_text(value) -> str:
    """A count as people write it: a whole number in full digits (never ``4.11267e+07``), a
    fraction with one decimal.

    >>> count_text(41126700.0), count_text(262), count_text(750.25)
    ('41126700', '262', '750.2')
    """
    if isinstance(value, int):  # in full, past float's 2^53 too (a refused count is quoted as read)
        return str(value)
    value = float(value)
    return str(int(value)) if value.is_integer() else f"{value:.1f}"


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
_THOUSANDS = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?")
_INTEGER = re.compile(r"[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")
_NUM = r"[0-9]+(?:,[0-9]{3})*(?:\.[0-9]+)?"   # a printed number, thousands separators allowed
_ANY = r"[^\s,]+(?:,[0-9]{3})*"                 # a count as printed, checked by _count (names bad digits)


def _clean(line: str) -> str:
    """A pasted line without its carriage return, colour codes and byte-order mark."""
    line = line.rstrip("\r")
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    if line.startswith("\ufeff"):
        line = line[1:]
    return line


def _digits_ok(raw: str, what: str, where: str) -> str:
    """``raw`` without thousands separators; refuses non-ASCII digits and runaway lengths."""
    if not raw.isascii():
        raise TraceError(f"{where}: {what} {shortened(raw, 30)!r} is not a number written in ASCII digits (0-9)")
    if _THOUSANDS.fullmatch(raw):
        raw = raw.replace(",", "")
    digits = sum(ch.isdigit() for ch in raw)
    if digits > MAX_DIGITS:
        raise TraceError(f"{where}: {what} has {digits} digits; at most {MAX_DIGITS} are read")
    return raw


def _count(text: str, what: str, where: str) -> int:
    """A non-negative integer count from ``text`` ('12208', '12,208', '12208.0', '1.2208e4').

    >>> _count("12,208", "accepted", "line 1")
    12208
    """
    raw = _digits_ok(text.strip(), what, where)
    if _INTEGER.fullmatch(raw):
        return _in_range(int(raw), what, where)
    if not _DECIMAL.fullmatch(raw):
        raise TraceError(f"{where}: {what} {shortened(raw, 30)!r} is not a number")
    value = float(raw)
    if not math.isfinite(value):
        raise TraceError(f"{where}: {what} is {shortened(raw, 30)}, not a count")
    if value < 0:
        raise TraceError(f"{where}: negative count {shortened(raw, 30)} for {what}")
    if not value.is_integer():
        raise TraceError(f"{where}: non-integer count {shortened(raw, 30)} for {what}")
    return _in_range(int(value), what, where)


def _in_range(count: int, what: str, where: str) -> int:
    """``count`` if it is below :data:`MAX_COUNT`, else a refusal naming the line and the field."""
    if count >= MAX_COUNT:
        raise TraceError(f"{where}: {what} is {count_text(count) if count < 10 ** 30 else 'over 10^30'}, "
                         f"more than any engine counts (at most {MAX_COUNT - 1:d})")
    return count


_DEEP_JSON = re.compile(r"(?:[\[{]\s*){64}")  # 64 brackets opened in a row: no engine nests that deep
MAX_JSON_DEPTH = 64


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise TraceError(f"an integer in the JSON has {len(text.lstrip('-'))} digits; at most {MAX_DIGITS} are read")
    return int(text)


def _json_loads(text: str, where: str):
    """``json.loads`` with one-line refusals: JSON nested deeper than :data:`MAX_JSON_DEPTH` (the
    parser recurses once per level, so a line nested 100,000 deep would raise RecursionError)
    and integers of more than :data:`MAX_DIGITS` digits. NaN and Infinity stay floats, for
    :func:`_json_count` to refuse naming their field.

    >>> _json_loads("[" * 100 + "]" * 100, "line 1")
    Traceback (most recent call last):
    ...
    lab.traces.TraceError: line 1: the JSON is nested more than 64 levels deep; no engine writes that
    """
    deep = f"{where}: the JSON is nested more than {MAX_JSON_DEPTH} levels deep; no engine writes that"
    if _DEEP_JSON.search(text):
        raise TraceError(deep)
    try:
        return json.loads(text, parse_int=_json_int)
    except TraceError as error:
        raise TraceError(f"{where}: {error}") from None
    except RecursionError:
        raise TraceError(deep) from None
    except ValueError:
        raise TraceError(f"{where}: not JSON: {shortened(text)!r}") from None


def _json_count(value, what: str, where: str) -> int:
    """A count read from JSON: a finite, whole, non-negative number below :data:`MAX_COUNT`.

    >>> _json_count(12.0, "num_drafts", "line 3")
    12
    >>> _json_count(float("nan"), "num_drafts", "line 3")
    Traceback (most recent call last):
    ...
    lab.traces.TraceError: line 3: num_drafts holds nan, not a count (a finite whole number from 0 to 999999999999999)
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value < 0 or value != int(value) or value >= MAX_COUNT:
        raise TraceError(f"{where}: {what} holds {shortened(repr(value), 30)}, not a count (a finite whole number "
                         f"from 0 to {MAX_COUNT - 1:d})")
    return int(value)


def _number(text: str, what: str, where: str) -> float:
    raw = _digits_ok(text.strip(), what, where)
    if not _DECIMAL.fullmatch(raw):
        raise TraceError(f"{where}: {what} {shortened(raw, 30)!r} is not a number")
    value = float(raw)
    if not math.isfinite(value):
        raise TraceError(f"{where}: {what} is {shortened(raw, 30)}, not a finite number")
    return value


def _rate(text: str, what: str, where: str, scale: float = 1.0) -> float:
    value = _number(text, what, where) / scale
    if not 0 <= value <= 1:
        raise TraceError(f"{where}: {what} {text.strip()} is not a fraction from 0 to {1 if scale == 1 else 100}")
    return value


def _rates(text: str, what: str, where: str, scale: float = 1.0) -> list[float]:
    parts = [part for part in re.split(r"[,\s]+", text.strip()) if part]
    if len(parts) > MAX_LOOKAHEAD:
        raise TraceError(f"{where}: {len(parts)} per-position rates; at most {MAX_LOOKAHEAD} positions are read")
    return [_rate(part, what, where, scale) for part in parts]


def _check_lookahead(lookahead) -> int | None:
    if lookahead is None:
        return None
    if isinstance(lookahead, bool) or not isinstance(lookahead, int) or not 1 <= lookahead <= MAX_LOOKAHEAD:
        raise TraceError(f"the lookahead must be an integer from 1 to {MAX_LOOKAHEAD}, got {lookahead!r}")
    return lookahead


class LookaheadMissing(TraceError):
    """A format that does not record the lookahead, read without one: the reader takes it from the
    engine's configuration line when the log printed one (:attr:`lab.traces.method.MethodScan.lookahead`)."""


def _need_lookahead(short: str, lookahead, why: str) -> int:
    """``lookahead``, or a refusal saying that ``short`` (a format's short name) does not record it."""
    if lookahead is None:
        raise LookaheadMissing(f"{short} does not record the lookahead ({why}); "
                               f"give it with --lookahead K (the draft tokens proposed per verifier call)")
    return lookahead


LookaheadMissing.__module__ = "lab.traces"


def _reconstruct(rates, drafts: int) -> list[int]:
    """Counts ``c_i`` from rates printed as ``c_i / N``: the nearest integers.

    >>> _reconstruct([0.740, 0.473], 262)
    [194, 124]
    """
    return [int(math.floor(rate * drafts + 0.5)) for rate in rates]


def _calls_from_mean(accepted: int, mean: float, decimals: int, rates=None, rate_decimals: int = 3,
                     full: float | None = None):
    """The verifier calls ``N`` that an engine's printed mean acceptance length (``1 + S / N``,
    printed to ``decimals``) and, when printed, its per-position rates (``c_i / N``, to
    ``rate_decimals``) allow, given ``S`` accepted drafts: every integer N whose mean rounds to
    the printed one, narrowed to those whose rebuilt counts add up to S best. ``full`` (drafted
    tokens / k) wins when it is one of them: the drafts were then full length.

    Returns (N, candidates): ``candidates`` is the range of N that fit, for the notes.

    >>> _calls_from_mean(489, 2.87, 2, [0.740, 0.473, 0.309, 0.187, 0.099, 0.057], full=262)
    (262, (261, 262))

    Short n-gram drafts (3000 drafted at k = 4, so drafted / k = 750 calls, but the mean says
    about 1000):

    >>> _calls_from_mean(1500, 2.50, 2, [0.600, 0.450, 0.300, 0.150], full=750.0)
    (1000, (997, 1003))
    """
    half = 0.5 * 10 ** -decimals
    low_mean, high_mean = mean - half, mean + half
    if accepted <= 0 or high_mean <= 1:
        return None, None
    low = max(1, math.ceil(accepted / (high_mean - 1) - 1e-9))
    high = math.floor(accepted / (low_mean - 1) + 1e-9) if low_mean > 1 else low + 10 ** 7
    high = min(high, low + 10 ** 6)  # a mean printed as 1.00 allows many; the rates narrow them
    if high < low:
        return None, None
    if full is not None and float(full).is_integer() and low <= full <= high:
        return int(full), (low, high)
    if high - low > 20000:  # a mean printed near 1.00 allows too many to search: take the middle estimate
        guess = round(accepted / (mean - 1)) if mean > 1 else low
        return max(low, min(high, guess)), (low, high)
    candidates = range(low, high + 1)
    if rates:
        rate_half = 0.5 * 10 ** -rate_decimals

        def misfit(n: int) -> float:
            # each printed rate is c_i / n rounded: some integer c_i must round to it
            gap = abs(sum(_reconstruct(rates, n)) - accepted)
            ok = all(abs(round(r * n) / n - r) <= rate_half + 1e-12 for r in rates)
            return gap + (0 if ok else 10 ** 9)

        best = min(candidates, key=lambda n: (misfit(n), abs(n - (full if full is not None else accepted / (mean - 1)))))
        return best, (low, high)
    target = accepted / (mean - 1)
    return min(candidates, key=lambda n: abs(n - target)), (low, high)


def _choose(series: dict, model, what: str):
    """One series of several (models, implementations, runs): the one named by ``model``, the only
    one, or a refusal naming them."""
    names = list(series)
    if model is not None:
        if model not in series:
            raise ModelChoiceError(f"no {what} named {shortened(str(model))!r} in the input; found: "
                                   f"{', '.join(shortened(n) for n in names)}", names)
        return model, series[model]
    if len(names) == 1:
        return names[0], series[names[0]]
    raise ModelChoiceError(f"the input holds {len(names)} {what}s ({', '.join(shortened(n) for n in names[:8])}"
                           f"{', ...' if len(names) > 8 else ''}); choose one with --model NAME", names)


# --- the parsers: one accumulator per format, fed one line at a time -----------------------------

class _Accumulator:
    """``lines(batch, first_number)`` feeds many lines at once. Log formats only look at lines
    holding one of their ``MARKERS`` (a substring test, cheap next to a regular expression), so
    a 50 MB log of other messages costs little."""

    MARKERS = None
    SHORT_NAMES: dict = {}  # format -> short name, filled by :func:`family` from the format's row

    def need_lookahead(self, lookahead, why: str, fmt: str | None = None) -> int:
        """``lookahead``, or a refusal naming this format (or ``fmt``) and why it needs one."""
        return _need_lookahead(self.SHORT_NAMES[fmt or self.fmt], lookahead, why)

    def lines(self, batch, first_number: int):
        markers = self.MARKERS
        for offset, line in enumerate(batch):
            if markers is None or any(marker in line for marker in markers):
                self.line(_clean(line), first_number + offset)


# Each has ``line(text, number)`` and ``result(lookahead, model) -> Trace``. Lines that do not
# belong to the format are skipped by the log formats (logs carry everything else too) and refused
# by the formats that have nothing else in them (cycles, and malformed exposition lines).


def _validated(trace: Trace, tolerance: bool = False, rate_decimals: int = 3) -> Trace:
    """Refuse counts that cannot come from one engine: name the inconsistency.

    ``tolerance`` allows the slack of per-position counts rebuilt from rates printed to
    ``rate_decimals`` decimals."""
    k, n, drafted, accepted, c = trace.lookahead, trace.drafts, trace.draftTokens, trace.accepted, trace.perPosition
    if not n:
        raise TraceError("no drafts recorded: the trace has nothing to measure")
    if drafted is not None and accepted > drafted:
        raise TraceError(f"inconsistent counts: {accepted} accepted tokens but only {drafted} draft tokens")
    if drafted is not None and trace.exact and n > drafted:
        raise TraceError(f"inconsistent counts: {count_text(n)} drafts but only {drafted} draft tokens")
    if accepted > k * n + 1e-9:
        raise TraceError(f"inconsistent counts: {accepted} accepted tokens exceed k x drafts = {k} x {count_text(n)}")
    if c is not None:
        if len(c) != k:
            raise TraceError(f"{len(c)} per-position counts for a lookahead of {k}")
        if c[0] > n:
            raise TraceError(f"inconsistent counts: position 1 accepted {c[0]} times in {count_text(n)} drafts")
        for i in range(1, len(c)):
            if c[i] > c[i - 1]:
                raise TraceError(f"per-position counts increase: position {i + 1} accepted {c[i]} times, "
                                 f"position {i} only {c[i - 1]}")
        slack = len(c) * (0.5 * 10 ** -rate_decimals * n + 1) if tolerance else 0
        if abs(sum(c) - accepted) > slack:
            raise TraceError(f"per-position counts sum to {sum(c)}, not the accepted total {accepted}")
    d = trace.draftsPerPosition
    if d is not None and c is not None:
        for i, (ci, di) in enumerate(zip(c, d), 1):
            if ci > di:
                raise TraceError(f"position {i} accepted {ci} times but was drafted only {di} times")
    return trace


# --- the registry's row and the samples: a format is its module, its sample and its test -------------

SAMPLES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "samples")


class Sample(NamedTuple):
    """A golden file in :data:`SAMPLES_DIR` and what it must read as: the :class:`Trace` fields
    worked by hand from the file's own figures, given ``lookahead`` and ``model`` (None: not
    given). ``source`` says where the text was read (verbatim from a public paste, or written
    from the engine's own format string, the file named)."""

    file: str
    lookahead: int | None
    model: str | None
    expected: dict
    source: str


class Format(NamedTuple):
    """One row of the format registry (``lab.traces.formats.REGISTRY``): its ``name`` (the
    ``--format`` value), ``title`` (the widget's format list and the analysis), ``short`` (in a
    sentence), the ``parser`` class, ``detect(line, stripped)`` (does this line open the
    format?), ``rank`` (detection order: lower is tried first, the first match wins),
    ``whole_json`` (parsed as one JSON document: the opening lines before the detected one are
    kept) and its golden ``samples``."""

    name: str
    title: str
    short: str
    parser: type
    detect: Callable[[str, str], bool]
    rank: int
    samples: tuple
    whole_json: bool = False


def family(*rows: Format) -> tuple:
    """An engine family's rows, as its module declares them (``FORMATS = family(...)``); each
    parser learns its formats' short names, for the refusals it words."""
    for row in rows:
        row.parser.SHORT_NAMES = {**vars(row.parser).get("SHORT_NAMES", {}), row.name: row.short}
    return rows


def sample_text(name: str) -> str:
    """A golden file's text, byte for byte (line endings kept), from :data:`SAMPLES_DIR`: the one
    place the instruments suite (in the browser too: the lab's zip carries the folder) and the
    tests read them.

    >>> sample_text("single_number.txt")
    'Mean acceptance length: 2.8\\n'
    """
    if os.path.basename(name) != name or name.startswith("."):
        raise TraceError(f"{shortened(name)!r} is not a sample's file name")
    # through the module's loader: a file on disk, or a member of the lab's zip when imported from one
    return __spec__.loader.get_data(os.path.join(SAMPLES_DIR, name)).decode("utf-8")


# a paste's shorthands for what vLLM prints in full: several intervals' means joined by '/' ('Mean acceptance length:
# 7.99 / 8.00 / 7.99'), a run of equal rates as one and a count ('Per-position acceptance rate: 1.000 ×7'), both in a
# note quoting a DFlash2 journal (code index, 2026-09-20); read as they were, they gave one rate and k = 1
_SHORTHAND = (re.compile(r"Mean acceptance length:\s*[0-9.]+\s*/\s*[0-9]"),
              re.compile(r"Per-position acceptance rate:[0-9.,\s]*[0-9]\s*[\u00d7xX]\s*[0-9]"))
# a note's rewording of 'Accepted: %d tokens, Drafted: %d tokens' ('Accepted 417 / Drafted 693'), in the same note
_SLASHED_COUNTS = re.compile(r"\bAccepted:?\s+([0-9]+)(?:\s+tokens)?\s*/\s*Drafted:?\s+([0-9]+)(?:\s+tokens)?(?![0-9.])")


# rates quoted as ranges over several intervals ('0.15-0.17, 0.09-0.12', a note's summary of many lines): read as written
# the first range would be one rate and k = 1; a SpecDecoding line's mean given as a range is the same shorthand
_RANGED = (re.compile(r"Per-position acceptance rate:[0-9.,\s]*[0-9]\s*[-\u2013\u2014~]\s*[0-9.]*[0-9]"),
           re.compile(r"SpecDecoding metrics:.*Mean acceptance length:\s*[0-9.]*[0-9]\s*[-\u2013\u2014~]\s*[0-9]"))


def _refuse_shorthand(text: str, where: str):
    """Refuse a line that abbreviates what vLLM prints in full (means joined by '/', a rate times a count, rates given
    as ranges over several intervals): read as written it would give one rate and the wrong lookahead.

    >>> _refuse_shorthand("Per-position acceptance rate: 0.15-0.17, 0.09-0.12", "line 6")
    Traceback (most recent call last):
    ...
    lab.traces.TraceError: line 6: the figures are ranges over several intervals ('Per-position acceptance rate: 0.15-0.17'), not one interval's: paste the SpecDecoding lines themselves, one line an interval

    >>> _refuse_shorthand("Per-position acceptance rate: 1.000 \u00d77, Avg Draft acceptance rate: 100.0%", "line 4")
    Traceback (most recent call last):
    ...
    lab.traces.TraceError: line 4: the line abbreviates what vLLM prints ('Per-position acceptance rate: 1.000 \u00d77'): paste the SpecDecoding lines as vLLM printed them, one line an interval and every rate
    """
    for pattern in _SHORTHAND:
        found = pattern.search(text)
        if found:
            raise TraceError(f"{where}: the line abbreviates what vLLM prints ({shortened(found.group(0))!r}): paste the "
                             f"SpecDecoding lines as vLLM printed them, one line an interval and every rate")
    for pattern in _RANGED:
        found = pattern.search(text)
        if found:
            raise TraceError(f"{where}: the figures are ranges over several intervals ({shortened(found.group(0))!r}), not "
                             f"one interval's: paste the SpecDecoding lines themselves, one line an interval")


def _k_from_mean_and_rate(mean: float, rate_low: float, rate_high: float) -> list:
    """The lookaheads k that fit a line's printed mean acceptance length and its draft acceptance rate, known
    within [rate_low, rate_high]: vLLM prints mean = 1 + accepted / drafts and the rate is accepted / draft
    tokens (the Avg Draft acceptance rate, %.1f%%: +-0.0005; or the ratio of the accepted and drafted
    throughputs, each %.2f), so with full-length drafts mean - 1 = k x rate, the mean within +-0.005.

    >>> _k_from_mean_and_rate(6.00, 0.9995, 1.0), _k_from_mean_and_rate(3.10, 0.2995, 0.3005)
    ([5], [7])
    >>> _k_from_mean_and_rate(3.21, 8.025 / 18.175, 8.035 / 18.165), len(_k_from_mean_and_rate(1.00, 0.0, 0.0005))
    ([5], 64)
    """
    low, high = mean - 1 - 0.005, mean - 1 + 0.005
    return [k for k in range(1, MAX_LOOKAHEAD + 1) if k * rate_low <= high and k * rate_high >= low]
