"""Part two, instrument two: speculative decoding under load, on real hardware presets.

Two step-time models price one decode step for a batch of ``B`` sequences, each with ``L``
tokens of context and ``n`` new tokens (``n = 1`` for plain decoding, ``n = k + 1`` when the
target verifies ``k`` drafts, a tree's node count when it verifies a tree).

**The per-operator model** (``stepModel="measured"``, the page's default), calibrated per GPU on
measured step times (:mod:`lab.serving_calibration`; end-to-end speedups, which judge it, are
kept apart in :mod:`lab.serving_validation`). With ``m = B n`` tokens in the pass, ``g`` GPUs
in tensor parallel, weights of ``b`` bytes, achievable bandwidth ``bw = BW eta_mem`` and
FLOP rate ``f = F eta_flop`` per GPU, one step is the sum of its operators:

    weights   = combine(W b / (g bw), 2 W m / (g f))        the layers' GEMMs, W their weights
    lm head   = combine(V h b / (g bw), 2 V h m / (g f))    V vocab, h hidden
    attention = max(B L kv / (min(g, kvh) bw), 4 layers heads d m L / (g f))   KV read or its FLOPs
    all-reduce= 2 layers (t_ar + 2 (g - 1) / g  m h 2 / link)    two per layer, when g > 1
    engine    = B t_seq + B (n - 1) t_reject + B t_serial   bookkeeping; rejection sampler; output
    fixed     = t_pass + layers t_layer   (a draft pass pays t_draft, a verify pass adds t_spec)
    (a draft pass pays no engine term: it runs inside the engine step; t_reject and t_serial, the
    output processing a speculative cycle pays serially where plain decoding overlaps it with the
    GPU, only in a verify pass: :func:`_engine_ms`; the cycle adds B (T - 1) t_token for the tokens
    it emits beyond each sequence's first, :func:`emitted_output_ms`)
    combine(M, C) = max(M, C) + (1 - overlap) min(M, C)

Engines differ in the cycle (``engine``, :data:`lab.serving_calibration.ENGINES`, read in their
code): vLLM V0 verifies by batch expansion, so its verify pass reads ``B n`` KV caches, not ``B``
(attention ``max(B n L kv / ..., ...)``), and adds its bookkeeping ``t_expand`` to the fixed cost;
SGLang runs a draft extend pass each cycle, one more draft pass over ``n`` tokens a sequence
(:func:`draft_extend_ms`); vLLM V1, the default, does neither.

For a mixture of experts (Mixtral-8x7B, Qwen3-30B-A3B, DeepSeek-V3) the layers' weights read
are the always-used ones (attention, routers, shared experts, dense layers) plus, per MoE layer,
the expected distinct experts of ``m`` tokens under uniform, independent routing,
``E (1 - (1 - k/E)**m)`` (:func:`distinct_experts`), while the FLOPs count the ``k`` experts each
token uses; so verifying ``k + 1`` tokens costs more than one token even at batch one. Latent
attention (DeepSeek-V3, Kimi-K2) caches ``kv_lora + rope_dim`` values a layer, replicated on every GPU,
and is computed absorbed (:func:`attention_flops`), so its arithmetic grows with the tokens verified on
one read of the cache. A sliding-window layer (gpt-oss) keeps only its window's cache
(:func:`window_kv_bytes_per_token`); a linear-attention layer (Qwen3-Next's Gated DeltaNet) keeps a
fixed-size state instead (:func:`linear_state_bytes`), of which a speculating engine keeps one copy per
verified position and a pass moves ``B (1 + n)`` copies (:func:`_state_copies`): that is what a rejected
draft costs there. Memory holds it all (:func:`kv_bytes_per_sequence`, :func:`max_batch_in_memory`).
Attention is never hidden under the GEMMs (one roofline over the whole step let the GEMMs'
compute hide the KV read); a GEMM's arithmetic overlaps its weight reads only in part
(``overlap``), so a pass with more tokens costs more well before the ridge, as measured; the
fixed costs make small drafts overhead-bound. For example, Llama-3-8B on one calibrated H100
at batch 64 and 1024 tokens of context (the operators add up to the step):

>>> s = DEFAULT_SETTINGS.with_(stepModel=MEASURED, target="llama-3-8b", gpus=1)
>>> plain = step_time_ms(TARGETS["llama-3-8b"], s, 64, 1, 1024)
>>> verify = step_time_ms(TARGETS["llama-3-8b"], s, 64, 4, 1024)
>>> round(plain, 2), round(verify / plain, 2)   # 4 tokens a sequence cost 1.28 plain steps
(9.89, 1.28)

``stepModel="operators"`` is the same sum with every extra term zeroed (datasheet peaks, full
overlap, no fixed costs): then at batch one every operator of a verify step is memory-bound and
it costs exactly a plain step.

**The roofline of the whole step** (``stepModel="roofline"``, the library default the trees
instrument prices its verify passes with, kept as it was). A model with ``N`` parameters of
``b`` bytes and ``kv`` bytes of KV cache per token per sequence on ``gpus`` GPUs of bandwidth
``BW`` and dense peak ``F`` (ideal tensor parallelism: they add up):

    t(B, n, L) = max( (N b + B L kv) / (BW eta_mem),  2 N B n / (F eta_flop) ) + t_fixed

with the sliders' efficiencies and fixed cost; attention FLOPs, ``4 layers heads head_dim L`` per
new token, can be added to the compute side (``attentionFlops``). For a mixture of experts ``N b``
is the same read as the per-operator model's: the always-used weights plus the distinct experts of
the pass's ``B n`` tokens under uniform routing (:func:`distinct_experts`), so the roofline too
charges a verify pass for the experts its extra tokens route to; ``N`` in the FLOPs counts the
experts a token uses. One treatment of experts in every step model.

A speculative cycle is ``k`` draft steps of the draft model (each one new token per sequence;
n-gram lookup runs on the CPU) and one verify step. It commits, per sequence, the expected
tokens per call ``1 + a + ... + a**k`` of :func:`lab.ledger.expected_tokens_per_call`, or,
given a measured per-position curve of conditional acceptance rates ``c_1, c_2, ...``,
``1 + c_1 + c_1 c_2 + ...`` (:func:`tokens_per_cycle`). Per sequence:

    plain ms per token  = t_target(B, 1, L)
    spec ms per token   = (k t_draft(B, 1, L) + t_extend(B, n, L) + t_verify(B, n, L) + t_emitted) / tokens per cycle
    speedup             = plain ms per token / spec ms per token
    throughput          = B x tokens / time, for the whole batch

Batch one reduces to Leviathan et al.: with the extra terms zeroed (``"operators"``, or the
roofline at ``eta = 1``, ``t_fixed = 0`` and no attention FLOPs) the verify step costs exactly a
plain step whenever it is memory-bound (:func:`verify_is_memory_bound`); then the speedup is
``(1 - a**(k+1)) / ((1 - a)(k c + 1))`` with ``c = t_draft / t_target``
(``lab.checks.serving`` checks it over the seed audit's grid). Every search over the batch
(crossover, load) stops at the largest batch whose weights and KV caches fit in memory.

Every preset below carries where its numbers were read. Standard library only.
"""

from functools import lru_cache
import math
from typing import NamedTuple

from .ledger import expected_accepted_from_curve, expected_tokens_per_call
from .serving_calibration import DEFAULT_ENGINE, ENGINES
from .stats import percentile, percentile_of_counts

__all__ = [
    "Gpu", "Transformer", "Precision", "GPUS", "TARGETS", "DRAFTS", "PRECISIONS", "ServingSettings",
    "DEFAULT_SETTINGS", "parameter_count", "kv_bytes_per_token", "weight_bytes", "peak_flops", "ridge_point",
    "step_time_ms", "step_regime", "draft_step_ms", "tokens_per_cycle", "serving", "Serving", "speedup_at",
    "crossover_batch", "crossover_batch_scan", "best_lookahead", "speedup_grid", "HEATMAP_BATCHES",
    "HEATMAP_CONTEXTS", "batch_sweep", "steady_batch", "latency_curve", "curves_cross", "VLLM_REFERENCE",
    "tail", "percentile", "memory_needed_bytes", "memory_note", "kv_bytes_per_sequence", "linear_state_bytes",
    "window_kv_bytes_per_token", "window_attention_flops", "linear_attention_params", "softmax_layers", "state_slots",
    "memory_available_bytes", "max_batch_in_memory",
    "verify_is_memory_bound", "MAX_BATCH", "eagle_head", "eagle3_head", "EAGLE3", "draft_shape", "ROOFLINE", "MEASURED", "OPERATORS",
    "STEP_MODELS", "effective_ridge", "verify_tokens", "verify_step_ms", "emitted_output_ms", "draft_extend_ms", "step_breakdown", "distinct_experts",
    "attention_params", "attention_flops", "gemm_params", "head_params", "routed_params", "moe_layers",
    "expert_params", "ENGINES", "DEFAULT_ENGINE",
]

TERA = 1e12
ACTIVATION_BYTES = 2  # BF16 activations in the tensor-parallel all-reduces
ROOFLINE, MEASURED, OPERATORS = "roofline", "measured", "operators"
STEP_MODELS = {MEASURED: "calibrated, per operator", ROOFLINE: "roofline, whole step",  # short: a phone shows them whole
               OPERATORS: "no overheads, per operator"}  # not "ideal": for MoE it is below the calibrated one
PER_OPERATOR = (MEASURED, OPERATORS)
MAX_BATCH = 4096  # the largest batch the crossover search and the load model consider


# --- presets ------------------------------------------------------------------------------------

class Gpu(NamedTuple):
    """One GPU: memory bandwidth (bytes/s), dense tensor-core peaks (FLOP/s, dense, not the
    2:4-sparse figures datasheets print beside them; ``fp8`` or ``fp4`` is None where the GPU has no
    tensor cores for it), memory capacity (bytes), where they were read, and the interconnect:
    bytes per second one GPU sends to its peers (one direction; 0 where no number was read)."""

    name: str
    label: str
    bandwidth: float
    bf16: float
    fp8: float | None
    memory: float
    source: str
    fp4: float | None = None
    link: float = 0.0


GPUS = {
    "a100-80g": Gpu("a100-80g", "A100 80GB SXM", 2.039e12, 312 * TERA, None, 80e9,
                    "read on glennklockwood.com/garden/processors/A100, which cites NVIDIA's A100 datasheet (80G SXM4: "
                    "2.039 TB/s; BF16 matrix 312 TFLOP/s dense, 624 sparse; no FP8), and thundercompute.com's A100 "
                    "table (SXM 80GB: 2,039 GB/s)"),
    "a100-40g": Gpu("a100-40g", "A100 40GB SXM", 1.555e12, 312 * TERA, None, 40e9,
                    "read on glennklockwood.com/garden/processors/A100, which cites NVIDIA's A100 datasheet (40GB SXM4: "
                    "1,555 GB/s; the same GA100 compute as the 80GB part, BF16 312 TFLOP/s dense)"),
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
    # 2026 GPUs. Blackwell's NVLink 5 moves 1.8 TB/s per GPU, both directions together: 900 GB/s one way.
    "b200": Gpu("b200", "B200 (HGX)", 8e12, 2250 * TERA, 4500 * TERA, 192e9,
                "read on glennklockwood.com/garden/processors/B200 (192 GB HBM3e, 8 TB/s, '2x 900 GB/s NVLink 5'; "
                "the HGX variant at 1,000 W: BF16 2,250, FP8 4,500, FP4 9,000 TFLOP/s dense, twice that sparse) and "
                "hmc-tech.com's B200 table (Tensor BF16 2.25, FP8 4.5, FP4 9 PFLOPS dense; 18 FP4 sparse)",
                fp4=9000 * TERA, link=900e9),
    "b300": Gpu("b300", "B300 (HGX)", 8e12, 2250 * TERA, 4500 * TERA, 288e9,
                "read on glennklockwood.com/garden/processors/B300 (288 GB HBM3e in 12-high stacks, 8 TB/s, '2x 900 "
                "GB/s NVLink 5'; HGX B300: BF16 2,250, FP8 4,500 TFLOP/s dense as B200; FP4 13,125 dense, 'Dense FP4 "
                "performance is up (13 PF on B300 vs. 9.0 PF on B200)')",
                fp4=13125 * TERA, link=900e9),
    "mi300x": Gpu("mi300x", "MI300X", 5.3e12, 1307.4 * TERA, 2614.9 * TERA, 192e9,
                  "read in alpharomercoma/MI300X-vs-H200 METHODOLOGY.md (commit 6077fdc, its table of AMD's datasheet: "
                  "'BF16 dense 1307.4 TFLOP/s', 'FP8 dense 2614.9 TFLOP/s', 5.3 TB/s, 192 GB); the same FP8 peak as "
                  "304 CUs x 4,096 FP8 FLOP per clock per CU (ISSCC 2026 report, world-today-news.com) x 2.1 GHz; no "
                  "FP4 tensor cores. Infinity Fabric: '896 GB/s' aggregate (gpu.blog's MI300X table), 7 links of "
                  "128 GB/s both ways (emergentmind.com), so 448 GB/s one way",
                  link=448e9),
    "mi355x": Gpu("mi355x", "MI355X", 8e12, 2516.6 * TERA, 5033.2 * TERA, 288e9,
                  "288 GB HBM3E at 8 TB/s (aiwiki.ai, theregister.com 2025-06-12); dense peaks derived, not read: 256 "
                  "CUs (ROCm's GPU specifications table, rocm.docs.amd.com reference/gpu-specs) x 8,192 FP8 FLOP per "
                  "clock per CU (AMD at ISSCC 2026, reported by world-today-news.com: 'five petaflops' of FP8) x "
                  "2.4 GHz (MI355X's peak clock, wccftech.com's Hot Chips 2025 report) = 5,033 TFLOP/s FP8, half "
                  "that in BF16, twice in MXFP4 ('up to 10 PFLOPS FP4', humeconsulting.co). Infinity Fabric: about "
                  "153 GB/s a link both ways (humeconsulting.co); 7 links assumed as on MI300X: 537.6 GB/s one way",
                  fp4=10066.3 * TERA, link=537.6e9),
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
    # mixture of experts (0: dense): routed experts per MoE layer, experts each token uses, one
    # expert's intermediate width, the shared experts' total width, and the leading dense layers
    experts: int = 0
    active_experts: int = 0
    expert_intermediate: int = 0
    shared_intermediate: int = 0
    dense_layers: int = 0
    # multi-head latent attention (0: grouped-query attention): query and KV compression ranks,
    # the rotary part of a head, the value head width (head_dim is then the non-rotary query/key part)
    q_lora: int = 0
    kv_lora: int = 0
    rope_dim: int = 0
    v_head_dim: int = 0
    # hybrid attention (0: every layer is softmax attention): layers of linear attention (Gated
    # DeltaNet) keep a fixed-size state per sequence instead of a KV cache, of linear_v_heads states of
    # linear_head_dim x linear_head_dim plus a causal convolution's last linear_conv - 1 inputs
    linear_layers: int = 0
    linear_k_heads: int = 0
    linear_v_heads: int = 0
    linear_head_dim: int = 0
    linear_conv: int = 0
    q_gate: bool = False          # the softmax layers' query projection also yields an output gate (Qwen3-Next)
    # sliding-window attention: layers whose KV cache stops at ``window`` tokens (gpt-oss: every other one)
    window_layers: int = 0
    window: int = 0
    mtp: int = 0                  # multi-token-prediction layers shipped with the checkpoint (num_nextn_predict_layers)


def attention_params(shape: Transformer) -> int:
    """One layer's attention weights: q, k, v, o projections (plus q, k, v biases for Qwen2);
    for multi-head latent attention (DeepSeek-V3) the query down- and up-projections, the joint
    KV down-projection with the rotary key, the KV up-projection, the output and the two norms."""
    h = shape.hidden
    if shape.kv_lora:
        qk = shape.head_dim + shape.rope_dim
        return (h * shape.q_lora + shape.q_lora * shape.heads * qk + h * (shape.kv_lora + shape.rope_dim)
                + shape.kv_lora * shape.heads * (shape.head_dim + shape.v_head_dim)
                + shape.heads * shape.v_head_dim * h + shape.q_lora + shape.kv_lora)
    q_width, kv_width = shape.heads * shape.head_dim, shape.kv_heads * shape.head_dim
    attention = h * q_width * (2 if shape.q_gate else 1) + 2 * h * kv_width + q_width * h
    if shape.qkv_bias:
        attention += q_width + 2 * kv_width
    return attention


def linear_attention_params(shape: Transformer) -> int:
    """One Gated DeltaNet layer's weights (Qwen3-Next's ``linear_attention``): the projection to
    queries, keys, values and the output gate ``z`` (``h x (2 kh d + 2 vh d)``), to the per-head
    ``b`` and ``a`` (``h x 2 vh``), the causal convolution over q, k and v (``(2 kh + vh) d x conv``),
    the per-head ``A`` and ``dt`` bias, the gated norm (``d``) and the output projection
    (``vh d x h``). 0 for a model without linear attention.

    >>> linear_attention_params(TARGETS["qwen3-next-80b-a3b"])
    33718464
    """
    if not shape.linear_layers:
        return 0
    h, d, kh, vh = shape.hidden, shape.linear_head_dim, shape.linear_k_heads, shape.linear_v_heads
    return (h * (2 * kh * d + 2 * vh * d) + h * 2 * vh + (2 * kh + vh) * d * shape.linear_conv + 2 * vh + d
            + vh * d * h)


def softmax_layers(shape: Transformer) -> int:
    """Layers of softmax attention (with a KV cache): all but the linear-attention ones."""
    return shape.layers - shape.linear_layers


def moe_layers(shape: Transformer) -> int:
    """Layers whose MLP is a mixture of experts (0 for a dense model)."""
    return shape.layers - shape.dense_layers if shape.experts else 0


def expert_params(shape: Transformer) -> int:
    """One routed expert's weights in one layer: a gated MLP of the expert's width."""
    return 3 * shape.hidden * shape.expert_intermediate


def parameter_count(shape: Transformer, active: bool = False) -> int:
    """Parameters of a decoder from its shape: embeddings (once more for an untied LM head), per
    layer the attention (:func:`attention_params`) and two RMSNorm vectors, the gated MLPs of the
    dense layers, and for each mixture-of-experts layer its routed experts (all of them, or with
    ``active`` the ``active_experts`` one token uses), its router and its shared experts; and the
    final norm.

    >>> parameter_count(TARGETS["llama-2-7b"])  # the model card's 6.74B
    6738415616
    >>> round(parameter_count(TARGETS["mixtral-8x7b"]) / 1e9, 1), round(parameter_count(TARGETS["mixtral-8x7b"], True) / 1e9, 1)
    (46.7, 12.9)
    """
    h = shape.hidden
    dense = shape.layers - moe_layers(shape)
    routed = shape.active_experts if active else shape.experts
    moe = routed * expert_params(shape) + h * shape.experts + 3 * h * shape.shared_intermediate
    embeddings = shape.vocab * h * (1 if shape.tied else 2)
    return (embeddings + softmax_layers(shape) * attention_params(shape)
            + shape.linear_layers * linear_attention_params(shape) + shape.layers * 2 * h
            + dense * 3 * h * shape.intermediate + moe_layers(shape) * moe + h)


def distinct_experts(shape: Transformer, tokens: float) -> float:
    """Expected distinct routed experts one MoE layer reads for ``tokens`` tokens in a pass, under
    uniform, independent routing (each token picks ``k`` of ``E`` experts, each expert equally
    likely, tokens independent): ``E (1 - (1 - k/E)**tokens)``. Real routers are skewed and
    correlated across neighbouring tokens, so this is an upper bound on the experts read at small
    batches. 0 for a dense model.

    >>> round(distinct_experts(TARGETS["qwen3-30b-a3b"], 1), 6), round(distinct_experts(TARGETS["qwen3-30b-a3b"], 5), 2)
    (8.0, 35.3)
    """
    if not shape.experts:
        return 0.0
    return _distinct(shape, tokens)


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
    Transformer("mixtral-8x7b", "Mixtral-8x7B (MoE)", 32, 4096, 32, 8, 128, 14336, 32000, False, False,
                "Mixtral-8x7B's config.json as quoted in a profiler's notes and vLLM's Mixtral MoE benchmark "
                "(hidden 4096, expert intermediate 14336, num_local_experts 8, num_experts_per_tok 2; read "
                "through the code index) with the model card's 32 layers, 32 heads, 8 KV heads, vocab 32000, "
                "untied: 46.7B parameters, 12.9B used per token",
                experts=8, active_experts=2, expert_intermediate=14336),
    Transformer("qwen3-30b-a3b", "Qwen3-30B-A3B (MoE)", 48, 2048, 32, 4, 128, 6144, 151936, False, False,
                "a copy of Qwen3-30B-A3B's config.json in NVIDIA Megatron-Bridge's Qwen3 MoE bridge test (read "
                "through the code index): 48 layers, hidden 2048, 32 heads, 4 KV heads, head_dim 128, "
                "num_experts 128, num_experts_per_tok 8, moe_intermediate_size 768, vocab 151936, untied",
                experts=128, active_experts=8, expert_intermediate=768),
    Transformer("deepseek-v3", "DeepSeek-V3 (MoE, MLA)", 61, 7168, 128, 128, 128, 18432, 129280, False, False,
                "a copy of DeepSeek-V3's config.json in a MoE test fixture (read through the code index): 61 "
                "layers, hidden 7168, 128 heads, q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128, "
                "qk_rope_head_dim 64, v_head_dim 128, first_k_dense_replace 3 (intermediate 18432), "
                "n_routed_experts 256, num_experts_per_tok 8, n_shared_experts 1 (moe_intermediate_size 2048), "
                "vocab 129280, untied; 671B parameters without its MTP module",
                experts=256, active_experts=8, expert_intermediate=2048, shared_intermediate=2048, dense_layers=3,
                q_lora=1536, kv_lora=512, rope_dim=64, v_head_dim=128, mtp=1),
    # 2026 targets, each from a copy of its config.json read through the code index (the repositories'
    # names are not shown there; the keys and values are quoted as read)
    Transformer("qwen3-235b-a22b", "Qwen3-235B-A22B (MoE)", 94, 4096, 64, 4, 128, 12288, 151936, False, False,
                "copies of Qwen/Qwen3-235B-A22B's config.json (a serving dashboard's demo config and a model "
                "registry, read through the code index): num_hidden_layers 94, hidden_size 4096, num_attention_heads "
                "64, num_key_value_heads 4, head_dim 128, num_experts 128, num_experts_per_tok 8, "
                "moe_intermediate_size 1536, vocab_size 151936, tie_word_embeddings false; no MTP layer (an EAGLE-3 "
                "draft config for it, one layer, eagle_aux_hidden_state_layer_ids [1, 46, 90], was read in a "
                "speculators test); 235B parameters, 22B used per token (model card)",
                experts=128, active_experts=8, expert_intermediate=1536),
    Transformer("qwen3-next-80b-a3b", "Qwen3-Next-80B-A3B (hybrid)", 48, 2048, 16, 2, 256, 5120, 151936, False,
                False,
                "Qwen3-Next's config.json as quoted (with its link to Qwen/Qwen3-Coder-Next's config.json, the same "
                "architecture) in a parameter-count test read through the code index: hidden_size 2048, "
                "num_hidden_layers 48, vocab_size 151936, head_dim 256, num_attention_heads 16, num_key_value_heads "
                "2, num_experts 512, num_experts_per_tok 10, moe_intermediate_size 512, "
                "shared_expert_intermediate_size 512, linear_num_key_heads 16, linear_key_head_dim 128, "
                "linear_num_value_heads 32, linear_value_head_dim 128, linear_conv_kernel_dim 4, "
                "full_attention_interval 4 (36 Gated DeltaNet layers, 12 gated softmax-attention layers), untied; "
                "the test's total 79,674,391,296 parameters; one MTP layer (mtp_num_hidden_layers 1 in the Qwen3.5 "
                "configs of the same design)",
                experts=512, active_experts=10, expert_intermediate=512, shared_intermediate=512,
                linear_layers=36, linear_k_heads=16, linear_v_heads=32, linear_head_dim=128, linear_conv=4,
                q_gate=True, mtp=1),
    Transformer("gpt-oss-120b", "gpt-oss-120b (MoE)", 36, 2880, 64, 8, 64, 2880, 201088, False, True,
                "a copy of openai/gpt-oss-120b's config.json in a converter's test (read through the code index): "
                "hidden_size 2880, intermediate_size 2880, num_hidden_layers 36, num_local_experts 128, "
                "num_experts_per_tok 4, num_attention_heads 64, num_key_value_heads 8, head_dim 64, sliding_window "
                "128 with layer_types alternating sliding_attention and full_attention, attention_bias true; "
                "vocab_size 201088 (a parameter-count test of the same config); 116.8B parameters (model card); no "
                "MTP layer",
                experts=128, active_experts=4, expert_intermediate=2880, window_layers=18, window=128),
    Transformer("kimi-k2", "Kimi-K2 (MoE, MLA)", 61, 7168, 64, 64, 128, 18432, 163840, False, False,
                "copies of Kimi-K2's config.json (model_type kimi_k2; Kimi-K2-Thinking's and Kimi-K2.5's text "
                "config in a parameter-count test, read through the code index): num_hidden_layers 61, hidden_size "
                "7168, num_attention_heads 64, q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128, "
                "qk_rope_head_dim 64, v_head_dim 128, first_k_dense_replace 1 (intermediate_size 18432), "
                "n_routed_experts 384, num_experts_per_tok 8, n_shared_experts 1 (moe_intermediate_size 2048), "
                "vocab_size 163840, untied, num_nextn_predict_layers 0 (no MTP layer: its draft is an EAGLE head); "
                "DeepSeek-V3's architecture with 384 experts and half the heads",
                experts=384, active_experts=8, expert_intermediate=2048, shared_intermediate=2048, dense_layers=1,
                q_lora=1536, kv_lora=512, rope_dim=64, v_head_dim=128),
    Transformer("glm-4.5", "GLM-4.5 (MoE)", 92, 5120, 96, 8, 128, 12288, 151552, False, True,
                "GLM-4.5's shape (glm4_moe) from a copy of its config.json in a parameter-count test (read through "
                "the code index, GLM-4.7's, the same architecture) and a model table listing GLM-4.5 (92 layers, 96 "
                "heads, 8 KV heads, head_dim 128, hidden 5120): intermediate_size 12288 in the first_k_dense_replace "
                "3 dense layers, n_routed_experts 160, num_experts_per_tok 8, n_shared_experts 1, "
                "moe_intermediate_size 1536, vocab_size 151552, untied, attention_bias true, num_nextn_predict_layers "
                "1; 355B parameters, 32B active (model card)",
                experts=160, active_experts=8, expert_intermediate=1536, shared_intermediate=1536, dense_layers=3,
                mtp=1),
)}

NGRAM = "ngram"
EAGLE = "eagle-head"
EAGLE3 = "eagle3-head"  # priced for the validation rows that ran one; not a preset of the widgets (DRAFT_NAMES)

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
                EAGLE: "EAGLE or MTP head (1 layer)", NGRAM: "n-gram lookup (no model)",
                EAGLE3: "EAGLE-3 head (1 layer, 32k draft vocabulary)"}


def eagle_head(target: Transformer) -> Transformer:
    """An EAGLE-style draft for ``target``: one decoder layer of the target's width, a fusion
    layer from 2h to h, and the target's own LM head, which it reads every step (EAGLE reuses
    the target's embedding and LM head). Derived from the target's shape, not read from a
    checkpoint: the count is ours.

    >>> eagle_head(TARGETS["llama-3-8b"]).layers
    1
    """
    h = target.hidden
    # a mixture-of-experts target's head (DeepSeek-V3's MTP module is one such layer) is priced as
    # the dense layer one token reads: its active and shared experts
    width = (target.active_experts * target.expert_intermediate + target.shared_intermediate
             if target.experts else target.intermediate)
    params = attention_params(target) + 3 * h * width + 2 * h + 2 * h * h + target.vocab * h
    return target._replace(name=EAGLE, label=DRAFT_LABELS[EAGLE], layers=1, params=params, tied=True,
                           intermediate=width, experts=0, active_experts=0, expert_intermediate=0,
                           shared_intermediate=0, dense_layers=0, linear_layers=0, window_layers=0, window=0, mtp=0,
                           source=f"derived from {target.label}: one decoder layer, a 2h->h fusion layer and the "
                                  "target's LM head (EAGLE's design; an MTP module has the same parts); for a "
                                  "mixture of experts the layer one token reads; not a published checkpoint count; "
                                  + (f"it stands for the checkpoint's own MTP layer ({target.mtp} shipped)"
                                     if target.mtp else "no MTP layer ships with this checkpoint: it stands for an "
                                                        "EAGLE head"))


# EAGLE-3's draft vocabulary for Llama-3.1-8B: "draft_vocab_size": 32000 in the EAGLE-3 checkpoints' config.json
# (yuhuili/EAGLE3-LLaMA3.1-Instruct-8B's layout, as copied in the speculators library's Eagle3 tests and other
# repositories read through the code index; vocab_size 128256 beside it).
EAGLE3_DRAFT_VOCAB = 32000


def eagle3_head(target: Transformer, draft_vocab: int = EAGLE3_DRAFT_VOCAB) -> Transformer:
    """An EAGLE-3 draft for ``target``, priced as vLLM runs it (vllm/model_executor/models/llama_eagle3.py, from
    vLLM pull request 16937, 2025-04, read through the code index): one decoder layer whose q, k and v projections
    take ``2h`` inputs (the token's embedding concatenated with the hidden state: ``QKVParallelLinear(2 *
    self.hidden_size, ...)``), an ``fc`` from the target's three auxiliary hidden states, ``3h -> h``, and its own
    LM head over ``draft_vocab`` tokens (``ParallelLMHead(self.config.draft_vocab_size, ...)``; the draft's ids
    are mapped to the target's by an added offset, ``draft_id_to_target_id``). Against :func:`eagle_head`
    (EAGLE-1: a ``2h -> h`` fusion and the target's full LM head) it reads more layer weights and a quarter of
    the LM head. Derived from the shape, not read from the checkpoint's tensors.

    >>> e1, e3 = eagle_head(TARGETS["llama-3-8b"]), eagle3_head(TARGETS["llama-3-8b"])
    >>> round(e1.params / 1e6), round(e3.params / 1e6), e3.vocab
    (777, 425, 32000)
    """
    h = target.hidden
    one = eagle_head(target)
    q_width, kv_width = target.heads * target.head_dim, target.kv_heads * target.head_dim
    wider_qkv = h * (q_width + 2 * kv_width)          # the q, k, v projections' second h of inputs
    params = one.params - 2 * h * h - target.vocab * h + wider_qkv + 3 * h * h + h + draft_vocab * h
    return one._replace(name=EAGLE3, label=DRAFT_LABELS[EAGLE3], params=params, vocab=draft_vocab, tied=True,
                        source=f"derived from {target.label} as vLLM's llama_eagle3.py builds it: one decoder layer "
                               "with 2h -> q, k, v projections, a 3h->h fc, a hidden-state norm and its own LM head "
                               f"over a {draft_vocab}-token draft vocabulary; not a published checkpoint count")


class Precision(NamedTuple):
    """How the weights and the KV cache are stored: ``bytes`` per weight (scale factors included),
    ``kv_bytes`` per KV-cache value, and why."""

    name: str
    label: str
    bytes: float
    kv_bytes: int = 0
    source: str = ""


# FP4: 4-bit E2M1 values in blocks of 16, each block with one FP8 (E4M3) scale (NVIDIA's NVFP4), so
# 0.5 + 1/16 = 0.5625 bytes a weight (the per-tensor FP32 scale is negligible); AMD's MXFP4 (blocks
# of 32, an 8-bit E8M0 scale) is 0.53125, 6% less, priced here as NVFP4. The KV cache stays in FP8
# (one byte a value): engines serving FP4 checkpoints keep an FP8 cache (vLLM's kv_cache_dtype
# "fp8"); an FP4 KV cache is not assumed.
FP4_BYTES = 0.5 + 1 / 16
PRECISIONS = {"bf16": Precision("bf16", "BF16", 2, 2, "two bytes a weight and a KV value"),
              "fp8": Precision("fp8", "FP8", 1, 1, "one byte a weight (block scales left out) and a KV value"),
              "fp4": Precision("fp4", "FP4 (FP8 KV cache)", FP4_BYTES, 1,
                               "NVFP4: 4-bit values with one FP8 scale per 16, 0.5625 bytes a weight; FP8 KV cache")}


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
    stepModel: str = ROOFLINE     # "measured": the per-operator model calibrated on measured step times
    treeTokens: int = 0           # tokens the verify step scores per sequence; 0: a chain's k + 1
    engine: str = DEFAULT_ENGINE  # how the engine runs a cycle (lab.serving_calibration.ENGINES)

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
    total = parameter_count(shape, True) if active and shape.experts else shape.params
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


def _measured_step(shape: Transformer, settings: ServingSettings, role: str = "target") -> _MeasuredStep:
    """The per-operator step of ``shape`` split over ``settings.gpus`` GPUs with the GPU's
    calibration (:data:`lab.serving_calibration.CALIBRATIONS`). ``role`` sets the fixed cost:
    a ``"target"`` pass pays the engine step's ``passMs``; a ``"draft"`` pass runs inside that
    step and pays only its own ``draftPassMs`` (launches and sampling, not the scheduler); a
    ``"verify"`` pass pays ``passMs`` plus ``specCycleMs``, the speculation bookkeeping of one
    cycle (proposals copied to the CPU, the verify batch prepared, rejection sampling)."""
    from .serving_calibration import CALIBRATIONS, IDEAL

    cal = CALIBRATIONS[settings.gpu] if settings.stepModel == MEASURED else IDEAL
    return _measured_constants(shape, settings.gpu, settings.precision, settings.gpus, cal, role,
                               ENGINES[settings.engine])


@lru_cache(maxsize=1024)
def _measured_constants(shape: Transformer, gpu_name: str, precision_name: str, g: int, cal, role: str,
                        engine=None) -> _MeasuredStep:
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
    expanded = charged is not None and role == "verify" and charged.expandedVerify  # a verify pass by batch expansion
    if charged is not None and role != "draft":
        fixed += charged.stepHostMs
    if charged is not None and role == "verify":
        fixed += charged.specCycleMs + (charged.expansionMs if expanded else 0.0)
    fixed += shape.layers * cal.layerMs
    # per-sequence engine work runs once per engine step (plain or verify), not per draft pass;
    # the rejection sampler only in a verify pass
    sequence = 0.0 if role == "draft" else cal.sequenceUs / 1000
    draft_token = cal.rejectUs / 1000 if role == "verify" else 0.0
    # output processing: plain decoding overlaps it with the next pass; an engine that turns that overlap off
    # while speculating pays it after its verify pass (lab.serving_calibration.SERIAL_OUTPUT_US, TOKEN_OUTPUT_US)
    serial_paid = role == "verify" and charged is not None
    serial = cal.serialOutputUs / 1000 if serial_paid and charged.serialOutput else 0.0
    token_output = cal.tokenOutputUs / 1000 if serial_paid and charged.tokenOutput else 0.0
    comm = 0.0
    if g > 1:  # two all-reduces per layer (after attention, after the MLP), ring: 2 (g - 1) / g of the bytes
        fixed += 2 * shape.layers * cal.allreduceUs / 1000
        comm = 2 * shape.layers * 2 * (g - 1) / g * shape.hidden * ACTIVATION_BYTES / (cal.linkBandwidth / 1000)
    always = gemm_params(shape) - routed_params(shape)   # dense layers, attention, routers, shared experts
    return _MeasuredStep(
        gemm_ms=always * precision.bytes / g / bw, gemm_flop_ms=2 * gemm_params(shape, active=True) / g / f,
        head_ms=head_params(shape) * precision.bytes / g / bw, head_flop_ms=2 * head_params(shape) / g / f,
        kv_ms=kv_bytes_per_token(shape, precision) / kv_share / bw,
        attention_flop_ms=attention_flops(shape) / g / f,
        comm_ms=comm, fixed_ms=fixed, overlap=cal.overlap,
        expert_ms=moe_layers(shape) * expert_params(shape) * precision.bytes / g / bw,
        experts=shape.experts, active_experts=shape.active_experts, sequence_ms=sequence, draft_token_ms=draft_token,
        serial_ms=serial, token_output_ms=token_output, kv_reread=charged.expansionKvShare if expanded else 0.0,
        window_ms=window_kv_bytes_per_token(shape, precision) / kv_share / bw, window=shape.window,
        window_flop_ms=window_attention_flops(shape) / g / f,
        state_ms=linear_state_bytes(shape) / min(g, max(1, shape.linear_v_heads)) / bw)


def _step(shape: Transformer, settings: ServingSettings, role: str = "target"):
    """The step constants of ``shape`` at ``settings``: the roofline's, or the per-operator
    model's for a target, draft or verify pass (``role``; the roofline prices them alike)."""
    if settings.stepModel in PER_OPERATOR:
        return _measured_step(shape, settings, role)
    gpu, precision = GPUS[settings.gpu], PRECISIONS[settings.precision]
    attention = attention_flops(shape) if settings.attentionFlops else 0
    # a mixture of experts under the roofline, as under the per-operator model, reads its always-used
    # weights plus the distinct routed experts of the pass's tokens (:func:`distinct_experts`, uniform
    # routing), and multiplies by the ones each token uses
    flops = 2 * (parameter_count(shape, True) if shape.experts else shape.params)
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


def _distinct(step, tokens) -> float:
    """:func:`distinct_experts` from a step's constants, the one formula every step model uses:
    ``E (1 - (1 - k/E)**tokens)``."""
    return step.experts * (1 - (1 - step.active_experts / step.experts) ** tokens)


def _compute_ms(step: _Step, batch, new_tokens, context) -> float:
    return batch * new_tokens * (step.flops_per_token + step.attention_per_token_context * context
                                 + step.window_attention * min(context, step.window)) / step.f


def _weights_read_ms(step: _MeasuredStep, tokens) -> float:
    """The layers' weights streamed for ``tokens`` tokens: the always-read part, plus the
    expected distinct routed experts (:func:`distinct_experts`) for a mixture of experts."""
    if not step.experts:
        return step.gemm_ms
    return step.gemm_ms + step.expert_ms * _distinct(step, tokens)


def _time(step, batch, new_tokens, context) -> float:
    if isinstance(step, _MeasuredStep):
        tokens = batch * new_tokens
        return (step.fixed_ms + step.comm_ms * tokens + _engine_ms(step, batch, new_tokens)
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
        return terms, step.fixed_ms, step.comm_ms * new_tokens + _engine_ms(step, 1, new_tokens)
    compute = new_tokens * (step.flops_per_token + step.attention_per_token_context * context
                            + step.window_attention * min(context, step.window)) / step.f
    return [(step.fixed_bytes / step.bw, (context * step.kv + _cache_bytes(step, 1, new_tokens, context)) / step.bw,
             compute, 1.0)], step.fixed_ms, 0.0


def step_time_ms(shape: Transformer, settings: ServingSettings, batch, new_tokens, context) -> float:
    """``t(B, n, L)`` in milliseconds for ``shape`` at ``settings`` (module docstring), under the
    settings' step model (the roofline, or the per-operator model calibrated on measurements).

    >>> s = DEFAULT_SETTINGS.with_(gpus=1, memEfficiency=100, flopEfficiency=100, overheadMs=0)
    >>> round(step_time_ms(TARGETS["llama-3-8b"], s, 1, 1, 0), 4)  # 16.06 GB at 3.35 TB/s
    4.7942
    """
    return _time(_step(shape, settings), batch, new_tokens, context)


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
                "allReduce": step.comm_ms * tokens, "engine": _engine_ms(step, batch, new_tokens),
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
        from .serving_calibration import CALIBRATIONS, IDEAL
        cal = CALIBRATIONS[settings.gpu] if settings.stepModel == MEASURED else IDEAL
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
    """The draft model's shape (None for n-gram lookup, which runs no model)."""
    if settings.draft == NGRAM:
        return None
    if settings.draft == EAGLE:
        return eagle_head(TARGETS[settings.target])
    if settings.draft == EAGLE3:
        return eagle3_head(TARGETS[settings.target])
    return DRAFTS[settings.draft]


# n-gram lookup runs on the CPU. No measurement of its cost was found; assumed: 20 us per
# proposed position plus 2 us per sequence (a hash lookup per sequence). Under the roofline it is free.
NGRAM_FIXED_MS, NGRAM_MS_PER_SEQUENCE = 0.02, 0.002


def draft_step_ms(settings: ServingSettings, batch, context) -> float:
    """One draft step: the draft model's ``t(B, 1, L)`` with its own per-pass fixed cost (a small
    draft is bound by it, not by its bytes). n-gram lookup runs no model: free under the
    roofline, ``NGRAM_FIXED_MS + NGRAM_MS_PER_SEQUENCE B`` on the CPU under the per-operator model."""
    shape = draft_shape(settings)
    return _draft_time(settings, None if shape is None else _step(shape, settings, "draft"), batch, context)


def draft_extend_ms(settings: ServingSettings, batch, context) -> float:
    """The draft's cost per cycle beyond its ``k`` one-token steps (:data:`lab.serving_calibration.ENGINES`):
    SGLang's draft extend pass, the draft model over the verify step's tokens a sequence
    (:func:`verify_tokens`), LM head included for each; on vLLM V1, what its first draft step costs for
    running over those tokens (LM head over one a sequence) beyond a one-token step: nothing at small batch,
    where the step reads its weights whatever the tokens, more once it turns compute-bound. Zero on vLLM V0,
    for n-gram lookup and under the roofline (kept as it was).

    >>> s = DEFAULT_SETTINGS.with_(stepModel=MEASURED, target="llama-3-8b", draft=EAGLE, gpus=1, lookahead=3)
    >>> draft_extend_ms(s.with_(engine="vllm-v0"), 8, 1024), draft_extend_ms(s.with_(engine="sglang"), 8, 1024) > draft_step_ms(s, 8, 1024)
    (0.0, True)
    >>> round(draft_extend_ms(s, 1, 1024), 2), draft_extend_ms(s, 256, 1024) > 0.1
    (0.0, True)
    """
    shape = draft_shape(settings)
    return _extend_time(settings, None if shape is None else _step(shape, settings, "draft"), batch,
                        verify_tokens(settings), context)


def _runs_extend(settings: ServingSettings, draft) -> bool:
    """Whether a cycle has the draft's extend pass: a draft model (not n-gram lookup), an engine that
    runs one, and a per-operator step model (the roofline is kept as it was)."""
    return draft is not None and settings.stepModel in PER_OPERATOR and ENGINES[settings.engine].draftExtend


def _first_step(settings: ServingSettings, draft, n: int):
    """The draft's first step of a cycle on an engine that runs it over every verified token (vLLM V1,
    ``firstDraftOverVerified`` in :data:`lab.serving_calibration.ENGINES`): the draft step's constants with
    its LM head's arithmetic spread over the ``n`` tokens, so that at ``n`` tokens a sequence the layers see
    ``B n`` tokens and the LM head ``B``. None where it does not apply (another engine, n-gram lookup, the
    roofline, or one verified token)."""
    if (draft is None or settings.stepModel not in PER_OPERATOR or n <= 1
            or not ENGINES[settings.engine].firstDraftOverVerified):
        return None
    return draft._replace(head_flop_ms=draft.head_flop_ms / n)


def _extend_time(settings: ServingSettings, draft, batch, n, context) -> float:
    """What a cycle's draft costs beyond its ``k`` one-token steps: the extend pass where the engine runs one,
    or, where the first step runs over the ``n`` verified tokens (:func:`_first_step`), what that step costs
    beyond a one-token step; else 0. Plus, under the calibrated model, the host ops an engine leaves between
    its chained draft steps (:func:`lab.serving_calibration.inter_step_ms`, ``n - 2`` gaps for a chain)."""
    if _runs_extend(settings, draft):
        return _time(draft, batch, n, context) + _eager_extend_ms(settings)
    first = _first_step(settings, draft, n)
    extra = 0.0 if first is None else _time(first, batch, n, context) - _time(draft, batch, 1, context)
    if draft is not None and settings.stepModel == MEASURED:  # host ops between the k chained steps (n = k + 1)
        from .serving_calibration import inter_step_ms
        extra += inter_step_ms(ENGINES[settings.engine], n - 2)
    return extra


def _eager_extend_ms(settings: ServingSettings) -> float:
    """What an extend pass run outside a CUDA graph pays beyond a captured draft pass: a host-driven
    pass's fixed cost ``passMs`` instead of ``draftPassMs`` (an assumption: the eager pass's launch cost
    was not found measured). Zero for engines that capture it and in the ideal limit."""
    if settings.stepModel != MEASURED or not ENGINES[settings.engine].eagerExtend:
        return 0.0
    from .serving_calibration import CALIBRATIONS
    cal = CALIBRATIONS[settings.gpu]
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
    effectiveRidgeFlopsPerByte: float = 0.0
    maxBatchInMemory: float = 0.0
    emittedOutputMs: float = 0.0
    draftExtendMs: float = 0.0


def serving(settings: ServingSettings, curve=None) -> Serving:
    """Every number of the readout at the settings' own batch and context."""
    target, precision = TARGETS[settings.target], PRECISIONS[settings.precision]
    batch, context, k = settings.batch, settings.context, settings.lookahead
    target_step, verify_step, draft_step, n = _cycle_steps(settings)
    tokens = tokens_per_cycle(settings.acceptance / 100, k, curve)
    cycle = _cycle_ms(settings, k, draft_step, verify_step, batch, n, context, tokens)  # the one composition
    plain, verify = _time(target_step, batch, 1, context), _time(verify_step, batch, n, context)
    draft, extend = _draft_time(settings, draft_step, batch, context), _extend_time(settings, draft_step, batch, n, context)
    emitted = _emitted_output_ms(verify_step, batch, tokens)
    spec = cycle / tokens
    return Serving(
        ridgeFlopsPerByte=ridge_point(GPUS[settings.gpu], precision),
        targetWeightBytes=weight_bytes(target, precision),
        kvBytesPerToken=kv_bytes_per_token(target, precision),
        plainStepMs=plain, draftStepMs=draft, verifyStepMs=verify, tokensPerCall=tokens,
        plainMsPerToken=plain, specMsPerToken=spec, speedup=plain / spec,
        plainTokensPerSecond=batch * 1000 / plain, specTokensPerSecond=batch * tokens * 1000 / cycle,
        plainRegime=step_regime(target, settings, batch, 1, context),
        verifyRegime=step_regime(target, settings, batch, verify_tokens(settings), context),
        effectiveRidgeFlopsPerByte=effective_ridge(settings),
        maxBatchInMemory=max_batch_in_memory(settings), emittedOutputMs=emitted, draftExtendMs=extend,
    )


def speedup_at(settings: ServingSettings, batch, context, curve=None) -> float:
    """Speedup of speculative over plain decoding at ``batch`` and ``context``."""
    target, verify, draft, n = _cycle_steps(settings)
    tokens = tokens_per_cycle(settings.acceptance / 100, settings.lookahead, curve)
    return _time(target, batch, 1, context) * tokens / _cycle_ms(
        settings, settings.lookahead, draft, verify, batch, n, context, tokens)


def verify_is_memory_bound(settings: ServingSettings, batch, context) -> bool:
    """Whether the verify step's bytes take at least as long as its FLOPs (then, at B = 1 with no
    fixed cost, it costs exactly a plain step)."""
    return step_regime(TARGETS[settings.target], settings, batch, verify_tokens(settings), context) == "memory-bound"


def _models(settings: ServingSettings):
    return [shape for shape in (TARGETS[settings.target], draft_shape(settings)) if shape is not None]


def memory_needed_bytes(settings: ServingSettings, batch=None, context=None) -> float:
    """Weights of target and draft plus both KV caches at ``batch`` and ``context`` (default: the
    settings' own). The EAGLE head shares the target's LM head, counted here twice: a small
    overstatement, on the safe side."""
    precision = PRECISIONS[settings.precision]
    batch = settings.batch if batch is None else batch
    context = settings.context if context is None else context
    return sum(weight_bytes(shape, precision) + batch * kv_bytes_per_sequence(shape, precision, context,
                                                                             state_slots(settings))
               for shape in _models(settings))


def state_slots(settings: ServingSettings) -> int:
    """Copies of each sequence's linear-attention state the engine keeps: one per token a verify pass
    scores (:func:`verify_tokens`), as vLLM allocates ``num_spec + 1`` for a speculating sequence
    (:func:`_state_copies`). The memory limit is the speculating deployment's, for plain decoding too.

    >>> state_slots(DEFAULT_SETTINGS.with_(lookahead=3))
    4
    """
    return verify_tokens(settings)


def memory_available_bytes(settings: ServingSettings) -> float:
    """GPU memory of all the GPUs that share the model: the datasheet capacity under the
    roofline; under the per-operator model the share an engine gives to weights and KV cache
    (``memoryUtilization``, vLLM's default 0.9)."""
    if settings.stepModel == MEASURED:
        from .serving_calibration import CALIBRATIONS
        return GPUS[settings.gpu].memory * settings.gpus * CALIBRATIONS[settings.gpu].memoryUtilization
    return GPUS[settings.gpu].memory * settings.gpus


def max_batch_in_memory(settings: ServingSettings, context=None) -> float:
    """The largest batch whose weights and KV caches fit in GPU memory at ``context``, capped at
    :data:`MAX_BATCH` (0 when the weights alone do not fit)."""
    precision = PRECISIONS[settings.precision]
    context = settings.context if context is None else context
    weights = sum(weight_bytes(shape, precision) for shape in _models(settings))
    per_sequence = sum(kv_bytes_per_sequence(shape, precision, context, state_slots(settings))
                       for shape in _models(settings))
    spare = memory_available_bytes(settings) - weights
    if spare <= 0:
        return 0.0
    return min(float(MAX_BATCH), spare / per_sequence) if per_sequence else float(MAX_BATCH)


def memory_note(settings: ServingSettings) -> str:
    """One line for a reader whose setting does not fit: what the weights and KV caches need, what
    the GPUs hold, how many sequences would fit, and that the times are what it would cost if it did
    (the CLIs print it; their JSON keeps the fit as a boolean).

    >>> print(memory_note(DEFAULT_SETTINGS.with_(target="deepseek-v3", gpu="h200", gpus=8, stepModel=MEASURED)))
    note: does not fit: weights and KV caches need 1,344 GB in BF16, more than 8 x H200 SXM hold (1,015 GB); not even the weights fit, so no engine runs this setting and the times are what it would cost if it fitted
    """
    need, have = memory_needed_bytes(settings), memory_available_bytes(settings)
    room = max_batch_in_memory(settings)
    gpu, precision = GPUS[settings.gpu], PRECISIONS[settings.precision]
    fits = (f"at most {room:.0f} of its {settings.batch} sequences fit at context {settings.context:,}" if room >= 1
            else "not even the weights fit")
    return (f"note: does not fit: weights and KV caches need {need / 1e9:,.0f} GB in {precision.label}, more than "
            f"{settings.gpus} x {gpu.label} hold ({have / 1e9:,.0f} GB); {fits}, so no engine runs this setting and "
            "the times are what it would cost if it fitted")


# --- crossover, best lookahead, grids -----------------------------------------------------------

def _search_limit(settings: ServingSettings, context, max_batch) -> int:
    """The largest batch a search visits: ``max_batch`` (default :data:`MAX_BATCH`) and no more
    sequences than fit in GPU memory at ``context`` (at least 1)."""
    limit = MAX_BATCH if max_batch is None else max_batch
    return max(1, min(limit, int(max_batch_in_memory(settings, context))))


def crossover_batch_scan(settings: ServingSettings, context=None, curve=None, max_batch: int | None = None):
    """The smallest ``B`` in ``1..limit`` with speedup <= 1, by brute force (the oracle); the
    limit is the largest batch that fits in memory (:func:`_search_limit`)."""
    context = settings.context if context is None else context
    for batch in range(1, _search_limit(settings, context, max_batch) + 1):
        if speedup_at(settings, batch, context, curve) <= 1:
            return batch
    return None


def _cycle_steps(settings: ServingSettings):
    """(plain step, verify step, draft step or None, verify tokens): the constants, built once."""
    shape, target = draft_shape(settings), TARGETS[settings.target]
    return (_step(target, settings), _step(target, settings, "verify"),
            None if shape is None else _step(shape, settings, "draft"), verify_tokens(settings))


def _cycle_ms(settings: ServingSettings, k: int, draft, verify, batch, n: int, context, tokens: float) -> float:
    """One speculative cycle from its step constants: ``k`` draft steps of the ``draft`` step, the
    draft's extend pass where the engine runs one (:func:`draft_extend_ms`), the verify step over
    ``n`` tokens a sequence and the output processing of the ``tokens`` it emits a sequence
    (:func:`emitted_output_ms`). Every search and grid composes its cycle here, so each gives the
    very float :func:`speedup_at` does."""
    return (k * _draft_time(settings, draft, batch, context) + _extend_time(settings, draft, batch, n, context)
            + _time(verify, batch, n, context) + _emitted_output_ms(verify, batch, tokens))


def _draft_time(settings: ServingSettings, draft, batch, context) -> float:
    if draft is None:
        return NGRAM_FIXED_MS + NGRAM_MS_PER_SEQUENCE * batch if settings.stepModel == MEASURED else 0.0
    return _time(draft, batch, 1, context)


def _affine(settings: ServingSettings) -> bool:
    """Whether every step is piecewise affine in the batch: all but a mixture-of-experts target,
    whose weight reads grow with the distinct experts (a curve) under every step model."""
    return not TARGETS[settings.target].experts


def _ridge_batches(settings: ServingSettings, context) -> list[float]:
    """Batches where one operator of the three steps switches from memory- to compute-bound:
    between them every step time is affine in B, so speculation's margin is affine too."""
    target, verify, draft, n = _cycle_steps(settings)
    pieces = [(target, 1), (verify, n)] + ([] if draft is None else [(draft, 1)])
    if _runs_extend(settings, draft):
        pieces.append((draft, n))
    first = _first_step(settings, draft, n)
    if first is not None:
        pieces.append((first, n))
    breaks = []
    for step, new_tokens in pieces:
        for p, q, r, _ in _terms(step, new_tokens, context)[0]:
            if r > q and p > 0:
                breaks.append(p / (r - q))
    return breaks


def crossover_batch(settings: ServingSettings, context=None, curve=None, max_batch: int | None = None):
    """The smallest ``B`` in ``1..limit`` at which the speedup drops to 1 or below, or None; the
    limit is the largest batch that fits in GPU memory (no larger batch can run).

    Between the ridge batches (:func:`_ridge_batches`) the margin
    ``k t_draft + t_verify - tokens t_plain`` is affine in B, so on each piece the batches with
    speedup <= 1 form one end of it: check the ends, bisect inside. About 50 evaluations instead
    of thousands; ``crossover_batch_scan`` is the brute-force oracle the checks compare it with.
    """
    context = settings.context if context is None else context
    if not _affine(settings):  # a mixture of experts: no affine pieces to bisect, so visit every batch
        return crossover_batch_scan(settings, context, curve, max_batch)
    max_batch = _search_limit(settings, context, max_batch)
    ridges = _ridge_batches(settings, context)
    edges = sorted({1, max_batch, *(min(max_batch, max(1, int(b))) for b in ridges),
                    *(min(max_batch, max(1, int(b) + 1)) for b in ridges)})
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

    The step constants do not depend on k, so they are built once; entry k is the very float
    :func:`speedup_at` gives for lookahead k (both compose the cycle with :func:`_cycle_ms`)."""
    batch, context = settings.batch, settings.context
    target, verify, draft, _ = _cycle_steps(settings)
    plain = _time(target, batch, 1, context)

    def speedup(k):
        n = verify_tokens(settings.with_(lookahead=k))
        tokens = tokens_per_cycle(settings.acceptance / 100, k, curve)
        return plain * tokens / _cycle_ms(settings, k, draft, verify, batch, n, context, tokens)

    if curve:  # on a curve, the one best-k rule: never past its plateau's start plus one
        from .acceptance import best_lookahead as best_on_curve, token_curve

        found = best_on_curve(speedup, token_curve(curve), max_lookahead)
        return found["k"], found["speedup"]
    best_k, best = 0, -math.inf
    for k in range(1, max_lookahead + 1):
        value = speedup(k)
        if value > best:
            best_k, best = k, value
    return best_k, best


HEATMAP_BATCHES = tuple(2 ** i for i in range(11))           # 1 .. 1024
HEATMAP_CONTEXTS = tuple(512 * 2 ** i for i in range(9))     # 512 .. 131072


def speedup_grid(settings: ServingSettings, batches=HEATMAP_BATCHES, contexts=HEATMAP_CONTEXTS, curve=None):
    """Speedup for every (context, batch): one row per context, one column per batch.

    The step constants are built once per grid, which keeps the 99 cells to a fraction of a
    millisecond of arithmetic."""
    target, verify_step, draft, n = _cycle_steps(settings)
    k = settings.lookahead
    tokens = tokens_per_cycle(settings.acceptance / 100, k, curve)
    grid = []
    for context in contexts:
        row = []
        for batch in batches:
            plain = _time(target, batch, 1, context)
            row.append(plain * tokens / _cycle_ms(settings, k, draft, verify_step, batch, n, context, tokens))
        grid.append(row)
    return grid


def batch_sweep(settings: ServingSettings, batches, curve=None) -> list[dict]:
    """Speedup and both throughputs at each batch, at the settings' context (steps built once)."""
    context, k = settings.context, settings.lookahead
    target, verify, draft, n = _cycle_steps(settings)
    tokens = tokens_per_cycle(settings.acceptance / 100, k, curve)
    rows = []
    for batch in batches:
        plain = _time(target, batch, 1, context)
        cycle = _cycle_ms(settings, k, draft, verify, batch, n, context, tokens)
        rows.append({"batch": batch, "speedup": plain * tokens / cycle, "plainTokensPerSecond": batch * 1000 / plain,
                     "specTokensPerSecond": batch * tokens * 1000 / cycle})
    return rows


# --- load: Little's law -------------------------------------------------------------------------

def _per_token_terms(settings: ServingSettings, speculative: bool, curve=None):
    """ms per token per sequence as ``constant + slope B + sum_i w_i combine(p_i + q_i B, r_i B, o_i)``
    (:func:`_terms`, :func:`_combine`): every operator is the larger of an affine memory time and
    a linear compute time, plus the part of the smaller that does not overlap it."""
    context, k = settings.context, settings.lookahead
    target, verify, draft, n = _cycle_steps(settings)
    if not _affine(settings):  # a mixture of experts: the function itself, solved numerically
        if not speculative:
            return NUMERIC, lambda batch: _time(target, batch, 1, context)
        tokens = tokens_per_cycle(settings.acceptance / 100, k, curve)
        return NUMERIC, lambda batch: _cycle_ms(settings, k, draft, verify, batch, n, context, tokens) / tokens

    def weighted(step, new_tokens, weight):
        terms, constant, slope = _terms(step, new_tokens, context)
        return [(weight, *term) for term in terms], weight * constant, weight * slope

    if not speculative:
        return weighted(target, 1, 1.0)
    tokens = tokens_per_cycle(settings.acceptance / 100, k, curve)
    terms, constant, slope = weighted(verify, n, 1 / tokens)
    slope += _emitted_output_ms(verify, 1, tokens) / tokens   # B (T - 1) t_token over the cycle's T tokens
    if draft is not None:
        first = _first_step(settings, draft, n)   # V1: one of the k steps runs over the verified tokens
        more, c, s = weighted(draft, 1, (k - (first is not None)) / tokens)
        terms, constant, slope = terms + more, constant + c, slope + s
        if first is not None:
            more, c, s = weighted(first, n, 1 / tokens)
            terms, constant, slope = terms + more, constant + c, slope + s
        if _runs_extend(settings, draft):  # the draft's extend pass, once a cycle
            more, c, s = weighted(draft, n, 1 / tokens)
            terms, constant, slope = terms + more, constant + c + _eager_extend_ms(settings) / tokens, slope + s
    elif settings.stepModel == MEASURED:  # n-gram lookup on the CPU
        constant += k / tokens * NGRAM_FIXED_MS
        slope += k / tokens * NGRAM_MS_PER_SEQUENCE
    return terms, constant, slope


def _per_token_function(settings: ServingSettings, speculative: bool, curve=None):
    """``batch -> ms per token per sequence`` at the settings' context (constants built once)."""
    terms = _per_token_terms(settings, speculative, curve)
    if terms[0] is NUMERIC:
        return terms[1]
    terms, constant, slope = terms
    return lambda batch: constant + slope * batch + sum(w * _combine(p + q * batch, r * batch, o)
                                                        for w, p, q, r, o in terms)


def _ms_per_token(settings: ServingSettings, batch: float, speculative: bool, curve=None) -> float:
    """Milliseconds per token per sequence at ``batch``: a plain step, or a cycle over its tokens."""
    return _per_token_function(settings, speculative, curve)(batch)


def steady_batch(settings: ServingSettings, rate: float, speculative: bool, curve=None,
                 max_batch: float | None = None) -> float | None:
    """The running batch ``B`` that satisfies Little's law,
    ``B = rate x outputTokens x msPerToken(B) / 1000`` (rate in requests per second), or None
    when no ``B <= max_batch`` does: the server is overloaded. ``max_batch`` defaults to the
    largest batch that fits in GPU memory (:func:`max_batch_in_memory`).

    ``msPerToken(B)`` is piecewise affine (each operator is affine between its ridge batches), so
    the first fixed point is solved exactly, piece by affine piece, with B a real number.

    >>> s = DEFAULT_SETTINGS
    >>> b = steady_batch(s, 1.0, False)
    >>> abs(b - 1.0 * s.outputTokens * _ms_per_token(s, b, False) / 1000) < 1e-6
    True
    """
    return _steady_batch(settings, rate, _per_token_terms(settings, speculative, curve), max_batch)


def _steady_batch(settings: ServingSettings, rate: float, terms_constant, max_batch=None) -> float | None:
    """Solve ``B = s m(B)`` with ``s = rate x outputTokens / 1000`` exactly: between the batches
    where an operator turns compute-bound, ``m(B) = P + Q B`` is affine, so on that piece
    ``B = s P / (1 - s Q)``; pieces are visited in order and the first whose solution lies inside
    it holds the first fixed point (``B - s m(B)`` is negative at 0, so the first crossing of
    zero is the stable one)."""
    if rate <= 0:
        return 0.0
    max_batch = max_batch_in_memory(settings) if max_batch is None else max_batch
    if max_batch <= 0:
        return None
    if terms_constant[0] is NUMERIC:
        return _steady_batch_numeric(rate * settings.outputTokens / 1000, terms_constant[1], max_batch)
    terms, constant, linear = terms_constant
    scale = rate * settings.outputTokens / 1000
    breaks = sorted(p / (r - q) for _, p, q, r, _ in terms if r > q and 0 < p / (r - q) < max_batch)
    low = 0.0
    for high in breaks + [max_batch]:
        middle = (low + high) / 2  # which side of each ridge this piece is on
        slope, offset = linear, constant
        for w, p, q, r, o in terms:
            if p + q * middle >= r * middle:   # memory-bound: memory + (1 - o) compute
                offset, slope = offset + w * p, slope + w * (q + (1 - o) * r)
            else:                              # compute-bound: compute + (1 - o) memory
                offset, slope = offset + w * (1 - o) * p, slope + w * (r + (1 - o) * q)
        if scale * slope < 1:
            batch = scale * offset / (1 - scale * slope)
            if batch <= high * (1 + 1e-12):
                return max(batch, low)
        low = high
    return None


NUMERIC = "numeric"  # marks a ms-per-token function that is not piecewise affine (a mixture of experts)


def _steady_batch_numeric(scale: float, per_token, max_batch: float) -> float | None:
    """The first ``B`` in ``(0, max_batch]`` with ``B = scale x per_token(B)``, for a per-token
    time that is not piecewise affine: ``B - scale per_token(B)`` is negative near 0; a geometric
    scan finds the first batch where it is not, bisection the crossing (relative 1e-12)."""
    gap = lambda b: b - scale * per_token(b)  # noqa: E731
    low = 0.0
    for i in range(80, -1, -1):
        high = max_batch * 0.8 ** i
        if gap(high) >= 0:
            for _ in range(100):
                middle = (low + high) / 2
                low, high = (middle, high) if gap(middle) < 0 else (low, middle)
                if high - low <= 1e-12 * high:
                    break
            return high
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


@lru_cache(maxsize=16)
def _tail_runs(certainty: int, match: int, lookahead: int, length: int, seeds: int) -> tuple:
    """The part of :func:`tail` the draft cost does not change, computed once per setting: each
    seed's (target calls, draft calls), from :func:`lab.sampler.trace_shape` (the same counts
    as :func:`lab.sampler.generate_trace`, without its tokens), and how many calls drafted each
    number of tokens, over all seeds."""
    from .sampler import trace_shape

    counts, calls_drafting = [], {}
    for seed in range(seeds):
        shape = trace_shape(certainty, match, lookahead, length, seed)
        counts.append((len(shape), sum(drafted for drafted, _ in shape)))
        for drafted, _ in shape:
            calls_drafting[drafted] = calls_drafting.get(drafted, 0) + 1
    return tuple(counts), tuple(sorted(calls_drafting.items()))


@lru_cache(maxsize=16)
def tail(certainty: int, match: int, lookahead: int, length: int, draft_cost: int, seeds: int = TAIL_SEEDS) -> dict:
    """Re-run the exact lab's seeded generation (:func:`lab.sampler.generate_trace`) with seeds
    ``0 .. seeds - 1`` at one setting of the exact lab.

    Returns each run's speedup (:func:`lab.exact.seeded_speedup`, the exact lab's ``trace.speedup``),
    the prediction (``theoreticalSpeedup`` of :func:`lab.exact.evaluate`), and the inter-token gaps in units of one target pass: a call that drafts ``j`` tokens takes
    ``1 + j c``; its first token arrives after that and the rest of its burst with it (gap 0).
    Plain decoding delivers one token per pass, every gap 1. Percentiles are nearest-rank.
    The runs are shared by every draft cost (:func:`_tail_runs`); the gaps are counted per value
    (``length`` tokens a run, one gap each) rather than listed."""
    from .exact import seeded_speedup, summary_alpha
    from .ledger import leviathan_speedup

    cost = draft_cost / 100
    counts, calls_drafting = _tail_runs(certainty, match, lookahead, length, seeds)
    speedups = [seeded_speedup(length, target_calls, draft_calls, cost) for target_calls, draft_calls in counts]
    calls = sum(target_calls for target_calls, _ in counts)
    gaps = {0.0: seeds * length - calls} if seeds * length > calls else {}  # the rest of each burst
    for drafted, how_many in calls_drafting:
        gap = 1 + drafted * cost
        gaps[gap] = gaps.get(gap, 0) + how_many
    prediction = leviathan_speedup(float(summary_alpha(certainty, match, length)), lookahead, cost)
    return {"speedups": tuple(speedups), "prediction": prediction, "seeds": seeds,
            "gapP50": percentile_of_counts(gaps, 0.5), "gapP99": percentile_of_counts(gaps, 0.99),
            "plainGapP50": 1.0, "plainGapP99": 1.0,
            "p05": percentile(speedups, 0.05), "p95": percentile(speedups, 0.95),
            "minimum": min(speedups), "maximum": max(speedups), "median": percentile(speedups, 0.5)}
