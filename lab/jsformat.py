"""Number formatting with JavaScript's ``Number.prototype.toFixed`` semantics.

Every signature the site audit compares is built from these strings, and the page may
format the same numbers in JavaScript, so Python must round exactly as JavaScript does.

ECMAScript (Number.prototype.toFixed, step 10.a): "Let n be an integer for which
n / 10**f - x is as close to zero as possible. If there are two such n, pick the larger n."
So an exact binary tie rounds *up in magnitude* (away from zero), where Python's
``format(x, '.6f')`` rounds half to even:

    to_fixed(0.0078125, 6) == '0.007813'      # format(0.0078125, '.6f') == '0.007812'

Ties are detected on the float's exact rational value (``float.as_integer_ratio``), so no
decimal rounding happens before the tie is decided; everything else is Python's correctly
rounded ``format``.
"""

import math

__all__ = ["to_fixed", "to_js_string"]


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
    numerator, denominator = abs(x).as_integer_ratio()  # exact; the denominator is a power of 2
    doubled = numerator * 10**digits * 2
    if doubled % denominator == 0 and (doubled // denominator) % 2 == 1:
        # An exact tie between two n: JavaScript picks the larger one.
        text = str((doubled // denominator + 1) // 2).rjust(digits + 1, "0")
        if digits:
            text = text[:-digits] + "." + text[-digits:]
    else:
        # Not a tie: format() rounds the exact binary value correctly, as toFixed does.
        text = format(abs(x), f".{digits}f")
    return sign + text


def to_js_string(value) -> str:
    """JavaScript's ``String(number)`` for the numbers sliders and signatures show: an
    integral value without a decimal point (``74``, not ``74.0``), anything else in its
    shortest round-trip form (``12.5``). Both languages print the same shortest digits."""
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)
