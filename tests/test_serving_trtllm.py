"""TensorRT-LLM's one-model MTP as an engine preset (lab.serving_calibration.ENGINES["trtllm"]) and the rows that judge
it (lab.serving_validation: NVIDIA's DeepSeek-R1 B200 min-latency blog, table 'Autoregressive MTP Layers'). The
expected figures are written from the sources, not read back from the module's constants."""

import json

import pytest

from lab import serving, serving_calibration as cal, serving_step, serving_validation
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
    """Today's vLLM builds DeepSeek-V3's MTP module as TensorRT-LLM did (a MoE layer, its fusion whole on every GPU,
    its logits gathered), so the head's step on TensorRT-LLM is vLLM's step less exactly the draft pass's own fixed
    cost, and with its one MoE layer on TensorRT-LLM's kernels rather than vLLM's Triton ones (lab.serving_moe)."""
    head = serving.draft_shape(MTP)
    trt = serving.step_breakdown(head, MTP, 1, 1, 2048, "draft")
    v1 = serving.step_breakdown(head, MTP.with_(engine="vllm-v1"), 1, 1, 2048, "draft")
    b200 = cal.CALIBRATIONS["b200"]
    kernels = (cal.moe_layer_us(b200, "triton") - cal.moe_layer_us(b200, "trtllm")) / 1000
    assert v1["fixed"] - trt["fixed"] == pytest.approx(b200.draftPassMs + kernels, rel=1e-12)
    assert {k: v for k, v in trt.items() if k != "fixed"} == {k: v for k, v in v1.items() if k != "fixed"}


# NVIDIA's blog's setting: DeepSeek-R1 with its MTP layer in BF16 beside the NVFP4 target ('3x MTP Layers | bf16')
BLOG = MTP.with_(draftPrecision="bf16")
H, VOCAB = 7168, 129280   # DeepSeek-V3's config.json: hidden_size, vocab_size
EXPERT = 3 * H * 2048      # one routed expert: a gated MLP of moe_intermediate_size 2048


def _without(monkeypatch, engine, **change):
    """The step on ``engine`` with one of its MTP readings taken away (the fusion split, or no gather)."""
    from lab import serving_mtp
    if "gather" in change:
        monkeypatch.delitem(serving_mtp.LOGITS_GATHER, engine)
    else:
        monkeypatch.setitem(cal.ENGINES, engine, cal.ENGINES[engine]._replace(**change))
    serving._measured_constants.cache_clear()


def test_the_mtp_module_pays_a_moe_layer_an_unsplit_fusion_and_a_logit_gather_each_step(monkeypatch):
    """What DeepSeek-V3's MTP module runs in a draft step on TensorRT-LLM (lab.serving_mtp), each against a figure
    written from its source: its decoder layer is the MoE layer its config gives it (256 routed experts, 8 a token),
    so at batch 8 it reads the distinct experts of 8 tokens, E (1 - (1 - k/E)^8), where a dense stand-in read 8, and
    pays a MoE layer's kernels (MOE_LAYER_US on Blackwell, 71.1 us); 'eh_proj = Linear(hidden_size * 2, hidden_size,
    ...)' with no tensor-parallel mode, so 7/8 of its 2 x 7168^2 BF16 weights more on each of 8 GPUs; 'gather_output=
    True' on the LM head, one all-gather of the 129,280 BF16 logits a sequence, priced as the measured all-reduce of
    that size."""
    b200 = cal.CALIBRATIONS["b200"]
    bw = serving.GPUS["b200"].bandwidth * b200.memEfficiency / 1000
    head = serving.draft_shape(BLOG)
    assert (head.experts, head.active_experts, serving.moe_layers(head)) == (256, 8, 1)
    step = serving._step(head, BLOG.with_(gpus=1), "draft")
    one_token = serving.step_breakdown(head, BLOG.with_(gpus=1), 1, 1, 2048, "draft")
    distinct = 256 * (1 - (1 - 8 / 256) ** 8)   # the weights streamed for 8 tokens against 1
    assert serving._weights_read_ms(step, 8) - serving._weights_read_ms(step, 1) == pytest.approx(
        (distinct - 8) * EXPERT * 2 / bw, rel=1e-9)
    assert one_token["fixed"] == pytest.approx(b200.layerMs + 71.1 / 1000, rel=1e-9)   # no launch: in the verify graph
    trt = serving.step_breakdown(head, BLOG, 1, 1, 2048, "draft")
    latency_us, _ = cal.allreduce_cost(b200, 8)
    _without(monkeypatch, "trtllm", mtpFusionWhole=())
    split = serving.step_breakdown(head, BLOG, 1, 1, 2048, "draft")
    assert trt["weights"] - split["weights"] == pytest.approx(7 / 8 * 2 * H * H * 2 / bw, rel=1e-9)
    _without(monkeypatch, "trtllm", gather=True)
    ungathered = serving.step_breakdown(head, BLOG, 1, 1, 2048, "draft")
    gathered = cal.allreduce_us(b200, 8, VOCAB * 2) - latency_us
    assert split["allReduce"] - ungathered["allReduce"] == pytest.approx(gathered / 1000, rel=1e-9)
    assert split["fixed"] - ungathered["fixed"] == pytest.approx(latency_us / 1000, rel=1e-9)
    assert trt["lmHead"] == ungathered["lmHead"] and trt["attention"] == ungathered["attention"]
    serving._measured_constants.cache_clear()


def test_at_batch_64_the_gathered_logits_pass_the_small_fit():
    """At batch 64 the gathered logits, 16.5 MB, pass the all-reduce fit's largest small message: the large rate."""
    b200 = cal.CALIBRATIONS["b200"]
    head = serving.draft_shape(BLOG)
    step = serving._step(head, BLOG, "draft")
    latency_us, _ = cal.allreduce_cost(b200, 8)
    assert serving_step._gather_ms(step, 64) == pytest.approx((cal.allreduce_us(b200, 8, 64 * VOCAB * 2) - latency_us) / 1000,
                                                         rel=1e-9)


@pytest.mark.parametrize("engine, target, whole", [
    ("vllm-v1", "qwen3-next-80b-a3b", False),    # 'self.fc = ColumnParallelLinear(..., gather_output=True, ...)'
    ("sglang", "qwen3-next-80b-a3b", True),      # 'self.fc = nn.Linear(2 * config.hidden_size, ...)'
    ("vllm-v1", "glm-4.5", True),                # 'self.eh_proj = nn.Linear(config.hidden_size * 2, ...)'
    ("sglang-no-overlap", "glm-4.5", False),     # its GLM-4.5 NextN of mid-2025 not read: not charged
    ("trtllm", "glm-4.5", False),                # only DeepSeek-V3's MTP read in TensorRT-LLM
    ("vllm-v0", "deepseek-v3", True),
    ("sglang-eager-extend", "deepseek-v3", True),
])
def test_each_engine_reads_the_fusion_whole_only_where_its_code_was_read_so(engine, target, whole):
    s = BLOG.with_(target=target, engine=engine, precision="bf16", draftPrecision="", gpus=4)
    head = serving.draft_shape(s)
    four = serving.step_breakdown(head, s, 1, 1, 2048, "draft")["weights"]
    one = serving.step_breakdown(head, s.with_(gpus=1), 1, 1, 2048, "draft")["weights"]
    bw = serving.GPUS[s.gpu].bandwidth * cal.CALIBRATIONS[s.gpu].memEfficiency / 1000
    extra = 3 / 4 * 2 * serving.TARGETS[target].hidden ** 2 * 2 / bw if whole else 0.0
    assert 4 * four - one == pytest.approx(4 * extra, abs=1e-12)


def test_every_engine_names_how_it_gathers_the_logits():
    from lab import serving_mtp
    assert set(serving_mtp.LOGITS_GATHER) == set(cal.ENGINES)
    assert {kind for kind, _ in serving_mtp.LOGITS_GATHER.values()} == {"all-gather", "gather to one GPU"}
    assert serving_mtp.LOGITS_GATHER["vllm-v0"][0] == "gather to one GPU"


@pytest.mark.parametrize("changes", [{"target": "llama-3-70b", "precision": "bf16", "draftPrecision": ""},  # no MTP module
                                     {"gpus": 1, "gpu": "b300", "precision": "fp4"}])
def test_only_an_mtp_checkpoint_split_over_gpus_pays_the_fusion_and_the_gather(changes):
    """A head standing for an EAGLE head (no MTP module ships) pays none of it, and is a dense layer; on one GPU
    nothing is split, so no fusion read again and nothing gathered, only the MoE layer's kernels of the MTP module."""
    s = BLOG.with_(**changes)
    head = serving.draft_shape(s)
    trt = serving.step_breakdown(head, s, 4, 1, 2048, "draft")
    assert serving._step(head, s, "draft").gather_ms == 0.0
    moe = cal.moe_layer_us(cal.CALIBRATIONS[s.gpu], "trtllm") / 1000 if serving.TARGETS[s.target].mtp else 0.0
    assert bool(head.experts) == bool(serving.TARGETS[s.target].mtp)
    assert trt["fixed"] - head.layers * cal.CALIBRATIONS[s.gpu].layerMs - (
        2 * cal.allreduce_cost(cal.CALIBRATIONS[s.gpu], s.gpus)[0] / 1000 if s.gpus > 1 else 0.0) == pytest.approx(moe, abs=1e-12)


def test_the_cycle_composes_the_dearer_step_and_the_affine_pieces_agree():
    """The readout's draft step is the priced one, and the piecewise-affine terms every search uses give the very
    step times of the direct sum for a dense MTP checkpoint (Qwen3.8-27B) on two GPUs, across the gather's knee."""
    r = serving.serving(BLOG)
    assert r.draftStepMs == pytest.approx(sum(serving.step_breakdown(serving.draft_shape(BLOG), BLOG, 1, 1, 2048,
                                                                     "draft").values()), rel=1e-12)
    s = BLOG.with_(target="qwen3.8-27b", precision="bf16", draftPrecision="", gpus=2, gpu="b200")
    step = serving._step(serving.draft_shape(s), s, "draft")
    assert step.gather_ms > 0 and step.gather_knee < 8
    terms, constant, slope = serving._terms(step, 1, 2048)
    for batch in (1, 3, 4, 5, 16, 64):
        affine = constant + slope * batch + sum(serving._combine(p + q * batch, r * batch, o) for p, q, r, o in terms)
        assert affine == pytest.approx(serving._time(step, batch, 1, 2048), rel=1e-9)


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
    """Both hide their host work, so a plain step differs only by the MoE kernels: DeepSeek-V3's 58 MoE layers at
    TensorRT-LLM's cost on Blackwell against vLLM's Triton stack's (lab.serving_moe); the cycle is k steps plus the
    verify step."""
    r, v1 = serving.serving(MTP), serving.serving(MTP.with_(engine="vllm-v1"))
    b200 = cal.CALIBRATIONS["b200"]
    assert r.plainStepMs - v1.plainStepMs == pytest.approx(
        58 * (cal.moe_layer_us(b200, "trtllm") - cal.moe_layer_us(b200, "triton")) / 1000, rel=1e-9)
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
    theirs (its 'Without MTP' plain step is held out of the MoE fit already); TensorRT-LLM's fitted rows are issue
    #5929's plain passes alone."""
    fitted = (*cal.STEP_MEASUREMENTS, *cal.MOE_STEP_MEASUREMENTS)
    assert not any("Autoregressive MTP Layers" in m.source for m in fitted)
    trt = [m for m in fitted if m.engine == "trtllm"]
    assert len(trt) == 5 and all(m.kind == "pass" and m.newTokens == 1 and "#5929" in m.source for m in trt)


def test_the_trust_line_quotes_only_trtllms_own_rows():
    """DeepSeek-V3 with an MTP head on 8 x B200 on trtllm quotes the band of the blog's five rows, at batch one; the
    same on another engine, or a dense target on trtllm, is not validated (no band borrowed across engines)."""
    from lab.widgets import serving as widget

    rows = widget._matching_validation(MTP)
    assert len(rows) == len(BLOG_TABLE) and {row["engine"] for row in rows} == {"trtllm"}
    line = widget.trust_line(MTP)
    assert f"on {len(BLOG_TABLE)} published speedups of {cal.ENGINES['trtllm'].label} at batch one" in line
    assert "not validated for" in widget.trust_line(MTP.with_(engine="sglang"))
    assert "not validated for" in widget.trust_line(MTP.with_(target="llama-3-70b", precision="bf16"))


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
