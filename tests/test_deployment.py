"""The deployment panel (lab/deployment.py, lab/widgets/deployment.py, lab/checks/deployment.py, the
`deployment` subcommand): unit conversions against lab.traces and numpy, the ledger's costs fitted
to the serving model recomputed here from the step times, the view on hostile input, every check
of the family broken on purpose, and the CLI."""

import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from lab import deployment, ledger, serving, traces
from lab.checks import _run_check, deployment as family
from lab.widgets import deployment as widget

ROOT = Path(__file__).resolve().parent.parent
D = deployment.DEFAULT_DEPLOYMENT


def _numpy_alpha(mean_accepted: float, k: int) -> float:
    """The real root in [0, 1] of a + a^2 + ... + a^k = mean_accepted, by numpy.roots."""
    roots = np.roots([1.0] * k + [-mean_accepted])  # coefficients of a^k .. a^1, then the constant
    real = [r.real for r in roots if abs(r.imag) < 1e-9 and -1e-9 <= r.real <= 1 + 1e-9]
    assert len(real) == 1, roots
    return real[0]


def disagreeing(reason: str) -> dict:
    """Panel settings (at alpha 71%) where the ledger names another best lookahead than the serving model,
    for ``reason``: ``"round"`` (only its whole-unit sliders) or ``"line"`` (its straight verify line).
    Found by search, not written down, so a recalibrated serving model keeps the test meaningful."""
    return _disagreeing()[reason]


@functools.lru_cache(maxsize=1)
def _disagreeing() -> dict:
    found = {}
    for target, gpus in (("llama-3-70b", "4"), ("llama-3-8b", "1")):
        for context in ("10", "12", "14"):
            for batch in range(11):
                for k in range(1, 13):
                    raw = {"unit": "alpha", "value": "71", "target": target, "gpus": gpus, "contextExp": context,
                           "batchExp": str(batch), "lookahead": str(k)}
                    answer = widget.view(raw)["answer"]
                    if answer["agree"] or answer["clamped"]:
                        continue
                    rounding = answer["ledger"]["unroundedBestLookahead"] == answer["servingSent"]["bestLookahead"]
                    found.setdefault("round" if rounding else "line", raw)
                    if len(found) == 2:
                        return found
    raise AssertionError(f"no setting shows both reasons: {found}")


# --- units ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("k", [1, 2, 4, 7, 12])
@pytest.mark.parametrize("alpha", [0.05, 0.3, 0.57, 0.705, 0.9, 0.99])
def test_every_unit_gives_back_the_same_alpha(alpha, k):
    units = traces.translate(k, alpha=alpha)
    from_rate = deployment.alpha_from(100 * units["acceptanceRate"], "rate", k)
    from_length = deployment.alpha_from(units["meanAcceptanceLength"], "length", k)
    assert from_rate == pytest.approx(alpha, abs=1e-8) and from_length == pytest.approx(alpha, abs=1e-8)
    assert deployment.alpha_from(100 * alpha, "alpha", k) == pytest.approx(alpha, abs=1e-15)
    # and, independently, the root of the geometric sum by numpy
    assert from_length == pytest.approx(_numpy_alpha(units["meanAcceptanceLength"] - 1, k), abs=1e-7)
    assert from_rate == pytest.approx(_numpy_alpha(units["acceptanceRate"] * k, k), abs=1e-7)
    # units_at is the translator's, at any other lookahead
    assert deployment.units_at(alpha, k) == traces.translate(k, alpha=alpha)


def test_the_signature_value_is_numpys_root():
    assert family.signature_value() == "0.705102"
    assert round(_numpy_alpha(1.8, 4), 6) == 0.705102


@pytest.mark.parametrize("value, unit, k, named", [
    (-1, "alpha", 4, "-1"), (100.5, "rate", 4, "100.5"), (0.5, "length", 4, "0.5"), (6, "length", 4, "k + 1 = 5"),
    ("2.8", "length", 4, "'2.8'"), (float("nan"), "length", 4, "nan"), (2, "furlongs", 4, "furlongs"),
])
def test_a_figure_outside_its_unit_is_refused_by_name(value, unit, k, named):
    with pytest.raises(ValueError) as error:
        deployment.alpha_from(value, unit, k)
    assert named in str(error.value)


def test_the_measured_lookahead_must_be_an_integer():
    for k in (0, 65, 2.5, True, "4"):
        with pytest.raises(ValueError, match="lookahead the acceptance was measured at"):
            deployment.alpha_from(50, "alpha", k)


# --- the fit, recomputed here ----------------------------------------------------------------------

@pytest.mark.parametrize("d", [D, D._replace(lookahead=1), D._replace(lookahead=9, batch=1),
                               D._replace(target="llama-3-8b", gpus=1, draft="llama-3.2-1b", context=16384),
                               D._replace(target="mixtral-8x7b", draft="ngram", gpu="a100-80g", batch=256)])
def test_the_ledger_fit_reproduces_the_serving_model(d):
    """The ledger's costs from the serving model's raw step times by this test's own arithmetic, and
    the ledger's speedup on them equals the serving model's at the reader's k."""
    s = serving.DEFAULT_SETTINGS.with_(target=d.target, draft=d.draft, gpu=d.gpu, gpus=d.gpus, batch=d.batch,
                                       context=d.context, lookahead=d.lookahead, acceptance=71,
                                       stepModel=serving.MEASURED)
    plain = serving.step_time_ms(serving.TARGETS[d.target], s, d.batch, 1, d.context)
    draft = serving.draft_step_ms(s, d.batch, d.context)
    verify = {k: serving.verify_step_ms(s.with_(lookahead=k), d.batch, d.context) for k in range(1, 14)}
    k = d.lookahead
    slope = verify[k] - verify[k - 1] if k >= 2 else verify[2] - verify[1]
    overhead = verify[k] - plain - (k - 1) * slope
    if overhead < 0:
        overhead, slope = 0.0, (verify[k] - plain) / (k - 1)
    # the cycle's emitted-token output processing joins the overhead: B (T - 1) x 21.2 us at alpha 0.71 on an
    # engine that pays it (vLLM V0), none on today's vLLM V1, the default
    pays = serving.ENGINES[s.engine].tokenOutput
    emitted = d.batch * (serving.tokens_per_cycle(0.71, k) - 1) * 21.2e-3 if pays else 0.0
    costs = deployment.ledger_costs(d, 0.71)
    assert costs == pytest.approx({"targetMs": plain, "draftCost": 100 * draft / plain,
                                   "verifyTax": 100 * slope / plain,
                                   "overheadMs": overhead + emitted + serving.draft_extend_ms(s, d.batch, d.context)},
                                  rel=1e-12)
    settings_ = ledger.LedgerSettings(acceptance=71, lookahead=k, **costs)
    assert ledger.ledger(settings_).speedup == pytest.approx(serving.serving(s).speedup, rel=1e-12)
    answer = deployment.answer(d, 0.71)
    assert answer["ledger"]["unroundedSpeedup"] == pytest.approx(serving.serving(s).speedup, rel=1e-12)
    assert answer["serving"]["speedup"] == serving.serving(s).speedup
    assert answer["serving"]["bestLookahead"] == serving.best_lookahead(s, 12)[0]



def test_the_fitted_ledgers_cycle_and_verify_come_from_one_settings():
    """ledger_cycle_ms and ledger_verify_ms read one LedgerSettings, built by to_ledger_settings from
    every fitted cost (review CR-2.10): a cost the builder dropped or swapped moves one of them; a
    cost missing is refused, never the ledger's default."""
    costs = deployment.ledger_costs(D, 0.6)
    for k in (1, 4, 12):
        settings_ = ledger.LedgerSettings(acceptance=0, lookahead=k, **costs)
        assert deployment.to_ledger_settings(costs, acceptance=0, lookahead=k) == settings_
        assert deployment.ledger_cycle_ms(costs, k) == ledger.ledger(settings_).cycleMs
        assert deployment.ledger_verify_ms(costs, k) == ledger.ledger(settings_).verifyMs + costs["overheadMs"]
        assert deployment.ledger_verify_ms(costs, k) + ledger.ledger(settings_).draftMs == pytest.approx(
            deployment.ledger_cycle_ms(costs, k), rel=1e-12)
    assert deployment.to_ledger_settings({**costs, "acceptance": 40, "lookahead": 3, "other": 1}) == ledger.LedgerSettings(
        acceptance=40, lookahead=3, **costs)
    with pytest.raises(KeyError, match="verifyTax"):
        deployment.to_ledger_settings({name: costs[name] for name in costs if name != "verifyTax"}, acceptance=0,
                                      lookahead=2)

def test_what_each_instrument_receives_fits_its_controls():
    from lab.urlstate import LEDGER_SLIDERS
    from lab.widgets import policies, trees

    values = deployment.instrument_values(D, 0.705102)
    assert values["ledger"]["acceptance"] == values["serving"]["acceptance"] == 71 == values["trees"]["top1"]
    assert values["serving"]["batchExp"] == 5 and values["serving"]["contextExp"] == 10
    assert values["ledger"]["trcCurve"] == values["serving"]["srvCurve"] == values["policies"]["polCurve"] == ""
    for sliders, sent in ((LEDGER_SLIDERS, values["ledger"]), (policies.SLIDERS, values["policies"]),
                          (trees.SLIDERS, values["trees"])):
        for slider in sliders:
            if slider.name in sent:
                assert slider.minimum <= sent[slider.name] <= slider.maximum, slider.name
                assert float(sent[slider.name]).is_integer(), slider.name
    # the real-text widget stops at its own largest lookahead, and the exact sampler's take whole units
    from lab.urlstate import EXACT_SLIDERS
    from lab.widgets import realtext

    deep = deployment.instrument_values(D._replace(lookahead=12), 0.7)
    [rt_lookahead] = [s for s in realtext.SLIDERS if s.name == "rtLookahead"]
    assert deep["realtext"]["rtLookahead"] == rt_lookahead.maximum == 8 and deep["exact"]["gamma"] == 12
    for slider in EXACT_SLIDERS:
        if slider.name in deep["exact"]:
            assert slider.minimum <= deep["exact"][slider.name] <= slider.maximum, slider.name
    # a deployment past the ledger's sliders is clamped, and the answer says which
    huge = D._replace(target="deepseek-v3", gpu="l40s", gpus=1, batch=1024, context=131072)
    answer = deployment.answer(huge, 0.7)
    assert answer["values"]["ledger"]["targetMs"] == 500 and "targetMs" in answer["clamped"]
    assert "cannot hold this deployment" in widget.view({"target": "deepseek-v3", "gpu": "l40s", "gpus": "1",
                                                         "batchExp": "10", "contextExp": "17"})["summary"]


# --- the view -----------------------------------------------------------------------------------

def test_a_trace_hands_its_alpha_to_the_panel():
    """The traces widget's button for the panel carries the trace's alpha in the panel's own unit."""
    from lab.widgets import traces as traces_widget

    view = traces_widget.view(None)
    markup = view["figures"]["send"]
    [values] = [json.loads(part.split('"')[0].replace("&quot;", '"'))
                for part in markup.split('data-target="deployment" disabled data-values="')[1:]]
    analysis = traces.analyse(traces.preset_trace(traces.DEFAULT_PRESET))
    assert values == {"unit": "alpha", "value": f"{100 * analysis['alphaIid']:.2f}", "measuredK": "6"}
    panel = widget.view(values)
    assert panel["notes"] == [] and panel["answer"]["alpha"] == pytest.approx(analysis["alphaIid"], abs=5e-5)
    assert panel["answer"]["acceptancePercent"] == round(100 * analysis["alphaIid"])


def test_the_default_view_answers_the_readers_question():
    view = widget.view(None)
    answer = view["answer"]
    assert view["notes"] == [] and answer["acceptancePercent"] == 71
    assert view["summary"].startswith(f"Speculation pays {answer['serving']['speedup']:.2f}x at lookahead 4")
    # one figure travels as a curve: its length at k = 4, extended by the EAGLE family's decay prior
    assert ("On your figure at k = 4, extended to other lookaheads by the EAGLE / EAGLE-3 family's decay prior (acceptance "
            "falls with position), the mean acceptance length at k = 4 is 2.80") in view["summary"]
    assert answer["curve"]["source"] == "single" and answer["curve"]["method"] == "eagle"
    assert view["figures"]["instruments"].count('data-action="send"') == len(widget.INSTRUMENTS)
    sends = json.loads(view["figures"]["sendAll"].split('data-sends="')[1].split('"')[0].replace("&quot;", '"'))
    assert [send["target"] for send in sends] == [name for name, _, _ in widget.INSTRUMENTS]
    assert view["query"] == widget.view(f"?{view['query']}")["query"]  # a link restores the same settings
    assert widget.view(f"?{view['query']}")["summary"] == view["summary"]


def test_a_different_best_lookahead_is_explained_with_both_numbers():
    # the straight verify line: both lookaheads, with both models' verify costs
    view = widget.view(disagreeing("line"))
    answer = view["answer"]
    k = int(disagreeing("line")["lookahead"])
    assert f"the best lookahead is {answer['serving']['bestLookahead']}" in view["summary"] or \
        answer["serving"]["bestLookahead"] == k
    assert (f"The ledger's simpler model says best k = {answer['ledger']['bestLookahead']}" in view["summary"]
            and f"because it prices each extra verified token at one tax fitted at k = {k}" in view["summary"])
    for row in answer["compare"]:
        assert f"{row['ledgerVerifyMs']:.2f} ms at k = {row['lookahead']} (serving: {row['servingVerifyMs']:.2f} ms)" \
            in view["summary"]
    # where only the sliders' whole units move the ledger's best k, the panel says that instead
    rounded = widget.view(disagreeing("round"))
    sent, fitted = rounded["answer"]["values"]["ledger"], rounded["answer"]["costs"]
    assert (f"only because its sliders hold whole units: target pass {sent['targetMs']} ms for "
            f"{fitted['targetMs']:.2f} ms") in rounded["summary"]
    assert f"on the unrounded costs it agrees, best k = {rounded['answer']['serving']['bestLookahead']}" \
        in rounded["summary"]


def _library_curve(name="dsv4-pro-mtp-thinking"):
    from lab import acceptance

    return acceptance.from_lengths(dict(enumerate(acceptance.library_lengths(name), 1)))


def test_the_verify_costs_are_compared_at_the_best_lookaheads_on_the_curve():
    """On a curve the summary sets the two models' verify costs side by side at the best lookaheads the answer names
    on the curve, never at i.i.d.'s (on DeepSeek-V4-Pro's measured MTP curve, which plateaus, i.i.d. at the same
    length names k = 4 and 6 where the curve names 2 and 3; 4 and 7 against 3 when TensorRT-LLM's MoE cost was charged
    to the default engine, before lab.serving_moe); and on the panel's default path (a figure extended by its
    prior) the sentence's lookaheads are the answer's."""
    import re

    curve = _library_curve()
    d = D._replace(target="deepseek-v3", gpu="h200", gpus=8, precision="fp8", batch=32, lookahead=2)
    answer = deployment.answer(d, deployment.alpha_from(curve.length(2), "length", 2), curve)
    bests = {answer["serving"]["bestLookahead"], answer["ledger"]["bestLookahead"]}
    assert [row["lookahead"] for row in answer["compare"]] == sorted(bests) == [2, 3]
    iid = deployment.answer(d, deployment.alpha_from(curve.length(2), "length", 2))
    assert not {iid["serving"]["bestLookahead"], iid["ledger"]["bestLookahead"]} & bests
    for row in answer["compare"]:
        assert row["servingVerifyMs"] == deployment.step_times(d, row["lookahead"])["verify"]
        assert row["ledgerVerifyMs"] == deployment.ledger_verify_ms(answer["costs"], row["lookahead"])
    # at lookahead 2, the panel's default (from the eighth curve search's P-EAGLE curve to the ninth search's 65 curves
    # the two models named the same best k there and the test ran at 4; since the 73 curves of branch curves10 they
    # differ at 2 again, 3 and 2, and name the same at 3 and 4, where the sentence then compares nothing)
    raw = {"target": "mixtral-8x7b", "lookahead": "2", "batchExp": "0", "contextExp": "10"}
    view = widget.view(raw)
    said = [int(k) for k in re.findall(r"at k = (\d+) \(serving:", view["summary"])]
    answer = view["answer"]
    assert answer["serving"]["bestLookahead"] != answer["ledger"]["bestLookahead"]
    assert said and said == sorted({answer["serving"]["bestLookahead"], answer["ledger"]["bestLookahead"]})


def test_verify_costs_compared_at_iids_lookaheads_fail_the_readout_check(monkeypatch):
    """The readout check holds the summary's comparison to the best lookaheads on the curve: the answer's
    comparison put back at i.i.d.'s lookaheads (as it was) fails it."""
    on_curve = deployment._curve_answer

    def at_iids(d, alpha, curve):
        answer = on_curve(d, alpha, curve)
        return {**answer, "compare": deployment._iid_answer(d, alpha)["compare"]}

    monkeypatch.setattr(deployment, "_curve_answer", at_iids)
    failure = _fails("deployment-readouts-match-model")
    assert failure and "the summary compares the verify costs at k = [" in failure


def test_the_instruments_list_says_the_curve_is_what_they_receive():
    """On a curve (the panel's default figure travels extended by its prior) the ledger, the policies and serving
    receive the curve itself, their one acceptance slider set aside, and the trees value their depth profile on it:
    the list says so, and says the policies run on the curve, not on their bursty process; one alpha says alpha."""
    import html
    import re

    def rows(raw):
        text = widget.view(raw)["figures"]["instruments"]
        found = re.findall(r'data-target="([^"]+)".*?class="dep-gets">(.*?)</p><p class="dep-uses">(.*?)</p>', text, re.S)
        return {name: (html.unescape(gets), html.unescape(uses)) for name, gets, uses in found}

    on_curve, one_alpha = rows({}), rows({"unit": "alpha", "value": "70"})
    percent = widget.view({})["answer"]["acceptancePercent"]
    for name in ("ledger", "policies", "serving"):
        assert f"your curve (its slider's \u03b1 {percent}% set aside)" in on_curve[name][0], on_curve[name]
        assert "your curve" not in one_alpha[name][0] and "\u03b1 70%" in one_alpha[name][0]
    assert "your curve for its depth profile" in on_curve["trees"][0] and "curve" not in one_alpha["trees"][0]
    assert "bursty" not in on_curve["policies"][1] and "over your curve" in on_curve["policies"][1]
    assert "bursty" in one_alpha["policies"][1]
    assert "(the token trees value their tree on it level by level)" in widget.view({})["summary"]


@pytest.mark.parametrize("kind", ["ledger", "serving", "policies"])
def test_a_widget_sent_the_panels_curve_does_not_say_it_is_not_the_panels(kind):
    """The panel sends its curve; the receiving widget, in measured-curve mode, says it runs on the curve that was
    sent (the panel's own or a trace's), where it said the curve replaced the panel's figure and its speedup was not
    the panel's (serving's readout is the panel's answer on it: deployment-serving-shows-the-answer holds them)."""
    from lab import instruments, views

    receiver = instruments.part("widgets", kind)
    sent = {name: str(value) for name, value in widget.view({})["answer"]["values"][kind].items()}
    raw = {**sent, "origin": "sent"}
    view = receiver.view(raw)
    said = views.sent_differs(receiver, view, raw)
    assert view["curveMode"] and said.startswith("It runs on the curve that was sent (the panel's own")
    assert "not the panel's" not in said and "one acceptance figure" not in said


@pytest.mark.parametrize("raw, named, valid", [
    ({"value": "abc"}, "Your acceptance figure", "valid: 1 to k + 1 = 5"),  # the unit's range (a length at k = 4)
    ({"value": "abc", "unit": "rate"}, "Your acceptance figure", "valid: 0 to 100"),
    ({"value": "7", "unit": "length", "measuredK": "4"}, "Your acceptance figure", "1 to k + 1 = 5"),
    ({"value": "-3", "unit": "rate"}, "Your acceptance figure", "less than the smallest, 0; using 0"),
    ({"unit": "furlongs"}, "Its unit", "\u201cmean acceptance length\u201d"),
    ({"target": "gpt-5"}, "Target model", "using Llama-3-70B"),
    ({"gpus": "3"}, "GPU count", "\u201c1\u201d, \u201c2\u201d, \u201c4\u201d, \u201c8\u201d"),
    ({"lookahead": "99"}, "Lookahead k to run", "the largest, 12 tokens"),
    ("?depBatchLog2=x&depK=4", "Batch B", "1 to 1,024 sequences"),
])
def test_bad_values_are_named_with_what_is_valid(raw, named, valid):
    notes = widget.view(raw)["notes"]
    assert any(note.startswith(named) and valid in note for note in notes), notes


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.none(), st.integers(), st.text(max_size=80),
                 st.dictionaries(st.sampled_from(["value", "unit", "measuredK", "lookahead", "batchExp", "contextExp",
                                                  "target", "draft", "gpu", "gpus", "width"]),
                                 st.one_of(st.text(max_size=12), st.integers(-10 ** 6, 10 ** 6),
                                           st.floats(allow_nan=True), st.none(), st.lists(st.integers())))))
def test_the_view_never_raises(raw):
    view = widget.view(raw)
    assert view["summary"] and "answer" in view


# --- the family, broken on purpose --------------------------------------------------------------

def _fails(name):
    check = dict(family.CHECKS)[name]
    family._fit.cache_clear()
    outcome = _run_check(check)
    family._fit.cache_clear()
    return outcome.failure


def test_every_check_passes_as_written():
    for name, _ in family.CHECKS:
        assert _fails(name) is None, name


def test_the_engines_rate_read_as_alpha_fails_the_round_trip(monkeypatch):
    original = deployment.alpha_from
    monkeypatch.setattr(deployment, "alpha_from", lambda v, u, k: v / 100 if u == "rate" else original(v, u, k))
    assert "as rate" in _fails("deployment-units-round-trip")


def test_clamping_instead_of_refusing_fails(monkeypatch):
    original = deployment.alpha_from
    monkeypatch.setattr(deployment, "alpha_from", lambda v, u, k: original(min(max(v, 1), k + 1) if u == "length"
                                                                             else min(max(v, 0), 100), u, k))
    assert "was converted" in _fails("deployment-unit-bounds-refused")


def test_a_fit_without_its_overhead_fails(monkeypatch):
    original = deployment.ledger_costs
    monkeypatch.setattr(deployment, "ledger_costs", lambda d, alpha=0.0: {**original(d, alpha), "overheadMs": 0.0})
    assert "ledger cycle" in _fails("deployment-ledger-fit-reproduces-serving")


def test_sliders_that_do_not_clamp_fail(monkeypatch):
    monkeypatch.setattr(deployment, "round_to_step", lambda value, low, high, step=1: int(value + 0.5))
    assert "outside" in _fails("deployment-fitted-costs-are-sliders")


def test_sending_serving_another_step_model_fails(monkeypatch):
    original = deployment.instrument_values

    def roofline(d, alpha, curve=None):
        values = original(d, alpha, curve)
        values["serving"]["stepModel"] = serving.ROOFLINE
        return values

    monkeypatch.setattr(deployment, "instrument_values", roofline)
    assert "serving shows" in _fails("deployment-serving-shows-the-answer")


def test_a_shorter_lookahead_scan_than_the_ledgers_fails(monkeypatch):
    monkeypatch.setattr(deployment, "MAX_LOOKAHEAD", 3)
    assert "the ledger shows" in _fails("deployment-ledger-shows-its-answer")


def test_policies_without_the_ledgers_costs_fail(monkeypatch):
    original = deployment.instrument_values

    def no_costs(d, alpha, curve=None):
        values = original(d, alpha, curve)
        for name in ("verifyTax", "overheadMs", "targetMs"):
            values["policies"].pop(name)
        return values

    monkeypatch.setattr(deployment, "instrument_values", no_costs)
    assert "policies best static" in _fails("deployment-policies-independent-is-ledger")


def test_policies_that_collapse_the_sent_curve_to_one_alpha_fail(monkeypatch):
    """The check holds the policies on the curve the panel sends: run on the curve's mean as one alpha instead
    (the collapse to one number this test guards against), their best static k leaves the ledger's on the curve, and it fails."""
    from lab import policies

    monkeypatch.setattr(policies, "received_curve", lambda curve, measured=None, method=None: policies.iid(sum(curve) / len(curve)))
    failure = _fails("deployment-policies-independent-is-ledger")
    assert failure and "on the sent curve the policies' best static k" in failure


def test_the_serving_check_scans_the_sent_curve_by_the_one_best_k_rule():
    """The serving check's own scan of the sent curve goes through lab.acceptance.best_lookahead, as the serving
    widget and the panel do: on 2.2 tokens per call at k = 4 with an n-gram draft at batch 1 (its prior plateaus from
    k = 6) the bare first-largest scan says 11 where both say 7 (the case in the check's grid, so the check fails
    there without the rule). The default figure on an n-gram draft (2.8 at k = 4) was that case until copying
    drafters' priors could rise (December 2026): its curve now rises and has no plateau, and every scan says 12."""
    from lab import acceptance
    from lab.widgets import serving as serving_widget

    for raw, plateau, best, bare in (({"draft": "ngram", "batchExp": "0", "value": "2.2"}, 6, 7, 11),
                                     ({"draft": "ngram", "batchExp": "0"}, None, 12, 12)):
        answer = widget.view(raw)["answer"]
        assert answer["curve"]["plateauStart"] == plateau and answer["servingSent"]["bestLookahead"] == best
        shown = serving_widget.view({name: str(value) for name, value in answer["values"]["serving"].items()})
        settings, token = serving_widget._settings(shown["params"]), answer["values"]["serving"]["srvCurve"]
        assert family._sent_curve_best(settings, token) == best
        rates, measured = acceptance.token_rates(token), acceptance.token_measured_at(token)
        speedups = [serving.serving(settings.with_(lookahead=k), serving.received_curve(rates, measured, k)).speedup
                    for k in range(1, 13)]
        assert speedups.index(max(speedups)) + 1 == bare
        assert raw in family.VIEW_GRID


def test_a_silent_clamp_of_the_figure_fails(monkeypatch):
    original = widget._params

    def quiet(raw):
        params, notes, width = original(raw)
        return params, [note for note in notes if not note.startswith("Your acceptance figure")], width

    monkeypatch.setattr(widget, "_params", quiet)
    assert "no note names Your acceptance figure" in _fails("deployment-view-names-bad-values")


# --- the CLI --------------------------------------------------------------------------------------

def _cli(*args):
    return subprocess.run([sys.executable, "-m", "lab", "deployment", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_cli_answers_like_the_panel():
    run = _cli("--mean-acceptance-length", "2.8", "--measured-at", "4", "--json")
    assert run.returncode == 0, run.stderr
    document = json.loads(run.stdout)
    answer = widget.view(None)["answer"]
    assert document["alpha"] == answer["alpha"] and document["serving"] == answer["serving"]
    assert document["instruments"] == answer["values"] and document["agree"] is True
    for reason, words in (("line", "differs: a straight verify line"), ("round", "differs only by its sliders")):
        raw = disagreeing(reason)
        text = _cli("--alpha", "71", "--target", raw["target"], "--gpus", raw["gpus"], "--lookahead", raw["lookahead"],
                    "--batch", str(2 ** int(raw["batchExp"])), "--context", str(2 ** int(raw["contextExp"])))
        best = widget.view(raw)["answer"]["serving"]["bestLookahead"]
        assert text.returncode == 0 and f"best k = {best}" in text.stdout and words in text.stdout, text.stdout


@pytest.mark.parametrize("args, message", [
    ((), "give exactly one of --alpha, --acceptance-rate, --mean-acceptance-length"),
    (("--alpha", "abc"), "--alpha must be a number from 0 to 100, got 'abc'"),
    (("--mean-acceptance-length", "6", "--measured-at", "4"), "--mean-acceptance-length must be a number from 1 to 5"),
    (("--alpha", "50", "--batch", "24.5"), "--batch must be an integer from 1 to 1024, got '24.5'"),
    (("--alpha", "50", "--context", "100"), "--context must be an integer from 512 to 131072, got '100'"),
    (("--alpha", "50", "--gpu", "tpu"), "--gpu must be one of"),
    (("--alpha", "50", "--measured-at", "-1"), "--measured-at must be an integer from 1 to 64, got '-1'"),
    (("--alpha", "50", "--lookahead", "13"), "--lookahead must be an integer from 1 to 12, got '13'"),
])
def test_cli_refuses_bad_flags_in_one_line(args, message):
    run = _cli(*args)
    assert run.returncode == 2 and run.stdout == ""
    assert message in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr


# --- limits read from where they are defined (review CR-1.10) -----------------------------------------

def test_the_panels_lookahead_scan_ends_where_the_receiving_sliders_end():
    """deployment.MAX_LOOKAHEAD is read from the ledger's lookahead slider; the serving widget's slider,
    which also receives the panel's best k, ends there too."""
    from lab.urlstate import LEDGER_SLIDERS
    from lab.widgets import serving as serving_widget

    ends = {slider.maximum for sliders in (LEDGER_SLIDERS, serving_widget.SLIDERS) for slider in sliders
            if slider.name == "lookahead"}
    assert ends == {deployment.MAX_LOOKAHEAD}


def test_the_measured_lookahead_is_bounded_by_the_trace_readers_limit(monkeypatch):
    """alpha_from refuses a measured lookahead past lab.traces.MAX_LOOKAHEAD, naming that limit, not a
    typed 64."""
    assert deployment.alpha_from(50, "alpha", traces.MAX_LOOKAHEAD) == pytest.approx(0.5)
    with pytest.raises(ValueError, match=f"from 1 to {traces.MAX_LOOKAHEAD}, got {traces.MAX_LOOKAHEAD + 1}"):
        deployment.alpha_from(50, "alpha", traces.MAX_LOOKAHEAD + 1)
    monkeypatch.setattr(traces, "MAX_LOOKAHEAD", 32)
    with pytest.raises(ValueError, match="from 1 to 32, got 40"):
        deployment.alpha_from(50, "alpha", 40)


def test_the_panels_measured_lookahead_ends_at_the_trace_readers_limit(monkeypatch):
    """The panel's "measured at lookahead k" field and the log pasted into its acceptance field are bounded by
    lab.traces.MAX_LOOKAHEAD, the one limit of the trace reader, not a typed 64."""
    [measured] = [slider for slider in widget.SLIDERS if slider.name == "measuredK"]
    assert (measured.minimum, measured.maximum) == (1, traces.MAX_LOOKAHEAD)
    text = traces.PRESETS[traces.DEFAULT_PRESET]["text"]  # a vLLM log read at k = 6
    assert widget.pasted_log(text)[0] == {"value": "2.79", "unit": "length", "measuredK": "6"}
    monkeypatch.setattr(traces, "MAX_LOOKAHEAD", 5)
    values, note = widget.pasted_log(text)
    assert values is None and "gives no mean acceptance length at a lookahead" in note


def test_cli_computes_at_a_batch_between_two_stops():
    """The panel's typed field takes 48 and computes at 48; the CLI takes the same count, not only powers of two."""
    import json
    run = _cli("--alpha", "70", "--batch", "48", "--json")
    assert run.returncode == 0, run.stderr
    document = json.loads(run.stdout)
    expected = deployment.answer(deployment.DEFAULT_DEPLOYMENT._replace(batch=48), 0.70)
    at_64 = deployment.answer(deployment.DEFAULT_DEPLOYMENT._replace(batch=64), 0.70)
    assert expected["serving"]["speedup"] != at_64["serving"]["speedup"]
    assert json.dumps(document["serving"]["speedup"]) == json.dumps(expected["serving"]["speedup"])


def test_a_schedule_that_ignores_the_curve_fails_the_readout_check(monkeypatch):
    """The k schedule, the engine configuration, the production figures and the diagnosis run on the answer's
    curve; charged one whole-percent alpha instead (as they were), the schedule's k at the reader's batch leaves the
    answer's best k on the curve, and the check says so."""
    from lab import production

    production._KEPT.clear()
    monkeypatch.setattr(deployment, "curve_schedule_terms", lambda curve: (None, None))
    failure = _fails("deployment-readouts-match-model")
    production._KEPT.clear()
    assert failure and "the k schedule runs k =" in failure


def test_the_schedule_runs_on_the_curve_and_stops_at_its_plateau(capsys):
    """DeepSeek-V4-Pro's measured MTP curve plateaus from k = 4: no batch's k passes 5, and at the reader's batch the
    schedule runs the k the answer names; the diagnosis speaks of the curve's survival, not alpha^k."""
    from lab import acceptance
    from lab.cli import main

    lengths = ",".join(f"{k}:{v}" for k, v in enumerate(acceptance.library_lengths("dsv4-pro-mtp-thinking"), 1))
    for batch in ("1", "64"):
        assert main(["deployment", "--target", "deepseek-v3", "--draft", "eagle-head", "--gpu", "h200", "--gpus", "8",
                     "--precision", "fp8", "--batch", batch, "--lookahead", "8", "--lengths", lengths, "--json"]) == 0
        document = json.loads(capsys.readouterr().out)
        ks = [row["lookahead"] for row in document["schedule"]]
        assert max(ks) <= document["curve"]["plateauStart"] + 1
        here = next(row["lookahead"] for row in document["schedule"] if row["from"] <= int(batch) <= row["to"])
        assert here == document["serving"]["bestLookahead"]
        said = " ".join(item["sentence"] for item in document["diagnosis"])
        assert "on your curve" in said and "\u03b1^8" not in said
    # the text's first line says its alpha is the curve's i.i.d. equivalent at k, not the figure its speedups run on
    assert main(["deployment", "--target", "deepseek-v3", "--draft", "eagle-head", "--gpu", "h200", "--gpus", "8",
                 "--precision", "fp8", "--batch", "64", "--lookahead", "8", "--lengths", lengths]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "the independent model's equivalent of the curve at k = 8" in first and "run on the curve" in first


def test_the_eagle3_head_is_a_preset_the_panels_offer_and_send_unchanged():
    """The EAGLE-3 head (what most readers run in 2026) is a draft both panels offer, under its label; its URL
    state round-trips; and the deployment panel's button for the serving widget sends it, which that widget
    takes as it is (no note, the same draft), with the EAGLE prior (lab.acceptance.family_of_draft)."""
    from lab import acceptance
    from lab.widgets import serving as serving_widget

    label = "EAGLE-3 head (1 layer)"
    for controls in (widget.CONTROLS, serving_widget.CONTROLS):
        [choice] = [c for c in controls if getattr(c, "name", "") == "draft"]
        assert choice.options[serving.EAGLE3] == label and choice.default == serving.EAGLE
    # a per-token alpha, so the serving widget gets no curve of the reader's (which its address cannot keep)
    panel = widget.view("depDraft=eagle3-head&depTarget=llama-3-8b&depGpus=1&depUnit=alpha&depValue=70")
    assert panel["notes"] == [] and panel["params"]["draft"] == serving.EAGLE3 and "depDraft=eagle3-head" in panel["query"]
    sent, _, _ = family._list_rows(panel["figures"]["instruments"])["serving"]
    assert sent["draft"] == serving.EAGLE3
    received = serving_widget.view(sent)
    assert received["notes"] == [] and received["params"]["draft"] == serving.EAGLE3
    # (a draft the widget does not offer would come back with a note and the default: what this guards against)
    assert any(note.startswith("Draft:") for note in serving_widget.view(dict(sent, draft="eagle4-head"))["notes"])
    assert "srvDraft=eagle3-head" in received["query"]
    assert serving_widget.view(received["query"])["params"]["draft"] == serving.EAGLE3
    assert acceptance.family_of_draft(serving.EAGLE3, "deepseek-v3") == "eagle"
    # the engine configuration it shows is an EAGLE-3 head's
    assert '"method": "eagle3"' in panel["engineAnswer"]["config"]["text"]


def test_the_panels_sentences_name_what_the_model_finds(monkeypatch):
    """The reviewer's pass of 4 December 2026: the diagnosis said "below the crossover" where the model finds no
    crossover at any batch that fits; the prefill line called every draft "a separate draft"; the token trees' entry
    typed Part one's costs by hand. Each now follows the lab, and a mutant of the trees' costs moves the text."""
    from lab.widgets import trees as trees_widget

    view = widget.view(None)
    none = [row for row in view["engineAnswer"]["diagnosis"] if row["factor"] == "none"]
    assert len(none) == 1  # the default deployment has no limiting factor: its batch is below k's crossover, named
    found = re.search(r"batch (\d+), below its crossover at k = \d+ \(batch (\d+)\), with a verify pass", none[0]["sentence"])
    assert found and int(found[1]) < int(found[2])
    assert "below the crossover, with" not in view["figures"]["diagnosis"]
    assert "a separate draft prefills" not in view["figures"]["prefill"]
    assert "the draft prefills the prompt too" in view["figures"]["prefill"]
    ngram = widget.view({"draft": "ngram"})["figures"]["prefill"]
    assert "n-gram lookup has no model to prefill, 0.00 ms" in ngram
    ledger_defaults = ledger.LedgerSettings()
    assert (trees_widget.TARGET_MS, trees_widget.DRAFT_COST, trees_widget.OVERHEAD_MS) == (
        ledger_defaults.targetMs, ledger_defaults.draftCost, ledger_defaults.overheadMs)
    assert "(80 ms target, 12% draft, 6 ms overhead)" in view["figures"]["instruments"]
    monkeypatch.setattr(trees_widget, "TARGET_MS", 90.0)
    assert "(90 ms target, 12% draft, 6 ms overhead)" in widget.view(None)["figures"]["instruments"]


def test_the_diagnosis_says_when_no_batch_that_fits_crosses():
    """Llama-3-8B with an EAGLE head on one H100 at k = 2 never stops paying at a batch that fits (as the serving
    widget's default says, up to 392): the diagnosis says so instead of naming a crossover it has not found."""
    from lab import production

    s = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, target="llama-3-8b", draft="eagle-head",
                                       gpu="h100-sxm", gpus=1, batch=8, acceptance=70)
    ks = production.k_by_batch(s)
    assert production.crossover_within(s.with_(batch=1, lookahead=2), len(ks)) is None
    (row,) = production.diagnosis(s, 2, ks)
    assert row["factor"] == "none" and ", no crossover at any batch that fits, with a verify pass" in row["sentence"]


def test_the_panels_times_and_costs_carry_the_serving_trust_line():
    """The panel's TPOT, tokens per second and costs are the serving model's, so its production fold and the CLI
    state how far to trust them with the serving instrument's own rule for the same engine, GPU, target and draft:
    a measured error band where published speedups of that family exist, "not validated" where none do."""
    from lab.figures import escape
    from lab.widgets import deployment as panel
    from lab.widgets import serving as serving_widget

    view = panel.view(None)
    d = panel._deployment(view["params"])
    settings = deployment.serving_settings(d, view["answer"]["acceptancePercent"])
    assert settings.stepModel == serving.MEASURED
    line = serving_widget.trust_line(settings)
    assert escape(line) in view["figures"]["trust"] and "not validated" in line   # today's V1 default: no row
    rows = ["--mean-acceptance-length", "1.86", "--measured-at", "3", "--target", "qwen3-30b-a3b", "--draft",
            "eagle3-head", "--gpu", "h100-sxm", "--gpus", "2", "--batch", "1", "--lookahead", "3", "--context", "1200"]
    done = _cli(*rows, "--engine", "sglang-no-overlap", "--json")
    assert done.returncode == 0, done.stderr
    trust = json.loads(done.stdout)["trust"]
    assert "off by" in trust and "published speedups of SGLang 2025" in trust
    assert f"trust: {trust}" in _cli(*rows, "--engine", "sglang-no-overlap").stdout.splitlines()
    other = json.loads(_cli(*rows, "--engine", "sglang", "--json").stdout)["trust"]
    assert "not validated for SGLang (today" in other   # never the 2025 engine's band


def test_a_best_k_at_the_panel_s_longest_lookahead_says_a_longer_one_may_pay(capsys):
    """The panel scans k to 12 (the ledger's range, fixed by the seed contract); where its best k is 12, the widget and
    the CLI say a longer lookahead may pay more and where it is searched (serving, to 64, finds k = 20 here); a best k
    inside the range gets no such note."""
    from lab import cli

    edge = "depTarget=qwen3-8b&depDraft=suffix&depGpus=1&depUnit=length&depValue=6&depMeasuredK=12&depK=12&depBatch=1"
    view = widget.view(edge)
    assert view["notes"] == [deployment.lookahead_edge_note(12)] and "12" in view["live"]
    assert cli.main(["serving", "--target", "qwen3-8b", "--draft", "suffix", "--gpu", "h100-sxm", "--batch", "1",
                     "--context", "1024", "--lookahead", "12", "--lengths", "12:6", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bestLookahead"] > 12
    assert cli.main(["deployment", "--target", "qwen3-8b", "--draft", "suffix", "--gpu", "h100-sxm", "--gpus", "1",
                     "--batch", "1", "--mean-acceptance-length", "6", "--measured-at", "12", "--lookahead", "12"]) == 0
    assert "note: " + deployment.lookahead_edge_note(12) in capsys.readouterr().out
    inside = widget.view(edge.replace("depValue=6", "depValue=2.2"))
    assert not any(note.startswith("k = 12 is the longest") for note in inside["notes"])


def test_the_chance_all_drafts_survive_read_at_k_plus_1_fails_the_diagnosis_rules(monkeypatch):
    from lab import production
    monkeypatch.setattr(production, "_survival", lambda alpha, k, curve=None: alpha ** (k + 1))
    assert "the chance all 4 drafts survive is given as 0.03125" in _fails("deployment-diagnosis-by-its-rules")


def test_a_crossover_named_one_batch_late_fails_the_diagnosis_rules(monkeypatch):
    from lab import production
    original = production._crossover
    monkeypatch.setattr(production, "_crossover", lambda *args: (lambda c: None if c is None else c + 1)(original(*args)))
    assert "at batch 10: crossover named False, but the first losing batch is 10" in _fails(
        "deployment-diagnosis-by-its-rules")


def test_the_plugin_limit_set_at_its_default_fails_the_engine_config_rules(monkeypatch):
    from lab import engine_config
    monkeypatch.setattr(engine_config, "ARCTIC_SUFFIX_BATCH_LIMIT", 63)
    assert "vLLM 0.10.1 at batch 64: disable_by_batch_size 64" in _fails("deployment-engine-config-as-read")


def test_a_target_s_mtp_module_configured_as_an_eagle_checkpoint_fails_the_engine_config_rules(monkeypatch):
    from lab import engine_config
    monkeypatch.setattr(engine_config, "MTP_TARGETS", frozenset())
    assert "deepseek-v3's EAGLE preset configured as" in _fails("deployment-engine-config-as-read")


def test_the_draft_prefill_priced_without_its_prompt_as_context_fails_the_cost_arithmetic(monkeypatch):
    from lab import production
    original = production.draft_prefill_ms
    monkeypatch.setattr(production, "draft_prefill_ms", lambda s, n: (
        0.0 if serving.draft_shape(s) is None else serving.step_time_ms(serving.draft_shape(s), s, 1, n, 0),
        original(s, n)[1]))
    assert "is not one pass of its prompt at that context" in _fails("deployment-cost-arithmetic")
