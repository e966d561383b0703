"""Where the schedule's k rises as the batch grows, and why (lab.production.schedule_rises): the rise, its gain, the
verify step's cost per added draft and each cause decided by a computed test; the page's note, the CLI's and the
JSON's; the readouts check that holds the note's numbers, broken on purpose."""

import json

import pytest

from lab import deployment, production, serving, serving_calibration
from lab.serving_allreduce import allreduce_beyond
from lab.widgets import deployment as widget
from test_production_schedule import _fails   # the family's check run clear of kept answers, as there

D = deployment.DEFAULT_DEPLOYMENT
DEFAULT_PERCENT = 71   # the panel's default figure (2.8 at k = 4) on its curve, as the instruments receive it
MIXTRAL = deployment.Deployment(target="mixtral-8x7b", draft=serving.EAGLE, gpu="h100-sxm", gpus=2)
DEEPSEEK = deployment.Deployment(target="deepseek-v3", draft=serving.EAGLE, gpu="h200", gpus=8, precision="fp8")


def _default_curve():
    return deployment.figure_curve(deployment.alpha_from(2.8, "length", 4), 4, D.draft, target=D.target)


def _rises(d, percent, curve=None):
    production._KEPT.clear()   # a calibration patched by a test is not in the kept answers' key
    settings = deployment.serving_settings(d, percent)
    rates, cap = deployment.curve_schedule_terms(curve)
    steady, _ = production.steady_schedule(settings, production.k_by_batch(settings, deployment.MAX_LOOKAHEAD,
                                                                            rates, cap), rates)
    return settings, steady, production.schedule_rises(settings, steady, rates)


def test_the_defaults_rise_at_batch_16_is_the_all_reduce():
    """The panel's default runs k = 5, 4, 3, then 4 from batch 16: the one rise, 3 -> 4, worth 2.5% over keeping 3,
    where the verify pass's all-reduce message (16 x 5 tokens x 8192 x 2 bytes = 1.25 MiB) is past the 1 MiB the
    large-message rate starts at, so one more draft costs the verify step 0.78 ms against 0.99 ms at batch 15."""
    settings, steady, rises = _rises(D, DEFAULT_PERCENT, _default_curve())
    assert [(r["batch"], r["from"], r["to"], r["causes"]) for r in rises] == [(16, 3, 4, ["allreduce"])]
    r = rises[0]
    assert r["messageBytes"] == 16 * 5 * 8192 * 2 > r["allreduceFrom"] == 2 ** 20 == allreduce_beyond(
        serving_calibration.CALIBRATIONS["h100-sxm"], 4)[0]
    rates = deployment.curve_schedule_terms(_default_curve())[0]
    kept = serving.speedup_at(settings.with_(lookahead=3), 16, settings.context, rates)
    assert r["gain"] == pytest.approx(steady[15][1] / kept - 1) and 0.02 < r["gain"] < 0.03

    def verify(k, batch):
        return serving.verify_step_ms(settings.with_(lookahead=k), batch, settings.context)

    assert r["addedMs"] == pytest.approx(verify(4, 16) - verify(3, 16))
    assert r["addedMsBefore"] == pytest.approx(verify(4, 15) - verify(3, 15))
    assert round(r["addedMs"], 2) == 0.78 < round(r["addedMsBefore"], 2) == 0.99
    # the draft before it, 2 -> 3, still fits the small message: it costs the verify step more than twice as much
    assert verify(3, 16) - verify(2, 16) > 2 * r["addedMs"]


@pytest.mark.parametrize("percent", (60, 75, 90))
@pytest.mark.parametrize("draft", (serving.EAGLE, "llama-3.2-1b"))
def test_a_dense_model_on_one_gpu_never_rises(percent, draft):
    """No all-reduce and no experts: the verify step's cost per added draft only grows with the batch."""
    d = deployment.Deployment(target="llama-3-8b", draft=draft, gpu="h100-sxm", gpus=1)
    _, steady, rises = _rises(d, percent)
    assert rises == [] and len(set(k for k, _ in steady)) > 1
    assert production._allreduce_start(deployment.serving_settings(d, percent)) == float("inf")


def test_a_mixture_of_experts_rise_names_its_experts():
    """Mixtral on two H100s goes 4 -> 8 at batch 2: 18 verify tokens reach 99.4% of each layer's 8 experts, so one
    more token reads 0.01 of its 2 new; a message of 144 KiB is far below the all-reduce's 1 MiB, so not that.
    DeepSeek-V3 on eight H200s goes 2 -> 4 at batch 11 for its experts and 4 -> 7 at batch 14 with both causes. (Since
    the MoE cost is priced by the engine's kernels, lab.serving_moe, the default engine's Triton stack: 6 -> 9 and one
    rise at batch 11 with TensorRT-LLM's cost charged to every engine before.)"""
    _, _, rises = _rises(MIXTRAL, 75)
    assert [(r["batch"], r["from"], r["to"], r["causes"]) for r in rises] == [(2, 4, 8, ["experts"])]
    r = rises[0]
    assert r["expertsRead"] == pytest.approx(8 * (1 - 0.75 ** 18)) and r["messageBytes"] == 18 * 4096 * 2 < 2 ** 20
    assert r["newExpertsPerToken"] == pytest.approx(2 * 0.75 ** 18)
    _, _, rises = _rises(DEEPSEEK, 75)
    assert [(r["batch"], r["from"], r["to"], r["causes"]) for r in rises] == [
        (11, 2, 4, ["experts"]), (14, 4, 7, ["allreduce", "experts"])]
    assert all(r["expertsRead"] > production.EXPERTS_REACHED * 256 for r in rises)


def test_pricing_the_all_reduce_at_its_small_message_rate_removes_the_rise(monkeypatch):
    """The mutation: no large-message rate (the small fit's slope past 1 MiB too). The default's rise at batch 16 is
    not merely left without its cause: it goes, and the schedule's k only falls (5, 4, 3, 2, 1)."""
    cal = serving_calibration.CALIBRATIONS["h100-sxm"]
    monkeypatch.setitem(serving_calibration.CALIBRATIONS, "h100-sxm", cal._replace(allreduceBeyond=()))
    settings, steady, rises = _rises(D, DEFAULT_PERCENT, _default_curve())
    production._KEPT.clear()
    assert production._allreduce_start(settings) == float("inf")
    assert rises == []
    ran = [k for k, _ in steady]
    assert all(b <= a for a, b in zip(ran, ran[1:]))


def test_the_page_and_the_cli_say_where_and_why():
    view = widget.view(None)
    note = view["figures"]["scheduleRises"]
    # 2.3% on the 65-curve library, 2.6% since the 73 of branch curves10: the default figure's curve is the EAGLE
    # family's prior fitted to it, which the three EAGLE-3 curves added there moved (its second rate 0.676 -> 0.686)
    assert note.startswith('<p class="dep-schedule-rises">At batch 16 k rises from 3 to 4, 2.6% faster than keeping 3')
    assert "0.78 ms there, 0.99 ms at batch 15" in note and "past 1 MiB (lab.serving_allreduce)" in note
    assert "1.25 MiB" in note and "'" not in note   # escaped
    moe = widget.view({"target": "mixtral-8x7b", "gpus": "2", "unit": "alpha", "value": "75"})["figures"]
    assert "99.4% of the 8 experts of each MoE layer" in moe["scheduleRises"]
    assert "reads 0.01 of its 2 experts new" in moe["scheduleRises"]
    assert widget.rises_html([]) == ""


def test_the_cli_prints_the_note_and_the_json_the_rises(capsys):
    from lab.cli import main

    args = ["deployment", "--mean-acceptance-length", "2.8", "--measured-at", "4"]
    assert main(args) == 0
    notes = [line for line in capsys.readouterr().out.splitlines() if line.startswith("schedule note: At batch 16 k")]
    assert notes == ["schedule note: " + widget.rises_words(deployment.engine_answer(
        D, DEFAULT_PERCENT, curve=_default_curve())["rises"])]
    assert "2.6% faster than keeping 3" in notes[0]   # 2.3% on the 65-curve library (see above)
    assert main(args + ["--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [(r["batch"], r["causes"], r["allreduceFrom"]) for r in document["scheduleRises"]] == [(16, ["allreduce"],
                                                                                                  2 ** 20)]
    assert main(["deployment", "--target", "llama-3-8b", "--gpus", "1", "--alpha", "75", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scheduleRises"] == []


def test_the_rise_notes_numbers_are_checked(monkeypatch):
    original = widget.rises_words
    monkeypatch.setattr(widget, "rises_words", lambda rises: original([{**r, "gain": r["gain"] + 0.001} for r in rises]))
    failure = _fails("deployment-readouts-match-model")
    assert failure and "the schedule's rises" in failure


def test_a_rise_cause_left_out_fails_the_check(monkeypatch):
    """The Mixtral setting's experts clause dropped (a note that says none applies)."""
    original = widget.rises_words
    monkeypatch.setattr(widget, "rises_words", lambda rises: original([{**r, "causes": ["none"]} for r in rises]))
    failure = _fails("deployment-readouts-match-model")
    assert failure and "the schedule's rises lacks the model's" in failure


def test_a_hidden_rise_note_fails_the_check(monkeypatch):
    monkeypatch.setattr(widget, "rises_html", lambda rises: "")
    failure = _fails("deployment-readouts-match-model")
    assert failure and "the schedule's k rises at batches [16]" in failure
