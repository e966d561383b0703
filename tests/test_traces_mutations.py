"""Each check of the traces family fails when the model is broken in the way the check claims
to catch, and its message names the case (a mutation test per check)."""

from __future__ import annotations

import pytest

from lab import checks, ledger, traces
from lab.checks import traces as family

CHECK = dict(family.CHECKS)


def _failure(name: str) -> str:
    out = checks._run_check(CHECK[name])
    assert out.failure, f"{name} did not catch the mutation"
    return out.failure


def test_every_check_has_a_mutation_test():
    tested = {name[len("test_"):].replace("_", "-") for name in globals() if name.startswith("test_trace_")}
    assert tested == set(CHECK), set(CHECK) ^ tested


def test_trace_per_position_survival(monkeypatch):
    """Bug: 'conditional' computed against all drafts (the unconditional rate again)."""
    original = traces.analyse

    def confused(trace):
        result = original(trace)
        result["conditional"] = list(result["perPosition"])
        return result

    monkeypatch.setattr(traces, "analyse", confused)
    assert "prod of conditionals" in _failure("trace-per-position-survival") and "k=" in _failure("trace-per-position-survival")


def test_trace_counts_add_up(monkeypatch):
    """Bug: the mean acceptance length without the verifier's own token."""
    original = traces.analyse

    def no_bonus(trace):
        result = original(trace)
        result["meanAcceptanceLength"] -= 1
        return result

    monkeypatch.setattr(traces, "analyse", no_bonus)
    assert "mean acceptance length" in _failure("trace-counts-add-up")


def test_trace_translator_round_trips(monkeypatch):
    """Bug: the engine's rate divided by k + 1 (counting the bonus token as drafted)."""
    original = traces.translate

    def off_by_one(k, **given):
        result = original(k, **given)
        if "alpha" in given:
            result["acceptanceRate"] = result["acceptanceRate"] * k / (k + 1)
        return result

    monkeypatch.setattr(traces, "translate", off_by_one)
    assert _failure("trace-translator-round-trips").startswith("translate(k=1, alpha=0.05)")


def test_trace_alpha_iid_solves_equation(monkeypatch):
    """Bug: a bisection stopped after a few steps (alpha to 3 decimals)."""
    original = traces.alpha_iid
    monkeypatch.setattr(traces, "alpha_iid", lambda mean, k: round(original(mean, k), 3))
    assert _failure("trace-alpha-iid-solves-equation").startswith("k=2, tau-1=0.2: alpha 0.171")


def test_trace_curve_ledger_equals_scalar(monkeypatch):
    """Bug: the curve ledger stops at the measured positions instead of extrapolating."""
    def no_extrapolation(conditional, lookahead):
        total, survival = 0.0, 1.0
        for position in range(min(lookahead, len(conditional))):
            survival *= conditional[position]
            total += survival
        return total, 0

    monkeypatch.setattr(ledger, "expected_accepted_from_curve", no_extrapolation)
    failure = _failure("trace-curve-ledger-equals-scalar")
    assert "acceptance=20" in failure


def test_trace_exposition_round_trip(monkeypatch):
    """Bug: labels ignored, so several engines' series overwrite each other instead of summing."""
    original = traces._prom_labels
    monkeypatch.setattr(traces, "_prom_labels",
                        lambda text, where: tuple(pair for pair in original(text, where) if pair[0] == "position"))
    failure = _failure("trace-exposition-round-trip")
    assert "over 2 label sets" in failure or "over 3 label sets" in failure


def test_trace_formats_agree(monkeypatch):
    """Bug: TensorRT-LLM's verifier calls taken as its draft tokens."""
    class Confused(traces._TrtllmJson):
        def result(self, lookahead, model=None):
            trace = super().result(lookahead, model)
            return trace._replace(drafts=trace.draftTokens)

    monkeypatch.setitem(traces.PARSERS, "trtllm-json", Confused)
    assert _failure("trace-formats-agree").startswith("trtllm-json read {0: 5, 1: 3, 2: 2}")


def test_trace_independence_zero_on_iid(monkeypatch):
    """Bug: the constant-rate MLE counts every call as a rejection (S / (S + N))."""
    monkeypatch.setattr(traces, "alpha_mle", lambda accepted, rejected: accepted / (accepted + rejected + 1))
    assert _failure("trace-independence-zero-on-iid").startswith("k=2 r=1/4")


def test_trace_chi_square_closed_forms(monkeypatch):
    """Bug: the lower regularized gamma P returned instead of the upper tail Q."""
    original = traces.regularized_gamma_q
    monkeypatch.setattr(traces, "regularized_gamma_q", lambda a, x: 1 - original(a, x))
    assert _failure("trace-chi-square-closed-forms").startswith("chi-square tail at x=0.1, df=1")


@pytest.mark.parametrize("name", list(CHECK))
def test_checks_pass_unmutated(name):
    out = checks._run_check(CHECK[name])
    assert out.failure is None and out.visited > 0
