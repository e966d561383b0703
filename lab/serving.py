"""Part two, instrument two: speculative decoding under load, on real hardware presets.

A roofline model of one decode step. A model with ``N`` parameters of ``b`` bytes
each and ``kv`` bytes of KV cache per token per sequence runs on a GPU with memory bandwidth
``BW`` and dense peak ``F`` FLOP/s. One step for a batch of ``B`` sequences, each with
``L`` tokens of context and ``n`` new tokens (``n = 1`` for plain decoding, ``n = k + 1``
when the target verifies ``k`` drafts), takes

    t(B, n, L) = max( (N b + B L kv) / (BW eta_mem),  2 N B n / (F eta_flop) ) + t_fixed

the larger of the time to stream the weights and the KV cache from memory and the time to do
the multiply-adds, plus a fixed cost per step (launch, sampling, scheduling). ``eta`` are the
achievable fractions of the datasheet peaks. Attention FLOPs, ``4 layers heads head_dim L``
per new token, can be added to the compute side (off by default, as the issue writes the
formula without them). KV-cache writes of the new tokens and the growth of ``L`` during one
cycle are left out: both are a few tokens against thousands.

A speculative cycle is ``k`` draft steps of the draft model (each one new token per sequence)
and one verify step of the target with ``n = k + 1``. It commits, per sequence, the expected
tokens per call ``1 + a + ... + a**k`` of :func:`lab.ledger.expected_tokens_per_call`, or,
given a measured per-position curve of conditional acceptance rates ``c_1, c_2, ...``,
``1 + c_1 + c_1 c_2 + ...`` (:func:`tokens_per_cycle`). Per sequence:

    plain ms per token  = t_target(B, 1, L)
    spec ms per token   = (k t_draft(B, 1, L) + t_target(B, k + 1, L)) / tokens per cycle
    speedup             = plain ms per token / spec ms per token
    throughput          = B x tokens / time, for the whole batch

Batch one reduces to Leviathan et al.: with ``B = 1``, ``eta = 1``, ``t_fixed = 0`` and no
attention FLOPs, the verify step costs exactly a plain step whenever it is memory-bound, that
is when its arithmetic intensity ``2 N (k + 1) / (N b + L kv)`` is at most the ridge point
``F / BW`` (:func:`verify_is_memory_bound`); then the speedup is
``(1 - a**(k+1)) / ((1 - a)(k c + 1))`` with ``c = t_draft / t_target``
(``lab.checks.serving`` checks it over the seed audit's grid).

Every preset below carries where its numbers were read. Standard library only.
"""

from functools import lru_cache
import math
from typing import NamedTuple

from .ledger import expected_tokens_per_call

__all__ = [
    "Gpu", "Transformer", "Precision", "GPUS", "TARGETS", "DRAFTS", "PRECISIONS", "ServingSettings",
    "DEFAULT_SETTINGS", "parameter_count", "kv_bytes_per_token", "weight_bytes", "peak_flops", "ridge_point",
    "step_time_ms", "step_regime", "draft_step_ms", "tokens_per_cycle", "serving", "Serving", "speedup_at",
    "crossover_batch", "crossover_batch_scan", "best_lookahead", "speedup_grid", "HEATMAP_BATCHES",
    "HEATMAP_CONTEXTS", "batch_sweep", "steady_batch", "latency_curve", "curves_cross", "VLLM_REFERENCE",
    "tail", "percentile", "memory_needed_bytes", "memory_available_bytes", "max_batch_in_memory",
    "verify_is_memory_bound", "MAX_BATCH", "eagle_head", "draft_shape",
]

TERA = 1e12
MAX_BATCH = 4096  # the largest batch the crossover search and the load model consider


# --- presets ------------------------------------------------------------------------------------

class Gpu(NamedTuple):
    """One GPU: memory bandwidth (bytes/s), dense tensor-core peaks (FLOP/s; ``fp8`` is None
    where the GPU has no FP8 tensor cores), memory capacity (bytes) and where they were read."""

    name: str
    label: str
    bandwidth: float
    bf16: float
    fp8: float | None
    memory: float
    source: str


GPUS = {
    "a100-80g": Gpu("a100-80g", "A100 80GB SXM", 2.039e12, 312 * TERA, None, 80e9,
                    "read on glennklockwood.com/garden/processors/A100, which cites NVIDIA's A100 datasheet (80G SXM4: "
                    "2.039 TB/s; BF16 matrix 312 TFLOP/s dense, 624 sparse; no FP8), and thundercompute.com's A100 "
                    "table (SXM 80GB: 2,039 GB/s)"),
    "h100-sxm": Gpu("h100-sxm", "H100 SXM", 3.35e12, 989.4 * TERA, 1978.9 * TERA, 80e9,
                    "read on glennklockwood.com/garden/processors/h100 (3.35 TB/s; BF16 matrix 989.4, FP8 1978.9 "
                    "TFLOP/s dense, the sparse column twice that) and a copy of NVIDIA's H100 datasheet table "
                    "(3,350 GB/s; 1,979 BF16 and 3,958 FP8 'shown with sparsity', 'half without')"),
    "h200": Gpu("h200", "H200 SXM", 4.8e12, 989.4 * TERA, 1978.9 * TERA, 141e9,
                "read on H200 spec summaries (lzwjava.github.io, ai-hpc.github.io, aiwiki.ai: 141 GB HBM3e, 4.8 TB/s, "
                "FP8 3,958 TFLOP/s with sparsity, the same GH100 compute as H100 SXM); the dense peaks are "
                "therefore H100 SXM's 989.4 and 1978.9 (derived, not printed on those pages)"),
    "l40s": Gpu("l40s", "L40S", 864e9, 362.05 * TERA, 733 * TERA, 48e9,
                "read on a reseller's copy of NVIDIA's L40/L40S datasheet table (mullet.se: 864 GB/s; BFLOAT16 "
                "tensor 362.05 TFLOP/s, 733 with sparsity; FP8 733, 1,466 with sparsity; 48 GB)"),
    "rtx-4090": Gpu("rtx-4090", "RTX 4090", 1008e9, 165.2 * TERA, 330.3 * TERA, 24e9,
                    "read on waredb.com and gigagpu.com tables of the RTX 4090 (1,008 GB/s; BF16 tensor 165.15 TFLOP/s "
                    "dense, 330.3 sparse; FP8 330.3 dense per waredb, 660.6 with FP16 accumulation per gigagpu), "
                    "which follow NVIDIA's Ada whitepaper. GeForce runs FP32 accumulation at half rate; we take "
                    "the FP32-accumulate figures"),
}


class Transformer(NamedTuple):
    """A decoder-only transformer's shape, as its ``config.json`` gives it. ``params`` is
    counted from the shape (:func:`parameter_count`) unless a preset overrides it."""

    name: str
    label: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    vocab: int
    tied: bool
    qkv_bias: bool
    source: str
    params: int = 0


def parameter_count(shape: Transformer) -> int:
    """Parameters of a Llama/Qwen2-style decoder from its shape: embeddings (once more for an
    untied LM head), per layer the q, k, v, o projections (plus q, k, v biases for Qwen2),
    the gated MLP (three matrices) and two RMSNorm vectors, and the final norm.

    >>> parameter_count(TARGETS["llama-2-7b"])  # the model card's 6.74B
    6738415616
    """
    h, q_width, kv_width = shape.hidden, shape.heads * shape.head_dim, shape.kv_heads * shape.head_dim
    attention = h * q_width + 2 * h * kv_width + q_width * h
    if shape.qkv_bias:
        attention += q_width + 2 * kv_width
    per_layer = attention + 3 * h * shape.intermediate + 2 * h
    embeddings = shape.vocab * h * (1 if shape.tied else 2)
    return embeddings + shape.layers * per_layer + h


def _with_count(shape: Transformer) -> Transformer:
    return shape._replace(params=shape.params or parameter_count(shape))


TARGETS = {t.name: _with_count(t) for t in (
    Transformer("llama-2-7b", "Llama-2-7B", 32, 4096, 32, 32, 128, 11008, 32000, False, False,
                "Llama-2-7b's config as copied in microsoft/Olive examples/llm/config.py and a LlamaForCausalLM "
                "module listing: 32 layers, hidden 4096, 32 heads, 32 KV heads, head_dim 128, intermediate 11008, "
                "vocab 32000, untied (6.74B on the model card)"),
    Transformer("llama-3-8b", "Llama-3-8B", 32, 4096, 32, 8, 128, 14336, 128256, False, False,
                "a copy of Meta-Llama-3-8B-Instruct's config.json (and oumi's Llama 3.1 8B table): 32 layers, "
                "hidden 4096, 32 heads, 8 KV heads, intermediate 14336, vocab 128256, untied"),
    Transformer("llama-2-70b", "Llama-2-70B", 80, 8192, 64, 8, 128, 28672, 32000, False, False,
                "Llama-2-70b-chat's module listing (k/v projections 8192 -> 1024, so 8 KV heads of 128) and a "
                "Llama-2-70B-shaped config.json: 80 layers, hidden 8192, 64 heads, intermediate 28672, vocab 32000"),
    Transformer("llama-3-70b", "Llama-3-70B", 80, 8192, 64, 8, 128, 28672, 128256, False, False,
                "oumi's Llama 3.1 70B model table (the same shape as Llama-3-70B): 80 layers, hidden 8192, "
                "64 heads, 8 KV heads, intermediate 28672, vocab 128256, untied"),
)}

NGRAM = "ngram"
EAGLE = "eagle-head"

DRAFTS = {t.name: _with_count(t) for t in (
    Transformer("llama-3.2-1b", "Llama-3.2-1B", 16, 2048, 32, 8, 64, 8192, 128256, True, False,
                "a copy of Llama-3.2-1B-Instruct's config.json (kevinstephano/thunder_model_blocks): 16 layers, "
                "hidden 2048, 32 heads, 8 KV heads, head_dim 64, intermediate 8192, vocab 128256, tied (1.24B)"),
    Transformer("qwen2.5-0.5b", "Qwen2.5-0.5B-class", 24, 896, 14, 2, 64, 4864, 151936, True, True,
                "a copy of Qwen/Qwen2.5-0.5B's config.json: 24 layers, hidden 896, 14 heads, 2 KV heads, "
                "intermediate 4864, vocab 151936, tied, q/k/v bias (0.49B, model card). vLLM's blog drafted "
                "with Qwama-0.5B, a Qwen-0.5B given Llama-3's vocabulary: the same class"),
)}
DRAFT_NAMES = (*DRAFTS, EAGLE, NGRAM)
DRAFT_LABELS = {**{name: t.label for name, t in DRAFTS.items()},
                EAGLE: "EAGLE-style head (1 layer)", NGRAM: "n-gram lookup (no model)"}


def eagle_head(target: Transformer) -> Transformer:
    """An EAGLE-style draft for ``target``: one decoder layer of the target's width, a fusion
    layer from 2h to h, and the target's own LM head, which it reads every step (EAGLE reuses
    the target's embedding and LM head). Derived from the target's shape, not read from a
    checkpoint: the count is ours.

    >>> eagle_head(TARGETS["llama-3-8b"]).layers
    1
    """
    h, q_width, kv_width = target.hidden, target.heads * target.head_dim, target.kv_heads * target.head_dim
    layer = h * q_width + 2 * h * kv_width + q_width * h + 3 * h * target.intermediate + 2 * h
    params = layer + 2 * h * h + target.vocab * h
    return target._replace(name=EAGLE, label=DRAFT_LABELS[EAGLE], layers=1, params=params,
                           source=f"derived from {target.label}: one decoder layer, a 2h->h fusion layer and the "
                                  "target's LM head (EAGLE's design); not a published checkpoint count")


class Precision(NamedTuple):
    name: str
    label: str
    bytes: int


PRECISIONS = {"bf16": Precision("bf16", "BF16", 2), "fp8": Precision("fp8", "FP8", 1)}


# --- the roofline -------------------------------------------------------------------------------

class ServingSettings(NamedTuple):
    """One position of the serving controls (names match the CLI's flags)."""

    target: str = "llama-3-70b"
    draft: str = "qwen2.5-0.5b"
    gpu: str = "h100-sxm"
    precision: str = "bf16"
    gpus: int = 4                 # GPUs sharing the model (ideal tensor parallelism: BW and F add up)
    lookahead: int = 4            # k, drafts per verify step
    acceptance: float = 70        # % chance one draft token survives
    memEfficiency: float = 80     # % of peak bandwidth reached
    flopEfficiency: float = 60    # % of peak dense FLOP/s reached
    overheadMs: float = 0.5       # fixed cost per forward pass (draft steps included)
    batch: int = 8
    context: int = 1024
    attentionFlops: bool = False
    outputTokens: int = 256       # per request, for the load curves

    def with_(self, **changes) -> "ServingSettings":
        return self._replace(**changes)


DEFAULT_SETTINGS = ServingSettings()


def kv_bytes_per_token(shape: Transformer, precision: Precision) -> int:
    """KV cache per token per sequence: ``2 (K and V) x layers x kv_heads x head_dim x bytes``.

    >>> kv_bytes_per_token(TARGETS["llama-3-70b"], PRECISIONS["bf16"])  # 320 KiB
    327680
    """
    return 2 * shape.layers * shape.kv_heads * shape.head_dim * precision.bytes


def weight_bytes(shape: Transformer, precision: Precision) -> int:
    """Bytes of weights read per step: ``params x bytes``."""
    return shape.params * precision.bytes


def peak_flops(gpu: Gpu, precision: Precision) -> float:
    """Dense tensor peak for ``precision``. FP8 on a GPU without FP8 tensor cores (A100): the
    weights are stored in one byte, halving the bytes read, but they are widened to BF16 for
    the multiply, so compute runs at the BF16 rate (a weight-only FP8 kernel)."""
    if precision.name == "fp8" and gpu.fp8 is not None:
        return gpu.fp8
    return gpu.bf16


def ridge_point(gpu: Gpu, precision: Precision) -> float:
    """Ridge point ``F / BW`` in FLOP per byte: above it a step is compute-bound.

    >>> round(ridge_point(GPUS["h100-sxm"], PRECISIONS["bf16"]), 3)
    295.343
    """
    return peak_flops(gpu, precision) / gpu.bandwidth


class _Step(NamedTuple):
    """One model's step on one machine: t(B, n, L) = max(bytes/bw, flops/f) + fixed, with
    bytes = fixed_bytes + B L kv and flops = B n (2 N + 4 layers q_width L [if attention])."""

    fixed_bytes: float
    kv: float
    bw: float          # achievable bytes per ms
    flops_per_token: float
    attention_per_token_context: float
    f: float           # achievable FLOP per ms
    fixed_ms: float


def _step(shape: Transformer, settings: ServingSettings) -> _Step:
    gpu, precision = GPUS[settings.gpu], PRECISIONS[settings.precision]
    attention = 4 * shape.layers * shape.heads * shape.head_dim if settings.attentionFlops else 0
    return _Step(weight_bytes(shape, precision), kv_bytes_per_token(shape, precision),
                 gpu.bandwidth * settings.gpus * settings.memEfficiency / 100 / 1000,
                 2 * shape.params, attention,
                 peak_flops(gpu, precision) * settings.gpus * settings.flopEfficiency / 100 / 1000,
                 settings.overheadMs)


def _memory_ms(step: _Step, batch, context) -> float:
    return (step.fixed_bytes + batch * context * step.kv) / step.bw


def _compute_ms(step: _Step, batch, new_tokens, context) -> float:
    return batch * new_tokens * (step.flops_per_token + step.attention_per_token_context * context) / step.f


def _time(step: _Step, batch, new_tokens, context) -> float:
    return max(_memory_ms(step, batch, context), _compute_ms(step, batch, new_tokens, context)) + step.fixed_ms


def step_time_ms(shape: Transformer, settings: ServingSettings, batch, new_tokens, context) -> float:
    """``t(B, n, L)`` in milliseconds for ``shape`` at ``settings`` (module docstring).

    >>> s = DEFAULT_SETTINGS.with_(gpus=1, memEfficiency=100, flopEfficiency=100, overheadMs=0)
    >>> round(step_time_ms(TARGETS["llama-3-8b"], s, 1, 1, 0), 4)  # 16.06 GB at 3.35 TB/s
    4.7942
    """
    return _time(_step(shape, settings), batch, new_tokens, context)


def step_regime(shape: Transformer, settings: ServingSettings, batch, new_tokens, context) -> str:
    """``"memory-bound"`` when streaming bytes takes at least as long as the arithmetic."""
    step = _step(shape, settings)
    memory, compute = _memory_ms(step, batch, context), _compute_ms(step, batch, new_tokens, context)
    return "memory-bound" if memory >= compute else "compute-bound"


def draft_shape(settings: ServingSettings) -> Transformer | None:
    """The draft model's shape (None for n-gram lookup, which runs no model)."""
    if settings.draft == NGRAM:
        return None
    if settings.draft == EAGLE:
        return eagle_head(TARGETS[settings.target])
    return DRAFTS[settings.draft]


def draft_step_ms(settings: ServingSettings, batch, context) -> float:
    """One draft step: the draft model's ``t(B, 1, L)``; n-gram lookup costs 0 (no forward pass,
    and we charge it no fixed overhead either)."""
    shape = draft_shape(settings)
    return 0.0 if shape is None else step_time_ms(shape, settings, batch, 1, context)


def tokens_per_cycle(acceptance_rate: float, lookahead: int, curve=None) -> float:
    """Expected tokens one verify step commits per sequence.

    Without ``curve``: ``1 + a + ... + a**k`` (:func:`lab.ledger.expected_tokens_per_call`).
    With ``curve`` (conditional acceptance rates by draft position, ``curve[i]`` = chance that
    draft ``i + 1`` survives given the ones before did): ``1 + c1 + c1 c2 + ...`` over the first
    ``k`` positions, the last rate repeating if the curve is shorter than ``k``.

    >>> tokens_per_cycle(0.5, 2), tokens_per_cycle(0.0, 2, curve=[1.0, 0.5])
    (1.75, 2.5)
    """
    if curve is None:
        return expected_tokens_per_call(acceptance_rate, lookahead)
    rates = list(curve) or [acceptance_rate]
    total, survive = 1.0, 1.0
    for position in range(lookahead):
        survive *= rates[min(position, len(rates) - 1)]
        total += survive
    return total


class Serving(NamedTuple):
    """The readout of one setting (the CLI's JSON keys, in camelCase)."""

    ridgeFlopsPerByte: float
    targetWeightBytes: int
    kvBytesPerToken: int
    plainStepMs: float
    draftStepMs: float
    verifyStepMs: float
    tokensPerCall: float
    plainMsPerToken: float
    specMsPerToken: float
    speedup: float
    plainTokensPerSecond: float
    specTokensPerSecond: float
    plainRegime: str
    verifyRegime: str


def _cycle(settings: ServingSettings, batch, context, curve=None) -> tuple[float, float, float, float]:
    """(plain step, draft step, verify step, tokens per cycle) in ms at ``batch`` and ``context``."""
    target = TARGETS[settings.target]
    k = settings.lookahead
    return (step_time_ms(target, settings, batch, 1, context), draft_step_ms(settings, batch, context),
            step_time_ms(target, settings, batch, k + 1, context),
            tokens_per_cycle(settings.acceptance / 100, k, curve))


def serving(settings: ServingSettings, curve=None) -> Serving:
    """Every number of the readout at the settings' own batch and context."""
    target, precision = TARGETS[settings.target], PRECISIONS[settings.precision]
    batch, context, k = settings.batch, settings.context, settings.lookahead
    plain, draft, verify, tokens = _cycle(settings, batch, context, curve)
    spec = (k * draft + verify) / tokens
    return Serving(
        ridgeFlopsPerByte=ridge_point(GPUS[settings.gpu], precision),
        targetWeightBytes=weight_bytes(target, precision),
        kvBytesPerToken=kv_bytes_per_token(target, precision),
        plainStepMs=plain, draftStepMs=draft, verifyStepMs=verify, tokensPerCall=tokens,
        plainMsPerToken=plain, specMsPerToken=spec, speedup=plain / spec,
        plainTokensPerSecond=batch * 1000 / plain, specTokensPerSecond=batch * tokens * 1000 / (k * draft + verify),
        plainRegime=step_regime(target, settings, batch, 1, context),
        verifyRegime=step_regime(target, settings, batch, k + 1, context),
    )


def speedup_at(settings: ServingSettings, batch, context, curve=None) -> float:
    """Speedup of speculative over plain decoding at ``batch`` and ``context``."""
    plain, draft, verify, tokens = _cycle(settings, batch, context, curve)
    return plain * tokens / (settings.lookahead * draft + verify)


def verify_is_memory_bound(settings: ServingSettings, batch, context) -> bool:
    """Whether the verify step's bytes take at least as long as its FLOPs (then, at B = 1 with no
    fixed cost, it costs exactly a plain step)."""
    return step_regime(TARGETS[settings.target], settings, batch, settings.lookahead + 1, context) == "memory-bound"


def _models(settings: ServingSettings):
    return [shape for shape in (TARGETS[settings.target], draft_shape(settings)) if shape is not None]


def memory_needed_bytes(settings: ServingSettings, batch=None, context=None) -> float:
    """Weights of target and draft plus both KV caches at ``batch`` and ``context`` (default: the
    settings' own). The EAGLE head shares the target's LM head, counted here twice: a small
    overstatement, on the safe side."""
    precision = PRECISIONS[settings.precision]
    batch = settings.batch if batch is None else batch
    context = settings.context if context is None else context
    return sum(weight_bytes(shape, precision) + batch * context * kv_bytes_per_token(shape, precision)
               for shape in _models(settings))


def memory_available_bytes(settings: ServingSettings) -> float:
    """GPU memory of all the GPUs that share the model (datasheet capacity, no reserve)."""
    return GPUS[settings.gpu].memory * settings.gpus


def max_batch_in_memory(settings: ServingSettings, context=None) -> float:
    """The largest batch whose weights and KV caches fit in GPU memory at ``context``, capped at
    :data:`MAX_BATCH` (0 when the weights alone do not fit)."""
    precision = PRECISIONS[settings.precision]
    context = settings.context if context is None else context
    weights = sum(weight_bytes(shape, precision) for shape in _models(settings))
    per_sequence = context * sum(kv_bytes_per_token(shape, precision) for shape in _models(settings))
    spare = memory_available_bytes(settings) - weights
    if spare <= 0:
        return 0.0
    return min(float(MAX_BATCH), spare / per_sequence) if per_sequence else float(MAX_BATCH)


# --- crossover, best lookahead, grids -----------------------------------------------------------

def crossover_batch_scan(settings: ServingSettings, context=None, curve=None, max_batch: int = MAX_BATCH):
    """The smallest ``B`` in ``1..max_batch`` with speedup <= 1, by brute force (the oracle)."""
    context = settings.context if context is None else context
    for batch in range(1, max_batch + 1):
        if speedup_at(settings, batch, context, curve) <= 1:
            return batch
    return None


def _ridge_batches(settings: ServingSettings, context) -> list[float]:
    """Batches where one of the three steps switches from memory- to compute-bound: between
    them every step time is affine in B, so speculation's margin is affine too."""
    breaks = []
    shapes = [(TARGETS[settings.target], 1), (TARGETS[settings.target], settings.lookahead + 1)]
    if draft_shape(settings) is not None:
        shapes.append((draft_shape(settings), 1))
    for shape, new_tokens in shapes:
        step = _step(shape, settings)
        compute_slope = new_tokens * (step.flops_per_token + step.attention_per_token_context * context) / step.f
        memory_slope = context * step.kv / step.bw
        if compute_slope > memory_slope:
            breaks.append(step.fixed_bytes / step.bw / (compute_slope - memory_slope))
    return breaks


def crossover_batch(settings: ServingSettings, context=None, curve=None, max_batch: int = MAX_BATCH):
    """The smallest ``B`` in ``1..max_batch`` at which the speedup drops to 1 or below, or None.

    Between the ridge batches (:func:`_ridge_batches`) the margin
    ``k t_draft + t_verify - tokens t_plain`` is affine in B, so on each piece the batches with
    speedup <= 1 form one end of it: check the ends, bisect inside. About 50 evaluations instead
    of 4096; ``crossover_batch_scan`` is the brute-force oracle the checks compare it with.
    """
    context = settings.context if context is None else context
    edges = sorted({1, max_batch, *(min(max_batch, max(1, int(b))) for b in _ridge_batches(settings, context)),
                    *(min(max_batch, max(1, int(b) + 1)) for b in _ridge_batches(settings, context))})
    loses = lambda batch: speedup_at(settings, batch, context, curve) <= 1  # noqa: E731
    for low, high in zip(edges, edges[1:] + [max_batch]):
        if loses(low):
            return low
        if not loses(high):
            continue
        # affine margin, positive at `low` and not at `high`: the first loss lies in (low, high]
        while high - low > 1:
            middle = (low + high) // 2
            if loses(middle):
                high = middle
            else:
                low = middle
        return high
    return None


def best_lookahead(settings: ServingSettings, max_lookahead: int = 12, curve=None) -> tuple[int, float]:
    """The lookahead in ``1..max_lookahead`` with the strictly largest speedup (first wins).

    The plain and draft steps do not depend on k, so they are computed once; entry k is the very
    float :func:`speedup_at` gives for lookahead k."""
    batch, context = settings.batch, settings.context
    target = _step(TARGETS[settings.target], settings)
    shape = draft_shape(settings)
    draft = 0.0 if shape is None else _time(_step(shape, settings), batch, 1, context)
    plain = _time(target, batch, 1, context)
    best_k, best = 0, -math.inf
    for k in range(1, max_lookahead + 1):
        value = plain * tokens_per_cycle(settings.acceptance / 100, k, curve) / (k * draft + _time(target, batch, k + 1, context))
        if value > best:
            best_k, best = k, value
    return best_k, best


HEATMAP_BATCHES = tuple(2 ** i for i in range(11))           # 1 .. 1024
HEATMAP_CONTEXTS = tuple(512 * 2 ** i for i in range(9))     # 512 .. 131072


def speedup_grid(settings: ServingSettings, batches=HEATMAP_BATCHES, contexts=HEATMAP_CONTEXTS, curve=None):
    """Speedup for every (context, batch): one row per context, one column per batch.

    The step constants are built once per grid, which keeps the 99 cells to a fraction of a
    millisecond of arithmetic."""
    target = TARGETS[settings.target]
    plain_step, draft_shape_ = _step(target, settings), draft_shape(settings)
    draft = None if draft_shape_ is None else _step(draft_shape_, settings)
    k = settings.lookahead
    tokens = tokens_per_cycle(settings.acceptance / 100, k, curve)
    grid = []
    for context in contexts:
        row = []
        for batch in batches:
            plain = _time(plain_step, batch, 1, context)
            verify = _time(plain_step, batch, k + 1, context)
            drafting = 0.0 if draft is None else _time(draft, batch, 1, context)
            row.append(plain * tokens / (k * drafting + verify))
        grid.append(row)
    return grid


def batch_sweep(settings: ServingSettings, batches, curve=None) -> list[dict]:
    """Speedup and both throughputs at each batch, at the settings' context (steps built once)."""
    context, k = settings.context, settings.lookahead
    target = _step(TARGETS[settings.target], settings)
    shape = draft_shape(settings)
    draft = None if shape is None else _step(shape, settings)
    tokens = tokens_per_cycle(settings.acceptance / 100, k, curve)
    rows = []
    for batch in batches:
        plain = _time(target, batch, 1, context)
        cycle = k * (0.0 if draft is None else _time(draft, batch, 1, context)) + _time(target, batch, k + 1, context)
        rows.append({"batch": batch, "speedup": plain * tokens / cycle, "plainTokensPerSecond": batch * 1000 / plain,
                     "specTokensPerSecond": batch * tokens * 1000 / cycle})
    return rows


# --- load: Little's law -------------------------------------------------------------------------

def _per_token_terms(settings: ServingSettings, speculative: bool, curve=None):
    """ms per token per sequence as ``sum_i w_i max(p_i + q_i B, r_i B) + c``: each step is the
    larger of an affine memory time and a linear compute time, plus its fixed cost."""
    context, k = settings.context, settings.lookahead

    def term(step: _Step, new_tokens: int, weight: float):
        compute = new_tokens * (step.flops_per_token + step.attention_per_token_context * context) / step.f
        return (weight, step.fixed_bytes / step.bw, context * step.kv / step.bw, compute), weight * step.fixed_ms

    target = _step(TARGETS[settings.target], settings)
    if not speculative:
        first, constant = term(target, 1, 1.0)
        return [first], constant
    tokens = tokens_per_cycle(settings.acceptance / 100, k, curve)
    parts = [term(target, k + 1, 1 / tokens)]
    shape = draft_shape(settings)
    if shape is not None:
        parts.append(term(_step(shape, settings), 1, k / tokens))
    return [t for t, _ in parts], sum(c for _, c in parts)


def _per_token_function(settings: ServingSettings, speculative: bool, curve=None):
    """``batch -> ms per token per sequence`` at the settings' context (constants built once)."""
    terms, constant = _per_token_terms(settings, speculative, curve)
    return lambda batch: sum(w * max(p + q * batch, r * batch) for w, p, q, r in terms) + constant


def _ms_per_token(settings: ServingSettings, batch: float, speculative: bool, curve=None) -> float:
    """Milliseconds per token per sequence at ``batch``: a plain step, or a cycle over its tokens."""
    return _per_token_function(settings, speculative, curve)(batch)


def steady_batch(settings: ServingSettings, rate: float, speculative: bool, curve=None,
                 max_batch: float | None = None) -> float | None:
    """The running batch ``B`` that satisfies Little's law,
    ``B = rate x outputTokens x msPerToken(B) / 1000`` (rate in requests per second), or None
    when no ``B <= max_batch`` does: the server is overloaded. ``max_batch`` defaults to the
    largest batch that fits in GPU memory (:func:`max_batch_in_memory`).

    ``msPerToken(B) / B`` falls as B grows (each step time is a constant plus terms linear in
    B), so ``rate x outputTokens x msPerToken(B) / (1000 B)`` crosses 1 at most once; the fixed
    point is solved exactly, piece by affine piece, with B a real number.

    >>> s = DEFAULT_SETTINGS
    >>> b = steady_batch(s, 1.0, False)
    >>> abs(b - 1.0 * s.outputTokens * _ms_per_token(s, b, False) / 1000) < 1e-6
    True
    """
    return _steady_batch(settings, rate, _per_token_terms(settings, speculative, curve), max_batch)


def _steady_batch(settings: ServingSettings, rate: float, terms_constant, max_batch=None) -> float | None:
    """Solve ``B = s m(B)`` with ``s = rate x outputTokens / 1000`` exactly: between the batches
    where a step turns compute-bound, ``m(B) = P + Q B`` is affine, so on that piece
    ``B = s P / (1 - s Q)``; the first piece whose solution lies inside it holds the fixed point
    (``m(B) / B`` falls as B grows, so there is at most one)."""
    if rate <= 0:
        return 0.0
    max_batch = max_batch_in_memory(settings) if max_batch is None else max_batch
    if max_batch <= 0:
        return None
    terms, constant = terms_constant
    scale = rate * settings.outputTokens / 1000
    breaks = sorted(p / (r - q) for _, p, q, r in terms if r > q and 0 < p / (r - q) < max_batch)
    low = 0.0
    for high in breaks + [max_batch]:
        middle = (low + high) / 2  # which side of each ridge this piece is on
        slope = offset = 0.0
        for w, p, q, r in terms:
            if p + q * middle >= r * middle:
                offset, slope = offset + w * p, slope + w * q
            else:
                slope += w * r
        offset += constant
        if scale * slope < 1:
            batch = scale * offset / (1 - scale * slope)
            if batch <= high * (1 + 1e-12):
                return max(batch, low)
        low = high
    return None


def latency_curve(settings: ServingSettings, rates, speculative: bool, curve=None) -> list[float | None]:
    """Per-request decode latency in seconds (outputTokens x msPerToken at the steady batch)
    at each request rate; None where the server is overloaded."""
    terms = _per_token_terms(settings, speculative, curve)
    per_token, ceiling = _per_token_function(settings, speculative, curve), max_batch_in_memory(settings)
    latencies = []
    for rate in rates:
        batch = _steady_batch(settings, rate, terms, ceiling)
        latencies.append(None if batch is None else settings.outputTokens * per_token(max(batch, 1e-12)) / 1000)
    return latencies


def curves_cross(settings: ServingSettings, rates, curve=None) -> float | None:
    """The lowest request rate among ``rates`` (ascending) at which speculative decoding's
    latency is no better than plain decoding's (or speculation alone is overloaded), refined by
    bisection between the grid rate before it and it; None if speculation never loses while
    plain decoding keeps up."""
    ceiling = max_batch_in_memory(settings)
    models = {kind: (_per_token_terms(settings, kind, curve), _per_token_function(settings, kind, curve))
              for kind in (False, True)}

    def latency(rate, speculative):
        terms, per_token = models[speculative]
        batch = _steady_batch(settings, rate, terms, ceiling)
        return None if batch is None else settings.outputTokens * per_token(max(batch, 1e-12)) / 1000

    def spec_loses(rate):
        spec, plain = latency(rate, True), latency(rate, False)
        if spec is None:  # speculation overloaded: it lost if plain decoding still keeps up
            return plain is not None
        return plain is not None and spec >= plain
    previous = None
    for rate in rates:
        if spec_loses(rate):
            if previous is None:
                return rate
            low, high = previous, rate
            for _ in range(20):  # the rate to about 1e-6 of the grid step: ample for 3 digits
                middle = (low + high) / 2
                low, high = (low, middle) if spec_loses(middle) else (middle, high)
            return high
        previous = rate
    return None


# vLLM's blog (Oct 2024), Llama-3-70B on 4xH100: measured, not fitted. "speedup" is plain latency
# over speculative latency; the high-rate points are slowdowns (1/1.4, 1/1.8) at a rate the text
# does not state, so the page draws them at the right edge, labelled "high QPS".
VLLM_REFERENCE = (
    {"label": "draft model (Qwama-0.5B), ShareGPT, 1 req/s", "rate": 1.0, "speedup": 1.5},
    {"label": "n-gram, CNN/DailyMail, 1 req/s", "rate": 1.0, "speedup": 2.8},
    {"label": "draft model, ShareGPT, high QPS", "rate": None, "speedup": 1 / 1.4},
    {"label": "n-gram, CNN/DailyMail, high QPS", "rate": None, "speedup": 1 / 1.8},
)


# --- the tail: one request's speedup varies ---------------------------------------------------

TAIL_SEEDS = 300


def percentile(values, fraction: float) -> float:
    """Nearest-rank percentile: the smallest value with at least ``fraction`` of the values at
    or below it.

    >>> percentile([0, 0, 1, 2], 0.5), percentile([0, 0, 1, 2], 0.99)
    (0, 2)
    """
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


@lru_cache(maxsize=16)
def tail(certainty: int, match: int, gamma: int, length: int, draft_cost: int, seeds: int = TAIL_SEEDS) -> dict:
    """Re-run the exact lab's seeded generation (:func:`lab.sampler.generate_trace`) with seeds
    ``0 .. seeds - 1`` at one setting of the exact lab.

    Returns each run's speedup (``length / (targetCalls + draftCalls c)``, the exact lab's
    ``trace.speedup``), the prediction (``theoreticalSpeedup`` of :func:`lab.exact.evaluate`),
    and the inter-token gaps in units of one target pass: a call that drafts ``j`` tokens takes
    ``1 + j c``; its first token arrives after that and the rest of its burst with it (gap 0).
    Plain decoding delivers one token per pass, every gap 1. Percentiles are nearest-rank."""
    from .exact import summary_alpha
    from .ledger import leviathan_speedup
    from .sampler import generate_trace

    cost = draft_cost / 100
    speedups, gaps = [], []
    for seed in range(seeds):
        trace = generate_trace(certainty, match, gamma, length, seed)
        speedups.append(length / (trace.targetCalls + trace.draftCalls * cost))
        for _, drafts, committed, _ in trace.calls:
            gaps.append(1 + len(drafts) * cost)
            gaps.extend([0.0] * (len(committed) - 1))
    prediction = leviathan_speedup(float(summary_alpha(certainty, match, length)), gamma, cost)
    return {"speedups": tuple(speedups), "prediction": prediction, "seeds": seeds,
            "gapP50": percentile(gaps, 0.5), "gapP99": percentile(gaps, 0.99),
            "plainGapP50": 1.0, "plainGapP99": 1.0,
            "p05": percentile(speedups, 0.05), "p95": percentile(speedups, 0.95),
            "minimum": min(speedups), "maximum": max(speedups), "median": percentile(speedups, 0.5)}
