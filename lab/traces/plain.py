"""The project's own plain formats: a cycles file (one integer per verifier call) and a single
figure alone.
"""

import re
from collections import Counter

from .common import (
    Format, MAX_DIGITS, Sample, Trace, TraceError, _Accumulator, _NUM, _clean, _number, _rate, shortened,
    _validated, family,
)
from .translator import translate


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
            raise TraceError(f"line {number}: {shortened(stripped, 30)!r} is not an integer count of accepted drafts")
        if len(stripped.lstrip("+-")) > MAX_DIGITS:
            raise TraceError(f"line {number}: a count of {len(stripped)} digits; at most {MAX_DIGITS} are read")
        value = int(stripped)
        if value < 0:
            raise TraceError(f"line {number}: negative count {value}")
        self.histogram[value] = self.histogram.get(value, 0) + 1

    def result(self, lookahead, model=None) -> Trace:
        k = self.need_lookahead(lookahead, "one count per call does not say how many were drafted")
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
            raise TraceError(f"line {number}: a single figure must stand alone; {shortened(stripped)!r} is not one")
        self.values.append((number, match.group(1).lower(), match.group(2), match.group(3)))

    def result(self, lookahead, model=None) -> Trace:
        if len(self.values) != 1:
            raise TraceError(f"{len(self.values)} figures: paste one (a mean acceptance length, an acceptance rate or "
                             f"an alpha) or the engine's full output")
        number, name, text, percent = self.values[0]
        k = self.need_lookahead(lookahead, "one figure does not say how many drafts each call proposed")
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


# --- the registry's rows (lab/traces/formats.py reads them; rank = detection order) ---------------------

# Whose output these formats are, and a substring each of its speculative-decoding lines carries: the
# reader names another engine's lines met inside a trace by them (lab.traces.formats.ENGINE_MARKERS).
ENGINE = None
MARKERS = ()  # formats of no engine (cycles, one number)

FORMATS = family(
    Format("single-number", "one figure alone: a mean acceptance length, an acceptance rate or an alpha (needs k)",
           "a single number", _Single, lambda line, stripped: bool(_SINGLE.match(stripped)), 120, (
               Sample("single_number.txt", 4, None, {"format": "single-number", "lookahead": 4, "meanAcceptanceLength": 2.8},
                      "one figure as people quote it"),)),
    # bare integers are a cycles file only as the first readable line (TraceParser)
    Format("cycles", "one integer per verifier call: drafts accepted (0..k)", "a cycles file", _Cycles,
           lambda line, stripped: bool(re.fullmatch(r"[0-9]+", stripped)), 130, (
               Sample("cycles.txt", 3, None,
                      {"format": "cycles", "lookahead": 3, "drafts": 8, "draftTokens": 24, "accepted": 12,
                       "perPosition": (6, 4, 2)},
                      "this project's plain format (`lab/traces/plain.py`, `_Cycles`)"),)),
)
