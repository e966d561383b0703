"""lab.jsformat.to_fixed against JavaScript's Number.prototype.toFixed.

Three layers: hand-picked cases whose JavaScript output is known (exact binary ties,
negatives, -0, the 1e21 fallback, non-finite values); a hypothesis property against an
independent decimal.Decimal reference (ROUND_HALF_UP on the float's exact value is
ECMAScript's "pick the larger n" rule); and a batch of random values checked against real
Node.js in one process.
"""

from __future__ import annotations

import decimal
import json
import math
import random
import shutil
import struct
import subprocess

import pytest
from hypothesis import given, settings, strategies as st

from lab.jsformat import to_fixed, to_js_string


# --- known JavaScript outputs -----------------------------------------------------------------

@pytest.mark.parametrize("value, digits, expected", [
    # exact binary ties go away from zero (Python's format rounds them to even)
    (0.0078125, 6, "0.007813"),
    (2.5, 0, "3"),
    (0.5, 0, "1"),
    (1.5, 0, "2"),
    (0.125, 2, "0.13"),
    (0.375, 2, "0.38"),
    (-0.0078125, 6, "-0.007813"),
    (-2.5, 0, "-3"),
    (-0.125, 2, "-0.13"),
    # not ties: the float is below the decimal midpoint
    (1.005, 2, "1.00"),
    (1.45, 1, "1.4"),
    (0.615, 2, "0.61"),
    # ordinary values, padding and integers
    (123.456, 1, "123.5"),
    (0, 2, "0.00"),
    (7, 0, "7"),
    (0.000001, 3, "0.000"),
    (1e-7, 10, "0.0000001000"),
    (42, 3, "42.000"),
    (1e20, 2, "100000000000000000000.00"),
    (123456789.123456789, 4, "123456789.1235"),
    # negative zero prints unsigned; a negative value that rounds to zero keeps its sign
    (-0.0, 0, "0"),
    (-0.0, 3, "0.000"),
    (-0.0001, 2, "-0.00"),
    (-1e-10, 0, "-0"),
    # abs(x) >= 1e21: JavaScript falls back to ToString
    (1e21, 2, "1e+21"),
    (-1e21, 2, "-1e+21"),
    (1.5e300, 0, "1.5e+300"),
    (1.2345678901234568e21, 5, "1.2345678901234568e+21"),
    # non-finite
    (math.nan, 2, "NaN"),
    (math.inf, 2, "Infinity"),
    (-math.inf, 0, "-Infinity"),
])
def test_known_javascript_outputs(value, digits, expected):
    assert to_fixed(value, digits) == expected


def test_tie_differs_from_python_format():
    # The whole reason the module exists: Python rounds this tie to even.
    assert format(0.0078125, ".6f") == "0.007812"
    assert to_fixed(0.0078125, 6) == "0.007813"
    assert format(2.5, ".0f") == "2"
    assert to_fixed(2.5, 0) == "3"


@pytest.mark.parametrize("digits", [-1, 101])
def test_digits_out_of_range_raise_like_javascript(digits):
    # JavaScript throws a RangeError for fractionDigits outside 0..100.
    with pytest.raises(ValueError):
        to_fixed(1.0, digits)


def test_digits_up_to_100():
    text = to_fixed(0.1, 100)
    assert len(text.split(".")[1]) == 100
    # 0.1 is not exactly 1/10: its exact binary value shows up in the digits
    assert text.startswith("0.1000000000000000055511151231257827")


# --- an independent reference -----------------------------------------------------------------

def reference_to_fixed(x: float, digits: int) -> str:
    """toFixed for finite |x| < 1e21 via decimal: exact value, ROUND_HALF_UP (ties away from 0)."""
    context = decimal.Context(prec=200, rounding=decimal.ROUND_HALF_UP)
    exact = decimal.Decimal(x)  # the float's exact binary value, no rounding
    quantum = decimal.Decimal(1).scaleb(-digits)
    rounded = exact.quantize(quantum, rounding=decimal.ROUND_HALF_UP, context=context)
    text = format(rounded, "f")
    if x == 0:  # -0.0 prints without a sign in JavaScript (it tests x < 0)
        text = text.lstrip("-")
    return text


finite_small = st.floats(min_value=-1e21, max_value=1e21, allow_nan=False, allow_infinity=False).filter(
    lambda v: abs(v) < 1e21)


def _dyadic_ties():
    """Values that are exact binary ties at some digit count: k / 2**j with small j."""
    return st.builds(lambda k, j, sign: sign * k / 2 ** j,
                     st.integers(0, 10**6), st.integers(1, 12), st.sampled_from([1, -1]))


@settings(max_examples=1500, deadline=None)
@given(x=st.one_of(finite_small, _dyadic_ties(), st.floats(-10, 10)), digits=st.integers(0, 20))
def test_matches_decimal_reference(x, digits):
    assert to_fixed(x, digits) == reference_to_fixed(x, digits)


@settings(max_examples=500, deadline=None)
@given(k=st.integers(0, 2**52 - 1), odd=st.integers(0, 2**20), j=st.integers(1, 20), negative=st.booleans())
def test_ties_round_away_from_zero(k, odd, j, negative):
    sign = "-" if negative else ""
    # a half-integer is an exact tie at 0 decimals
    half = k + 0.5
    assert to_fixed(-half if negative else half, 0) == sign + str(k + 1)
    # (2 odd + 1) / 2**j has exactly j decimals, the last one a 5: a tie at j - 1 decimals
    numerator = (2 * odd + 1) % 2**j
    if numerator % 2 == 0:
        numerator += 1
    tie = numerator / 2**j  # exact: numerator < 2**j <= 2**20
    scaled = numerator * 5**j  # tie * 10**j, an integer ending in 5
    assert scaled % 10 == 5
    rounded = (scaled + 5) // 10  # away from zero at j - 1 decimals
    text = str(rounded).rjust(j, "0")
    expected = text if j == 1 else text[:-(j - 1)] + "." + text[-(j - 1):]
    assert to_fixed(-tie if negative else tie, j - 1) == sign + expected
    # and at j decimals it is exact, no rounding at all
    exact = str(scaled).rjust(j + 1, "0")
    assert to_fixed(tie, j) == exact[:-j] + "." + exact[-j:]


# --- real JavaScript ------------------------------------------------------------------------

NODE_SCRIPT = r"""
const chunks = [];
process.stdin.on("data", (c) => chunks.push(c));
process.stdin.on("end", () => {
  const cases = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const out = cases.map(([bits, digits]) => {
    const buf = Buffer.from(bits, "hex");
    return buf.readDoubleBE(0).toFixed(digits);
  });
  process.stdout.write(JSON.stringify(out));
});
"""


def _random_cases(count: int, seed: int = 20261129):
    rng = random.Random(seed)
    cases = []
    for i in range(count):
        kind = i % 5
        if kind == 0:  # exact binary ties
            value = rng.randrange(0, 10**6) / 2 ** rng.randrange(1, 15)
        elif kind == 1:  # uniform in a moderate range
            value = rng.uniform(-1000, 1000)
        elif kind == 2:  # across magnitudes, up to past 1e21
            value = rng.uniform(1, 10) * 10.0 ** rng.randrange(-12, 24)
        elif kind == 3:  # random bit patterns (finite only)
            while True:
                value = struct.unpack(">d", rng.getrandbits(64).to_bytes(8, "big"))[0]
                if math.isfinite(value):
                    break
        else:  # decimal-looking values that sit near a decimal midpoint
            value = round(rng.uniform(-100, 100), rng.randrange(1, 8)) + 5 * 10.0 ** -rng.randrange(2, 9)
        if rng.random() < 0.5:
            value = -value
        cases.append((value, rng.randrange(0, 21)))
    cases += [(0.0078125, 6), (2.5, 0), (0.125, 2), (-0.0, 3), (1e21, 2), (-1e21, 0), (-0.0001, 2),
              (math.nan, 2), (math.inf, 1), (-math.inf, 0), (5e-324, 20), (1.7976931348623157e308, 3)]
    return cases


def test_matches_node_on_random_values():
    node = shutil.which("node")
    assert node is not None, (
        "node is not on PATH: Node.js is a project requirement (it checks to_fixed against real "
        "JavaScript and runs the Pyodide tests); install it to run this test")
    cases = _random_cases(2000)
    payload = json.dumps([[struct.pack(">d", v).hex(), d] for v, d in cases])
    proc = subprocess.run([node, "-e", NODE_SCRIPT], input=payload, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    expected = json.loads(proc.stdout)
    assert len(expected) == len(cases)
    mismatches = [(v, d, to_fixed(v, d), js) for (v, d), js in zip(cases, expected) if to_fixed(v, d) != js]
    assert not mismatches, f"{len(mismatches)} mismatches with JavaScript, first: {mismatches[:5]}"


# --- String(number) -----------------------------------------------------------------------------

NODE_STRING_SCRIPT = r"""
const chunks = [];
process.stdin.on("data", (c) => chunks.push(c));
process.stdin.on("end", () => {
  const cases = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  process.stdout.write(JSON.stringify(cases.map((bits) => String(Buffer.from(bits, "hex").readDoubleBE(0)))));
});
"""


@pytest.mark.parametrize("value, expected", [
    (74, "74"), (74.0, "74"), (12.5, "12.5"), (-0.0, "0"), (0.1, "0.1"),
    (1e-05, "0.00001"), (1e-06, "0.000001"), (1e-07, "1e-7"), (1.5e-07, "1.5e-7"), (0.000001234, "0.000001234"),
    (1e20, "100000000000000000000"), (1e21, "1e+21"), (-1e21, "-1e+21"), (1e25, "1e+25"),
    (2.0**70, "1.1805916207174113e+21"), (5e-324, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"),
    (math.nan, "NaN"), (math.inf, "Infinity"), (-math.inf, "-Infinity"),
])
def test_to_js_string_known_outputs(value, expected):
    # these are Node 20's String(value); the first four are what the sliders show
    assert to_js_string(value) == expected


def test_to_js_string_matches_node():
    node = shutil.which("node")
    assert node is not None, "node is not on PATH: Node.js is a project requirement"
    rng = random.Random(1296)
    values = [v for v, _ in _random_cases(1500)]
    values += [rng.uniform(1, 10) * 10.0 ** e for e in range(-12, 26) for _ in range(5)]
    values += [float(10**e) for e in range(-10, 26)] + [10.0 ** -e for e in range(0, 12)]
    payload = json.dumps([struct.pack(">d", v).hex() for v in values])
    proc = subprocess.run([node, "-e", NODE_STRING_SCRIPT], input=payload, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    expected = json.loads(proc.stdout)
    mismatches = [(v, to_js_string(v), js) for v, js in zip(values, expected) if to_js_string(v) != js]
    assert not mismatches, f"{len(mismatches)} mismatches with String(number), first: {mismatches[:5]}"
