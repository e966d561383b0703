"""The exact-lab contract (docs/CONTRACT.md section 2): ``evaluate(certainty, draftCost, gamma, length, match, seed)``.

Everything the part-three widget shows comes from one call. The exact fields are computed
in fractions on the reference pair (``lab.sampler.reference_pair``) and converted to float
only at the end; the trace and the samples are seeded and reproducible in CPython and Pyodide.

``state`` is 0 when every input was valid. Otherwise it is a bit mask naming the inputs that
were clamped, rounded or replaced by their default: certainty 1, draftCost 2, gamma 4,
length 8, match 16, seed 32 (the order of the signature). ``notes`` says what changed.
"""

from fractions import Fraction
from functools import lru_cache
import random

from . import sampler
from .ledger import leviathan_speedup
from .urlstate import EXACT_SLIDERS, clamp_params

__all__ = ["evaluate", "SAMPLE_COUNT", "STATE_BITS", "summary_alpha", "output_distributions"]

SAMPLE_COUNT = 2000  # one-token outputs per sampler in the empirical histograms
STATE_BITS = {"certainty": 1, "draftCost": 2, "gamma": 4, "length": 8, "match": 16, "seed": 32}


@lru_cache(maxsize=256)
def summary_alpha(certainty, match, length: int) -> Fraction:
    """Mean alpha (per-token acceptance) over positions ``0..length-1`` (each position has its
    own p and q).

    The model repeats every ``len(sampler.CONTEXTS)`` positions, so each slot's alpha is
    computed once and weighted by how many of the positions fall in it.

    >>> round(float(summary_alpha(64, 72, 96)), 6)   # the seed setting's summaryAlpha
    0.839579
    >>> summary_alpha(64, 72, 1) == sampler.position_alpha(64, 72, 0), summary_alpha(100, 100, 7)
    (True, Fraction(1, 1))
    """
    period = len(sampler.CONTEXTS)
    total = Fraction(0)
    for slot in range(min(period, length)):
        visits = (length - slot + period - 1) // period
        total += visits * sampler.position_alpha(certainty, match, slot)
    return total / length


@lru_cache(maxsize=64)
def output_distributions(certainty: int, match: int) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    """Exact output distributions (speculative, buggy) of one verifier step on the reference pair.

    >>> exact_output, buggy_output = output_distributions(64, 72)
    >>> p, _ = sampler.reference_pair(64, 72)
    >>> exact_output == p.probs, round(float(sampler.total_variation(p, buggy_output)), 6)   # wrongTv
    (True, 0.095338)
    """
    p, q = sampler.reference_pair(certainty, match)
    return sampler.exact_output_distribution(p, q), sampler.buggy_output_distribution(p, q)


@lru_cache(maxsize=64)
def _contract(certainty: int, match: int) -> dict:
    p, q = sampler.reference_pair(certainty, match)
    exact_output, buggy_output = output_distributions(certainty, match)
    return {
        "alpha": float(sampler.per_token_acceptance(p, q)),
        "draftTv": float(sampler.total_variation(p, q)),
        "exactTv": float(sampler.total_variation(p, exact_output)),
        "wrongTv": float(sampler.total_variation(p, buggy_output)),
    }


@lru_cache(maxsize=64)
def _samples(certainty: int, match: int, seed: int) -> dict:
    p, q = sampler.reference_pair(certainty, match)
    result = {"count": SAMPLE_COUNT}
    for method, key in (("speculative", "spec"), ("target", "target"), ("buggy", "wrong")):
        if method == "target":  # draws from p alone, which the match does not move
            counts, tv = _target_samples(certainty, seed)
        else:
            rng = random.Random(f"{seed}/{method}")  # one stream per sampler, same in CPython and Pyodide
            counts = sampler.sample_outputs(p, q, SAMPLE_COUNT, rng, method)
            tv = sampler.empirical_tv(counts, p)
        result[f"{key}Counts"] = counts
        result[f"{key}EmpiricalTv"] = tv
    return result


@lru_cache(maxsize=64)
def _target_samples(certainty: int, seed: int) -> tuple[list[int], float]:
    """The direct sampler's histogram and its empirical TV: :data:`SAMPLE_COUNT` draws from the
    reference pair's p, whose numbers depend on the certainty alone (:func:`lab.sampler.target_distribution`,
    the same row at every match), so a step of the match slider reuses them.

    >>> p = sampler.reference_pair(64, 72)[0]
    >>> counts = sampler.sample_outputs(p, p, SAMPLE_COUNT, random.Random("23/target"), "target")
    >>> _target_samples(64, 23) == (counts, sampler.empirical_tv(counts, p))
    True
    """
    p = sampler.Categorical(sampler.target_distribution(Fraction(certainty), 0))  # reference_pair's p, any match
    counts = sampler.sample_outputs(p, p, SAMPLE_COUNT, random.Random(f"{seed}/target"), "target")
    return counts, sampler.empirical_tv(counts, p)


def seeded_speedup(length: int, target_calls: int, draft_calls: int, draft_cost: float) -> float:
    """A seeded generation's speedup over plain decoding, in target-pass units: ``length`` tokens
    that plain decoding writes in ``length`` passes took ``target_calls`` verifier calls and
    ``draft_calls`` draft calls, each costing ``draft_cost`` (c, a fraction of a target pass):
    ``length / (targetCalls + draftCalls c)``. The exact lab's ``trace.speedup``, and each of the
    serving tail's runs.

    >>> seeded_speedup(96, 40, 150, 0.09)  # 96 / (40 + 13.5)
    1.794392523364486
    """
    return length / (target_calls + draft_calls * draft_cost)


@lru_cache(maxsize=64)
def _trace(certainty: int, match: int, lookahead: int, length: int, seed: int) -> sampler.SeededGeneration:
    return sampler.generate_trace(certainty, match, lookahead, length, seed)


def evaluate(certainty=64, draftCost=9, gamma=5, length=96, match=72, seed=23) -> dict:
    """The whole part-three readout for one slider setting (never raises; see ``state``).

    * ``contract``: alpha = sum min(p, q), draftTv = TV(p, q), exactTv = TV(p, exact output)
      (exactly 0), wrongTv = TV(p, buggy output), on the reference pair;
    * ``summaryAlpha``: acceptance averaged over the ``length`` positions;
    * ``theoreticalSpeedup`` = (1 - a**(k+1)) / ((1 - a)(k c + 1)), k = gamma (the lookahead), a = summaryAlpha,
      c = draftCost/100;
    * ``trace``: a seeded generation; tokensPerTargetCall = length / targetCalls and
      speedup = length / (targetCalls + draftCalls c);
    * ``samples``: empirical TVs of :data:`SAMPLE_COUNT` seeded one-token outputs per sampler.
    """
    raw = {"certainty": certainty, "draftCost": draftCost, "gamma": gamma,
           "length": length, "match": match, "seed": seed}
    params, changed, notes = clamp_params(EXACT_SLIDERS, raw)
    params = {name: params[name] for name in STATE_BITS}  # signature order
    c, m, lookahead, n, s = (params[key] for key in ("certainty", "match", "gamma", "length", "seed"))
    cost = params["draftCost"] / 100
    alpha = float(summary_alpha(c, m, n))
    trace = _trace(c, m, lookahead, n, s)
    return {
        "params": params,
        "state": sum(STATE_BITS[name] for name in changed),
        "notes": notes,
        "contract": dict(_contract(c, m)),
        "summaryAlpha": alpha,
        "theoreticalSpeedup": leviathan_speedup(alpha, lookahead, cost),
        "trace": {
            "targetCalls": trace.targetCalls,
            "draftCalls": trace.draftCalls,
            "acceptedDraft": trace.acceptedDraft,
            "rejectedDraft": trace.rejectedDraft,
            "bonusTokens": trace.bonusTokens,
            "tokensPerTargetCall": n / trace.targetCalls,
            "speedup": seeded_speedup(n, trace.targetCalls, trace.draftCalls, cost),
            "tokens": list(trace.tokens),
            "calls": [{"start": start, "drafts": list(drafts), "committed": list(committed), "rejected": rejected}
                      for start, drafts, committed, rejected in trace.calls],
        },
        # fresh lists: the cached histograms must not be editable through a result
        "samples": {key: list(value) if isinstance(value, list) else value for key, value in _samples(c, m, s).items()},
    }
