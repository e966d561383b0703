"""Number formatting with JavaScript's ``Number.prototype.toFixed`` semantics.

Every signature the site audit compares is built from these strings, and the page may
format the same numbers in JavaScript, so Python must round exactly as JavaScript does.

ECMAScript (Number.prototype.toFixed, step 10.a): "Let n be an integer for which
n / 10**f - x is as close to zero as possible. If there are two such n, pick the larger n."
So an exact binary tie rounds *up in magnitude* (away from zero), where Python's
``format(x, '.6f')`` rounds half to even:

    to_fixed(0.0078125, 6) == '0.007813'      # format(0.0078125, '.6f') == '0.007812'

The float is converted to its exact rational value first, so no decimal rounding
happens before the tie is decided.
"""

from fractions import Fraction
import math

__all__ = ["to_fixed"]


def to_fixed(x: float, digits: int) -> str:
    """Format ``x`` with ``digits`` decimals as JavaScript's ``x.toFixed(digits)`` does.

    Non-finite values give ``'NaN'``, ``'Infinity'`` and ``'-Infinity'``; values with
    ``abs(x) >= 1e21`` fall back to the shortest round-trip form, as JavaScript does.
    Negative zero prints without a sign (JavaScript tests ``x < 0``, which -0 fails).
    """
    if not 0 <= digits <= 100:
        raise ValueError(f"digits must be an integer from 0 to 100, got {digits!r}")
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if abs(x) >= 1e21:
        return repr(x)  # JavaScript's ToString; repr gives the same shortest digits here
    sign = "-" if x < 0 else ""
    scaled = abs(Fraction(x)) * 10**digits
    n = math.floor(scaled)
    if scaled - n >= Fraction(1, 2):  # a tie picks the larger n
        n += 1
    text = str(n).rjust(digits + 1, "0")
    if digits:
        text = text[:-digits] + "." + text[-digits:]
    return sign + text
