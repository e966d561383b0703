"""lab.stats: the small statistics helpers against numpy and against independent methods; the
trace reader and the serving model call these same functions (checked by identity below)."""

import math
import random
from fractions import Fraction

import numpy as np
import pytest

from lab import serving, stats, traces


def test_total_variation_is_half_the_l1_distance_and_exact():
    rng = random.Random(1)
    for _ in range(200):
        n = rng.randint(1, 12)
        p = [Fraction(rng.randint(0, 9)) for _ in range(n)]
        q = [Fraction(rng.randint(0, 9)) for _ in range(n)]
        tv = stats.total_variation(p, q)
        assert tv == sum(abs(a - b) for a, b in zip(p, q)) / 2 and isinstance(tv, Fraction)
        assert float(tv) == pytest.approx(0.5 * np.abs(np.array(p, float) - np.array(q, float)).sum())


@pytest.mark.parametrize("dof", range(1, 31))
def test_chi_square_survival_equals_the_incomplete_gamma(dof):
    for x in (0.01, 0.5, 1.0, dof / 2, dof, 2 * dof + 3, 60.0):
        assert stats.chi_square_survival(x, dof) == pytest.approx(stats.regularized_gamma_q(dof / 2, x / 2),
                                                                  rel=1e-9, abs=1e-300)
    assert stats.chi_square_survival(0, dof) == 1.0


def test_chi_square_survival_against_numpy_draws():
    draws = np.random.default_rng(7).chisquare(5, 200_000)
    for x in (1.0, 4.35, 11.07):
        assert stats.chi_square_survival(x, 5) == pytest.approx((draws >= x).mean(), abs=0.004)


def test_the_trace_reader_calls_the_one_function_of_each_formula():
    from lab import ledger
    assert traces.wilson_interval is stats.wilson_interval and traces.chi_square_survival is stats.chi_square_survival
    assert traces.translator.expected_accepted_drafts is ledger.expected_accepted_drafts and traces.Z95 == stats.Z95
    assert not hasattr(traces, "expected_accepted_iid")  # one name for the ledger's sum
    assert not hasattr(traces, "chi_square_sf")  # and for the chi-square tail


def test_wilson_interval_covers():
    low, high = stats.wilson_interval(50, 100)
    z = stats.Z95
    half = z * math.sqrt(0.25 / 100 + z * z / (4 * 100 * 100)) / (1 + z * z / 100)
    assert low < 0.5 < high and high - low == pytest.approx(2 * half, rel=1e-12)


def test_percentile_of_counts_is_the_percentile_of_the_list():
    rng = random.Random(4)
    for _ in range(200):
        values = [rng.choice((0.0, 1.0, 1.09, 1.45, 2.5)) for _ in range(rng.randint(1, 60))]
        counts = {}
        for value in values:
            counts[value] = counts.get(value, 0) + 1
        for fraction in (0, 0.01, 0.05, 0.5, 0.95, 0.99, 1):
            assert stats.percentile_of_counts(counts, fraction) == stats.percentile(values, fraction)
    with pytest.raises(ValueError):
        stats.percentile_of_counts({}, 0.5)


def test_percentile_is_the_nearest_rank_and_is_the_serving_models():
    assert serving.percentile is stats.percentile
    rng = random.Random(3)
    for _ in range(100):
        values = [rng.randint(0, 50) for _ in range(rng.randint(1, 40))]
        for fraction in (0, 0.01, 0.5, 0.9, 0.99, 1):
            got = stats.percentile(values, fraction)
            assert got == serving.percentile(values, fraction)
            if fraction:
                assert got == np.percentile(values, fraction * 100, method="inverted_cdf")
