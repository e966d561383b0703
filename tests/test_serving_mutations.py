"""Break lab.serving on purpose, one way per check, and watch exactly that check fail and name
the case; so no serving check is true by construction."""

import pytest

from lab import serving
from lab.checks import _run_check
from lab.checks import serving as family
from mutation import failure_of, replace_in_serving

CHECKS = dict(family.CHECKS)


def _mutate(monkeypatch, name, value):
    replace_in_serving(monkeypatch, name, value)


def _fails(name, *fragments):
    return failure_of(CHECKS, name, *fragments)


def test_every_check_holds_unmutated():
    for name in CHECKS:
        assert _run_check(CHECKS[name]).failure is None, name


def test_leviathan_catches_a_forgotten_bonus_token(monkeypatch):
    original = serving.speedup_at
    _mutate(monkeypatch, "speedup_at", lambda s, b, l, curve=None: original(s, b, l, curve) * (
        serving.tokens_per_cycle(s.acceptance / 100, s.lookahead) - 1) / serving.tokens_per_cycle(s.acceptance / 100, s.lookahead))
    _fails("serving-batch-one-is-leviathan", "!= Leviathan", "k=", "acceptance=")


def test_leviathan_catches_a_verify_step_whose_arithmetic_is_not_hidden(monkeypatch):
    # with the extra terms zeroed a GEMM's arithmetic hides under its weight reads; adding it breaks the reduction
    _mutate(monkeypatch, "_combine", lambda memory, compute, overlap: memory + compute)
    _fails("serving-batch-one-is-leviathan", "is not a plain step", "k=")


def test_leviathan_catches_engine_terms_left_in_the_ideal_limit(monkeypatch):
    # the ideal limit has no engine work: bookkeeping, serial output processing, host time must be zero there
    from lab import serving_calibration
    monkeypatch.setattr(serving_calibration, "IDEAL", serving_calibration.IDEAL._replace(engineTerms=True,
                                                                                        serialOutputUs=103.0))
    _fails("serving-batch-one-is-leviathan", "is not a plain step")


# --- the per-operator model: each term broken on its own ---------------------------------------------

def _patched_time(drop):
    """serving._time with one operator of the per-operator step left out (or changed)."""
    original = serving._time

    def patched(step, batch, new_tokens, context):
        if not isinstance(step, serving._MeasuredStep):
            return original(step, batch, new_tokens, context)
        return original(step._replace(**drop), batch, new_tokens, context)
    return patched


@pytest.mark.parametrize("drop, fragment", [
    ({"kv_ms": 0.0, "attention_flop_ms": 0.0}, "attention"),   # attention hidden, as one roofline over the step did
    ({"head_ms": 0.0, "head_flop_ms": 0.0}, "lmHead"),        # the LM head forgotten
    ({"comm_ms": 0.0}, "on 2 x"),                              # the all-reduce bytes forgotten (TP > 1)
    ({"overlap": 1.0}, "by hand"),                             # the roofline's max instead of the measured overlap
    ({"sequence_ms": 0.0}, "(target"),                         # the engine's per-sequence work forgotten
    ({"draft_token_ms": 0.0}, "(verify"),                      # the rejection sampler forgotten
    ({"serial_ms": 0.0}, "(verify"),                           # speculation's serial output processing forgotten
])
def test_operators_catch_a_term_left_out(monkeypatch, drop, fragment):
    _mutate(monkeypatch, "_time", _patched_time(drop))
    _fails("serving-operators-add-up", "by hand", fragment)


def test_operators_catch_a_draft_charged_the_engine_step(monkeypatch):
    original = serving._measured_step
    _mutate(monkeypatch, "_measured_step", lambda shape, s, role="target": original(
        shape, s, "target" if role == "draft" else role))
    _fails("serving-operators-add-up", "(draft", "by hand")


def test_operators_catch_the_sampler_charged_per_verify_token_not_per_draft_token(monkeypatch):
    _mutate(monkeypatch, "_engine_ms", lambda step, batch, new_tokens: batch * (
        step.sequence_ms + step.draft_token_ms * new_tokens))
    _fails("serving-operators-add-up", "(verify", "by hand")


def test_engine_work_grows_with_the_batch_and_spares_the_draft_pass():
    s = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, gpus=1, gpu="h100-sxm", target="llama-3-8b",
                                       engine="vllm-v0")
    target = serving.TARGETS["llama-3-8b"]
    plain = [serving._engine_ms(serving._step(target, s), b, 1) for b in (1, 64)]
    verify = serving._engine_ms(serving._step(target, s, "verify"), 64, 4)
    draft = serving._engine_ms(serving._step(target, s, "draft"), 64, 1)
    assert plain[1] == pytest.approx(64 * plain[0]) and plain[0] > 0 and draft == 0
    # three draft tokens a sequence at 5.6 us, and the serial output processing, 3.2 ms over 31 sequences
    assert verify == pytest.approx(plain[1] + 64 * 3 * 1.80 / 320 + 64 * 3.2 / 31)
    # today's vLLM V1 pays the sampler but no serial output processing
    v1 = serving._engine_ms(serving._step(target, s.with_(engine="vllm-v1"), "verify"), 64, 4)
    assert v1 == pytest.approx(plain[1] + 64 * 3 * 1.80 / 320)


def test_operators_catch_serial_output_charged_to_a_plain_step(monkeypatch):
    # plain decoding overlaps output processing with the GPU; charging it there too breaks the by-hand sum
    original = serving._measured_step
    _mutate(monkeypatch, "_measured_step", lambda shape, s, role="target": original(shape, s, role)._replace(
        serial_ms=original(shape, s.with_(engine="vllm-v0"), "verify").serial_ms))
    _fails("serving-operators-add-up", "(target", "by hand")


def test_operators_catch_serial_output_charged_per_verify_token(monkeypatch):
    _mutate(monkeypatch, "_engine_ms", lambda step, batch, new_tokens: batch * (
        step.sequence_ms + step.serial_ms * new_tokens + step.draft_token_ms * (new_tokens - 1)))
    _fails("serving-operators-add-up", "(verify", "by hand")


def test_operators_catch_kv_heads_not_split_over_gpus(monkeypatch):
    original = serving._measured_step
    _mutate(monkeypatch, "_measured_step", lambda shape, s, role="target": original(shape, s, role)._replace(
        kv_ms=original(shape, s.with_(gpus=1), role).kv_ms))
    _fails("serving-operators-add-up", "by hand", "x a100-80g")


def test_calibration_catches_datasheet_bandwidth(monkeypatch):
    from lab import serving_calibration
    for name in ("a100-80g", "a100-40g"):
        monkeypatch.setitem(serving_calibration.CALIBRATIONS, name,
                            serving_calibration.CALIBRATIONS[name]._replace(memEfficiency=1.0, passMs=0.5))
    _fails("serving-calibration-holds", "measured", "tolerance")


def test_calibration_catches_a_missing_fixed_cost_per_layer(monkeypatch):
    from lab import serving_calibration
    for name in ("h100-sxm", "h200"):
        monkeypatch.setitem(serving_calibration.CALIBRATIONS, name,
                            serving_calibration.CALIBRATIONS[name]._replace(layerMs=0.0, passMs=0.0, allreduceUs=0.0))
    _fails("serving-calibration-holds", "x h", "tolerance")


def test_memory_catches_a_search_past_what_fits(monkeypatch):
    _mutate(monkeypatch, "max_batch_in_memory", lambda s, context=None: float(serving.MAX_BATCH))
    _fails("serving-memory-bounds-searches", "fits on one RTX 4090")


def test_memory_catches_a_crossover_search_to_4096(monkeypatch):
    _mutate(monkeypatch, "_search_limit", lambda s, context, max_batch: serving.MAX_BATCH)
    _fails("serving-memory-bounds-searches", "past the")


def test_monotone_catches_weights_amortised_by_mistake(monkeypatch):
    _mutate(monkeypatch, "_memory_ms", lambda step, b, l, n=1: (step.fixed_bytes / b + b * l * step.kv) / step.bw)
    _fails("serving-step-time-monotone", " < t(", "on ")


def test_crossover_catches_an_off_by_one(monkeypatch):
    original = serving.crossover_batch
    _mutate(monkeypatch, "crossover_batch", lambda s, context=None, curve=None, max_batch=4096: (
        None if original(s, context, curve, max_batch) is None else original(s, context, curve, max_batch) + 1))
    _fails("serving-crossover-is-first-loss", "but the first batch with speedup <= 1 is")


def test_crossover_catches_a_missed_loss(monkeypatch):
    _mutate(monkeypatch, "crossover_batch", lambda s, context=None, curve=None, max_batch=4096: None)
    _fails("serving-crossover-is-first-loss", "crossover None")


def test_ridge_catches_fp8_taken_at_bf16_rate(monkeypatch):
    _mutate(monkeypatch, "ridge_point", lambda gpu, precision: gpu.bf16 / gpu.bandwidth)
    _fails("serving-ridge-point-is-f-over-bw", "h100-sxm fp8")


def test_ridge_catches_a_regime_test_with_the_wrong_sign(monkeypatch):
    original = serving.step_regime
    flip = {"memory-bound": "compute-bound", "compute-bound": "memory-bound"}
    _mutate(monkeypatch, "step_regime", lambda *a: flip[original(*a)])
    _fails("serving-ridge-point-is-f-over-bw", "at intensity", "B=")


def test_throughput_catches_per_sequence_rate(monkeypatch):
    original = serving.serving
    _mutate(monkeypatch, "serving", lambda s, curve=None: original(s, curve)._replace(
        specTokensPerSecond=original(s, curve).specTokensPerSecond / s.batch))
    _fails("serving-throughput-adds-up", "B=7")


def test_littles_law_catches_a_loose_fixed_point(monkeypatch):
    original = serving.steady_batch
    _mutate(monkeypatch, "steady_batch", lambda s, rate, spec, curve=None, max_batch=None: (
        None if original(s, rate, spec, curve, max_batch) is None else original(s, rate, spec, curve, max_batch) * 1.01))
    _fails("serving-littles-law-fixed-point", "but demand", "req/s")


def test_littles_law_catches_a_false_overload(monkeypatch):
    _mutate(monkeypatch, "steady_batch", lambda s, rate, spec, curve=None, max_batch=None: None)
    _fails("serving-littles-law-fixed-point", "overloaded at 0.05 req/s")


def test_presets_catch_kv_without_values(monkeypatch):
    _mutate(monkeypatch, "kv_bytes_per_token", lambda shape, p: shape.layers * shape.kv_heads * shape.head_dim * p.bytes)
    _fails("serving-preset-arithmetic", "KV bytes of llama-2-7b in bf16")


def test_heatmap_catches_a_grid_without_draft_cost(monkeypatch):
    original = serving.speedup_grid
    _mutate(monkeypatch, "speedup_grid", lambda s, batches=serving.HEATMAP_BATCHES, contexts=serving.HEATMAP_CONTEXTS,
                        curve=None: original(s.with_(draft="ngram"), batches, contexts, curve))
    _fails("serving-heatmap-matches-model", "cell B=1 L=512 differs for llama-3.2-1b")


def test_curve_catches_rates_summed_not_multiplied(monkeypatch):
    def summed(a, k, curve=None):
        if curve is None:
            return 1 + sum(a ** i for i in range(1, k + 1))
        rates = list(curve)
        return 1 + sum(rates[min(i, len(rates) - 1)] for i in range(k))
    _mutate(monkeypatch, "tokens_per_cycle", summed)
    _fails("serving-measured-curve", "at a=")


def test_tail_catches_seeds_off_by_one(monkeypatch):
    original = serving.tail
    _mutate(monkeypatch, "tail", lambda c, m, g, n, d, seeds=300: {
        **original(c, m, g, n, d, seeds + 1), "speedups": original(c, m, g, n, d, seeds + 1)["speedups"][1:]})
    _fails("serving-tail-reruns-exact-lab", "seed 23 gives")


@pytest.mark.parametrize("name", list(CHECKS))
def test_every_check_has_a_mutation_here(name):
    import inspect
    source = inspect.getsource(inspect.getmodule(test_every_check_has_a_mutation_here))
    assert f'"{name}"' in source


def test_operators_catch_every_expert_read_at_every_batch(monkeypatch):
    _mutate(monkeypatch, "_weights_read_ms", lambda step, tokens: step.gemm_ms + step.expert_ms * step.experts)
    _fails("serving-operators-add-up", "mixtral-8x7b", "by hand")


def test_leviathan_catches_moe_verification_priced_as_one_token(monkeypatch):
    original = serving._weights_read_ms
    _mutate(monkeypatch, "_weights_read_ms", lambda step, tokens: original(step, min(tokens, 1)))
    _fails("serving-batch-one-is-leviathan", "the union of their experts was not read")


def test_throughput_catches_the_emitted_token_output_left_out(monkeypatch):
    # the cycle's output processing of its extra emitted tokens (21.2 us each) forgotten
    _mutate(monkeypatch, "_emitted_output_ms", lambda step, batch, tokens: 0.0)
    _fails("serving-throughput-adds-up", "emitted-token output", "by hand")


def test_throughput_catches_the_first_token_charged_twice(monkeypatch):
    # the first token's processing is in the per-sequence 0.103 ms already: charging all T tokens again is caught
    _mutate(monkeypatch, "_emitted_output_ms", lambda step, batch, tokens: (
        batch * tokens * step.token_output_ms if isinstance(step, serving._MeasuredStep) else 0.0))
    _fails("serving-throughput-adds-up", "emitted-token output", "by hand")


def test_emitted_token_output_is_per_extra_token_and_grows_with_acceptance():
    s = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, gpus=1, gpu="h100-sxm", target="llama-3-8b",
                                       draft="eagle-head", lookahead=3, batch=32, engine="vllm-v0")
    low, high = (serving.serving(s.with_(acceptance=a)) for a in (0, 80))
    assert serving.serving(s.with_(acceptance=80, engine="vllm-v1")).emittedOutputMs == 0.0   # V1 detokenizes apart
    assert low.emittedOutputMs == 0.0                       # nothing accepted: one token a sequence, no extra
    assert high.emittedOutputMs == pytest.approx(32 * (high.tokensPerCall - 1) * 0.0212)
    for model in (serving.ROOFLINE, serving.OPERATORS):     # neither the roofline nor the ideal limit has it
        assert serving.serving(s.with_(stepModel=model, acceptance=80)).emittedOutputMs == 0.0


# --- engines: batch expansion (vLLM V0) and the draft's extend pass (SGLang) ---------------------------

def test_engines_catch_batch_expansion_reading_each_cache_once(monkeypatch):
    _mutate(monkeypatch, "_kv_reads", lambda step, batch, tokens: batch)
    _fails("serving-engines-differ-where-they-run", "vllm-v0 verify step", "by hand")


def test_engines_catch_the_engine_ignored_in_a_verify_pass(monkeypatch):
    original = serving._measured_constants
    _mutate(monkeypatch, "_measured_constants", lambda shape, gpu, precision, g, cal, role, engine=None, *extras: original(
        shape, gpu, precision, g, cal, role, serving.ENGINES["vllm-v1"], *extras))
    _fails("serving-engines-differ-where-they-run", "vllm-v1-0.10 changes a plain or draft step")


def test_engines_catch_batch_expansion_in_a_plain_step(monkeypatch):
    from lab import serving_calibration
    original = serving._measured_constants
    _mutate(monkeypatch, "_measured_constants", lambda shape, gpu, precision, g, cal, role, engine=None, *extras: original(
        shape, gpu, precision, g, cal, role, serving_calibration.ENGINES["vllm-v0"] if role == "target" else engine,
        *extras))
    _fails("serving-engines-differ-where-they-run", "changes a plain or draft step")


def _on_extend_engines(mutant):
    """serving._extend_time replaced by ``mutant`` on the engines that run an extend pass (SGLang's), kept elsewhere."""
    original = serving._extend_time
    return lambda settings, draft, batch, n, context, k: (
        mutant(original, settings, draft, batch, n, context, k) if serving.ENGINES[settings.engine].draftExtend
        else original(settings, draft, batch, n, context, k))


def test_engines_catch_the_extend_pass_left_out(monkeypatch):
    _mutate(monkeypatch, "_extend_time", _on_extend_engines(lambda original, *args: 0.0))
    _fails("serving-engines-differ-where-they-run", "sglang draft extend", "by hand")


def test_engines_catch_the_extend_pass_priced_as_one_token(monkeypatch):
    _mutate(monkeypatch, "_extend_time", _on_extend_engines(
        lambda original, settings, draft, batch, n, context, k: original(settings, draft, batch, 1, context, 0)))
    _fails("serving-engines-differ-where-they-run", "sglang draft extend")


def test_engines_catch_v1_first_draft_step_with_its_lm_head_over_every_token(monkeypatch):
    # vLLM V1's first draft step scores one row a sequence; priced as a whole pass over the verified tokens it
    # would be SGLang's extend pass, one draft step too many
    _mutate(monkeypatch, "_first_step", lambda settings, draft, n: None if draft is None or n <= 1 or not
                        serving.ENGINES[settings.engine].firstDraftOverVerified else draft)
    _fails("serving-engines-differ-where-they-run", "vllm-v1 draft extend", "by hand")


def test_engines_catch_the_extend_pass_left_out_of_the_cycle(monkeypatch):
    # the readout keeps its draftExtendMs, but the cycle every search composes forgets it
    original = serving._cycle_ms
    _mutate(monkeypatch, "_cycle_ms", lambda settings, k, draft, verify, batch, n, context, tokens: original(
        settings.with_(engine="vllm-v1"), k, draft, verify, batch, n, context, tokens))
    _fails("serving-engines-differ-where-they-run", "cycle does not add up")


def test_littles_law_catches_the_extend_pass_left_out_of_the_load_terms(monkeypatch):
    original = serving._per_token_terms
    _mutate(monkeypatch, "_per_token_terms", lambda settings, speculative, curve=None: original(
        settings.with_(engine="vllm-v1") if settings.stepModel == serving.OPERATORS else settings, speculative, curve))
    _fails("serving-littles-law-fixed-point", "is not the readout's", "demand")


def test_engines_move_the_crossover_the_way_their_code_says():
    """Batch expansion, serial output and the extend pass only add work: the crossover comes no later, and
    the vLLM V0 verify step re-reads its fitted share of a KV cache for each extra verified token, with the
    cycle's bookkeeping and the serial output processing (by hand from the KV bytes and the calibration)."""
    from lab import serving_calibration
    base = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, target="llama-3-8b", draft="eagle-head", gpus=1,
                                          gpu="a100-80g", lookahead=2, acceptance=60, context=1024, batch=28)
    crossings = {name: serving.crossover_batch(base.with_(engine=name)) for name in serving_calibration.ENGINES}
    never = serving.MAX_BATCH + 1
    crossing = {name: never if c is None else c for name, c in crossings.items()}
    assert crossing["vllm-v0"] < crossing["vllm-v1"] and crossing["sglang"] <= crossing["vllm-v1"]
    assert crossing["sglang-eager-extend"] <= crossing["sglang-no-overlap"] <= crossing["sglang"]
    cal = serving_calibration.CALIBRATIONS["a100-80g"]
    share = serving_calibration.EXPANSION_KV_SHARE
    extra_kv = share * 28 * 2 * 1024 * 131072 / (serving.GPUS["a100-80g"].bandwidth * cal.memEfficiency / 1000)
    gap = serving.verify_step_ms(base.with_(engine="vllm-v0"), 28, 1024) - serving.verify_step_ms(base, 28, 1024)
    assert gap == pytest.approx(extra_kv + serving_calibration.BATCH_EXPANSION_MS + serving_calibration.SPEC_CYCLE_MS
                                + 28 * cal.serialOutputUs / 1000, rel=1e-9)


@pytest.mark.parametrize("engine, change, fragment", [
    ("vllm-v1", {"serialOutput": True}, "vllm-v1 pays ['MoE kernels (triton)', 'first draft step over the verified tokens', 'serial output']"),          # V1 charged V0's output processing
    ("vllm-v1", {"tokenOutput": True}, "vllm-v1 pays ['MoE kernels (triton)', 'first draft step over the verified tokens', 'per-token output']"),        # ... or its detokenization
    ("vllm-v1", {"specCycleMs": 1.3}, "vllm-v1 pays ['MoE kernels (triton)', 'first draft step over the verified tokens', 'speculation bookkeeping']"),  # ... or its bookkeeping
    ("vllm-v1", {"stepHostMs": 1.2}, "vllm-v1 pays ['MoE kernels (triton)', 'first draft step over the verified tokens', 'synchronous host work']"),  # today's V1 run synchronously
    ("vllm-v1", {"firstDraftOverVerified": False}, "vllm-v1 pays ['MoE kernels (triton)']"),             # its first draft step over one token
    ("vllm-v0", {"firstDraftOverVerified": True}, "vllm-v0 pays"),                  # V0 charged V1's first draft step
    ("vllm-v1-0.10", {"stepHostMs": 0.0}, "vllm-v1-0.10 pays ['MoE kernels (triton)', 'first draft step over the verified tokens']"),  # 0.10.1 given async scheduling
    ("vllm-v0", {"expandedVerify": False}, "vllm-v0 pays"),                          # V0 without batch expansion
    ("vllm-v0", {"serialOutput": False}, "vllm-v0 pays"),                            # V0 with its overlap kept on
    ("sglang", {"serialOutput": True}, "'first draft token from the extend pass', 'serial output']"),  # overlap off
    ("sglang", {"draftExtend": False}, "sglang pays ['MoE kernels (triton)']"),                            # the extend pass forgotten
    ("sglang-no-overlap", {"eagerExtend": True}, "sglang-no-overlap pays"),          # the captured extend run eagerly
    ("sglang-eager-extend", {"eagerExtend": False}, "sglang-eager-extend pays"),     # the eager extend captured
    ("sglang", {"eagerExtendGpus": ()}, "sglang pays ['MoE kernels (triton)', 'draft extend', 'first draft"),  # fa3's extend captured on Hopper
    ("sglang", {"eagerExtend": True}, "sglang pays ['MoE kernels (triton)', 'draft extend', 'eager extend', 'first"),  # ... or eager everywhere
    ("sglang", {"firstDraftFromExtend": False}, "sglang pays ['MoE kernels (triton)', 'draft extend', 'eager extend on Hopper (fa3)']"),  # k steps
    ("sglang-no-overlap", {"firstDraftFromExtend": False}, "sglang-no-overlap pays ['MoE kernels (triton)', 'draft extend', 'eager ops a cycle at k = 3 (78)', 'serial output']"),
    ("sglang-no-overlap", {"cycleOps": 0}, "sglang-no-overlap pays ['MoE kernels (triton)', 'draft extend', 'eager ops a cycle at k = 3 (16)'"),  # the V1 worker's ops a cycle forgotten
    ("sglang-no-overlap", {"cycleStepOps": 0}, "'eager ops a cycle at k = 3 (62)'"),  # ... or its 8 a draft step
    ("sglang", {"cycleOps": 62}, "'eager ops a cycle at k = 3 (62)'"),              # today's V2 worker charged V1's serial ops
    ("sglang-eager-extend", {"cycleOps": 62}, "'eager ops a cycle at k = 3 (78)'"),  # the eager extend given the graph's prologue
    ("sglang-no-overlap", {"eagerExtendGpus": ("h100-sxm",)}, "sglang-no-overlap pays"),  # V1's captured fa3 graph lost
    ("sglang", {"ngramRequestOps": 0}, "sglang pays for n-gram and multi-GPU drafts"),   # the mask copy a request forgotten
    ("sglang", {"ngramRequestOps": 4}, "'n-gram mask ops a request (4)'"),           # ... or the V1 worker's four charged
    ("sglang-no-overlap", {"ngramRequestOps": 1}, "'n-gram mask ops a request (1)'"),  # the V1 worker given today's one
    ("trtllm", {"draftInVerifyGraph": False}, "trtllm pays"),                        # its MTP head launched outside the verify graph
    ("vllm-v1", {"draftInVerifyGraph": True}, "vllm-v1 pays ['MoE kernels (triton)', 'draft steps in the verify graph'"),  # V1 given the one-model graph
    ("trtllm", {"mtpFusionWhole": ()}, "trtllm pays for n-gram and multi-GPU drafts ['MTP logits"),  # PR 5689's split fusion
    ("vllm-v1", {"mtpFusionWhole": ("deepseek-v3", "glm-4.5", "qwen3-next-80b-a3b")},
     "fusion read whole (qwen3-next-80b-a3b)'"),                                   # V1 given SGLang's unsplit Qwen3-Next fc
    ("sglang", {"mtpFusionWhole": ("deepseek-v3", "glm-4.5")}, "sglang pays for n-gram and multi-GPU drafts"),  # ... SGLang V1's split one
    ("vllm-v1-0.10", {"mtpFusionWhole": ("deepseek-v3",)}, "vllm-v1-0.10 pays for n-gram and multi-GPU drafts"),  # GLM's eh_proj split
    ("sglang-no-overlap", {"mtpFusionWhole": ("deepseek-v3", "glm-4.5")}, "sglang-no-overlap pays for n-gram"),  # charged unread code
    ("vllm-v1", {"moeKernels": "trtllm"}, "vllm-v1 pays ['MoE kernels (trtllm)'"),   # vLLM charged TensorRT-LLM's MoE kernels
    ("sglang", {"moeKernels": "trtllm"}, "sglang pays ['MoE kernels (trtllm)'"),     # ... or SGLang
    ("trtllm", {"moeKernels": "triton"}, "trtllm pays ['MoE kernels (triton)'"),     # TensorRT-LLM charged the Triton kernels
])
def test_engine_costs_catch_each_switch_flipped(monkeypatch, engine, change, fragment):
    from lab import serving_calibration
    monkeypatch.setitem(serving_calibration.ENGINES, engine, serving_calibration.ENGINES[engine]._replace(**change))
    serving._measured_constants.cache_clear()
    try:
        _fails("serving-engine-costs-as-read", fragment, "read in its code")
    finally:
        serving._measured_constants.cache_clear()


def test_engine_costs_catch_an_mtp_module_priced_as_a_dense_layer(monkeypatch):
    """The MoE layer is the checkpoint's, not a switch: the head of DeepSeek-V3 built as the dense stand-in (the layer
    one token reads) fails the check on the first engine it reads, its MoE kernels gone."""
    from lab import serving_presets, serving_step
    monkeypatch.setattr(serving_step, "eagle_head", lambda target: serving_presets.eagle_head(target._replace(mtp=0)))
    serving._measured_constants.cache_clear()
    try:
        _fails("serving-engine-costs-as-read", "vllm-v1 pays for n-gram and multi-GPU drafts ['MTP fusion",
               "'MTP logits gathered', 'n-gram scans", "read in its code")
    finally:
        serving._measured_constants.cache_clear()


def test_engine_costs_catch_an_engine_whose_gather_was_not_read(monkeypatch):
    """The logits gather is charged only where the engine's logits processor was read (serving_mtp.LOGITS_GATHER)."""
    from lab import serving_mtp
    monkeypatch.delitem(serving_mtp.LOGITS_GATHER, "sglang")
    serving._measured_constants.cache_clear()
    try:
        _fails("serving-engine-costs-as-read", "sglang pays for n-gram and multi-GPU drafts", "read in its code")
    finally:
        serving._measured_constants.cache_clear()


def test_engine_costs_catch_an_engine_missing_from_the_table(monkeypatch):
    from lab import serving_calibration
    monkeypatch.setitem(serving_calibration.ENGINES, "trt-llm", serving_calibration.ENGINES["vllm-v1"]._replace(
        name="trt-llm"))
    _fails("serving-engine-costs-as-read", "against the table")


def test_calibration_catches_v1_charged_v0_terms_on_its_own_step_times(monkeypatch):
    # the synchronous V1 the SpecDecode-Bench fit timed, charged vLLM V0's bookkeeping and serial output: its verify
    # steps leave their tolerance
    from lab import serving_calibration
    monkeypatch.setitem(serving_calibration.ENGINES, "vllm-v1-0.10", serving_calibration.ENGINES["vllm-v1-0.10"]._replace(
        specCycleMs=serving_calibration.SPEC_CYCLE_MS, serialOutput=True))
    _fails("serving-calibration-holds", "vllm-v1-0.10, verify", "tolerance")


def test_calibration_catches_v0_scored_without_batch_expansion(monkeypatch):
    from lab import serving_calibration
    monkeypatch.setitem(serving_calibration.ENGINES, "vllm-v0", serving_calibration.ENGINES["vllm-v0"]._replace(
        expansionKvShare=0.0, expansionMs=0.0))
    _fails("serving-calibration-holds", "vllm-v0, scoring", "tolerance")


def test_readouts_catch_an_effective_batch_of_b_times_k(monkeypatch):
    """The review's mutant: the widget's effective batch as B x k, the verify step's tokens one short."""
    from lab.widgets import serving as widget

    from mutation import clear_caches

    clear_caches(widget)
    _mutate(monkeypatch, "verify_tokens", lambda s: max(s.treeTokens, s.lookahead))
    _fails("serving-readouts-match-model", "effectiveBatch")
    clear_caches(widget)


# --- the tables of "How well the serving model predicts", the trust line and the load table: one mutant each ----

def _mutate_widget(monkeypatch, name, value):
    """A mutant of the widget: the name replaced in the widget and in its figures module, wherever it is held."""
    from lab import serving_figures
    from lab.widgets import serving as widget

    holders = [module for module in (widget, serving_figures) if hasattr(module, name)]
    assert holders, name
    for module in holders:
        monkeypatch.setattr(module, name, value)


@pytest.fixture
def fresh_widget():
    """The serving widget with its memoised figures and rows emptied before and after the mutant."""
    from lab import serving_validation
    from lab.widgets import serving as widget
    from mutation import clear_caches

    clear_caches(widget, serving_validation)
    yield widget
    clear_caches(widget, serving_validation)


def _one_digit_more(html: str, row: int, column: int) -> str:
    """``html`` with the last digit of body row ``row``'s cell ``column`` (0-based, row headers counted)
    moved by one."""
    import re

    head, body = html.split("<tbody>", 1)
    rows = body.split("</tr>")
    cells = re.split(r"(<t[hd][^>]*>.*?</t[hd]>)", rows[row])
    spots = [i for i, part in enumerate(cells) if re.match(r"<t[hd]", part)]
    cell = cells[spots[column]]
    digit = [m for m in re.finditer(r"\d", cell)][-1]
    cells[spots[column]] = cell[:digit.start()] + str((int(digit.group()) + 1) % 10) + cell[digit.end():]
    rows[row] = "".join(cells)
    return head + "<tbody>" + "</tr>".join(rows)


@pytest.mark.parametrize("column", [3, 4, 5, 6])   # acceptance length, measured, predicted, ratio
def test_readouts_catch_a_validation_cell_one_digit_off(monkeypatch, fresh_widget, column):
    original = fresh_widget.validation_table_html
    _mutate_widget(monkeypatch, "validation_table_html", lambda rows: _one_digit_more(original(rows), 2, column))
    _fails("serving-readouts-match-model", "validation table row 3")


def test_readouts_catch_a_ratio_printed_as_measured_over_predicted(monkeypatch, fresh_widget):
    original = fresh_widget.validation_table_html
    _mutate_widget(monkeypatch, "validation_table_html", lambda rows: original(
        [{**r, "ratio": r["measured"] / r["predicted"]} for r in rows]))
    _fails("serving-readouts-match-model", "validation table row 1")


def test_readouts_catch_a_summary_counting_ties_as_above(monkeypatch, fresh_widget):
    from lab import serving_validation
    original = serving_validation.summary
    monkeypatch.setattr(serving_validation, "summary", lambda rows=None: {**original(rows), "above": original(rows)["above"] + 1})
    _fails("serving-readouts-match-model", "validation summary")


@pytest.mark.parametrize("column", [4, 5, 6])   # measured, model, ratio
def test_readouts_catch_a_calibration_cell_one_digit_off(monkeypatch, fresh_widget, column):
    original = fresh_widget.calibration_table_html
    _mutate_widget(monkeypatch, "calibration_table_html", lambda: _one_digit_more(original(), 7, column))
    _fails("serving-readouts-match-model", "calibration table row 8")


def test_readouts_catch_a_held_out_step_with_the_wrong_direction(monkeypatch, fresh_widget):
    original = fresh_widget._validation_context

    def flipped():
        context = original()
        step = context["heldOutSteps"][0]
        context["heldOutSteps"][0] = {**step, "direction": {"slow": "fast", "fast": "slow"}[step["direction"]]}
        return context
    _mutate_widget(monkeypatch, "_validation_context", flipped)
    _fails("serving-readouts-match-model", "held-out step")


def test_readouts_catch_the_eagle3_cycle_of_the_fit_and_the_rows_swapped(monkeypatch, fresh_widget):
    original = fresh_widget._eagle3_cycle
    _mutate_widget(monkeypatch, "_eagle3_cycle", lambda: {**original(), "fit": original()["measured"],
                                                          "measured": original()["fit"]})
    _fails("serving-readouts-match-model", "EAGLE-3 cycle in plain steps")


def test_readouts_catch_a_bracket_crossover_off_by_one(monkeypatch, fresh_widget):
    from lab import serving_validation
    original = serving_validation.crossover_comparison
    monkeypatch.setattr(serving_validation, "crossover_comparison", lambda brackets=serving_validation.CROSSOVER_BRACKETS: [
        {**row, "crossovers": tuple(None if c is None else c + 1 for c in row["crossovers"])} for row in original(brackets)])
    _fails("serving-readouts-match-model", "bracket 'EAGLE, SGLang, k = 3'")


def test_readouts_catch_a_brackets_memory_limit_read_on_another_gpu(monkeypatch, fresh_widget):
    from lab import serving, serving_validation
    # the vLLM sweep's limit computed on the A100 80GB it ran on before the RTX 3090 preset, the page saying 3090
    original = serving_validation.crossover_comparison
    monkeypatch.setattr(serving_validation, "crossover_comparison", lambda brackets=serving_validation.CROSSOVER_BRACKETS: [
        {**row, "fits": serving_validation.search_limit(row_bracket._replace(gpu="a100-80g"))}
        if row_bracket.gpu == "rtx-3090" else row
        for row, row_bracket in zip(original(brackets), brackets)])
    assert serving.GPUS["a100-80g"].memory > serving.GPUS["rtx-3090"].memory
    _fails("serving-readouts-match-model", "sequences fit on its GPU")


def test_readouts_catch_a_brackets_smallest_batch_with_the_model_and_measurement_swapped(monkeypatch, fresh_widget):
    original = fresh_widget._smallest_batch
    _mutate_widget(monkeypatch, "_smallest_batch", lambda row: None if original(row) is None else {
        **original(row), "model": original(row)["measured"], "measured": original(row)["model"]})
    _fails("serving-readouts-match-model", "first quoted batch")


def test_readouts_catch_a_brackets_figure_that_speaks_other_numbers(monkeypatch, fresh_widget):
    original = fresh_widget.brackets_svg
    _mutate_widget(monkeypatch, "brackets_svg", lambda rows, width=390: original(
        [{**row, "crossovers": tuple(reversed(row["crossovers"]))} for row in rows], width))
    _fails("serving-readouts-match-model", "the brackets figure does not say")


@pytest.mark.parametrize("ignored, fragment", [
    ("engine", "borrows a band"),    # today's V1 shown the synchronous V1's error
    ("draft", "does not say"),       # EAGLE-1's family given the EAGLE-3 rows too
])
def test_readouts_catch_a_trust_line_that_borrows_rows(monkeypatch, fresh_widget, ignored, fragment):
    from lab import serving_calibration

    def matching(settings):
        cal = serving_calibration.CALIBRATIONS[settings.gpu]
        moe = bool(serving.TARGETS[settings.target].experts)
        return [row for row in fresh_widget._validation_rows()
                if (ignored == "engine" or row["engine"] == settings.engine)
                and serving_calibration.CALIBRATIONS[row["gpu"]] is cal
                and bool(serving.TARGETS[row["target"]].experts) == moe
                and (ignored == "draft" or row["draft"] == settings.draft)]
    _mutate_widget(monkeypatch, "_matching_validation", matching)
    _fails("serving-readouts-match-model", "trust line", fragment)


def test_readouts_catch_a_load_rate_printed_with_an_exponent(monkeypatch, fresh_widget):
    _mutate_widget(monkeypatch, "rate_label", lambda rate: f"{rate:.3g}")
    _fails("serving-readouts-match-model", "e+03")


def test_readouts_catch_a_load_table_that_runs_on_past_the_first_overload(monkeypatch, fresh_widget):
    _mutate_widget(monkeypatch, "load_rows", lambda rates, plain, spec: list(zip(rates, plain, spec)))
    _fails("serving-readouts-match-model", "loadTable")


# --- nothing fits (reader audit N4-15): the lead names the limit and claims no speedup ----------------

def test_readouts_catch_a_speedup_claimed_where_nothing_fits(monkeypatch, fresh_widget):
    from lab.jsformat import to_fixed

    original = fresh_widget._no_room
    _mutate_widget(monkeypatch, "_no_room", lambda s, a: original(s, a) + f" It would run {to_fixed(a['result'].speedup, 2)}x.")
    _fails("serving-readouts-match-model", "deepseek-v3", "claims a speedup")


def test_readouts_catch_a_lead_that_does_not_name_the_limit(monkeypatch, fresh_widget):
    _mutate_widget(monkeypatch, "_no_room", lambda s, a: "Nothing fits in memory at this setting.")
    _fails("serving-readouts-match-model", "deepseek-v3", "does not fit on 8 x H100 SXM")


@pytest.mark.parametrize("key, stale", [("highMs", "35.1"), ("highBatch", 64), ("rooflineGrowth", "0"),
                                        ("measuredGrowth", "156")])
def test_readouts_catch_the_roofline_paragraphs_scoring_growth_drifting(monkeypatch, fresh_widget, key, stale):
    """The roofline paragraph's measured step (pull request 5691's scoring times, below the ridge) and the roofline's
    growth over the same batches are the lab's: a value typed by hand, as the page once had (35.1 ms at batch 64,
    past the ridge, and a roofline "flat" there), fails the serving readouts check."""
    original = fresh_widget._scoring_growth
    _mutate_widget(monkeypatch, "_scoring_growth", lambda: {**original(), key: stale})
    _fails("serving-readouts-match-model", "scoring growth")


def test_readouts_catch_the_brackets_ratio_typed_by_hand(monkeypatch, fresh_widget):
    """The validation section said the model's crossover sits later than the sweeps' "by a factor of two or so";
    it now quotes the range the brackets give (central crossover over the batch of first loss), and a range that
    no longer follows them fails the serving readouts check."""
    _mutate_widget(monkeypatch, "_bracket_ratio_range", lambda: {"low": "2.0", "high": "2.0"})
    _fails("serving-readouts-match-model", "crossover over first loss")


def test_sglang_eagle3_cycle_catches_the_fc_taken_off_every_draft_step(monkeypatch):
    # SGLang runs k - 1 one-token steps after its extend pass; the fc taken off k of them (the mutation sweep's
    # "sglang-k-steps-with-fc") makes the draft share too cheap by one step's fc
    from lab import serving_step

    original = serving_step._eagle3_fc_ms
    _mutate(monkeypatch, "_eagle3_fc_ms", lambda settings, draft, batch, context: original(settings, draft, batch, context)
            * (1 + 1 / max(1, settings.lookahead - 1)))
    _fails("serving-sglang-eagle3-cycle-adds-up", "an extend pass and k - 1 steps without the fc")


# --- the checks of an outsider's planted mistakes (lab/checks/serving_notes.py) ---------------------------------

def test_suffix_catches_its_loops_swapped_between_engines(monkeypatch):
    from lab import serving_suffix
    monkeypatch.setattr(serving_suffix, "SUFFIX_LOOPS", {"vllm-v1": 2, "vllm-v1-0.10": 1})
    _fails("serving-suffix-as-read", "suffix decoding's proposal on vllm-v1 at batch 1", "summed here")


def test_suffix_catches_the_plugin_note_at_its_limit(monkeypatch):
    from lab import serving_suffix
    monkeypatch.setattr(serving_suffix, "ARCTIC_SUFFIX_BATCH_LIMIT", 63)
    _fails("serving-suffix-as-read", "the plugin's batch note on vllm-v1-0.10 at batch 64")


def test_memory_catches_trtllm_taking_a_fraction_of_the_whole(monkeypatch):
    from lab import serving_engine_memory
    monkeypatch.setattr(serving_engine_memory, "engine_memory_bytes",
                        lambda rule, memory, gpus, weights, draft="eagle": 0.9 * memory * gpus)
    from lab.checks import serving_notes
    monkeypatch.setattr(serving_notes, "engine_memory_bytes", serving_engine_memory.engine_memory_bytes)
    _fails("serving-memory-as-read", "trtllm gives")


def test_memory_catches_the_fit_rounded_to_nearest(monkeypatch):
    original = serving.memory_note
    _mutate(monkeypatch, "memory_note", lambda s: original(s).replace(
        f"at most {int(serving.max_batch_in_memory(s)):,} of", f"at most {serving.max_batch_in_memory(s):.0f} of"))
    _fails("serving-memory-as-read", "the memory note reads", "at most 19 of its 512")


def test_notes_catch_a_vocabulary_note_silent_for_a_smaller_draft_vocabulary(monkeypatch):
    original = serving.draft_vocabulary_note
    _mutate(monkeypatch, "draft_vocabulary_note", lambda t, d: original(t, d) if serving.DRAFTS[d].vocab > serving.TARGETS[
        t].vocab else "")
    _fails("serving-notes-as-read", "llama-3.2-1b under qwen3-30b-a3b", "note ''")


def test_notes_catch_the_longest_lookahead_naming_the_slider(monkeypatch):
    original = serving.longest_lookahead_words
    _mutate(monkeypatch, "longest_lookahead_words", lambda b, n, w: original(b, n, w).replace("to 64", f"to {n}"))
    _fails("serving-notes-as-read", "best k = 12 of 12")


def test_notes_catch_the_plateau_sentence_without_the_plus_one(monkeypatch):
    from lab import acceptance
    original = acceptance.plateau_words
    monkeypatch.setattr(acceptance, "plateau_words", lambda start, rates=None: original(start, rates).replace(
        f"past {start + 1}", f"past {start}"))
    _fails("serving-notes-as-read", "the plateau from k = 4 is said as", "stops at k = 5")
