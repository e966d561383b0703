"""The serving model's step times: one decode step of a batch on one machine, under the per-operator
model calibrated on measured step times or the roofline of the whole step (the formulas are in
:mod:`lab.serving`'s docstring), the parts of one speculative cycle (draft steps, the draft's extend pass,
the verify step, the output it emits) and the byte counts of weights and caches (what fits in GPU memory is
:mod:`lab.serving_memory`'s). :mod:`lab.serving` composes them into the readout, the crossover and the grids,
:mod:`lab.serving_load` into the load curves; it re-exports every name here. Standard library only.
"""

from functools import lru_cache
from typing import NamedTuple

from .errors import LabValueError
from . import serving_calibration   # CALIBRATIONS read through the module at call time: a test swaps the table
from .ledger import expected_accepted_from_curve, expected_tokens_per_call
from .serving_calibration import (DEFAULT_ENGINE, ENGINES, allreduce_cost, cycle_eager_ms, eagle3_eager_ms,
                                  moe_layer_us, inter_step_ms, ngram_proposal_ms, proposal_ms)
from .serving_allreduce import message_rates
from .serving_mtp import NO_EXTRAS, mtp_step_extras
from .serving_sglang import eager_extend_here, extend_tokens
from .serving_suffix import SUFFIX, draft_engine_problem, model_free, suffix_proposal_ms
from .serving_presets import NGRAM, TERA  # noqa: F401 (doctests' names: a draft, a unit)
from .serving_presets import (DRAFTS, EAGLE, EAGLE3, GPUS, PRECISIONS, TARGETS, Gpu, Precision,
                              Transformer, _distinct, eagle3_head, eagle_head, expert_params,
                              moe_layers, softmax_layers, used_params)

__all__ = [
    "ACTIVATION_BYTES", "ROOFLINE", "MEASURED", "OPERATORS", "STEP_MODELS", "PER_OPERATOR", "MAX_BATCH",
    "ServingSettings", "DEFAULT_SETTINGS", "kv_bytes_per_token", "window_kv_bytes_per_token", "STATE_BYTES",
    "CONV_BYTES", "linear_state_bytes", "kv_bytes_per_sequence", "weight_bytes", "peak_flops", "ridge_point",
    "pass_precision", "head_params", "gemm_params", "routed_params", "attention_flops", "window_attention_flops", "step_time_ms",
    "step_breakdown", "step_regime", "effective_ridge", "verify_tokens", "draft_shape", "ngram_cycle_ms",
    "model_free_cycle_ms",
    "draft_step_ms", "draft_extend_ms", "verify_step_ms", "emitted_output_ms",
    "tokens_per_cycle",
]

ACTIVATION_BYTES = 2  # BF16 activations in the tensor-parallel all-reduces
ROOFLINE, MEASURED, OPERATORS = "roofline", "measured", "operators"
STEP_MODELS = {MEASURED: "calibrated, per operator", ROOFLINE: "roofline, whole step",  # short: a phone shows them whole
               OPERATORS: "no overheads, per operator"}  # not "ideal": for MoE it is below the calibrated one
PER_OPERATOR = (MEASURED, OPERATORS)
MAX_BATCH = 4096  # the largest batch the crossover search and the load model consider


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
    requestOutputTokens: int = 256  # tokens each request decodes, for the load curves (not the ledger's outputTokens,
                                    # tokens per verifier call)
    stepModel: str = ROOFLINE     # "measured": the per-operator model calibrated on measured step times
    treeTokens: int = 0           # tokens the verify step scores per sequence; 0: a chain's k + 1
    engine: str = DEFAULT_ENGINE  # how the engine runs a cycle (lab.serving_calibration.ENGINES)
    draftPrecision: str = ""      # the draft's weights and cache when they differ from the target's; "": the same

    def with_(self, **changes) -> "ServingSettings":
        return self._replace(**changes)


DEFAULT_SETTINGS = ServingSettings()


def kv_bytes_per_token(shape: Transformer, precision: Precision) -> int:
    """KV cache per token per sequence: ``2 (K and V) x layers x kv_heads x head_dim x bytes``;
    with multi-head latent attention the compressed latent and the rotary key,
    ``layers x (kv_lora + rope_dim) x bytes``.

    >>> kv_bytes_per_token(TARGETS["llama-3-70b"], PRECISIONS["bf16"])  # 320 KiB
    327680
    >>> kv_bytes_per_token(TARGETS["deepseek-v3"], PRECISIONS["bf16"])  # 61 x 576 x 2
    70272
    """
    if shape.kv_lora:
        return shape.layers * (shape.kv_lora + shape.rope_dim) * precision.kv_bytes
    return 2 * (softmax_layers(shape) - shape.window_layers) * shape.kv_heads * shape.head_dim * precision.kv_bytes


def window_kv_bytes_per_token(shape: Transformer, precision: Precision) -> int:
    """KV cache per token per sequence of the sliding-window layers, kept for the last ``window``
    tokens only (gpt-oss: 18 of its 36 layers, 128 tokens): ``2 window_layers kv_heads head_dim bytes``.

    >>> window_kv_bytes_per_token(TARGETS["gpt-oss-120b"], PRECISIONS["bf16"]), TARGETS["gpt-oss-120b"].window
    (36864, 128)
    """
    return 2 * shape.window_layers * shape.kv_heads * shape.head_dim * precision.kv_bytes


# A linear-attention layer's state: the recurrent state in FP32 and the convolution's inputs in BF16, whatever
# the weights' precision (assumed; Qwen3.5's config.json says "mamba_ssm_dtype": "float32", and a cache-sizing
# test read through the code index counts a Qwen3.5 Gated DeltaNet layer as 32 x 128 x 128 x 4 bytes of state
# plus (2 x 16 x 128 + 32 x 128) x 3 x 2 bytes of convolution inputs).
STATE_BYTES, CONV_BYTES = 4, 2


def linear_state_bytes(shape: Transformer) -> int:
    """One copy of one sequence's linear-attention state over every linear-attention layer:
    ``linear_layers (vh d d STATE_BYTES + (2 kh + vh) d (conv - 1) CONV_BYTES)``. It does not grow with
    the context. 0 without linear attention.

    >>> linear_state_bytes(TARGETS["qwen3-next-80b-a3b"])   # 36 x (2,097,152 + 49,152): 77 MB a copy
    77266944
    """
    if not shape.linear_layers:
        return 0
    d = shape.linear_head_dim
    return shape.linear_layers * (shape.linear_v_heads * d * d * STATE_BYTES
                                  + (2 * shape.linear_k_heads + shape.linear_v_heads) * d * (shape.linear_conv - 1)
                                  * CONV_BYTES)


def kv_bytes_per_sequence(shape: Transformer, precision: Precision, context, slots: int = 1) -> float:
    """One sequence's cache at ``context`` tokens: the growing KV cache (:func:`kv_bytes_per_token`),
    the sliding-window layers' cache up to their window, and ``slots`` copies of the linear-attention
    state (a speculating engine keeps one per verified position, :func:`state_slots`).

    >>> kv_bytes_per_sequence(TARGETS["llama-3-8b"], PRECISIONS["bf16"], 1000) == 1000 * 131072
    True
    """
    return (context * kv_bytes_per_token(shape, precision)
            + min(context, shape.window) * window_kv_bytes_per_token(shape, precision)
            + slots * linear_state_bytes(shape))


def weight_bytes(shape: Transformer, precision: Precision) -> int:
    """Bytes of weights read per step: ``params x bytes``."""
    return shape.params * precision.bytes


def peak_flops(gpu: Gpu, precision: Precision) -> float:
    """Dense tensor peak for ``precision``. FP8 or FP4 on a GPU without tensor cores for it (FP8 on
    A100, FP4 on Hopper, Ada, Ampere and MI300X): the weights are stored small, cutting the bytes
    read, but they are widened to BF16 for the multiply, so compute runs at the BF16 rate (a
    weight-only kernel; assumed, not measured).

    >>> peak_flops(GPUS["b200"], PRECISIONS["fp4"]) / TERA, peak_flops(GPUS["h100-sxm"], PRECISIONS["fp4"]) / TERA
    (9000.0, 989.4)
    """
    peak = {"fp8": gpu.fp8, "fp4": gpu.fp4}.get(precision.name)
    return gpu.bf16 if peak is None else peak


def ridge_point(gpu: Gpu, precision: Precision) -> float:
    """Ridge point ``F / BW`` in FLOP per byte: above it a step is compute-bound.

    >>> round(ridge_point(GPUS["h100-sxm"], PRECISIONS["bf16"]), 3)
    295.343
    """
    return peak_flops(gpu, precision) / gpu.bandwidth


class _Step(NamedTuple):
    """One model's step on one machine under the roofline: t(B, n, L) = max(bytes/bw, flops/f) +
    fixed, with bytes = fixed_bytes + B L kv (+ the distinct routed experts the pass's B n tokens
    read, for a mixture of experts) and flops = B n (2 N + 4 layers q_width L [if attention])."""

    fixed_bytes: float
    kv: float
    bw: float          # achievable bytes per ms
    flops_per_token: float
    attention_per_token_context: float
    f: float           # achievable FLOP per ms
    fixed_ms: float
    expert_bytes: float = 0.0   # one routed expert's weights in every MoE layer
    experts: int = 0            # routed experts per MoE layer (0: dense)
    active_experts: int = 0     # experts each token uses
    window_kv: float = 0.0      # sliding-window layers' KV bytes per token, up to ``window`` tokens
    window: int = 0
    state: float = 0.0          # one copy of a sequence's linear-attention state (bytes)
    window_attention: float = 0.0  # sliding-window layers' attention FLOPs per token per context token


class _MeasuredStep(NamedTuple):
    """One model's step under the per-operator model (module docstring), every constant in ms:
    ``gemm_ms`` and ``head_ms`` stream the layers' and the LM head's weights once per pass,
    ``gemm_flop_ms`` and ``head_flop_ms`` are their multiply-adds per token in the pass,
    ``kv_ms`` reads one sequence's KV cache per token of context, ``attention_flop_ms`` is
    attention's arithmetic per token in the pass per token of context, ``comm_ms`` the
    all-reduce bytes per token in the pass, ``fixed_ms`` the per-pass fixed cost (launches,
    scheduling, sampling, all-reduce latency) and ``overlap`` how much of the smaller of a GEMM's
    memory and compute time hides under the larger (1: the roofline's max, 0: they add)."""

    gemm_ms: float
    gemm_flop_ms: float
    head_ms: float
    head_flop_ms: float
    kv_ms: float
    attention_flop_ms: float
    comm_ms: float
    fixed_ms: float
    overlap: float
    expert_ms: float = 0.0      # one routed expert's weights in every MoE layer, streamed once
    experts: int = 0            # routed experts per MoE layer (0: dense)
    active_experts: int = 0     # experts each token uses
    sequence_ms: float = 0.0    # the engine's per-sequence work per pass (scheduler bookkeeping)
    draft_token_ms: float = 0.0  # a verify pass's per-draft-token work (the rejection sampler)
    serial_ms: float = 0.0      # a verify pass's per-sequence output processing, paid serially
    token_output_ms: float = 0.0  # the same per emitted token beyond a sequence's first (a cycle term)
    kv_reread: float = 0.0      # batch expansion: the share of its sequence's KV cache each extra token re-reads
    window_ms: float = 0.0      # sliding-window layers' cache per token of context, up to ``window`` tokens
    window: int = 0
    window_flop_ms: float = 0.0  # their attention arithmetic per token in the pass per token of context
    state_ms: float = 0.0       # one copy of one sequence's linear-attention state (read or written)
    comm_knee: float = float("inf")  # tokens in the pass past which the all-reduce is charged comm_beyond_ms a token
    comm_beyond_ms: float = 0.0      # (the small fit's largest measured message; lab.serving_calibration.allreduce_beyond)
    gather_ms: float = 0.0           # an MTP head's logits gathered, a sequence (lab.serving_mtp), as comm_ms is
    gather_knee: float = float("inf")  # a token, with its own knee in sequences and its rate past it
    gather_beyond_ms: float = 0.0


def _combine(memory: float, compute: float, overlap: float) -> float:
    """A GEMM's time from its memory and compute times: the larger, plus the part of the smaller
    that does not overlap it. ``overlap = 1`` is the roofline's ``max``; ``0`` adds them.

    >>> _combine(3.0, 1.0, 1.0), _combine(3.0, 1.0, 0.0), _combine(3.0, 1.0, 0.75)
    (3.0, 4.0, 3.25)
    """
    if memory >= compute:
        return memory + (1 - overlap) * compute
    return compute + (1 - overlap) * memory


def head_params(shape: Transformer) -> int:
    """The LM head's weights, ``vocab x hidden``: read once per pass, whatever is tied."""
    return shape.vocab * shape.hidden


def gemm_params(shape: Transformer, active: bool = False) -> int:
    """Weights the decoder layers' GEMMs hold: every parameter but the embedding table (a lookup
    of a few rows) and the LM head (:func:`head_params`). A tied model stores the two as one
    matrix; the EAGLE head counts only the target's LM head (``tied``). With ``active``, a
    mixture of experts counts only the experts one token uses (its FLOPs per token).

    >>> gemm_params(TARGETS["llama-3-8b"]) == TARGETS["llama-3-8b"].params - 2 * 128256 * 4096
    True
    """
    total = used_params(shape) if active else shape.params
    return total - head_params(shape) * (1 if shape.tied else 2)


def routed_params(shape: Transformer) -> int:
    """Every routed expert's weights over all MoE layers (0 for a dense model): what a pass reads
    only in part, :func:`distinct_experts` of them per layer."""
    return moe_layers(shape) * shape.experts * expert_params(shape)


def attention_flops(shape: Transformer) -> int:
    """Attention's FLOPs per new token per token of context, over the layers whose cache grows with
    the context: ``4 heads head_dim`` (scores and values) per layer; with latent attention computed on
    the compressed cache (absorbed MLA: the queries are projected into the latent space, so each of the
    ``heads`` scores ``kv_lora + rope_dim`` values and sums ``kv_lora``), ``2 heads (2 kv_lora + rope_dim)``
    a layer. A verify pass over ``n`` tokens does ``n`` times this for every token of context, while it
    reads the cache once: for DeepSeek-V3 on one GPU in BF16 that is 242 n FLOP a byte, compute-bound past
    about ``n = 2`` on an H100 (the per-operator model's attention term is the larger of the two)."""
    if shape.kv_lora:
        return 2 * shape.layers * shape.heads * (2 * shape.kv_lora + shape.rope_dim)
    return 4 * (softmax_layers(shape) - shape.window_layers) * shape.heads * shape.head_dim


def window_attention_flops(shape: Transformer) -> int:
    """The sliding-window layers' attention FLOPs per new token per token of context (at most
    ``window`` of them): ``4 window_layers heads head_dim``. A linear-attention layer's recurrence
    (about ``6 vh d d`` FLOPs a token, whatever the context) is left out: a few percent of its GEMMs."""
    return 4 * shape.window_layers * shape.heads * shape.head_dim


def _measured_step(shape: Transformer, settings: ServingSettings, role: str = "target", calibration=None,
                   engine=None) -> _MeasuredStep:
    """The per-operator step of ``shape`` split over ``settings.gpus`` GPUs with the GPU's
    calibration (:data:`lab.serving_calibration.CALIBRATIONS`; ``calibration``, a refit, in its place) on the
    settings' engine (``engine``, a refit of its costs, in its place). ``role`` sets the fixed cost:
    a ``"target"`` pass pays the engine step's ``passMs``; a ``"draft"`` pass runs inside that
    step and pays only its own ``draftPassMs`` (launches and sampling, not the scheduler); a
    ``"verify"`` pass pays ``passMs`` plus ``specCycleMs``, the speculation bookkeeping of one
    cycle (proposals copied to the CPU, the verify batch prepared, rejection sampling)."""
    cal = calibration or (serving_calibration.CALIBRATIONS[settings.gpu] if settings.stepModel == MEASURED
                          else serving_calibration.IDEAL)
    engine = engine or ENGINES[settings.engine]
    if role == "verify" and model_free(settings.draft) and engine.ngramStepHostMs:
        # the engine runs synchronously while a model-free proposer drafts on the CPU (vLLM V1's n-gram and suffix
        # proposers): its verify step pays the host work asynchronous scheduling would hide; plain decoding, a
        # deployment without a draft, keeps it hidden
        engine = engine._replace(stepHostMs=engine.ngramStepHostMs)
    if engine.draftInVerifyGraph and settings.draft != EAGLE:
        # only the one-model head (TensorRT-LLM's MTP) runs inside the verify pass's graph; a separate draft does not
        engine = engine._replace(draftInVerifyGraph=False)
    extras = NO_EXTRAS   # a checkpoint's MTP module: what its engine's code runs beyond the head's layers
    if role == "draft" and settings.draft == EAGLE:
        extras = mtp_step_extras(TARGETS[settings.target], engine, cal, settings.gpus,
                                 PRECISIONS[pass_precision(settings, role)].bytes)
    return _measured_constants(shape, settings.gpu, pass_precision(settings, role), settings.gpus, cal, role, engine,
                               extras)


@lru_cache(maxsize=1024)
def _measured_constants(shape: Transformer, gpu_name: str, precision_name: str, g: int, cal, role: str,
                        engine=None, extras=NO_EXTRAS) -> _MeasuredStep:
    """The constants of :func:`_measured_step`, cached: the key holds the shape and the
    calibration themselves, so a changed preset or calibration is a new entry, never a stale one."""
    gpu, precision = GPUS[gpu_name], PRECISIONS[precision_name]
    bw = gpu.bandwidth * cal.memEfficiency / 1000            # bytes per ms, one GPU
    f = peak_flops(gpu, precision) * cal.flopEfficiency / 1000  # FLOP per ms, one GPU
    # KV heads split over GPUs, replicated past that; a latent cache is replicated on every GPU
    kv_share = 1 if shape.kv_lora else min(g, shape.kv_heads)
    fixed = {"target": cal.passMs, "draft": cal.draftPassMs, "verify": cal.passMs}[role]
    # the engine's own costs (lab.serving_calibration.ENGINES), none in the ideal limit: host work a synchronous
    # engine step leaves serial (plain and verify steps, not a draft pass inside the step), the speculation
    # bookkeeping of a cycle and batch expansion's, on its verify pass
    charged = engine if engine is not None and cal.engineTerms else None
    # vLLM V0's draft model on several GPUs runs each step as a worker step prepared on the CPU (no GPU multi-step
    # outside TP1DraftModelRunner): a host-driven pass's fixed cost and the per-sequence work, not a captured pass's
    host_draft = role == "draft" and g > 1 and charged is not None and charged.hostDraftStepsAboveTp1
    if host_draft:
        fixed = cal.passMs
    if role == "draft" and charged is not None and charged.draftInVerifyGraph:
        fixed = 0.0   # a head's steps captured in the verify pass's graph: no launch or sampling of their own
    expanded = charged is not None and role == "verify" and charged.expandedVerify  # a verify pass by batch expansion
    if charged is not None and role != "draft":
        fixed += charged.stepHostMs
    if charged is not None and role == "verify":
        fixed += charged.specCycleMs + (charged.expansionMs if expanded else 0.0)
    fixed += shape.layers * cal.layerMs
    # a mixture of experts' own kernels in each MoE layer (router, top-k, permutation, grouped GEMMs' launches,
    # unpermutation), by the engine's MoE kernel stack and the GPU family (lab.serving_moe); none for a dense layer
    stack = (engine or ENGINES[DEFAULT_ENGINE]).moeKernels
    fixed += moe_layers(shape) * moe_layer_us(cal, stack) / 1000 + extras.fixed_ms   # an MTP head's gather (serving_mtp)
    # per-sequence engine work runs once per engine step (plain or verify), not per draft pass;
    # the rejection sampler only in a verify pass
    sequence = 0.0 if role == "draft" and not host_draft else cal.sequenceUs / 1000
    draft_token = cal.rejectUs / 1000 if role == "verify" else 0.0
    # output processing: plain decoding overlaps it with the next pass; an engine that turns that overlap off
    # while speculating pays it after its verify pass (lab.serving_calibration.SERIAL_OUTPUT_US, TOKEN_OUTPUT_US)
    serial_paid = role == "verify" and charged is not None
    serial = cal.serialOutputUs / 1000 if serial_paid and charged.serialOutput else 0.0
    token_output = cal.tokenOutputUs / 1000 if serial_paid and charged.tokenOutput else 0.0
    comm, comm_knee, comm_beyond = 0.0, float("inf"), 0.0
    if g > 1:  # two all-reduces per layer (after attention, after the MLP), each priced as measured on this GPU family
        # (lab.serving_calibration.allreduce_cost): a latency every all-reduce pays, and its message, hidden x 2 bytes per
        # token in the pass, at the measured rate
        fixed += 2 * shape.layers * allreduce_cost(cal, g)[0] / 1000
        # past the small fit's largest measured message, the rate measured on large messages
        # (lab.serving_calibration.allreduce_beyond; where none is measured the small rate continues, assumed)
        per_token, comm_knee, beyond_token = message_rates(cal, g, shape.hidden * ACTIVATION_BYTES)
        comm, comm_beyond = 2 * shape.layers * per_token, 2 * shape.layers * beyond_token
    always = gemm_params(shape) - routed_params(shape)   # dense layers, attention, routers, shared experts
    gather, gather_knee, gather_beyond = message_rates(cal, g, extras.gather_bytes)  # an MTP head's logits
    return _MeasuredStep(
        gemm_ms=(always * precision.bytes / g + extras.weight_bytes) / bw, gemm_flop_ms=2 * gemm_params(shape, active=True) / g / f,
        head_ms=head_params(shape) * precision.bytes / g / bw, head_flop_ms=2 * head_params(shape) / g / f,
        kv_ms=kv_bytes_per_token(shape, precision) / kv_share / bw,
        attention_flop_ms=attention_flops(shape) / g / f,
        comm_ms=comm, fixed_ms=fixed, overlap=cal.overlap, comm_knee=comm_knee, comm_beyond_ms=comm_beyond,
        expert_ms=moe_layers(shape) * expert_params(shape) * precision.bytes / g / bw,
        experts=shape.experts, active_experts=shape.active_experts, sequence_ms=sequence, draft_token_ms=draft_token,
        serial_ms=serial, token_output_ms=token_output, kv_reread=charged.expansionKvShare if expanded else 0.0,
        window_ms=window_kv_bytes_per_token(shape, precision) / kv_share / bw, window=shape.window,
        window_flop_ms=window_attention_flops(shape) / g / f,
        state_ms=linear_state_bytes(shape) / min(g, max(1, shape.linear_v_heads)) / bw,
        gather_ms=gather, gather_knee=gather_knee, gather_beyond_ms=gather_beyond)


def pass_precision(settings: ServingSettings, role: str = "target") -> str:
    """The precision a pass reads its weights and cache in: a draft pass's is ``draftPrecision``
    when set (a draft kept at another precision than its target's, e.g. TensorRT-LLM's DeepSeek-R1
    MTP layers in BF16 beside an NVFP4 target), every other pass's the target's ``precision``.

    >>> s = DEFAULT_SETTINGS.with_(precision="fp4", draftPrecision="bf16")
    >>> pass_precision(s, "draft"), pass_precision(s, "verify"), pass_precision(s.with_(draftPrecision=""), "draft")
    ('bf16', 'fp4', 'fp4')
    """
    return (settings.draftPrecision or settings.precision) if role == "draft" else settings.precision


def _step(shape: Transformer, settings: ServingSettings, role: str = "target"):
    """The step constants of ``shape`` at ``settings``: the roofline's, or the per-operator
    model's for a target, draft or verify pass (``role``; the roofline prices them alike)."""
    if settings.stepModel in PER_OPERATOR:
        return _measured_step(shape, settings, role)
    gpu, precision = GPUS[settings.gpu], PRECISIONS[pass_precision(settings, role)]
    attention = attention_flops(shape) if settings.attentionFlops else 0
    # a mixture of experts under the roofline, as under the per-operator model, reads its always-used
    # weights plus the distinct routed experts of the pass's tokens (:func:`distinct_experts`, uniform
    # routing), and multiplies by the ones each token uses
    flops = 2 * used_params(shape)
    expert = moe_layers(shape) * expert_params(shape) * precision.bytes
    return _Step(weight_bytes(shape, precision) - shape.experts * expert, kv_bytes_per_token(shape, precision),
                 gpu.bandwidth * settings.gpus * settings.memEfficiency / 100 / 1000,
                 flops, attention,
                 peak_flops(gpu, precision) * settings.gpus * settings.flopEfficiency / 100 / 1000,
                 settings.overheadMs, expert, shape.experts, shape.active_experts,
                 window_kv_bytes_per_token(shape, precision), shape.window, linear_state_bytes(shape),
                 window_attention_flops(shape) if settings.attentionFlops else 0)


def _memory_ms(step: _Step, batch, context, new_tokens=1) -> float:
    """The roofline's bytes over its bandwidth: weights (for a mixture of experts, the distinct
    experts of the pass's ``B n`` tokens, :func:`_distinct`) and the batch's caches
    (:func:`_cache_bytes`)."""
    experts = step.expert_bytes * _distinct(step, batch * new_tokens) if step.experts else 0.0
    return (step.fixed_bytes + experts + batch * context * step.kv
            + _cache_bytes(step, batch, new_tokens, context)) / step.bw


def _cache_bytes(step: _Step, batch, new_tokens, context) -> float:
    """What a pass moves beyond the growing KV caches: the sliding-window layers' caches (at most
    ``window`` tokens) and the linear-attention states, read once and written once per token scored,
    ``B (1 + n)`` copies (:func:`_state_copies`)."""
    return (batch * min(context, step.window) * step.window_kv
            + _state_copies(batch, new_tokens) * step.state)


def _state_copies(batch, new_tokens):
    """Linear-attention state copies a pass moves: each sequence's state read once and one state
    written per token it scores, ``B (1 + n)``. A plain step reads and writes it once (2 a sequence);
    a verify pass over ``n`` tokens writes ``n``, one per draft position, so that a rejection can resume
    from the state after the last accepted token without recomputing: vLLM gives each speculating
    sequence ``num_spec + 1`` state slots (vllm/v1/attention/backends/gdn_attn.py,
    GDNAttentionMetadataBuilder.build: ``spec_state_indices_tensor = m.block_table_tensor[:, : self.num_spec
    + 1]``, with ``num_accepted_tokens`` choosing the slot the next step starts from; vllm-project/vllm at
    commit 007d500, read through the code index). Assumed the same on every engine.

    >>> _state_copies(8, 1), _state_copies(8, 5)
    (16, 48)
    """
    return batch * (1 + new_tokens)


def _compute_ms(step: _Step, batch, new_tokens, context) -> float:
    return batch * new_tokens * (step.flops_per_token + step.attention_per_token_context * context
                                 + step.window_attention * min(context, step.window)) / step.f


def _weights_read_ms(step: _MeasuredStep, tokens) -> float:
    """The layers' weights streamed for ``tokens`` tokens: the always-read part, plus the
    expected distinct routed experts (:func:`distinct_experts`) for a mixture of experts."""
    if not step.experts:
        return step.gemm_ms
    return step.gemm_ms + step.expert_ms * _distinct(step, tokens)


def _allreduce_ms(step: _MeasuredStep, tokens) -> float:
    """The all-reduces' bytes for ``tokens`` tokens in the pass: ``comm_ms`` a token up to ``comm_knee`` tokens (the
    small fit's largest measured message), ``comm_beyond_ms`` a token past it (the rate measured on large messages).

    >>> step = _MeasuredStep(*[0.0] * 6, comm_ms=2.0, fixed_ms=0.0, overlap=1.0, comm_knee=10, comm_beyond_ms=0.5)
    >>> _allreduce_ms(step, 4), _allreduce_ms(step, 10), _allreduce_ms(step, 14)
    (8.0, 20.0, 22.0)
    """
    return _kneed(step.comm_ms, step.comm_knee, step.comm_beyond_ms, tokens)


def _kneed(per_ms, knee, beyond_ms, x) -> float:
    """``per_ms`` a unit up to ``knee`` units, ``beyond_ms`` a unit past it (an all-reduce's or a gather's bytes)."""
    return per_ms * x if x <= knee else per_ms * knee + beyond_ms * (x - knee)


def _gather_ms(step: _MeasuredStep, batch) -> float:
    """An MTP head's logits gathered (:mod:`lab.serving_mtp`): ``gather_ms`` a sequence up to its knee."""
    return _kneed(step.gather_ms, step.gather_knee, step.gather_beyond_ms, batch)


def _time(step, batch, new_tokens, context) -> float:
    if isinstance(step, _MeasuredStep):
        tokens = batch * new_tokens
        return (step.fixed_ms + _allreduce_ms(step, tokens) + _gather_ms(step, batch) + _engine_ms(step, batch, new_tokens)
                + _combine(_weights_read_ms(step, tokens), step.gemm_flop_ms * tokens, step.overlap)
                + _combine(step.head_ms, step.head_flop_ms * tokens, step.overlap)
                + _attention_ms(step, batch, new_tokens, context))
    return (max(_memory_ms(step, batch, context, new_tokens), _compute_ms(step, batch, new_tokens, context))
            + step.fixed_ms)


def _attention_ms(step: _MeasuredStep, batch, new_tokens, context) -> float:
    """Attention under the per-operator model: the larger of its memory time (each KV cache read,
    :func:`_kv_reads`; a sliding-window layer's up to its window; the linear-attention states moved,
    :func:`_state_copies`) and its arithmetic (:func:`attention_flops` per token per token of context),
    never hidden under the GEMMs."""
    tokens = batch * new_tokens
    memory = (step.kv_ms * _kv_reads(step, batch, tokens) * context
              + _kv_reads(step, batch, tokens) * min(context, step.window) * step.window_ms
              + _state_copies(batch, new_tokens) * step.state_ms)
    compute = step.attention_flop_ms * tokens * context + step.window_flop_ms * tokens * min(context, step.window)
    return max(memory, compute)


def _kv_reads(step: _MeasuredStep, batch, tokens):
    """How many KV caches a pass reads: one a sequence, plus, when the engine verifies by batch
    expansion (each verified token a sequence of its own, :data:`lab.serving_calibration.ENGINES`),
    ``kv_reread`` of one for each token beyond a sequence's first: ``B + s (m - B)``."""
    return batch + step.kv_reread * (tokens - batch)


def _engine_ms(step: _MeasuredStep, batch, new_tokens) -> float:
    """The engine's work that grows with the batch outside the GPU's operators:
    ``B (t_seq + t_serial + (n - 1) t_reject)``: ``sequence_ms`` per sequence per pass, and in a
    verify pass ``serial_ms`` per sequence (the output processing a speculative cycle pays serially,
    0.103 ms measured on vLLM, on an engine that turns its output overlap off while speculating) and
    ``draft_token_ms`` per draft token (``n - 1`` a sequence). At batch 32 with three drafts a sequence a
    verify pass on vLLM V0 pays 3.88 ms of it, a plain step 0.04 ms:

    >>> s = DEFAULT_SETTINGS.with_(stepModel=MEASURED, target="llama-3-8b", gpus=1, engine="vllm-v0")
    >>> verify, plain = _step(TARGETS["llama-3-8b"], s, "verify"), _step(TARGETS["llama-3-8b"], s)
    >>> round(_engine_ms(verify, 32, 4), 2), round(_engine_ms(plain, 32, 1), 2)   # 32 (1.13 + 103.2 + 3 x 5.6) us
    (3.88, 0.04)
    """
    return batch * (step.sequence_ms + step.serial_ms + step.draft_token_ms * (new_tokens - 1))


def _terms(step, new_tokens, context):
    """The step as a function of the batch B: ``(terms, constant, slope)`` with
    ``t(B) = constant + slope B + sum over terms (p, q, r, o) of combine(p + q B, r B, o)``.
    Between the batches where some ``p + q B = r B`` every term is affine, so ``t`` is too."""
    if isinstance(step, _MeasuredStep):
        terms = [(step.gemm_ms, 0.0, step.gemm_flop_ms * new_tokens, step.overlap),
                 (step.head_ms, 0.0, step.head_flop_ms * new_tokens, step.overlap),
                 (0.0, step.kv_ms * context * _kv_reads(step, 1, new_tokens)
                  + _kv_reads(step, 1, new_tokens) * min(context, step.window) * step.window_ms
                  + _state_copies(1, new_tokens) * step.state_ms,
                  step.attention_flop_ms * new_tokens * context
                  + step.window_flop_ms * new_tokens * min(context, step.window), 1.0)]
        constant, slope = step.fixed_ms, (step.comm_ms * new_tokens + step.gather_ms
                                          + _engine_ms(step, 1, new_tokens))
        for per, knee, beyond, n in ((step.comm_ms, step.comm_knee, step.comm_beyond_ms, new_tokens),
                                     (step.gather_ms, step.gather_knee, step.gather_beyond_ms, 1)):
            if knee != float("inf"):
                # past its knee: c2 n B + d min(K, n B) with d = c1 - c2, and
                # d min(K, n B) = combine(d K, d n B, -1) - d K - d n B (combine(a, b, -1) = a + b + min(a, b))
                d = per - beyond
                terms.append((d * knee, 0.0, d * n, -1.0))
                constant -= d * knee
                slope -= 2 * d * n
        return terms, constant, slope
    compute = new_tokens * (step.flops_per_token + step.attention_per_token_context * context
                            + step.window_attention * min(context, step.window)) / step.f
    return [(step.fixed_bytes / step.bw, (context * step.kv + _cache_bytes(step, 1, new_tokens, context)) / step.bw,
             compute, 1.0)], step.fixed_ms, 0.0


def step_time_ms(shape: Transformer, settings: ServingSettings, batch, new_tokens, context,
                 role: str = "target") -> float:
    """``t(B, n, L)`` in milliseconds for ``shape`` at ``settings`` (module docstring), under the
    settings' step model (the roofline, or the per-operator model calibrated on measurements), for a
    ``"target"``, ``"draft"`` or ``"verify"`` pass (``role``; the roofline prices them alike).

    >>> s = DEFAULT_SETTINGS.with_(gpus=1, memEfficiency=100, flopEfficiency=100, overheadMs=0)
    >>> round(step_time_ms(TARGETS["llama-3-8b"], s, 1, 1, 0), 4)  # 16.06 GB at 3.35 TB/s
    4.7942
    """
    return _time(_step(shape, settings, role), batch, new_tokens, context)


def step_breakdown(shape: Transformer, settings: ServingSettings, batch, new_tokens, context, role: str = "target") -> dict:
    """The step's time by operator in ms (they add up to :func:`step_time_ms`, or for ``role``
    ``"verify"`` to :func:`verify_step_ms`): ``weights`` (the layers' GEMMs), ``lmHead``,
    ``attention``, ``allReduce`` (its bytes; its latency is in ``fixed``), ``engine`` (per-sequence
    engine work, :func:`_engine_ms`, with a verify pass's serial output processing and rejection
    sampler) and ``fixed``. Under the roofline, one ``roofline`` term and ``fixed``.

    >>> parts = step_breakdown(TARGETS["llama-3-8b"], DEFAULT_SETTINGS.with_(stepModel=MEASURED, gpus=1), 8, 1, 1024)
    >>> abs(sum(parts.values()) - step_time_ms(TARGETS["llama-3-8b"], DEFAULT_SETTINGS.with_(stepModel=MEASURED, gpus=1), 8, 1, 1024)) < 1e-9
    True
    """
    step = _step(shape, settings, role)
    tokens = batch * new_tokens
    if isinstance(step, _MeasuredStep):
        return {"weights": _combine(_weights_read_ms(step, tokens), step.gemm_flop_ms * tokens, step.overlap),
                "lmHead": _combine(step.head_ms, step.head_flop_ms * tokens, step.overlap),
                "attention": _attention_ms(step, batch, new_tokens, context),
                "allReduce": _allreduce_ms(step, tokens) + _gather_ms(step, batch),
                "engine": _engine_ms(step, batch, new_tokens),
                "fixed": step.fixed_ms}
    return {"roofline": _time(step, batch, new_tokens, context) - step.fixed_ms, "fixed": step.fixed_ms}


def step_regime(shape: Transformer, settings: ServingSettings, batch, new_tokens, context) -> str:
    """``"memory-bound"`` when streaming bytes takes at least as long as the arithmetic: the
    whole step under the roofline, the layers' weight GEMMs (most of the step) under the
    per-operator model. Both compare at the efficiency-adjusted ridge (:func:`effective_ridge`)."""
    step = _step(shape, settings)
    if isinstance(step, _MeasuredStep):
        memory, compute = _weights_read_ms(step, batch * new_tokens), step.gemm_flop_ms * batch * new_tokens
    else:
        memory, compute = _memory_ms(step, batch, context, new_tokens), _compute_ms(step, batch, new_tokens, context)
    return "memory-bound" if memory >= compute else "compute-bound"


def effective_ridge(settings: ServingSettings) -> float:
    """The ridge the regime is decided at: achievable FLOP/s over achievable bytes/s, that is
    ``F eta_flop / (BW eta_mem)`` (the sliders' efficiencies under the roofline, the GPU's
    calibrated ones under the per-operator model).

    >>> s = DEFAULT_SETTINGS
    >>> round(effective_ridge(s) / ridge_point(GPUS[s.gpu], PRECISIONS[s.precision]), 6)  # 60% / 80%
    0.75
    """
    gpu, precision = GPUS[settings.gpu], PRECISIONS[settings.precision]
    if settings.stepModel in PER_OPERATOR:
        cal = (serving_calibration.CALIBRATIONS[settings.gpu] if settings.stepModel == MEASURED
               else serving_calibration.IDEAL)
        return ridge_point(gpu, precision) * cal.flopEfficiency / cal.memEfficiency
    return ridge_point(gpu, precision) * settings.flopEfficiency / settings.memEfficiency


def verify_tokens(settings: ServingSettings) -> int:
    """Tokens the verify step scores per sequence: a chain's ``k + 1``, or a tree's node count
    (``treeTokens``, the root included) when one is set. A tree holds at least the chain of k drafts
    whose tokens are counted, so it never scores fewer than ``k + 1`` (a smaller one would price a
    cheaper verify than the chain it is said to beat); the CLI and the widget refuse such a setting
    with a message, and a scan over k past the tree's depth verifies the chain.

    >>> verify_tokens(DEFAULT_SETTINGS.with_(lookahead=4, treeTokens=2)), verify_tokens(DEFAULT_SETTINGS.with_(treeTokens=32))
    (5, 32)
    """
    return max(settings.treeTokens, settings.lookahead + 1)


def draft_shape(settings: ServingSettings) -> Transformer | None:
    """The draft model's shape (None for a model-free proposer, n-gram lookup or suffix decoding, which runs no
    model: :func:`lab.serving_suffix.model_free`)."""
    if model_free(settings.draft):
        return None
    if settings.draft == EAGLE:
        return eagle_head(TARGETS[settings.target])
    if settings.draft == EAGLE3:
        return eagle3_head(TARGETS[settings.target])
    return DRAFTS[settings.draft]


def ngram_cycle_ms(settings: ServingSettings, batch, context, lookahead: int | None = None) -> float:
    """n-gram lookup's proposal of ``lookahead`` tokens (default: the settings') for one cycle, on the host and
    serially: the engine's measured price (:func:`lab.serving_calibration.ngram_proposal_ms`: vLLM V1's KMP scan
    grows with batch x context, V0's proposer with the drafts it proposes) under the calibrated model; free under the
    roofline and in the ideal limit, which price no host work.

    >>> s = DEFAULT_SETTINGS.with_(stepModel=MEASURED, draft=NGRAM, lookahead=4)
    >>> round(ngram_cycle_ms(s, 64, 8192), 3), ngram_cycle_ms(s.with_(engine="vllm-v0"), 64, 8192)
    (0.576, 6.0)
    >>> ngram_cycle_ms(s.with_(stepModel=ROOFLINE), 64, 8192)
    0.0
    """
    if settings.stepModel != MEASURED:
        return 0.0
    k = settings.lookahead if lookahead is None else lookahead
    return ngram_proposal_ms(ENGINES[settings.engine], batch, context, k)


def model_free_cycle_ms(settings: ServingSettings, batch, context, lookahead: int | None = None) -> float:
    """A model-free proposer's proposal of ``lookahead`` tokens (default: the settings') for one cycle, on the host
    and serially: suffix decoding's measured price a request (:func:`lab.serving_suffix.suffix_proposal_ms`, whatever
    the context) under the calibrated model, n-gram lookup's otherwise (:func:`ngram_cycle_ms`); free under the
    roofline and in the ideal limit, which price no host work. An engine that does not run the draft is refused under
    every step model (:func:`lab.serving_suffix.draft_engine_problem`).

    >>> s = DEFAULT_SETTINGS.with_(stepModel=MEASURED, draft=SUFFIX, lookahead=4)
    >>> round(model_free_cycle_ms(s, 64, 8192), 3), round(model_free_cycle_ms(s, 64, 512), 3)   # no context term
    (1.887, 1.887)
    >>> model_free_cycle_ms(s.with_(stepModel=ROOFLINE), 64, 8192)
    0.0
    >>> model_free_cycle_ms(s.with_(draft=NGRAM), 64, 8192) == ngram_cycle_ms(s.with_(draft=NGRAM), 64, 8192)
    True
    """
    if settings.draft != SUFFIX:
        return ngram_cycle_ms(settings, batch, context, lookahead)
    if settings.stepModel == MEASURED:
        return suffix_proposal_ms(settings.engine, batch)  # which refuses an engine without the proposer
    problem = draft_engine_problem(settings.draft, settings.engine)
    if problem:
        raise LabValueError(problem)
    return 0.0


def draft_step_ms(settings: ServingSettings, batch, context) -> float:
    """One draft step: the draft model's ``t(B, 1, L)`` with its own per-pass fixed cost (a small
    draft is bound by it, not by its bytes); for vLLM V0's draft model on several GPUs, a host-prepared
    worker step (``hostDraftStepsAboveTp1``). A model-free proposer (n-gram lookup, suffix decoding) runs no model:
    its step is its cycle's proposal per proposed token (:func:`model_free_cycle_ms` / k), so that k steps make the
    cycle's proposal."""
    shape = draft_shape(settings)
    return _draft_time(settings, None if shape is None else _step(shape, settings, "draft"), batch, context)


def draft_extend_ms(settings: ServingSettings, batch, context) -> float:
    """The draft's cost per cycle beyond its ``k`` one-token steps (:data:`lab.serving_calibration.ENGINES`):
    SGLang's draft extend pass, the draft model over the verify step's tokens a sequence
    (:func:`verify_tokens`), LM head included for each, less the one-token step it replaces (its logits give the
    first draft token, so SGLang runs ``k - 1``; with an EAGLE-3 head, less the fc those steps do not run, which
    can leave it below zero at small batch); on vLLM V1, what its first draft step costs for
    running over those tokens (LM head over one a sequence) beyond a one-token step: nothing at small batch,
    where the step reads its weights whatever the tokens, more once it turns compute-bound. Zero on vLLM V0,
    for a model-free proposer (n-gram lookup, suffix decoding) and under the roofline (kept as it was).

    >>> s = DEFAULT_SETTINGS.with_(stepModel=MEASURED, target="llama-3-8b", draft=EAGLE, gpus=1, lookahead=3)
    >>> a100 = s.with_(engine="sglang", gpu="a100-80g")   # the extend pass captured there
    >>> whole = _time(_step(draft_shape(a100), a100, "draft"), 8, 4, 1024)   # the pass over k + 1 = 4 tokens
    >>> draft_extend_ms(s.with_(engine="vllm-v0"), 8, 1024), round(draft_extend_ms(a100, 8, 1024) + draft_step_ms(a100, 8, 1024) - whole, 12)
    (0.0, 0.0)
    >>> round(draft_extend_ms(s, 1, 1024), 2), draft_extend_ms(s, 256, 1024) > 0.1
    (0.0, True)
    """
    shape = draft_shape(settings)
    return _extend_time(settings, None if shape is None else _step(shape, settings, "draft"), batch,
                        verify_tokens(settings), context, settings.lookahead)


def _runs_extend(settings: ServingSettings, draft) -> bool:
    """Whether a cycle has the draft's extend pass: a draft model (not a model-free proposer), an engine that
    runs one, and a per-operator step model (the roofline is kept as it was)."""
    return draft is not None and settings.stepModel in PER_OPERATOR and ENGINES[settings.engine].draftExtend


def _first_step(settings: ServingSettings, draft, n: int):
    """The draft's first step of a cycle on an engine that runs it over every verified token (vLLM V1,
    ``firstDraftOverVerified`` in :data:`lab.serving_calibration.ENGINES`): the draft step's constants with
    its LM head's arithmetic spread over the ``n`` tokens, so that at ``n`` tokens a sequence the layers see
    ``B n`` tokens and the LM head ``B``. None where it does not apply (another engine, a model-free proposer,
    the roofline, or one verified token)."""
    if (draft is None or settings.stepModel not in PER_OPERATOR or n <= 1
            or not ENGINES[settings.engine].firstDraftOverVerified):
        return None
    return draft._replace(head_flop_ms=draft.head_flop_ms / n)


def _extend_time(settings: ServingSettings, draft, batch, n, context, k: int) -> float:
    """What a cycle's draft costs beyond its ``k`` one-token steps (``n`` verified tokens; a chain when ``n <= k + 1``): the extend pass where the engine runs one,
    or, where the first step runs over the ``n`` verified tokens (:func:`_first_step`), what that step costs
    beyond a one-token step; else 0. Plus, under the calibrated model, the host ops an engine leaves between
    its ``s`` draft steps (:func:`lab.serving_calibration.inter_step_ms`, ``s - 1`` gaps) and,
    with an EAGLE-3 head, the eager ops it runs outside the draft's graph (:func:`lab.serving_calibration.
    eagle3_eager_ms`, ``s`` steps), and with an EAGLE-1 or EAGLE-3 head what its proposal costs beyond its priced
    ops, fitted on the engine's measured proposal (:func:`lab.serving_specdecode.proposal_ms`: vLLM V1 0.10 runs either
    head's drafts outside CUDA graphs); less, with an EAGLE-3 head, its fc in the one-token steps that run without
    it (:func:`_eagle3_fc_ms`): on vLLM V1 the ``s - 1`` after the first, on SGLang its one-token steps (its extend
    pass runs the fc). ``s = min(k, n - 1)``: a chain verifies ``n = k + 1`` tokens after ``k`` draft steps; a tree
    verifies more tokens with no more steps. SGLang runs ``k - 1`` one-token steps, its extend pass giving the first draft token
    (``firstDraftFromExtend``): the step it does not run comes off its extend pass's share; under the calibrated
    model its V1 worker's eager ops a cycle join it (:func:`lab.serving_calibration.cycle_eager_ms`, ``k`` steps)."""
    if _runs_extend(settings, draft):
        # SGLang (firstDraftFromExtend): the extend pass's logits give the first draft token, so it runs k - 1
        # one-token steps; the cycle's sum keeps k, so the one it does not run comes off here
        replaced = _time(draft, batch, 1, context) if ENGINES[settings.engine].firstDraftFromExtend else 0.0
        extended = extend_tokens(n, k)
        steps = extended - 1 - (replaced > 0)   # the one-token steps, each without EAGLE-3's fc (the extend pass runs it)
        fc = steps * _eagle3_fc_ms(settings, draft, batch, context) if settings.draft == EAGLE3 else 0.0
        ops = cycle_eager_ms(ENGINES[settings.engine], k) if settings.stepModel == MEASURED else 0.0
        return _time(draft, batch, extended, context) + _eager_extend_ms(settings, n, k) - fc - replaced + ops
    first = _first_step(settings, draft, n)
    extra = 0.0 if first is None else _time(first, batch, n, context) - _time(draft, batch, 1, context)
    steps = _draft_steps(n, k)
    if draft is not None and settings.stepModel == MEASURED:  # host ops between the draft steps
        extra += inter_step_ms(ENGINES[settings.engine], steps - 1)
        if settings.draft == EAGLE3:
            extra += eagle3_eager_ms(ENGINES[settings.engine], steps)
        extra += proposal_ms(ENGINES[settings.engine], settings.draft, steps)
    if first is not None and settings.draft == EAGLE3:
        extra -= (steps - 1) * _eagle3_fc_ms(settings, draft, batch, context)
    return extra


def _draft_steps(n: int, k: int) -> int:
    """A cycle's draft steps, ``min(k, n - 1)``: the ``k`` of a chain (``n = k + 1`` verified tokens) and of a tree
    (``n > k + 1``: more tokens, no more steps), ``n - 1`` for a tree verified at a k past its depth. What the host ops
    between steps, the eager ops and EAGLE-3's fc are counted in, not the verified tokens.

    >>> _draft_steps(5, 4), _draft_steps(64, 4), _draft_steps(3, 6)
    (4, 4, 2)
    """
    return min(k, n - 1)


def _eagle3_fc_ms(settings: ServingSettings, draft, batch, context) -> float:
    """What an EAGLE-3 head's fc (``3h -> h`` over the target's three auxiliary hidden states, ``3 h^2`` weights)
    adds to one one-token draft step: ``t(step) - t(step without the fc's share s of its layers' weights and
    multiply-adds)``, ``s = 3 h^2 / gemm_params(head)``. vLLM V1 runs the fc once a cycle, not once a step:
    ``EagleProposer.propose`` calls ``self.model.combine_hidden_states(target_hidden_states)`` on the verified tokens
    before the first draft step, and the draft model's ``forward`` (llama_eagle3.py, ``LlamaModel``) has no fc, so
    the ``k - 1`` later steps feed it the draft's own ``h``-wide hidden state (vllm 0.9.2, 0.10.0 and 0.10.1, the
    released wheels' sources; a 2026 copy of llama_eagle3.py read through the code index keeps the fc out of
    ``forward`` too). The first step keeps it, over every verified token (:func:`_first_step`). SGLang's
    python/sglang/srt/models/llama_eagle3.py runs it in ``LlamaModel.forward`` only ``if hidden_states.shape[-1] !=
    embeds.shape[-1]``, that is on the target's 3h-wide states in the extend pass, not in the draft decode steps that
    take the draft's own (sgl-project/sglang at 03d5a777, read through the code index). At batch one on an H100 the
    fc is about 100 MB of BF16 weights, some 0.03 ms a step:

    >>> s = DEFAULT_SETTINGS.with_(stepModel=MEASURED, target="llama-3-8b", draft=EAGLE3, gpus=1, engine="vllm-v1-0.10")
    >>> shape = draft_shape(s)
    >>> 0.03 < _eagle3_fc_ms(s, _step(shape, s, "draft"), 1, 600) < 0.06
    True
    """
    return _time(draft, batch, 1, context) - _time(_eagle3_fc_free(settings, draft), batch, 1, context)


def _eagle3_fc_free(settings: ServingSettings, draft):
    """The EAGLE-3 draft step without its fc: under the per-operator model its layers' weights and
    multiply-adds less the share ``s``; under the roofline (one sum of bytes and of FLOPs a token) less
    the fc's own ``3 h^2`` weights and ``2 x 3 h^2`` FLOPs a token.

    >>> s = DEFAULT_SETTINGS.with_(stepModel="roofline", target="llama-3-8b", draft=EAGLE3, gpus=1)
    >>> step = _step(draft_shape(s), s, "draft")
    >>> (step.flops_per_token - _eagle3_fc_free(s, step).flops_per_token) / 4096 ** 2
    6.0
    """
    fc = 3 * TARGETS[settings.target].hidden ** 2
    if isinstance(draft, _Step):
        weight_bytes = fc * PRECISIONS[pass_precision(settings, "draft")].bytes
        return draft._replace(fixed_bytes=draft.fixed_bytes - weight_bytes, flops_per_token=draft.flops_per_token - 2 * fc)
    share = fc / gemm_params(draft_shape(settings))
    return draft._replace(gemm_ms=draft.gemm_ms * (1 - share), gemm_flop_ms=draft.gemm_flop_ms * (1 - share))


def _eager_extend_ms(settings: ServingSettings, n: int, k: int) -> float:
    """What an extend pass run outside a CUDA graph pays beyond a captured draft pass: a host-driven
    pass's fixed cost ``passMs`` instead of ``draftPassMs`` (an assumption: the eager pass's launch cost
    was not found measured). Zero for engines that capture it and in the ideal limit; today's SGLang
    runs it eagerly on Hopper for a chain or an MLA target (:func:`lab.serving_sglang.eager_extend_here`).
    A chain is the cycle being priced, ``n <= k + 1`` (lookahead ``k``, ``n`` verified tokens), not the
    settings' lookahead: a scan over k past a tree's depth verifies the chain (:func:`verify_tokens`)."""
    engine = ENGINES[settings.engine]
    chain, mla = n <= k + 1, TARGETS[settings.target].kv_lora > 0
    if settings.stepModel != MEASURED or not (
            engine.eagerExtend or eager_extend_here(engine.eagerExtendGpus, settings.gpu, chain, mla)):
        return 0.0
    cal = serving_calibration.CALIBRATIONS[settings.gpu]
    return cal.passMs - cal.draftPassMs


def verify_step_ms(settings: ServingSettings, batch, context) -> float:
    """The verify step: the target over :func:`verify_tokens` tokens per sequence, plus, under
    the per-operator model, the cycle's speculation bookkeeping (``specCycleMs``), its rejection
    sampler and the output processing a speculative cycle pays serially (:func:`_engine_ms`). The
    GPU pass alone is :func:`step_time_ms` at ``n`` tokens: compare that with a measured verify pass."""
    return _time(_step(TARGETS[settings.target], settings, "verify"), batch, verify_tokens(settings), context)


def emitted_output_ms(settings: ServingSettings, batch, tokens) -> float:
    """The output processing of the tokens a cycle emits per sequence beyond its first, paid serially
    after the verify pass: ``B (T - 1) t_token`` with ``T`` the tokens per cycle and ``t_token`` the
    measured incremental detokenization per token (:data:`lab.serving_calibration.TOKEN_OUTPUT_US`), on an
    engine that does it in its step loop (vLLM V0; V1 and SGLang detokenize in another process).
    A cycle term, not a step's: it grows with the acceptance. Zero under the roofline and the ideal limit.

    >>> s = DEFAULT_SETTINGS.with_(stepModel=MEASURED, target="llama-3-8b", gpus=1, engine="vllm-v0")
    >>> round(emitted_output_ms(s, 32, 2.5), 4), emitted_output_ms(s.with_(engine="vllm-v1"), 32, 2.5)   # 32 x 1.5 x 21.2 us
    (1.0176, 0.0)
    """
    return _emitted_output_ms(_step(TARGETS[settings.target], settings, "verify"), batch, tokens)


def _emitted_output_ms(verify_step, batch, tokens) -> float:
    return batch * (tokens - 1) * verify_step.token_output_ms if isinstance(verify_step, _MeasuredStep) else 0.0


def tokens_per_cycle(alpha: float, lookahead: int, curve=None) -> float:
    """Expected tokens one verify step commits per sequence.

    Without ``curve``: ``1 + a + ... + a**k`` (:func:`lab.ledger.expected_tokens_per_call`).
    With ``curve`` (conditional acceptance rates by draft position, ``curve[i]`` = chance that
    draft ``i + 1`` survives given the ones before did): ``1 + c1 + c1 c2 + ...`` over the first
    ``k`` positions, the last rate repeating if the curve is shorter than ``k``.

    >>> tokens_per_cycle(0.5, 2), tokens_per_cycle(0.0, 2, curve=[1.0, 0.5])
    (1.75, 2.5)
    """
    if curve is None:
        return expected_tokens_per_call(alpha, lookahead)
    accepted, _ = expected_accepted_from_curve(list(curve) or [alpha], lookahead)
    return 1 + accepted


def _models(settings: ServingSettings):
    return [shape for shape in (TARGETS[settings.target], draft_shape(settings)) if shape is not None]


def _cycle_steps(settings: ServingSettings):
    """(plain step, verify step, draft step or None, verify tokens): the constants, built once."""
    shape, target = draft_shape(settings), TARGETS[settings.target]
    return (_step(target, settings), _step(target, settings, "verify"),
            None if shape is None else _step(shape, settings, "draft"), verify_tokens(settings))


def _cycle_ms(settings: ServingSettings, k: int, draft, verify, batch, n: int, context, tokens: float) -> float:
    """One speculative cycle from its step constants: ``k`` draft steps of the ``draft`` step (for a model-free
    proposer, its one proposal of ``k`` tokens, :func:`model_free_cycle_ms`), the draft's extend pass where the engine runs one (:func:`draft_extend_ms`), the verify step over
    ``n`` tokens a sequence and the output processing of the ``tokens`` it emits a sequence
    (:func:`emitted_output_ms`). Every search and grid composes its cycle here (the sweeps over every batch with
    :mod:`lab.serving_sweep`, held to these floats), so each gives the very float :func:`speedup_at` does."""
    return _cycle_steps_ms(settings, k, draft, verify, batch, n, context) + _emitted_output_ms(verify, batch, tokens)


def _cycle_steps_ms(settings: ServingSettings, k: int, draft, verify, batch, n: int, context) -> float:
    """:func:`_cycle_ms` before its output processing, the part the acceptance does not move: the proposal, the
    draft's extend pass and the verify step, summed in :func:`_cycle_ms`'s order, so that adding
    :func:`_emitted_output_ms` gives its very float (a grid over batch and context keeps these per cell,
    :func:`lab.serving.speedup_grid`)."""
    return (_proposal_time(settings, draft, k, batch, context) + _extend_time(settings, draft, batch, n, context, k)
            + _time(verify, batch, n, context))


def _draft_time(settings: ServingSettings, draft, batch, context) -> float:
    if draft is None:
        return model_free_cycle_ms(settings, batch, context) / settings.lookahead
    return _time(draft, batch, 1, context)


def _proposal_time(settings: ServingSettings, draft, k: int, batch, context) -> float:
    """A cycle's ``k`` draft steps, or a model-free proposer's one proposal of ``k`` tokens
    (:func:`model_free_cycle_ms`)."""
    if draft is None:
        return model_free_cycle_ms(settings, batch, context, k)
    return k * _time(draft, batch, 1, context)


def _affine(settings: ServingSettings) -> bool:
    """Whether every step is piecewise affine in the batch: all but a mixture-of-experts target,
    whose weight reads grow with the distinct experts (a curve) under every step model."""
    return not TARGETS[settings.target].experts
