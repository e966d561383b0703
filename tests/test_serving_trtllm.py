"""TensorRT-LLM's one-model MTP as an engine preset (lab.serving_calibration.ENGINES["trtllm"]) and the rows that judge
it (lab.serving_validation: NVIDIA's DeepSeek-R1 B200 min-latency blog, table 'Autoregressive MTP Layers'). The
expected figures are written from the sources, not read back from the module's constants."""

import json

import pytest

from lab import serving, serving_calibration as cal, serving_validation
from lab.cli import main

# The blog's table as printed: (MTP layers, 'Acceptance Rate' (tokens a step), TPS/User, TPS/User Speedup)
BLOG_TABLE = ((1, 1.92, 198, 1.78), (2, 2.58, 250, 2.25), (3, 2.82, 253, 2.28), (4, 2.99, 245, 2.21), (5, 3.01, 239, 2.15))
WITHOUT_MTP_TPS = 111

MTP = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, target="deepseek-v3", draft=serving.EAGLE, gpu="b200",
                                     gpus=8, precision="fp4", batch=1, context=2048, lookahead=3, acceptance=70,
                                     engine="trtllm")


def test_the_switches_are_those_read_in_its_code():
    """One verify pass (a chain, causal mask), no extend pass, the first draft step over the last accepted token only,
    the overlap scheduler on (no serial host work or output processing), the head in the verify pass's graph."""
    e = cal.ENGINES["trtllm"]
    assert (e.expandedVerify, e.draftExtend, e.eagerExtend, e.firstDraftOverVerified) == (False, False, False, False)
    assert (e.stepHostMs, e.specCycleMs, e.serialOutput, e.tokenOutput, e.asyncScheduling) == (0.0, 0.0, False, False, True)
    assert (e.interStepOps, e.eagle3CycleOps, e.eagle3StepOps) == (0, 0, 0)
    assert e.draftInVerifyGraph and e.memoryRule == "trtllm" and not e.hostDraftStepsAboveTp1
    assert all(place for _, place in e.costs) and {name for name, _ in e.costs} >= {
        "draft steps in the verify pass's CUDA graph", "overlap scheduler while speculating"}


def test_an_mtp_draft_step_pays_no_launch_of_its_own():
    """The head's step on TensorRT-LLM is today's vLLM's step less exactly the draft pass's own fixed cost."""
    head = serving.draft_shape(MTP)
    trt = serving.step_breakdown(head, MTP, 1, 1, 2048, "draft")
    v1 = serving.step_breakdown(head, MTP.with_(engine="vllm-v1"), 1, 1, 2048, "draft")
    assert v1["fixed"] - trt["fixed"] == pytest.approx(cal.CALIBRATIONS["b200"].draftPassMs, rel=1e-12)
    assert {k: v for k, v in trt.items() if k != "fixed"} == {k: v for k, v in v1.items() if k != "fixed"}


@pytest.mark.parametrize("changes", [{"draft": "llama-3.2-1b", "target": "llama-3-70b", "precision": "bf16", "gpus": 4},
                                     {"draft": serving.EAGLE3, "target": "llama-3-8b", "precision": "bf16", "gpus": 1}])
def test_a_separate_draft_still_pays_its_pass(changes):
    """Only the one-model head runs inside the verify graph: a draft model or an EAGLE-3 head (TensorRT-LLM's two-model
    path then) pays the draft pass's fixed cost as on vLLM."""
    s = MTP.with_(**changes)
    shape = serving.draft_shape(s)
    trt = serving.step_breakdown(shape, s, 8, 1, 1024, "draft")["fixed"]
    v1 = serving.step_breakdown(shape, s.with_(engine="vllm-v1"), 8, 1, 1024, "draft")["fixed"]
    assert trt == v1


def test_plain_steps_match_todays_vllm_and_the_cycle_adds_up():
    """Both hide their host work, so a plain step is the same float; the cycle is k steps plus the verify step."""
    r, v1 = serving.serving(MTP), serving.serving(MTP.with_(engine="vllm-v1"))
    assert r.plainStepMs == v1.plainStepMs
    assert r.draftExtendMs == 0.0 and r.emittedOutputMs == 0.0
    cycle = MTP.lookahead * r.draftStepMs + r.verifyStepMs
    assert r.speedup == pytest.approx(r.plainStepMs * r.tokensPerCall / cycle, rel=1e-12)


def test_ngram_drafts_are_not_priced():
    assert cal.ngram_proposal_ms(cal.ENGINES["trtllm"], 64, 8192, 4) == 0.0


def test_the_cli_takes_the_engine(capsys):
    assert main(["serving", "--target", "deepseek-v3", "--draft", "eagle-head", "--gpu", "b200", "--gpus", "8",
                 "--precision", "fp4", "--engine", "trtllm", "--batch", "1", "--context", "2048", "--lookahead", "3",
                 "--acceptance", "70", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["params"]["engine"] == "trtllm"


def test_the_validation_rows_are_the_blog_table():
    """Five rows, one per MTP depth, each the table's TPS/User over 'Without MTP' at its printed acceptance; the ratio
    reproduces the table's own speedup column to its rounding, so a mistyped TPS fails here."""
    rows = [p for p in serving_validation.VALIDATION if p.engine == "trtllm"]
    assert [(p.lookahead, p.acceptanceLength) for p in rows] == [(k, length) for k, length, _, _ in BLOG_TABLE]
    for p, (_, _, tps, speedup) in zip(rows, BLOG_TABLE):
        assert p.measured == pytest.approx(tps / WITHOUT_MTP_TPS, rel=1e-12)
        assert abs(p.measured - speedup) < 0.006
        # the blog's 'Precision Strategy': '58x MoE FFN Layers | nvfp4', '3x MTP Layers | bf16'
        assert (p.gpu, p.target, p.gpus, p.batch, p.precision, p.draftPrecision, p.draft) == (
            "b200", "deepseek-v3", 8, 1, "fp4", "bf16", serving.EAGLE)
        assert p.context == 1024 + 2048 // 2


def test_the_rows_are_out_of_every_fit():
    """The blog's rows judge the engine and tune nothing: no step measurement or MoE fit row is a speculative one of
    theirs (its 'Without MTP' plain step is held out of the MoE fit already)."""
    fitted = (*cal.STEP_MEASUREMENTS, *cal.MOE_STEP_MEASUREMENTS)
    assert not any("Autoregressive MTP Layers" in m.source for m in fitted)
    assert not any(m.engine == "trtllm" for m in fitted)


def test_the_trust_line_quotes_only_trtllms_own_rows():
    """DeepSeek-V3 with an MTP head on 8 x B200 on trtllm quotes the band of the blog's five rows, at batch one; the
    same on another engine, or a dense target on trtllm, is not validated (no band borrowed across engines)."""
    from lab.widgets import serving as widget

    rows = widget._matching_validation(MTP)
    assert len(rows) == len(BLOG_TABLE) and {row["engine"] for row in rows} == {"trtllm"}
    line = widget._trust(MTP)
    assert f"on {len(BLOG_TABLE)} published speedups of {cal.ENGINES['trtllm'].label} at batch one" in line
    assert "not validated for" in widget._trust(MTP.with_(engine="sglang"))
    assert "not validated for" in widget._trust(MTP.with_(target="llama-3-70b", precision="bf16"))


@pytest.mark.parametrize("step_model", [serving.MEASURED, serving.ROOFLINE])
def test_a_bf16_head_beside_an_fp4_target_prices_only_its_draft_steps_in_bf16(step_model):
    """draftPrecision moves the draft pass alone: the MTP layer's steps cost what they cost with the whole model in
    BF16 (its weights read at two bytes, not half of one), the plain and verify passes stay the FP4 target's, and
    an empty draftPrecision is the target's precision (no row without the field changes)."""
    fp4 = MTP.with_(stepModel=step_model)
    bf16_head = fp4.with_(draftPrecision="bf16")
    all_bf16 = fp4.with_(precision="bf16")
    assert serving.draft_step_ms(bf16_head, 1, 2048) == pytest.approx(serving.draft_step_ms(all_bf16, 1, 2048), rel=1e-12)
    assert serving.draft_step_ms(bf16_head, 1, 2048) > serving.draft_step_ms(fp4, 1, 2048)
    assert serving.draft_step_ms(fp4.with_(draftPrecision="fp4"), 1, 2048) == serving.draft_step_ms(fp4, 1, 2048)
    for steps in (serving.verify_step_ms, lambda s, b, c: serving.step_time_ms(serving.TARGETS[s.target], s, b, 1, c)):
        assert steps(bf16_head, 1, 2048) == steps(fp4, 1, 2048)
    assert serving.serving(bf16_head).speedup < serving.serving(fp4).speedup
