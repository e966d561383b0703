"""The reader's text for the acceptance model (:mod:`lab.acceptance`, which re-exports every name here): rates and
lengths as the CLI and the page take them, and the measured-curve token's text (``custom:r1,...,rn@m~family``). Pure
parsing, no model: one clear message for bad input.

>>> parse_rates("0.9, 0.7"), token_rates("custom:0.9,0.5@1")
([0.9, 0.7], [0.9, 0.5])
"""

import math

from .errors import LabValueError
from .jsformat import to_fixed

__all__ = ["MAX_POSITIONS", "MEASURED_MARK", "FAMILY_MARK", "FAMILIES", "parse_rates", "parse_lengths", "split_measured",
           "split_family", "token_measured_at", "token_rates", "token_method", "rates_token"]

MAX_POSITIONS = 64
MEASURED_MARK = "@"    # custom:r1,...,rn@m: the rates past position m were filled in by the model
# custom:r1,...,rn[@m]~family: the drafter family (lab.acceptance's prior) that continues the curve past the rates; "~" is
# unreserved in a URL (RFC 3986, section 2.3), so a link carries it unescaped. Absent: the pooled prior, as before.
FAMILY_MARK = "~"
FAMILIES = ("draft", "block", "eagle", "mtp", "ngram", "suffix")   # the method families of lab.acceptance


def split_family(body: str) -> tuple[str, str | None]:
    """A ``custom:`` token's body split at :data:`FAMILY_MARK`: the text before it (rates and measured mark) and the
    drafter family after it (None when there is none). The family comes once, last, and is one of :data:`FAMILIES`;
    anything else is one clear message naming what was found and the valid families.

    >>> split_family("0.9,0.5@1~ngram"), split_family("0.9,0.5")
    (('0.9,0.5@1', 'ngram'), ('0.9,0.5', None))
    >>> split_family("0.9,0.5~ngram~ngram")
    Traceback (most recent call last):
    ...
    lab.errors.LabValueError: a curve's drafter family (after ~) is given once, at the end: one of draft, block, eagle, mtp, ngram, suffix; got 'ngram~ngram'
    """
    text, mark, after = str(body).partition(FAMILY_MARK)
    if not mark:
        return text, None
    if after in FAMILIES:
        return text, after
    valid = ", ".join(FAMILIES)
    if FAMILY_MARK in after or MEASURED_MARK in after:
        raise LabValueError(f"a curve's drafter family (after {FAMILY_MARK}) is given once, at the end: one of {valid}; "
                            f"got {after[:24]!r}")
    raise LabValueError(f"a curve's drafter family (after {FAMILY_MARK}) must be one of {valid}, got {after[:24]!r}")


def split_measured(body: str) -> tuple[str, int | None]:
    """A ``custom:`` token's body split at :data:`MEASURED_MARK`: the rates' text and how many of its
    positions were measured (None: all of them), its drafter family set aside (:func:`split_family`, which
    refuses a bad one). One clear message for a bad mark.

    >>> split_measured("0.9,0.5,0.4@2"), split_measured("0.9,0.5"), split_measured("0.9,0.5@1~mtp")
    (('0.9,0.5,0.4', 2), ('0.9,0.5', None), ('0.9,0.5', 1))
    >>> split_measured("0.9,0.5@3")
    Traceback (most recent call last):
    ...
    lab.errors.LabValueError: a curve's measured positions (after @) must be a whole number from 1 to 2 (its rates), got '3'
    """
    text, mark, after = split_family(body)[0].partition(MEASURED_MARK)
    if not mark:
        return text, None
    count = len(text.split(","))
    after = after.strip()
    if not (after.isascii() and after.isdigit() and 1 <= int(after) <= count):
        raise LabValueError(f"a curve's measured positions (after {MEASURED_MARK}) must be a whole number from 1 "
                            f"to {count} (its rates), got {after[:12]!r}")
    return text, int(after)


def token_measured_at(token: str) -> int | None:
    """How many positions of a measured-curve token were measured: the number after
    :data:`MEASURED_MARK`, else None (every rate it carries; a preset name carries its own).

    >>> token_measured_at("custom:0.9,0.5,0.4@2"), token_measured_at("custom:0.9,0.5"), token_measured_at("club3090-mtp")
    (2, None, None)
    """
    if not (isinstance(token, str) and token.startswith("custom:")):
        return None
    return split_measured(token[len("custom:"):])[1]


def token_method(token: str) -> str | None:
    """The drafter family a measured-curve token names after :data:`FAMILY_MARK` (whose prior continues it past
    the rates it carries), else None (the pooled prior). A preset name carries its own family the same way, as the
    trace reader sends it (``club3090-mtp~mtp``; :func:`lab.traces.ledger_curve` holds it to the preset's own).

    >>> token_method("custom:0.9,0.5,0.4@2~ngram"), token_method("custom:0.9,0.5"), token_method("club3090-mtp")
    ('ngram', None, None)
    >>> token_method("club3090-mtp~mtp")
    'mtp'
    """
    if not isinstance(token, str):
        return None
    return split_family(token[len("custom:"):] if token.startswith("custom:") else token)[1]


def rates_token(rates, method=None) -> str:
    """The token of a curve measured at every position it carries, as the trace reader and the real-text lab send
    theirs: ``custom:`` and the rates to 4 decimals, then ``~method`` when the drafter family is known
    (:data:`FAMILY_MARK`; None: no family, the token as it was before families travelled).

    >>> rates_token([0.8, 0.91234], "ngram"), rates_token([0.8])
    ('custom:0.8000,0.9123~ngram', 'custom:0.8000')
    """
    if method is not None and method not in FAMILIES:
        raise LabValueError(f"a curve's drafter family must be one of {', '.join(FAMILIES)}, got {method!r}")
    return "custom:" + ",".join(to_fixed(r, 4) for r in rates) + ("" if method is None else FAMILY_MARK + method)


def token_rates(token: str) -> list[float]:
    """The conditional rates a ``custom:`` measured-curve token carries (its measured mark and family set aside).

    >>> token_rates("custom:0.9000,0.5000,0.4000@2~eagle")
    [0.9, 0.5, 0.4]
    """
    return parse_rates(split_measured(str(token)[len("custom:"):])[0], "curve")


def parse_rates(text: str, what: str = "--per-position") -> list[float]:
    """``R1,R2,...`` as fractions (a value above 1 is refused, not read as a percentage).

    >>> parse_rates("0.9, 0.7")
    [0.9, 0.7]
    """
    parts = [part.strip() for part in str(text).split(",")]
    if not parts or any(not part for part in parts):
        raise LabValueError(f"{what} takes rates R1,R2,... (fractions from 0 to 1), got {str(text)[:48]!r}")
    rates = []
    for part in parts:
        try:
            value = float(part) if part.isascii() and "_" not in part else float("nan")  # one rule: lab.cli
        except ValueError:
            value = float("nan")
        if not (math.isfinite(value) and 0 <= value <= 1):
            raise LabValueError(f"{what}: {part[:24]!r} is not a fraction from 0 to 1")
        rates.append(value)
    if len(rates) > MAX_POSITIONS:
        raise LabValueError(f"{what} takes 1 to {MAX_POSITIONS} rates, got {len(rates)}")
    return rates


def parse_lengths(text: str, what: str = "--lengths") -> dict:
    """``K:L[,K:L...]``: mean acceptance lengths by lookahead.

    >>> parse_lengths("1:1.79,2:2.27")
    {1: 1.79, 2: 2.27}
    """
    found = {}
    for part in str(text).split(","):
        k_text, sep, l_text = part.strip().partition(":")
        k_text, l_text = k_text.strip(), l_text.strip()
        if not sep or not (k_text.isascii() and k_text.isdigit()) or not l_text.isascii():
            raise LabValueError(f"{what} takes K:L pairs such as 1:1.79,2:2.27, got {part.strip()[:48]!r}")
        k = int(k_text)
        try:
            value = float(l_text) if "_" not in l_text else float("nan")  # 2_5 is no number (lab.cli)
        except ValueError:
            value = float("nan")
        if not 1 <= k <= MAX_POSITIONS:
            raise LabValueError(f"{what}: a lookahead K is an integer from 1 to {MAX_POSITIONS}, got {k_text!r}")
        if not (math.isfinite(value) and 1 <= value <= k + 1):
            raise LabValueError(f"{what}: the length at k = {k} must be from 1 to {k + 1}, got {l_text[:24]!r}")
        if k in found:
            raise LabValueError(f"{what}: k = {k} is given twice")
        found[k] = value
    return found
