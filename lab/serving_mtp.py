"""What one draft step of a checkpoint's MTP module costs beyond what :func:`lab.serving_presets.eagle_head` prices, on
each engine as its MTP code was read. Kept apart from :mod:`lab.serving_step` so that module stays under the thousand
lines a lab module may have.

The head :func:`lab.serving_presets.eagle_head` builds for a checkpoint with an MTP module is one decoder layer, a
2h -> h fusion and the target's LM head; for a mixture of experts the layer is the MoE layer the checkpoint ships
(DeepSeek-V3's, GLM-4.5's and Qwen3-Next's MTP layer has the routed experts, their router and the shared expert), so
its step reads the distinct experts of its tokens under the model's routing assumption and pays a MoE layer's kernels
(:data:`lab.serving_moe.MOE_LAYER_US`, at the engine's own MoE kernels' cost) on every engine, priced where every MoE
layer is (lab.serving_step).
Every engine read runs it so:

- TensorRT-LLM (spring 2025, tensorrt_llm/_torch/models/modeling_deepseekv3.py, read through the code index, id
  1539226111): ``class DeepseekV3MTP(DeepseekV3DecoderLayer)``, '# MTP Layer Must have sparse MOE', ``hidden_states =
  self.mlp(...)`` with ``FusedMoE``.
- vLLM (vllm/model_executor/models/deepseek_mtp.py at 4f7c1440, the V0 series, and at 03356f8c, after 0.10.1; a 2026
  copy read through the code index, id 55130808037): ``self.mtp_block = DeepseekV2DecoderLayer(...)`` at the layer
  index ``num_hidden_layers``, past ``first_k_dense_replace``, so DeepseekV2MoE (the 2026 copy passes ``is_nextn=True``
  and collects ``DeepseekV2MoE`` as its ``moe_layers``); glm4_moe_mtp.py (028aedf6): ``self.mtp_block =
  Glm4MoeDecoderLayer(...)``; qwen3_next_mtp.py (ffdc9857, 055e47c2): ``Qwen3NextDecoderLayer(vllm_config,
  layer_type="full_attention", ...)`` with ``Qwen3NextSparseMoeBlock``.
- SGLang (python/sglang/srt/models/deepseek_nextn.py: a spring-2025 copy read through the code index, id 926022823,
  c28bdc90 of mid-2025, a 2026 copy, id 54491606189): ``self.decoder = DeepseekV2DecoderLayer(config, 0, ...,
  is_nextn=True)``, and deepseek_v2.py's ``_is_layer_sparse``: ``return is_nextn or (...)``; glm4_moe_nextn.py
  (008b79d2): ``Glm4MoeDecoderLayer(config, 0, ..., is_nextn=True)``; qwen3_next_mtp.py (00534216): the target's
  ``Qwen3NextModel`` with one full-attention MoE layer.

What this module prices beyond that head, on ``g`` GPUs (each an engine's reading, not the checkpoint's):

- The fusion read whole. The head's weights are split over the GPUs; an engine whose MTP code builds the fusion as a
  plain ``nn.Linear`` (or a linear with no tensor-parallel mode) reads all ``2 h^2`` of it on every GPU, ``(g - 1) / g``
  of it more a step. Which targets each engine builds so is its switch, :data:`lab.serving_calibration.ENGINES`
  ``mtpFusionWhole``, each place named in that engine's ``costs``: TensorRT-LLM's DeepSeek-V3 (``self.eh_proj =
  Linear(config.hidden_size * 2, config.hidden_size, bias=False, dtype=config.torch_dtype, ...)``, no mapping, split
  later by NVIDIA/TensorRT-LLM pull request 5689, 2025-07-02, '1. eh_proj gemm sharding'); vLLM's DeepSeek-V3 and
  GLM-4.5 (``self.eh_proj = nn.Linear(config.hidden_size * 2, config.hidden_size, bias=False)``) but not its Qwen3-Next
  (``self.fc = ColumnParallelLinear(self.config.hidden_size * 2, self.config.hidden_size, gather_output=True, ...)``:
  split); SGLang's all three (``self.eh_proj = nn.Linear(2 * config.hidden_size, config.hidden_size, bias=False)``,
  Qwen3-Next's ``self.fc = nn.Linear(2 * config.hidden_size, config.hidden_size, bias=False)``). Where an engine
  version's MTP code for a model was not read (GLM-4.5 on SGLang in 2025, any model but DeepSeek-V3 on TensorRT-LLM,
  Qwen3.5's dense MTP anywhere), nothing is charged.
- The logits gathered. Every engine read splits the head's LM head over the vocabulary (``ParallelLMHead``; TensorRT-LLM's
  ``LMHead`` ``tensor_parallel_mode=TensorParallelMode.COLUMN``) and gathers the whole vocabulary's logits of each
  sequence every draft step before its argmax (:data:`LOGITS_GATHER`, the places): ``B x vocab`` BF16 values. Priced as
  the measured all-reduce of that message (:func:`lab.serving_calibration.allreduce_us`'s fit: its latency once a step,
  its bytes at the measured rates, :func:`lab.serving_allreduce.message_rates`, as the layers' all-reduces are
  priced), an assumption: no all-gather or gather of it was found measured on these GPUs. An
  all-gather moves ``(g - 1) / g`` of the message into each GPU, vLLM V0's gather to one GPU the same into that one,
  where the one-shot all-reduce the fit timed reads all of it from each peer: one price for both kinds.

Not charged, and so a lower bound: the step's small native kernels outside the layer that TensorRT-LLM's loop launches
inside the CUDA graph (``MTPEagleWorker.forward``: the argmax and its cast, two cumsums for the last token's index,
the position and hidden-state gathers, the sequence-length fills, ``kv_lens_cuda += 1``, the head's gather and
``.float()``; about a dozen), which pull request 5689 fused with ``torch.compile``: no per-kernel time inside a
CUDA graph was found measured. Pull request 5689's own measurement, 'BS1 deepseek perf improves from 411-->431 TPS on
B200x8 TP8EP1', is an end-to-end rate of a later version with all four of its changes at once; it is quoted, not
fitted (docs/READING.md).

Standard library only.
"""

from typing import NamedTuple

from .serving_allreduce import allreduce_cost

__all__ = ["MTP_LOGIT_BYTES", "LOGITS_GATHER", "MtpExtras", "NO_EXTRAS", "mtp_step_extras"]

# The gathered logits' element size: the LM head's weights and output are the checkpoint's torch_dtype, BF16
# (TensorRT-LLM's DecoderModelForCausalLM builds LMHead with dtype=config.pretrained_config.torch_dtype, '.float()' after
# the gather; vLLM's LogitsProcessor gathers the head's output as computed, as SGLang's does unless
# --enable-fp32-lm-head is set).
MTP_LOGIT_BYTES = 2

# How each engine version gathers the MTP head's logits every draft step on several GPUs, and where it was read: the
# one place that decides the gather is charged (mtp_step_extras). Every engine of lab.serving_calibration.ENGINES is
# named (tests hold it); the kind is recorded, the price is one (module docstring).
LOGITS_GATHER = {
    "vllm-v1": ("all-gather", "vllm/model_executor/layers/logits_processor.py, LogitsProcessor._gather_logits: 'if "
                "self.use_all_gather: ... logits = tensor_model_parallel_all_gather(logits)'; vllm/platforms/interface.py, "
                "use_all_gather: 'return (envs.VLLM_USE_V1 or ...)' (read through the code index, id 28945994), and "
                "V1 alone today; vllm/config/speculative.py of 2026 (id 60519330249): 'use_local_argmax_reduction: "
                "bool = False', 'Use vocab-parallel local argmax instead of all-gathering full logits for draft token "
                "generation' (off by default); deepseek_mtp.py's get_top_tokens (id 55130808037): 'Avoids the "
                "per-draft NCCL AllGather inside `compute_logits`', used only with that option"),
    "vllm-v1-0.10": ("all-gather", "the same _gather_logits and use_all_gather ('envs.VLLM_USE_V1'); the MTP models' "
                     "compute_logits call self.logits_processor(mtp_layer.shared_head.head, ...) with SharedHead's "
                     "'self.head = ParallelLMHead(config.vocab_size, config.hidden_size, ...)' (deepseek_mtp.py at "
                     "03356f8c, glm4_moe_mtp.py at 028aedf6)"),
    "vllm-v0": ("gather to one GPU", "the same _gather_logits: 'else: # None may be returned for rank > 0 logits = "
                "tensor_model_parallel_gather(logits)', V0 not using all-gather (use_all_gather: envs.VLLM_USE_V1 "
                "false); deepseek_mtp.py at 4f7c1440 (the V0 series, compute_logits with sampling_metadata)"),
    "sglang": ("all-gather", "python/sglang/srt/layers/logits_processor.py, LogitsProcessor.__init__: "
               "'self.do_tensor_parallel_all_gather = (not skip_all_gather and get_tensor_model_parallel_world_size() "
               "> 1)' (a 2026 copy, id 68845267582); the NextN models' 'self.lm_head = ParallelLMHead(config.vocab_size, "
               "...)' and 'self.logits_processor = LogitsProcessor(config)' (deepseek_nextn.py, id 54491606189)"),
    "sglang-no-overlap": ("all-gather", "the same line (a mid-2025 copy, id 24118489958); deepseek_nextn.py at "
                          "c28bdc90: ParallelLMHead and LogitsProcessor(config) (skip_all_gather only with DP "
                          "attention, not run here)"),
    "sglang-eager-extend": ("all-gather", "the same line (an early-2025 copy, id 167514012); deepseek_nextn.py of "
                            "spring 2025 (id 926022823): ParallelLMHead and LogitsProcessor(config)"),
    "trtllm": ("all-gather", "DeepseekV3MTPHead.forward: 'logits = lm_head(last_token_hidden_states)' through the main "
               "model's LM head, built 'tensor_parallel_mode=TensorParallelMode.COLUMN, gather_output=True' "
               "(tensorrt_llm/_torch/models/modeling_utils.py, DecoderModelForCausalLM; id 1046435088), then "
               "draft_sampler's 'torch.argmax(logits, dim=-1)'; replaced after the blog by NVIDIA/TensorRT-LLM pull "
               "request 5689's 'lm_head top1 using local argmax --> AG --> argmax'"),
}


class MtpExtras(NamedTuple):
    """An MTP draft step's costs beyond the head's layers, on one GPU of ``g``: ``fixed_ms`` once a step (the gather's
    latency), ``weight_bytes`` more weights read each step (a fusion read whole), ``gather_bytes`` the gathered
    logits per sequence. All zero where the target ships no MTP module or runs on one GPU."""

    fixed_ms: float = 0.0
    weight_bytes: float = 0.0
    gather_bytes: float = 0.0


NO_EXTRAS = MtpExtras()


def mtp_step_extras(target, engine, cal, g: int, head_bytes: float) -> MtpExtras:
    """What one draft step of ``target``'s MTP module costs beyond the head's layers on ``engine`` (an
    :class:`lab.serving_calibration.Engine`) with calibration ``cal`` on ``g`` GPUs, the head's weights at
    ``head_bytes`` a parameter (its draft precision): none unless the checkpoint ships an MTP module (``target.mtp``)
    and ``g > 1``. DeepSeek-V3 on 8 x B200 with the head in BF16: on TensorRT-LLM, SGLang and vLLM alike the logits
    gathered (258,560 bytes a sequence, the all-reduce's 6.1 us latency once a step) and the fusion read whole (7/8 of
    2 x 7168^2 BF16 weights, 180 MB a GPU); Qwen3-Next on vLLM, whose fusion is split, the gather alone:

    >>> from lab.serving_calibration import CALIBRATIONS, ENGINES
    >>> from lab.serving_presets import TARGETS
    >>> x = mtp_step_extras(TARGETS["deepseek-v3"], ENGINES["trtllm"], CALIBRATIONS["b200"], 8, 2)
    >>> round(x.fixed_ms * 1000, 1), round(x.weight_bytes / 1e6), x.gather_bytes
    (6.1, 180, 258560)
    >>> mtp_step_extras(TARGETS["deepseek-v3"], ENGINES["vllm-v1"], CALIBRATIONS["b200"], 8, 2) == x
    True
    >>> mtp_step_extras(TARGETS["qwen3-next-80b-a3b"], ENGINES["vllm-v1"], CALIBRATIONS["b200"], 4, 2).weight_bytes
    0.0
    >>> mtp_step_extras(TARGETS["llama-3-70b"], ENGINES["trtllm"], CALIBRATIONS["b200"], 8, 2) == NO_EXTRAS
    True
    """
    if not target.mtp or not cal.engineTerms or g <= 1:
        return NO_EXTRAS
    fixed = weight_bytes = gather_bytes = 0.0
    if target.name in engine.mtpFusionWhole:
        weight_bytes = (g - 1) / g * 2 * target.hidden ** 2 * head_bytes
    if engine.name in LOGITS_GATHER:
        gather_bytes = target.vocab * MTP_LOGIT_BYTES
        fixed = allreduce_cost(cal, g)[0] / 1000
    return MtpExtras(fixed, weight_bytes, gather_bytes)
