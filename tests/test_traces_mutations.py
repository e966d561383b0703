"""Each check of the traces family fails when the model is broken in the way the check claims
to catch, and its message names the case (a mutation test per check)."""

from __future__ import annotations

import math

import pytest

from lab import checks, ledger, traces
from lab.checks import traces as family
from lab.traces.llamacpp import _LlamaLog
from lab.traces.prometheus import _prom_labels, _Prometheus
from lab.traces.trtllm import _TrtllmJson
from lab.traces.vllm import _VllmLog
from mutation import clear_caches, failure_of

CHECK = dict(family.CHECKS)


def _mutate(monkeypatch, name: str, mutant):
    """Replace ``name`` in every module of the lab.traces package that holds it (the parsers and the
    analysis call their own module's binding; a private helper is not re-exported by lab.traces)."""
    import sys

    modules = [module for module_name, module in list(sys.modules.items())
               if module_name == "lab.traces" or module_name.startswith("lab.traces.")]
    original = next(getattr(module, name) for module in modules if hasattr(module, name))
    for module in modules:
        if getattr(module, name, None) is original:
            monkeypatch.setattr(module, name, mutant)


def _failure(name: str) -> str:
    return failure_of(CHECK, name)


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

    _mutate(monkeypatch, "analyse", confused)
    assert "prod of conditionals" in _failure("trace-per-position-survival") and "k=" in _failure("trace-per-position-survival")


def test_trace_counts_add_up(monkeypatch):
    """Bug: the mean acceptance length without the verifier's own token."""
    original = traces.analyse

    def no_bonus(trace):
        result = original(trace)
        result["meanAcceptanceLength"] -= 1
        return result

    _mutate(monkeypatch, "analyse", no_bonus)
    assert "mean acceptance length" in _failure("trace-counts-add-up")


def test_trace_translator_round_trips(monkeypatch):
    """Bug: the engine's rate divided by k + 1 (counting the bonus token as drafted)."""
    original = traces.translate

    def off_by_one(k, **given):
        result = original(k, **given)
        if "alpha" in given:
            result["acceptanceRate"] = result["acceptanceRate"] * k / (k + 1)
        return result

    _mutate(monkeypatch, "translate", off_by_one)
    assert _failure("trace-translator-round-trips").startswith("translate(k=1, alpha=0.05)")


def test_trace_alpha_iid_solves_equation(monkeypatch):
    """Bug: a bisection stopped after a few steps (alpha to 3 decimals)."""
    original = traces.alpha_iid
    _mutate(monkeypatch, "alpha_iid", lambda mean, k: round(original(mean, k), 3))
    assert _failure("trace-alpha-iid-solves-equation").startswith("k=2, mean length - 1 = 0.2: alpha 0.171")


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
    original = _prom_labels
    _mutate(monkeypatch, "_prom_labels",
                        lambda text, where: tuple(pair for pair in original(text, where) if pair[0] == "position"))
    failure = _failure("trace-exposition-round-trip")
    assert "over 2 label sets" in failure or "over 3 label sets" in failure


def test_trace_formats_agree(monkeypatch):
    """Bug: TensorRT-LLM's verifier calls taken as its draft tokens."""
    class Confused(_TrtllmJson):
        def result(self, lookahead, model=None):
            trace = super().result(lookahead, model)
            return trace._replace(drafts=trace.draftTokens)

    monkeypatch.setitem(traces.PARSERS, "trtllm-json", Confused)
    assert _failure("trace-formats-agree").startswith("trtllm-json read {0: 5, 1: 3, 2: 2}")


def test_trace_independence_zero_on_iid(monkeypatch):
    """Bug: the constant-rate MLE counts every call as a rejection (S / (S + N))."""
    _mutate(monkeypatch, "alpha_mle", lambda accepted, rejected: accepted / (accepted + rejected + 1))
    assert _failure("trace-independence-zero-on-iid").startswith("k=2 r=1/4")


def test_trace_chi_square_closed_forms(monkeypatch):
    """Bug: the independence test's tail returns the lower tail P instead of the upper tail Q."""
    original = traces.chi_square_survival
    _mutate(monkeypatch, "chi_square_survival", lambda x, df: 1 - original(x, df))
    assert _failure("trace-chi-square-closed-forms").startswith("chi-square tail at x=0.1, df=1")


def test_chi_square_odd_dof_is_caught(monkeypatch):
    """Bug: the closed form for odd degrees of freedom drops its series (erfc alone)."""
    original = traces.chi_square_survival
    _mutate(monkeypatch, "chi_square_survival",
                        lambda x, df: math.erfc(math.sqrt(x / 2)) if df % 2 else original(x, df))
    assert _failure("trace-chi-square-closed-forms").startswith("chi-square tail at x=0.1, df=3")


@pytest.mark.parametrize("name", list(CHECK))
def test_checks_pass_unmutated(name):
    out = checks._run_check(CHECK[name])
    assert out.failure is None and out.visited > 0


# --- the golden files: each counting rule a reader would notice, broken on purpose -------------------

def _golden_failure() -> str:
    return _failure("trace-golden-files")


def test_trace_golden_files(monkeypatch):
    """Bug: vLLM-log counts rebuilt by flooring instead of rounding."""
    _mutate(monkeypatch, "_reconstruct", lambda rates, drafts: [int(rate * drafts) for rate in rates])
    assert _golden_failure().startswith("vllm_log.txt: ")


def test_golden_catches_repeated_prometheus_series_summed(monkeypatch):
    """Bug: a series repeated in the exposition (two scrapes pasted) summed instead of its last value kept."""
    original = _Prometheus.line

    def summing(self, text, number):
        before = dict(self.series)
        original(self, text, number)
        for key, value in self.series.items():
            if key in before and before[key] is not value and key[0] != "efficiency":
                self.series[key] = before[key] + value  # the one series this line wrote, added up

    monkeypatch.setattr(_Prometheus, "line", summing)
    assert _golden_failure().startswith("prometheus_two_models.prom: drafts 180, expected 160")


def test_golden_catches_acceptance_rate_over_calls_times_k(monkeypatch):
    """Bug: the acceptance rate computed as accepted / (calls x k), wrong whenever drafts are short."""
    original = traces.analyse

    def over_nk(trace):
        result = original(trace)
        if trace.accepted is not None:
            result["acceptanceRate"] = trace.accepted / (trace.drafts * trace.lookahead)
        return result

    _mutate(monkeypatch, "analyse", over_nk)
    assert "acceptance rate" in _golden_failure() and "is not accepted / drafted tokens" in _golden_failure()


def test_golden_catches_llamacpp_calls_as_drafted_over_n_draft(monkeypatch):
    """Bug: llama.cpp's verifier calls counted as n_drafted / n_draft again (drafts stop early)."""
    original = _LlamaLog._example_result

    def divided(self, lookahead):
        trace = original(self, lookahead)
        return trace._replace(drafts=trace.draftTokens / trace.lookahead)

    monkeypatch.setattr(_LlamaLog, "_example_result", divided)
    assert _golden_failure().startswith("llamacpp_speculative.log: drafts 12.0, expected 67")


def test_golden_catches_the_summary_added_to_its_periodic_lines(monkeypatch):
    """Bug: the spec_decode example's periodic lines added to its cumulative summary (counted twice)."""
    original = _VllmLog._summary

    def twice(self, lookahead):
        trace = original(self, lookahead)
        extra = sum(r["accepted"] for r in self.records)
        return trace._replace(accepted=trace.accepted + extra)

    monkeypatch.setattr(_VllmLog, "_summary", twice)
    assert _golden_failure().startswith("vllm_periodic_and_summary.txt: accepted 1000, expected 500")


def test_golden_catches_short_vllm_drafts_divided_by_k(monkeypatch):
    """Bug: vLLM's calls taken as drafted / k even when the printed mean says the drafts were short."""
    _mutate(monkeypatch, "_calls_from_mean", lambda accepted, mean, decimals, rates=None, rate_decimals=3,
                        full=None: (int(full) if full else None, (0, 0)))
    assert _golden_failure().startswith("vllm_ngram_short.log")


# --- the suite as a whole: a signature value that raises or moves is a failed check --------------

def test_suite_fails_when_a_signature_value_raises(monkeypatch):
    """The floored reconstruction makes the default preset unreadable? Either way a raising value fails."""
    monkeypatch.setattr(family, "signature_value", lambda: (_ for _ in ()).throw(traces.TraceError("boom")))
    result = checks.run_suite(["traces"])
    assert "traces-signature-value" in result["failures"]


def test_suite_fails_on_hugging_face_heuristic_stepping_by_one(monkeypatch):
    """Bug (in lab/policies.py): Hugging Face's heuristic steps +1 after a fully accepted block, not +2.
    Only the policies family's signature value moves; the suite must count that as a failure."""
    import inspect
    import textwrap

    from lab import policies

    source = textwrap.dedent(inspect.getsource(policies._heuristic_chain))
    assert "min(k + 2, k_max)" in source
    namespace = dict(vars(policies))
    exec(compile(source.replace("min(k + 2, k_max)", "min(k + 1, k_max)"), policies.__file__, "exec"), namespace)
    from lab.widgets import policies as widget

    monkeypatch.setattr(policies, "_heuristic_chain", namespace["_heuristic_chain"])
    clear_caches(policies, widget)   # the widget keeps each process's chains (its readout check reads them)
    try:
        result = checks.run_suite(["policies"])
    finally:
        monkeypatch.undo()
        clear_caches(policies, widget)
    assert "policies-signature-value" in result["failures"]


def test_cli_suite_exits_non_zero_when_a_signature_value_raises():
    import subprocess
    import sys

    code = ("import sys; from lab.checks import traces as f; from lab import traces as t\n"
            "f.signature_value = lambda: t.parse('x')\n"
            "from lab.cli import main; sys.exit(main(['audit', '--suite', 'instruments']))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert run.returncode != 0 and "traces-signature-value" in run.stdout + run.stderr


# --- the readout family: each check fails on a single planted mistake in what the widget shows --------

def _widget_readout_mutant(monkeypatch, key, replacement):
    """The traces widget with one readout computed wrongly (``replacement(analysis)``)."""
    from lab.widgets import traces as widget

    original = widget._render

    def mutated(analysis, *args, **kwargs):
        result = original(analysis, *args, **kwargs)
        result["readouts"][key] = replacement(analysis)
        return result

    monkeypatch.setattr(widget, "_render", mutated)


def test_trace_readouts_match_model(monkeypatch):
    """Bug (a review's planted mutant): the 'acceptance rate' readout shows alpha, the very confusion
    the article warns about: 29.9% becomes 66.2% on the default preset."""
    from lab.widgets import traces as widget

    _widget_readout_mutant(monkeypatch, "acceptanceRate", lambda analysis: widget._pct(analysis["alphaIid"]))
    failure_of(CHECK, "trace-readouts-match-model", "acceptanceRate", "'66.2%'", "'29.9%'", "default preset")


def test_readouts_catch_a_speedup_at_the_wrong_lookahead(monkeypatch):
    """Bug: the ledger speedup readout computed at k - 1."""
    from lab.ledger import LedgerSettings, ledger_from_curve
    from lab.widgets import traces as widget

    def at_k_minus_one(analysis):
        k = max(1, analysis["lookahead"] - 1)
        return widget._f(ledger_from_curve(LedgerSettings().with_(lookahead=k), traces.measured_curve(analysis)).speedup) + "x"

    _widget_readout_mutant(monkeypatch, "speedup", at_k_minus_one)
    failure_of(CHECK, "trace-readouts-match-model", "readout speedup")


def test_readouts_catch_a_lead_that_names_the_wrong_best_k(monkeypatch):
    from lab.widgets import traces as widget

    original = widget._lead
    monkeypatch.setattr(widget, "_lead", lambda analysis, source, best=None:
                        original(analysis, source, (best[0] + 1, best[1]) if best else best))
    failure_of(CHECK, "trace-readouts-match-model", "the lead does not say", "its best k is")


def test_trace_tables_match_model(monkeypatch):
    """Bug: the translator's 'acceptance rate' row fed with alpha."""
    from lab.widgets import traces as widget

    original = widget.translator_html
    monkeypatch.setattr(widget, "translator_html", lambda analysis: original({**analysis,
                                                                             "acceptanceRate": analysis["alphaIid"]}))
    failure_of(CHECK, "trace-tables-match-model", "acceptance rate = accepted / drafted tokens", "66.2%")


def _wilson_at_90(monkeypatch):
    from functools import partial

    from lab import stats

    _mutate(monkeypatch, "wilson_interval", partial(stats.wilson_interval, z=1.6448536269514722))


def test_trace_intervals_are_95_percent(monkeypatch):
    """Bug (a review's planted mutant): the Wilson interval's z at 90% while the page says 95%."""
    _wilson_at_90(monkeypatch)
    failure_of(CHECK, "trace-intervals-are-95-percent", "at 95%")


def test_tables_catch_wilson_at_90_percent_too(monkeypatch):
    _wilson_at_90(monkeypatch)
    failure_of(CHECK, "trace-tables-match-model", "per-position row 1")


def test_trace_cumulative_lines_not_added(monkeypatch):
    """Bug (a review's planted mutant): llama.cpp's cumulative statistics lines all added, so one run
    is counted twice or more."""
    def every_line_added(self, impl, body, where, number):
        runs_before = {name: list(runs) for name, runs in self.stats.items()}
        original_stats(self, impl, body, where, number)
        added = self.stats[impl][-1]
        self.stats[impl] = runs_before.get(impl, []) + [added]

    original_stats = _LlamaLog._stats
    monkeypatch.setattr(_LlamaLog, "_stats", every_line_added)
    failure_of(CHECK, "trace-cumulative-lines-not-added", "llama.cpp statistics, one run", "'drafts': 75")


def test_cumulative_check_catches_v0_lines_added(monkeypatch):
    original = _VllmLog._v0_result

    def summed(self, lookahead):
        self.v0 = [dict(r, drafted=sum(x["drafted"] for x in self.v0[:i + 1]),
                        emitted=sum(x["emitted"] for x in self.v0[:i + 1])) for i, r in enumerate(self.v0)]
        return original(self, lookahead)

    monkeypatch.setattr(_VllmLog, "_v0_result", summed)
    failure_of(CHECK, "trace-cumulative-lines-not-added", "vLLM V0")


@pytest.mark.parametrize("mutant", ["acceptance rate shows alpha", "Wilson z at 90%", "cumulative lines added"])
def test_the_named_mutants_fail_the_instruments_suite(monkeypatch, mutant):
    """Each of the review's three trace-reader mutants fails the suite as the page runs it (the
    traces family through lab.checks.run_suite), naming the check that caught it."""
    from lab.widgets import traces as widget

    if mutant == "acceptance rate shows alpha":
        _widget_readout_mutant(monkeypatch, "acceptanceRate", lambda analysis: widget._pct(analysis["alphaIid"]))
        expected = {"trace-readouts-match-model"}
    elif mutant == "Wilson z at 90%":
        _wilson_at_90(monkeypatch)
        expected = {"trace-intervals-are-95-percent", "trace-tables-match-model"}
    else:
        original_stats = _LlamaLog._stats

        def every_line_added(self, impl, body, where, number):
            before = list(self.stats.get(impl, []))
            original_stats(self, impl, body, where, number)
            self.stats[impl] = before + [self.stats[impl][-1]]

        monkeypatch.setattr(_LlamaLog, "_stats", every_line_added)
        expected = {"trace-cumulative-lines-not-added"}
    result = checks.run_suite(["traces"])
    assert expected <= set(result["failures"]), result["failures"]


def test_tables_catch_figure_marks_that_show_the_wrong_series(monkeypatch):
    """Bug: the figure's conditional marks drawn (and read out on hover) from the unconditional rates."""
    from lab.widgets import traces as widget

    original = widget.curve_svg
    monkeypatch.setattr(widget, "curve_svg", lambda analysis, width=640: original(
        {**analysis, "conditional": analysis["perPosition"], "conditionalIntervals": analysis["perPositionIntervals"]}
        if analysis["perPosition"] is not None else analysis, width))
    failure_of(CHECK, "trace-tables-match-model", "the figure's marks")


def test_tables_catch_spec_bench_speedup_per_token_inverted(monkeypatch):
    """Bug: EAGLE's 'speedup / tokens' cell as tokens / speedup (3.61 / 2.29 = 1.58, not 0.63)."""
    from lab.widgets import traces as widget

    original = widget.spec_bench_html
    monkeypatch.setattr(widget, "spec_bench_html", lambda: original().replace("<td>0.63</td>", "<td>1.58</td>", 1))
    failure_of(CHECK, "trace-tables-match-model", "Spec-Bench row")


def test_readouts_catch_a_p_value_read_as_its_complement(monkeypatch):
    from lab.widgets import traces as widget

    _widget_readout_mutant(monkeypatch, "pValue", lambda analysis: "n/a" if analysis["independence"] is None
                           else widget.to_fixed(1 - analysis["independence"]["pValue"], 4))
    failure_of(CHECK, "trace-readouts-match-model", "readout pValue")


def test_readouts_catch_a_lead_that_flips_the_trend(monkeypatch):
    from lab.widgets import traces as widget

    original = widget._lead
    monkeypatch.setattr(widget, "_lead", lambda analysis, source, best=None:
                        original(analysis, source, best).replace("falls with", "rises with"))
    failure_of(CHECK, "trace-readouts-match-model", "survival falls with position")


def test_readouts_catch_the_last_rate_repeated_past_the_measured_positions(monkeypatch):
    """Bug: past the measured k the widget repeats the last conditional rate (what it did before it
    took lab.acceptance's continuation): the EAGLE-3 preset without a curve (k = 7) loses its best k = 4,
    which rests on the library's fall fitted to its one figure."""
    from lab.widgets import traces as widget

    def repeated(analysis, lookahead):
        curve = traces.measured_curve(analysis)
        return [curve[min(i, len(curve) - 1)] for i in range(lookahead)], None

    monkeypatch.setattr(widget, "extended_curve", repeated)
    clear_caches(widget)
    try:
        failure_of(CHECK, "trace-readouts-match-model", "EAGLE-3 counts without curve", "'k = 4 (1.88x in the ledger)'")  # the EAGLE family's prior (the preset's method; 1.88x before the eighth curve search's P-EAGLE curve joined it, 1.89x from then to the 65-curve library, 1.88x again since the 73 of branch curves10 and its three EAGLE-3 curves); the pooled prior gave 1.87x (1.89x, 1.88x before the 36-curve library's nearest-r_1 prior)
    finally:
        monkeypatch.undo()
        clear_caches(widget)
