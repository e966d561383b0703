"""The serving instrument's model and CLI against hand arithmetic, properties and a numpy oracle."""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings as hsettings, strategies as st

from lab import checks, cli, serving
from lab.checks import serving as family
from lab.ledger import leviathan_speedup

D = serving.DEFAULT_SETTINGS


# --- presets against hand arithmetic --------------------------------------------------------------

@pytest.mark.parametrize("name, params, kv_bf16", [
    # params from the configs by hand: embeddings (x2 untied) + layers x (attention + 3 h i + 2 h) + h
    ("llama-2-7b", 32000 * 4096 * 2 + 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008 + 2 * 4096) + 4096, 2 * 32 * 32 * 128 * 2),
    ("llama-3-8b", 128256 * 4096 * 2 + 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096) + 4096,
     2 * 32 * 8 * 128 * 2),
    ("llama-2-70b", 32000 * 8192 * 2 + 80 * (2 * 8192 * 8192 + 2 * 8192 * 1024 + 3 * 8192 * 28672 + 2 * 8192) + 8192,
     2 * 80 * 8 * 128 * 2),
    ("llama-3-70b", 128256 * 8192 * 2 + 80 * (2 * 8192 * 8192 + 2 * 8192 * 1024 + 3 * 8192 * 28672 + 2 * 8192) + 8192,
     2 * 80 * 8 * 128 * 2),
    ("llama-3.2-1b", 128256 * 2048 + 16 * (2 * 2048 * 2048 + 2 * 2048 * 512 + 3 * 2048 * 8192 + 2 * 2048) + 2048,
     2 * 16 * 8 * 64 * 2),
    ("qwen2.5-0.5b", 151936 * 896 + 24 * (2 * 896 * 896 + 2 * 896 * 128 + 896 + 2 * 128 + 3 * 896 * 4864 + 2 * 896) + 896,
     2 * 24 * 2 * 64 * 2),
])
def test_preset_bytes_match_hand_arithmetic(name, params, kv_bf16):
    shape = {**serving.TARGETS, **serving.DRAFTS}[name]
    assert shape.params == params
    assert serving.weight_bytes(shape, serving.PRECISIONS["bf16"]) == 2 * params
    assert serving.weight_bytes(shape, serving.PRECISIONS["fp8"]) == params
    assert serving.kv_bytes_per_token(shape, serving.PRECISIONS["bf16"]) == kv_bf16
    assert serving.kv_bytes_per_token(shape, serving.PRECISIONS["fp8"]) == kv_bf16 // 2


def test_published_counts_agree():
    assert round(serving.TARGETS["llama-2-7b"].params / 1e9, 2) == 6.74
    assert round(serving.TARGETS["llama-3-8b"].params / 1e9, 2) == 8.03
    assert round(serving.TARGETS["llama-3-70b"].params / 1e9, 1) == 70.6
    assert round(serving.DRAFTS["llama-3.2-1b"].params / 1e9, 2) == 1.24
    assert round(serving.DRAFTS["qwen2.5-0.5b"].params / 1e9, 2) == 0.49


def test_gpu_presets_and_fp8_on_a100():
    a100, h100 = serving.GPUS["a100-80g"], serving.GPUS["h100-sxm"]
    bf16, fp8 = serving.PRECISIONS["bf16"], serving.PRECISIONS["fp8"]
    assert (a100.bandwidth, a100.bf16, a100.fp8) == (2.039e12, 312e12, None)
    assert (h100.bandwidth, h100.bf16) == (3.35e12, 989.4e12)
    assert serving.peak_flops(a100, fp8) == 312e12          # FP8 weights, BF16-rate arithmetic
    assert serving.ridge_point(a100, fp8) == serving.ridge_point(a100, bf16)
    assert serving.ridge_point(h100, fp8) == pytest.approx(2 * serving.ridge_point(h100, bf16), rel=1e-3)
    for gpu in serving.GPUS.values():
        assert gpu.source and (gpu.fp8 is None or gpu.fp8 > gpu.bf16)


def test_step_time_by_hand():
    s = D.with_(target="llama-3-8b", gpu="h100-sxm", gpus=1, memEfficiency=50, flopEfficiency=25, overheadMs=1)
    target = serving.TARGETS["llama-3-8b"]
    memory = (16060522496 + 16 * 2000 * 131072) / (3.35e12 * 0.5) * 1000
    compute = 2 * 8030261248 * 16 * 5 / (989.4e12 * 0.25) * 1000
    assert serving.step_time_ms(target, s, 16, 5, 2000) == pytest.approx(max(memory, compute) + 1, rel=1e-12)
    assert serving.step_regime(target, s, 16, 5, 2000) == ("memory-bound" if memory >= compute else "compute-bound")
    # attention FLOPs: 4 x layers x heads x head_dim x L per new token, on top of 2N
    on = s.with_(attentionFlops=True)
    compute_att = 16 * 5 * (2 * 8030261248 + 4 * 32 * 32 * 128 * 2000) / (989.4e12 * 0.25) * 1000
    assert serving.step_time_ms(target, on, 16, 5, 2000) == pytest.approx(max(memory, compute_att) + 1, rel=1e-12)


def test_default_readout_by_hand():
    r = serving.serving(D)
    plain = (141107412992 + 8 * 1024 * 327680) / (4 * 3.35e12 * 0.8) * 1000 + 0.5
    draft = (988065536 + 8 * 1024 * 12288) / (4 * 3.35e12 * 0.8) * 1000 + 0.5
    tokens = 1 + 0.7 + 0.7 ** 2 + 0.7 ** 3 + 0.7 ** 4
    assert r.plainStepMs == pytest.approx(plain, rel=1e-12) and r.verifyStepMs == pytest.approx(plain, rel=1e-12)
    assert r.draftStepMs == pytest.approx(draft, rel=1e-12)
    assert r.speedup == pytest.approx(plain * tokens / (4 * draft + plain), rel=1e-12)
    assert family.signature_value() == "2.364222"
    assert r.plainRegime == r.verifyRegime == "memory-bound"


def test_ngram_draft_costs_nothing_and_eagle_is_one_layer():
    assert serving.draft_step_ms(D.with_(draft="ngram"), 64, 4096) == 0.0
    head = serving.eagle_head(serving.TARGETS["llama-3-70b"])
    assert head.layers == 1 and 0 < head.params < serving.TARGETS["llama-3-70b"].params / 20


def test_batch_one_is_leviathan_for_one_case_by_hand():
    s = D.with_(target="llama-2-7b", draft="llama-3.2-1b", gpu="a100-80g", gpus=1, batch=1, memEfficiency=100,
                flopEfficiency=100, overheadMs=0, lookahead=5, acceptance=80, context=1000)
    c = (2 * 1235814400 + 1000 * 32768) / (2 * 6738415616 + 1000 * 524288)
    assert serving.speedup_at(s, 1, 1000) == pytest.approx(leviathan_speedup(0.8, 5, c), rel=1e-12)


# --- properties -------------------------------------------------------------------------------------

settings_strategy = st.builds(
    lambda target, draft, gpu, precision, gpus, k, a, mem, flop, over, attention: D.with_(
        target=target, draft=draft, gpu=gpu, precision=precision, gpus=gpus, lookahead=k, acceptance=a,
        memEfficiency=mem, flopEfficiency=flop, overheadMs=over, attentionFlops=attention),
    st.sampled_from(tuple(serving.TARGETS)), st.sampled_from(serving.DRAFT_NAMES), st.sampled_from(tuple(serving.GPUS)),
    st.sampled_from(tuple(serving.PRECISIONS)), st.sampled_from((1, 2, 4, 8)), st.integers(1, 12),
    st.floats(0, 100), st.floats(5, 100), st.floats(5, 100), st.floats(0, 5), st.booleans())


@hsettings(max_examples=60, deadline=None)
@given(settings_strategy, st.integers(1, 4096), st.integers(1, 131072))
def test_step_time_monotone_and_speedup_bounded(s, batch, context):
    target = serving.TARGETS[s.target]
    t = serving.step_time_ms(target, s, batch, 1, context)
    assert serving.step_time_ms(target, s, batch + 1, 1, context) >= t
    assert serving.step_time_ms(target, s, batch, 2, context) >= t
    assert serving.step_time_ms(target, s, batch, 1, context + 1) >= t
    # speculation can never buy more than k + 1 tokens per plain step
    assert serving.speedup_at(s, batch, context) <= s.lookahead + 1 + 1e-9


@hsettings(max_examples=25, deadline=None)
@given(settings_strategy, st.sampled_from((256, 1024, 8192, 65536)))
def test_crossover_agrees_with_brute_force(s, context):
    assert serving.crossover_batch(s, context) == serving.crossover_batch_scan(s, context)


@hsettings(max_examples=40, deadline=None)
@given(settings_strategy, st.floats(0.01, 500), st.booleans())
def test_littles_law(s, rate, speculative):
    batch = serving.steady_batch(s, rate, speculative)
    if batch is not None:
        demand = rate * s.requestOutputTokens * serving.ms_per_token(s, batch, speculative) / 1000
        assert batch == pytest.approx(demand, rel=1e-6)
        assert batch <= serving.max_batch_in_memory(s) + 1e-9


def test_overloaded_when_weights_do_not_fit():
    s = D.with_(gpus=1, gpu="rtx-4090")  # 141 GB of weights on 24 GB
    assert serving.max_batch_in_memory(s) == 0 and serving.steady_batch(s, 0.1, False) is None


def test_curves_cross_is_where_spec_stops_winning():
    rates = [0.1 * 1.25 ** i for i in range(40)]
    cross = serving.curves_cross(D, rates)
    assert cross is not None
    below, above = cross * 0.98, cross * 1.0001
    spec, plain = serving.latency_curve(D, [below, above], True), serving.latency_curve(D, [below, above], False)
    assert spec[0] < plain[0]
    assert spec[1] is None or spec[1] >= plain[1]


def test_tail_matches_issue_numbers():
    runs = serving.tail(64, 72, 5, 96, 9)
    assert len(runs["speedups"]) == 300
    assert 2.0 < runs["minimum"] < 2.2 and 3.6 < runs["maximum"] < 3.8
    assert runs["prediction"] == pytest.approx(2.79, abs=0.01)
    assert runs["gapP50"] == 0.0 and runs["gapP99"] == pytest.approx(1.45)  # bursts: most tokens arrive together


@pytest.mark.parametrize("setting", [(64, 72, 5, 96, 9), (0, 0, 1, 1, 0), (100, 100, 12, 256, 100),
                                     (100, 0, 3, 17, 50), (37, 81, 8, 200, 0), (0, 100, 2, 2, 1)])
def test_tail_is_the_seeded_runs_themselves(setting):
    """The tail (run shapes shared across draft costs, gaps counted per value) equals the direct
    computation: every seed's generate_trace, each gap listed, nearest-rank percentiles."""
    from lab.exact import summary_alpha
    from lab.ledger import leviathan_speedup
    from lab.sampler import generate_trace

    certainty, match, gamma, length, draft_cost = setting
    cost, seeds = draft_cost / 100, 40
    speedups, gaps = [], []
    for seed in range(seeds):
        trace = generate_trace(certainty, match, gamma, length, seed)
        speedups.append(length / (trace.targetCalls + trace.draftCalls * cost))
        for _, drafts, committed, _ in trace.calls:
            gaps += [1 + len(drafts) * cost] + [0.0] * (len(committed) - 1)
    runs = serving.tail(certainty, match, gamma, length, draft_cost, seeds)
    assert runs == {"speedups": tuple(speedups), "seeds": seeds, "plainGapP50": 1.0, "plainGapP99": 1.0,
                    "prediction": leviathan_speedup(float(summary_alpha(certainty, match, length)), gamma, cost),
                    "gapP50": serving.percentile(gaps, 0.5), "gapP99": serving.percentile(gaps, 0.99),
                    "p05": serving.percentile(speedups, 0.05), "p95": serving.percentile(speedups, 0.95),
                    "minimum": min(speedups), "maximum": max(speedups), "median": serving.percentile(speedups, 0.5)}


def test_percentile_nearest_rank():
    assert serving.percentile([3, 1, 2], 0.5) == 2 and serving.percentile(range(100), 0.99) == 98


# --- numpy oracle for the heatmap ------------------------------------------------------------------

def _numpy_grid(s):
    gpu, precision = serving.GPUS[s.gpu], serving.PRECISIONS[s.precision]
    batches = np.array(serving.HEATMAP_BATCHES, dtype=float)[None, :]
    contexts = np.array(serving.HEATMAP_CONTEXTS, dtype=float)[:, None]
    bw = gpu.bandwidth * s.gpus * s.memEfficiency / 100
    peak = (gpu.fp8 if precision.name == "fp8" and gpu.fp8 else gpu.bf16) * s.gpus * s.flopEfficiency / 100

    def step(shape, n):
        if shape is None:
            return np.zeros_like(batches * contexts)
        nbytes = shape.params * precision.bytes + batches * contexts * 2 * shape.layers * shape.kv_heads * shape.head_dim * precision.bytes
        flops = 2 * shape.params * batches * n + (4 * shape.layers * shape.heads * shape.head_dim * contexts * batches * n
                                                  if s.attentionFlops else 0)
        return np.maximum(nbytes / bw, flops / peak) * 1000 + s.overheadMs

    target = serving.TARGETS[s.target]
    a, k = s.acceptance / 100, s.lookahead
    tokens = sum(a ** i for i in range(k + 1))
    draft = serving.draft_shape(s)
    return step(target, 1) * tokens / (k * step(draft, 1) + step(target, k + 1))


@pytest.mark.parametrize("changes", [dict(), dict(draft="ngram", gpu="l40s", precision="fp8", gpus=1, target="llama-3-8b"),
                                     dict(draft="eagle-head", attentionFlops=True, lookahead=9, acceptance=85),
                                     dict(gpu="a100-80g", precision="fp8", target="llama-2-7b", draft="llama-3.2-1b")])
def test_heatmap_matches_numpy_oracle(changes):
    s = D.with_(**changes)
    assert np.allclose(np.array(serving.speedup_grid(s)), _numpy_grid(s), rtol=1e-12, atol=0)


# --- the check family ------------------------------------------------------------------------------

def test_family_passes_and_signature_is_frozen():
    result = checks.run_suite(["serving"])
    assert result["failures"] == [] and result["checked"] == len(family.CHECKS) >= 6
    assert result["values"] == [checks.expected_value("serving")]
    assert all(c["visited"] > 0 for c in result["checks"])


# --- CLI ---------------------------------------------------------------------------------------------

ARGS = ["serving", "--target", "llama-3-70b", "--draft", "llama-3.2-1b", "--gpu", "h200", "--batch", "32",
        "--context", "8192", "--lookahead", "4", "--acceptance", "70"]
KEYS = {"ridgeFlopsPerByte", "targetWeightBytes", "kvBytesPerToken", "plainStepMs", "draftStepMs", "verifyStepMs",
        "tokensPerCall", "plainMsPerToken", "specMsPerToken", "speedup", "plainTokensPerSecond", "specTokensPerSecond",
        "crossoverBatch", "bestLookahead", "regime", "emittedOutputMs"}


def test_cli_json(capsys):
    assert cli.main(ARGS + ["--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert KEYS <= set(document)
    s = D.with_(gpu="h200", gpus=1, draft="llama-3.2-1b", batch=32, context=8192, stepModel="measured")
    assert document["params"]["stepModel"] == "measured" and document["params"]["gpus"] == 1
    assert document["speedup"] == pytest.approx(serving.speedup_at(s, 32, 8192), rel=1e-12)
    assert sum(document["plainStepTerms"].values()) == pytest.approx(document["plainStepMs"], rel=1e-12)
    assert sum(document["verifyStepTerms"].values()) == pytest.approx(document["verifyStepMs"], rel=1e-12)
    # on today's vLLM V1 the verify pass's engine term holds the scheduler's and the sampler's work, no serial
    # output processing (V1 detokenizes in its front end); vLLM V0 adds 0.103 ms a sequence
    assert document["verifyStepTerms"]["engine"] == pytest.approx(32 * (1.13 + 4 * 1800 / 320) / 1000)
    assert cli.main(ARGS + ["--engine", "vllm-v0", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["verifyStepTerms"]["engine"] == pytest.approx(32 * (1.13 + 3200 / 31 + 4 * 1800 / 320) / 1000)
    assert document["crossoverBatch"] == serving.crossover_batch_scan(s)
    assert document["kvBytesPerToken"] == 327680 and document["targetWeightBytes"] == 2 * 70553706496


def test_cli_roofline_gpus_tree_and_curve(capsys):
    assert cli.main(ARGS + ["--step-model", "roofline", "--gpus", "4", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["speedup"] == pytest.approx(serving.speedup_at(D.with_(gpu="h200", draft="llama-3.2-1b", batch=32,
                                                                           context=8192), 32, 8192), rel=1e-12)
    assert cli.main(ARGS + ["--tree-tokens", "24", "--acceptance-curve", "90,80,70", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    s = D.with_(gpu="h200", gpus=1, draft="llama-3.2-1b", batch=32, context=8192, stepModel="measured", treeTokens=24)
    continued = serving.received_curve((0.9, 0.8, 0.7))  # position 4 the acceptance model's, not 0.7 again
    assert document["speedup"] == pytest.approx(serving.speedup_at(s, 32, 8192, curve=continued), rel=1e-12)
    assert document["speedup"] != pytest.approx(serving.speedup_at(s, 32, 8192, curve=(0.9, 0.8, 0.7)), rel=1e-9)
    assert document["bestLookaheadExtrapolatedFrom"] == (3 if document["bestLookahead"] > 3 else None)
    assert document["verifyStepMs"] == serving.verify_step_ms(s, 32, 8192)


def test_cli_text_and_precision(capsys):
    assert cli.main(ARGS + ["--precision", "fp8", "--step-model", "roofline", "--mem-efficiency", "90",
                            "--flop-efficiency", "70", "--overhead-ms", "0"]) == 0
    out = capsys.readouterr().out
    assert "speedup" in out and "crossoverBatch" in out and "kvBytesPerToken  163840" in out


@pytest.mark.parametrize("change, message", [
    (["--gpu", "h100"], "--gpu: unknown name 'h100'; valid: a100-80g, a100-40g, h100-sxm, h200, l40s, rtx-4090"),
    (["--target", "gpt-4"], "--target: unknown name 'gpt-4'; valid: llama-2-7b"),
    (["--precision", "int4"], "--precision: unknown name 'int4'; valid: bf16, fp8"),
    (["--batch", "0"], "--batch must be an integer from 1 to 4096, got '0'"),
    (["--batch", "2.5"], "--batch must be an integer from 1 to 4096"),
    (["--context", "2000000"], "--context must be an integer from 1 to 1048576"),
    (["--acceptance", "nan"], "--acceptance must be a number from 0 to 100"),
    (["--mem-efficiency", "0"], "--mem-efficiency must be a number from 1 to 100"),
    (["--overhead-ms", "-1"], "--overhead-ms must be a number from 0 to 1000"),
    (["--gpus", "3.5"], "--gpus must be an integer from 1 to 8"),
    (["--tree-tokens", "-2"], "--tree-tokens must be an integer from 0 to 1024"),
    (["--step-model", "magic"], "--step-model: unknown name 'magic'; valid: measured, roofline, operators"),
    (["--acceptance-curve", "80,nan"], "--acceptance-curve must be 1 to 64 comma-separated numbers from 0 to 100"),
    (["--acceptance-curve", "120"], "--acceptance-curve must be 1 to 64 comma-separated numbers from 0 to 100"),
])
def test_cli_bad_input(change, message, capsys):
    assert cli.main(ARGS + change) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
    assert message in captured.err and "Traceback" not in captured.err


def test_cli_help_lists_names(capsys):
    with pytest.raises(SystemExit):
        cli.main(["serving", "--help"])
    out = capsys.readouterr().out
    for name in (*serving.TARGETS, *serving.DRAFT_NAMES, *serving.GPUS, *serving.PRECISIONS):
        assert name in out


# --- the widget's view -------------------------------------------------------------------------------

from lab.widgets import serving as widget  # noqa: E402


def test_view_default_and_query_round_trip():
    view = widget.view(None)
    # the default is a setting an engine measured (lab.serving_validation's H100 EAGLE row, k = 2) on today's vLLM
    # V1, which pays no serial output processing (its front end detokenizes): speculation still pays at the largest
    # batch that fits in memory (392 at 1024 tokens), as today's V1 sweep in the validation table (one B200) still
    # pays at batch 128; charged vLLM V0's terms instead, it stops paying at batch 15
    assert view["notes"] == [] and view["crossoverBatch"] is None
    assert view["params"]["stepModel"] == "measured" and view["readouts"]["crossover"] == "none up to 392"
    assert serving.crossover_batch(serving.DEFAULT_SETTINGS.with_(
        stepModel="measured", target="llama-3-8b", draft="eagle-head", gpus=1, lookahead=2, acceptance=57.0,
        context=1024, engine="vllm-v0")) < 40
    assert widget.view(view["query"])["params"] == view["params"]
    assert all(key.startswith("srv") for key, _ in (pair.split("=") for pair in view["query"].split("&")))
    # the widget keeps its decision figures; the validation and the brackets are the article's (page_context)
    assert set(view["figures"]) == {"heatmap", "heatmapSelection", "table", "batch", "load", "loadTable", "tail",
                                   "curveSwitch"}
    assert widget.page_context()["validation"]["figure"].startswith("<svg")


def test_view_reads_the_exact_lab_from_form_values_and_from_the_url():
    by_form = widget.view({"exact.certainty": "40", "exact.match": "50", "exact.gamma": "3", "exact.seed": "7"})
    by_url = widget.view("?certainty=40&match=50&gamma=3&seed=7")
    assert by_form["exact"] == by_url["exact"] == {"certainty": 40, "match": 50, "gamma": 3, "draftCost": 9,
                                                   "length": 96, "seed": 7}
    assert by_form["figures"]["tail"] == by_url["figures"]["tail"] != widget.view(None)["figures"]["tail"]
    assert by_form["notes"] == []  # the exact widget reports its own bad values


@pytest.mark.parametrize("raw, fragment", [
    ({"gpu": "h100"}, f"GPU: 'h100' is not one of the {len(serving.GPUS)} choices; using H100 SXM"),
    ("?srvGpus=3", "GPUs sharing the model: '3' is not one of \u201c1\u201d, \u201c2\u201d, \u201c4\u201d, \u201c8\u201d; using 1"),
    ("?srvModel=fast", "Step-time model: 'fast' is not one of \u201ccalibrated, per operator\u201d"),
    ({"lookahead": "NaN"}, "Lookahead k: 'NaN' is not a number"),
    ({"batchExp": "99"}, "Batch B: 2^99 sequences is more than the largest, 1,024 sequences; using 1,024 sequences"),
    ("?srvTarget=%3Cscript%3E", "Target model: '<script>' is not one of"),
    ("?" + "x" * 3000, "were 3001 characters long (at most 2048 are read); using the defaults"),
])
def test_view_notes_bad_input_and_keeps_the_rest(raw, fragment):
    view = widget.view(raw)
    assert any(fragment in note for note in view["notes"]), view["notes"]
    assert "<script>" not in "".join(view["figures"].values())


@hsettings(max_examples=40, deadline=None)
@given(st.dictionaries(st.sampled_from([s.name for s in widget.SLIDERS] + [s.name for s in widget.SELECTS]
                                       + ["exact.certainty", "exact.gamma", "width"]),
                       st.one_of(st.text(max_size=12), st.integers(-10**6, 10**6).map(str), st.none())))
def test_view_never_raises(raw):
    view = widget.view(raw)
    assert view["summary"] and set(view["figures"]) >= {"heatmap", "tail"}


def test_width_lays_out_the_figures_and_text_stays_legible():
    import re
    for width, expect in (("390", 390), ("100", 320), ("5000", 960), ("abc", 640)):
        view = widget.view({"width": width})
        for name in ("heatmap", "batch", "load", "tail"):
            assert f'viewBox="0 0 {expect} ' in view["figures"][name], (name, width)
    svg = "".join(widget.view(None)["figures"].values())
    assert "style=" not in svg
    assert widget.TEXT >= 12 and not re.search(r'font-size="([0-9]|1[01])"', svg)



# --- the per-operator model, calibration and validation ----------------------------------------------

from lab import serving_calibration, serving_validation  # noqa: E402

M = D.with_(stepModel="measured")


def test_every_gpu_has_a_calibration_and_the_unmeasured_are_named():
    assert set(serving_calibration.CALIBRATIONS) == set(serving.GPUS)
    assert set(serving_calibration.MEASURED_GPUS) == {"a100-80g", "a100-40g", "h100-sxm", "h200"}
    assert {m.gpu for m in serving_calibration.STEP_MEASUREMENTS} <= set(serving_calibration.MEASURED_GPUS)
    for cal in serving_calibration.CALIBRATIONS.values():
        assert cal.source and 0 < cal.memEfficiency <= 1 and 0 < cal.flopEfficiency <= 1 and 0 <= cal.overlap <= 1


def test_a_small_draft_is_bound_by_its_fixed_cost():
    """A 1B draft on 4 H100s: its weights take a fraction of a millisecond, its fixed costs (one
    draft pass, 16 layers' launches and 32 all-reduce latencies) most of its step."""
    s = M.with_(draft="llama-3.2-1b")
    shape = serving.DRAFTS["llama-3.2-1b"]
    parts = serving._measured_step(shape, s, "draft")
    step = serving.draft_step_ms(s, 1, 1024)
    assert parts.fixed_ms > step / 2 and parts.gemm_ms < step / 4
    share = step / serving.step_time_ms(serving.TARGETS["llama-3-70b"], s, 1, 1, 1024)
    assert 0.05 < share < 0.2   # measured about 12.5% (quoted in the serving issue); the roofline said 5.4%


def test_verify_costs_more_than_a_plain_step_even_below_the_ridge():
    """Measured: four tokens per sequence at batch 64 cost about 1.4 plain steps; the roofline's 1.0."""
    target = serving.TARGETS["llama-3-8b"]
    s = M.with_(target="llama-3-8b", gpus=1)
    ratio = serving.step_time_ms(target, s, 64, 4, 1024) / serving.step_time_ms(target, s, 64, 1, 1024)
    assert 1.25 < ratio < 1.6
    # and already below the ridge: at batch 16 (64 tokens in the pass) the weight GEMMs are memory-bound
    assert serving.step_regime(target, s, 16, 4, 1024) == "memory-bound"
    assert serving.step_time_ms(target, s, 16, 4, 1024) > 1.05 * serving.step_time_ms(target, s, 16, 1, 1024)
    roofline = D.with_(target="llama-3-8b", gpus=1)
    assert serving.step_time_ms(target, roofline, 64, 4, 1024) == serving.step_time_ms(target, roofline, 64, 1, 1024)


def test_trees_verify_their_node_count_and_ngram_costs_cpu_time():
    tree = M.with_(treeTokens=32)
    assert serving.verify_tokens(tree) == 32 and serving.verify_tokens(M) == M.lookahead + 1
    assert serving.verify_step_ms(tree, 16, 1024) > serving.verify_step_ms(M, 16, 1024)
    # today's V1: one call (20 us, assumed) and a KMP scan of 64 x 1024 tokens at 70.28 ms / (512 x 129,536) tokens
    # (vLLM pull request 56732), the cycle's proposal spread over its k drafts
    scan_ms = 64 * 1024 * 70.28 / (512 * 129536)
    assert serving.draft_step_ms(M.with_(draft="ngram"), 64, 1024) == pytest.approx((0.02 + scan_ms) / M.lookahead)
    assert serving.draft_step_ms(D.with_(draft="ngram"), 64, 1024) == 0.0


def test_tensor_parallel_costs_all_reduces():
    target = serving.TARGETS["llama-3-70b"]
    one, four = serving.step_breakdown(target, M.with_(gpus=1, gpu="h200"), 8, 1, 1024), \
        serving.step_breakdown(target, M.with_(gpus=4, gpu="h200"), 8, 1, 1024)
    assert one["allReduce"] == 0 and four["allReduce"] > 0 and four["fixed"] > one["fixed"]
    assert four["weights"] == pytest.approx(one["weights"] / 4, rel=1e-12)


def test_effective_ridge_is_the_one_the_regime_uses():
    for s in (D, M, M.with_(gpu="a100-80g")):
        ridge = serving.effective_ridge(s)
        target = serving.TARGETS["llama-3-8b"]
        s = s.with_(target="llama-3-8b", gpus=1)
        # the weight GEMMs turn compute-bound where their intensity 2 m / b passes the effective ridge
        m = int(ridge * 2 / 2)   # bf16: 2 bytes a weight, so m tokens give intensity m FLOP/byte
        if s.stepModel == "measured":
            assert serving.step_regime(target, s, m - 1, 1, 64) == "memory-bound"
            assert serving.step_regime(target, s, m + 2, 1, 64) == "compute-bound"


def test_memory_stops_the_crossover_search():
    s = M.with_(context=32768)
    fits = serving.max_batch_in_memory(s)
    assert 1 <= fits < 64
    assert serving.crossover_batch(s) in (None, *range(1, int(fits) + 1))
    assert serving.crossover_batch_scan(s) == serving.crossover_batch(s)


def test_validation_is_computed_and_kept_apart_from_calibration():
    rows = serving_validation.comparison()
    summary = serving_validation.summary(rows)
    assert summary["points"] == len(serving_validation.VALIDATION) >= 4
    assert summary["above"] == sum(r["predicted"] > r["measured"] for r in rows)
    assert 0.85 < summary["medianRatio"] < 1.15          # the issue's goal: median error within 15%
    sources = {m.source for m in serving_calibration.STEP_MEASUREMENTS}
    assert not sources & {p.source for p in serving_validation.VALIDATION}
    for point in serving_validation.VALIDATION:  # the acceptance given to the model is the row's
        alpha = serving_validation.alpha_for_length(point.acceptanceLength, point.lookahead)
        assert serving.tokens_per_cycle(alpha, point.lookahead) == pytest.approx(point.acceptanceLength, abs=1e-9)


def test_batch_one_validation_error_is_what_the_page_states():
    # calibrated on step times only (the SpecDecode-Bench fit gives Hopper its verify pass), the batch-one rows of
    # synchronous vLLM V1 come out 10% above their measurement (median; 13% before the proposal's fitted term reached
    # EAGLE-1 heads, December 2026), the EAGLE-3 rows most: 20-35% high, a cost no code read explains; not tuned on
    # them: this pins the error the page prints, it does not aim it
    summary = serving_validation.summary([row for row in serving_validation.comparison()
                                          if row["batch"] == 1 and row["engine"] == "vllm-v1-0.10"])
    assert 0.07 < summary["medianAbsError"] < 0.13 and 1.3 < summary["worstRatio"] < 1.5
    assert summary["above"] == 14 and summary["points"] == 16


def test_eagle3_head_is_priced_as_vllm_builds_it():
    target = serving.TARGETS["llama-3-8b"]
    e1, e3 = serving.eagle_head(target), serving.eagle3_head(target)
    h = target.hidden
    # 2h-input q, k, v (+ h x 6144), a 3h->h fc in place of 2h->h, a hidden-state norm, a 32k LM head for 128k
    assert e3.params - e1.params == h * 6144 + h * h + h + (32000 - 128256) * h
    assert serving.head_params(e3) == 32000 * h and serving.gemm_params(e3) == e3.params - 32000 * h
    s = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, target="llama-3-8b", gpus=1, gpu="h100-sxm")
    assert serving.draft_step_ms(s.with_(draft=serving.EAGLE3), 1, 600) < serving.draft_step_ms(s.with_(draft=serving.EAGLE), 1, 600)
    # a widget preset since December 2026 (labelled by its vocabulary), and still the head the CLIs price by name
    assert serving.EAGLE3 in serving.DRAFT_NAMES and serving.PRICED_DRAFT_NAMES == serving.DRAFT_NAMES
    assert serving.DRAFT_CHOICES[serving.EAGLE3] == "EAGLE-3 head (1 layer)"


def _without_serial_output(monkeypatch):
    for name, cal in list(serving_calibration.CALIBRATIONS.items()):
        monkeypatch.setitem(serving_calibration.CALIBRATIONS, name, cal._replace(serialOutputUs=0.0))


def test_crossover_brackets_are_the_models_first_loss_and_the_serial_term_lowers_them(monkeypatch):
    rows = serving_validation.crossover_comparison()
    assert len(rows) == len(serving_validation.CROSSOVER_BRACKETS) == 3
    for row in rows:
        assert row["low"] < row["high"] and len(row["crossovers"]) == len(row["acceptanceLengths"])
        for length, found, inside in zip(row["acceptanceLengths"], row["crossovers"], row["inside"]):
            settings = serving.DEFAULT_SETTINGS.with_(
                gpu=row["gpu"], target=row["target"], draft=row["draft"], gpus=row["gpus"],
                lookahead=row["lookahead"], context=row["context"], stepModel=serving.MEASURED, engine=row["engine"],
                acceptance=100 * serving_validation.alpha_for_length(length, row["lookahead"]))
            assert found == serving.crossover_batch_scan(settings)         # the brute-force first loss
            assert inside == (found is not None and row["low"] < found <= row["high"])
        # more acceptance, later loss (None: none up to all that fits, the latest of all)
        ordered = sorted(zip(row["acceptanceLengths"], row["crossovers"]))
        assert all(b[1] is None or (a[1] is not None and a[1] <= b[1]) for a, b in zip(ordered, ordered[1:]))
        assert any(c is not None for c in row["crossovers"])   # each sweep loses somewhere in the model
    with_term = {row["label"]: row["crossovers"] for row in rows}
    _without_serial_output(monkeypatch)
    serving._measured_constants.cache_clear()
    try:
        without = serving_validation.crossover_comparison()
    finally:
        serving._measured_constants.cache_clear()
    for row in without:   # the measured serial output processing pulls every crossover down by a fifth or more
        for after, before in zip(with_term[row["label"]], row["crossovers"]):
            # no loss with the term (up to all that fits) means none without it either
            assert (before is None) if after is None else (before is None or before > 1.2 * after)
        assert sum(c is not None for c in with_term[row["label"]]) >= sum(c is not None for c in row["crossovers"])


def test_the_emitted_token_output_lowers_every_bracket_crossover(monkeypatch):
    with_term = {row["label"]: row["crossovers"] for row in serving_validation.crossover_comparison()}
    for name, cal in list(serving_calibration.CALIBRATIONS.items()):
        monkeypatch.setitem(serving_calibration.CALIBRATIONS, name, cal._replace(tokenOutputUs=0.0))
    serving._measured_constants.cache_clear()
    try:
        without = serving_validation.crossover_comparison()
    finally:
        serving._measured_constants.cache_clear()
    for row in without:   # 21.2 us per extra emitted token on vLLM V0: a few percent of the cycle, the losses earlier
        for after, before in zip(with_term[row["label"]], row["crossovers"]):
            if row["engine"] == "vllm-v0" and after is None:     # no loss up to all that fits, with it or without
                assert before is None
            elif row["engine"] == "vllm-v0":
                assert before is None or after < before
            else:                # SGLang detokenizes in its own process: no such term
                assert after == before


def test_page_context_carries_the_validation_figure_and_tables():
    context = widget.page_context()["validation"]
    assert context["figure"].startswith("<svg") and "validation" not in widget.view(None)["figures"]
    assert context["table"].count("<tr>") == len(serving_validation.VALIDATION) + 1
    assert context["calibration"].count("<tr>") == len(serving_calibration.STEP_MEASUREMENTS) + 1
    assert context["unmeasured"] == ["L40S", "RTX 4090", "RTX 3090", "B200 (HGX)", "B300 (HGX)", "MI300X", "MI355X"]


# --- mixtures of experts -----------------------------------------------------------------------------

def test_distinct_experts_matches_uniform_routing_by_simulation():
    """E (1 - (1 - k/E)^m) is exact for uniform, independent top-k routing: a numpy simulation of
    m tokens each drawing k of E experts without replacement agrees within sampling error."""
    rng = np.random.default_rng(7)
    for name in ("mixtral-8x7b", "qwen3-30b-a3b", "deepseek-v3"):
        shape = serving.TARGETS[name]
        for tokens in (1, 4, 16, 64):
            counts = [len({int(e) for _ in range(tokens) for e in rng.choice(shape.experts, shape.active_experts,
                                                                                replace=False)})
                      for _ in range(400)]
            assert np.mean(counts) == pytest.approx(serving.distinct_experts(shape, tokens), rel=0.03, abs=0.05)
    assert serving.distinct_experts(serving.TARGETS["llama-3-8b"], 64) == 0.0


def test_moe_verification_is_not_free_at_batch_one_and_its_searches_are_exact():
    s = M.with_(target="qwen3-30b-a3b", draft="eagle-head", gpus=1, lookahead=4, batch=1)
    target = serving.TARGETS["qwen3-30b-a3b"]
    plain, verify = serving.step_time_ms(target, s, 1, 1, 1024), serving.step_time_ms(target, s, 1, 5, 1024)
    fixed = serving.step_breakdown(target, s, 1, 1, 1024)["fixed"]   # the MoE layers' kernels among it, same in both
    assert verify - fixed > 1.5 * (plain - fixed)   # five tokens read about 4.4 times the experts one token does
    dense = M.with_(target="llama-3-8b", gpus=1)
    assert serving.step_time_ms(serving.TARGETS["llama-3-8b"], dense, 1, 5, 1024) < 1.05 * serving.step_time_ms(
        serving.TARGETS["llama-3-8b"], dense, 1, 1, 1024)
    for changes in (dict(), dict(target="mixtral-8x7b", gpus=2, acceptance=50, lookahead=6)):
        case = s.with_(**changes)
        assert serving.crossover_batch(case) == serving.crossover_batch_scan(case)
        for rate in (0.5, 20, 400):
            for speculative in (False, True):
                batch = serving.steady_batch(case, rate, speculative)
                if batch is not None:
                    demand = rate * case.requestOutputTokens * serving.ms_per_token(case, batch, speculative) / 1000
                    assert batch == pytest.approx(demand, rel=1e-6)


def test_cli_runs_an_moe_target_with_its_mtp_head(capsys):
    assert cli.main(["serving", "--target", "deepseek-v3", "--draft", "eagle-head", "--gpu", "h200", "--gpus", "8",
                     "--precision", "fp8", "--batch", "16", "--context", "4096", "--lookahead", "3",
                     "--acceptance", "80", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["kvBytesPerToken"] == 61 * 576 and document["fitsInMemory"]
    assert document["verifyStepMs"] > document["plainStepMs"] > 0 and document["speedup"] > 1


def test_trust_line_is_per_engine_and_family():
    """The trust line quotes an error only for the engine and preset family a published end-to-end row covers
    (synchronous vLLM V1, dense Llama-3-8B with an EAGLE head, on Hopper), computed from those rows; every other
    engine or family says "not validated", and none claims an upper bound within a factor."""
    from lab.widgets import serving as widget

    base = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, target="llama-3-8b", draft=serving.EAGLE, gpus=1)
    covered = widget.trust_line(base.with_(engine="vllm-v1-0.10"))
    rows = widget._matching_validation(base.with_(engine="vllm-v1-0.10"))
    assert rows and f"on {len(rows)} published speedups" in covered and "not validated" in covered
    for engine in serving.ENGINES:
        if engine != "vllm-v1-0.10":
            assert "not validated for" in widget.trust_line(base.with_(engine=engine))
    for changes in (dict(target="qwen3-30b-a3b"), dict(target="deepseek-v3", gpus=8), dict(gpu="l40s")):
        assert "not validated" in widget.trust_line(base.with_(engine="vllm-v1-0.10", **changes))
    assert all("factor" not in widget.trust_line(base.with_(engine=e)) for e in serving.ENGINES)


def test_the_brackets_figure_draws_the_crossover_comparison():
    """The crossover figure is lab.serving_validation.crossover_comparison drawn: a bracket, a dot and a
    line per sweep, each in order on the batch axis, and its text alternative names every number."""
    import re

    from lab.widgets import serving as widget

    rows = serving_validation.crossover_comparison()
    svg = widget.brackets_svg(rows, 640)
    brackets = [(float(x), float(w)) for x, w in re.findall(r'class="srv-bracket" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"', svg)]
    dots = [float(x) for x in re.findall(r'class="k-speculative(?: srv-open-dot)?" cx="([\d.]+)"', svg)]
    assert len(brackets) == len(dots) == len(rows) == 3
    ticks = {int(t): float(x) for x, t in re.findall(r'<text class="fig-tick" x="([\d.]+)" y="[\d.]+" text-anchor="middle">(\d+)</text>', svg)}
    position = lambda batch: ticks[16] + (ticks[32] - ticks[16]) * np.log2(batch / 16)  # noqa: E731
    for row, (x, w), dot in zip(rows, brackets, dots):
        assert x == pytest.approx(position(row["low"]), abs=0.2) and x + w == pytest.approx(position(row["high"]), abs=0.2)
        # no loss at the central acceptance: the dot sits where the search stopped, all that fits in memory
        central = row["fits"] if row["crossovers"][0] is None else row["crossovers"][0]
        assert dot == pytest.approx(position(central), abs=0.2)
        for found, length in zip(row["crossovers"], row["acceptanceLengths"]):
            assert f"{'none' if found is None else found} at acceptance length {widget._f(length)}" in svg
        assert (f"No loss up to batch {row['fits']}, all that fit in memory." in svg) == (None in row["crossovers"])
    open_dots = re.findall(r'class="k-speculative srv-open-dot" cx="[\d.]+" cy="[\d.]+" r="5"', svg)
    assert "style=" not in svg    # the page's CSP refuses inline styles
    assert len(open_dots) == sum(row["crossovers"][0] is None for row in rows)    # no central loss: an open dot
    assert widget.page_context()["validation"]["bracketsFigure"] == widget.brackets_svg(rows, widget.BRACKETS_WIDTH)


def _segments(svg: str, css: str) -> list[tuple[float, float, float, float]]:
    """The straight pieces (x1, y1, x2, y2) of the path with class ``css`` ("M x y L x y" each)."""
    import re

    path = re.search(rf'<path class="{css}" d="([^"]*)"', svg)
    assert path, css
    return [tuple(map(float, piece)) for piece in re.findall(r"M([\d.]+) ([\d.]+)L([\d.]+) ([\d.]+)", path.group(1))]


def test_the_batch_charts_hatch_stays_inside_its_panels():
    """Batches that do not fit in memory are hatched inside each panel, from the largest batch that
    fits to the right edge: no hatch line crosses the title between the panels or the ticks under
    the lower one (it once ran from the top panel through both into the tick labels)."""
    import re

    view = widget.view("gpus=1")
    svg = view["figures"]["batch"]
    axes = sorted(float(y) for y in re.findall(r'<line class="fig-axisline" x1="[\d.]+" x2="[\d.]+" y1="([\d.]+)"', svg))
    assert len(axes) == 2
    pieces = _segments(svg, "srv-nofit srv-nofit-line")
    assert len(pieces) > 10
    upper, lower = (10, axes[0]), (axes[0] + 34, axes[1])
    for x1, y1, x2, y2 in pieces:
        assert x1 < x2 and y1 > y2  # rising to the right
        assert any(top <= y2 and y1 <= bottom for top, bottom in (upper, lower)), (y1, y2, axes)


def test_hatch_path_covers_a_rectangle_on_one_lattice():
    """Each piece lies on a line x + y = n * spacing and inside the rectangle; two rectangles side by
    side give pieces that meet on their shared edge (one hatch)."""
    from lab.figures import hatch_path

    def pieces(d):
        import re
        return [tuple(map(float, p)) for p in re.findall(r"M([\d.]+) ([\d.]+)L([\d.]+) ([\d.]+)", d)]

    left = pieces(hatch_path(0, 0, 30, 20, 6))
    right = pieces(hatch_path(30, 0, 60, 20, 6))
    for x1, y1, x2, y2 in left + right:
        assert abs((x1 + y1) / 6 - round((x1 + y1) / 6)) < 1e-9 and abs((x1 + y1) - (x2 + y2)) < 1e-9
        assert 0 <= min(x1, x2) and max(x1, x2) <= 60 and 0 <= min(y1, y2) and max(y1, y2) <= 20
    ends = {(x2, y2) for x1, y1, x2, y2 in left if x2 == 30}
    starts = {(x1, y1) for x1, y1, x2, y2 in right if x1 == 30}
    assert starts and starts <= ends and all(y in (0, 20) for _, y in ends - starts)  # but a corner
    assert hatch_path(5, 5, 5, 9) == ""


def test_the_load_chart_ends_a_decade_past_the_overload_and_sets_unrated_marks_apart():
    """The rate axis ends at the first power of ten at or past 1.5 times the last rate either server
    still serves, or 3 times a rated mark's (it once ran on to 5,000 requests/s, past both overloads, to place two marks
    published without a rate); those marks stand in a "high QPS" column right of the axis, apart
    from each other, their tags stacked in the marks' order (with the settings of the layout test's
    that found them reversed too)."""
    import re

    for width in (320, 640, 960):
        plain = serving.latency_curve(serving.ServingSettings(), widget.LOAD_RATES, False)
        spec = serving.latency_curve(serving.ServingSettings(), widget.LOAD_RATES, True)
        served = max(r for r, p, q in zip(widget.LOAD_RATES, plain, spec) if p is not None or q is not None)
        svg = widget.load_svg(widget.LOAD_RATES, plain, spec, None, width)
        ticks = [float(t) for t in re.findall(r'text-anchor="middle"[^>]*>([\d.]+)</text>', svg)]
        rated = max(3 * mark["rate"] for mark in serving.VLLM_REFERENCE if mark["rate"] is not None)
        assert ticks and max(ticks) <= 10 ** math.ceil(math.log10(max(served * 1.5, rated))), (width, ticks, served)
        assert "high QPS" in svg or ">high<" in svg
        dots = [(float(x), float(y)) for x, y in re.findall(r'<circle class="srv-ref-dot" cx="([\d.]+)" cy="([\d.]+)"', svg)]
        unrated = [dot for dot in dots if dot[0] > width - 16 - widget.NARROW_RATE_COLUMN]
        assert len(unrated) == sum(mark["rate"] is None for mark in serving.VLLM_REFERENCE) == 2
        assert abs(unrated[0][0] - unrated[1][0]) >= 14  # side by side, not on top of each other
        baselines = {tag: float(y) for y, tag in re.findall(r'y="([\d.]+)"[^>]*>(?:vLLM )?(1/1\.[48]x)</text>', svg)}
        assert baselines["1/1.4x"] < baselines["1/1.8x"]  # the larger ratio's tag on top, as its mark is


def test_the_validation_scatters_numbers_stay_off_the_diagonal():
    """Each dot's number (right of its dot, else left) is clear of the dashed y = x line, of the
    dots and of the other numbers, at three widths (numbers sat on the line before)."""
    import re

    from lab.figures import MIN_TEXT, label_box

    for width in (320, 640, 960):
        svg = widget._validation_figure(width)
        x1, y1, x2, y2 = map(float, re.search(
            r'<path class="srv-one" d="M([\d.]+) ([\d.]+)L([\d.]+) ([\d.]+)"', svg).groups())
        numbers = [(float(x), float(y), words, anchor) for x, y, anchor, words in re.findall(
            r'<text class="fig-small" x="([\d.]+)" y="([\d.]+)" text-anchor="(start|end)"[^>]*>(\d+)</text>', svg)]
        assert len(numbers) >= 5, (width, numbers)
        boxes = [label_box(spot, MIN_TEXT) for spot in numbers]
        for left, top, right, bottom in boxes:
            # the line's y at the box's columns: it crosses the box iff it enters its row band
            along = [y1 + (y2 - y1) * (x - x1) / (x2 - x1) for x in (left, right)]
            assert max(along) < top or min(along) > bottom, (width, (left, top, right, bottom))
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (width, a, b)


def test_leave_one_source_out_refits_without_the_source_and_restores_the_calibration(monkeypatch):
    """A validation source that also gave a step time is predicted by a calibration refitted without that
    step time (and the GPU family's calibration is restored afterwards); today none does, so the column
    equals the prediction."""
    from lab.serving_calibration import StepMeasurement

    rows = serving_validation.comparison()
    assert all(row["predictedWithout"] == row["predicted"] for row in serving_validation.leave_one_source_out(rows))
    before = dict(serving_calibration.CALIBRATIONS)
    extra = StepMeasurement("h100-sxm", "llama-3-8b", "bf16", 1, 1, 1, 600, 3.0, 0.15,
                            "vLLM issue #20780 (a made-up step time, far from the others)", "test", "vllm-v1-0.10")
    monkeypatch.setattr(serving_calibration, "STEP_MEASUREMENTS", serving_calibration.STEP_MEASUREMENTS + (extra,))
    out = serving_validation.leave_one_source_out(rows)
    hit = [row for row in out if "20780" in row["source"]]
    assert hit and all(row["leftOut"] == 1 for row in hit)
    assert all(row["leftOut"] == 0 for row in out if "20780" not in row["source"])
    assert serving_calibration.CALIBRATIONS == before
    # the H100 family refitted without the made-up row predicts as the committed calibration nearly does
    assert all(abs(row["predictedWithout"] / row["predicted"] - 1) < 0.05 for row in hit)


def test_calibration_table_times_each_row_on_its_engine():
    from lab.widgets import serving as widget

    table = widget.calibration_table_html()
    for m in serving_calibration.STEP_MEASUREMENTS:
        assert widget._f(serving_validation.step_measurement_ms(m)) in table
    assert "vLLM V0 (≤0.7; drafts ≤0.10), scoring" in table and "vLLM V1 0.10 (synchronous), verify" in table


def test_nothing_fits_is_one_sentence_naming_the_limit_and_what_to_change():
    """Reader audit N4-15: where not even the weights fit, the lead claims no speedup, names what the weights
    need and what the GPUs hold and what would hold them; the load chart says so in the chart, not empty axes."""
    view = widget.view({"target": "deepseek-v3", "gpus": "8"})
    lead = view["lead"]
    assert lead.count(". ") == 0 and lead.endswith("."), lead   # one sentence
    assert "does not fit on 8 x H100 SXM" in lead and "1,367 GB in BF16" in lead and "576 GB" in lead, lead
    assert "it fits in FP4 or on 8 x B200 (HGX)" in lead, lead
    assert "x, faster" not in lead and "x, slower" not in lead and view["readouts"]["speedup"] not in lead
    assert view["live"].startswith("does not fit") and "x faster" not in view["live"]
    assert "does not fit in 8 x H100 SXM" in view["figures"]["load"]
    assert "nan" not in json.dumps(view).lower() and "None" not in view["summary"]
    # a GPU count and a precision that fit are named as they are; where none does, it says so
    assert "it fits on 4 GPUs" in widget.view({"target": "llama-3-70b"})["lead"]
    assert "no GPU count, precision or GPU preset of this panel holds it" in widget.view(
        {"target": "kimi-k2", "gpu": "rtx-4090"})["lead"]
    # a setting that fits keeps its speedup sentence
    assert "runs " in widget.view(None)["lead"]


def test_widget_continues_a_short_curve_by_the_acceptance_model():
    """Past a curve's measured positions the serving widget runs on the acceptance model's
    continuation (lab.acceptance.extended_rates), never the last rate repeated, and says which
    positions are extrapolated; a token's @m mark sets where measurement ended."""
    from lab import acceptance
    from lab.widgets import serving as widget

    short = widget.view({"srvCurve": "custom:0.9,0.7,0.5", "lookahead": "5"})
    continued = acceptance.extended_rates([0.9, 0.7, 0.5], 16)
    repeated = serving.tokens_per_cycle(0, 5, [0.9, 0.7, 0.5, 0.5, 0.5])
    assert short["readouts"]["tokensPerCall"] == widget._f(serving.tokens_per_cycle(0, 5, continued), 3)
    assert short["readouts"]["tokensPerCall"] != widget._f(repeated, 3)
    assert "positions 4 to 5 extrapolated by the acceptance model past the measured k = 3" in short["summary"]
    assert "positions 4 to 5 (" in short["figures"]["curveSwitch"]
    assert "the last rate repeats" not in short["figures"]["curveSwitch"]
    marked = widget.view({"srvCurve": "custom:0.9,0.7,0.5,0.4@2", "lookahead": "3"})
    assert "position 3 extrapolated by the acceptance model past the measured k = 2" in marked["summary"]
    assert marked["readouts"]["tokensPerCall"] == widget._f(serving.tokens_per_cycle(0, 3, [0.9, 0.7, 0.5]), 3)
    inside = widget.view({"srvCurve": "custom:0.9,0.7,0.5", "lookahead": "3"})
    assert "extrapolated" not in inside["summary"].split("Under")[0]
    a = serving.answer(widget._settings(short["params"]), (0.9, 0.7, 0.5))
    assert a["curve"] == tuple(continued) and a["measuredAt"] == 3
    k, _ = serving.best_lookahead(widget._settings(short["params"]), curve=a["curve"], measured_at=3)
    assert (k > 3) == ("resting on the acceptance model's continuation past the measured k = 3" in short["summary"])


# --- one formula, one function: the speedup of a cycle (review CR-2.9) -----------------------------

@pytest.mark.parametrize("changes", [dict(), dict(stepModel=serving.MEASURED, target="llama-3-8b", gpus=1, lookahead=3),
                                     dict(stepModel=serving.MEASURED, engine="sglang", draft="eagle-head", batch=32),
                                     dict(draft="ngram", acceptance=85, treeTokens=16, context=8192)])
def test_every_sweep_gives_the_very_float_of_speedup_at(changes):
    """The grid, the batch sweep, the best lookahead and the production schedule all go through
    serving.cycle_speedup, so each gives exactly speedup_at's float at its cell (a ratio retyped in
    another order of operations would differ in the last bit about a third of the time)."""
    from lab import production

    s = D.with_(**changes)
    batches, contexts = (1, 8, 256), (512, 4096)
    grid = serving.speedup_grid(s, batches, contexts)
    assert grid == [[serving.speedup_at(s, b, l) for b in batches] for l in contexts]
    assert [row["speedup"] for row in serving.batch_sweep(s, batches)] == [
        serving.speedup_at(s, b, s.context) for b in batches]
    k, best = serving.best_lookahead(s, 6)
    assert best == serving.speedup_at(s.with_(lookahead=k), s.batch, s.context)
    one = s.with_(batch=1, lookahead=1)
    for batch, (best_k, value) in enumerate(production.k_by_batch(s, 6)[:4], start=1):
        assert best_k == 0 or value == serving.speedup_at(one.with_(lookahead=best_k), batch, s.context)
    assert serving.serving(s).speedup == pytest.approx(serving.speedup_at(s, s.batch, s.context), rel=1e-14)


def test_the_speedup_ratio_is_written_once_in_the_serving_sweeps():
    """`plain * tokens / cycle` lives in serving.cycle_speedup alone, not retyped in the sweeps."""
    import inspect
    import re

    from lab import production

    for module in (serving, production):
        source = inspect.getsource(module).replace(inspect.getsource(serving.cycle_speedup), "")
        assert not re.search(r"\bplain\w*\s*\*\s*tokens\s*/|\*\s*tokens\s*/\s*\w*cycle", source), module.__name__


# --- the checks use the model's public names (review CR-3.14) ----------------------------------------

def test_the_serving_checks_reach_for_no_private_name_of_the_model():
    """lab/checks/serving.py (and its readouts check, lab/checks/serving_readouts.py) checks the model through
    its public names (step_time_ms with a role, ms_per_token), not the step constants' private helpers: a refactor
    of those cannot break the suite silently."""
    import re
    from pathlib import Path

    checks = Path(__file__).resolve().parents[1] / "lab" / "checks"
    source = "\n".join((checks / name).read_text(encoding="utf-8") for name in ("serving.py", "serving_readouts.py"))
    assert re.findall(r"\bserving\._\w+", source) == []
    assert not re.search(r"from \.\.serving\w* import[^\n]*\b_\w", source)


@pytest.mark.parametrize("engine", list(serving.ENGINES))
def test_a_verify_pass_by_its_public_name_is_the_verify_step(engine):
    s = D.with_(stepModel=serving.MEASURED, target="llama-3-8b", gpus=1, engine=engine, lookahead=4)
    target = serving.TARGETS[s.target]
    for batch, context in ((1, 512), (64, 4096)):
        assert serving.step_time_ms(target, s, batch, serving.verify_tokens(s), context, "verify") == \
            serving.verify_step_ms(s, batch, context)
        assert serving.step_time_ms(target, s, batch, 1, context, "target") == \
            serving.step_time_ms(target, s, batch, 1, context)
    # a verify pass on vLLM V0 pays its bookkeeping: the role is not ignored
    v0 = s.with_(engine="vllm-v0")
    assert serving.step_time_ms(target, v0, 8, 5, 1024, "verify") > serving.step_time_ms(target, v0, 8, 5, 1024)


# --- the heatmap's cell from the sliders' own minima (review CR-3.12) ---------------------------------

def test_the_log_sliders_run_over_the_heatmaps_axes():
    """The serving widget's batch and context sliders are exponents whose range is the heatmap's rows
    and columns, so a slider's value less its minimum is the reader's cell (the view reads the
    minimum, lab.widgets.serving.LOWEST, rather than typing 9)."""
    from lab.widgets import serving as widget

    sliders = {slider.name: slider for slider in widget.SLIDERS}
    for name, axis in (("contextExp", serving.HEATMAP_CONTEXTS), ("batchExp", serving.HEATMAP_BATCHES)):
        slider = sliders[name]
        assert tuple(2 ** e for e in range(slider.minimum, slider.maximum + 1)) == axis
        assert widget.LOWEST[name] == slider.minimum


@pytest.mark.parametrize("context_exp, batch_exp", [(9, 0), (12, 5), (17, 10)])
def test_the_marked_cell_is_the_readers_context_and_batch(context_exp, batch_exp):
    import re

    from lab.widgets import serving as widget

    table = widget.view({"contextExp": str(context_exp), "batchExp": str(batch_exp)})["figures"]["table"]
    rows = re.findall(r"<tr><th scope=\"row\">[^<]*</th>(.*?)</tr>", table)[::-1]  # the longest context on top
    marked = [(r, c) for r, row in enumerate(rows) for c, attributes in enumerate(re.findall(r"<td([^>]*)>", row))
              if "selected" in attributes]
    assert marked == [(serving.HEATMAP_CONTEXTS.index(2 ** context_exp), serving.HEATMAP_BATCHES.index(2 ** batch_exp))]


def test_the_serving_cli_prices_an_eagle3_head_by_name(capsys):
    """The EAGLE-3 head the validation rows ran is a draft the serving CLI takes: priced as vLLM builds it
    (its own draft step, not the EAGLE-1 head's), and configured as an EAGLE-3 head whatever the target carries."""
    from lab.cli import main
    from lab.engine_config import _draft_kind

    argv = ["serving", "--target", "llama-3-8b", "--gpu", "h100-sxm", "--batch", "1", "--context", "1024",
            "--lookahead", "3", "--acceptance", "70", "--engine", "vllm-v1-0.10", "--json"]
    steps = {}
    for draft in ("eagle-head", "eagle3-head"):
        assert main([*argv, "--draft", draft]) == 0
        document = json.loads(capsys.readouterr().out)
        steps[draft] = document["draftStepMs"]
        assert document["params"]["draft"] == draft
    assert steps["eagle3-head"] != steps["eagle-head"]
    assert _draft_kind("deepseek-v3", serving.EAGLE3) == "eagle3" and _draft_kind("deepseek-v3", serving.EAGLE) == "mtp"


def test_the_configuration_names_the_mtp_module_the_model_prices():
    """Where a target's checkpoint ships an MTP module, the serving model prices that module as the "EAGLE or MTP
    head" (lab.serving_presets.eagle_head), and the engine configuration names MTP, not an EAGLE-3 checkpoint."""
    from lab.engine_config import _draft_kind

    kinds = {name: _draft_kind(name, serving.EAGLE) for name in serving.TARGETS}
    assert {name for name, kind in kinds.items() if kind == "mtp"} == {
        name for name, target in serving.TARGETS.items() if target.mtp} >= {"deepseek-v3", "glm-4.5"}
    assert all(kind == "eagle" for name, kind in kinds.items() if not serving.TARGETS[name].mtp)  # EAGLE-1, as priced


def test_a_kept_answer_and_kept_figures_answer_as_afresh():
    """The widget keeps its answer by the settings as the step model reads them (lab.serving.model_settings) and
    its selection, table and batch figures by what they are drawn from: a step of a roofline-only slider under a
    per-operator model reuses the very answer, under the roofline it does not (the figures move), and every view
    of a run of steps is the view of the same settings with nothing kept."""
    from mutation import SERVING_MODULES, clear_caches

    states = [{"stepModel": "measured", "lookahead": "3", "batchExp": "2", "batch": "4", "width": "640"}]
    for name, value in (("memEfficiency", "40"), ("flopEfficiency", "95"), ("overheadMs", "3"), ("batchExp", "6"),
                        ("contextExp", "14"), ("requestOutputTokens", "1024"), ("lookahead", "5"), ("stepModel", "operators"),
                        ("memEfficiency", "70"), ("stepModel", "roofline"), ("memEfficiency", "20"),
                        ("overheadMs", "0.2"), ("batchExp", "9")):
        states.append({**states[-1], name: value})
    for state in states:
        if "batchExp" in state:  # the typed twin follows its slider, as on the page
            state["batch"] = str(2 ** int(state["batchExp"]))
    clear_caches(widget, *SERVING_MODULES)
    warm = [widget.view(state) for state in states]
    for index in range(1, len(states)):
        moved = {name for name in states[index] if states[index][name] != states[index - 1].get(name)}
        before, after = warm[index - 1]["figures"], warm[index]["figures"]
        if moved <= set(serving.ROOFLINE_ONLY) and states[index]["stepModel"] != "roofline":
            assert all(after[name] is before[name] for name in after), moved
        if moved <= set(serving.ROOFLINE_ONLY) and states[index]["stepModel"] == "roofline":
            assert after["batch"] != before["batch"] and after["heatmap"] != before["heatmap"], moved
    for state, view in zip(states, warm):
        clear_caches(widget, *SERVING_MODULES)
        assert widget.view(state) == view, state
