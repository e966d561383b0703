"""Statistical convergence, in the style of vLLM's rejection-sampler test.

Two samplers, each with fixed seeds up to 10**6 draws: lab's own ``lab.sampler.sample_outputs``
(the code the page runs), and an independent numpy-vectorised re-implementation of the rule
(draft x ~ q, u ~ U(0, 1), keep x iff u < min(1, p/q), else draw from norm(max(0, p - q))).
Their empirical total-variation distance to the target shrinks as N grows from 10**2 to
10**6 and passes Pearson's chi-square test, while the buggy sampler (redraw from q after a
rejection) stays at its exact bias, lab's wrongTv. The seeds are fixed, so the numbers are
the same on every run (no flakiness); the thresholds leave wide margins over the observed values.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from lab import audit, exact, sampler

SIZES = (10**2, 10**3, 10**4, 10**5, 10**6)
SETTINGS = [(64, 72), (20, 40), (80, 0), (0, 60), (60, 20)]


def lab_pair(certainty, match):
    p, q = sampler.reference_pair(certainty, match)
    p = np.array([float(x) for x in p.probs])
    q = np.array([float(x) for x in q.probs])
    return p / p.sum(), q / q.sum()


def _draw(rng, dist, n):
    cdf = np.cumsum(dist)
    cdf[-1] = np.inf
    return np.searchsorted(cdf, rng.random(n), side="right")


def run_sampler(p, q, n, seed, buggy=False) -> np.ndarray:
    """n one-token outputs of the speculative sampler (or the bug), vectorised."""
    rng = np.random.default_rng(seed)
    drafts = _draw(rng, q, n)
    u = rng.random(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        keep_prob = np.where(q > 0, np.minimum(1.0, p / np.where(q > 0, q, 1.0)), 0.0)
    accepted = u < keep_prob[drafts]
    excess = np.maximum(p - q, 0.0)
    if buggy:
        replacement = q
    elif excess.sum() > 0:
        replacement = excess / excess.sum()
    else:
        replacement = p  # p == q: nothing is ever rejected
    redraws = _draw(rng, replacement, n)
    return np.where(accepted, drafts, redraws)


def empirical_tv(samples: np.ndarray, p: np.ndarray) -> float:
    counts = np.bincount(samples, minlength=len(p))
    return float(np.abs(counts / len(samples) - p).sum() / 2)


@pytest.mark.parametrize("index, setting", list(enumerate(SETTINGS)))
def test_speculative_sampler_converges_to_the_target(index, setting):
    p, q = lab_pair(*setting)
    samples = run_sampler(p, q, SIZES[-1], seed=1000 + index)
    # prefixes of one seeded run: the empirical distribution of the first N outputs
    tvs = {n: empirical_tv(samples[:n], p) for n in SIZES}
    assert tvs[10**6] < tvs[10**4] < tvs[10**2], tvs
    assert tvs[10**5] < tvs[10**3], tvs
    assert tvs[10**6] < 0.005, tvs
    # and the error is of sampling-noise size: about sqrt(k / N)
    for n in SIZES:
        assert tvs[n] < 2 * (len(p) / n) ** 0.5, (n, tvs)


@pytest.mark.parametrize("index, setting", list(enumerate(SETTINGS)))
def test_buggy_sampler_stays_at_its_exact_bias(index, setting):
    p, q = lab_pair(*setting)
    certainty, match = setting
    bias = exact.evaluate(certainty=certainty, match=match, length=8)["contract"]["wrongTv"]
    assert bias > 0.01  # a real bias, not noise
    samples = run_sampler(p, q, SIZES[-1], seed=2000 + index, buggy=True)
    for n in (10**5, 10**6):
        assert abs(empirical_tv(samples[:n], p) - bias) < 0.01, (n, empirical_tv(samples[:n], p), bias)
    # while the correct sampler on the same seed does not carry it
    correct = run_sampler(p, q, SIZES[-1], seed=2000 + index)
    assert empirical_tv(correct, p) < bias / 5


def test_identical_draft_is_exact_and_bug_free():
    p, q = lab_pair(40, 100)
    assert np.array_equal(p, q)
    for buggy in (False, True):
        samples = run_sampler(p, q, 10**5, seed=7, buggy=buggy)
        assert empirical_tv(samples, p) < 0.01


def test_lab_sample_outputs_agree_with_numpy_sampler():
    """lab's own seeded histograms (2000 draws each, from evaluate) are consistent with the numpy runs."""
    result = exact.evaluate(certainty=64, match=72, length=8, seed=23)
    samples = result["samples"]
    bound = 3 * (8 / samples["count"]) ** 0.5
    assert samples["specEmpiricalTv"] < bound
    assert samples["targetEmpiricalTv"] < bound
    assert abs(samples["wrongEmpiricalTv"] - result["contract"]["wrongTv"]) < bound
    for key in ("specCounts", "targetCounts", "wrongCounts"):
        assert sum(samples[key]) == samples["count"]


# --- lab's own sampler ----------------------------------------------------------------------------

def lab_prefix_counts(p, q, seed, method):
    """Cumulative histograms of lab.sampler.sample_outputs after 10**2, ..., 10**6 draws of one stream."""
    rng = random.Random(seed)
    total, done, out = [0] * len(p), 0, {}
    for n in SIZES:
        chunk = sampler.sample_outputs(p, q, n - done, rng, method)
        total = [a + b for a, b in zip(total, chunk)]
        done = n
        out[n] = list(total)
    return out


@pytest.mark.parametrize("index, setting", list(enumerate(SETTINGS)))
def test_lab_sampler_converges_to_the_target(index, setting):
    p, q = sampler.reference_pair(*setting)
    counts = lab_prefix_counts(p, q, 3000 + index, "speculative")
    tvs = {n: sampler.empirical_tv(c, p) for n, c in counts.items()}
    assert tvs[10**6] < tvs[10**4] < tvs[10**2], tvs
    assert tvs[10**6] < 0.005, tvs
    for n in SIZES:
        assert tvs[n] < 2 * (len(p) / n) ** 0.5, (n, tvs)
    statistic, dof, impossible = audit.chi_square_cells(counts[10**6], p.probs)
    assert impossible == 0 and audit.chi_square_survival(statistic, dof) > 1e-6, (statistic, dof)


@pytest.mark.parametrize("index, setting", list(enumerate(SETTINGS)))
def test_lab_buggy_sampler_stays_at_its_exact_bias(index, setting):
    p, q = sampler.reference_pair(*setting)
    counts = lab_prefix_counts(p, q, 4000 + index, "buggy")[10**6]
    bias = float(sampler.total_variation(p, sampler.buggy_output_distribution(p, q)))
    assert abs(sampler.empirical_tv(counts, p) - bias) < 0.005
    # it fits its own biased law and fails the test against p
    statistic, dof, _ = audit.chi_square_cells(counts, sampler.buggy_output_distribution(p, q))
    assert audit.chi_square_survival(statistic, dof) > 1e-6
    statistic, dof, _ = audit.chi_square_cells(counts, p.probs)
    assert audit.chi_square_survival(statistic, dof) < 1e-12


@pytest.mark.parametrize("x, dof, tail", [
    (3.841458820694124, 1, 0.05), (14.067140449340169, 7, 0.05), (18.307038053275146, 10, 0.05),
    (15.08627246938899, 5, 0.01), (124.34211340400407, 100, 0.05), (16.26623619623813, 3, 0.001),
])
def test_chi_square_survival_matches_the_tables(x, dof, tail):
    # upper quantiles of the chi-square law (standard tables)
    assert audit.chi_square_survival(x, dof) == pytest.approx(tail, rel=1e-9)


def test_chi_square_survival_against_numpy_draws():
    rng = np.random.default_rng(12)
    for dof in (1, 4, 7, 50, 251):
        draws = rng.chisquare(dof, 200_000)
        for x in np.quantile(draws, [0.5, 0.9, 0.99]):
            assert audit.chi_square_survival(float(x), dof) == pytest.approx(np.mean(draws >= x), abs=2e-3)
