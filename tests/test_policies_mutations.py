"""Each check of the policies family catches the mistake it claims to: the model is broken on
purpose (monkeypatch) and exactly that check must fail, naming the case."""

from lab import policies
from lab.checks import _run_check
from lab.checks import policies as family
from mutation import failure_of

CHECKS = dict(family.CHECKS)


def _fails(name: str, *fragments: str) -> str:
    failure = failure_of(CHECKS, name, *fragments)
    assert not failure.startswith("raised"), failure
    return failure


def test_every_check_passes_unbroken():
    for name, check in family.CHECKS:
        assert _run_check(check).failure is None, name


def test_burst_zero_that_keeps_memory(monkeypatch):
    """A bursty process whose persistence ignores the slider is not iid at burstiness 0."""
    original = policies.bursty
    monkeypatch.setattr(policies, "bursty", lambda alpha, burstiness, contrast=policies.CONTRAST:
                        original(alpha, 50, contrast))
    _fails("burstiness-zero-is-iid", "alpha=", "iid")


def test_oracle_that_is_not_a_bound(monkeypatch):
    """An 'oracle' that pays for the rejected draft (drafts j + 1) is beaten by the threshold policy."""
    def paying_oracle(process, costs, cache=None):
        result = original(process, costs)
        drafts = result["meanLookahead"] + 1
        return {**result, "speedup": result["tokensPerCall"] / costs.cycle(drafts), "meanLookahead": drafts}
    original = policies.oracle_policy
    monkeypatch.setattr(policies, "oracle_policy", paying_oracle)
    _fails("oracle-bounds-every-policy", "beats the oracle", "c=")


def test_best_static_with_the_wrong_scan_range(monkeypatch):
    """Scanning 1..12 instead of 1..64 misses the ledger's deep optimum at cheap drafts."""
    original = policies.best_static
    monkeypatch.setattr(policies, "best_static", lambda process, costs, max_k=64, cache=None:
                        original(process, costs, 12, cache))
    _fails("best-static-matches-ledger", "draftCost=", "vs ledger")


def test_heuristic_that_looks_at_the_cost(monkeypatch):
    """A schedule whose lookahead depends on the draft cost is not Hugging Face's."""
    original = policies.heuristic_policy

    def cost_aware(process, costs, cache=None, detail=False):
        result = original(process, costs, cache, detail)
        return {**result, "meanLookahead": result["meanLookahead"] * (1 + costs.draft)}
    monkeypatch.setattr(policies, "heuristic_policy", cost_aware)
    _fails("heuristic-lookahead-ignores-draft-cost", "alpha=", "mean lookahead")


def test_stationary_law_that_is_not_invariant(monkeypatch):
    """Returning the uniform law instead of solving pi P = pi."""
    monkeypatch.setattr(policies, "stationary", lambda rows: [1 / len(rows)] * len(rows))
    _fails("stationary-law-is-invariant", "|pi P - pi|", "heuristic on iid")


def test_exact_values_as_a_mean_of_per_cycle_ratios(monkeypatch):
    """Averaging tokens/cost per start state instead of E[tokens] / E[cost] (renewal-reward)."""
    original = policies._summary

    def mean_of_ratios(pi, tokens, drafts, costs, extra=None):
        result = original(pi, tokens, drafts, costs, extra)
        return {**result, "speedup": sum(p * t / costs.cycle(d) for p, t, d in zip(pi, tokens, drafts))}
    monkeypatch.setattr(policies, "_summary", mean_of_ratios)
    _fails("exact-agrees-with-simulation", "threshold: exact", "standard errors")


def test_oracle_off_the_closed_form(monkeypatch):
    """An oracle that forgets the verifier's own token (commits j, not j + 1)."""
    original = policies.oracle_policy

    def short_oracle(process, costs, cache=None):
        result = original(process, costs)
        tokens = result["tokensPerCall"] - 1
        return {**result, "tokensPerCall": tokens, "speedup": tokens / costs.cycle(result["meanLookahead"])}
    monkeypatch.setattr(policies, "oracle_policy", short_oracle)
    _fails("oracle-matches-closed-form", "alpha=", "closed form")


def test_threshold_that_forgets_drafts_after_a_rejection(monkeypatch):
    """Not paying for the drafts written after the first rejection (the discarded continuation)."""
    monkeypatch.setattr(policies, "_phantom_drafts", lambda process, threshold, cap:
                        [[0.0] * process.size for _ in range(cap + 2)])
    _fails("threshold-extremes-are-static", "threshold 0.0", "static 20")


def test_truncation_too_shallow(monkeypatch):
    """Truncating the heuristic at K_max = 6 with the bound honestly reported fails the certificate."""
    monkeypatch.setattr(policies, "heuristic_truncation",
                        lambda a, tolerance=policies.TRUNCATION_TOLERANCE, full=None: (6, policies.heuristic_tail_bound(a, 6)))
    _fails("truncation-is-certified", "truncation bound", "K_max 6")


def test_truncation_bound_that_lies(monkeypatch):
    """Truncating at 6 while claiming a tiny bound: the deeper chain moves the numbers."""
    monkeypatch.setattr(policies, "heuristic_truncation", lambda a, tolerance=policies.TRUNCATION_TOLERANCE, full=None: (6, 0.0))
    _fails("truncation-is-certified", "K_max 6 gives", "K_max 22")


def test_best_static_that_stops_short(monkeypatch):
    """A best static searched only over 1..2: the heuristic then beats it under iid."""
    original = policies.best_static
    monkeypatch.setattr(policies, "best_static", lambda process, costs, max_k=64, cache=None:
                        original(process, costs, 2, cache))
    _fails("heuristic-never-beats-best-static-under-iid", "beats the best static", "alpha=")
