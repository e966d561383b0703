"""bench/stats.py: the order statistics behind `make bench` (no timing here, only arithmetic)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.stats import iqr, median, percentile, spread


def test_median_odd_and_even():
    assert median([3, 1, 2]) == 2
    assert median([4, 1, 3, 2]) == 2.5
    assert median([7]) == 7


def test_percentile_interpolates_between_ranks():
    data = [10, 20, 30, 40, 50]
    assert percentile(data, 0) == 10
    assert percentile(data, 100) == 50
    assert percentile(data, 25) == 20
    assert percentile(data, 95) == pytest.approx(48)
    assert percentile([1, 2], 50) == 1.5


def test_order_of_input_does_not_matter():
    assert percentile([5, 1, 4, 2, 3], 75) == percentile([1, 2, 3, 4, 5], 75) == 4


@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=50), st.floats(0, 100))
def test_matches_numpy_linear(values, q):
    assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)), rel=1e-9, abs=1e-6)


def test_the_bench_percentile_interpolates_where_the_labs_takes_the_nearest_rank():
    """Two definitions, not one formula typed twice: lab.stats.percentile (nearest rank, fraction 0..1) is a
    value of the list; the bench's (q 0..100) interpolates between the two values around the rank."""
    from lab import stats

    data = [1, 2, 3, 4]
    assert stats.percentile(data, 0.5) == 2 and percentile(data, 50) == 2.5
    assert stats.percentile(data, 0.9) == 4 and percentile(data, 90) == pytest.approx(3.7)
    assert stats.median(data) == median(data) == 2.5  # the median is the same number in both


def test_iqr_and_spread():
    data = list(range(1, 10))  # 1..9
    assert iqr(data) == 4
    s = spread(data)
    assert s == {"n": 9, "min": 1, "p25": 3, "median": 5, "p75": 7, "max": 9, "iqr": 4}
    assert spread([1.23456, 2.34567], digits=3)["median"] == 1.79


@pytest.mark.parametrize("bad", [[], [1.0, math.nan]])
def test_rejects_empty_and_nan(bad):
    with pytest.raises(ValueError):
        median(bad)


@pytest.mark.parametrize("q", [-1, 100.5])
def test_rejects_out_of_range_q(q):
    with pytest.raises(ValueError):
        percentile([1, 2, 3], q)


def test_final_render_summary_times_the_last_render_of_a_step():
    """A step's final time is what the page reported as final, not the widget's own first render:
    the exact sampler's key press renders it (quick) and the serving widget's tail (slow)."""
    from bench.run import final_render_summary

    def step(first, final, widgets, python=None):
        return {"name": "x", "value": "1", "dispatchedAt": 0, "renders": len(widgets), "widgets": widgets,
                "firstMs": first, "finalMs": final, "pythonMs": python}

    plain = {"exact": {"steps": [step(12, 120, ["exact", "serving"], 90) for _ in range(19)]
                                + [step(14, 200, ["exact", "serving"], 170)]},
             "ledger": {"steps": [step(10, 10, ["ledger"]) for _ in range(20)]}}
    slow = {"exact": {"steps": [step(30, 150, ["exact", "serving"]) for _ in range(20)]},
            "ledger": {"steps": [step(25, 25, ["ledger"]) for _ in range(20)]}}
    out = final_render_summary({"finalRenders": plain, "finalRendersThrottled": slow})
    exact = out["finalRenderByWidget"]["exact"]
    assert exact["p50Ms"] == 120 and exact["p95Ms"] == pytest.approx(124, abs=0.01)
    assert exact["firstRenderP95Ms"] == pytest.approx(12.1, abs=0.01)
    assert exact["rendersPerStep"] == 2 and exact["widgetsRendered"] == ["exact", "serving"]
    assert exact["pythonP95Ms"] == pytest.approx(94, abs=0.01)  # the worker's Python, summed over a step's renders
    assert out["finalRenderByWidget"]["ledger"]["pythonP95Ms"] is None  # not reported: no figure made up
    assert out["finalRenderByWidget"]["ledger"]["p95Ms"] == 10 and out["finalRenderSteps"] == 40
    assert out["finalRenderP50Ms"] == pytest.approx(65) and out["finalRenderThrottledP95Ms"] == 150
