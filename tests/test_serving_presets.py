"""The serving model's presets (GPUs, models, precisions), its treatment of experts in every step
model, and the memory limit wherever a number is printed: 2026 GPUs, FP4, 2026 models, memory everywhere."""

import json

from lab import cli, serving, serving_calibration
from lab.widgets import serving as widget

D = serving.DEFAULT_SETTINGS


# --- memory everywhere ----------------------------------------------------------------------------

def test_heatmap_table_says_does_not_fit_where_the_figure_hatches():
    """N-82: 8B on one H100 fits about 3 sequences at 128k; the table must not print 1.73x at B = 1024."""
    view = widget.view("?srvBatchLog2=10&srvContextLog2=17")
    table = view["figures"]["table"]
    s = widget._settings(view["params"])
    rows = table.split("<tr>")[2:]   # caption/head first, then the longest context on top
    top = rows[0]
    assert top.startswith('<th scope="row">128k</th>')
    cells = [cell.split("</td>")[0].split(">")[-1] for cell in top.split("<td")[1:]]
    for batch, cell in zip(serving.HEATMAP_BATCHES, cells):
        fits = serving.memory_needed_bytes(s, batch, 131072) <= serving.memory_available_bytes(s)
        assert (cell == widget.NO_FIT) == (not fits), (batch, cell)
    assert cells[-1] == "does not fit" and cells[0] != "does not fit"
    assert "does not fit" in view["figures"]["heatmapSelection"]   # the reader's own cell says so too
    assert "does not fit" in table.split("</caption>")[0]


def test_heatmap_table_prints_every_value_when_everything_fits():
    grid = [[1.5] * len(serving.HEATMAP_BATCHES) for _ in serving.HEATMAP_CONTEXTS]
    fits = [[True] * len(serving.HEATMAP_BATCHES) for _ in serving.HEATMAP_CONTEXTS]
    table = widget.heatmap_table_html(grid, (0, 0), fits)
    assert "does not fit" not in table and table.count("1.50") == len(grid) * len(grid[0])


def test_serving_cli_notes_a_setting_that_does_not_fit(capsys):
    args = ["serving", "--target", "llama-3-8b", "--draft", "eagle-head", "--gpu", "h100-sxm", "--batch", "1024",
            "--context", "131072", "--lookahead", "3", "--acceptance", "70"]
    assert cli.main(args) == 0
    text = capsys.readouterr().out
    assert "note: does not fit" in text and "at most 3 of its 1024 sequences fit" in text
    assert cli.main(args + ["--json"]) == 0
    assert json.loads(capsys.readouterr().out)["fitsInMemory"] is False
    assert cli.main([a if a != "1024" else "1" for a in args]) == 0   # batch 1 fits: no note
    assert "does not fit" not in capsys.readouterr().out


def test_deployment_cli_says_deepseek_v3_bf16_does_not_fit_on_8_h200(capsys):
    args = ["deployment", "--alpha", "70", "--target", "deepseek-v3", "--draft", "eagle-head", "--gpu", "h200",
            "--gpus", "8"]
    assert cli.main(args) == 0
    text = capsys.readouterr().out
    assert "if it fitted in memory (it does not" in text and "not even the weights fit" in text
    assert cli.main(args + ["--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["serving"]["fits"] is False and document["deployment"]["precision"] == "bf16"
    assert cli.main(args + ["--precision", "fp8", "--json"]) == 0   # 671 GB of FP8 weights fit in 8 x 141 GB
    document = json.loads(capsys.readouterr().out)
    assert document["serving"]["fits"] is True and document["deployment"]["precision"] == "fp8"


def test_deployment_cli_refuses_an_unknown_precision_in_one_line(capsys):
    assert cli.main(["deployment", "--alpha", "70", "--precision", "fp3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--precision" in err[0] and "bf16" in err[0] and "Traceback" not in err[0]


# --- one treatment of experts in every step model -------------------------------------------------

def test_roofline_reads_only_the_experts_its_tokens_route_to():
    """N-78: under the roofline a MoE verify pass reads the union of its tokens' experts, so
    verification is not free at batch one; the bytes are the per-operator model's (numpy oracle)."""
    import numpy as np

    for name in (n for n, t in serving.TARGETS.items() if t.experts):
        shape = serving.TARGETS[name]
        s = D.with_(target=name, gpu="h200", gpus=8, memEfficiency=100, flopEfficiency=100, overheadMs=0)
        for tokens in (1, 5, 64, 4096):
            step = serving._step(shape, s)
            moe = shape.layers - shape.dense_layers
            expert = 3 * shape.hidden * shape.expert_intermediate * 2
            distinct = shape.experts * (1 - np.power(1 - shape.active_experts / shape.experts, tokens))
            state = tokens * 2 * serving.linear_state_bytes(shape)   # a hybrid's states, read and written
            expected = (shape.params * 2 - moe * shape.experts * expert + moe * expert * distinct + state) / (
                serving.GPUS["h200"].bandwidth * 8 / 1000)
            assert abs(serving._memory_ms(step, tokens, 0, 1) / expected - 1) < 1e-12
            assert abs(distinct - serving.distinct_experts(shape, tokens)) <= 1e-9 * distinct
        plain = serving.step_time_ms(shape, s, 1, 1, 1024)
        assert serving.step_time_ms(shape, s, 1, 5, 1024) > 1.5 * plain   # 5 tokens read far more experts


def test_moe_speedup_is_no_longer_free_under_the_roofline():
    """Qwen3-30B-A3B on one H100 at batch 1 was 2.45x with no crossover under the roofline (N-78)."""
    s = D.with_(target="qwen3-30b-a3b", draft=serving.EAGLE, gpus=1, batch=1, stepModel=serving.ROOFLINE)
    assert serving.serving(s).speedup < 1.2
    assert serving.crossover_batch(s) == serving.crossover_batch_scan(s)


def test_the_idealised_options_do_not_claim_to_bound_the_calibrated_model():
    """N-79: for MoE the per-operator model with no overheads comes out below the calibrated one, so
    neither its label nor the trust line may call it an ideal or an upper bound."""
    s = D.with_(target="deepseek-v3", draft=serving.EAGLE, gpu="h200", gpus=8, precision="fp8", batch=1)
    ideal = serving.serving(s.with_(stepModel=serving.OPERATORS)).speedup
    calibrated = serving.serving(s.with_(stepModel=serving.MEASURED)).speedup
    assert ideal < calibrated
    assert "ideal" not in serving.STEP_MODELS[serving.OPERATORS]
    for model in (serving.OPERATORS, serving.ROOFLINE):
        trust = widget.trust_line(s.with_(stepModel=model))
        assert "upper bound" not in trust and "not a bound" in trust


def test_the_serving_signature_stays_the_dense_roofline_default():
    from lab.checks import serving as family
    assert family.signature_value() == "2.364222"


# --- 2026 GPUs and FP4 ----------------------------------------------------------------------------

def test_2026_gpus_carry_dense_datasheet_peaks_and_say_where():
    b200, b300, mi300x, mi355x = (serving.GPUS[n] for n in ("b200", "b300", "mi300x", "mi355x"))
    assert (b200.bandwidth, b200.bf16, b200.fp8, b200.fp4, b200.memory) == (8e12, 2250e12, 4500e12, 9000e12, 192e9)
    assert (b300.fp4, b300.memory, b300.link) == (13125e12, 288e9, 900e9)
    assert (mi300x.bf16, mi300x.fp8, mi300x.fp4, mi300x.link) == (1307.4e12, 2614.9e12, None, 448e9)
    # MI300X's FP8 peak is its CU count x FP8 FLOP per clock x clock; the same rule gives MI355X's
    assert abs(304 * 4096 * 2.1e9 / mi300x.fp8 - 1) < 1e-3
    assert abs(256 * 8192 * 2.4e9 / mi355x.fp8 - 1) < 1e-4 and mi355x.fp4 == 2 * mi355x.fp8 - 0.1e12
    for gpu in serving.GPUS.values():   # dense, not sparse: FP8 at most doubles BF16 (B300's FP4 is 1.46x FP8 x 2)
        assert gpu.source
        assert gpu.fp8 is None or gpu.bf16 < gpu.fp8 <= 2.05 * gpu.bf16
        assert gpu.fp4 is None or gpu.fp8 < gpu.fp4 <= 1.5 * 2 * gpu.fp8


def test_the_rtx_3090_preset_is_its_datasheet_and_derived_tensor_peak_with_an_assumed_calibration():
    """The GPU the EAGLE-3 paper's vLLM sweep ran on: 936 GB/s (384 bits at 19.5 Gbps), 24 GB, no FP8 (Ampere), the
    BF16 peak with FP32 accumulation derived as 328 tensor cores x 256 FLOP a clock x 1.695 GHz, halved (GeForce),
    one GPU on PCIe (no link read); calibrated as the RTX 4090 and L40S (assumed), and the widget says so."""
    from lab import serving_calibration as cal

    g = serving.GPUS["rtx-3090"]
    assert (g.label, g.bandwidth, g.fp8, g.fp4, g.memory, g.link) == ("RTX 3090", 936e9, None, None, 24e9, 0.0)
    assert g.bandwidth == 384 * 19.5e9 / 8
    assert abs(g.bf16 / (328 * 256 * 1.695e9 / 2) - 1) < 1e-3 and g.bf16 < serving.GPUS["rtx-4090"].bf16 / 2
    assert "derived, not read" in g.source and "half rate" in g.source and "24 GB" in g.source
    c = cal.CALIBRATIONS["rtx-3090"]
    assert c is cal.CALIBRATIONS["rtx-4090"] is cal.CALIBRATIONS["l40s"] and not c.measured
    assert not any(m.gpu == "rtx-3090" for m in cal.STEP_MEASUREMENTS)
    s = D.with_(gpu="rtx-3090", stepModel=serving.MEASURED)
    assert widget.trust_line(s).startswith("assumed: no step time measured on this GPU; not validated for ")
    assert widget._assumed_calibrations()[0]["gpus"] == "L40S, RTX 4090 and RTX 3090"
    from lab.widgets import deployment as deployment_widget
    for choices in (widget.SELECTS, deployment_widget.CHOICES):   # both GPU dropdowns list it, by its label
        gpu_choice = next(choice for choice in choices if choice.name == "gpu")
        assert gpu_choice.options["rtx-3090"] == "RTX 3090"
    assert "not validated" in widget.trust_line(s)


def test_2026_gpus_are_calibrated_only_by_assumption_and_the_page_says_so():
    from lab import serving, serving_calibration as cal

    for name in ("b200", "b300", "mi300x", "mi355x"):
        c = cal.CALIBRATIONS[name]
        assert not c.measured and "no step-time measurement found" in c.source   # MI300X: "... that fits its efficiencies"
        assert c.linkBandwidth == serving.GPUS[name].link
        s = D.with_(gpu=name, stepModel=serving.MEASURED)
        # MI300X's fixed cost per pass alone is fitted on measured steps (tests/test_serving_calibration_2026.py)
        basis = ("assumed: its efficiencies (only its fixed cost per pass is fitted on measured steps)"
                 if name == "mi300x" else "assumed: no step time measured on this GPU")
        assert widget.trust_line(s).startswith(basis + "; not validated for ")
    assert not any(m.gpu in ("b200", "b300", "mi300x", "mi355x") for m in cal.STEP_MEASUREMENTS)
    groups = widget._assumed_calibrations()
    assert any("MI355X" in g["gpus"] and "Hopper" in g["how"] for g in groups)


def test_fp4_weights_cost_half_a_byte_plus_scales_and_keep_an_fp8_kv_cache():
    fp4 = serving.PRECISIONS["fp4"]
    target = serving.TARGETS["llama-3-70b"]
    assert fp4.bytes == 0.5 + 1 / 16 and fp4.kv_bytes == 1
    assert serving.weight_bytes(target, fp4) == target.params * 0.5625
    assert serving.kv_bytes_per_token(target, fp4) == serving.kv_bytes_per_token(target, serving.PRECISIONS["fp8"])
    # Blackwell multiplies FP4 at its FP4 rate; Hopper has no FP4 tensor cores: a weight-only kernel at BF16's
    assert serving.peak_flops(serving.GPUS["b200"], fp4) == 9000e12
    assert serving.peak_flops(serving.GPUS["h100-sxm"], fp4) == serving.GPUS["h100-sxm"].bf16
    # DeepSeek-V3 and its MTP module fit on 4 x B200 in FP4 (about 385 GB of weights) but not in BF16 (1,367 GB)
    s = D.with_(target="deepseek-v3", draft=serving.EAGLE, gpu="b200", gpus=4, stepModel=serving.MEASURED)
    assert serving.max_batch_in_memory(s) == 0 < serving.max_batch_in_memory(s.with_(precision="fp4"))


def test_serving_cli_takes_the_new_gpus_and_fp4(capsys):
    args = ["serving", "--target", "llama-3-70b", "--draft", "eagle-head", "--gpu", "mi355x", "--precision", "fp4",
            "--batch", "8", "--context", "4096", "--lookahead", "3", "--acceptance", "70", "--json"]
    assert cli.main(args) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["params"]["gpu"] == "mi355x" and document["params"]["precision"] == "fp4"
    assert document["fitsInMemory"] is True and document["speedup"] > 1


# --- 2026 models from their config.json -----------------------------------------------------------

def test_2026_models_count_their_cards_parameters_from_the_config():
    """By hand from each config (embeddings untied, per layer attention + 2 norms, experts, routers)."""
    h, v = 4096, 151936
    qwen235 = 2 * v * h + 94 * (h * 8192 * 2 + 2 * h * 512 + 2 * h + 128 * 3 * h * 1536 + h * 128) + h
    assert serving.TARGETS["qwen3-235b-a22b"].params == qwen235
    h, v = 2880, 201088
    oss = 2 * v * h + 36 * (2 * h * 4096 + 2 * h * 512 + 4096 + 2 * 512 + 2 * h + 128 * 3 * h * 2880 + h * 128) + h
    assert serving.TARGETS["gpt-oss-120b"].params == oss and abs(oss / 116.8e9 - 1) < 0.002
    # Qwen3-Next: the test that quotes its config counts 79,674,391,296; ours leaves out 104,448 small vectors
    # (a shared-expert gate of 2,048 a layer and the q/k norms of its 12 softmax layers)
    assert 79_674_391_296 - serving.TARGETS["qwen3-next-80b-a3b"].params == 48 * 2048 + 12 * 2 * 256
    assert serving.TARGETS["kimi-k2"].params == 1_026_408_209_408
    assert serving.TARGETS["deepseek-v3"].mtp == serving.TARGETS["glm-4.5"].mtp == serving.TARGETS[
        "qwen3-next-80b-a3b"].mtp == 1 and serving.TARGETS["kimi-k2"].mtp == 0


def test_every_target_has_a_one_layer_mtp_or_eagle_head_draft_that_keeps_a_kv_cache():
    for target in serving.TARGETS.values():
        head = serving.eagle_head(target)
        assert head.layers == 1 and head.linear_layers == head.window_layers == 0
        # an MTP module of a MoE checkpoint is the MoE layer it ships; any other head a dense layer
        assert head.experts == (target.experts if target.mtp else 0)
        # its own weights, the target's LM head apart (which it reads: 622M of Qwen3-8B's 8.2B, 7.6%), under a tenth
        assert 0 < head.params - target.vocab * target.hidden < target.params / 10
        r = serving.serving(D.with_(target=target.name, draft=serving.EAGLE, gpu="b300", gpus=8,
                                    stepModel=serving.MEASURED))
        assert r.draftStepMs < r.plainStepMs < r.verifyStepMs


def test_linear_attention_keeps_a_state_that_does_not_grow_with_the_context():
    shape, bf16 = serving.TARGETS["qwen3-next-80b-a3b"], serving.PRECISIONS["bf16"]
    state = 36 * (32 * 128 * 128 * 4 + (2 * 16 * 128 + 32 * 128) * 3 * 2)
    assert serving.linear_state_bytes(shape) == state
    assert serving.kv_bytes_per_token(shape, bf16) == 2 * 12 * 2 * 256 * 2   # 12 softmax layers only
    for context in (512, 131072):
        assert serving.kv_bytes_per_sequence(shape, bf16, context, 4) == context * 24576 + 4 * state
    # sliding windows: gpt-oss's 18 windowed layers stop growing at 128 tokens
    oss = serving.TARGETS["gpt-oss-120b"]
    grow = serving.kv_bytes_per_sequence(oss, bf16, 4096) - serving.kv_bytes_per_sequence(oss, bf16, 2048)
    assert grow == 2048 * 2 * 18 * 8 * 64 * 2


def test_rejected_drafts_on_a_hybrid_cost_one_state_checkpoint_per_draft_position():
    """vLLM keeps num_spec + 1 state slots per speculating sequence and writes the state after every
    scored token: memory holds k + 1 copies, a verify pass moves B (1 + n) copies, a plain step 2 B."""
    shape = serving.TARGETS["qwen3-next-80b-a3b"]
    s = D.with_(target=shape.name, draft=serving.EAGLE, gpu="h200", gpus=1, precision="fp8", lookahead=3,
                stepModel=serving.MEASURED, batch=16, context=4096)
    assert serving.state_slots(s) == 4
    weights = sum(serving.weight_bytes(m, serving.PRECISIONS["fp8"]) for m in (shape, serving.eagle_head(shape)))
    cache = serving.kv_bytes_per_sequence(shape, serving.PRECISIONS["fp8"], 4096, 4) + 4096 * serving.kv_bytes_per_token(
        serving.eagle_head(shape), serving.PRECISIONS["fp8"])
    assert abs(serving.memory_needed_bytes(s) - (weights + 16 * cache)) < 1e-3
    step = serving._step(shape, s, "verify")
    plain = serving._step(shape, s)
    bw = serving.GPUS["h200"].bandwidth * serving_calibration.CALIBRATIONS["h200"].memEfficiency / 1000
    assert abs(plain.state_ms * bw - serving.linear_state_bytes(shape)) < 1e-3
    no_state = step._replace(state_ms=0.0)
    for n in (1, 4):   # the attention term's memory side grows by B (1 + n) state copies
        extra = serving._attention_ms(step, 16, n, 4096) - serving._attention_ms(no_state, 16, n, 4096)
        assert abs(extra - 16 * (1 + n) * step.state_ms) < 1e-9
    # a model without linear attention moves no state
    assert serving._step(serving.TARGETS["llama-3-8b"], s.with_(target="llama-3-8b")).state_ms == 0


def test_absorbed_mla_attention_compute_grows_with_the_tokens_verified():
    """DeepSeek-V3 on 8 x H200 in BF16 at 32k: each GPU reads the whole latent cache once and does an
    eighth of the heads' FLOPs, which grow with n (30 n FLOP a byte against a calibrated ridge of about
    170), so one token's attention is memory-bound and eight tokens' is compute-bound, dearer than a
    plain pass's. (On one GPU, or with an FP8 cache, MLA decoding is compute-bound already at n = 1.)"""
    shape = serving.TARGETS["deepseek-v3"]
    s = D.with_(target=shape.name, gpu="h200", gpus=8, precision="bf16", stepModel=serving.MEASURED)
    assert serving.attention_flops(shape) == 2 * 61 * 128 * (2 * 512 + 64)
    step = serving._step(shape, s, "verify")
    one, eight = (serving._attention_ms(step, 8, n, 32768) for n in (1, 8))
    assert abs(one - step.kv_ms * 8 * 32768) < 1e-9 * one          # memory-bound at n = 1
    assert abs(eight - step.attention_flop_ms * 64 * 32768) < 1e-9 * eight and eight > 1.3 * one


def test_a_model_whose_weights_do_not_fit_names_no_crossover():
    """Llama-3-70B on one RTX 4090: not even the weights fit, so the lead, the live line and the
    readout say no batch fits instead of 'keeps paying at every batch that fits (up to 1)' (and, reader
    audit N4-15, the lead names the limit and claims no speedup)."""
    view = widget.view("?srvTarget=llama-3-70b&srvGpu=rtx-4090&srvGpus=1")
    assert "does not fit on 1 x RTX 4090" in view["lead"] and "no batch runs" in view["lead"]
    assert "up to 1)" not in view["lead"] and "x, faster" not in view["lead"]
    assert view["readouts"]["crossover"] == "no batch fits" and view["live"].startswith("does not fit")
    assert "no crossover to name" in view["summary"]
    fits = widget.view("?srvTarget=llama-3-8b&srvGpu=h100-sxm&srvGpus=1")
    assert "fits in GPU memory (not even" not in fits["lead"]


def test_memory_note_rounds_the_sequences_that_fit_down():
    s = serving.DEFAULT_SETTINGS.with_(target="llama-3-8b", draft="llama-3.2-1b", gpu="h100-sxm", gpus=1, batch=512,
                                       context=16384, stepModel=serving.MEASURED)
    room = serving.max_batch_in_memory(s)
    assert room - int(room) >= 0.5   # a fraction that rounding to nearest would carry up
    assert f"at most {int(room)} of its 512 sequences fit" in serving.memory_note(s)
