"""The reader's text for the acceptance model (:mod:`lab.acceptance`, which re-exports every name here): rates and
lengths as the CLI and the page take them, and the measured-curve token's text (``custom:r1,...,rn@m``). Pure parsing,
no model: one clear message for bad input.

>>> parse_rates("0.9, 0.7"), token_rates("custom:0.9,0.5@1")
([0.9, 0.7], [0.9, 0.5])
"""

import math

from .errors import LabValueError

__all__ = ["MAX_POSITIONS", "MEASURED_MARK", "parse_rates", "parse_lengths", "split_measured", "token_measured_at",
           "token_rates"]

MAX_POSITIONS = 64
MEASURED_MARK = "@"    # custom:r1,...,rn@m: the rates past position m were filled in by the model


def split_measured(body: str) -> tuple[str, int | None]:
    """A ``custom:`` token's body split at :data:`MEASURED_MARK`: the rates' text and how many of its
    positions were measured (None: all of them). One clear message for a bad mark.

    >>> split_measured("0.9,0.5,0.4@2"), split_measured("0.9,0.5")
    (('0.9,0.5,0.4', 2), ('0.9,0.5', None))
    >>> split_measured("0.9,0.5@3")
    Traceback (most recent call last):
    ...
    lab.errors.LabValueError: a curve's measured positions (after @) must be a whole number from 1 to 2 (its rates), got '3'
    """
    text, mark, after = str(body).partition(MEASURED_MARK)
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


def token_rates(token: str) -> list[float]:
    """The conditional rates a ``custom:`` measured-curve token carries (its measured mark set aside).

    >>> token_rates("custom:0.9000,0.5000,0.4000@2")
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
