"""The serving instrument's checks (part two, instrument two: serving under load).

Each check states one property a wrong :mod:`lab.serving` would break, counts the cases it
visits and reports the first counterexample (the family takes about 0.15 s of CPU in CPython). The
per-operator model is held to every measured step time of :mod:`lab.serving_calibration`
within the tolerance stated for that measurement, and to hand arithmetic from the presets'
shapes, term by term.
"""

from itertools import product

from .. import serving, serving_calibration
from ..audit import GRID
from ..jsformat import to_fixed
from ..ledger import leviathan_speedup
from .serving_engines import engine_costs_as_read, sglang_eagle3_cycle_adds_up
from .serving_notes import memory_as_read, notes_as_read, suffix_as_read
from .serving_readouts import readouts_match_model
from . import close

__all__ = ["CHECKS", "signature_value", "SIGNATURE_NOTE"]


def _ideal(settings):
    """Batch one with every efficiency at 100%, no fixed cost and no attention FLOPs."""
    return settings.with_(batch=1, memEfficiency=100, flopEfficiency=100, overheadMs=0, attentionFlops=False)


# One GPU per chip: the A100 40GB and the H200 differ from the A100 80GB and the H100 only in
# bandwidth and memory, so the properties that hold on one hold on the other (and the checks run
# in the reader's browser, where every case costs).
CHIPS = ("a100-80g", "h100-sxm", "l40s", "rtx-4090")
# The drafts the products below run over: every preset but the EAGLE-3 head, which each check covers in one
# targeted case of its own (a preset added to every product would lengthen the suite in the reader's browser; the
# head is one decoder layer like the EAGLE or MTP head, with a smaller LM head and an fc over three hidden states).
# Suffix decoding is looped: the default engine, vLLM V1, runs it, and a check that changes engines takes one that does.
LOOPED_DRAFTS = tuple(name for name in serving.DRAFT_NAMES if name != serving.EAGLE3)


def _presets(precisions=tuple(serving.PRECISIONS), targets=tuple(serving.TARGETS), gpus=tuple(serving.GPUS)):
    """Every target x draft x GPU x precision (one GPU each), the EAGLE-3 head apart (:data:`LOOPED_DRAFTS`)."""
    for target, draft, gpu, precision in product(targets, LOOPED_DRAFTS, gpus, precisions):
        yield serving.DEFAULT_SETTINGS.with_(target=target, draft=draft, gpu=gpu, precision=precision, gpus=1)


def _parts(settings, batch, context):
    """(plain step, draft step, extend pass, verify step, emitted-token output) in ms, each from its
    public function of lab.serving."""
    tokens = serving.tokens_per_cycle(settings.acceptance / 100, settings.lookahead)
    return (serving.step_time_ms(serving.TARGETS[settings.target], settings, batch, 1, context),
            serving.draft_step_ms(settings, batch, context), serving.draft_extend_ms(settings, batch, context),
            serving.verify_step_ms(settings, batch, context), serving.emitted_output_ms(settings, batch, tokens))


def batch_one_reduces_to_leviathan(out):
    """At B = 1 with the per-operator model's extra terms zeroed (stepModel "operators": datasheet
    peaks, memory and compute overlapped, no fixed costs) the speedup equals Leviathan's
    (1 - a^(k+1)) / ((1 - a)(k c + 1)), c = draft step / target step (relative 1e-12), over every dense BF16 preset,
    the audit grid's lookaheads and acceptances, at context 4096; a mixture of experts' or a hybrid-attention
    model's verify step costs more than a plain step instead."""
    # The reduction is exact because every operator of the verify step is memory-bound (the GEMMs' intensity 2(k+1)/b
    # and attention's 2(k+1) heads/(kv heads b) are below the ridge F/BW), so it costs exactly a plain step; the check
    # asserts that too, case by case. FP8 is left out on purpose: attention's intensity at k = 12 on an 8-to-1
    # grouped-query model is 208 FLOP/byte, past the A100's ridge of 153, so the verify step is not free. Mixtures of
    # experts: verifying k + 1 tokens reads the union of their experts (MoESD). Hybrid attention (a dense Qwen3.8-27B):
    # a verify pass keeps a copy of each sequence's linear-attention state per token scored. The EAGLE-3 head is one
    # targeted case (Llama-3-8B, H100, TensorRT-LLM's engine, every lookahead and acceptance): on vLLM V1 its eager ops
    # (lab.serving_calibration.eagle3_eager_ms) are an engine term that stays in the ideal limit, so it is held where
    # the engine has none.
    context = 4096
    dense = tuple(name for name, shape in serving.TARGETS.items() if not shape.experts and not shape.linear_layers)
    _verify_costs_more_off_dense(out, context)
    # each preset on the next engine without an extend pass (not Leviathan's cycle) that runs its draft (suffix decoding:
    # vLLM V1, today and 0.10); none has an ideal-limit term
    engines = tuple(name for name, e in serving_calibration.ENGINES.items() if not e.draftExtend)
    for index, base in enumerate(_presets(("bf16",), dense, CHIPS)):
        for k in GRID["lookahead"]:
            runs_it = [name for name in engines if not serving.draft_engine_problem(base.draft, name)]
            settings = base.with_(stepModel=serving.OPERATORS, batch=1, context=context, lookahead=k,
                                  engine=runs_it[index % len(runs_it)])
            plain, draft, extend, verify, emitted = _parts(settings, 1, context)
            if verify != plain or emitted != 0 or extend != 0:
                out.fail(f"verify step {verify!r} ms (emitted-token output {emitted!r} ms) is not a plain step "
                         f"{plain!r} ms at {base.target}/{base.gpu}/{base.precision} k={k}")
            for acceptance in GRID["certainty"]:
                out.visited += 1
                got = serving.speedup_at(settings.with_(acceptance=acceptance), 1, context)
                expected = leviathan_speedup(acceptance / 100, k, draft / plain)
                if not close(got, expected):
                    out.fail(f"{got!r} != Leviathan {expected!r} at {base.target}/{base.draft}/{base.gpu}/"
                             f"{base.precision} k={k} acceptance={acceptance}")
        yield  # a pause: the browser answers a reader between two cases (lab.audit.run_check_steps)
    _eagle3_is_leviathan(out, context)


def _verify_costs_more_off_dense(out, context: int):
    """For every mixture of experts and hybrid-attention preset, every GPU and lookahead: verifying k + 1 tokens
    costs more than a plain step (the union of their experts read; a linear-attention state copied per token)."""
    for name, shape in serving.TARGETS.items():
        if not shape.experts and not shape.linear_layers:
            continue
        for gpu, k in product(serving.GPUS, GRID["lookahead"]):
            out.visited += 1
            settings = serving.DEFAULT_SETTINGS.with_(target=name, gpu=gpu, gpus=1, stepModel=serving.OPERATORS,
                                                      lookahead=k)
            plain, _, _, verify, _ = _parts(settings, 1, context)
            if not verify > plain:
                missed = ("the union of their experts was not read" if shape.experts
                          else "the extra copies of its linear-attention state were not charged")
                out.fail(f"verifying {k + 1} tokens of {name} on {gpu} costs {verify!r} ms, no more than a plain "
                         f"step {plain!r} ms: {missed}")


def _eagle3_is_leviathan(out, context: int):
    """The EAGLE-3 head (Llama-3-8B on an H100, TensorRT-LLM's engine, no engine term in the ideal limit): at every
    lookahead and acceptance its verify step is a plain step and its speedup Leviathan's."""
    eagle3 = serving.DEFAULT_SETTINGS.with_(target="llama-3-8b", draft=serving.EAGLE3, gpu="h100-sxm", gpus=1,
                                            precision="bf16", stepModel=serving.OPERATORS, batch=1, context=context,
                                            engine="trtllm")
    for k in GRID["lookahead"]:
        settings = eagle3.with_(lookahead=k)
        plain, draft, extend, verify, emitted = _parts(settings, 1, context)
        for acceptance in GRID["certainty"]:
            out.visited += 1
            got = serving.speedup_at(settings.with_(acceptance=acceptance), 1, context)
            expected = leviathan_speedup(acceptance / 100, k, draft / plain)
            if verify != plain or emitted != 0 or extend != 0 or not close(got, expected):
                out.fail(f"the EAGLE-3 head: {got!r} != Leviathan {expected!r} (verify {verify!r} ms, plain {plain!r} "
                         f"ms) at k={k} acceptance={acceptance}")


def step_time_is_monotone(out):
    """One step never gets cheaper with a bigger batch, more new tokens or a longer context: under
    the roofline for every dense target on every GPU and precision (attention FLOPs on and off),
    under the per-operator model for every target, mixtures of experts included, on one GPU per
    chip in BF16."""
    batches, news, contexts = (1, 2, 8, 64, 512, 4096), (1, 2, 5, 13), (0, 512, 8192, 131072)
    roofline = product([t for t in serving.TARGETS.values() if not t.experts], serving.GPUS, serving.PRECISIONS,
                       ((serving.ROOFLINE, False), (serving.ROOFLINE, True)))
    measured = product(serving.TARGETS.values(), CHIPS, ("bf16",), ((serving.MEASURED, True),))
    for target, gpu, precision, (model, attention) in (*roofline, *measured):
        settings = serving.DEFAULT_SETTINGS.with_(gpu=gpu, precision=precision, attentionFlops=attention,
                                                  stepModel=model)
        times = {(b, n, l): serving.step_time_ms(target, settings, b, n, l) for b, n, l in product(batches, news, contexts)}
        for (b, n, l), t in times.items():
            out.visited += 1
            for neighbour in ((b * 8 if b < 4096 else None, n, l), (b, n + 1 if n < 13 else None, l),
                              (b, n, l * 16 if 0 < l < 131072 else None)):
                if None not in neighbour and neighbour in times and times[neighbour] < t:
                    out.fail(f"t{neighbour} = {times[neighbour]:.6f} < t{(b, n, l)} = {t:.6f} for "
                             f"{target.name} on {gpu} {precision} ({model})")
        yield  # a pause: the browser answers a reader between two cases (lab.audit.run_check_steps)


CROSSOVER_CASES = (
    dict(),                                                                    # 70B, 4 x H100, L 1024
    dict(context=512, draft="llama-3.2-1b"),
    dict(target="llama-3-8b", gpus=1, gpu="a100-80g", precision="fp8", lookahead=8, acceptance=50),
    dict(target="llama-2-7b", draft="ngram", gpus=1, gpu="rtx-4090", context=2048, acceptance=30),
    dict(context=131072),                                                      # long context: never loses
    dict(target="llama-3-8b", draft="eagle-head", gpus=1, gpu="l40s", attentionFlops=True, context=4096),
    dict(stepModel="measured"),                                                # per operator, 4 x H100
    dict(stepModel="measured", target="llama-3-8b", draft="eagle-head", gpus=1, gpu="a100-80g", lookahead=2),
    dict(stepModel="measured", draft="ngram", gpus=8, context=8192, treeTokens=16),
    dict(stepModel="measured", target="llama-2-7b", draft="llama-3.2-1b", gpus=2, gpu="rtx-4090", context=2048),
    dict(stepModel="measured", target="llama-3-8b", draft="eagle-head", gpus=1, gpu="a100-80g", lookahead=2,
         engine="vllm-v0"),                                                    # batch expansion
    dict(stepModel="measured", target="llama-3-8b", draft="eagle-head", gpus=1, lookahead=3, engine="sglang"),
    dict(stepModel="operators", draft="llama-3.2-1b", context=4096, engine="sglang"),  # the extend pass, ideal
)


def crossover_is_first_loss(out):
    """The crossover batch is the first B in 1..limit with speedup <= 1, the limit being the
    largest batch that fits in GPU memory (at most 4096): the speedup there is <= 1 and at every
    smaller batch above 1 (every batch is visited), or None when no batch that fits loses."""
    for changes in CROSSOVER_CASES:
        settings = serving.DEFAULT_SETTINGS.with_(**changes)
        found = serving.crossover_batch(settings)
        limit = max(1, min(serving.MAX_BATCH, int(serving.max_batch_in_memory(settings))))
        if found is not None and found > limit:
            out.fail(f"crossover {found} is past the {limit} sequences that fit in memory at {changes}")
        last = limit if found is None else found
        row = serving.speedup_grid(settings, batches=range(1, last + 1), contexts=(settings.context,))[0]
        out.visited += len(row)
        first = next((b for b, value in enumerate(row, 1) if value <= 1 + serving.LOSS_TOLERANCE), None)
        if first != found:
            out.fail(f"crossover {found} but the first batch with speedup <= 1 is {first} at {changes}")


def ridge_point_is_f_over_bw(out):
    """The ridge point is peak FLOP/s over bandwidth (FP8 on A100 at the BF16 rate), and at 100%
    efficiency a plain step is memory-bound exactly when its intensity 2NB/(Nb + BL kv) is at
    most the ridge."""
    for gpu, precision in product(serving.GPUS.values(), serving.PRECISIONS.values()):
        out.visited += 1
        flops = {"fp8": gpu.fp8, "fp4": gpu.fp4}.get(precision.name) or gpu.bf16   # else weight-only, BF16 rate
        if serving.ridge_point(gpu, precision) != flops / gpu.bandwidth:
            out.fail(f"ridge {serving.ridge_point(gpu, precision)} != F/BW for {gpu.name} {precision.name}")
        settings = _ideal(serving.DEFAULT_SETTINGS).with_(gpu=gpu.name, precision=precision.name, gpus=1)
        for target, batch, context in product(serving.TARGETS.values(), (1, 64, 256, 1024), (512, 8192)):
            out.visited += 1
            # a plain step reads each cache once and a linear-attention state once and writes it once (2 copies)
            n_bytes = serving.weight_bytes(target, precision) + batch * serving.kv_bytes_per_sequence(
                target, precision, context, 2)
            if target.experts:  # the roofline reads the distinct experts of the batch's tokens (uniform routing)
                unread = target.experts - target.experts * (1 - (1 - target.active_experts / target.experts) ** batch)
                n_bytes -= unread * serving.moe_layers(target) * serving.expert_params(target) * precision.bytes
            used = serving.parameter_count(target, active=True) if target.experts else target.params  # FLOPs per token
            intensity = 2 * used * batch / n_bytes
            regime = serving.step_regime(target, settings, batch, 1, context)
            if intensity != serving.ridge_point(gpu, precision) and (regime == "memory-bound") != (
                    intensity < serving.ridge_point(gpu, precision)):
                out.fail(f"{regime} at intensity {intensity:.1f} vs ridge for {target.name} on {gpu.name} "
                         f"{precision.name} B={batch} L={context}")


def throughput_is_batch_tokens_over_time(out):
    """Throughput is B x tokens / time: plain B x 1000 / step ms, speculative
    B x tokens per cycle x 1000 / cycle ms, and spec ms per token x spec throughput = 1000 B. The
    cycle is k draft steps, one verify step and, under the calibrated model, the output processing of
    the tokens it emits beyond each sequence's first, B (T - 1) t_token with the GPU's measured
    ``tokenOutputUs``, on an engine that pays it (vLLM V0; zero on the others, under the roofline and in
    the ideal limit)."""
    for changes, batch in product(CROSSOVER_CASES, (1, 7, 96, 1024)):
        out.visited += 1
        settings = serving.DEFAULT_SETTINGS.with_(**changes, batch=batch)
        r = serving.serving(settings)
        pays = settings.stepModel == serving.MEASURED and serving_calibration.ENGINES[settings.engine].tokenOutput
        per_token = serving_calibration.CALIBRATIONS[settings.gpu].tokenOutputUs / 1000 if pays else 0.0
        if not close(r.emittedOutputMs, batch * (r.tokensPerCall - 1) * per_token, 1e-12):
            out.fail(f"emitted-token output {r.emittedOutputMs!r} ms at B={batch} {changes}, by hand "
                     f"{batch * (r.tokensPerCall - 1) * per_token!r} ms")
        cycle = settings.lookahead * r.draftStepMs + r.draftExtendMs + r.verifyStepMs + r.emittedOutputMs
        if (not close(r.plainTokensPerSecond, batch * 1000 / r.plainStepMs)
                or not close(r.specTokensPerSecond, batch * r.tokensPerCall * 1000 / cycle)
                or not close(r.specMsPerToken * r.specTokensPerSecond, 1000 * batch)
                or not close(r.speedup, r.plainMsPerToken / r.specMsPerToken)):
            out.fail(f"throughput does not add up at B={batch} {changes}")


def littles_law_fixed_point(out):
    """The steady batch satisfies Little's law, B = rate x output tokens x ms per token(B) / 1000
    (to 1e-6), for plain and speculative decoding; "overloaded" (None) only when even the largest
    batch that fits in memory cannot keep up. The ms per token the search solves (its affine
    pieces) is the readout's, plain step or cycle over its tokens, at batches 1, 13 and 200."""
    for changes in CROSSOVER_CASES[:4] + CROSSOVER_CASES[6:]:
        settings = serving.DEFAULT_SETTINGS.with_(**changes)
        for batch, speculative in product((1, 13, 200), (False, True)):
            r = serving.serving(settings.with_(batch=batch))
            solved = serving.ms_per_token(settings, batch, speculative)
            if not close(solved, r.specMsPerToken if speculative else r.plainMsPerToken, 1e-9):
                out.fail(f"the load search's ms per token {solved!r} at B={batch} is not the readout's "
                         f"({'speculative' if speculative else 'plain'}, {changes}): its demand is wrong")
        ceiling = serving.max_batch_in_memory(settings)
        for rate, speculative in product((0.05, 0.5, 2, 8, 32, 128, 1024), (False, True)):
            out.visited += 1
            batch = serving.steady_batch(settings, rate, speculative)
            if batch is None:
                if ceiling > 0 and rate * settings.requestOutputTokens * serving.ms_per_token(
                        settings, ceiling, speculative) / 1000 <= ceiling:
                    out.fail(f"overloaded at {rate} req/s though batch {ceiling:.1f} keeps up ({changes})")
                continue
            demand = rate * settings.requestOutputTokens * serving.ms_per_token(settings, batch, speculative) / 1000
            if not close(batch, demand, 1e-6) or batch > ceiling:
                out.fail(f"B = {batch:.6f} but demand {demand:.6f} at {rate} req/s ({changes})")


# Hand arithmetic from the configs (2 x layers x kv heads x head dim x bytes; params x bytes),
# written out rather than computed by the code under test, and the model cards' rounded counts.
PRESET_KV_BF16 = {"llama-2-7b": 2 * 32 * 32 * 128 * 2, "llama-3-8b": 2 * 32 * 8 * 128 * 2,
                  "llama-2-70b": 2 * 80 * 8 * 128 * 2, "llama-3-70b": 2 * 80 * 8 * 128 * 2,
                  "mixtral-8x7b": 2 * 32 * 8 * 128 * 2, "qwen3-30b-a3b": 2 * 48 * 4 * 128 * 2,
                  "deepseek-v3": 61 * (512 + 64) * 2,   # latent attention: the compressed KV and the rotary key
                  "llama-3.2-1b": 2 * 16 * 8 * 64 * 2, "qwen2.5-0.5b": 2 * 24 * 2 * 64 * 2,
                  "qwen3-235b-a22b": 2 * 94 * 4 * 128 * 2, "kimi-k2": 61 * (512 + 64) * 2, "glm-4.5": 2 * 92 * 8 * 128 * 2,
                  "qwen3-next-80b-a3b": 2 * 12 * 2 * 256 * 2,   # only the 12 softmax-attention layers keep a KV cache
                  "qwen3.8-27b": 2 * 16 * 4 * 256 * 2,          # likewise its 16 softmax-attention layers
                  "gpt-oss-120b": 2 * 18 * 8 * 64 * 2,          # the 18 full-attention layers; 18 more keep 128 tokens
                  "qwen3-8b": 2 * 36 * 8 * 128 * 2, "qwen3-32b": 2 * 64 * 8 * 128 * 2, "glm-4.5-air": 2 * 46 * 8 * 128 * 2,
                  "qwen3-0.6b": 2 * 28 * 8 * 128 * 2}
PUBLISHED_PARAMS = {"llama-2-7b": 6.74e9, "llama-3-8b": 8.03e9, "llama-2-70b": 68.98e9, "llama-3-70b": 70.55e9,
                    "mixtral-8x7b": 46.7e9, "qwen3-30b-a3b": 30.5e9, "deepseek-v3": 671e9,
                    "llama-3.2-1b": 1.24e9, "qwen2.5-0.5b": 0.49e9,
                    # model cards: Qwen3 235B; gpt-oss 116.8B; GLM-4.5 355B (its MTP layer apart); Kimi-K2 "1T" (1.026T
                    # counted, as a parameter-count test read through the code index expects); Qwen3-Next as its test
                    "qwen3-235b-a22b": 235e9, "gpt-oss-120b": 116.8e9, "glm-4.5": 355e9, "kimi-k2": 1.026e12,
                    "qwen3-next-80b-a3b": 79.674e9,
                    # Qwen3.8-27B: "27B" (its name; a step simulator's spec of Qwen3.6-27B, the same shape, gives
                    # total_params_b 27.0, read through the code index)
                    "qwen3.8-27b": 27e9,
                    # model cards: Qwen3-8B 8.2B, Qwen3-32B 32.8B, Qwen3-0.6B 0.6B (its q/k norms, 7,168 weights, are
                    # not counted); GLM-4.5-Air 106B (its MTP layer apart, as GLM-4.5's)
                    "qwen3-8b": 8.2e9, "qwen3-32b": 32.8e9, "qwen3-0.6b": 0.6e9, "glm-4.5-air": 106e9}
PUBLISHED_ACTIVE = {"mixtral-8x7b": 12.9e9, "qwen3-30b-a3b": 3.3e9, "deepseek-v3": 37e9,  # used per token
                    "qwen3-235b-a22b": 22e9, "qwen3-next-80b-a3b": 3.875e9}  # (cards counting embeddings alike)
# The cards that count the parameters used per token without the embeddings and LM head: GLM-4.5's "32 billion active"
# and GLM-4.5-Air's "12 billion active" (transformers' docs/source/en/model_doc/glm4_moe.md): with them the count is
# 33.6B and 13.4B, without 32.1B and 12.2B.
PUBLISHED_ACTIVE_WITHOUT_EMBEDDINGS = {"glm-4.5": 32e9, "glm-4.5-air": 12e9}


def preset_arithmetic(out):
    """Each preset's KV bytes per token equal the hand-computed 2 x layers x kv heads x head dim x
    bytes (layers x (kv_lora + rope) x bytes for latent attention; halved in FP8), its weight bytes
    equal params x bytes, and its parameter count, counted from the config, is within 1% of the
    model card's (and a mixture of experts' count used per token within 2% of the card's, without the embeddings
    and LM head where the card counts so: :data:`PUBLISHED_ACTIVE_WITHOUT_EMBEDDINGS`)."""
    for name, shape in {**serving.TARGETS, **serving.DRAFTS}.items():
        for precision in serving.PRECISIONS.values():
            out.visited += 1
            if serving.kv_bytes_per_token(shape, precision) != PRESET_KV_BF16[name] * precision.kv_bytes // 2:
                out.fail(f"KV bytes of {name} in {precision.name}: {serving.kv_bytes_per_token(shape, precision)}")
            if serving.weight_bytes(shape, precision) != shape.params * precision.bytes:
                out.fail(f"weight bytes of {name} in {precision.name}")
        if abs(shape.params / PUBLISHED_PARAMS[name] - 1) > 0.01:
            out.fail(f"{name} counts {shape.params} parameters, the card says {PUBLISHED_PARAMS[name]:.3g}")
        if name in PUBLISHED_ACTIVE and abs(serving.parameter_count(shape, True) / PUBLISHED_ACTIVE[name] - 1) > 0.02:
            out.fail(f"{name} uses {serving.parameter_count(shape, True)} parameters a token, the card says "
                     f"{PUBLISHED_ACTIVE[name]:.3g}")
        embeddings = shape.vocab * shape.hidden * (1 if shape.tied else 2)
        without = serving.parameter_count(shape, True) - embeddings
        if name in PUBLISHED_ACTIVE_WITHOUT_EMBEDDINGS and abs(without / PUBLISHED_ACTIVE_WITHOUT_EMBEDDINGS[name] - 1) > 0.02:
            out.fail(f"{name} uses {without} parameters a token besides its embeddings, the card says "
                     f"{PUBLISHED_ACTIVE_WITHOUT_EMBEDDINGS[name]:.3g}")


def heatmap_matches_model(out):
    """Every heatmap cell (11 batches x 9 contexts) is the model's speedup at that batch and
    context, for every draft kind on two GPUs (the EAGLE-3 head on one, under the measured step model)."""
    cases = (*product(LOOPED_DRAFTS, ("h100-sxm", "l40s"), (serving.ROOFLINE, serving.MEASURED)),
             (serving.EAGLE3, "h100-sxm", serving.MEASURED))
    for draft, gpu, model in cases:
        settings = serving.DEFAULT_SETTINGS.with_(draft=draft, gpu=gpu, stepModel=model)
        grid = serving.speedup_grid(settings)
        for (r, context), (c, batch) in product(enumerate(serving.HEATMAP_CONTEXTS), enumerate(serving.HEATMAP_BATCHES)):
            out.visited += 1
            if grid[r][c] != serving.speedup_at(settings, batch, context):
                out.fail(f"cell B={batch} L={context} differs for {draft} on {gpu} ({model})")


def measured_curve_generalises_alpha(out):
    """Tokens per cycle from a per-position curve of constant rate a equal 1 + a + ... + a^k, a
    curve shorter than k repeats its last rate, and a falling curve gives fewer tokens."""
    for acceptance, k in product(GRID["certainty"], GRID["lookahead"]):
        out.visited += 1
        a = acceptance / 100
        flat = serving.tokens_per_cycle(0.0, k, curve=[a] * k)
        short = serving.tokens_per_cycle(0.0, k, curve=[a])
        falling = serving.tokens_per_cycle(0.0, k, curve=[a * 0.9 ** i for i in range(k)])
        if not close(flat, serving.tokens_per_cycle(a, k)) or short != flat or (0 < a and k > 1 and falling >= flat):
            out.fail(f"curve tokens {flat}, {short}, {falling} at a={a} k={k}")


def tail_reruns_the_exact_lab(out):
    """The tail's per-request speedups are the exact lab's own seeded runs: with the exact lab's
    defaults, run 23 is evaluate()'s trace speedup, and the prediction its theoretical speedup."""
    from ..exact import evaluate

    runs = serving.tail(64, 72, 5, 96, 9, seeds=24)
    result = evaluate()
    out.visited += 1
    if runs["speedups"][23] != result["trace"]["speedup"] or runs["prediction"] != result["theoreticalSpeedup"]:
        out.fail(f"seed 23 gives {runs['speedups'][23]} (exact lab {result['trace']['speedup']}), prediction "
                 f"{runs['prediction']} (exact lab {result['theoreticalSpeedup']})")


def calibration_holds(out):
    """The per-operator model reproduces every measured step time it was calibrated on, within the
    tolerance stated for that measurement (lab.serving_calibration.STEP_MEASUREMENTS: the
    target, GPUs, batch, tokens per sequence and context each was measured at), each on the engine
    it was measured on and timed as it was (a pass, a verify step, a scorer's time, a draft
    proposal: lab.serving_validation.step_measurement_ms); the plain steps one constant of an otherwise assumed
    GPU was fitted on (lab.serving_calibration.PASS_STEP_MEASUREMENTS: MI300X's fixed cost per pass); and vLLM V0's
    own logged stage times, each held over the batches its run could have had (lab.serving_v0_stages.stage_failures)."""
    from ..serving_v0_stages import STAGE_MEASUREMENTS, stage_failures
    from ..serving_validation import step_measurement_ms

    for m in serving_calibration.STEP_MEASUREMENTS + serving_calibration.PASS_STEP_MEASUREMENTS:
        out.visited += 1
        got = step_measurement_ms(m)
        if abs(got / m.ms - 1) > m.tolerance:
            out.fail(f"{m.target} on {m.gpus} x {m.gpu} ({m.engine or 'GPU pass'}, {m.kind}), B={m.batch} "
                     f"n={m.newTokens}: model {got:.2f} ms, measured {m.ms:.2f} ms (tolerance {m.tolerance:.0%})")
    out.visited += len(STAGE_MEASUREMENTS)
    for failure in stage_failures():
        out.fail(failure)


def _by_hand(shape, settings, batch, new_tokens, context, role="target"):
    """The per-operator step written out from the preset's shape and calibration, not from the
    module's step constants: the independent arithmetic the operator check compares with. A verify
    pass on an engine that verifies by batch expansion reads a KV cache per verified token and pays
    the expansion's bookkeeping (:data:`lab.serving_calibration.ENGINES`)."""
    gpu, precision = serving.GPUS[settings.gpu], serving.PRECISIONS[settings.precision]
    cal = serving_calibration.CALIBRATIONS[settings.gpu]
    g, b, m = settings.gpus, precision.bytes, batch * new_tokens
    bw = gpu.bandwidth * cal.memEfficiency / 1000
    own = {"fp8": gpu.fp8, "fp4": gpu.fp4}.get(precision.name)   # no tensor cores for it: the BF16 rate
    peak = (own or gpu.bf16) * cal.flopEfficiency / 1000
    head = shape.vocab * shape.hidden
    layers_params = shape.params - head * (1 if shape.tied else 2)

    def gemm(params, used=None, tokens=m):
        memory, compute = params * b / g / bw, 2 * (params if used is None else used) * tokens / g / peak
        return max(memory, compute) + (1 - cal.overlap) * min(memory, compute)

    read, used = _weights_read_and_used(shape, layers_params, m)
    engine = serving_calibration.ENGINES[settings.engine]
    expanded = role == "verify" and engine.expandedVerify
    attention = _attention_by_hand(shape, settings, batch, new_tokens, context, expanded, (bw, peak))
    fixed, host_draft = _fixed_by_hand(shape, settings, role, expanded)
    comm = 0.0
    if g > 1:
        latency_ms, comm = _allreduce_by_hand(shape, cal, g, m)
        fixed += latency_ms
    # the engine's per-sequence work: every engine step (not a draft pass), plus in a verify pass the
    # output processing a speculative cycle pays serially and the rejection sampler per draft token
    serial = cal.serialOutputUs if engine.serialOutput else 0.0   # only where the engine turns its overlap off
    work = batch * ((0.0 if role in ("draft", "first") and not host_draft else cal.sequenceUs)
                    + (serial + cal.rejectUs * (new_tokens - 1) if role == "verify" else 0.0)) / 1000
    return {"weights": gemm(read, used), "lmHead": gemm(head, tokens=batch if role == "first" else m),
            "attention": attention, "allReduce": comm,
            "engine": work, "fixed": fixed}


def _weights_read_and_used(shape, layers_params: float, m: int) -> tuple:
    """(parameters read, parameters used) of the layers for ``m`` tokens: all of them for a dense model; for a
    mixture of experts, uniform routing reads E (1 - (1 - k/E)^m) distinct experts a layer and uses k a token."""
    expert = 3 * shape.hidden * shape.expert_intermediate
    moe = shape.layers - shape.dense_layers if shape.experts else 0
    read = used = layers_params
    if shape.experts:   # uniform routing: E (1 - (1 - k/E)^m) distinct experts a layer
        always = layers_params - moe * shape.experts * expert
        read = always + moe * expert * shape.experts * (1 - (1 - shape.active_experts / shape.experts) ** m)
        used = always + moe * expert * shape.active_experts
    return read, used


def _attention_by_hand(shape, settings, batch: int, new_tokens: int, context: int, expanded: bool, rates: tuple) -> float:
    """The attention's time: the KV caches read (softmax layers with a growing cache, sliding-window ones up to their
    window, linear-attention states read once and written once per token scored; a cache per verified token where
    the engine verifies by batch expansion) against its FLOPs. ``rates`` is (bandwidth, peak FLOP rate)."""
    bw, peak = rates
    g, kv_b, m = settings.gpus, serving.PRECISIONS[settings.precision].kv_bytes, batch * new_tokens
    # softmax layers with a growing cache; sliding-window ones (up to their window); linear-attention states
    full = shape.layers - shape.linear_layers - shape.window_layers
    window, windowed = min(context, shape.window), 2 * shape.window_layers * shape.kv_heads * shape.head_dim * kv_b
    d = shape.linear_head_dim
    state = shape.linear_layers * (shape.linear_v_heads * d * d * 4
                                   + (2 * shape.linear_k_heads + shape.linear_v_heads) * d * (shape.linear_conv - 1) * 2)
    state /= min(g, max(1, shape.linear_v_heads))   # heads split over the GPUs
    if shape.kv_lora:   # latent attention: one compressed cache, replicated on every GPU
        kv = shape.layers * (shape.kv_lora + shape.rope_dim) * kv_b
        attention_flops = 2 * shape.layers * shape.heads * (2 * shape.kv_lora + shape.rope_dim)
    else:
        kv = 2 * full * shape.kv_heads * shape.head_dim * kv_b / min(g, shape.kv_heads)
        windowed /= min(g, shape.kv_heads)
        attention_flops = 4 * full * shape.heads * shape.head_dim
    engine = serving_calibration.ENGINES[settings.engine]
    kv_caches = batch + (engine.expansionKvShare * (m - batch) if expanded else 0.0)
    # a state read once and written once per token scored (one slot per draft position)
    return max((kv_caches * (context * kv + window * windowed) + batch * (1 + new_tokens) * state) / bw,
               (attention_flops * context + 4 * shape.window_layers * shape.heads * shape.head_dim * window)
               * m / g / peak)


def _fixed_by_hand(shape, settings, role: str, expanded: bool) -> tuple:
    """(the pass's fixed cost in ms, whether it is a host-driven draft step): the calibration's cost of a pass of
    this role, the engine's host work a step and a speculative cycle's, the per-layer cost and a mixture of experts'
    own kernels; the all-reduce's latency is added by the caller."""
    cal, engine = serving_calibration.CALIBRATIONS[settings.gpu], serving_calibration.ENGINES[settings.engine]
    g = settings.gpus
    # role "first": vLLM V1's first draft step, a draft pass whose LM head sees one token a sequence
    fixed = {"target": cal.passMs, "draft": cal.draftPassMs, "first": cal.draftPassMs, "verify": cal.passMs}[role]
    # vLLM V0's draft model on several GPUs: each step a CPU-prepared worker step (a host-driven pass, per-sequence work)
    host_draft = role == "draft" and g > 1 and engine.hostDraftStepsAboveTp1
    fixed = cal.passMs if host_draft else fixed
    # TensorRT-LLM's MTP head: its steps in the verify pass's CUDA graph, no launch or sampling of their own
    fixed = 0.0 if role == "draft" and engine.draftInVerifyGraph and settings.draft == serving.EAGLE else fixed
    # synchronous scheduling's host work a step; vLLM V1 turns its asynchronous scheduling off for model-free drafts
    host = (engine.ngramStepHostMs if role == "verify" and serving.model_free(settings.draft) and engine.ngramStepHostMs
            else engine.stepHostMs)
    fixed += host if role in ("target", "verify") else 0.0
    fixed += engine.specCycleMs + (engine.expansionMs if expanded else 0.0) if role == "verify" else 0.0
    fixed += shape.layers * cal.layerMs
    # a mixture of experts' own kernels, once per MoE layer, at the engine's kernel stack's cost on this GPU family
    # (serving_moe.MOE_LAYER_US through the calibration's (stack, us) pairs); none for a dense layer
    fixed += (shape.layers - shape.dense_layers if shape.experts else 0) * dict(cal.moeLayerUs).get(engine.moeKernels, 0.0) / 1000
    return fixed, host_draft


def _allreduce_by_hand(shape, cal, g: int, m: int) -> tuple:
    """(latency in ms, transfer in ms) of the two all-reduces a layer over ``g`` GPUs for ``m`` tokens: the family's
    measured all-reduce at the nearest measured GPU count at or above g (else the largest); past the small fit's
    largest measured message, the rate measured on large ones (allreduceBeyond rows)."""
    _, latency_us, bytes_per_us = next((row for row in cal.allreduce if row[0] >= g), cal.allreduce[-1])
    latency_ms = 2 * shape.layers * latency_us / 1000
    message = m * shape.hidden * 2
    start, beyond = next(((r[1], r[2]) for r in cal.allreduceBeyond if r[0] >= g),
                         cal.allreduceBeyond[-1][1:] if cal.allreduceBeyond else (message, 1.0))
    extra = max(0.0, message - start)
    return latency_ms, 2 * shape.layers * ((message - extra) / bytes_per_us + extra / beyond) / 1000


def operators_add_up(out):
    """Under the per-operator model one step is the sum of its operators, each as the module
    docstring writes it: the layers' weight GEMMs and the LM head (larger of memory and compute
    time plus the non-overlapping part of the smaller), attention (KV read or its FLOPs, never
    hidden by the GEMMs), the tensor-parallel all-reduce bytes, the engine's per-sequence work (per
    step; in a verify pass, here vLLM V0's, the output processing a speculative cycle pays serially, per
    sequence, and the rejection sampler per draft token) and the fixed costs (per pass,
    per layer, all-reduce latency; a draft pass pays its own, a verify pass the cycle's bookkeeping).
    Checked against arithmetic from the shapes, every target and draft, 1, 2 and 8 GPUs, plain,
    verify and draft passes (relative 1e-9)."""
    shapes = [*serving.TARGETS.values(), *serving.DRAFTS.values(), serving.eagle_head(serving.TARGETS["llama-3-70b"])]
    for shape, gpu, gpus, precision in product(shapes, ("a100-80g", "h100-sxm", "l40s"), (1, 2, 8), ("bf16", "fp8")):
        settings = serving.DEFAULT_SETTINGS.with_(gpu=gpu, gpus=gpus, precision=precision, stepModel=serving.MEASURED)
        for batch, new_tokens, context, role in ((1, 1, 512, "target"), (64, 5, 4096, "verify"), (256, 1, 2048, "draft")):
            out.visited += 1
            # a verify pass on vLLM V0, the engine with the most terms (serial output, batch expansion, bookkeeping)
            settings = settings.with_(engine="vllm-v0" if role == "verify" else serving.DEFAULT_ENGINE)
            expected = _by_hand(shape, settings, batch, new_tokens, context, role)
            got = serving.step_time_ms(shape, settings, batch, new_tokens, context, role)
            if not close(got, sum(expected.values()), 1e-9):
                out.fail(f"{shape.name} on {gpus} x {gpu} {precision} ({role}, B={batch}, n={new_tokens}, "
                         f"L={context}): {got!r} ms, by hand {sum(expected.values())!r} ms ({expected})")
            if role == "target":
                parts = serving.step_breakdown(shape, settings, batch, new_tokens, context)
                for name, value in expected.items():
                    if not close(parts[name], value, 1e-9):
                        out.fail(f"{name} of {shape.name} on {gpus} x {gpu}: {parts[name]!r}, by hand {value!r}")


def engines_differ_where_they_run(out):
    """Engines differ only where lab.serving_calibration.ENGINES says they run differently: each engine's draft,
    plain, verify and extend steps and emitted-token output are the by-hand pass with exactly that engine's terms, and
    the readout's cycle is k draft steps + extend + verify + output. Targets with an EAGLE head, a small draft and
    n-gram lookup, 1 and 4 GPUs, batches 1, 24 and 96, contexts 512 and 8192 (relative 1e-9)."""
    # The terms, engine by engine: every engine's draft step is the by-hand draft pass (vLLM V0's draft model on several
    # GPUs a host-prepared step), or for n-gram lookup the engine's proposal per proposed token; the plain steps of
    # engines with the same host time per step and the same MoE kernels (lab.serving_moe) are the same floats (with a
    # synchronous engine's host time, which vLLM V1's verify step with n-gram drafts pays too); vLLM V0's verify step
    # (batch expansion) re-reads its share of a KV cache per extra verified token, with the expansion's bookkeeping;
    # vLLM V1's and SGLang's read each cache once; SGLang's cycle adds a draft pass over the verified tokens (plus a
    # host-driven pass's fixed cost where it runs eagerly, today's SGLang on Hopper for a chain; less the one-token step
    # it replaces; plus its V1 worker's eager ops, c + (k - 1) s of them at EAGER_OP_US; none for n-gram lookup); vLLM
    # V1's first draft step runs over them (its LM head over one a sequence), V0 none; an EAGLE head's proposal pays the
    # engine's fitted term beyond its priced ops (V1 0.10, whose drafts run uncaptured); the emitted-token output is by
    # hand where the engine pays it, zero elsewhere.
    engines = tuple(serving_calibration.ENGINES)
    for target, draft, gpus in (("llama-3-8b", serving.EAGLE, 1), ("llama-3-70b", "llama-3.2-1b", 4),
                                ("mixtral-8x7b", serving.NGRAM, 2)):
        for batch, context, k in product((1, 24, 96), (512, 8192), (2, 4)):
            out.visited += 1
            base = serving.DEFAULT_SETTINGS.with_(target=target, draft=draft, gpus=gpus, gpu="h100-sxm", lookahead=k,
                                                  acceptance=70, batch=batch, context=context,
                                                  stepModel=serving.MEASURED)
            readouts = {name: serving.serving(base.with_(engine=name)) for name in engines}
            where = f"{target}/{draft} on {gpus} GPUs, B={batch} L={context} k={k}"
            plain_by_host = {}
            for name, r in readouts.items():
                for failure in _engine_differences(name, r, base.with_(engine=name), where, plain_by_host):
                    out.fail(failure)


def _engine_differences(name: str, r, settings, where: str, plain_by_host: dict) -> list[str]:
    """What engine ``name``'s readout ``r`` at ``settings`` gets wrong against the by-hand steps: its plain step
    (the same float as every engine's with the same host time and MoE kernels, ``plain_by_host``), its draft step,
    verify step, draft extend (:func:`_extend_by_hand`), emitted-token output and cycle."""
    target, batch, context, k = settings.target, settings.batch, settings.context, settings.lookahead
    costs = serving_calibration.ENGINES[name]
    failures = []
    plain = sum(_by_hand(serving.TARGETS[target], settings, batch, 1, context).values())
    same_host = plain_by_host.setdefault((costs.stepHostMs, costs.moeKernels), r.plainStepMs)
    shape = serving.draft_shape(settings)
    # a draft step by hand: the draft pass (V0's on several GPUs a host-prepared step), or n-gram lookup's
    # cycle proposal per proposed token, priced by the engine (serving_calibration.ngram_proposal_ms)
    draft_step = (sum(_by_hand(shape, settings, batch, 1, context, "draft").values()) if shape is not None
                  else serving_calibration.ngram_proposal_ms(costs, batch, context, k) / k)
    if r.plainStepMs != same_host or not close(r.draftStepMs, draft_step, 1e-9) or not close(
            r.plainStepMs, plain, 1e-9):
        failures.append(f"{name} changes a plain or draft step at {where} (plain step {r.plainStepMs!r} ms, "
                        f"by hand {plain!r} ms; draft step {r.draftStepMs!r} ms, by hand {draft_step!r} ms)")
    verify = sum(_by_hand(serving.TARGETS[target], settings, batch, k + 1, context, "verify").values())
    if not close(r.verifyStepMs, verify, 1e-9):
        failures.append(f"{name} verify step {r.verifyStepMs!r} ms at {where}, by hand {verify!r} ms")
    extend = _extend_by_hand(shape, settings, costs)
    if not close(r.draftExtendMs, extend, 1e-9) or (extend == 0) != (r.draftExtendMs == 0):
        failures.append(f"{name} draft extend {r.draftExtendMs!r} ms at {where}, by hand {extend!r} ms")
    cal = serving_calibration.CALIBRATIONS[settings.gpu]
    emitted = batch * (r.tokensPerCall - 1) * cal.tokenOutputUs / 1000 if costs.tokenOutput else 0.0
    if not close(r.emittedOutputMs, emitted, 1e-9):
        failures.append(f"{name} emitted-token output {r.emittedOutputMs!r} ms at {where}, by hand {emitted!r} ms")
    cycle = k * r.draftStepMs + r.draftExtendMs + r.verifyStepMs + r.emittedOutputMs
    if not close(r.speedup, r.plainStepMs * r.tokensPerCall / cycle, 1e-9) or not close(
            serving.speedup_at(settings, batch, context), r.speedup, 1e-12):
        failures.append(f"{name} cycle does not add up at {where}")
    return failures


def _extend_by_hand(shape, settings, costs) -> float:
    """A cycle's draft work beyond its k one-token draft steps, by hand: SGLang's draft pass over the verified tokens
    (plus a host-driven pass's fixed cost where it runs eagerly; less the one-token step it replaces when its logits
    give the first draft token; plus its V1 worker's eager ops a cycle), vLLM V1's first draft step over them (what
    it adds to a one-token step), the eager host ops between chained draft steps, and an EAGLE head's proposal
    beyond its priced ops."""
    batch, context, k = settings.batch, settings.context, settings.lookahead
    runs_extend = costs.draftExtend and shape is not None
    cal = serving_calibration.CALIBRATIONS[settings.gpu]
    # run eagerly by the engine's code, or (today's SGLang) on Hopper for a chain, as these are: FA3
    hopper_chain = settings.gpu in costs.eagerExtendGpus
    eager = cal.passMs - cal.draftPassMs if costs.eagerExtend or hopper_chain else 0.0
    extend = (sum(_by_hand(shape, settings, batch, k + 1, context, "draft").values()) + eager
              if runs_extend else 0.0)
    if runs_extend and costs.firstDraftFromExtend:   # SGLang: k - 1 one-token steps, the extend's first
        extend -= sum(_by_hand(shape, settings, batch, 1, context, "draft").values())
    if runs_extend:   # SGLang's V1 worker: its eager ops a cycle and a draft step after the first
        extend += (costs.cycleOps + (k - 1) * costs.cycleStepOps) * serving_calibration.EAGER_OP_US / 1000
    if costs.firstDraftOverVerified and shape is not None:  # V1: the first step over the k + 1 tokens
        extend = (sum(_by_hand(shape, settings, batch, k + 1, context, "first").values())
                  - sum(_by_hand(shape, settings, batch, 1, context, "draft").values()))
    if shape is not None:  # eager host ops between the k chained draft steps (V1 before PR 33503)
        extend += (k - 1) * costs.interStepOps * serving_calibration.EAGER_OP_US / 1000
    if settings.draft == serving.EAGLE:  # the proposal beyond its priced ops (V1 0.10: drafts outside CUDA graphs)
        extend += costs.proposalMs
    return extend


def memory_bounds_the_searches(out):
    """No search goes past the largest batch that fits: the crossover (when found) and the steady
    batch of every load are at most max_batch_in_memory, and a model whose weights do not fit
    (Llama-3-70B on one 24 GB GPU) has room for no batch and is overloaded at any rate."""
    for changes in CROSSOVER_CASES:
        for context in (1024, 2048, 32768, 131072):
            settings = serving.DEFAULT_SETTINGS.with_(**{**changes, "context": context})
            ceiling = serving.max_batch_in_memory(settings)
            out.visited += 1
            found = serving.crossover_batch(settings)
            if found is not None and found > max(1, ceiling):
                out.fail(f"crossover {found} past the {ceiling:.1f} sequences that fit at L={context} ({changes})")
            for rate in (1, 64, 4096):
                batch = serving.steady_batch(settings, rate, True)
                if batch is not None and batch > ceiling * (1 + 1e-12):
                    out.fail(f"steady batch {batch:.1f} past {ceiling:.1f} at {rate} req/s, L={context} ({changes})")
    settings = serving.DEFAULT_SETTINGS.with_(gpu="rtx-4090", gpus=1, stepModel=serving.MEASURED)
    out.visited += 1
    if serving.max_batch_in_memory(settings) != 0 or serving.steady_batch(settings, 0.01, False) is not None:
        out.fail("Llama-3-70B fits on one RTX 4090")


CHECKS = (
    ("serving-batch-one-is-leviathan", batch_one_reduces_to_leviathan),
    ("serving-step-time-monotone", step_time_is_monotone),
    ("serving-crossover-is-first-loss", crossover_is_first_loss),
    ("serving-ridge-point-is-f-over-bw", ridge_point_is_f_over_bw),
    ("serving-throughput-adds-up", throughput_is_batch_tokens_over_time),
    ("serving-littles-law-fixed-point", littles_law_fixed_point),
    ("serving-preset-arithmetic", preset_arithmetic),
    ("serving-heatmap-matches-model", heatmap_matches_model),
    ("serving-measured-curve", measured_curve_generalises_alpha),
    ("serving-tail-reruns-exact-lab", tail_reruns_the_exact_lab),
    ("serving-calibration-holds", calibration_holds),
    ("serving-operators-add-up", operators_add_up),
    ("serving-memory-bounds-searches", memory_bounds_the_searches),
    ("serving-engines-differ-where-they-run", engines_differ_where_they_run),
    ("serving-engine-costs-as-read", engine_costs_as_read),
    ("serving-readouts-match-model", readouts_match_model),
    ("serving-sglang-eagle3-cycle-adds-up", sglang_eagle3_cycle_adds_up),
    ("serving-suffix-as-read", suffix_as_read),
    ("serving-memory-as-read", memory_as_read),
    ("serving-notes-as-read", notes_as_read),
)

SIGNATURE_NOTE = (
    "serving: the speedup at the library's default setting, ServingSettings() under the roofline step model "
    "(Llama-3-70B target, Qwen2.5-0.5B-class draft, "
    "4 x H100 SXM, BF16, k = 4, acceptance 70%, 80% of bandwidth, 60% of FLOP/s, 0.5 ms per pass, batch 8, "
    "context 1024), 6 decimals. Cross-checked by hand: plain step = (141,107,412,992 + 8 x 1024 x 327,680) B "
    "/ 10.72 TB/s + 0.5 ms; the numpy oracle of tests/test_serving.py recomputes it independently.")


def signature_value() -> str:
    return to_fixed(serving.speedup_at(serving.DEFAULT_SETTINGS, serving.DEFAULT_SETTINGS.batch,
                                       serving.DEFAULT_SETTINGS.context), 6)
