"""The audit's checks are not true by construction: break the implementation on purpose
(pytest's monkeypatch) and watch the named checks fail.

lab memoises heavily (lru_caches; the verifier's tables live on the cached rows, ``q.rule``),
so every test clears all of those before the mutation (so it takes effect) and after it (so it
does not leak into other tests). Names imported with ``from x import y`` are patched where they
are looked up.
"""

from __future__ import annotations

import dataclasses
import random
from fractions import Fraction

import pytest

from lab import audit, exact, jsformat, ledger, sampler, views

CACHED = [
    sampler._pair, sampler._slot_pair,
    exact._contract, exact._samples, exact._trace, exact.summary_alpha,
    audit._pairs, audit._alpha, audit._trace, audit._speedup_row,
]


def clear_caches():
    for fn in CACHED:
        fn.cache_clear()
    # and any cache added later that the list above misses
    for module in (sampler, exact, audit, ledger, jsformat, views):
        for value in vars(module).values():
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


@pytest.fixture
def fresh():
    clear_caches()
    yield
    clear_caches()


@pytest.fixture
def mutate(monkeypatch, fresh):
    """mutate(target, name, value): patch, clear the caches, run the audit, return the failing names."""
    def apply(*patches):
        for target, name, value in patches:
            monkeypatch.setattr(target, name, value)
        clear_caches()
        result = audit.run_audit()
        assert result["checked"] == 20
        return set(result["failures"]), result
    yield apply
    monkeypatch.undo()
    clear_caches()


def test_unmutated_audit_passes(fresh):
    result = audit.run_audit()
    assert result["failures"] == [] and result["passed"] == 20


def test_fixture_clears_every_cache(fresh):
    sampler.position_pair(50, 50, 3)
    exact.evaluate()
    audit._alpha(20, 40)
    p, q = sampler.position_pair(50, 50, 3)
    rule = sampler.rule_for(p, q)
    assert sampler._slot_pair.cache_info().currsize and q.rule == (p, rule)
    clear_caches()
    # the rule lives on the cached row, so clearing the row caches drops it: a fresh pair has none
    assert all(fn.cache_info().currsize == 0 for fn in CACHED)
    assert sampler.position_pair(50, 50, 3)[1] is not q


# (a) resample from the target instead of the residual ----------------------------------------

def test_residual_replaced_by_target(mutate):
    failures, result = mutate((sampler, "residual_distribution",
                               lambda p, q: sampler.Categorical(sampler._probs(p))))
    assert "exact-output-equals-target" in failures
    assert "two-token-joint-is-target" in failures
    assert result["maxExactTv"] > 0
    assert audit.audit_signature(result) != "20:20:0:1296:0.000000000000:0.000000000000"


def test_residual_replaced_by_draft(mutate):
    failures, _ = mutate((sampler, "residual_distribution", lambda p, q: sampler.Categorical(sampler._probs(q))))
    assert {"exact-output-equals-target", "two-token-joint-is-target", "greedy-matches-plain-greedy",
            "known-test-vectors"} <= failures


def test_residual_without_normalisation(mutate):
    def unnormalised(p, q):
        excess = [max(Fraction(0), a - b) for a, b in zip(sampler._probs(p), sampler._probs(q))]
        if sum(excess) == 0:
            return None
        row = sampler.Categorical([Fraction(1, len(excess))] * len(excess))
        row.probs = tuple(excess)  # the unnormalised max(0, p - q)
        return row
    failures, _ = mutate((sampler, "residual_distribution", unnormalised))
    assert "exact-output-equals-target" in failures


# (b) the wrong acceptance test ---------------------------------------------------------------

def test_acceptance_ratio_inverted(mutate):
    def inverted(p_x, q_x):
        if p_x == 0:
            return Fraction(0)
        return min(Fraction(1), q_x / p_x)
    failures, _ = mutate((sampler, "acceptance_probability", inverted))
    assert "exact-output-equals-target" in failures
    assert "survival-probability-is-alpha" in failures


def test_acceptance_always_one(mutate):
    failures, _ = mutate((sampler, "acceptance_probability", lambda p_x, q_x: Fraction(1)))
    assert {"exact-output-equals-target", "known-test-vectors", "survival-probability-is-alpha",
            "greedy-matches-plain-greedy", "samples-converge-to-target"} <= failures


def test_acceptance_threshold_lowered(mutate):
    # the float acceptance table the sampler compares u with is too low: accept iff u < ratio - 0.2
    original = sampler.PairRule.__init__

    def init(self, p, q):
        original(self, p, q)
        self.accept = [max(0.0, a - 0.2) for a in self.accept]
    failures, _ = mutate((sampler.PairRule, "__init__", init))
    assert "samples-converge-to-target" in failures


# (c) the ledger's accepted-draft sum off by one ----------------------------------------------

def test_accepted_sum_off_by_one(mutate):
    def short_sum(a, m):
        return sum(a**i for i in range(1, m))  # stops at a**(m-1)
    failures, _ = mutate((ledger, "expected_accepted_drafts", short_sum))
    assert "yield-matches-closed-form" in failures
    assert "legacy-signature" in failures
    assert audit.legacy_signature() != audit.LEGACY_EXPECTED


def test_closed_form_off_by_one(mutate):
    failures, _ = mutate((audit, "expected_tokens_per_call_closed_form",
                          lambda a, m: m + 1.0 if a == 1 else (1 - a**m) / (1 - a)))
    assert "yield-matches-closed-form" in failures


def test_ledger_speedup_ignores_draft_cost(mutate):
    original = ledger.ledger

    def cheap(settings):
        return original(settings.with_(draftCost=0))
    failures, _ = mutate((audit, "ledger", cheap))
    assert "ledger-equals-leviathan" in failures


# (d) best lookahead --------------------------------------------------------------------------

def test_best_lookahead_off_by_one(mutate):
    original = ledger.best_lookahead
    failures, _ = mutate((audit, "best_lookahead", lambda s, max_lookahead=12: (original(s, max_lookahead)[0] + 1,
                                                                                 original(s, max_lookahead)[1])))
    assert "best-lookahead-is-first-argmax" in failures
    assert "legacy-signature" in failures


def _last_argmax(settings, max_lookahead=12):
    """best_lookahead with >=: keeps the *last* maximum."""
    best_m, best = 0, float("-inf")
    for m in range(1, max_lookahead + 1):
        speedup = ledger.ledger(settings.with_(lookahead=m)).speedup
        if speedup >= best:
            best_m, best = m, speedup
    return best_m, best


def test_last_argmax_differs_from_first_on_a_tie():
    # the mutation is a real bug: on an exact tie it picks the deeper draft
    tie = ledger.LedgerSettings(acceptance=50, draftCost=20, lookahead=1, overheadMs=0, targetMs=80, verifyTax=0)
    assert ledger.best_lookahead(tie) == (1, 1.25)
    assert _last_argmax(tie) == (2, 1.25)


def test_best_lookahead_keeping_the_last_maximum_is_caught(mutate):
    """The audit must tell the first maximum from the last one. It can only do that on a
    setting where two lookaheads tie exactly, so its check needs such a setting."""
    failures, _ = mutate((audit, "best_lookahead", _last_argmax))
    assert "best-lookahead-is-first-argmax" in failures, (
        "the audit's best-lookahead-is-first-argmax check cannot detect a best_lookahead that keeps the "
        "LAST maximum (>=): no setting it visits has an exact tie in speedup, so first and last argmax agree "
        "everywhere it looks; e.g. acceptance=50, draftCost=20, overheadMs=0, targetMs=80, verifyTax=0 ties "
        "k=1 and k=2 at exactly 1.25")


def test_best_lookahead_returns_a_worse_speedup(mutate):
    original = ledger.best_lookahead
    failures, _ = mutate((audit, "best_lookahead",
                          lambda s, max_lookahead=12: (original(s)[0], original(s)[1] * (1 - 1e-9))))
    assert "best-lookahead-is-first-argmax" in failures


def test_fast_speedup_scan_off_by_one(mutate):
    # the heatmap and best_lookahead share a fast scan that must give the ledger's very floats
    def shifted(settings, max_lookahead):
        return [ledger.ledger(settings.with_(lookahead=m + 1)).speedup for m in range(1, max_lookahead + 1)]
    failures, _ = mutate((ledger, "speedups_by_lookahead", shifted))
    assert "heatmap-matches-ledger" in failures
    assert "best-lookahead-is-first-argmax" in failures
    assert "legacy-signature" in failures


def test_fast_speedup_scan_rounding_drift(mutate):
    # a different summation order (closed form) is close but not the same float: still caught
    def closed(settings, max_lookahead):
        a, t = settings.acceptance / 100, settings.targetMs
        return [t * ledger.expected_tokens_per_call_closed_form(a, m)
                / (m * t * settings.draftCost / 100 + t * (1 + (m - 1) * settings.verifyTax / 100) + settings.overheadMs)
                for m in range(1, max_lookahead + 1)]
    failures, _ = mutate((ledger, "speedups_by_lookahead", closed))
    assert "heatmap-matches-ledger" in failures


# (e) Python's rounding instead of JavaScript's ------------------------------------------------

def test_to_fixed_with_python_format(mutate):
    failures, _ = mutate((audit, "to_fixed", lambda x, digits: format(x, f".{digits}f")))
    assert "tofixed-ties-away-from-zero" in failures


def test_to_fixed_half_down(mutate):
    import math

    def half_down(x, digits):
        scaled = abs(Fraction(x)) * 10**digits
        n = math.ceil(scaled - Fraction(1, 2))
        text = str(n).rjust(digits + 1, "0")
        text = text[:-digits] + "." + text[-digits:] if digits else text
        return ("-" if x < 0 else "") + text
    failures, _ = mutate((audit, "to_fixed", half_down))
    assert "tofixed-ties-away-from-zero" in failures


def test_to_fixed_tie_bug_at_11_digits(mutate):
    # correct everywhere except at 11 digits, where a tie rounds to even
    def tie_bug(x, digits):
        return format(x, ".11f") if digits == 11 else jsformat.to_fixed(x, digits)
    assert tie_bug(2**-12, 11) == "0.00024414062" != jsformat.to_fixed(2**-12, 11)
    failures, _ = mutate((audit, "to_fixed", tie_bug))
    assert "tofixed-ties-away-from-zero" in failures


def test_to_fixed_tie_bug_past_15_digits(mutate):
    # a rounding that goes through a 17-significant-digit decimal string breaks long ties
    def via_repr(x, digits):
        return jsformat.to_fixed(float(f"{x:.17g}"), digits) if digits <= 15 else format(x, f".{digits}f")
    failures, _ = mutate((audit, "to_fixed", via_repr))
    assert "tofixed-ties-away-from-zero" in failures


# (f) broken trace accounting -----------------------------------------------------------------

def test_trace_counts_a_bonus_on_every_call(mutate):
    original = sampler.generate_trace

    def wrong(*args, **kwargs):
        t = original(*args, **kwargs)
        return dataclasses.replace(t, bonusTokens=t.targetCalls)
    failures, _ = mutate((sampler, "generate_trace", wrong))
    assert "trace-accounting" in failures


def test_trace_counts_the_rejected_draft_as_accepted(mutate):
    original = sampler.generate_trace

    def miscounting_verify(drafts, p_rows, q_rows, rng):
        result = sampler.verify(drafts, p_rows, q_rows, rng)
        return dataclasses.replace(result, accepted=result.accepted + result.rejected)

    def wrong(*args, **kwargs):
        return original(*args, verifier=miscounting_verify, **kwargs)
    failures, _ = mutate((sampler, "generate_trace", wrong))
    assert "trace-accounting" in failures


def test_trace_commits_past_the_length(mutate):
    original = sampler.generate_trace

    def wrong(certainty, match, gamma, length, seed, **kwargs):
        return original(certainty, match, gamma, length + 1, seed, **kwargs)
    failures, _ = mutate((sampler, "generate_trace", wrong))
    assert "trace-accounting" in failures


def test_trace_with_the_buggy_verifier(mutate):
    original = sampler.generate_trace

    def wrong(*args, **kwargs):
        return original(*args, verifier=sampler.draft_resample_verify, **kwargs)
    failures, _ = mutate((sampler, "generate_trace", wrong))
    assert "greedy-matches-plain-greedy" in failures


# more: the other checks each catch something ---------------------------------------------------

def test_total_variation_without_the_half(mutate):
    failures, _ = mutate((sampler, "total_variation",
                          lambda p, q: sum((abs(a - b) for a, b in zip(sampler._probs(p), sampler._probs(q))), Fraction(0))))
    assert "alpha-equals-one-minus-tv" in failures


def test_buggy_sampler_made_correct(mutate):
    failures, _ = mutate((sampler, "buggy_output_distribution", sampler.exact_output_distribution))
    assert "buggy-sampler-is-biased" in failures


def test_unnormalised_target(mutate):
    original = sampler.target_distribution
    failures, _ = mutate((sampler, "target_distribution",
                          lambda c, fav, size=8: tuple(x * Fraction(101, 100) for x in original(c, fav, size))))
    assert "distributions-are-normalised" in failures


def test_target_unnormalised_by_a_hair(mutate):
    # a total of 1 + 1e-12 is no rounding slack for exact rows: it is refused and the check fails
    original = sampler.target_distribution
    failures, _ = mutate((sampler, "target_distribution", lambda c, fav, size=8: tuple(
        x * (1 + Fraction(1, 10**12)) for x in original(c, fav, size))))
    assert "distributions-are-normalised" in failures


def test_theoretical_speedup_with_the_reference_alpha(mutate):
    # the plausible bug: Theorem 3.8 fed the reference pair's alpha (the contract's) instead of
    # the mean over the sequence's positions
    original = exact.evaluate

    def reference_alpha(**kwargs):
        r = original(**kwargs)
        r["theoreticalSpeedup"] = ledger.leviathan_speedup(r["contract"]["alpha"], r["params"]["gamma"],
                                                           r["params"]["draftCost"] / 100)
        return r
    failures, _ = mutate((audit, "evaluate", reference_alpha))
    assert "theoretical-speedup-uses-alpha" in failures


def test_theoretical_speedup_scaled_alpha(mutate):
    original = exact.leviathan_speedup
    failures, _ = mutate((exact, "leviathan_speedup", lambda a, g, c: original(min(1.0, a * 1.01), g, c)))
    assert "theoretical-speedup-uses-alpha" in failures


def test_wrong_summary_alpha(mutate):
    # summaryAlpha averaged over one position too few; theoreticalSpeedup follows it consistently,
    # so only a check that computes the mean alpha itself can see it
    original = exact.summary_alpha
    failures, _ = mutate((exact, "summary_alpha", lambda c, m, length: original(c, m, max(1, length - 1))))
    assert "theoretical-speedup-uses-alpha" in failures


def test_summary_alpha_of_the_reference_pair(mutate):
    failures, _ = mutate((exact, "summary_alpha",
                          lambda c, m, length: sampler.per_token_acceptance(*sampler.reference_pair(c, m))))
    assert "theoretical-speedup-uses-alpha" in failures


def test_speedup_that_falls_with_acceptance(mutate):
    original = ledger.ledger

    def inverted(settings):
        return original(settings.with_(acceptance=100 - settings.acceptance))
    failures, _ = mutate((audit, "ledger", inverted))
    assert "speedup-rises-with-acceptance" in failures


def test_cycle_without_overhead(mutate):
    original = ledger.ledger

    def dropped(settings):
        r = original(settings)
        return r._replace(cycleMs=r.draftMs + r.verifyMs)
    failures, _ = mutate((audit, "ledger", dropped))
    assert "cycle-adds-up" in failures


def _consistent(r, settings, draft_ms, verify_ms):
    """A ledger whose cycle, msPerToken and speedup are recomputed from wrong parts, so the sums agree."""
    cycle = draft_ms + verify_ms + settings.overheadMs
    return r._replace(draftMs=draft_ms, verifyMs=verify_ms, cycleMs=cycle, msPerToken=cycle / r.outputTokens,
                      speedup=settings.targetMs * r.outputTokens / cycle)


def test_draft_ms_one_pass_short(mutate):
    original = ledger.ledger

    def short(s):
        r = original(s)
        return _consistent(r, s, (s.lookahead - 1) * s.targetMs * s.draftCost / 100, r.verifyMs)
    failures, _ = mutate((audit, "ledger", short))
    assert "cycle-adds-up" in failures


def test_verify_ms_taxes_every_token(mutate):
    original = ledger.ledger

    def taxed(s):
        r = original(s)
        return _consistent(r, s, r.draftMs, s.targetMs * (1 + s.lookahead * s.verifyTax / 100))
    failures, _ = mutate((audit, "ledger", taxed))
    assert "cycle-adds-up" in failures


def test_wasted_drafts_wrong(mutate):
    original = ledger.ledger
    failures, _ = mutate((audit, "ledger", lambda s: original(s)._replace(wastedDrafts=float(s.lookahead))))
    assert "yield-within-bounds" in failures


def test_heatmap_transposed(mutate):
    original = ledger.speedup_grid
    failures, _ = mutate((audit, "speedup_grid", lambda s, lookaheads, acceptances: [
        row[::-1] for row in original(s, lookaheads, acceptances)]))
    assert "heatmap-matches-ledger" in failures


def test_a_crashing_check_counts_as_failed(mutate):
    def boom(*args, **kwargs):
        raise RuntimeError("boom")
    failures, result = mutate((sampler, "exact_prefix_distribution", boom))
    assert "two-token-joint-is-target" in failures
    detail = next(c["detail"] for c in result["checks"] if c["name"] == "two-token-joint-is-target")
    assert "RuntimeError" in detail


def test_mutations_do_not_leak(fresh):
    # runs after the mutation tests in file order: everything is back to normal
    assert audit.run_audit()["failures"] == []
    assert audit.exact_signature() == (
        "64:9:5:96:72:23:0:0.816833:0.183167:0.000000000000:0.095338:0.839579:2.793327:"
        "3.180915:21:102:75:9:12:4.571429:0.012412:0.012819:0.100947")


# (g) the stochastic multi-draft path, checked as a distribution ----------------------------------

def _shared_uniform_verify(draft_tokens, p_rows, q_rows, rng, *, _bug=False):
    """verify() with one uniform for the whole block instead of one per draft."""
    u = rng.random()
    committed = []
    for index, token in enumerate(draft_tokens):
        rule = sampler.rule_for(p_rows[index], q_rows[index])
        if not u < rule.accept[token]:
            committed.append(rule.residual.sample(rng) if rule.residual is not None else token)
            return sampler.VerifyResult(tuple(committed), index, True)
        committed.append(token)
    committed.append(sampler._categorical(p_rows[-1]).sample(rng))
    return sampler.VerifyResult(tuple(committed), len(draft_tokens), False)


def test_one_shared_uniform_per_block(mutate):
    failures, _ = mutate((sampler, "verify", _shared_uniform_verify))
    assert "two-token-joint-is-target" in failures


def _drafts_from_p(certainty, match, gamma, length, seed, *, verifier=sampler.verify, rng=None):
    """generate_trace() that drafts from the target row p instead of the draft row q."""
    rng = rng or random.Random(seed)
    tokens, calls = [], []
    draft_calls = accepted = rejected = bonus = 0
    while len(tokens) < length:
        start = len(tokens)
        k = min(gamma, length - start - 1)
        pairs = [sampler.position_pair(certainty, match, start + i) for i in range(k + 1)]
        drafts = [pairs[i][0].sample(rng) for i in range(k)]  # the bug: p, not q
        result = verifier(drafts, [p for p, _ in pairs], [q for _, q in pairs[:k]], rng)
        draft_calls += k
        accepted += result.accepted
        rejected += result.rejected
        bonus += not result.rejected
        tokens.extend(result.tokens)
        calls.append((start, tuple(drafts), result.tokens, result.rejected))
    return sampler.SeededGeneration(tuple(tokens), len(calls), draft_calls, accepted, rejected, bonus, tuple(calls))


def test_drafts_from_p(mutate):
    failures, _ = mutate((sampler, "generate_trace", _drafts_from_p))
    assert "two-token-joint-is-target" in failures


def _scaled_acceptance(change):
    original = sampler.PairRule.__init__

    def init(self, p, q):
        original(self, p, q)
        self.accept = [change(a) for a in self.accept]
    return (sampler.PairRule, "__init__", init)


def test_acceptance_scaled_by_0_9(mutate):
    failures, _ = mutate(_scaled_acceptance(lambda a: 0.9 * a))
    assert "two-token-joint-is-target" in failures
    assert "samples-converge-to-target" in failures


def test_acceptance_lowered_by_0_05(mutate):
    failures, _ = mutate(_scaled_acceptance(lambda a: max(0.0, a - 0.05)))
    assert "two-token-joint-is-target" in failures
    assert "samples-converge-to-target" in failures


def test_unmutated_after_the_law_mutations(fresh):
    assert audit.run_audit()["failures"] == []
