"""Acceptance by draft position (lab.acceptance): the model, its library, the CLI, and mutation tests of
its instruments-suite checks (its leave-one-out validation: tests/test_acceptance_validation.py)."""

import json
import subprocess
import sys

import numpy as np
import pytest

from lab import acceptance, acceptance_rates, ledger, serving, traces
from lab.acceptance_curves import CURVES
from lab.checks import deployment as family
from lab.cli import main
from mutation import failure_of

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def test_every_library_curve_names_its_source_and_licence():
    for name, (fam, kind, values, label, source, licence) in CURVES.items():
        assert fam in acceptance.FAMILIES and kind in ("lengths", "unconditional"), name
        assert source and licence and label, name
        assert len(values) >= 3, name
        if kind == "lengths":
            assert all(1 <= v <= k + 1 for k, v in enumerate(values, start=1)), name
        else:
            assert all(b <= a for a, b in zip(values, values[1:])), name


@pytest.mark.parametrize("name, preset", [("club3090-qwen3.6-27b-mtp", "club3090-mtp"),
                                          ("llamacpp-24536-eagle3", "llamacpp-24536-eagle3")])
def test_library_copies_of_the_trace_presets_agree_with_the_trace_reader(name, preset):
    read = traces.analyse(traces.preset_trace(preset))["perPosition"]
    assert np.allclose(CURVES[name][2], read, atol=5e-6)


def test_the_parts_name_only_what_they_have_and_the_module_still_names_everything():
    """Each part's ``__all__`` is true, and every name a part exports is lab.acceptance's too, the same object (the
    split moved code, not names; tests/test_import_graph.py holds the parts free of an import cycle)."""
    import importlib

    for part in ("acceptance_rates", "acceptance_prior", "acceptance_text"):
        module = importlib.import_module(f"lab.{part}")
        assert module.__all__ and all(hasattr(module, name) for name in module.__all__), part
        assert all(getattr(acceptance, name) is getattr(module, name) for name in module.__all__), part
    assert all(hasattr(acceptance, name) for name in acceptance.__all__)
    assert acceptance.Curve.__module__ == "lab.acceptance_rates" and acceptance.prior.__module__ == "lab.acceptance_prior"


def test_mean_acceptance_length_against_numpy():
    rates = np.array([0.9, 0.7, 0.65, 0.4])
    expected = 1 + np.cumprod(rates).sum()
    assert acceptance.mean_acceptance_length(list(rates), 4) == pytest.approx(expected, abs=1e-12)


def test_iid_curve_is_todays_model_float_for_float():
    for alpha in (0.0, 0.3, 0.74, 0.99, 1.0):
        for k in (1, 5, 12):
            assert acceptance.iid(alpha).length(k) == ledger.expected_tokens_per_call(alpha, k)
            assert serving.tokens_per_cycle(0.0, k, acceptance.iid(alpha).rates(k)) == serving.tokens_per_cycle(alpha, k)


def test_unconditional_rates_become_conditional():
    curve = acceptance.from_unconditional([0.8, 0.4, 0.2])
    assert curve.rates(3) == pytest.approx([0.8, 0.5, 0.5])
    assert curve.length(3) == pytest.approx(2.4)
    with pytest.raises(ValueError, match="cannot rise"):
        acceptance.from_unconditional([0.4, 0.8])


def test_a_plateauing_curve_stays_on_its_plateau_and_caps_the_best_k():
    lengths = acceptance.library_lengths("dsv4-pro-mtp-thinking")
    curve = acceptance.from_lengths(dict(enumerate(lengths, start=1)), "mtp")
    assert curve.length(8) == pytest.approx(2.58, abs=0.05)
    assert curve.length(15) < 2.6  # i.i.d. from k = 1 says 4.19 at k = 8
    assert acceptance.plateau_start(curve) == 4
    best = acceptance.best_lookahead(lambda k: curve.length(k), curve, 12)  # free drafts: more is never worse
    assert best["k"] <= 5
    # past the plateau the curve follows the measured increments (2.55, 2.55, 2.54, 2.58 add at most 0.01 in
    # turn once a fall is not taken back), so it has no fitted rise the cap would have to stop
    assert curve.length(12) - curve.length(4) == pytest.approx(0.01, abs=1e-9)


def test_extrapolation_is_reported():
    curve = acceptance.from_conditional([0.9, 0.8])
    assert curve.extrapolated_from(2) is None and curve.extrapolated_from(5) == 2
    low, high = curve.interval(8)
    assert low <= curve.length(8) <= high and low < high


def test_the_dspark_rows_are_the_table_as_published():
    """Each DSpark row's per-position shares, summed plus one, give the acceptance length its table prints
    (to the table's rounding), so no share was mistyped; and they never rise with position (unconditional)."""
    rows = {name: entry for name, entry in CURVES.items() if name.startswith("dspark-llama1b-")}
    assert len(rows) == 9
    for curve_family, kind, values, _label, source, licence in rows.values():
        printed = float(source.rsplit("acceptance length ", 1)[1].rstrip(")"))
        assert curve_family == "block" and kind == "unconditional" and len(values) == 8 and licence == "Apache-2.0"
        assert 1 + sum(values) == pytest.approx(printed, abs=0.0015)
        assert all(later <= earlier for earlier, later in zip(values, values[1:]))


def test_the_suffix_curve_is_its_line():
    """The suffix-decoding curve is its vLLM line: 24 positions, none past the twelfth survived, and the rates
    summed plus one give the line's mean acceptance length 1.78 (364 accepted; to the line's rounding)."""
    family, kind, values, *_ = CURVES["vllm-35521-suffix"]
    assert (family, kind, len(values)) == ("suffix", "unconditional", 24)
    assert all(v == 0 for v in values[12:]) and values[11] > 0
    assert 1 + sum(values) == pytest.approx(1.78, abs=0.005)
    assert acceptance.measured_plateau_start(acceptance.library_lengths("vllm-35521-suffix")) is not None


def test_one_vote_per_drafter_in_the_prior(monkeypatch):
    """The prior's point weighs each drafter once: nine copies of one curve move it no more than one does."""
    from lab import acceptance_curves
    assert all(name in CURVES for names in acceptance_curves.SAME_DRAFTER.values() for name in names)
    assert acceptance_curves.drafter_of("dspark-llama1b-qa") == "dspark-llama1b"
    before = acceptance.prior(None)[0]
    extra = CURVES["dspark-llama1b-qa"]
    copies = [f"dspark-llama1b-copy{i}" for i in range(8)]  # eight more curves of the same drafter
    for name in copies:
        monkeypatch.setitem(CURVES, name, extra)
    monkeypatch.setitem(acceptance_curves.SAME_DRAFTER, "dspark-llama1b",
                        acceptance_curves.SAME_DRAFTER["dspark-llama1b"] + tuple(copies))
    acceptance._library_shapes.cache_clear()
    try:
        assert acceptance.prior(None)[0] == before
    finally:
        monkeypatch.undo()
        acceptance._library_shapes.cache_clear()


def test_the_prior_point_is_the_median_of_the_curves_nearest_in_r1(monkeypatch):
    """The prior's point for a reader's r_1 is the drafter-weighted median (c, d) of the library curves nearest
    it, half the library's drafters: the neighbourhood is the nearest curves and just reaches half the drafter
    weight, a curve far from r_1 has no vote (its shape can change without moving the point), and the point
    moves with r_1."""
    names = list(CURVES)
    weights = acceptance._drafter_weights(names)
    chosen, chosen_weights = acceptance.nearest_curves(names, weights, 0.95)
    assert sum(chosen_weights) >= sum(weights) / 2 > sum(chosen_weights[:-1])
    first_rate = {name: acceptance.library_lengths(name)[0] - 1 for name in names}
    farthest_in = max(abs(first_rate[n] - 0.95) for n in chosen)
    assert all(abs(first_rate[n] - 0.95) >= farthest_in for n in names if n not in chosen)
    assert "vllm-35521-suffix" not in chosen  # r_1 0.34: far from 0.95
    before = acceptance.prior(None, r1=0.95, figures=1)[0]   # one figure: the nearest curves (two: all of them)
    family_, kind, values, *rest = CURVES["vllm-35521-suffix"]
    monkeypatch.setitem(CURVES, "vllm-35521-suffix", (family_, kind, tuple(v * 0.5 for v in values), *rest))
    acceptance._library_shapes.cache_clear()
    try:
        assert acceptance.prior(None, r1=0.95, figures=1)[0] == before
        assert acceptance.prior(None, r1=0.34, figures=1)[0] != acceptance.prior(None, r1=0.95, figures=1)[0]
    finally:
        monkeypatch.undo()
        acceptance._library_shapes.cache_clear()


def _cli(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_cli_json_keys(capsys):
    status, out, _ = _cli(capsys, "acceptance", "--lengths", "1:1.79", "--method", "mtp", "--lookahead", "8", "--json")
    assert status == 0
    document = json.loads(out)
    for key in ("meanAcceptanceLength", "interval", "perPosition", "extrapolatedFrom", "alphaIid",
                "meanAcceptanceLengthIid"):
        assert key in document
    assert len(document["perPosition"]) == 8 and document["extrapolatedFrom"] == 1
    assert document["alphaIid"] == pytest.approx(0.79)
    assert document["meanAcceptanceLengthIid"] == pytest.approx(sum(0.79 ** i for i in range(9)))
    low, high = document["interval"]
    assert low <= document["meanAcceptanceLength"] <= high
    assert document["meanAcceptanceLength"] < document["meanAcceptanceLengthIid"]


def test_cli_per_position_and_trace(capsys, tmp_path):
    status, out, _ = _cli(capsys, "acceptance", "--per-position", "0.9,0.8", "--lookahead", "2", "--json")
    assert status == 0 and json.loads(out)["meanAcceptanceLength"] == pytest.approx(1 + 0.9 + 0.72)
    assert json.loads(out)["extrapolatedFrom"] is None
    path = tmp_path / "log.txt"
    path.write_text(traces.PRESETS["club3090-mtp"]["text"])
    status, out, _ = _cli(capsys, "acceptance", "--trace", str(path), "--lookahead", "6", "--json")
    curve = traces.measured_curve(traces.analyse(traces.preset_trace("club3090-mtp")))
    assert status == 0 and json.loads(out)["perPosition"] == pytest.approx(curve)


@pytest.mark.parametrize("argv, fragment", [
    (["--per-position", "0.9,1.5"], "'1.5' is not a fraction"),
    (["--per-position", "0.9,,0.5"], "--per-position takes rates"),
    (["--lengths", "1:1.8,1:1.7"], "given twice"),
    (["--lengths", "2:3.5"], "from 1 to 3"),
    (["--lengths", "x"], "K:L pairs"),
    (["--lengths", "1:nan"], "from 1 to 2"),
    (["--lengths", "1:1.8", "--method", "medusa"], "--method must be one of"),
    (["--lengths", "1:1.8", "--per-position", "0.5"], "exactly one of"),
    (["--trace", "/nonexistent/file"], "cannot read"),
    (["--vllm-per-position", "0.4,0.8"], "cannot rise"),
])
def test_cli_bad_input_is_one_line_and_exit_2(capsys, argv, fragment):
    status, out, err = _cli(capsys, "acceptance", *argv, "--lookahead", "4")
    assert status == 2 and out == "" and err.count("\n") == 1 and fragment in err, err


def test_cli_lookahead_is_required_and_checked(capsys):
    assert _cli(capsys, "acceptance", "--lengths", "1:1.8")[0] == 2
    status, _, err = _cli(capsys, "acceptance", "--lengths", "1:1.8", "--lookahead", "0")
    assert status == 2 and "--lookahead" in err


def test_deployment_takes_the_curve_and_sends_it(capsys):
    argv = ["deployment", "--target", "deepseek-v3", "--draft", "eagle-head", "--gpu", "h200", "--gpus", "8",
            "--batch", "1", "--lookahead", "4", "--json"]
    status, out, _ = _cli(capsys, *argv, "--mean-acceptance-length", "1.79", "--measured-at", "1")
    iid_best = json.loads(out)["serving"]["bestLookahead"]
    lengths = ",".join(f"{k}:{v}" for k, v in enumerate(acceptance.library_lengths("dsv4-pro-mtp-thinking"), 1))
    status, out, _ = _cli(capsys, *argv, "--lengths", lengths)
    document = json.loads(out)
    # the plateauing curve never recommends past its plateau's start plus one, nor past what i.i.d. would
    assert status == 0 and document["curve"]["plateauStart"] == 4
    assert document["serving"]["bestLookahead"] <= min(5, iid_best)
    token = document["instruments"]["serving"]["srvCurve"]
    assert token.startswith("custom:") and token == document["instruments"]["ledger"]["trcCurve"]
    body, measured = acceptance.split_measured(token[len("custom:"):])
    # the token says where the measurement ended (k = 8 of its 16 positions), so receivers know what is extrapolated
    assert measured == 8 and len(body.split(",")) == acceptance.TOKEN_POSITIONS
    assert all(len(part.split(".")[1]) == 4 for part in body.split(","))


def test_serving_takes_lengths(capsys):
    base = ["serving", "--target", "llama-3-70b", "--draft", "llama-3.2-1b", "--gpu", "h100-sxm", "--batch", "8",
            "--context", "4096", "--lookahead", "4", "--acceptance", "70", "--json"]
    status, out, _ = _cli(capsys, *base, "--per-position", "0.9,0.5")
    assert status == 0
    assert json.loads(out)["tokensPerCall"] == pytest.approx(acceptance.from_conditional([0.9, 0.5]).length(4))


def test_serving_takes_a_curve_without_acceptance(capsys):
    """A curve replaces --acceptance, so it is not asked for; params carry the curve's i.i.d. equivalent at k,
    and the prior is the draft's family, as the deployment panel's curve box takes it."""
    base = ["serving", "--target", "llama-3-8b", "--draft", "eagle-head", "--gpu", "h100-sxm", "--batch", "1",
            "--context", "1024", "--lookahead", "4", "--json"]
    status, out, _ = _cli(capsys, *base, "--lengths", "1:1.75,2:2.3")
    document = json.loads(out)
    curve = acceptance.from_lengths({1: 1.75, 2: 2.3}, "eagle")
    assert status == 0 and document["tokensPerCall"] == pytest.approx(curve.length(4))
    assert document["params"]["acceptance"] == pytest.approx(100 * acceptance.iid_alpha(curve.length(4), 4), abs=1e-5)
    status, explicit, _ = _cli(capsys, *base, "--lengths", "1:1.75,2:2.3", "--method", "eagle")
    assert json.loads(explicit)["tokensPerCall"] == document["tokensPerCall"]
    status, out, err = _cli(capsys, *base)
    assert status == 2 and "--acceptance is required" in err and "--lengths" in err and "Traceback" not in err


def test_deployment_curve_without_method_takes_the_drafts_family(capsys):
    """One reader, one answer: --lengths 1:L is the same figure as --mean-acceptance-length L --measured-at 1,
    and both take the draft's family's prior when --method is not given."""
    argv = ["deployment", "--target", "deepseek-v3", "--draft", "eagle-head", "--gpu", "h200", "--gpus", "8",
            "--batch", "1", "--lookahead", "4", "--json"]
    _, figure, _ = _cli(capsys, *argv, "--mean-acceptance-length", "1.79", "--measured-at", "1")
    _, lengths, _ = _cli(capsys, *argv, "--lengths", "1:1.79")
    _, pooled, _ = _cli(capsys, "acceptance", "--lengths", "1:1.79", "--lookahead", "4", "--json")
    figure, lengths = json.loads(figure), json.loads(lengths)
    assert lengths["curve"]["perPosition"] == pytest.approx(figure["curve"]["perPosition"])
    assert lengths["serving"]["bestLookahead"] == figure["serving"]["bestLookahead"]
    assert json.loads(pooled)["perPosition"] != pytest.approx(lengths["curve"]["perPosition"])  # no family: pooled


def test_the_subcommand_runs_as_a_program():
    run = subprocess.run([sys.executable, "-m", "lab", "acceptance", "--per-position", "0.8", "--lookahead", "3"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "mean acceptance length at k = 3" in run.stdout


# --- mutation tests of the suite's acceptance checks ---

def test_checks_hold_unmutated():
    for name, check in family.ACCEPTANCE_CHECKS:
        assert not __import__("lab.checks", fromlist=["_run_check"])._run_check(check).failure, name


def test_iid_check_catches_a_curve_that_drops_the_bonus_token(monkeypatch):
    real = acceptance.mean_acceptance_length
    monkeypatch.setattr(acceptance_rates, "mean_acceptance_length", lambda rates, k: real(rates, k) - (k > 3) * 1e-9)
    failure_of(family.ACCEPTANCE_CHECKS, "acceptance-iid-curve-is-todays-model", "today's model")


def test_plateau_check_catches_a_best_k_without_the_cap(monkeypatch):
    monkeypatch.setattr(acceptance, "plateau_start", lambda curve, max_k=64: None)
    failure_of(family.ACCEPTANCE_CHECKS, "acceptance-plateau-caps-best-k", "plateau")


def test_round_trip_check_catches_a_fit_that_ignores_the_lengths(monkeypatch):
    monkeypatch.setattr(acceptance, "_fit", lambda lengths, point, high=1.0: (0.5, point))
    failure_of(family.ACCEPTANCE_CHECKS, "acceptance-lengths-round-trip", "fitted length")


def test_send_check_catches_a_scalar_send(monkeypatch):
    monkeypatch.setattr(acceptance, "curve_token", lambda curve, positions=16: "custom:0.7")
    failure_of(family.ACCEPTANCE_CHECKS, "acceptance-curve-reaches-every-instrument", "read")


def test_send_check_catches_trees_sent_no_curve(monkeypatch):
    """The token trees receive the curve too (their depth profile): a send that leaves treCurve empty fails."""
    from lab import deployment

    real = deployment.instrument_values

    def without_trees_curve(d, alpha, curve=None):
        values = real(d, alpha, curve)
        values["trees"]["treCurve"] = ""
        return values

    monkeypatch.setattr(deployment, "instrument_values", without_trees_curve)
    failure_of(family.ACCEPTANCE_CHECKS, "acceptance-curve-reaches-every-instrument", "trees read")


def test_deployment_one_figure_with_a_method_uses_the_prior(capsys):
    argv = ["deployment", "--mean-acceptance-length", "1.79", "--measured-at", "1", "--target", "deepseek-v3",
            "--draft", "eagle-head", "--gpu", "h200", "--gpus", "8", "--batch", "1", "--lookahead", "4", "--json"]
    status, out, _ = _cli(capsys, *argv, "--method", "mtp")
    document = json.loads(out)
    assert status == 0 and document["serving"]["bestExtrapolatedFrom"] == 1
    # i.i.d. from the same figure says 5; the 32-curve whole-library prior (c 0.928, d 0.974) said 4; the 36-curve
    # library's curves nearest r_1 = 0.79 (c 0.953, d 0.983) say 5 as well; one figure takes its family's nearest
    assert document["serving"]["bestLookahead"] <= 5
    (c, d), _, _ = acceptance.prior("mtp", r1=0.79, figures=1)
    assert document["curve"]["perPosition"][0] == pytest.approx(0.79)
    assert document["curve"]["perPosition"][1] == pytest.approx(0.79 * c) and c < 1  # the prior's fall, not i.i.d.


def test_realtext_reports_its_measured_curve_and_sends_it_to_serving():
    from lab.widgets import realtext

    table = realtext.positions_html({"perPosition": [0.8, 0.4], "alphaMle": 0.6}, 2)
    assert "50.0%" in table and "measured curve" in table  # 0.4 / 0.8
    sends = realtext.send_html({"cycles": [0, 1, 2, 2]}, 2)
    assert 'data-target="serving"' in sends and "srvCurve" in sends


def test_serving_best_k_from_a_plateauing_curve(capsys):
    lengths = ",".join(f"{k}:{v}" for k, v in enumerate(acceptance.library_lengths("dsv4-pro-mtp-thinking"), 1))
    status, out, _ = _cli(capsys, "serving", "--target", "llama-3-8b", "--draft", "eagle-head", "--gpu", "h100-sxm",
                          "--batch", "1", "--context", "1024", "--lookahead", "4", "--acceptance", "70",
                          "--lengths", lengths, "--json")
    document = json.loads(out)
    assert status == 0 and document["plateauStart"] == 4
    assert document["bestLookahead"] <= 5 and document["bestLookaheadExtrapolatedFrom"] is None


from hypothesis import HealthCheck, example, given, settings, strategies as st  # noqa: E402

CURVE_TEXT = st.one_of(
    st.text(alphabet="0123456789.:,- eE+naif\u0663\uff10", max_size=40),
    st.lists(st.tuples(st.integers(-3, 80), st.floats(allow_nan=True, allow_infinity=True)), max_size=10).map(
        lambda pairs: ",".join(f"{k}:{v}" for k, v in pairs)),
    st.lists(st.one_of(st.floats(-1, 2), st.just(float("nan"))), min_size=1, max_size=70).map(lambda xs: ",".join(map(str, xs))))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flag=st.sampled_from(["--lengths", "--per-position", "--vllm-per-position"]), text=CURVE_TEXT,
       lookahead=st.sampled_from(["1", "8", "64", "0", "x"]))
def test_cli_never_raises_on_any_curve_text(flag, text, lookahead, capsys):
    status = main(["acceptance", flag, text, "--lookahead", lookahead, "--json"])
    captured = capsys.readouterr()
    assert status in (0, 2)
    if status == 2:
        assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    else:
        document = json.loads(captured.out)
        low, high = document["interval"]
        assert 1 <= low <= document["meanAcceptanceLength"] <= high <= int(lookahead) + 1
        assert all(0 <= r <= 1 for r in document["perPosition"])


@settings(max_examples=150, deadline=None)
@given(text=CURVE_TEXT)
@example(text="1:1")  # one figure (its summary says "On your figure") that accepts nothing: a plateau "from k = 0"
def test_the_panel_never_fails_on_a_curve(text):
    from lab.widgets import deployment as widget

    view = widget.view({"curve": text})
    assert not any("could not be computed" in note for note in view["notes"])
    assert "On your curve" in view["summary"] or "On your figure" in view["summary"] or view["notes"] or not text.strip()
    assert "plateaus from k = 0" not in view["summary"]


def test_deployment_refuses_a_figure_and_a_curve_together(capsys):
    status, out, err = _cli(capsys, "deployment", "--lengths", "1:1.8", "--alpha", "70")
    assert status == 2 and out == "" and "not both" in err and err.count("\n") == 1


def test_the_panel_reads_a_whole_engine_line():
    from lab.widgets import deployment as widget

    line = traces.PRESETS["club3090-mtp"]["text"].splitlines()[0]
    view = widget.view({"curve": line[:600]})
    assert view["notes"] == [] and "measured to k = 6" in view["summary"]
    assert acceptance.parse_curve_text(line).rates(2) == pytest.approx([0.74, 0.473 / 0.74])


def test_ledger_and_policy_clis_take_the_curve_their_widgets_receive(capsys):
    """The ledger and the policies take --lengths/--per-position as deployment does, and answer what their widgets
    answer on the token the panel sends for the same curve (the acceptance, and the burstiness, set aside)."""
    from lab.widgets import ledger as ledger_widget, policies as policies_widget

    lengths = ",".join(f"{k}:{v}" for k, v in enumerate(acceptance.library_lengths("dsv4-pro-mtp-thinking"), 1))
    token = acceptance.curve_token(acceptance.from_lengths(acceptance.parse_lengths(lengths)))
    status, out, _ = _cli(capsys, "ledger", "--lengths", lengths, "--json")
    document, view = json.loads(out), ledger_widget.view({"trcCurve": token})
    assert status == 0 and document["curve"] == token and document["plateauStart"] == 4
    assert (document["bestLookahead"], document["speedup"]) == (view["bestLookahead"], view["ledger"]["speedup"])
    assert document["bestLookahead"] <= 5 and document["bestSpeedup"] == pytest.approx(view["bestSpeedup"])
    status, out, _ = _cli(capsys, "policy", "--lengths", lengths, "--draft-cost", "12", "--burst", "80", "--json")
    document = json.loads(out)
    view = policies_widget.view({"polCurve": token, "draftCost": "12", "burst": "80"})
    assert status == 0 and document["process"] == "curve" and document["params"]["acceptance"] is None
    best = document["policies"]["best-static"]
    assert view["readouts"]["bestStatic"] == f"k = {document['bestStaticK']}, {best['speedup']:.2f}x"
    assert document["bestStaticK"] <= document["plateauStart"] + 1
    status, _, err = _cli(capsys, "policy", "--draft-cost", "12")
    assert status == 2 and "--acceptance is required" in err and "--lengths" in err


def test_an_engine_s_name_for_a_method_is_read_as_its_family(capsys):
    """--method takes the names engines give a method (vLLM's "eagle3", "deepseek_mtp", SGLang's "NEXTN", the trace
    reader's table, lab.traces.method) as their family, on every command that takes a curve, with the same answer as the family's own name; an unknown name is one
    line naming the families."""
    for name, method_family in (("EAGLE3", "eagle"), ("deepseek_mtp", "mtp"), ("qwen3_next_mtp", "mtp"), ("NEXTN", "mtp"),
                         ("ngram_gpu", "ngram"), ("suffix", "suffix"), ("DraftTarget", "draft"), ("dflash", "block"), ("DSPARK", "block")):
        answers = []
        for method in (name, method_family):
            status, out, _ = _cli(capsys, "acceptance", "--lengths", "1:1.8", "--method", method, "--lookahead", "6",
                                  "--json")
            assert status == 0
            answers.append(json.loads(out))
        assert answers[0] == answers[1] and answers[0]["method"] == method_family
    status, out, err = _cli(capsys, "deployment", "--mean-acceptance-length", "1.8", "--measured-at", "1", "--target",
                            "llama-3-8b", "--draft", "eagle-head", "--gpu", "h100-sxm", "--batch", "1", "--lookahead",
                            "4", "--method", "medusa")
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "medusa" in err and "draft, block, eagle, mtp, ngram, suffix" in err
