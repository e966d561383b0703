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

from .errors import LabValueError

__all__ = ["to_fixed", "to_js_string"]


def to_fixed(x: float, digits: int) -> str:
    """Format ``x`` with ``digits`` decimals as JavaScript's ``x.toFixed(digits)`` does.

    Non-finite values give ``'NaN'``, ``'Infinity'`` and ``'-Infinity'``; values with
    ``abs(x) >= 1e21`` fall back to the shortest round-trip form, as JavaScript does.
    Negative zero prints without a sign (JavaScript tests ``x < 0``, which -0 fails).
    """
    if not 0 <= digits <= 100:
        raise LabValueError(f"digits must be an integer from 0 to 100, got {digits!r}")
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
    """JavaScript's ``String(number)`` (ECMAScript Number::toString with radix 10) for any float.

    Let ``s`` be the shortest digit string that round-trips (``k`` digits; the same digits in
    both languages, which Python's ``repr`` gives) and ``n`` the decimal exponent with
    ``value = 0.s * 10**n``. Then: integers up to 21 digits print plainly (``k <= n <= 21``),
    other values with ``-6 < n <= 21`` in positional notation, and the rest in exponent form
    ``d[.ddd]e+x`` / ``e-x``. So ``74`` not ``74.0``, ``0.00001`` not ``1e-05``, ``1e+25``
    not ``1e25``. NaN, the infinities and -0 print as ``NaN``, ``Infinity``, ``-Infinity``, ``0``.

    >>> [to_js_string(v) for v in (74, 12.5, 1e-05, 1e-07, 1e21, 1e25, 1e20, -0.0, 2**70)]
    ['74', '12.5', '0.00001', '1e-7', '1e+21', '1e+25', '100000000000000000000', '0', '1.1805916207174113e+21']
    """
    x = float(value)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    mantissa, _, exponent = repr(abs(x)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    combined = whole + fraction
    leading = len(combined) - len(combined.lstrip("0"))
    digits = combined[leading:].rstrip("0")
    n = len(whole) + int(exponent or 0) - leading
    k = len(digits)
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * -n + digits
    else:
        e = n - 1
        text = (digits if k == 1 else digits[0] + "." + digits[1:]) + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + text
