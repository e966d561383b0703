"""Order statistics for the benchmark. Percentiles interpolate linearly between closest ranks
(numpy's default "linear" method), so the numbers can be checked against numpy. This is not
``lab.stats.percentile``, the nearest rank (always one of the values, as a count of tokens must be):
of timings the bench wants the interpolated spread, so the two definitions stay two functions."""

from __future__ import annotations

import math
from typing import Iterable


def _sorted_finite(values: Iterable[float]) -> list[float]:
    data = sorted(float(v) for v in values)
    if not data:
        raise ValueError("no values")
    if any(math.isnan(v) for v in data):
        raise ValueError("NaN among the values")
    return data


def percentile(values: Iterable[float], q: float) -> float:
    """The q-th percentile (0 <= q <= 100) with linear interpolation between closest ranks."""
    if not 0 <= q <= 100:
        raise ValueError(f"percentile must be in 0..100, got {q}")
    data = _sorted_finite(values)
    position = (len(data) - 1) * q / 100
    lo = math.floor(position)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (position - lo)


def median(values: Iterable[float]) -> float:
    return percentile(values, 50)


def iqr(values: Iterable[float]) -> float:
    data = _sorted_finite(values)
    return percentile(data, 75) - percentile(data, 25)


def spread(values: Iterable[float], digits: int = 1) -> dict:
    """n, min, p25, median, p75, max and iqr of the values, rounded to `digits` for the report."""
    data = _sorted_finite(values)
    out = {
        "n": len(data),
        "min": data[0],
        "p25": percentile(data, 25),
        "median": percentile(data, 50),
        "p75": percentile(data, 75),
        "max": data[-1],
    }
    out["iqr"] = out["p75"] - out["p25"]
    return {k: (v if k == "n" else round(v, digits)) for k, v in out.items()}
