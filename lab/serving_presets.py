"""The serving instrument's presets as data, each with where its numbers were read: the GPUs
(:data:`GPUS`), the target and draft models' shapes (:data:`TARGETS`, :data:`DRAFTS`, the derived EAGLE
heads) and the storage precisions (:data:`PRECISIONS`), with what a shape counts (parameters, experts).
The step-time model that prices them is :mod:`lab.serving_step`; :mod:`lab.serving` re-exports every
name here. Adding a GPU or a model is one row (docs/RECIPES.md). Standard library only.
"""

from typing import NamedTuple

__all__ = [
    "Gpu", "Transformer", "Precision", "GPUS", "TARGETS", "DRAFTS", "PRECISIONS", "TERA", "FP4_BYTES",
    "NGRAM", "SUFFIX", "EAGLE", "EAGLE3", "MTP_TARGETS", "EAGLE3_DRAFT_VOCAB", "DRAFT_NAMES", "PRICED_DRAFT_NAMES",
    "DRAFT_LABELS", "DRAFT_CHOICES", "HUGGING_FACE_FAMILIES", "HUGGING_FACE_NAMES", "preset_named",
    "draft_vocabulary_note",
    "attention_params", "linear_attention_params", "softmax_layers", "moe_layers", "expert_params",
    "parameter_count", "used_params", "distinct_experts", "eagle_head", "eagle3_head",
]

TERA = 1e12


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
    # The GPU the EAGLE-3 paper's text names for its vLLM sweep (lab.serving_validation.CROSSOVER_BRACKETS). One card
    # on PCIe 4.0 x16 (an NVLink bridge exists for two, not modelled: link 0 as on the RTX 4090). Ampere: no FP8.
    "rtx-3090": Gpu("rtx-3090", "RTX 3090", 936e9, 71.2 * TERA, None, 24e9,
                    "read 2026-12-04: 24 GB GDDR6X on a 384-bit bus at 19.5 Gbps, so 936 GB/s (gpu.spicedreamphone.com's "
                    "RTX 3090 table: 936.2 GB/s, 24 GB, 328 tensor cores, 1695 MHz boost, PCIe 4.0 x16; NVIDIA's product "
                    "page, as copied on ai.nana7mi.co.uk: 'a staggering 24 GB of G6X memory'). The BF16 peak with FP32 "
                    "accumulation is derived, not read: 328 tensor cores x 256 dense FP16 FLOP a clock (GA102's '1024 "
                    "flops/clk/SM', physicsdolphin/nv-uefi-unlocker discussion 227) x 1.695 GHz = 142.3 TFLOP/s with FP16 "
                    "accumulation (holynerdvana.blogspot.com's table: 'FP16 TFLOPS (Sparsity) 142 (285)'), halved because "
                    "GeForce runs FP32 accumulation at half rate (that discussion's title: 'FP32-accum half-rate "
                    "removed' by a modified firmware): 71.2. NVIDIA's GA102 whitepaper (v2.0, Appendix A 'GeForce RTX "
                    "3090') was found, its table not reached"),
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


def used_params(shape: Transformer) -> int:
    """The parameters one token runs through (its FLOPs per token are twice this): ``params`` less the routed
    experts it does not use, ``moe_layers (E - k)`` experts' weights; for a preset whose count is
    :func:`parameter_count`'s, ``parameter_count(shape, active=True)``; for a head with more than a decoder (an MTP
    module's fusion) it keeps those weights too.

    >>> used_params(TARGETS["mixtral-8x7b"]) == parameter_count(TARGETS["mixtral-8x7b"], True)
    True
    """
    return shape.params - moe_layers(shape) * (shape.experts - shape.active_experts) * expert_params(shape)


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
    Transformer("qwen3.8-27b", "Qwen3.8-27B (hybrid)", 64, 5120, 24, 4, 256, 17408, 248320, False, False,
                "copies of Qwen3.8-27B's text_config (model_type qwen3_5_text) in two tests read through the code "
                "index (a runtime's Qwen3.8-27B contract, base_trunk /models/Qwen--Qwen3.8-27B; a kernel library's "
                "'test_qwen38_text_metadata_compatibility'): hidden_size 5120, intermediate_size 17408, "
                "num_hidden_layers 64, layer_types three linear_attention then one full_attention, 16 times "
                "(full_attention_interval 4: 48 Gated DeltaNet layers, 16 gated softmax-attention layers, "
                "attn_output_gate true), num_attention_heads 24, num_key_value_heads 4, head_dim 256, vocab_size "
                "248320, linear_num_key_heads 16, linear_num_value_heads 48, linear_key_head_dim 128, "
                "linear_value_head_dim 128, linear_conv_kernel_dim 4, mtp_num_hidden_layers 1; untied (the second "
                "test's 851 weight names include lm_head; Qwen3.5-27B and Qwen3.6-27B, the same shape, are untied); "
                "dense; the target of the validation rows of vllm-project/speculators' Qwen3.8-27B sweep",
                linear_layers=48, linear_k_heads=16, linear_v_heads=48, linear_head_dim=128, linear_conv=4,
                q_gate=True, mtp=1),
    # The targets SpecDecode-Bench (arXiv 2601.11580; its vLLM fork's scripts/common.py and scripts/profile-*.sh,
    # SpecDecode-Bench/vllm, read 2026-12-05) runs beside the Llama shapes above: Qwen3-8B and Qwen3-32B (EAGLE-3 heads
    # AngelSlim/Qwen3-8B_eagle3 and AngelSlim/Qwen3-32B_eagle3; Qwen3-0.6B as a draft model) and GLM-4.5-Air (its MTP
    # layer, vLLM's deepseek_mtp method). Qwen3's per-head q_norm and k_norm (2 x 128 weights a layer) are left out
    # of the count (9,216 parameters in Qwen3-8B, 16,384 in Qwen3-32B): the model prices no norm's bytes.
    Transformer("qwen3-8b", "Qwen3-8B", 36, 4096, 32, 8, 128, 12288, 151936, False, False,
                "a copy of Qwen3-8B's config.json (QWEN3_8B_CONFIG_JSON in kohya-ss/musubi-tuner "
                "src/musubi_tuner/zimage/zimage_utils.py, commit 2a1eac8): \"num_hidden_layers\": 36, \"hidden_size\": "
                "4096, \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"head_dim\": 128, "
                "\"intermediate_size\": 12288, \"vocab_size\": 151936, \"tie_word_embeddings\": false, "
                "\"attention_bias\": false (q/k norm, no q/k/v bias); dense, no MTP layer (its EAGLE-3 head, "
                "AngelSlim/Qwen3-8B_eagle3, is the eagle3-head preset); 8.2B parameters, 6.95B without embeddings "
                "(model card, as quoted in a discussion thread)"),
    Transformer("qwen3-32b", "Qwen3-32B", 64, 5120, 64, 8, 128, 25600, 151936, False, False,
                "copies of Qwen3-32B's config.json read through the code index (a verification test's pinned "
                "checkpoint 'architecture' for /models/qwen3-32b, a kernel benchmark's QWEN3_32B_DEFAULTS, a "
                "tensor-parallel tutorial's quoted config.json): \"num_hidden_layers\": 64, \"hidden_size\": 5120, "
                "\"num_attention_heads\": 64, \"num_key_value_heads\": 8, \"head_dim\": 128, \"intermediate_size\": "
                "25600, \"vocab_size\": 151936; untied (AngelSlim's Qwen3-32B EAGLE-3 training config, Tencent/AngelSlim "
                "angelslim/compressor/speculative/train/configs/qwen3-32b-eagle3.json, copies the target's "
                "\"tie_word_embeddings\": false; the untied count, 32.76B, is the card's 32.8B, a tied one 31.98B); "
                "dense, no MTP layer; 32.8B parameters (model card, as copied in daniel-p-green/alain-ai-learning-platform "
                "out/research-qwen-qwen3-32b/TECH_SPECS.md)"),
    Transformer("glm-4.5-air", "GLM-4.5-Air (MoE)", 46, 4096, 96, 8, 128, 10944, 151552, False, True,
                "GLM-4.5-Air's shape (glm4_moe) from the 100B configuration in huggingface/transformers "
                "src/transformers/models/glm4_moe/convert_glm4_moe_weights_to_hf.py (CONFIG_100B, commit 08bd427): "
                "\"num_hidden_layers\": 46, \"hidden_size\": 4096, \"num_attention_heads\": 96, "
                "\"num_key_value_heads\": 8, \"head_dim\": 128, \"first_k_dense_replace\": 1 with "
                "\"intermediate_size\": 10944, \"n_routed_experts\": 128, \"num_experts_per_tok\": 8, "
                "\"n_shared_experts\": 1, \"moe_intermediate_size\": 1408, \"vocab_size\": 151552, "
                "\"tie_word_embeddings\": False, \"attention_bias\": True; the same values in a MoE validator's "
                "GLM45_AIR_CONFIG for zai-org/GLM-4.5-Air. That copy carries no num_nextn_predict_layers: one MTP "
                "layer from a training test's GLM-4.5-Air checkpoint config (\"model_type\": \"glm4_moe\", "
                "\"num_nextn_predict_layers\": 1, \"num_hidden_layers\": 46), MindSpeed-LLM's GLM-4.5-Air "
                "conversion (--mtp-num-layers 1) and SpecDecode-Bench's profile-glm4.5-air.sh (method deepseek_mtp); "
                "106B parameters, 12B active (model card, as quoted in transformers' docs/source/en/model_doc/"
                "glm4_moe.md)",
                experts=128, active_experts=8, expert_intermediate=1408, shared_intermediate=1408, dense_layers=1,
                mtp=1),
)}

NGRAM = "ngram"
SUFFIX = "suffix"  # suffix decoding (Arctic Inference's suffix trees, vLLM V1 method "suffix"): no model, like NGRAM
EAGLE = "eagle-head"
EAGLE3 = "eagle3-head"  # the EAGLE-3 head as vLLM builds it (eagle3_head): a widget preset and the validation rows' head
# The targets whose config.json ships a multi-token-prediction module (num_nextn_predict_layers or its kin): there the
# EAGLE preset is that module (eagle_head prices it so), its acceptance family MTP's and its configuration MTP.
MTP_TARGETS = frozenset(name for name, target in TARGETS.items() if target.mtp)

DRAFTS = {t.name: _with_count(t) for t in (
    Transformer("llama-3.2-1b", "Llama-3.2-1B", 16, 2048, 32, 8, 64, 8192, 128256, True, False,
                "a copy of Llama-3.2-1B-Instruct's config.json (kevinstephano/thunder_model_blocks): 16 layers, "
                "hidden 2048, 32 heads, 8 KV heads, head_dim 64, intermediate 8192, vocab 128256, tied (1.24B)"),
    Transformer("qwen2.5-0.5b", "Qwen2.5-0.5B-class", 24, 896, 14, 2, 64, 4864, 151936, True, True,
                "a copy of Qwen/Qwen2.5-0.5B's config.json: 24 layers, hidden 896, 14 heads, 2 KV heads, "
                "intermediate 4864, vocab 151936, tied, q/k/v bias (0.49B, model card). vLLM's blog drafted "
                "with Qwama-0.5B, a Qwen-0.5B given Llama-3's vocabulary: the same class"),
    Transformer("qwen3-0.6b", "Qwen3-0.6B", 28, 1024, 16, 8, 128, 3072, 151936, True, False,
                "a copy of Qwen/Qwen3-0.6B's config.json (quoted whole, with its link to the checkpoint's "
                "config.json, in a runtime's constants read through the code index; and torchtune-style builders "
                "of the same shape): \"num_hidden_layers\": 28, \"hidden_size\": 1024, \"num_attention_heads\": 16, "
                "\"num_key_value_heads\": 8, \"head_dim\": 128, \"intermediate_size\": 3072, \"vocab_size\": "
                "151936, \"tie_word_embeddings\": true, \"attention_bias\": false (q/k norm, left out of the count: "
                "7,168 weights); 0.6B parameters (model card; a port's count, 596,049,920 with the norms); the draft "
                "model SpecDecode-Bench runs for Qwen3-8B (scripts/profile-qwen3-8b-draft-model.sh)"),
)}
# The draft presets: the two draft models, the "EAGLE or MTP head" (an EAGLE-1 head, or the target's own MTP module
# where its checkpoint ships one), the EAGLE-3 head (what most readers run in 2026) and n-gram lookup.
DRAFT_NAMES = (*DRAFTS, EAGLE, EAGLE3, NGRAM, SUFFIX)
DRAFT_LABELS = {**{name: t.label for name, t in DRAFTS.items()},
                EAGLE: "EAGLE or MTP head (1 layer)", NGRAM: "n-gram lookup (no model)",
                SUFFIX: "suffix decoding (no model)",
                EAGLE3: "EAGLE-3 head (1 layer)"}  # its 32k draft vocabulary: the article says it (a phone shows a label whole)
# the widgets' draft choices (the serving and deployment panels): the presets a reader picks, with their labels
DRAFT_CHOICES = {name: DRAFT_LABELS[name] for name in DRAFT_NAMES}
# Every draft the model prices, which the CLIs take: the widgets' presets (the EAGLE-3 head among them since December
# 2026; before, only the serving CLI and the validation rows named it).
PRICED_DRAFT_NAMES = DRAFT_NAMES

# Hugging Face checkpoint names the CLIs take for --target and --draft (lab.commands.serving, lab.commands.deployment),
# one family a row: the preset, why those checkpoints are that preset (the same architecture: every weight the model
# prices has the preset's shape), and the names. Matched case-insensitively (HUGGING_FACE_NAMES). Only the CLIs read it:
# URL state and the widgets keep the preset names, and a command's JSON names the preset it ran.
HUGGING_FACE_FAMILIES = (
    ("llama-2-7b", "Llama 2 7B, base and chat: one shape",
     ("meta-llama/Llama-2-7b-hf", "meta-llama/Llama-2-7b-chat-hf")),
    ("llama-3-8b", "Llama 3 and 3.1 8B share the shape (3.1 changed RoPE scaling and context, no weight's shape); "
                   "DeepSeek's R1 distillation is a fine-tuned Llama-3.1-8B",
     ("meta-llama/Meta-Llama-3-8B", "meta-llama/Meta-Llama-3-8B-Instruct", "meta-llama/Llama-3.1-8B",
      "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Meta-Llama-3.1-8B-Instruct", "deepseek-ai/DeepSeek-R1-Distill-Llama-8B")),
    ("llama-2-70b", "Llama 2 70B, base and chat: one shape",
     ("meta-llama/Llama-2-70b-hf", "meta-llama/Llama-2-70b-chat-hf")),
    ("llama-3-70b", "Llama 3, 3.1 and 3.3 70B share the shape; DeepSeek's R1 distillation is a fine-tuned Llama-3.3-70B",
     ("meta-llama/Meta-Llama-3-70B", "meta-llama/Meta-Llama-3-70B-Instruct", "meta-llama/Llama-3.1-70B",
      "meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Meta-Llama-3.1-70B-Instruct", "meta-llama/Llama-3.3-70B-Instruct",
      "deepseek-ai/DeepSeek-R1-Distill-Llama-70B")),
    ("mixtral-8x7b", "Mixtral 8x7B, base and instruct: one shape",
     ("mistralai/Mixtral-8x7B-v0.1", "mistralai/Mixtral-8x7B-Instruct-v0.1")),
    ("qwen3-30b-a3b", "Qwen3-30B-A3B, its base and its 2507 instruct and thinking releases: one shape",
     ("Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-30B-A3B-Base", "Qwen/Qwen3-30B-A3B-Instruct-2507",
      "Qwen/Qwen3-30B-A3B-Thinking-2507")),
    ("deepseek-v3", "DeepSeek-V3's architecture (MLA, 256 experts, one MTP layer): V3, its 0324 and 3.1 updates and "
                    "R1, trained from V3-Base",
     ("deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3-Base", "deepseek-ai/DeepSeek-V3-0324", "deepseek-ai/DeepSeek-V3.1",
      "deepseek-ai/DeepSeek-R1", "deepseek-ai/DeepSeek-R1-0528")),
    ("qwen3-235b-a22b", "Qwen3-235B-A22B and its 2507 instruct and thinking releases: one shape",
     ("Qwen/Qwen3-235B-A22B", "Qwen/Qwen3-235B-A22B-Instruct-2507", "Qwen/Qwen3-235B-A22B-Thinking-2507")),
    ("qwen3-next-80b-a3b", "Qwen3-Next-80B-A3B, instruct and thinking: one shape",
     ("Qwen/Qwen3-Next-80B-A3B-Instruct", "Qwen/Qwen3-Next-80B-A3B-Thinking")),
    ("gpt-oss-120b", "gpt-oss-120b", ("openai/gpt-oss-120b",)),
    ("kimi-k2", "Kimi-K2, base, instruct (and its 0905 update) and thinking: one shape",
     ("moonshotai/Kimi-K2-Base", "moonshotai/Kimi-K2-Instruct", "moonshotai/Kimi-K2-Instruct-0905",
      "moonshotai/Kimi-K2-Thinking")),
    ("glm-4.5", "GLM-4.5 and its base: one shape (glm4_moe, 92 layers, 160 experts)",
     ("zai-org/GLM-4.5", "zai-org/GLM-4.5-Base")),
    ("glm-4.5-air", "GLM-4.5-Air and its base: one shape (glm4_moe, 46 layers, 128 experts)",
     ("zai-org/GLM-4.5-Air", "zai-org/GLM-4.5-Air-Base")),
    ("qwen3.8-27b", "Qwen3.8-27B", ("Qwen/Qwen3.8-27B",)),
    ("qwen3-8b", "Qwen3-8B and its base: one shape", ("Qwen/Qwen3-8B", "Qwen/Qwen3-8B-Base")),
    ("qwen3-32b", "Qwen3-32B", ("Qwen/Qwen3-32B",)),
    # draft models
    ("llama-3.2-1b", "Llama 3.2 1B, base and instruct: one shape",
     ("meta-llama/Llama-3.2-1B", "meta-llama/Llama-3.2-1B-Instruct")),
    ("qwen2.5-0.5b", "Qwen2.5 0.5B, base and instruct: one shape", ("Qwen/Qwen2.5-0.5B", "Qwen/Qwen2.5-0.5B-Instruct")),
    ("qwen3-0.6b", "Qwen3-0.6B and its base: one shape", ("Qwen/Qwen3-0.6B", "Qwen/Qwen3-0.6B-Base")),
    # EAGLE heads (the preset's shape is derived from --target's, as the head's checkpoint is trained for one): the
    # heads SpecDecode-Bench's scripts/common.py names
    (EAGLE, "EAGLE-1 heads: one decoder layer and a fusion over the target's LM head",
     ("yuhuili/EAGLE-LLaMA3-Instruct-8B", "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "yuhuili/EAGLE-LLaMA3-Instruct-70B")),
    (EAGLE3, "EAGLE-3 heads: one decoder layer over three of the target's hidden states, a 32,000-token LM head",
     ("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "yuhuili/EAGLE3-DeepSeek-R1-Distill-LLaMA-8B", "AngelSlim/Qwen3-8B_eagle3",
      "AngelSlim/Qwen3-32B_eagle3")),
)
HUGGING_FACE_NAMES = {name.lower(): preset for preset, _, names in HUGGING_FACE_FAMILIES for name in names}
# the same without the organisation ("Llama-3.3-70B-Instruct"), as a local path or a served model name often gives it
_REPOSITORY_NAMES = {name.rsplit("/", 1)[-1]: preset for name, preset in HUGGING_FACE_NAMES.items()}


def preset_named(text: str, valid) -> str | None:
    """The preset ``text`` names among ``valid``: itself when it is one (or differs from one only in case), else the
    preset of the Hugging Face checkpoint it names (:data:`HUGGING_FACE_NAMES`, case-insensitive; the repository's name
    alone, without its organisation or with a local path before it, too), if that preset is
    one of ``valid``; None otherwise. For the CLIs only: the widgets and URL state take preset names.

    >>> preset_named("Qwen/qwen3-8B", TARGETS), preset_named("meta-llama/Llama-3.3-70B-Instruct", TARGETS)
    ('qwen3-8b', 'llama-3-70b')
    >>> preset_named("llama-3-8b", TARGETS), preset_named("Qwen/Qwen3-0.6B", TARGETS), preset_named("gpt-4", TARGETS)
    ('llama-3-8b', None, None)
    >>> preset_named("Llama-3.3-70B-Instruct", TARGETS), preset_named("/models/DeepSeek-R1", TARGETS)
    ('llama-3-70b', 'deepseek-v3')
    """
    folded = text.strip().lower()
    by_case = {name.lower(): name for name in valid}
    preset = (by_case.get(folded) or HUGGING_FACE_NAMES.get(folded)
              or _REPOSITORY_NAMES.get(folded.rstrip("/").rsplit("/", 1)[-1]))
    return preset if preset in valid else None


def draft_vocabulary_note(target: str, draft: str) -> str:
    """A sentence when draft model ``draft`` does not share ``target``'s vocabulary, else "": by default vLLM runs a
    draft model only with its target's vocabulary size (vLLM V0 asserted equal sizes, spec_decode_worker.py, quoted in
    vLLM issue #5203, 2024-06-03; V1's checks reject a mismatched pair, vLLM pull request #42775, 2026-05-15, which
    proposes an opt-in padding). Later vLLM has an opt-in, ``use_heterogeneous_vocab`` (vllm/config/speculative.py:
    "Allow draft and target models to use different vocabularies ... constrains draft logits to shared tokens only
    (TLI algorithm). Requires method='draft_model'", greedy drafts only; present at v0.25.1 and v0.27.0 as an audit
    of that file records, its first release not read), whose token intersection this model does not price; so such
    a pair is priced as a model of that size would cost, not as an engine runs it. EAGLE and MTP heads and model-free
    proposers use the target's tokens and never mismatch.

    >>> draft_vocabulary_note("llama-3-8b", "llama-3.2-1b"), draft_vocabulary_note("llama-3-8b", "eagle-head")
    ('', '')
    >>> draft_vocabulary_note("qwen3-8b", "llama-3.2-1b")[:60]
    "Llama-3.2-1B's vocabulary (128,256 tokens) is not Qwen3-8B's"
    """
    if draft not in DRAFTS or target not in TARGETS or DRAFTS[draft].vocab == TARGETS[target].vocab:
        return ""
    shape, of = DRAFTS[draft], TARGETS[target]
    return (f"{shape.label}'s vocabulary ({shape.vocab:,} tokens) is not {of.label}'s ({of.vocab:,}): vLLM runs such a "
            f"pair only with use_heterogeneous_vocab (greedy drafts over the shared tokens), which is not priced here, "
            f"so this pair is priced as a draft of this size would cost, not as an engine runs it")


def eagle_head(target: Transformer) -> Transformer:
    """An EAGLE-style draft for ``target``: one decoder layer of the target's width, a fusion
    layer from 2h to h, and the target's own LM head, which it reads every step (EAGLE reuses
    the target's embedding and LM head). Derived from the target's shape, not read from a
    checkpoint: the count is ours.

    Where the checkpoint ships an MTP module (``target.mtp``) and is a mixture of experts, the head
    is that module: its decoder layer is a MoE layer with the target's routed experts, router and
    shared experts (DeepSeek-V3's, GLM-4.5's and Qwen3-Next's config give the MTP layer the MoE MLP,
    and every engine read builds it so: :mod:`lab.serving_mtp`), so its step reads the distinct
    experts of its tokens under the model's one routing assumption (:func:`distinct_experts`) and
    pays a MoE layer's kernels like any MoE layer. Any other head on a mixture of experts (an EAGLE
    head where no MTP module ships) is priced as the dense layer one token reads: its active and
    shared experts.

    >>> eagle_head(TARGETS["llama-3-8b"]).layers
    1
    >>> mtp = eagle_head(TARGETS["deepseek-v3"])
    >>> mtp.experts, mtp.active_experts, moe_layers(mtp), round(mtp.params / 1e9, 2)   # its layer and fusion, and the LM head
    (256, 8, 1, 12.54)
    """
    h = target.hidden
    moe = bool(target.mtp and target.experts)
    # a mixture-of-experts target's EAGLE head (no MTP module) is priced as the dense layer one token reads: its
    # active and shared experts
    width = (target.active_experts * target.expert_intermediate + target.shared_intermediate
             if target.experts and not moe else target.intermediate)
    mlp = (target.experts * expert_params(target) + h * target.experts + 3 * h * target.shared_intermediate
           if moe else 3 * h * width)
    params = attention_params(target) + mlp + 2 * h + 2 * h * h + target.vocab * h
    kept = ({} if moe else dict(experts=0, active_experts=0, expert_intermediate=0, shared_intermediate=0))
    return target._replace(name=EAGLE, label=DRAFT_LABELS[EAGLE], layers=1, params=params, tied=True,
                           intermediate=width, dense_layers=0, linear_layers=0, window_layers=0, window=0, mtp=0,
                           **kept,
                           source=f"derived from {target.label}: one decoder layer, a 2h->h fusion layer and the "
                                  "target's LM head (EAGLE's design; an MTP module has the same parts); "
                                  + ("the checkpoint's MTP layer is a MoE layer with the target's routed experts, "
                                     "router and shared experts; " if moe else
                                     "for a mixture of experts the layer one token reads; " if target.experts else "")
                                  + "not a published checkpoint count; "
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
    one = eagle_head(target._replace(mtp=0))   # an EAGLE-3 head is a dense layer whatever the checkpoint ships
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


def _distinct(step, tokens) -> float:
    """:func:`distinct_experts` from a step's constants, the one formula every step model uses:
    ``E (1 - (1 - k/E)**tokens)``."""
    return step.experts * (1 - (1 - step.active_experts / step.experts) ** tokens)
