"""Measured traces: read what serving engines print, and turn it into what the ledger needs.

Engines report speculative decoding in their own units. vLLM's "acceptance rate" is accepted
draft tokens over drafted tokens; its "mean acceptance length" counts the verifier's own token
too; SGLang prints that length as "accept len"; llama.cpp prints accepted over generated draft
tokens. None of them is the per-token acceptance ``alpha`` of the part-one ledger, and typing
one into its slider gives the wrong answer (at alpha 0.74 and lookahead 5 vLLM shows about 44%).

This module does three things, standard library only (it runs unchanged in Pyodide):

* parsers for every format (:data:`FORMATS`), written against the projects' own source (each
  parser's docstring names the file and version it was read in; docs/READING.md lists them), that
  work line by line so a 50 MB file can arrive in chunks (:class:`TraceParser`). They count
  verifier calls the way each engine defines them, never by dividing drafted tokens by k where
  drafts can be short: where nothing else is printed, drafted / k is reported as a lower bound
  (``Trace.callsBound``). Several models in one input are one analysis each (``model``);
* the derived quantities (:func:`analyse`): per-position rates with Wilson intervals, the two
  alphas, and a likelihood-ratio test of one constant conditional rate (the ledger's model);
* the translator between alpha, the engines' acceptance rate and the mean acceptance length
  (:func:`translate`).

Bad input raises :class:`TraceError` with one line that names what was wrong (the line and the
field), quoting at most :data:`MAX_QUOTE` characters of the bad value. One rule for digits, shared
with the CLI's flags (``lab.commands.traces``): a number is written in ASCII digits 0-9; other
Unicode digits (Arabic-Indic, full-width) are refused, never read as numbers. A count is a finite
whole number below :data:`MAX_COUNT`; JSON nested past :data:`MAX_JSON_DEPTH` levels is refused.

Notation for one trace: ``k`` draft tokens per verifier call (the lookahead), ``N`` verifier
calls that carried a draft (vLLM's ``num_drafts``), ``c_i`` the calls whose first ``i`` drafts
all survived (vLLM's ``num_accepted_tokens_per_pos[i-1]``), ``c_0 = N``, ``S = sum c_i`` the
accepted draft tokens.
"""

import json
import math
import re
from collections import Counter
from typing import NamedTuple

# One function per formula (lab.stats, lab.ledger); the names this module has always exported stay.
from lab.ledger import expected_accepted_drafts as expected_accepted_iid
from lab.stats import Z95, wilson_interval
from lab.stats import chi_square_survival as chi_square_sf

__all__ = [
    "TraceError", "ModelChoiceError", "Trace", "TraceParser", "sglang_rate_definitions", "FORMATS", "FORMAT_NAMES", "parse", "detect_line",
    "analyse", "wilson_interval", "alpha_iid", "alpha_mle", "expected_accepted_iid", "independence_test",
    "chi_square_sf", "regularized_gamma_q", "translate", "render_exposition", "cycles_to_trace",
    "MAX_LOOKAHEAD", "Z95", "PRESETS", "DEFAULT_PRESET", "SPEC_BENCH", "preset_trace", "measured_curve", "ledger_curve",
    "count_text", "MAX_COUNT", "MAX_QUOTE",
]

MAX_LOOKAHEAD = 64
ALPHA_TOLERANCE = 1e-9    # alphaIid solves its equation to this
MAX_DIGITS = 30           # a number written with more digits is refused before it is converted
MAX_COUNT = 10 ** 15      # a count must be below this: no engine counts that far, and every integer
#                           below 2^53 (about 9.007e15) is exact as a float, so the statistics stay exact
MAX_QUOTE = 48            # at most this many characters of a bad value are quoted in a message
MAX_LABEL_SETS = 1000     # Prometheus label sets kept per metric; more is refused (memory stays bounded)
MAX_JSON_CHARS = 64 << 20  # per-request JSON is parsed whole; a bigger document is refused
MAX_STEPS = 10 ** 7        # per_step_accepted entries read per request
FORMATS = ("prometheus", "vllm-v0-metrics", "vllm-log", "vllm-v0-log", "vllm-bench", "vllm-request-json",
           "sglang-log", "sglang-json", "llamacpp-log", "llamacpp-stats", "trtllm-json", "trtllm-request-json",
           "speculators-csv", "cycles", "single-number")
FORMAT_NAMES = {
    "prometheus": "vLLM /metrics (Prometheus text exposition; V1 counters, with or without num_drafts)",
    "vllm-v0-metrics": "vLLM V0 /metrics (counters of draft, accepted and emitted tokens)",
    "vllm-log": "vLLM log (SpecDecoding metrics lines or the spec_decode example's summary)",
    "vllm-v0-log": "vLLM V0 log (Speculative metrics: lines, until vLLM 0.9)",
    "vllm-bench": "vllm bench serve output (its Speculative Decoding block)",
    "vllm-request-json": "vLLM per-request metrics JSON (acceptance counts or histogram; one document or JSON lines)",
    "sglang-log": "SGLang log (Decode batch lines with accept len and accept rate, or bench_serving's Accept length)",
    "sglang-json": "SGLang per-request JSON (meta_info or sglext spec_tokens_details: spec_verify_ct, accepted drafts, "
                   "histogram)",
    "llamacpp-log": "llama.cpp log (server draft acceptance lines or the speculative examples' n_predict/n_accept)",
    "llamacpp-stats": "llama.cpp statistics lines (#gen drafts, #acc tokens; one analysis per implementation)",
    "trtllm-json": "TensorRT-LLM iteration stats JSON (specDecodingStats)",
    "trtllm-request-json": "TensorRT-LLM per-request perf metrics JSON (speculative_decoding: total_draft_tokens, "
                           "total_accepted_draft_tokens; needs k)",
    "speculators-csv": "vllm-project/speculators acceptance.csv (num_drafts, num_accepted_tokens, acceptance_at_pos_i; "
                       "one analysis per subset)",
    "cycles": "one integer per verifier call: drafts accepted (0..k)",
    "single-number": "one figure alone: a mean acceptance length, an acceptance rate or an alpha (needs k)",
}
SHORT_NAMES = {"prometheus": "vLLM's /metrics", "vllm-v0-metrics": "vLLM V0's /metrics", "vllm-log": "the vLLM log",
               "vllm-v0-log": "the vLLM V0 log", "vllm-bench": "vllm bench serve's block",
               "vllm-request-json": "vLLM's per-request metrics", "sglang-log": "SGLang's log",
               "llamacpp-log": "llama.cpp's log", "llamacpp-stats": "llama.cpp's statistics lines",
               "trtllm-json": "TensorRT-LLM's iteration stats", "cycles": "a cycles file",
               "sglang-json": "SGLang's per-request JSON", "trtllm-request-json": "TensorRT-LLM's per-request metrics",
               "speculators-csv": "speculators' acceptance.csv",
               "single-number": "a single number"}
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


class Trace(NamedTuple):
    """What a trace says, in counts where the format has counts.

    ``drafts`` is the number of verifier calls that carried a draft. It is exact where the engine
    counts calls, rebuilt from a printed mean where it prints one, and a lower bound when
    ``callsBound`` is set (drafted tokens / k when drafts can stop short of k). ``perPosition`` may
    be rebuilt from printed rates; ``exact`` says whether every count was read as an integer.
    ``meanLength`` is set for formats that print only the mean acceptance length (SGLang, a single
    number). ``draftsPerPosition`` holds the engine's drafted-token count per position where it
    prints one (the per-position denominators). ``model`` names the model (or implementation, or
    run) when the input held several."""

    format: str
    lookahead: int
    drafts: float | None
    draftTokens: int | None
    accepted: int | None
    perPosition: tuple | None
    exact: bool
    notes: tuple = ()
    meanLength: float | None = None
    callsBound: bool = False
    draftsPerPosition: tuple | None = None
    model: str | None = None


# --- small helpers ------------------------------------------------------------------------------

def _short(line: str, limit: int = MAX_QUOTE) -> str:
    """``line`` stripped, cut to at most ``limit`` (at most :data:`MAX_QUOTE`) characters and an
    ellipsis: a message never echoes a long bad value whole.

    >>> _short("x" * 100)[-3:], len(_short("x" * 100))
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
        raise TraceError(f"{where}: {what} {_short(raw, 30)!r} is not a number written in ASCII digits (0-9)")
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
        raise TraceError(f"{where}: {what} {_short(raw, 30)!r} is not a number")
    value = float(raw)
    if not math.isfinite(value):
        raise TraceError(f"{where}: {what} is {_short(raw, 30)}, not a count")
    if value < 0:
        raise TraceError(f"{where}: negative count {_short(raw, 30)} for {what}")
    if not value.is_integer():
        raise TraceError(f"{where}: non-integer count {_short(raw, 30)} for {what}")
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
        raise TraceError(f"{where}: not JSON: {_short(text)!r}") from None


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
        raise TraceError(f"{where}: {what} holds {_short(repr(value), 30)}, not a count (a finite whole number "
                         f"from 0 to {MAX_COUNT - 1:d})")
    return int(value)


def _number(text: str, what: str, where: str) -> float:
    raw = _digits_ok(text.strip(), what, where)
    if not _DECIMAL.fullmatch(raw):
        raise TraceError(f"{where}: {what} {_short(raw, 30)!r} is not a number")
    value = float(raw)
    if not math.isfinite(value):
        raise TraceError(f"{where}: {what} is {_short(raw, 30)}, not a finite number")
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


def _need_lookahead(fmt: str, lookahead, why: str) -> int:
    if lookahead is None:
        raise TraceError(f"{SHORT_NAMES[fmt]} does not record the lookahead ({why}); "
                         f"give it with --lookahead K (the draft tokens proposed per verifier call)")
    return lookahead


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
            raise ModelChoiceError(f"no {what} named {_short(str(model))!r} in the input; found: "
                                   f"{', '.join(_short(n) for n in names)}", names)
        return model, series[model]
    if len(names) == 1:
        return names[0], series[names[0]]
    raise ModelChoiceError(f"the input holds {len(names)} {what}s ({', '.join(_short(n) for n in names[:8])}"
                           f"{', ...' if len(names) > 8 else ''}); choose one with --model NAME", names)


# --- the parsers: one accumulator per format, fed one line at a time -----------------------------

class _Accumulator:
    """``lines(batch, first_number)`` feeds many lines at once. Log formats only look at lines
    holding one of their ``MARKERS`` (a substring test, cheap next to a regular expression), so
    a 50 MB log of other messages costs little."""

    MARKERS = None

    def lines(self, batch, first_number: int):
        markers = self.MARKERS
        for offset, line in enumerate(batch):
            if markers is None or any(marker in line for marker in markers):
                self.line(_clean(line), first_number + offset)


# Each has ``line(text, number)`` and ``result(lookahead, model) -> Trace``. Lines that do not
# belong to the format are skipped by the log formats (logs carry everything else too) and refused
# by the formats that have nothing else in them (cycles, and malformed exposition lines).

_PROM_NAME_START = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*(?:\{|\s+[-+0-9.eEIinNaf]+\s*$)")
_PROM_LINE = re.compile(r"^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\S+)?\s*$")
_PROM_LABEL = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?')
PROM_METRICS = {
    "vllm:spec_decode_num_drafts": "drafts",
    "vllm:spec_decode_num_draft_tokens": "draftTokens",
    "vllm:spec_decode_num_accepted_tokens": "accepted",
    "vllm:spec_decode_num_accepted_tokens_per_pos": "perPosition",
    "vllm:spec_decode_num_draft_tokens_per_pos": "draftsPerPosition",
    "vllm:spec_decode_num_emitted_tokens": "emitted",        # V0 only
    "vllm:spec_decode_efficiency": "efficiency",             # V0 gauge: emitted / (calls (k + 1))
}
MODEL_LABELS = ("model_name", "model")


def _prom_labels(text: str, where: str) -> tuple:
    labels, index = [], 0
    while index < len(text):
        match = _PROM_LABEL.match(text, index)
        if not match or match.end() == index:
            if text[index:].strip() in ("", ","):
                break
            raise TraceError(f"{where}: cannot read the labels {{{_short(text)}}}")
        labels.append((match.group(1), match.group(2)))
        index = match.end()
    return tuple(sorted(labels))


class _Prometheus(_Accumulator):
    """vLLM's ``/metrics``.

    * V1: counters defined in ``vllm/v1/spec_decode/metrics.py`` (``SpecDecodingProm``, read at
      vllm-project/vllm commit 016a858 and a 2026 version): ``num_drafts`` (verifier calls with a
      draft), ``num_draft_tokens``, ``num_accepted_tokens`` and ``num_accepted_tokens_per_pos``
      with a ``position`` label. vLLM 0.8.x had no ``num_drafts``: the calls are then drafted
      tokens / k (k from the positions or ``--lookahead``), which assumes full-length drafts. A
      ``num_draft_tokens_per_pos`` counter, where exported, gives the per-position denominators.
    * V0 (until 0.9, ``vllm/engine/metrics.py``): ``num_draft_tokens``, ``num_accepted_tokens``,
      ``num_emitted_tokens`` and the ``efficiency`` gauge. V0's "accepted" also counts drafts
      accepted after a rejection (vllm-project/vllm#9565), so the calls are drafted tokens / k (V0
      always proposes k) and the accepted prefix is emitted - calls (each call emits its accepted
      prefix plus one token).

    Counter samples carry the ``_total`` suffix (``_created`` samples are timestamps and are
    skipped). Label sets of one model (engine, data-parallel rank, ...) are summed; the models
    are told apart by ``model_name``. A series repeated in the text (two scrapes pasted) keeps its
    last value, because counters are cumulative."""

    fmt = "prometheus"

    def __init__(self):
        self.series = {}   # (field, model, labels-without-position, position) -> value
        self.label_sets = set()

    def line(self, text: str, number: int):
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            return
        match = _PROM_LINE.match(stripped)
        if not match:
            if not _PROM_NAME_START.match(stripped):
                return  # a pasted code fence, shell prompt or prose around the samples
            raise TraceError(f"line {number}: not a Prometheus sample: {_short(text)!r}")
        name = match.group(1)
        if name.endswith("_created"):
            return
        base = name[:-6] if name.endswith("_total") else name
        field = PROM_METRICS.get(base)
        if field is None:
            return  # every other metric of the scrape
        where = f"line {number}"
        labels = _prom_labels(match.group(2) or "", where)
        position = None
        rest, model = [], ""
        for key, value in labels:
            if key == "position":
                if field not in ("perPosition", "draftsPerPosition"):
                    raise TraceError(f"{where}: {base} has a position label")
                if not (value.isascii() and value.isdigit()) or len(value) > 3 or int(value) >= MAX_LOOKAHEAD:
                    raise TraceError(f"{where}: position {_short(value, 20)!r} is not an integer from 0 to "
                                     f"{MAX_LOOKAHEAD - 1}")
                position = int(value)
            elif key in MODEL_LABELS:
                model = value
            else:
                rest.append((key, value))
        if field in ("perPosition", "draftsPerPosition") and position is None:
            raise TraceError(f"{where}: {base} has no position label")
        self.label_sets.add((model, tuple(rest)))
        if len(self.label_sets) > MAX_LABEL_SETS:
            raise TraceError(f"more than {MAX_LABEL_SETS} label sets in the exposition; paste one model's samples")
        if field == "efficiency":
            self.series[(field, model, tuple(rest), None)] = _rate(match.group(3), base, where)
            return
        self.series[(field, model, tuple(rest), position)] = _count(match.group(3), base, where)

    def result(self, lookahead, model=None) -> Trace:
        if not self.series:
            raise TraceError("no vllm:spec_decode_* counters in the exposition")
        models = {}
        for key, value in self.series.items():
            models.setdefault(key[1], {})[key] = value
        name, series = _choose({m or "(no model_name label)": s for m, s in models.items()}, model, "model")
        totals = {"drafts": 0, "draftTokens": 0, "accepted": 0, "emitted": 0}
        positions: dict[int, int] = {}
        drafted_positions: dict[int, int] = {}
        label_sets, seen, efficiencies = set(), set(), []
        for (field, _, labels, position), value in series.items():
            label_sets.add(labels)
            seen.add(field)
            if field == "perPosition":
                positions[position] = positions.get(position, 0) + value
            elif field == "draftsPerPosition":
                drafted_positions[position] = drafted_positions.get(position, 0) + value
            elif field == "efficiency":
                efficiencies.append(value)
            else:
                totals[field] += value
        notes = []
        if len(models) > 1:
            notes.append(f"model {name} (chosen of {len(models)})")
        if len(label_sets) > 1:
            keys = sorted({key for labels in label_sets for key, _ in labels})
            notes.append(f"summed {len(label_sets)} label sets of one model ({', '.join(keys)})")
        if "emitted" in seen:
            return self._v0(totals, efficiencies, lookahead, notes, name if len(models) > 1 else None)
        if "accepted" not in seen:
            if not positions:
                raise TraceError("the exposition has no vllm:spec_decode_num_accepted_tokens counter")
            totals["accepted"] = sum(positions.values())
            notes.append("no num_accepted_tokens counter: the accepted total is the sum of the per-position counters")
        per_position = None
        if positions:
            k, per_position = self._positions(positions, totals, seen, lookahead, notes)
        else:
            k = _need_lookahead(self.fmt, lookahead, "no per-position counter")
        drafted_per_position = None
        if drafted_positions and len(drafted_positions) == k and sorted(drafted_positions) == list(range(k)):
            drafted_per_position = tuple(drafted_positions[p] for p in range(k))
            notes.append("per-position rates use the engine's drafted tokens per position as denominators")
        bound = False
        if "drafts" in seen:
            drafts = totals["drafts"]
        else:
            if "draftTokens" not in seen:
                raise TraceError("the exposition has neither vllm:spec_decode_num_drafts nor num_draft_tokens")
            drafts = totals["draftTokens"] / k
            if drafts.is_integer():
                drafts = int(drafts)
                notes.append(f"no num_drafts counter (vLLM 0.8.x): verifier calls = drafted tokens / k = {drafts}, "
                             f"which assumes full-length drafts (EAGLE, MTP and draft models; n-gram drafts can be "
                             f"shorter, and then it is a lower bound)")
            else:
                bound = True
                notes.append(f"no num_drafts counter and {totals['draftTokens']} drafted tokens is not a multiple of "
                             f"k = {k}: drafts were shorter than k, so drafted / k = {drafts:.1f} is only a lower "
                             f"bound on the verifier calls")
                per_position = None
        draft_tokens = totals["draftTokens"] if "draftTokens" in seen else drafts * k
        return _validated(Trace(self.fmt, k, drafts, draft_tokens, totals["accepted"], per_position, not bound,
                                tuple(notes), callsBound=bound, draftsPerPosition=drafted_per_position,
                                model=name if len(models) > 1 else None))

    def _positions(self, positions: dict, totals: dict, seen: set, lookahead, notes: list):
        """(k, per-position counts or None). A scrape missing one position's series (a series
        dropped by a relabelling rule, a partial paste) still has exact totals: they are read, the
        curve is not, and the note names what is missing. k is the lookahead given, else drafted
        tokens / drafts where that is whole (vLLM's drafts are full length but for n-gram and suffix
        drafting), else the highest position printed + 1."""
        highest = max(positions) + 1
        k = lookahead
        if k is None and "drafts" in seen and "draftTokens" in seen and totals["drafts"] \
                and totals["draftTokens"] % totals["drafts"] == 0 and totals["draftTokens"] // totals["drafts"] > highest:
            k = totals["draftTokens"] // totals["drafts"]
        k = k if k is not None else highest
        if highest > k:
            raise TraceError(f"the exposition has {highest} positions but the lookahead given is {k}")
        missing = [p for p in range(k) if p not in positions]
        if not missing and sum(positions.values()) == totals["accepted"]:
            return k, tuple(positions[p] for p in range(k))
        if missing:
            named = ", ".join(str(p) for p in missing[:8]) + (", ..." if len(missing) > 8 else "")
            notes.append(f"the per-position counter has no series for position {named} (0 to {k - 1} expected, "
                         f"k = {k}{' from drafted tokens / drafts' if lookahead is None and k > highest else ''}): "
                         f"the totals are read, the per-position curve is not")
        else:
            notes.append(f"the per-position counters add up to {sum(positions.values())}, not the accepted total "
                         f"{totals['accepted']}: a position's series is missing, so the totals are read and the "
                         f"per-position curve is not")
        return k, None

    def _v0(self, totals, efficiencies, lookahead, notes, name) -> Trace:
        drafted, emitted = totals["draftTokens"], totals["emitted"]
        k = lookahead
        if k is None and len(efficiencies) == 1 and drafted:
            # efficiency = emitted / (calls (k + 1)) with calls = drafted / k: solve for k
            eff = efficiencies[0]
            denominator = emitted - eff * drafted
            if denominator > 0:
                guess = eff * drafted / denominator
                if abs(guess - round(guess)) < 0.02 and 1 <= round(guess) <= MAX_LOOKAHEAD:
                    k = int(round(guess))
                    notes.append(f"lookahead {k} solved from the efficiency gauge (emitted / (calls (k + 1)))")
        k = _need_lookahead("vllm-v0-metrics", k, "V0 counts tokens only")
        calls, accepted = _v0_calls_and_accepted(drafted, emitted, k)
        notes.append(f"vLLM V0: calls = draft tokens / k = {calls}; accepted prefix = emitted - calls = {accepted} "
                     f"(V0's accepted counter, {totals['accepted']}, also counts drafts accepted after a rejection, "
                     f"vllm-project/vllm#9565, so it is not used)")
        for eff in efficiencies:
            if abs(eff - emitted / (calls * (k + 1))) > 0.001:
                notes.append(f"the printed efficiency {eff:.3f} disagrees with emitted / (calls (k + 1)) = "
                             f"{emitted / (calls * (k + 1)):.3f}")
        return _validated(Trace("vllm-v0-metrics", k, calls, drafted, accepted, None, True, tuple(notes), model=name))


_V1_FIELDS = {
    "mean": re.compile(r"Mean acceptance length: (" + _NUM + ")"),
    "accepted": re.compile(r"(?:Accepted: (\S+) tokens|Number of accepted tokens: (" + _ANY + "))"),
    "drafted": re.compile(r"(?:Drafted: (\S+) tokens|Number of draft tokens: (" + _ANY + "))"),
    "drafts": re.compile(r"Number of drafts: (" + _NUM + ")"),
    "rate": re.compile(r"(?<!Per-position )(?:Avg )?Draft acceptance rate: (" + _NUM + ")(%?)"),
    "perPos": re.compile(r"Per-position acceptance rate: ([0-9., ]*?)(?:, [A-Z]|,?\s*$)"),
}
_V0_FIELDS = {
    "rate": re.compile(r"Draft acceptance rate: (" + _NUM + ")"),
    "efficiency": re.compile(r"System efficiency: (" + _NUM + ")"),
    "k": re.compile(r"Number of speculative tokens: (" + _NUM + ")"),
    "accepted": re.compile(r"Number of accepted tokens: (" + _NUM + ")"),
    "drafted": re.compile(r"Number of draft tokens: (" + _NUM + ")"),
    "emitted": re.compile(r"Number of emitted tokens: (" + _NUM + ")"),
}
_VLLM_EXAMPLE = re.compile(r"^\s*(num_drafts|num_draft_tokens|num_accepted_tokens|mean acceptance length|"
                           r"acceptance at token (\d{1,3}))\s*:\s*(\S+)")


def _field(pattern, text):
    match = pattern.search(text)
    if not match:
        return None
    return next((group for group in match.groups() if group is not None), None)


class _VllmLog(_Accumulator):
    """vLLM's log. Three shapes:

    * V1 ``SpecDecoding metrics:`` lines, one per logging interval (summed). From
      ``SpecDecodingLogging.log`` in ``vllm/v1/spec_decode/metrics.py`` (read at commit 016a858 and
      a 2026 version): ``Mean acceptance length: %.2f, Accepted throughput: ..., Accepted: %d
      tokens, Drafted: %d tokens, Per-position acceptance rate: %.3f, ..., Avg Draft acceptance
      rate: %.1f%%``, with the mean = 1 + accepted / drafts and each rate = c_i / drafts. vLLM
      0.8.x printed ``Draft acceptance rate`` first and, before num_drafts existed (0.8.3), ``Number
      of accepted tokens`` / ``Number of draft tokens`` without the mean. The draft count is not
      printed: it is drafted / k when that agrees with the printed mean; when it does not (n-gram
      drafts shorter than k near the end of the context), the printed mean fixes it (accepted /
      (mean - 1)), narrowed by the per-position rates. Without a mean, drafted / k is a lower
      bound unless the drafts were full length. Every printed figure is checked against the
      counts and a disagreement is named in the notes.
    * V0 ``Speculative metrics:`` lines (``vllm/engine/metrics.py``, ``_format_spec_decode_metrics_str``,
      until vLLM 0.9): cumulative counters, so the last line of a run counts (a drop marks a
      restart and starts a new run, which is added). Calls = draft tokens / k (V0 always proposes
      k); accepted prefix = emitted - calls (V0's "accepted" also counts drafts accepted after a
      rejection, vllm-project/vllm#9565).
    * the ``num_drafts: / num_draft_tokens: / num_accepted_tokens: / acceptance at token i:``
      summary of ``examples/offline_inference/spec_decode.py`` (exact counts, 2-decimal rates). It
      is the run's cumulative total, so when the same console also holds the periodic
      SpecDecoding lines of that run, the summary alone is counted.
    """

    fmt = "vllm-log"
    MARKERS = ("SpecDecoding metrics:", "Speculative metrics:", "num_", "acceptance at token", "mean acceptance length")

    def __init__(self):
        self.records = []  # V1 lines: dict
        self.v0 = []       # V0 lines: dict
        self.blocks = []   # {"num_drafts": .., "rates": {i: rate}}

    def line(self, text: str, number: int):
        where = f"line {number}"
        if "Speculative metrics:" in text:
            values = {key: _field(pattern, text) for key, pattern in _V0_FIELDS.items()}
            for key in ("k", "drafted", "emitted"):
                if values[key] is None:
                    raise TraceError(f"{where}: a Speculative metrics line without its {key} count")
            self.v0.append({"number": number, "k": _count(values["k"], "Number of speculative tokens", where),
                            "drafted": _count(values["drafted"], "Number of draft tokens", where),
                            "emitted": _count(values["emitted"], "Number of emitted tokens", where),
                            "accepted": _count(values["accepted"], "Number of accepted tokens", where)
                            if values["accepted"] is not None else None,
                            "efficiency": _number(values["efficiency"], "System efficiency", where)
                            if values["efficiency"] is not None else None})
            return
        if "SpecDecoding metrics:" in text:
            accepted, drafted = _field(_V1_FIELDS["accepted"], text), _field(_V1_FIELDS["drafted"], text)
            if accepted is None or drafted is None:
                raise TraceError(f"{where}: a SpecDecoding metrics line without Accepted/Drafted counts")
            record = {"number": number, "accepted": _count(accepted, "Accepted", where),
                      "drafted": _count(drafted, "Drafted", where), "rates": None, "mean": None, "rate": None}
            if record["drafted"] == 0 and record["accepted"] == 0:
                return  # an interval without drafts (its rates print as nan): nothing to add
            per_pos = _V1_FIELDS["perPos"].search(text)
            if per_pos and per_pos.group(1).strip():
                record["rates"] = _rates(per_pos.group(1), "per-position rate", where)
            mean = _field(_V1_FIELDS["mean"], text)
            if mean is not None:
                record["mean"] = _number(mean, "Mean acceptance length", where)
            rate = _V1_FIELDS["rate"].search(text)
            if rate:
                record["rate"] = _number(rate.group(1), "Draft acceptance rate", where) / (100 if rate.group(2) else 1)
            drafts = _field(_V1_FIELDS["drafts"], text)
            record["drafts"] = _count(drafts, "Number of drafts", where) if drafts is not None else None
            self.records.append(record)
            return
        match = _VLLM_EXAMPLE.match(text)
        if not match:
            return
        key, position, value = match.groups()
        if key == "mean acceptance length":
            # the current example prints it after num_drafts; the V0-era example prints it first, alone
            if not self.blocks or "mean" in self.blocks[-1] or self.blocks[-1]["rates"]:
                if not self.blocks or "num_drafts" not in self.blocks[-1] or "mean" in self.blocks[-1]:
                    self.blocks.append({"rates": {}})
            self.blocks[-1]["mean"] = _number(value, key, where)
            return
        if key == "num_drafts" and self.blocks and set(self.blocks[-1]) == {"rates", "mean"} \
                and not self.blocks[-1]["rates"]:
            pass  # cannot happen in the example's order; keeps one block per run
        elif key == "num_drafts" or not self.blocks:
            self.blocks.append({"rates": {}})
        block = self.blocks[-1]
        if position is not None:
            block["rates"][int(position)] = _rate(value, f"acceptance at token {position}", where)
        else:
            if key in block:
                raise TraceError(f"{where}: {key} appears twice in one summary")
            block[key] = _count(value, key, where)

    def result(self, lookahead, model=None) -> Trace:
        if self.blocks:
            return self._summary(lookahead)
        if self.v0:
            return self._v0_result(lookahead)
        if not self.records:
            raise TraceError("no SpecDecoding metrics line and no spec_decode summary found")
        return self._v1_result(lookahead)

    def _v1_result(self, lookahead) -> Trace:
        drafts = draft_tokens = accepted = 0
        per_position = None
        ks, notes, bound = set(), [], False
        with_rates = {bool(r["rates"]) for r in self.records}
        if len(with_rates) > 1:
            raise TraceError("some SpecDecoding metrics lines have per-position rates and others do not")
        short_lines, disagreements = [], []
        for r in self.records:
            number, acc, drafted, rates = r["number"], r["accepted"], r["drafted"], r["rates"]
            k = len(rates) if rates else _need_lookahead(self.fmt, lookahead, "the log line has no per-position rates")
            if lookahead is not None and k != lookahead:
                raise TraceError(f"line {number} has {k} per-position rates but the lookahead given is {lookahead}")
            ks.add(k)
            if len(ks) > 1:
                raise TraceError(f"the log lines disagree on the lookahead ({min(ks)} and {max(ks)} positions)")
            full = drafted / k
            if r["drafts"] is not None:
                n = r["drafts"]
            elif r["mean"] is not None and acc > 0:
                n, span = _calls_from_mean(acc, r["mean"], 2, rates, 3, full)
                if n is None:
                    raise TraceError(f"line {number}: the printed mean acceptance length {r['mean']} cannot come "
                                     f"from {acc} accepted tokens")
                if n != full:
                    short_lines.append(number)
                    if span[0] != span[1]:
                        notes.append(f"line {number}: the printed mean allows {span[0]} to {span[1]} calls; "
                                     f"used {n}, where the per-position rates fit best")
            elif full.is_integer():
                n = int(full)
                if r["mean"] is None:
                    notes.append(f"line {number}: no mean acceptance length printed, so the calls are drafted / k "
                                 f"= {n}, which assumes full-length drafts")
            else:
                n = full
                bound = True
                notes.append(f"line {number}: {drafted} drafted tokens is not a multiple of k = {k} and no mean "
                             f"is printed: the calls are at least drafted / k = {full:.1f}")
            if n < 1 and drafted:
                raise TraceError(f"line {number}: {drafted} drafted tokens but no verifier call")
            drafts, draft_tokens, accepted = drafts + n, draft_tokens + drafted, accepted + acc
            if r["mean"] is not None and n and abs(r["mean"] - (1 + acc / n)) > 0.0051:
                disagreements.append(f"line {number}: printed mean acceptance length {r['mean']:.2f} but 1 + "
                                     f"accepted / calls = {1 + acc / n:.3f}")
            if r["rate"] is not None and drafted and abs(r["rate"] - acc / drafted) > 0.00051 + (0.0005 if r["rate"] * 100 % 1 else 0):
                disagreements.append(f"line {number}: printed acceptance rate {100 * r['rate']:.1f}% but accepted / "
                                     f"drafted = {100 * acc / drafted:.2f}%")
            if rates and not bound:
                counts = _reconstruct(rates, int(n))
                per_position = counts if per_position is None else [a + b for a, b in zip(per_position, counts)]
        k = ks.pop()
        if short_lines:
            where = "line " + str(short_lines[0]) if len(short_lines) == 1 else f"{len(short_lines)} lines"
            notes.insert(0, f"short drafts: on {where} the printed mean acceptance length disagrees with drafted / "
                            f"k, so the drafts were shorter than k = {k} (n-gram or suffix drafting, or the end of "
                            f"the context); the calls come from the printed mean: accepted / (mean - 1)")
        if len(self.records) > 1:
            notes.insert(0, f"summed {len(self.records)} SpecDecoding metrics lines (each covers one logging interval)")
        notes += disagreements
        if bound:
            per_position = None
        elif per_position is not None:
            notes.append("per-position counts rebuilt from the printed rates (rounded), so they are approximate")
        return _validated(Trace(self.fmt, k, drafts, draft_tokens, accepted,
                                tuple(per_position) if per_position is not None else None,
                                False, tuple(notes), callsBound=bound), tolerance=per_position is not None)

    def _rates_only(self, lookahead) -> Trace:
        """The V0-era spec_decode example (``mean acceptance length: %.2f`` then ``acceptance at token
        i:%.2f`` with token 0 = all calls = 1.00): rates, no counts."""
        if len(self.blocks) > 1:
            raise TraceError(f"{len(self.blocks)} spec_decode summaries without counts: paste one")
        block = self.blocks[0]
        rates = [block["rates"][i] for i in sorted(block["rates"])]
        if sorted(block["rates"]) != list(range(len(rates))):
            raise TraceError("the acceptance at token i lines skip a position")
        if rates and rates[0] == 1.0:
            rates = rates[1:]  # token 0 is every call (the count the others are divided by)
        k = len(rates) or lookahead
        if lookahead is not None and rates and lookahead != len(rates):
            raise TraceError(f"the summary has {len(rates)} positions but the lookahead given is {lookahead}")
        k = _need_lookahead(self.fmt, k, "no per-position rates")
        _check_lookahead(k)
        mean = block["mean"]
        if not 1 <= mean <= k + 1.005:
            raise TraceError(f"a mean acceptance length of {mean} is outside 1 to k + 1 = {k + 1}")
        notes = ["a spec_decode summary without counts (the V0-era example): the mean acceptance length is read, "
                 "no intervals"]
        if rates:
            notes.append("printed per-position rates (share of calls whose first i drafts survived): "
                         + ", ".join(f"{r:.2f}" for r in rates))
            if abs(sum(rates) - (mean - 1)) > 0.005 * (len(rates) + 1):
                notes.append(f"the rates sum to {sum(rates):.2f}, not the printed mean minus one, {mean - 1:.2f}")
        return Trace(self.fmt, k, None, None, None, None, False, tuple(notes), min(mean, k + 1))

    def _v0_result(self, lookahead) -> Trace:
        runs, previous = [], None
        for r in self.v0:
            if previous is not None and (r["drafted"] < previous["drafted"] or r["emitted"] < previous["emitted"]):
                runs.append(previous)  # the counters dropped: a restart, a new run
            previous = r
        runs.append(previous)
        ks = {r["k"] for r in runs}
        if len(ks) > 1:
            raise TraceError(f"the Speculative metrics lines disagree on the number of speculative tokens ({sorted(ks)})")
        k = ks.pop()
        if lookahead is not None and lookahead != k:
            raise TraceError(f"the log prints {k} speculative tokens but the lookahead given is {lookahead}")
        _check_lookahead(k) if 1 <= k <= MAX_LOOKAHEAD else _need_lookahead("vllm-v0-log", None, "k is out of range")
        drafted = sum(r["drafted"] for r in runs)
        emitted = sum(r["emitted"] for r in runs)
        calls, accepted = _v0_calls_and_accepted(drafted, emitted, k)
        notes = [f"V0 lines are cumulative: read the last of {len(self.v0)} line(s)"
                 + (f" of each of {len(runs)} runs (the counters restarted)" if len(runs) > 1 else "")]
        notes.append(f"calls = draft tokens / k = {calls}; accepted prefix = emitted - calls = {accepted} (V0's "
                     f"'accepted', {sum(r['accepted'] or 0 for r in runs)}, also counts drafts accepted after a "
                     f"rejection, vllm-project/vllm#9565)")
        for r in runs:
            n = r["drafted"] // k
            if r["efficiency"] is not None and n and abs(r["efficiency"] - r["emitted"] / (n * (k + 1))) > 0.0006:
                notes.append(f"line {r['number']}: printed system efficiency {r['efficiency']:.3f} but emitted / "
                             f"(calls (k + 1)) = {r['emitted'] / (n * (k + 1)):.4f}")
        return _validated(Trace("vllm-v0-log", k, calls, drafted, accepted, None, True, tuple(notes)))

    def _summary(self, lookahead) -> Trace:
        if all("num_drafts" not in block and "mean" in block for block in self.blocks):
            return self._rates_only(lookahead)
        drafts = draft_tokens = accepted = 0
        per_position = None
        ks, notes = set(), []
        for block in self.blocks:
            missing = [key for key in ("num_drafts", "num_accepted_tokens") if key not in block]
            if missing:
                raise TraceError(f"a spec_decode summary without {missing[0]}")
            n = block["num_drafts"]
            rates = [block["rates"][i] for i in sorted(block["rates"])]
            if sorted(block["rates"]) != list(range(len(rates))):
                raise TraceError("the acceptance at token i lines skip a position")
            k = len(rates) or None
            if k is None and "num_draft_tokens" in block and n and block["num_draft_tokens"] % n == 0:
                k = block["num_draft_tokens"] // n
                notes.append(f"lookahead {k} read as num_draft_tokens / num_drafts")
            if lookahead is not None:
                if k is not None and k != lookahead and rates:
                    raise TraceError(f"the summary has {k} per-position rates but the lookahead given is {lookahead}")
                k = lookahead
            k = _need_lookahead(self.fmt, k, "no per-position rates, and num_draft_tokens / num_drafts is not whole")
            _check_lookahead(k)
            ks.add(k)
            if len(ks) > 1:
                raise TraceError(f"the summaries disagree on the lookahead ({min(ks)} and {max(ks)})")
            drafts += n
            draft_tokens += block.get("num_draft_tokens", n * k)
            accepted += block["num_accepted_tokens"]
            if n and block.get("num_draft_tokens", n * k) < n * k:
                notes.append(f"num_draft_tokens {block['num_draft_tokens']} < k x num_drafts = {n * k}: some drafts "
                             f"were shorter than k (the calls are counted exactly; per-position rates are over all "
                             f"calls)")
            if "mean" in block and n and abs(block["mean"] - (1 + block["num_accepted_tokens"] / n)) > 0.0051:
                notes.append(f"the printed mean acceptance length {block['mean']:.2f} disagrees with 1 + "
                             f"accepted / drafts = {1 + block['num_accepted_tokens'] / n:.3f}")
            if rates:
                counts = _reconstruct(rates, n)
                per_position = counts if per_position is None else [a + b for a, b in zip(per_position, counts)]
        k = ks.pop()
        if len(self.blocks) > 1:
            notes.insert(0, f"summed {len(self.blocks)} summaries")
        if self.records or self.v0:
            notes.insert(0, f"{len(self.records) + len(self.v0)} periodic metrics line(s) of the same run not added: "
                            f"the summary is the run's cumulative total")
        if per_position is not None:
            notes.append("per-position counts rebuilt from the printed 2-decimal rates, so they are approximate")
        return _validated(Trace(self.fmt, k, drafts, draft_tokens, accepted,
                                tuple(per_position) if per_position is not None else None,
                                per_position is None, tuple(notes)), tolerance=per_position is not None,
                          rate_decimals=2)


_BENCH_HEADER = re.compile(r"^-+\s*Speculative Decoding\s*-+\s*$")
_BENCH_FIELD = re.compile(r"^\s*(Acceptance rate \(%\)|Acceptance length|Drafts|Draft tokens|Accepted tokens|"
                          r"Position (\d{1,3}))\s*:\s*(\S+)\s*$")


class _VllmBench(_Accumulator):
    """``vllm bench serve``'s Speculative Decoding block (``vllm/benchmarks/serve.py``, read as
    printed in public runs of 2026): ``Acceptance rate (%)``, ``Acceptance length``, ``Drafts``,
    ``Draft tokens``, ``Accepted tokens`` and ``Per-position acceptance (%)`` with one ``Position
    i:`` line each (2 decimals, percent of drafts). The counts are deltas of the server's /metrics
    over the run, so they are exact; the per-position counts are rebuilt from the percentages.
    Several blocks (several runs) are one analysis each."""

    fmt = "vllm-bench"
    MARKERS = ("Speculative Decoding", "Acceptance", "Draft", "Accepted tokens", "Position")

    def __init__(self):
        self.blocks = []
        self.open = False

    def line(self, text: str, number: int):
        if _BENCH_HEADER.match(text.strip()):
            self.blocks.append({"rates": {}, "number": number})
            self.open = True
            return
        match = _BENCH_FIELD.match(text)
        if not self.open:
            if not match or match.group(1) not in ("Acceptance rate (%)", "Acceptance length", "Drafts"):
                return
            # pasted without its dashed header (markdown often eats it): the first field opens a block
            self.blocks.append({"rates": {}, "number": number})
            self.open = True
        if not match:
            if text.strip().startswith(("=", "-")) or not text.strip():
                self.open = "Per-position" in text or False
            return
        key, position, value = match.groups()
        where = f"line {number}"
        block = self.blocks[-1]
        if position is not None:
            block["rates"][int(position)] = _rate(value, f"position {position} acceptance", where, 100)
        elif key == "Acceptance rate (%)":
            block["rate"] = _number(value, key, where) / 100
        elif key == "Acceptance length":
            block["mean"] = _number(value, key, where)
        else:
            block[key] = _count(value, key, where)

    def result(self, lookahead, model=None) -> Trace:
        if not self.blocks:
            raise TraceError("no Speculative Decoding block found")
        series = {f"run {i}": block for i, block in enumerate(self.blocks, 1)} if len(self.blocks) > 1 \
            else {"run 1": self.blocks[0]}
        name, block = _choose(series, model, "benchmark run")
        for key in ("Drafts", "Accepted tokens"):
            if key not in block:
                raise TraceError(f"line {block['number']}: the Speculative Decoding block has no {key} line")
        n, accepted = block["Drafts"], block["Accepted tokens"]
        rates = [block["rates"][i] for i in sorted(block["rates"])]
        if sorted(block["rates"]) != list(range(len(rates))):
            raise TraceError("the Position i lines skip a position")
        k = len(rates) or lookahead
        if lookahead is not None and rates and lookahead != len(rates):
            raise TraceError(f"the block has {len(rates)} positions but the lookahead given is {lookahead}")
        if k is None and block.get("Draft tokens") and n and block["Draft tokens"] % n == 0:
            k = block["Draft tokens"] // n
        k = _need_lookahead(self.fmt, k, "no per-position lines")
        _check_lookahead(k)
        notes = [f"{name} of {len(self.blocks)}"] if len(self.blocks) > 1 else []
        if "mean" in block and n and abs(block["mean"] - (1 + accepted / n)) > 0.0051:
            notes.append(f"the printed acceptance length {block['mean']:.2f} disagrees with 1 + accepted / drafts "
                         f"= {1 + accepted / n:.3f}")
        drafted = block.get("Draft tokens", n * k)
        if "rate" in block and drafted and abs(block["rate"] - accepted / drafted) > 0.000051:
            notes.append(f"the printed acceptance rate {100 * block['rate']:.2f}% disagrees with accepted / draft "
                         f"tokens = {100 * accepted / drafted:.3f}%")
        per_position = tuple(_reconstruct(rates, n)) if rates else None
        if per_position:
            notes.append("per-position counts rebuilt from the printed percentages (2 decimals), so they are approximate")
        return _validated(Trace(self.fmt, k, n, drafted, accepted, per_position, per_position is None, tuple(notes),
                                model=name if len(self.blocks) > 1 else None),
                          tolerance=per_position is not None, rate_decimals=4)


_REQUEST_KEYS = ('"spec_token_acceptance_counts"', '"num_accepted_tokens_per_pos"', '"acceptance_histogram"',
                 '"accept_length_histogram"', '"num_drafts"', '"num_spec_steps"', '"per_step_accepted"',
                 '"speculative_decoding_stats"')


class _VllmRequestJson(_Accumulator):
    """vLLM's per-request metrics as JSON (one document, an array, or JSON lines). Each object that
    carries one of these is one request:

    * ``spec_token_acceptance_counts`` (V0 ``RequestMetrics`` in ``vllm/sequence.py``): ``[N, c_1,
      ..., c_k]``, the request's verifier calls and, per position, the calls that accepted it;
    * ``num_drafts``, ``num_draft_tokens``, ``num_accepted_tokens``, ``num_accepted_tokens_per_pos``
      and optionally ``num_draft_tokens_per_pos`` (the fields of V1's ``SpecDecodingStats``,
      ``vllm/v1/spec_decode/metrics.py``);
    * ``acceptance_histogram`` (or ``accept_length_histogram``): ``h[j]`` = calls that accepted
      exactly ``j`` drafts, an exact cycles histogram (a list, or an object whose keys are j with
      zero counts omitted). vLLM's per-request speculative decoding stats (2026,
      ``--per-request-spec-decode-metrics summary|detailed``; each choice's
      ``speculative_decoding_stats``) carry it with ``num_spec_steps``, ``num_accepted_draft_tokens``,
      ``num_draft_tokens`` (variable-length drafts included), ``num_spec_tokens`` (k) and, with
      ``detailed``, ``per_step_accepted`` / ``per_step_drafted``, which give the drafted tokens per
      position too. A ``null`` (a request without speculative decoding) is skipped and counted.

    Requests of one model are summed (a ``model`` or ``model_name`` key tells models apart). Note
    that pooling requests weights long requests more, and calls late in a request (deeper in its
    context) more at later positions."""

    fmt = "vllm-request-json"

    def __init__(self):
        self.parts = []
        self.size = 0
        self.first = None

    def line(self, text: str, number: int):
        if self.first is None:
            self.first = number
            self.null = 0
        self.size += len(text) + 1
        if self.size > MAX_JSON_CHARS:
            raise TraceError(f"the per-request JSON is over {MAX_JSON_CHARS >> 20} MB; split it into JSON lines files")
        self.parts.append(text)

    def _documents(self):
        """(line, document) pairs: the whole text as one document, else one per line (JSON lines)."""
        whole = "\n".join(self.parts)
        try:
            return [(self.first, _json_loads(whole, f"line {self.first}"))]
        except TraceError as error:
            if "nested" in str(error):
                raise
        documents = []
        for offset, text in enumerate(self.parts):
            stripped = text.strip().rstrip(",")
            if not stripped or stripped in "[]":
                continue
            number = self.first + offset
            try:
                documents.append((number, _json_loads(stripped, f"line {number}")))
            except TraceError as error:
                if "not JSON" in str(error):
                    if number == getattr(self, "unterminated", None) and documents:
                        self.cut = number  # the input stops inside its last line: read the complete ones
                        continue
                    raise TraceError(f"line {number}: not JSON: {_short(text)!r}") from None
                raise
        return documents

    def _requests(self, value, depth=0):
        if depth > 20:
            return
        if isinstance(value, list):
            for item in value:
                yield from self._requests(item, depth + 1)
        elif isinstance(value, dict):
            if "speculative_decoding_stats" in value and value["speculative_decoding_stats"] is None:
                self.null += 1
            elif any(key.strip('"') in value for key in _REQUEST_KEYS if key != '"speculative_decoding_stats"'):
                yield value
            else:
                for item in value.values():
                    yield from self._requests(item, depth + 1)

    def result(self, lookahead, model=None) -> Trace:
        models: dict[str, list] = {}
        for line, document in self._documents():
            for request in self._requests(document):
                name = request.get("model") or request.get("model_name") or ""
                models.setdefault(str(name)[:200], []).append((line, request))
        if not models:
            raise TraceError("no per-request speculative decoding metrics in the JSON")
        label = {m or "(unnamed model)": r for m, r in models.items()}
        name, requests = _choose(label, model, "model")
        histogram: dict[int, int] = {}
        k_seen, totals, per_position, drafted_pos = set(), [0, 0, 0], None, None
        exact_histogram = True
        hist_drafted, printed = 0, []
        step_drafted: list[int] = []
        for line, request in requests:
            self.where = f"line {line}"
            counts = request.get("spec_token_acceptance_counts")
            hist = request.get("acceptance_histogram", request.get("accept_length_histogram"))
            steps = request.get("per_step_accepted")
            if request.get("num_spec_tokens") is not None:
                k_seen.add(self._ints([request["num_spec_tokens"]], "num_spec_tokens")[0])
            if steps is not None:
                accepted_steps = self._ints(steps, "per_step_accepted", MAX_STEPS)
                drafted_steps = request.get("per_step_drafted")
                drafted_steps = (self._ints(drafted_steps, "per_step_drafted", MAX_STEPS)
                                 if drafted_steps is not None else None)
                if drafted_steps is not None and len(drafted_steps) != len(accepted_steps):
                    raise TraceError("per_step_accepted and per_step_drafted differ in length")
                for j, a in enumerate(accepted_steps):
                    histogram[a] = histogram.get(a, 0) + 1
                    if drafted_steps is not None:
                        if a > drafted_steps[j]:
                            raise TraceError(f"a step accepted {a} of {drafted_steps[j]} drafted tokens")
                        step_drafted.append(drafted_steps[j])
                hist_drafted += sum(drafted_steps) if drafted_steps is not None else \
                    self._ints([request.get("num_draft_tokens", 0)], "num_draft_tokens")[0]
                continue
            if isinstance(hist, dict):
                keys = [str(j) for j in hist]
                if not all(key.isascii() and key.isdigit() and len(key) <= 3 for key in keys):
                    bad = next(key for key in keys if not (key.isascii() and key.isdigit() and len(key) <= 3))
                    raise TraceError(f"{self.where}: acceptance_histogram key {_short(bad, 20)!r} is not a count of "
                                     f"accepted drafts (ASCII digits 0-9, at most {MAX_LOOKAHEAD})")
                pairs = sorted((int(key), n) for key, n in zip(keys, hist.values()))
                if pairs and (pairs[0][0] < 0 or pairs[-1][0] > MAX_LOOKAHEAD):
                    raise TraceError(f"acceptance_histogram keys must be 0 to {MAX_LOOKAHEAD}")
                dense = [0] * ((pairs[-1][0] + 1) if pairs else 1)
                for j, n in pairs:
                    dense[j] = n
                hist = dense
            if hist is not None and counts is None:
                hist = self._ints(hist, "acceptance_histogram")
                if request.get("num_spec_tokens") is None:
                    k_seen.add(len(hist) - 1)
                for j, n in enumerate(hist):
                    histogram[j] = histogram.get(j, 0) + n
                hist_drafted += self._ints([request.get("num_draft_tokens", 0)], "num_draft_tokens")[0]
                calls, acc = sum(hist), sum(j * n for j, n in enumerate(hist))
                for key, value in (("num_spec_steps", calls), ("num_accepted_draft_tokens", acc)):
                    if request.get(key) is not None and request.get(key) != value:
                        printed.append(f"a request's {key} {request.get(key)!r} disagrees with its histogram ({value})")
                mean = request.get("mean_acceptance_length")
                if isinstance(mean, (int, float)) and calls and abs(mean - (1 + acc / calls)) > 0.0051:
                    printed.append(f"a request's mean_acceptance_length {mean} disagrees with 1 + accepted / steps "
                                   f"= {1 + acc / calls:.3f}")
                continue
            if counts is not None:
                counts = self._ints(counts, "spec_token_acceptance_counts")
                if not counts or len(counts) < 2:
                    continue
                calls, c = counts[0], counts[1:]
                k_seen.add(len(c))
                per_position = c if per_position is None else [a + b for a, b in zip(per_position, c)]
                totals[0] += calls
                totals[1] += calls * len(c)
                totals[2] += sum(c)
                exact_histogram = False
            else:
                exact_histogram = False
                n = self._ints([request.get("num_drafts", 0)], "num_drafts")[0]
                acc = self._ints([request.get("num_accepted_tokens", 0)], "num_accepted_tokens")[0]
                c = request.get("num_accepted_tokens_per_pos")
                d = request.get("num_draft_tokens_per_pos")
                totals[0] += n
                totals[2] += acc
                if c is not None:
                    c = self._ints(c, "num_accepted_tokens_per_pos")
                    k_seen.add(len(c))
                    per_position = c if per_position is None else [a + b for a, b in zip(per_position, c)]
                if d is not None:
                    d = self._ints(d, "num_draft_tokens_per_pos")
                    drafted_pos = d if drafted_pos is None else [a + b for a, b in zip(drafted_pos, d)]
                totals[1] += self._ints([request.get("num_draft_tokens", 0)], "num_draft_tokens")[0]
        if len(k_seen) > 1:
            raise TraceError(f"the requests disagree on the lookahead ({min(k_seen)} and {max(k_seen)} positions)")
        k = k_seen.pop() if k_seen else lookahead
        if lookahead is not None and k != lookahead:
            raise TraceError(f"the requests have {k} positions but the lookahead given is {lookahead}")
        k = _need_lookahead(self.fmt, k, "no per-position counts")
        _check_lookahead(k)
        notes = [f"summed {len(requests)} requests" + (f" of model {name}" if len(models) > 1 else "")
                 + " (pooling weights long requests more; later positions come mostly from easy stretches)"]
        if getattr(self, "cut", None):
            notes.append(f"line {self.cut} was cut off (the input stops inside it) and is not read")
        if self.null:
            notes.append(f"skipped {self.null} choice(s) whose speculative_decoding_stats is null")
        notes += printed
        if histogram and exact_histogram:
            if max(histogram) > k:
                raise TraceError(f"a step accepted {max(histogram)} drafts but the lookahead is {k}")
            trace = cycles_to_trace(histogram, k)
            drafted_total = hist_drafted or trace.draftTokens
            per_pos = None
            if step_drafted and len(step_drafted) == trace.drafts:
                per_pos = tuple(sum(1 for d in step_drafted if d >= i) for i in range(1, k + 1))
                if any(p == 0 for p in per_pos):
                    per_pos = None
                else:
                    notes.append("per-position rates use the drafted tokens per position (per_step_drafted)")
            if drafted_total < trace.drafts * k:
                notes.append(f"drafts averaged {drafted_total / trace.drafts:.2f} tokens of at most k = {k}")
            return _validated(trace._replace(format=self.fmt, draftTokens=drafted_total, notes=tuple(notes) + trace.notes,
                                             draftsPerPosition=per_pos, model=name if len(models) > 1 else None))
        if histogram:
            raise TraceError("some requests give a histogram and others counts; paste one kind")
        if totals[1] == 0:
            totals[1] = totals[0] * k
        if drafted_pos is not None and len(drafted_pos) == k:
            notes.append("per-position rates use the drafted tokens per position as denominators")
        return _validated(Trace(self.fmt, k, totals[0], totals[1], totals[2],
                                tuple(per_position) if per_position else None, True, tuple(notes),
                                draftsPerPosition=tuple(drafted_pos) if drafted_pos and len(drafted_pos) == k else None,
                                model=name if len(models) > 1 else None))

    def _ints(self, values, what, limit=MAX_LOOKAHEAD + 1):
        """Counts from a JSON list: each a finite, whole, non-negative number below :data:`MAX_COUNT`
        (NaN, 1e308, 2.5 or a 20-digit integer is refused, naming the line and the field)."""
        where = getattr(self, "where", "the JSON")
        if not isinstance(values, list) or len(values) > limit:
            raise TraceError(f"{where}: {what} is not a list of at most {limit} counts")
        return [_json_count(value, what, where) for value in values]


def _find_dicts(value, wanted, depth=0):
    """Every dict under ``value`` (a parsed JSON document) holding one of the keys ``wanted``, at
    most 20 levels down; the search does not descend into a dict it yields."""
    if depth > 20:
        return
    if isinstance(value, list):
        for item in value:
            yield from _find_dicts(item, wanted, depth + 1)
    elif isinstance(value, dict):
        if any(key in value for key in wanted):
            yield value
        else:
            for item in value.values():
                yield from _find_dicts(item, wanted, depth + 1)


def _histogram_counts(histogram, what: str, where: str) -> dict:
    """``{accepted drafts in one call: calls}`` from a dense JSON list ``h[j]``."""
    if not isinstance(histogram, list) or len(histogram) > MAX_LOOKAHEAD + 1:
        raise TraceError(f"{where}: {what} is not a list of at most {MAX_LOOKAHEAD + 1} counts")
    return {j: _json_count(n, what, where) for j, n in enumerate(histogram) if n}


class _SglangJson(_VllmRequestJson):
    """SGLang's per-request speculative decoding counters, as JSON: the ``meta_info`` of a native
    ``/generate`` response, or ``sglext.spec_tokens_details`` of an OpenAI-style response (a list
    when ``n > 1``; sgl-project/sglang#33518, "add sglext_spec", asked for with
    ``return_spec_tokens_details``). Field names by version, read in sgl-project/sglang pull
    requests #3152 (``spec_verify_ct``, 2025-01), #11441 (``spec_accept_rate``,
    ``spec_accept_length``), #13754 (``spec_accept_token_num``, ``spec_draft_token_num``), #18332
    (``spec_accept_histogram``) and #33518 (``spec_num_correct_drafts``,
    ``spec_num_proposed_drafts``, ``spec_correct_drafts_histogram``):

    * calls = ``spec_verify_ct`` (verify passes of the request);
    * accepted drafts = ``spec_num_correct_drafts`` (older: ``spec_accept_token_num``);
    * drafted = ``spec_num_proposed_drafts`` (older: ``spec_draft_token_num``, which counted the
      verified root too, ``speculative_num_draft_tokens`` = k + 1 per call, so the drafted tokens
      and the rate are then read as calls x k);
    * ``spec_correct_drafts_histogram`` (older: ``spec_accept_histogram``): ``h[j]`` = calls that
      accepted exactly j drafts: an exact cycles histogram, so the per-position curve is exact.

    ``spec_accept_length`` is checked against 1 + accepted / calls: older versions printed
    ``completion_tokens / spec_verify_ct``, which also counts the token of the prefill pass (the
    note says so). The lookahead is the histogram's last bucket (it has k + 1) unless
    ``--lookahead`` says otherwise; without a histogram it is proposed drafts / calls. Requests are
    summed; with tree drafting (topk > 1) none of this is a chain statistic."""

    fmt = "sglang-json"
    KEYS = ("spec_verify_ct",)

    @staticmethod
    def _spec_part(document):
        """An OpenAI-style response asked for both ``return_meta_info`` and
        ``return_spec_tokens_details`` carries each request's counters twice (in each choice's
        ``meta_info`` and in ``sglext``): read ``sglext`` alone then."""
        if isinstance(document, dict) and isinstance(document.get("sglext"), dict) \
                and document["sglext"].get("spec_tokens_details"):
            return document["sglext"]["spec_tokens_details"]
        return document

    def result(self, lookahead, model=None) -> Trace:
        requests = [(line, found) for line, document in self._documents()
                    for found in _find_dicts(self._spec_part(document), self.KEYS)]
        if not requests:
            raise TraceError("no SGLang spec_verify_ct in the JSON")
        histogram: dict[int, int] = {}
        calls = accepted = drafted = 0
        root_counted, histograms, lengths, notes, old_mean, idle = False, 0, set(), [], [], 0
        for line, request in requests:
            where = f"line {line}"
            n = _json_count(request["spec_verify_ct"], "spec_verify_ct", where)
            if n == 0:
                idle += 1  # a request finished before any verify pass (or without speculation)
                continue
            acc_key = next((key for key in ("spec_num_correct_drafts", "spec_accept_token_num") if key in request), None)
            hist_key = next((key for key in ("spec_correct_drafts_histogram", "spec_accept_histogram")
                             if request.get(key)), None)
            if hist_key is not None:
                counts = _histogram_counts(request[hist_key], hist_key, where)
                if sum(counts.values()) != n:
                    raise TraceError(f"{where}: {hist_key} counts {sum(counts.values())} calls, spec_verify_ct {n}")
                for j, c in counts.items():
                    histogram[j] = histogram.get(j, 0) + c
                histograms += 1
                lengths.add(len(request[hist_key]) - 1)
                acc = sum(j * c for j, c in counts.items())
                if acc_key is not None and _json_count(request[acc_key], acc_key, where) != acc:
                    notes.append(f"{where}: {acc_key} {request[acc_key]} disagrees with its histogram ({acc})")
            elif acc_key is not None:
                acc = _json_count(request[acc_key], acc_key, where)
            elif "completion_tokens" in request:  # 2025-01 (#3152): only the verify count and the tokens
                acc = _json_count(request["completion_tokens"], "completion_tokens", where) - n
                old_mean.append(where)
                if acc < 0:
                    raise TraceError(f"{where}: completion_tokens is below spec_verify_ct")
            else:
                raise TraceError(f"{where}: spec_verify_ct without spec_num_correct_drafts or a histogram")
            drafted_key = next((key for key in ("spec_num_proposed_drafts", "spec_draft_token_num") if key in request),
                               None)
            if drafted_key is not None:
                d = _json_count(request[drafted_key], drafted_key, where)
                root_counted |= drafted_key == "spec_draft_token_num"
                drafted += d
                if d % n == 0:
                    lengths.add(d // n - (1 if drafted_key == "spec_draft_token_num" else 0))
            printed = request.get("spec_accept_length")
            if isinstance(printed, (int, float)) and math.isfinite(printed) and abs(printed - (1 + acc / n)) > 1e-6:
                notes.append(f"{where}: printed spec_accept_length {printed:.4f} is not 1 + accepted / calls = "
                             f"{1 + acc / n:.4f} (older SGLang printed completion_tokens / spec_verify_ct, which "
                             f"also counts the prefill pass's token)")
            calls, accepted = calls + n, accepted + acc
        if not calls:
            raise TraceError("every request has spec_verify_ct 0: no verify pass to read")
        k = lookahead
        if k is None:
            if histograms:
                # the histogram has k + 1 buckets (0..k accepted); proposed / calls is k in the same versions
                k = max([max(histogram, default=0)] + [n for n in lengths if n <= MAX_LOOKAHEAD]) or None
                if k is not None:
                    notes.append(f"lookahead {k} read from the histogram's buckets and proposed drafts / calls")
            elif len(lengths) == 1:
                k = lengths.pop()
                notes.append(f"lookahead {k} read as proposed drafts / spec_verify_ct")
        k = _need_lookahead(self.fmt, k, "no histogram, and the drafted tokens are not a whole number per call")
        _check_lookahead(k)
        if root_counted:
            notes.append(f"spec_draft_token_num counts the verified root with the drafts (k + 1 per call in these "
                         f"versions): the drafted tokens are read as calls x k = {calls * k}")
            drafted = calls * k
        elif drafted == 0:
            drafted = calls * k
        if old_mean:
            notes.append("accepted drafts read as completion_tokens - spec_verify_ct (SGLang of 2025-01 prints no "
                         "accepted count; the prefill pass's token makes this one too many per request)")
        used = len(requests) - idle
        if used > 1:
            notes.insert(0, f"summed {used} requests (pooling weights long requests more)")
        if idle:
            notes.append(f"{idle} request(s) with spec_verify_ct 0 skipped")
        if getattr(self, "cut", None):
            notes.append(f"line {self.cut} was cut off (the input stops inside it) and is not read")
        if histograms == used and histogram:
            if max(histogram) > k:
                raise TraceError(f"a call accepted {max(histogram)} drafts but the lookahead is {k}")
            trace = cycles_to_trace(histogram, k)
            notes.append("per-position counts exact, from the accepted-drafts histograms")
            return _validated(trace._replace(format=self.fmt, draftTokens=max(drafted, trace.accepted),
                                             notes=tuple(notes) + trace.notes))
        if histograms:
            notes.append(f"{used - histograms} request(s) without a histogram: no per-position curve")
        return _validated(Trace(self.fmt, k, calls, drafted, accepted, None, True, tuple(notes)))


class _SpeculatorsCsv(_Accumulator):
    """vllm-project/speculators' ``acceptance.csv`` (``scripts/evaluate/evaluate.py`` with
    ``perf_utils.acceptance_csv_columns``, read at commit c05b95b3, the same since the script was
    added in #434): ``subset, num_drafts, num_draft_tokens, num_accepted_tokens,
    acceptance_length, acceptance_at_pos_0, ...``, one row per dataset subset, written by
    ``csv.DictWriter`` from vLLM's /metrics deltas over the subset's run
    (``extract_spec_decode_metrics``): the counts are floats (``20.0``), ``acceptance_length`` =
    1 + accepted / drafts and ``acceptance_at_pos_i`` = c_{i+1} / drafts in full float precision,
    so the per-position counts come back exactly (rate x drafts, rounded). ``perf_results.csv``
    carries the same columns after its performance columns (one row per load point; a subset's
    repeated rows are read once). Each subset is one analysis (``--model SUBSET``)."""

    fmt = "speculators-csv"
    REQUIRED = ("num_drafts", "num_accepted_tokens")

    def __init__(self):
        self.header = None
        self.rows = {}

    def line(self, text: str, number: int):
        stripped = text.strip()
        if not stripped or stripped.startswith(("#", "```")):
            return
        cells = [cell.strip().strip('"') for cell in stripped.split(",")]
        where = f"line {number}"
        if self.header is None:
            if not all(key in cells for key in self.REQUIRED):
                return  # text before the CSV (a shell prompt, a title)
            self.header = cells
            self.positions = sorted(int(c.rsplit("_", 1)[1]) for c in cells if re.fullmatch(r"acceptance_at_pos_\d{1,2}", c))
            if self.positions != list(range(len(self.positions))):
                raise TraceError(f"{where}: the acceptance_at_pos_i columns skip a position")
            return
        if len(cells) != len(self.header):
            raise TraceError(f"{where}: {len(cells)} cells under a header of {len(self.header)} columns")
        row = dict(zip(self.header, cells))
        name = row.get("subset") or f"row {len(self.rows) + 1}"
        if name in self.rows:
            return  # perf_results.csv repeats a subset's acceptance on every load point
        if len(self.rows) >= MAX_LABEL_SETS:
            raise TraceError(f"more than {MAX_LABEL_SETS} subsets in the CSV")
        if not row["num_drafts"]:
            raise TraceError(f"{where}: subset {_short(name)!r} has no acceptance counts (a run without speculation)")
        record = {"number": number,
                  "drafts": _count(row["num_drafts"], "num_drafts", where),
                  "accepted": _count(row["num_accepted_tokens"], "num_accepted_tokens", where),
                  "draftTokens": _count(row["num_draft_tokens"], "num_draft_tokens", where)
                  if row.get("num_draft_tokens") else None,
                  "length": _number(row["acceptance_length"], "acceptance_length", where)
                  if row.get("acceptance_length") else None,
                  "rates": [_rate(row[f"acceptance_at_pos_{i}"], f"acceptance_at_pos_{i}", where)
                            for i in self.positions if row.get(f"acceptance_at_pos_{i}")]}
        self.rows[name] = record

    def result(self, lookahead, model=None) -> Trace:
        if self.header is None:
            raise TraceError("no CSV header with num_drafts and num_accepted_tokens")
        if not self.rows:
            raise TraceError("the CSV has a header but no row")
        name, row = _choose(self.rows, model, "subset")
        n, accepted, rates = row["drafts"], row["accepted"], row["rates"]
        notes = [f"subset {name}" + (f" (chosen of {len(self.rows)})" if len(self.rows) > 1 else "")]
        k = len(rates) or lookahead
        if lookahead is not None and rates and lookahead != len(rates):
            raise TraceError(f"the CSV has {len(rates)} positions but the lookahead given is {lookahead}")
        if k is None and row["draftTokens"] and n and row["draftTokens"] % n == 0:
            k = row["draftTokens"] // n
        k = _need_lookahead(self.fmt, k, "no acceptance_at_pos_i columns")
        _check_lookahead(k)
        drafted = row["draftTokens"] if row["draftTokens"] is not None else n * k
        if row["length"] is not None and n and abs(row["length"] - (1 + accepted / n)) > 1e-6:
            notes.append(f"the printed acceptance_length {row['length']} is not 1 + accepted / drafts = "
                         f"{1 + accepted / n:.6f}")
        per_position = tuple(_reconstruct(rates, n)) if rates else None
        if per_position is not None and sum(per_position) != accepted:
            notes.append(f"the acceptance_at_pos_i columns add up to {sum(per_position)} accepted, not "
                         f"num_accepted_tokens {accepted} (speculators sums every per-position vLLM series, a "
                         f"num_draft_tokens_per_pos one too): the per-position curve is not read")
            per_position = None
        if drafted < n * k:
            notes.append(f"drafts averaged {drafted / n:.2f} tokens of at most k = {k}")
        return _validated(Trace(self.fmt, k, n, drafted, accepted, per_position, True, tuple(notes),
                                model=name if len(self.rows) > 1 else None))


class _TrtllmRequestJson(_VllmRequestJson):
    """TensorRT-LLM's per-request performance metrics, as JSON: each request's
    ``speculative_decoding`` object with ``acceptance_rate``, ``total_accepted_draft_tokens`` and
    ``total_draft_tokens`` (``RequestPerfMetrics.speculative_decoding``, C++
    ``RequestPerfMetrics::SpeculativeDecodingMetrics``, filled by
    ``LlmRequest::updateNumTokensPerIteration``; returned with ``return_perf_metrics`` by the LLM
    API, by ``trtllm-serve``'s ``/perf_metrics`` endpoint and its perf-metrics JSON lines, the
    PyTorch flow's counters fixed in NVIDIA/TensorRT-LLM#17082). It is its own format, not the
    iteration stats: one record per request, summed over its iterations.

    It counts tokens, not verifier calls: with full-length drafts of k (the engine's
    ``max_draft_len``, given with ``--lookahead``) the calls are drafted / k; when drafted is not a
    multiple of k the drafts were shorter (a dynamic draft length, the end of the request) and
    drafted / k is only a lower bound. No per-position counts. ``first_iter`` and ``last_iter``,
    when printed, bound the iterations the request ran (a cross-check in the notes only: chunked
    prefill spreads the context phase over several)."""

    fmt = "trtllm-request-json"
    KEYS = ("total_accepted_draft_tokens",)

    def result(self, lookahead, model=None) -> Trace:
        found = [(line, record) for line, document in self._documents()
                 for record in _find_dicts(document, self.KEYS)]
        if not found:
            raise TraceError("no TensorRT-LLM speculative_decoding record (total_accepted_draft_tokens) in the JSON")
        k = _need_lookahead(self.fmt, lookahead, "TensorRT-LLM's per-request metrics count tokens, not verifier calls")
        accepted = drafted = 0
        notes = []
        for line, record in found:
            where = f"line {line}"
            acc = _json_count(record["total_accepted_draft_tokens"], "total_accepted_draft_tokens", where)
            if "total_draft_tokens" not in record:
                raise TraceError(f"{where}: total_accepted_draft_tokens without total_draft_tokens")
            d = _json_count(record["total_draft_tokens"], "total_draft_tokens", where)
            rate = record.get("acceptance_rate")
            if d and isinstance(rate, (int, float)) and math.isfinite(rate) and abs(rate - acc / d) > 1e-6:
                notes.append(f"{where}: printed acceptance_rate {rate:.4f} is not accepted / drafted = {acc / d:.4f}")
            accepted, drafted = accepted + acc, drafted + d
        if not drafted:
            raise TraceError("the requests drafted no tokens")
        calls = drafted / k
        bound = not calls.is_integer()
        if bound:
            notes.append(f"{drafted} drafted tokens is not a multiple of k = {k}: some drafts were shorter, so "
                         f"drafted / k = {calls:.1f} is only a lower bound on the verifier calls")
        else:
            calls = int(calls)
            notes.append(f"verifier calls = drafted tokens / k = {calls}, which assumes full-length drafts of k "
                         f"(TensorRT-LLM prints no call count per request)")
        if len(found) > 1:
            notes.insert(0, f"summed {len(found)} requests (pooling weights long requests more)")
        if getattr(self, "cut", None):
            notes.append(f"line {self.cut} was cut off (the input stops inside it) and is not read")
        return _validated(Trace(self.fmt, k, calls, drafted, accepted, None, not bound, tuple(notes),
                                callsBound=bound))


_SGLANG_LEN = re.compile(r"accept len: (\S+?)(?:,|$)")
_SGLANG_BENCH = re.compile(r"^\s*Accept length:\s*(\S+)\s*$")  # sglang.bench_serving's result table
_SGLANG_RATE = re.compile(r"accept rate: (\S+?)(?:,|$)")


def sglang_rate_definitions(accept_len: float, accept_rate: float, lookahead: int) -> list[str]:
    """Which of SGLang's two definitions of ``accept rate`` a printed pair fits at chain lookahead k
    (``speculative_num_draft_tokens`` = k + 1). Read in ``python/sglang/srt/managers/
    scheduler_metrics_mixin.py`` (``log_decode_stats``) of two versions:

    * ``"tokens / (k + 1)"``: accepted tokens counting the verifier's / (calls x num_draft_tokens),
      i.e. ``accept len / (k + 1)`` (the version read at commit 01bb3c8);
    * ``"drafts / k"``: accepted drafts only / (calls x (num_draft_tokens - 1)), i.e. ``(accept len
      - 1) / k`` (the later version: "spec_num_accepted_tokens includes confirmed tokens (+bs),
      subtract them out").

    Both are printed to 2 decimals, so a pair fits a definition when the predicted rate is within
    the rounding of both figures.

    >>> sglang_rate_definitions(3.2, 0.64, 4)
    ['tokens / (k + 1)']
    >>> sglang_rate_definitions(3.2, 0.55, 4)
    ['drafts / k']
    """
    fits = []
    for name, predicted, slope in (("tokens / (k + 1)", accept_len / (lookahead + 1), 1 / (lookahead + 1)),
                                   ("drafts / k", (accept_len - 1) / lookahead, 1 / lookahead)):
        if abs(predicted - accept_rate) <= 0.005 + 0.005 * slope + 1e-9:
            fits.append(name)
    return fits


class _SglangLog(_Accumulator):
    """SGLang's scheduler log: ``Decode batch. ..., accept len: %.2f, [accept rate: %.2f, ]...``
    (``log_decode_stats`` in ``python/sglang/srt/managers/scheduler.py``, later
    ``scheduler_metrics_mixin.py``), and ``Accept length: %.2f`` in ``python/sglang/bench_serving.py``'s
    result table. ``accept len`` is accepted tokens per verifier call counting
    the verifier's own token, so it is the mean acceptance length; SGLang prints no counts, so
    several lines are averaged unweighted and nothing has an interval. ``accept rate`` changed
    definition between versions (see :func:`sglang_rate_definitions`); the notes say which one the
    lines match at the lookahead, and without ``--lookahead`` the lookahead is read from it when
    exactly one k fits every line under either definition."""

    fmt = "sglang-log"
    MARKERS = ("accept len:", "Accept length:")

    def __init__(self):
        self.values = []
        self.rates = []

    def line(self, text: str, number: int):
        bench = _SGLANG_BENCH.match(text)
        if bench:  # "{:<40} {:<10.2f}" in python/sglang/bench_serving.py: the mean over the run
            value = _number(bench.group(1), "Accept length", f"line {number}")
            if value < 1:
                raise TraceError(f"line {number}: Accept length {value} is not a length of at least 1")
            self.values.append(value)
            return
        if "accept len:" not in text:
            return
        where = f"line {number}"
        match = _SGLANG_LEN.search(text)
        raw = match.group(1) if match else text
        value = _number(raw, "accept len", where) if match and _DECIMAL.fullmatch(raw.strip()) else float("nan")
        if not math.isfinite(value) or value < 1:
            raise TraceError(f"{where}: accept len {_short(raw, 30)!r} is not a length of at least 1")
        self.values.append(value)
        rate = _SGLANG_RATE.search(text)
        if rate:
            self.rates.append((value, _rate(rate.group(1), "accept rate", where)))

    def _fitting(self, k: int) -> set:
        fits = None
        for value, rate in self.rates:
            here = set(sglang_rate_definitions(value, rate, k))
            fits = here if fits is None else fits & here
        return fits or set()

    def result(self, lookahead, model=None) -> Trace:
        if not self.values:
            raise TraceError("no SGLang 'accept len:' line found")
        notes = []
        if lookahead is None and self.rates:
            candidates = [k for k in range(1, MAX_LOOKAHEAD + 1) if self._fitting(k)]
            if len(candidates) == 1:
                lookahead = candidates[0]
                notes.append(f"lookahead {lookahead} read from accept rate and accept len (the only k that fits "
                             f"every line)")
        k = _need_lookahead(self.fmt, lookahead, "SGLang prints only the mean acceptance length")
        mean = sum(self.values) / len(self.values)
        if mean > k + 1 + 0.005:
            raise TraceError(f"accept len {mean:.2f} exceeds k + 1 = {k + 1}: the lookahead {k} is too small")
        mean = min(mean, k + 1)
        if len(self.values) > 1:
            notes.insert(0, f"averaged {len(self.values)} accept len values (unweighted: SGLang prints no counts)")
        if self.rates:
            fits = self._fitting(k)
            if len(fits) == 1:
                definition = next(iter(fits))
                notes.append(f"accept rate matches SGLang's '{definition}' definition at k = {k}"
                             + (" (newer versions)" if definition == "drafts / k" else " (older versions)"))
            elif fits:
                notes.append(f"accept rate fits both of SGLang's definitions at k = {k}: cannot tell which version "
                             f"printed it")
            else:
                notes.append(f"accept rate fits neither of SGLang's definitions at k = {k} (tokens / (k + 1) or "
                             f"drafts / k): check the lookahead, or the drafts are a tree (topk > 1)")
        notes.append("with tree drafting (topk > 1) the accept len is not a chain statistic")
        return Trace(self.fmt, k, None, None, None, None, False, tuple(notes), mean)


_LLAMA_SERVER = re.compile(r"draft acceptance(?: rate)?\s*=\s*(\S+)\s*\(\s*(\S+)\s+accepted\s*/\s*(\S+)\s+generated\s*\)")
_LLAMA_MEAN = re.compile(r"mean acceptance length\s*=\s*(\S+?),?(?:\s|$)")
_LLAMA_PER_POS = re.compile(r"acceptance rate per position\s*=\s*\(([^)]*)\)")
_LLAMA_EXAMPLE = re.compile(r"\bn_(drafted|accept|predict)\s*=\s*(\S+)")
_LLAMA_N_DRAFT = re.compile(r"\b(?:n_draft|n_max)\s*=\s*([0-9]+)")
_LLAMA_STATS = re.compile(r"statistics\s+([A-Za-z0-9_.+-]+)\s*:(.*#gen drafts.*)$")
_LLAMA_STAT_FIELD = {
    "genDrafts": re.compile(r"#gen drafts\s*=\s*([0-9]+)"),
    "accDrafts": re.compile(r"#acc drafts\s*=\s*([0-9]+)"),
    "genTokens": re.compile(r"#gen tokens\s*=\s*([0-9]+)"),
    "accTokens": re.compile(r"#acc tokens\s*=\s*([0-9]+)"),
    "mean": re.compile(r"#mean acc len\s*=\s*([0-9.]+)"),
    "perPos": re.compile(r"#acc rate/pos\s*=\s*\(([^)]*)\)"),
}


class _LlamaLog(_Accumulator):
    """llama.cpp. Four shapes, read in ggml-org/llama.cpp:

    * the server's per-request line (``tools/server/server-context.cpp``, ``print_timings``): since
      2026 ``draft acceptance = %0.5f (%5d accepted / %5d generated), mean acceptance length =
      %5.2f, acceptance rate per position = (%.3f, ...)`` with mean = 1 + accepted / verification
      steps and each rate = c_i / steps, so the steps come from the printed mean, narrowed by the
      rates. Lines are summed over requests.
    * the older server line ``draft acceptance rate = %0.5f (%5d accepted / %5d generated)``: drafts
      stop early (``--draft-p-min``, ``--draft-min``, the adaptive schedule), so drafted / k is only
      a LOWER BOUND on the verifier calls (k = the most drafted per call: ``--lookahead``, or the
      start-up line ``n_draft =`` / ``n_max =``); the mean acceptance length and alpha are then
      upper bounds.
    * ``statistics <impl>: #calls(b,g,a) = ..., #gen drafts = %zu, #acc drafts = %zu, #gen tokens =
      %zu, #acc tokens = %zu[, #mean acc len = %.2f, #acc rate/pos = (...)]`` from
      ``common_speculative_print_stats`` (``common/speculative.cpp``): cumulative per implementation,
      so the last line of each counts (a drop is a restart and adds a run). ``#gen drafts`` is the
      number of drafts handed to the verifier, i.e. the call count. Several implementations are
      one analysis each (``--model IMPL``). When statistics lines are present they are used and
      the per-request lines of the same run are not added.
    * the speculative examples' summary: ``n_draft = %d`` (the most per call), ``n_predict = %d``,
      ``n_drafted = %d``, ``n_accept = %d``. Every verifier call emits its accepted drafts plus one
      token, so the calls follow from the printed counts: ``examples/speculative/speculative.cpp``
      (and ``lookup``) sample the first token from the prompt pass, so calls = n_predict - n_accept
      - 1; ``examples/speculative-simple`` feeds the prompt's last token to the first call, so calls
      = n_predict - n_accept (told apart by its statistics lines). The draft length per call is then
      known on average only.
    """

    fmt = "llamacpp-log"
    MARKERS = ("draft acceptance", "n_draft", "n_accept", "n_predict", "n_drafted", "n_max", "#gen drafts",
               "speculative-simple")

    def __init__(self):
        self.requests = []     # server lines: dict
        self.stats = {}        # impl -> list of runs (dicts); the last dict is the current run
        self.example = []      # completed n_* summaries
        self.pending = {}
        self.n_draft = None    # the most drafted per call, from a start-up line or the example
        self.simple = False

    def line(self, text: str, number: int):
        where = f"line {number}"
        if "speculative-simple" in text:
            self.simple = True
        stats = _LLAMA_STATS.search(text)
        if stats:
            self._stats(stats.group(1), stats.group(2), where, number)
            self.simple = True  # only speculative-simple and the server print statistics lines
            return
        server = _LLAMA_SERVER.search(text)
        if server:
            record = {"number": number, "accepted": _count(server.group(2), "accepted", where),
                      "drafted": _count(server.group(3), "generated", where), "mean": None, "rates": None}
            mean = _LLAMA_MEAN.search(text)
            if mean:
                record["mean"] = _number(mean.group(1), "mean acceptance length", where)
            per_pos = _LLAMA_PER_POS.search(text)
            if per_pos and per_pos.group(1).strip():
                record["rates"] = _rates(per_pos.group(1), "acceptance rate per position", where)
            self.requests.append(record)
            return
        example = _LLAMA_EXAMPLE.findall(text)
        n_draft = _LLAMA_N_DRAFT.search(text)
        if n_draft and not example:
            value = _count(n_draft.group(1), "n_draft", where)
            if 1 <= value <= MAX_LOOKAHEAD:
                self.n_draft = value
        for key, value in example:
            if key == "predict":
                # llama-cli's start-up line also prints n_predict (often -1): the last one before the pair counts
                value = value.rstrip(",")
                if value.isascii() and value.isdigit() and len(value) <= MAX_DIGITS:
                    self.pending["predict"] = int(value)
                continue
            if key in self.pending:
                raise TraceError(f"{where}: n_{key} appears twice before its pair")
            self.pending[key] = _count(value.rstrip(","), f"n_{key}", where)
            if "drafted" in self.pending and "accept" in self.pending:
                self.example.append(dict(self.pending, number=number))
                self.pending = {}

    def _stats(self, impl: str, body: str, where: str, number: int):
        values = {}
        for key, pattern in _LLAMA_STAT_FIELD.items():
            match = pattern.search(body)
            if match is None:
                continue
            if key == "perPos":
                values[key] = _rates(match.group(1), "#acc rate/pos", where) if match.group(1).strip() else None
            elif key == "mean":
                values[key] = _number(match.group(1), "#mean acc len", where)
            else:
                values[key] = _count(match.group(1), key, where)
        for key in ("genDrafts", "genTokens", "accTokens"):
            if key not in values:
                raise TraceError(f"{where}: a statistics line without its {key.replace('gen', '#gen ').replace('acc', '#acc ')}")
        values["number"] = number
        runs = self.stats.setdefault(impl, [])
        if len(self.stats) > MAX_LABEL_SETS:
            raise TraceError(f"more than {MAX_LABEL_SETS} implementations in the statistics lines")
        if runs and (values["genDrafts"] < runs[-1]["genDrafts"] or values["accTokens"] < runs[-1]["accTokens"]):
            runs.append(values)   # the counters dropped: the server restarted
        elif runs:
            runs[-1] = values     # cumulative: the last line of a run holds the run
        else:
            runs.append(values)

    def result(self, lookahead, model=None) -> Trace:
        if set(self.pending) - {"predict"} and not self.example and not self.requests and not self.stats:
            present = "drafted" if "drafted" in self.pending else "accept"
            missing = "accept" if present == "drafted" else "drafted"
            raise TraceError(f"n_{present} without its n_{missing}")
        if self.stats:
            return self._stats_result(lookahead, model)
        if self.example:
            return self._example_result(lookahead)
        if not self.requests:
            raise TraceError("no llama.cpp draft acceptance line, statistics line or n_drafted/n_accept pair found")
        return self._server_result(lookahead)

    def _k(self, lookahead, rates_length, notes, why):
        if lookahead is not None:
            if rates_length and rates_length != lookahead:
                raise TraceError(f"the log prints {rates_length} per-position rates but the lookahead given is {lookahead}")
            return lookahead
        if rates_length:
            return rates_length
        if self.n_draft:
            notes.append(f"lookahead {self.n_draft} read from the start-up line (n_draft / n_max: the most drafted per call)")
            return self.n_draft
        return _need_lookahead(self.fmt, None, why)

    def _stats_result(self, lookahead, model) -> Trace:
        active = {impl: runs for impl, runs in self.stats.items() if sum(r["genDrafts"] for r in runs)}
        idle = sorted(set(self.stats) - set(active))
        if not active:
            raise TraceError(f"the statistics lines record no drafts ({', '.join(idle)})")
        name, runs = _choose(active, model, "speculative implementation")
        notes = [f"implementation {name}" + (f" (chosen of {len(active)})" if len(active) > 1 else "")]
        if idle:
            notes.append(f"{len(idle)} implementation(s) without drafts skipped: {', '.join(idle)}")
        if len(runs) > 1:
            notes.append(f"the counters restarted {len(runs) - 1} time(s): {len(runs)} runs added")
        notes.append("statistics lines are cumulative: the last line of each run is read; #gen drafts is the call count")
        if self.requests or self.example:
            notes.append(f"{len(self.requests) + len(self.example)} per-request line(s) of the same run not added")
        rate_lengths = {len(r["perPos"]) for r in runs if r.get("perPos")}
        k = self._k(lookahead, max(rate_lengths) if rate_lengths else None, notes,
                    "no #acc rate/pos and no n_draft start-up line")
        calls = sum(r["genDrafts"] for r in runs)
        drafted = sum(r["genTokens"] for r in runs)
        accepted = sum(r["accTokens"] for r in runs)
        per_position = None
        if all(r.get("perPos") and len(r["perPos"]) == k for r in runs):
            per_position = [0] * k
            for r in runs:
                per_position = [a + b for a, b in zip(per_position, _reconstruct(r["perPos"], r["genDrafts"]))]
            notes.append("per-position counts rebuilt from #acc rate/pos (3 decimals), so they are approximate")
        for r in runs:
            if r.get("mean") is not None and r["genDrafts"] and abs(r["mean"] - (1 + r["accTokens"] / r["genDrafts"])) > 0.0051:
                notes.append(f"line {r['number']}: printed #mean acc len {r['mean']:.2f} but 1 + #acc tokens / "
                             f"#gen drafts = {1 + r['accTokens'] / r['genDrafts']:.3f}")
            if per_position is not None and r.get("accDrafts") is not None and r.get("perPos") and \
                    abs(r["accDrafts"] - r["perPos"][0] * r["genDrafts"]) > 0.0005 * r["genDrafts"] + 1:
                notes.append(f"line {r['number']}: #acc drafts {r['accDrafts']} disagrees with position 1's rate x "
                             f"#gen drafts = {r['perPos'][0] * r['genDrafts']:.0f}")
        if drafted < calls * k:
            notes.append(f"drafts averaged {drafted / calls:.2f} tokens of at most k = {k} (early stops): per-position "
                         f"rates are over all calls")
        return _validated(Trace("llamacpp-stats", k, calls, drafted, accepted,
                                tuple(per_position) if per_position else None, per_position is None, tuple(notes),
                                model=name if len(active) > 1 else None), tolerance=per_position is not None)

    def _example_result(self, lookahead) -> Trace:
        notes = []
        if lookahead is None and self.n_draft is None:
            self.n_draft = None
        calls = drafted = accepted = 0
        for entry in self.example:
            if "predict" not in entry:
                raise TraceError(f"line {entry['number']}: n_drafted and n_accept without n_predict: the calls cannot "
                                 f"be counted (every call emits its accepted drafts plus one token)")
            first_from_prompt = 0 if self.simple else 1
            n = entry["predict"] - entry["accept"] - first_from_prompt
            if n < 1:
                raise TraceError(f"line {entry['number']}: n_predict {entry['predict']} and n_accept {entry['accept']} "
                                 f"leave no verifier call")
            if entry["accept"] > entry["drafted"]:
                raise TraceError(f"inconsistent counts: n_accept {entry['accept']} exceeds n_drafted {entry['drafted']}")
            calls, drafted, accepted = calls + n, drafted + entry["drafted"], accepted + entry["accept"]
        if len(self.example) > 1:
            notes.append(f"summed {len(self.example)} runs")
        rule = ("speculative-simple: calls = n_predict - n_accept" if self.simple else
                "calls = n_predict - n_accept - 1 (the speculative and lookup examples sample the first token from "
                "the prompt pass; speculative-simple would give one call more)")
        notes.append(rule)
        k = self._k(lookahead, None, notes, "no n_draft line")
        notes.append(f"drafts averaged {drafted / calls:.2f} tokens (k = {k} is the most): the per-call draft length "
                     f"is known on average only")
        if accepted > calls * k:
            raise TraceError(f"inconsistent counts: {accepted} accepted in {calls} calls of at most k = {k} drafts")
        return _validated(Trace(self.fmt, k, calls, drafted, accepted, None, True, tuple(notes)))

    def _server_result(self, lookahead) -> Trace:
        notes = []
        rate_lengths = {len(r["rates"]) for r in self.requests if r["rates"]}
        if len(rate_lengths) > 1:
            raise TraceError(f"the lines disagree on the number of positions ({sorted(rate_lengths)})")
        k = self._k(lookahead, rate_lengths.pop() if rate_lengths else None, notes,
                    "it counts tokens, not verifier calls")
        with_mean = [r for r in self.requests if r["mean"] is not None]
        if with_mean and len(with_mean) != len(self.requests):
            notes.append(f"{len(self.requests) - len(with_mean)} older line(s) without a mean acceptance length skipped")
        if with_mean:
            calls = drafted = accepted = 0
            per_position = [0] * k if all(r["rates"] for r in with_mean) else None
            for r in with_mean:
                if r["accepted"] == 0:
                    n = math.ceil(r["drafted"] / k)
                    if r["drafted"]:
                        notes.append(f"line {r['number']}: nothing accepted, so the calls are at least drafted / k")
                else:
                    n, span = _calls_from_mean(r["accepted"], r["mean"], 2, r["rates"], 3)
                    if n is None:
                        raise TraceError(f"line {r['number']}: the printed mean acceptance length {r['mean']} cannot "
                                         f"come from {r['accepted']} accepted tokens")
                if per_position is not None and n:
                    per_position = [a + b for a, b in zip(per_position, _reconstruct(r["rates"], n))]
                calls, drafted, accepted = calls + n, drafted + r["drafted"], accepted + r["accepted"]
            if len(with_mean) > 1:
                notes.insert(0, f"summed {len(with_mean)} requests")
            notes.append("verifier calls rebuilt from the printed mean acceptance length (accepted / (mean - 1)), "
                         "narrowed by the per-position rates")
            if drafted < calls * k:
                notes.append(f"drafts averaged {drafted / calls:.2f} tokens of at most k = {k} (early stops)")
            return _validated(Trace(self.fmt, k, calls, drafted, accepted,
                                    tuple(per_position) if per_position else None, False, tuple(notes)),
                              tolerance=True)
        accepted = sum(r["accepted"] for r in self.requests)
        drafted = sum(r["drafted"] for r in self.requests)
        if len(self.requests) > 1:
            notes.insert(0, f"summed {len(self.requests)} requests")
        bound = drafted / k
        notes.append(f"lower bound: llama.cpp drafts stop early, so drafted / k = {count_text(bound)} is the FEWEST verifier "
                     f"calls these tokens allow; the mean acceptance length and alpha shown are upper bounds (a "
                     f"newer server prints the mean acceptance length, which gives the calls)")
        return _validated(Trace(self.fmt, k, bound, drafted, accepted, None, False, tuple(notes), callsBound=True))


class _TrtllmJson(_Accumulator):
    """TensorRT-LLM iteration statistics: each iteration's ``specDecodingStats`` object with
    ``numDraftTokens``, ``numAcceptedTokens``, ``numRequestsWithDraftTokens`` and
    ``acceptanceLength`` (struct ``SpecDecodingStats`` in ``cpp/include/tensorrt_llm/executor/
    types.h``, serialised by ``cpp/tensorrt_llm/executor/jsonSerialization.cpp``). Requests with
    a draft in an iteration are verifier calls; iterations without drafts, and iterations whose
    ``specDecodingStats`` is ``null`` (no speculative step in them), are skipped and counted in a
    note. The objects may be one per line, inside a JSON array, or pretty-printed over several
    lines."""

    fmt = "trtllm-json"
    KEY = '"specDecodingStats"'

    def lines(self, batch, first_number: int):
        for offset, line in enumerate(batch):
            if self.buffer is not None or self.KEY in line:
                self.line(_clean(line), first_number + offset)

    def __init__(self):
        self.buffer = None
        self.drafts = self.draft_tokens = self.accepted = 0
        self.iterations = 0
        self.null = self.empty = 0
        self.ratios = set()

    def line(self, text: str, number: int):
        while True:
            if self.buffer is None:
                start = text.find(self.KEY)
                if start < 0:
                    return
                self.buffer, self.start_line = "", number
                text = text[start + len(self.KEY):]
            self.buffer += text
            head = self.buffer.lstrip()
            if head.startswith(":") and head[1:].lstrip().startswith("null"):
                self.null += 1
                rest = head[1:].lstrip()[4:]
                self.buffer = None
                text = rest
                continue
            end = self.buffer.find("}")
            if end < 0:
                if len(self.buffer) > 4096:
                    raise TraceError(f"line {self.start_line}: specDecodingStats object never closes")
                return
            body, text = self.buffer[:end + 1], self.buffer[end + 1:]
            self.buffer = None
            self._object(body, self.start_line)

    def _object(self, body: str, number: int):
        where = f"line {number}"
        head = body.lstrip()
        if not head.startswith(":"):
            raise TraceError(f"{where}: specDecodingStats is not followed by an object")
        try:
            stats = _json_loads(head[1:].strip(), where)
        except TraceError as error:
            if "nested" in str(error) or "digits" in str(error):
                raise
            raise TraceError(f"{where}: cannot read the specDecodingStats object {_short(head[1:])!r}") from None
        if not isinstance(stats, dict):
            raise TraceError(f"{where}: specDecodingStats is not an object")
        values = {}
        for key in ("numDraftTokens", "numAcceptedTokens", "numRequestsWithDraftTokens"):
            if key not in stats:
                raise TraceError(f"{where}: specDecodingStats has no {key}")
            values[key] = _json_count(stats[key], key, where)
        drafted, accepted, requests = values.values()
        if drafted == 0:
            self.empty += 1
            return
        if requests == 0:
            raise TraceError(f"{where}: {drafted} draft tokens but numRequestsWithDraftTokens is 0")
        self.drafts += requests
        self.draft_tokens += drafted
        self.accepted += accepted
        self.iterations += 1
        self.ratios.add(drafted / requests)

    def result(self, lookahead, model=None) -> Trace:
        cut = None
        if self.buffer is not None:
            if not self.iterations:
                raise TraceError(f"line {self.start_line}: specDecodingStats object never closes")
            cut = self.start_line  # the input stops inside its last object: read the complete ones
        if not self.iterations:
            raise TraceError("no specDecodingStats with draft tokens found"
                             + (f" ({self.null} null)" if self.null else ""))
        notes = [f"summed {self.iterations} iterations"] if self.iterations > 1 else []
        if self.null or self.empty:
            notes.append(f"skipped {self.null + self.empty} iteration(s) without drafts"
                         + (f" ({self.null} with specDecodingStats null)" if self.null else ""))
        if lookahead is None and len(self.ratios) == 1 and next(iter(self.ratios)).is_integer():
            lookahead = int(next(iter(self.ratios)))
            notes.append(f"lookahead {lookahead} read as numDraftTokens / numRequestsWithDraftTokens")
        k = _need_lookahead(self.fmt, lookahead, "draft lengths vary between iterations")
        if self.draft_tokens < self.drafts * k:
            notes.append(f"drafts averaged {self.draft_tokens / self.drafts:.2f} tokens of at most k = {k}")
        if cut is not None:
            notes.append(f"the input ends inside the specDecodingStats object of line {cut}: it was cut off and is "
                         f"not read; the complete iterations before it are")
        return _validated(Trace(self.fmt, k, self.drafts, self.draft_tokens, self.accepted, None, True, tuple(notes)))


class _Cycles(_Accumulator):
    """The plain format: one integer per verifier call, the drafts it accepted (0..k)."""

    fmt = "cycles"

    def __init__(self):
        self.histogram: dict[int, int] = {}

    def lines(self, batch, first_number: int):
        """Count identical lines first (a C-speed tally), then read each distinct line once."""
        tally = Counter(batch)
        for text, times in tally.items():
            stripped = text.strip()
            if stripped.isdigit() and stripped.isascii() and len(stripped) <= MAX_DIGITS:
                value = int(stripped)
                self.histogram[value] = self.histogram.get(value, 0) + times
            else:
                self.line(_clean(text), first_number + batch.index(text))
                stripped = _clean(text).strip()
                if times > 1 and stripped and not stripped.startswith("#"):
                    value = int(stripped)
                    self.histogram[value] = self.histogram.get(value, 0) + times - 1

    def line(self, text: str, number: int):
        stripped = text.strip()
        if not stripped or stripped.startswith(("#", "```", "~~~")):
            return
        if not re.fullmatch(r"[+-]?[0-9]+", stripped):
            raise TraceError(f"line {number}: {_short(stripped, 30)!r} is not an integer count of accepted drafts")
        if len(stripped.lstrip("+-")) > MAX_DIGITS:
            raise TraceError(f"line {number}: a count of {len(stripped)} digits; at most {MAX_DIGITS} are read")
        value = int(stripped)
        if value < 0:
            raise TraceError(f"line {number}: negative count {value}")
        self.histogram[value] = self.histogram.get(value, 0) + 1

    def result(self, lookahead, model=None) -> Trace:
        k = _need_lookahead(self.fmt, lookahead, "one count per call does not say how many were drafted")
        if not self.histogram:
            raise TraceError("no verifier calls in the file")
        if max(self.histogram) > k:
            raise TraceError(f"a call accepted {max(self.histogram)} drafts but the lookahead is {k}")
        return cycles_to_trace(self.histogram, k)


_SINGLE = re.compile(r"^\s*(?:[-*>#]+\s*)?(mean acceptance length|acceptance length|mean accepted length|accept(?:ance)? len|"
                     r"tau|draft acceptance rate|avg draft acceptance rate|acceptance rate|accept rate|alpha|"
                     r"per-token acceptance)\s*(?:[:=]|is)?\s*(" + _NUM + r")\s*(%?)\s*\.?\s*$", re.IGNORECASE)


class _Single(_Accumulator):
    """One figure alone, as people quote it: ``Mean acceptance length: 2.8``, ``acceptance rate
    45%`` or ``alpha 0.7``. With the lookahead it converts like the translator (independent model,
    full-length chain drafts); a single number gives no counts and no per-position curve."""

    fmt = "single-number"

    def __init__(self):
        self.values = []

    def line(self, text: str, number: int):
        stripped = text.strip()
        if not stripped or stripped.startswith("#") and not _SINGLE.match(stripped):
            return
        match = _SINGLE.match(stripped)
        if not match:
            raise TraceError(f"line {number}: a single figure must stand alone; {_short(stripped)!r} is not one")
        self.values.append((number, match.group(1).lower(), match.group(2), match.group(3)))

    def result(self, lookahead, model=None) -> Trace:
        if len(self.values) != 1:
            raise TraceError(f"{len(self.values)} figures: paste one (a mean acceptance length, an acceptance rate or "
                             f"an alpha) or the engine's full output")
        number, name, text, percent = self.values[0]
        k = _need_lookahead(self.fmt, lookahead, "one figure does not say how many drafts each call proposed")
        where = f"line {number}"
        if "rate" in name or name in ("alpha", "per-token acceptance"):
            value = _rate(text, name, where, 100 if percent or _number(text, name, where) > 1 else 1)
            if name in ("alpha", "per-token acceptance"):
                result = translate(k, alpha=value)
            else:
                result = translate(k, acceptance_rate=value)
        else:
            value = _number(text, name, where)
            if not 1 <= value <= k + 1:
                raise TraceError(f"{where}: a mean acceptance length of {value} is outside 1 to k + 1 = {k + 1}")
            result = translate(k, mean_acceptance_length=value)
        notes = (f"a single figure ({name} {text}{percent}) converted at k = {k} under the independent model with "
                 f"full-length chain drafts: no counts, no intervals and no per-position curve",)
        return Trace(self.fmt, k, None, None, None, None, False, notes, result["meanAcceptanceLength"])


def cycles_to_trace(histogram, lookahead: int) -> Trace:
    """A trace from a histogram ``{accepted drafts in one call: number of calls}``:
    ``c_i`` = calls that accepted at least ``i``.

    >>> cycles_to_trace({0: 1, 2: 2, 3: 1}, 3).perPosition
    (3, 3, 1)
    """
    calls = sum(histogram.values())
    per_position = tuple(sum(n for value, n in histogram.items() if value >= i) for i in range(1, lookahead + 1))
    accepted = sum(value * n for value, n in histogram.items())
    return _validated(Trace("cycles", lookahead, calls, calls * lookahead, accepted, per_position, True,
                            (f"{calls} verifier calls",)))


PARSERS = {"prometheus": _Prometheus, "vllm-v0-metrics": _Prometheus, "vllm-log": _VllmLog, "vllm-v0-log": _VllmLog,
           "vllm-bench": _VllmBench, "vllm-request-json": _VllmRequestJson, "sglang-log": _SglangLog,
           "llamacpp-log": _LlamaLog, "llamacpp-stats": _LlamaLog, "trtllm-json": _TrtllmJson, "cycles": _Cycles,
           "single-number": _Single, "sglang-json": _SglangJson, "trtllm-request-json": _TrtllmRequestJson,
           "speculators-csv": _SpeculatorsCsv}
JSON_FORMATS = ("vllm-request-json", "sglang-json", "trtllm-request-json")  # parsed whole: their opening lines are kept


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


# --- detection and the streaming front door -----------------------------------------------------

_CSV_HEADER = re.compile(r"^[A-Za-z0-9_,\" ]*\bnum_drafts\b[A-Za-z0-9_,\" ]*\bnum_accepted_tokens\b[A-Za-z0-9_,\" ]*$")
_LLAMA_DETECT = re.compile(r"\bn_(drafted|accept|predict|draft)\s*=|\bn_max\s*=\s*[0-9]+, n_min|draft acceptance(?: rate)?\s*=|statistics\s+\S+\s*:.*#gen drafts")


def detect_line(line: str) -> str | None:
    """The format one line belongs to, or None. Bare integers are ``cycles`` (only as the
    first readable line, see :class:`TraceParser`).

    >>> detect_line("vllm:spec_decode_num_drafts_total{engine=\\"0\\"} 4816.0")
    'prometheus'
    >>> detect_line("INFO 05-12 10:11:12 [metrics.py:101] SpecDecoding metrics: Mean acceptance length: 2.87, ...")
    'vllm-log'
    >>> detect_line("Mean acceptance length: 2.8")
    'single-number'
    """
    line = _clean(line)
    stripped = line.strip()
    if stripped.startswith("vllm:spec_decode_") or stripped.startswith(("# HELP vllm:spec_decode", "# TYPE vllm:spec_decode")):
        return "vllm-v0-metrics" if "num_emitted_tokens" in stripped or "_efficiency" in stripped \
            or "draft_acceptance_rate" in stripped else "prometheus"
    if "Speculative metrics:" in line:
        return "vllm-v0-log"
    if "SpecDecoding metrics:" in line or _VLLM_EXAMPLE.match(line) and not line.lstrip().startswith("mean"):
        return "vllm-log"
    if _BENCH_HEADER.match(stripped) or _BENCH_FIELD.match(line) and stripped.startswith(("Acceptance rate (%)",
                                                                                          "Acceptance length:")):
        return "vllm-bench"
    if "accept len:" in line or _SGLANG_BENCH.match(line):
        return "sglang-log"
    if _LLAMA_DETECT.search(line):
        return "llamacpp-stats" if "#gen drafts" in line else "llamacpp-log"
    if "specDecodingStats" in line:
        return "trtllm-json"
    if '"total_accepted_draft_tokens"' in line:
        return "trtllm-request-json"
    if '"spec_verify_ct"' in line:
        return "sglang-json"
    if any(key in line for key in _REQUEST_KEYS):
        return "vllm-request-json"
    if _CSV_HEADER.match(stripped):
        return "speculators-csv"
    if _SINGLE.match(stripped):
        return "single-number"
    if re.fullmatch(r"[0-9]+", stripped):
        return "cycles"
    return None


class TraceParser:
    """Feed text in chunks of any size (:meth:`feed`), then :meth:`finish`. Only the current
    partial line and the running counts are kept, so memory does not grow with the file (the
    per-request JSON, parsed whole, is the exception, capped at :data:`MAX_JSON_CHARS`).

    With ``fmt="auto"`` the first line that belongs to a format decides it; the lines before it
    are skipped (log noise, other metrics), except that a file of bare integers must start with
    one (a cycles file has nothing else in it). A JSON document's opening lines (``[``, ``{``) are
    kept so a per-request JSON can still be read whole. A UTF-8 byte-order mark is dropped, and
    UTF-16 text read as UTF-8 (what PowerShell's ``>`` writes) is repaired. ``model`` chooses one
    model, implementation or run when the input holds several.

    >>> parser = TraceParser(lookahead=3)
    >>> parser.feed("2\\n0\\n3")
    >>> parser.feed("\\n1\\n")
    >>> trace = parser.finish()
    >>> trace.format, trace.drafts, trace.accepted, trace.perPosition
    ('cycles', 4, 6, (3, 2, 1))
    """

    def __init__(self, fmt: str = "auto", lookahead=None, model=None):
        if fmt != "auto" and fmt not in PARSERS:
            raise TraceError(f"unknown format {_short(str(fmt), 30)!r}; valid: auto, {', '.join(FORMATS)}")
        self.lookahead = _check_lookahead(lookahead)
        self.model = model if model not in ("", None) else None
        self.fmt = fmt
        self.accumulator = PARSERS[fmt]() if fmt != "auto" else None
        self.partial = ""
        self.number = 0
        self.first_unread = None
        self.bytes = 0
        self.started = False
        self.utf16 = False
        self.json_head = []
        self.single_lines = []

    def _repair(self, text: str) -> str:
        if not self.started and text:
            self.started = True
            if text.startswith(("\ufffd\ufffd", "\xff\xfe", "\xfe\xff")) or text[:2].count("\x00") == 1:
                self.utf16 = True
                text = text.lstrip("\ufffd\xff\xfe")
            text = text.lstrip("\ufeff")
        if self.utf16 or "\x00" in text:
            text = text.replace("\x00", "")
        return text

    def feed(self, text: str):
        self.bytes += len(text)
        text = self.partial + self._repair(text)
        lines = text.split("\n")
        self.partial = lines.pop()
        if len(self.partial) > SPLIT_LONG_LINE:  # one huge line (a JSON array): cut after a '}'
            cut = self.partial.rfind("}") + 1
            if cut > 0:
                lines.append(self.partial[:cut])
                self.partial = self.partial[cut:]
                self.number -= 1  # the pieces of one line keep its number
        index = 0
        while self.accumulator is None and index < len(lines):  # detection: one line at a time
            self.number += 1
            self._line(lines[index])
            index += 1
        if index < len(lines):
            self.accumulator.lines(lines[index:] if index else lines, self.number + 1)
            self.number += len(lines) - index

    def _line(self, line: str):
        if self.accumulator is None:
            line = _clean(line)
            fmt = detect_line(line)
            if fmt == "cycles" and self.first_unread is not None:
                fmt = None
            if fmt is None:
                stripped = line.strip()
                if self.first_unread is None and (self.json_head or stripped[:1] in ("[", "{")) \
                        and len(self.json_head) < 20000:
                    self.json_head.append((self.number, line))  # a JSON document's opening lines, kept whole
                    return
                if self.first_unread is None and stripped and not stripped.startswith(("#", "```", "~~~")):
                    self.first_unread = (self.number, line)
                return
            if fmt == "single-number" and self.fmt == "auto":
                # one figure may also open a longer output (the V0-era spec_decode summary starts with its
                # mean acceptance length): decide at the next recognised line, or at the end
                if len(self.single_lines) < 64:
                    self.single_lines.append((self.number, line))
                return
            self.fmt = fmt
            self.accumulator = PARSERS[fmt]()
            if fmt in ("vllm-log", "vllm-v0-log"):
                for number, held in self.single_lines:
                    self.accumulator.line(held, number)
            self.single_lines = []
            if fmt in JSON_FORMATS:
                for number, head in self.json_head:
                    self.accumulator.line(head, number)
            self.json_head = []
        self.accumulator.line(_clean(line), self.number)

    def finish(self) -> Trace:
        cut = None
        if self.partial:  # the input does not end with a newline: its last line may be cut off
            self.number += 1
            line, self.partial = self.partial, ""
            if self.accumulator is not None:
                self.accumulator.unterminated = self.number
            try:
                self._line(line)
            except TraceError as error:
                if self.accumulator is None:
                    raise
                cut = (self.number, error)  # read the complete lines; say the last one was cut
        if self.accumulator is None and self.single_lines:
            self.fmt, self.accumulator = "single-number", _Single()
            for number, held in self.single_lines:
                self.accumulator.line(held, number)
            if self.first_unread is not None:
                number, line = self.first_unread
                raise TraceError(f"line {number}: a single figure must stand alone; {_short(line)!r} is not one")
        if self.accumulator is None:
            if self.first_unread is None and self.json_head:
                self.first_unread = self.json_head[0]
            if self.first_unread is None:
                raise TraceError("the trace is empty")
            number, line = self.first_unread
            raise TraceError(f"unrecognised format (no line of vLLM, SGLang, llama.cpp or TensorRT-LLM output, and "
                             f"not a cycles file); first line not read: line {number}: {_short(line)!r}")
        try:
            trace = self.accumulator.result(self.lookahead, self.model)
        except TraceError:
            if cut is not None:  # nothing readable without the cut line: its own reason is the clearer one
                raise cut[1] from None
            raise
        except (RecursionError, MemoryError, OverflowError, ZeroDivisionError) as error:
            raise TraceError(f"cannot read this input ({type(error).__name__}); check it is one engine's output") from None
        if cut is not None:
            number, error = cut
            trace = trace._replace(notes=trace.notes + (
                f"the last line (line {number}) ends without a newline and cannot be read ({error}): it looks cut "
                f"off, so only the complete lines before it are read",))
        return trace


def parse(text: str, fmt: str = "auto", lookahead=None, model=None) -> Trace:
    """Parse a whole text (see :class:`TraceParser`).

    >>> parse("Accepted: 1", fmt="cycles", lookahead=2)
    Traceback (most recent call last):
    ...
    lab.traces.TraceError: line 1: 'Accepted: 1' is not an integer count of accepted drafts
    """
    parser = TraceParser(fmt, lookahead, model)
    parser.feed(text)
    return parser.finish()


# --- statistics --------------------------------------------------------------------------------

def alpha_iid(mean_accepted: float, lookahead: int) -> float:
    """The alpha whose independent model accepts ``mean_accepted`` drafts per call at this
    lookahead: the root of ``sum_{i=1..k} alpha^i = mean_accepted`` (``tau - 1``), by bisection
    (the sum rises with alpha, so the root is unique), to within :data:`ALPHA_TOLERANCE`.

    >>> round(alpha_iid(expected_accepted_iid(0.74, 5), 5), 9)
    0.74
    """
    if mean_accepted <= 0:
        return 0.0
    if mean_accepted >= lookahead:
        return 1.0
    low, high = 0.0, 1.0
    for _ in range(200):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if expected_accepted_iid(middle, lookahead) < mean_accepted:
            low = middle
        else:
            high = middle
    low_gap = abs(expected_accepted_iid(low, lookahead) - mean_accepted)
    return low if low_gap <= abs(expected_accepted_iid(high, lookahead) - mean_accepted) else high


def alpha_mle(accepted: int, calls_with_rejection: int) -> float:
    """Maximum-likelihood alpha of the independent model, ``S / (S + R)``: each call is a run of
    survivals ended by a rejection or by the lookahead, so the likelihood is
    ``alpha^S (1 - alpha)^R`` with ``S`` accepted drafts and ``R`` calls that ended in a rejection.

    >>> alpha_mle(3, 1)
    0.75
    """
    total = accepted + calls_with_rejection
    return accepted / total if total else 0.0


def _xlogy(x: float, y: float) -> float:
    """``x log y`` with ``0 log 0 = 0``; ``x log 0`` for x > 0 is minus infinity (an impossible count).

    >>> _xlogy(0, 0.0), _xlogy(2, 1.0)
    (0.0, 0.0)
    """
    if x == 0:
        return 0.0
    return x * math.log(y) if y > 0 else -math.inf


def independence_test(drafts: int, per_position, trials=None) -> dict:
    """Likelihood-ratio test of one constant conditional rate against one rate per position: it
    tests whether a single per-token acceptance explains the counts at every position (the
    ledger's model), not independence in general (a constant rate can hide bursts).

    At position ``i`` there are ``c_{i-1}`` trials and ``c_i`` survivals (``trials`` overrides the
    trials where the engine printed drafted tokens per position). Per position the MLE is
    ``c_i / c_{i-1}``; under one constant rate it is ``S / (S + R)`` with ``R = N - c_k``. The
    statistic ``G = 2 (log L_positions - log L_constant)`` is chi-square with (positions with
    trials - 1) degrees of freedom when one rate holds. Pooled requests bias it upward with position:
    the calls that reach a late position come mostly from easy requests, so mixing easy and hard
    requests can make a curve rise, and flattens (never causes) a fall.

    >>> independence_test(100, (50, 25, 12.5))["statistic"]
    0.0
    """
    trials = list(trials) if trials is not None else [drafts] + list(per_position[:-1])
    survived = list(per_position)
    accepted, rejected = sum(survived), drafts - survived[-1]
    constant = alpha_mle(accepted, rejected)
    constant_rejected = rejected / (accepted + rejected) if accepted + rejected else 1.0
    log_positions = log_constant = 0.0
    used = 0
    for n, s in zip(trials, survived):
        if n <= 0:
            continue
        used += 1
        s = min(s, n)
        # (n - s) / n, not 1 - s / n: with big counts s / n can round to 1 while n - s > 0 (log of 0)
        log_positions += _xlogy(s, s / n) + _xlogy(n - s, (n - s) / n)
        log_constant += _xlogy(s, constant) + _xlogy(n - s, constant_rejected)
    statistic = max(0.0, 2 * (log_positions - log_constant))
    if statistic < 1e-9 * max(1.0, accepted):  # float noise on an exactly constant curve
        statistic = 0.0
    df = max(0, used - 1)
    p_value = chi_square_sf(statistic, df)
    return {"statistic": statistic, "df": df, "pValue": p_value, "verdict": _verdict(p_value, df, per_position, trials)}


def _verdict(p_value: float, df: int, survived, trials) -> str:
    if df == 0:
        return "one position only: nothing to compare, one constant conditional rate cannot be tested"
    if p_value < 0.01:
        first, last = survived[0] / trials[0], (survived[-1] / trials[-1] if trials[-1] else 0)
        trend = "falls" if last < first else "rises"
        # Pooling easy and hard requests makes a conditional rate RISE with position (the calls that
        # reach a late position come mostly from easy stretches): it can cause a rise, never a fall.
        why = ("pooled requests can cause this: the calls that reach later positions come mostly from easy "
               "requests" if trend == "rises" else
               "pooling requests would flatten such a fall, not cause it, so the draft itself gets worse with depth")
        return (f"not one constant conditional rate: the chance of surviving {trend} with position more than chance "
                f"allows (p < 0.01), so one alpha misdescribes this trace ({why})")
    if p_value < 0.05:
        return "weak evidence against one constant conditional rate (0.01 <= p < 0.05)"
    return "consistent with one constant conditional rate: one alpha explains these counts (p >= 0.05)"


# --- analysis ----------------------------------------------------------------------------------

def analyse(trace: Trace) -> dict:
    """Everything the page and the CLI report about one trace (rates as fractions in [0, 1]).

    ``meanAcceptanceLength = 1 + S / N`` (vLLM's convention: it counts the verifier's token),
    ``acceptanceRate = S / draft tokens``, ``perPosition[i] = c_i / N`` (the chance that the first
    i drafts all survived; ``c_i / d_i`` where the engine printed ``d_i`` drafted tokens at
    position i), ``conditional[i] = c_i / c_{i-1}``. Fields a format cannot give are None, and
    ``missing`` says why. When the calls are only a lower bound (``callsBound``), ``bounds`` names
    the figures that become bounds: the mean acceptance length and alphaIid are then upper bounds.

    >>> analyse(cycles_to_trace({0: 1, 2: 1}, 2))["meanAcceptanceLength"]
    2.0
    """
    k = trace.lookahead
    missing, bounds = [], []
    if trace.meanLength is not None:
        tau = trace.meanLength
        mean_accepted = tau - 1
        rate = mean_accepted / k
        missing.append(f"{SHORT_NAMES.get(trace.format, trace.format)} gives no counts: no intervals, no "
                       f"per-position curve, no test of one constant rate")
    else:
        mean_accepted = trace.accepted / trace.drafts
        tau = 1 + mean_accepted
        rate = trace.accepted / trace.draftTokens if trace.draftTokens else None
    per_position = conditional = unconditional_ci = conditional_ci = None
    mle = independence = None
    c = trace.perPosition
    if c is not None:
        n = trace.drafts
        d = trace.draftsPerPosition
        denominators = list(d) if d is not None else [n] * len(c)
        per_position = [ci / di if di else 0.0 for ci, di in zip(c, denominators)]
        unconditional_ci = [list(wilson_interval(ci, di)) for ci, di in zip(c, denominators)]
        if d is None:
            trials = [n] + list(c[:-1])
        else:  # survivors of position i - 1 that had a draft at position i (drafting assumed blind to acceptance)
            trials = [d[0]] + [round(c[i - 1] * d[i] / d[i - 1]) if d[i - 1] else 0 for i in range(1, len(c))]
        conditional = [min(1.0, ci / t) if t else None for ci, t in zip(c, trials)]
        conditional_ci = [list(wilson_interval(min(ci, t), t)) if t else None for ci, t in zip(c, trials)]
        mle = alpha_mle(sum(c), n - c[-1])
        independence = independence_test(n, c, trials if d is not None else None)
    elif trace.meanLength is None:
        missing.append("no per-position counts: no curve, no alphaMle, no test of one constant rate")
    rate_ci = (list(wilson_interval(trace.accepted, trace.draftTokens))
               if trace.draftTokens and trace.accepted is not None and trace.exact else None)
    alpha = alpha_iid(mean_accepted, k)
    if trace.callsBound:
        bounds = [f"verifier calls: at least {count_text(trace.drafts)}",
                  f"mean acceptance length: at most {tau:.2f}",
                  f"alphaIid: at most {alpha:.3f}",
                  "speedup: at most the figure shown"]
    return {
        "format": trace.format,
        "formatName": FORMAT_NAMES[trace.format],
        "model": trace.model,
        "lookahead": k,
        "drafts": trace.drafts,
        "draftTokens": trace.draftTokens,
        "acceptedTokens": trace.accepted,
        "meanAcceptanceLength": tau,
        "acceptanceRate": rate,
        "acceptanceRateInterval": rate_ci,
        "perPosition": per_position,
        "perPositionIntervals": unconditional_ci,
        "conditional": conditional,
        "conditionalIntervals": conditional_ci,
        "alphaIid": alpha,
        "alphaMle": mle,
        "independence": independence,
        "exactCounts": trace.exact,
        "callsBound": trace.callsBound,
        "bounds": bounds,
        "notes": list(trace.notes),
        "missing": missing,
    }


def measured_curve(analysis: dict) -> list[float]:
    """The conditional curve the ledger's measured-curve mode takes: ``conditional`` where it
    exists (a position nobody reached repeats the rate before it), else one alphaIid per position."""
    if analysis["conditional"] is None:
        return [analysis["alphaIid"]] * analysis["lookahead"]
    curve = []
    for rate in analysis["conditional"]:
        curve.append(rate if rate is not None else (curve[-1] if curve else 0.0))
    return curve


# --- the translator ----------------------------------------------------------------------------

def translate(lookahead: int, alpha=None, acceptance_rate=None, mean_acceptance_length=None) -> dict:
    """Any one of alpha, the engines' acceptance rate (accepted / drafted tokens) or the mean
    acceptance length gives the other two at lookahead ``k``, under the independent model:
    ``E = sum_{i=1..k} alpha^i``, ``rate = E / k``, ``tau = 1 + E``.

    The conversions assume full-length chain drafts: every call proposes k tokens in a chain.
    n-gram and suffix drafting propose fewer when nothing matches (the rate is then over fewer
    drafted tokens and rate = E / k no longer holds), dynamic or adaptive lookahead and
    llama.cpp's early stop change k call by call, and trees (topk > 1) verify several candidates
    per position, so none of them converts this way: read their counts. SGLang's ``accept rate``
    is ``tau / (k + 1)`` in older versions and ``(tau - 1) / k`` (this ``acceptanceRate``) in
    newer ones (``sglangAcceptRateOld`` is the older).

    >>> t = translate(5, alpha=0.74)
    >>> round(t["acceptanceRate"], 4), round(t["meanAcceptanceLength"], 4)
    (0.4429, 3.2146)
    """
    lookahead = _check_lookahead(lookahead)
    if lookahead is None:
        raise TraceError("the lookahead is required")
    given = [(name, value) for name, value in (("alpha", alpha), ("acceptanceRate", acceptance_rate),
                                                ("meanAcceptanceLength", mean_acceptance_length)) if value is not None]
    if len(given) != 1:
        raise TraceError("give exactly one of alpha, acceptance rate, mean acceptance length")
    name, value = given[0]
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        raise TraceError(f"{name} must be a finite number, got {value!r}")
    if name == "alpha":
        if not 0 <= value <= 1:
            raise TraceError(f"alpha must be from 0 to 1, got {value}")
        mean_accepted = expected_accepted_iid(value, lookahead)
        alpha_value = float(value)
    elif name == "acceptanceRate":
        if not 0 <= value <= 1:
            raise TraceError(f"the acceptance rate must be from 0 to 1, got {value}")
        mean_accepted = value * lookahead
        alpha_value = alpha_iid(mean_accepted, lookahead)
    else:
        if not 1 <= value <= lookahead + 1:
            raise TraceError(f"the mean acceptance length must be from 1 to k + 1 = {lookahead + 1}, got {value}")
        mean_accepted = value - 1
        alpha_value = alpha_iid(mean_accepted, lookahead)
    return {"lookahead": lookahead, "given": name, "alpha": alpha_value, "acceptanceRate": mean_accepted / lookahead,
            "meanAcceptanceLength": 1 + mean_accepted, "sglangAcceptLen": 1 + mean_accepted,
            "sglangAcceptRateOld": (1 + mean_accepted) / (lookahead + 1),
            "llamacppDraftAcceptanceRate": mean_accepted / lookahead}


# --- the exposition writer (for the round-trip check and tests) ----------------------------------

def render_exposition(drafts: int, draft_tokens: int, accepted: int, per_position,
                      label_sets=((("engine", "0"),),)) -> str:
    """Prometheus text exposition of the four vLLM counters, split over ``label_sets`` (a sequence
    of label-pair tuples); with several, each count is split as evenly as integers allow, and the
    parser must sum them back. Written the way prometheus_client writes counters: ``# HELP`` and
    ``# TYPE`` lines, ``_total`` samples and ``_created`` timestamps.

    >>> parse(render_exposition(10, 30, 12, (7, 4, 1))).perPosition
    (7, 4, 1)
    """
    sets = [tuple(pairs) for pairs in label_sets] or [()]

    def split(total: int) -> list[int]:
        share, extra = divmod(total, len(sets))
        return [share + (1 if i < extra else 0) for i in range(len(sets))]

    def labels(pairs) -> str:
        body = ",".join(f'{key}="{value}"' for key, value in pairs)
        return "{" + body + "}" if body else ""

    lines = []
    for metric, total, documentation in (("vllm:spec_decode_num_drafts", drafts, "Number of spec decoding drafts."),
                                         ("vllm:spec_decode_num_draft_tokens", draft_tokens, "Number of draft tokens."),
                                         ("vllm:spec_decode_num_accepted_tokens", accepted, "Number of accepted tokens.")):
        lines += [f"# HELP {metric}_total {documentation}", f"# TYPE {metric}_total counter"]
        for pairs, value in zip(sets, split(total)):
            lines.append(f"{metric}_total{labels(pairs)} {float(value)}")
            lines.append(f"{metric}_created{labels(pairs)} 1.7567367987e+09")
    metric = "vllm:spec_decode_num_accepted_tokens_per_pos"
    lines += [f"# HELP {metric}_total Accepted tokens per draft position.", f"# TYPE {metric}_total counter"]
    for position, total in enumerate(per_position):
        for pairs, value in zip(sets, split(total)):
            lines.append(f"{metric}_total{labels(pairs + (('position', str(position)),))} {float(value)}")
    return "\n".join(lines) + "\n"


# --- presets: public traces, each with where its numbers were read -------------------------------

PRESETS = {
    "club3090-mtp": {
        "title": "Qwen3.6-27B with MTP on vLLM 0.20.1, k = 6 (club-3090 #105)",
        "label": "Qwen3.6-27B, MTP, vLLM",   # the select's option: short enough to show whole on a phone
        "model": "Minachist/Qwen3.6-27B-Mixed-AutoRound, multi-token prediction (MTP) drafts, 2x RTX 3090",
        "method": "MTP", "temperature": "not stated in the lines read",
        "source": "noonghunna/club-3090 issue #105, two consecutive vLLM log lines (05-08 16:25:09 and 16:25:19)",
        "note": ("Two SpecDecoding metrics lines copied verbatim from the thread (the log of one session); the parser "
                 "sums them."),
        "text": ("(APIServer pid=13026) INFO 05-08 16:25:09 [metrics.py:101] SpecDecoding metrics: Mean acceptance "
                 "length: 2.87, Accepted throughput: 48.90 tokens/s, Drafted throughput: 157.19 tokens/s, Accepted: "
                 "489 tokens, Drafted: 1572 tokens, Per-position acceptance rate: 0.740, 0.473, 0.309, 0.187, 0.099, "
                 "0.057, Avg Draft acceptance rate: 31.1%\n"
                 "(APIServer pid=13026) INFO 05-08 16:25:19 [metrics.py:101] SpecDecoding metrics: Mean acceptance "
                 "length: 2.72, Accepted throughput: 45.49 tokens/s, Drafted throughput: 158.98 tokens/s, Accepted: "
                 "455 tokens, Drafted: 1590 tokens, Per-position acceptance rate: 0.728, 0.445, 0.275, 0.151, 0.075, "
                 "0.042, Avg Draft acceptance rate: 28.6%\n"),
        "lookahead": None,
    },
    "vllm-26191-eagle3": {
        "title": "Llama-3.1-8B with EAGLE-3 on vLLM, MT-bench, temperature 0, k = 7 (vllm #26191)",
        "label": "Llama-3.1-8B, EAGLE-3, vLLM",
        "model": "meta-llama/Llama-3.1-8B-Instruct with yuhuili/EAGLE3-LLaMA3.1-Instruct-8B, 80 MT-bench prompts",
        "method": "EAGLE-3", "temperature": "0",
        "source": "vllm-project/vllm issue #26191, the 'Previous AL=3.53' output of examples/offline_inference/spec_decode.py",
        "note": ("Counts copied verbatim from the issue (num_drafts 4816, num_draft_tokens 33712, num_accepted_tokens "
                 "12208). The per-position lines that follow were cut off in the excerpt read, so this preset has "
                 "no curve: it shows what a format without per-position counts can and cannot tell."),
        "text": ("total_num_output_tokens: 16990\nnum_drafts: 4816\nnum_draft_tokens: 33712\n"
                 "num_accepted_tokens: 12208\nmean acceptance length: 3.53\n"),
        "lookahead": None,
    },
    "llamacpp-24536-eagle3": {
        "title": "EAGLE-3 on llama.cpp's server, k = 3 (llama.cpp #24536)",
        "label": "EAGLE-3, llama.cpp server",
        "model": "the EAGLE-3 draft of ggml-org/llama.cpp pull request #24536's test run (one request, 256 tokens)",
        "method": "EAGLE-3", "temperature": "not stated in the lines read",
        "source": "ggml-org/llama.cpp pull request #24536 (merged 2026-06-15), the server's print_timing lines",
        "note": ("Copied verbatim from the pull request (also tests/data/traces/llamacpp_2026.log). The 2026 server "
                 "line prints the mean acceptance length and the per-position rates; the reader rebuilds the calls "
                 "from them, and the drafts averaged just under k = 3 (early stops)."),
        "text": ("0.06.895.998 I slot print_timing: id  1 | task 0 |        eval time =    2296.72 ms /   256 tokens "
                 "(    8.97 ms per token,   111.46 tokens per second)\n"
                 "0.06.896.015 I slot print_timing: id  1 | task 0 | draft acceptance = 0.64479 (  167 accepted /   "
                 "259 generated), mean acceptance length =  2.92, acceptance rate per position = (0.805, 0.632, "
                 "0.483)\n"),
        "lookahead": None,
    },
}
DEFAULT_PRESET = "club3090-mtp"

# Spec-Bench leaderboard, A100 80GB, Vicuna-7B-v1.3, greedy, FP16, batch size 1: mean accepted tokens
# per decoding step (counting the verifier's token, 1.00 for plain decoding) and overall speedup.
# Read from hemingkx/Spec-Bench Leaderboard.md, section "Leaderboard on A100", table "Vicuna-7B-v1.3", at
# commit fd2c1cd ("Leaderboard updated", 2025-04-22, the newest), where the authors re-ran every method (the table
# before it, commit 09244ff3, gave EAGLE 3.61 / 2.29x, Hydra 3.24 / 2.09x, Medusa 2.32 / 1.78x, PLD 1.73 / 1.59x,
# SpS 2.28 / 1.49x, REST 1.82 / 1.48x, Lookahead 1.66 / 1.27x). The same seven methods as before.
SPEC_BENCH = (
    ("EAGLE", 3.58, 2.10), ("Hydra", 3.26, 2.07), ("Medusa", 2.31, 1.71), ("PLD", 1.75, 1.66),
    ("SpS", 2.28, 1.52), ("REST", 1.82, 1.48), ("Lookahead", 1.64, 1.34),
)
SPEC_BENCH_SOURCE = ("hemingkx/Spec-Bench, Leaderboard.md at commit fd2c1cd (re-run of 22 April 2025), Leaderboard "
                     "on A100, Vicuna-7B-v1.3 (greedy, FP16, batch size 1)")


def preset_trace(name: str) -> Trace:
    """The parsed trace of a preset (:data:`PRESETS`)."""
    preset = PRESETS[name]
    return parse(preset["text"], "auto", preset["lookahead"])


def ledger_curve(value: str) -> tuple[list[float], str, bool]:
    """The ledger's ``trcCurve`` value as (conditional curve, label, linkable): a preset name
    (linkable), or ``custom:a1,a2,...`` from the reader's own data (not linkable: the address
    should not pretend it can reproduce a trace it does not carry).

    >>> ledger_curve("custom:0.9,0.5")
    ([0.9, 0.5], 'your own trace', False)
    """
    if value in PRESETS:
        return measured_curve(analyse(preset_trace(value))), PRESETS[value]["title"], True
    if isinstance(value, str) and value.startswith("custom:"):
        parts = value[len("custom:"):].split(",")
        if not 1 <= len(parts) <= MAX_LOOKAHEAD:
            raise TraceError(f"a curve has 1 to {MAX_LOOKAHEAD} rates, got {len(parts)}")
        return [_rate(part, "rate", "curve") for part in parts], "your own trace", False
    raise TraceError(f"{_short(str(value), 40)!r} is not a preset (valid: {', '.join(PRESETS)}) or a custom: curve")
