"""What one draft step of a checkpoint's MTP module costs beyond what :func:`lab.serving_presets.eagle_head` prices (one
decoder layer of the target's width, read as the dense layer one token reads, a 2h -> h fusion split over the GPUs and
the target's LM head split over them), on an engine whose MTP code was read for it (:data:`lab.serving_calibration.
ENGINES`, ``mtpHeadMoe`` and ``mtpHeadUnsharded``). Kept apart from :mod:`lab.serving_step` so that module stays under
the thousand lines a lab module may have.

Read in TensorRT-LLM's PyTorch backend as NVIDIA's DeepSeek-R1 B200 min-latency blog ran it (spring 2025:
tensorrt_llm/_torch/models/modeling_deepseekv3.py and tensorrt_llm/_torch/speculative/mtp.py of that series, read
through the code index, ids 1539226111 and 3573226992; the docs cite them, docs/READING.md):

- ``class DeepseekV3MTP(DeepseekV3DecoderLayer)``: the MTP module is a DeepSeek-V3 decoder layer whose MLP is the
  sparse MoE ('# MTP Layer Must have sparse MOE', ``self.mlp(...)`` with the routed experts of ``FusedMoE`` and the
  shared expert). So each draft step runs a MoE layer's own kernels (router GEMM, top-k, the grouped GEMMs, their
  reduction), which the target's layers pay as :data:`lab.serving_calibration.MOE_LAYER_US` each and the dense
  stand-in did not: charged the same per step (``mtpHeadMoe``; calibrated on TensorRT-LLM's measured DeepSeek-R1 plain
  steps, issue #5929, with the MTP layer's BF16 weights assumed to pay what its FP4 and FP8 layers do).
- ``self.eh_proj = Linear(config.hidden_size * 2, config.hidden_size, bias=False, dtype=config.torch_dtype, ...)``
  with no mapping and no tensor-parallel mode: the fusion is not split over the GPUs, so every GPU reads all ``2 h^2``
  of its weights each step, ``(g - 1) / g`` of them more than a split layer (``mtpHeadUnsharded``). NVIDIA/TensorRT-LLM
  pull request 5689 ('Mtp optimizations round1', 2025-07-02: '1. eh_proj gemm sharding') split it later.
- ``DeepseekV3MTPHead.forward``: ``logits = lm_head(last_token_hidden_states)`` with the main model's ``lm_head``,
  built ``tensor_parallel_mode=TensorParallelMode.COLUMN, gather_output=True`` (tensorrt_llm/_torch/models/
  modeling_utils.py, DecoderModelForCausalLM; read through the code index, id 1046435088): every draft step all-gathers
  the batch's logits over the whole vocabulary, ``B x vocab`` BF16 values, before its argmax (``draft_sampler``:
  ``torch.argmax(logits, dim=-1)``) (``mtpHeadUnsharded``). The same pull request 5689 replaced it by 'lm_head top1
  using local argmax --> AG --> argmax'. Priced as the measured all-reduce of that message
  (:func:`lab.serving_calibration.allreduce_us`'s fit: its latency once a step, its bytes at the measured rates), an
  assumption: no all-gather of it was found measured on these GPUs, and an all-gather moves ``(g - 1) / g`` of the
  message into each GPU where the one-shot all-reduce the fit timed reads all of it from each peer.

Not charged, and so a lower bound: the step's small native kernels outside the layer that the same loop launches
inside the CUDA graph (``MTPEagleWorker.forward``: the argmax and its cast, two cumsums for the last token's index,
the position and hidden-state gathers, the sequence-length fills, ``kv_lens_cuda += 1``, the head's gather and
``.float()``; about a dozen), which pull request 5689 fused with ``torch.compile``: no per-kernel time inside a
CUDA graph was found measured. Pull request 5689's own measurement, 'BS1 deepseek perf improves from 411-->431 TPS on
B200x8 TP8EP1', is an end-to-end rate of a later version with all four of its changes at once; it is quoted, not
fitted (docs/READING.md).

Standard library only.
"""

from typing import NamedTuple

from .serving_allreduce import allreduce_beyond, allreduce_cost

__all__ = ["MTP_LOGIT_BYTES", "MtpExtras", "NO_EXTRAS", "mtp_step_extras", "gather_rates"]

# The gathered logits' element size: the LM head's weights and output are the checkpoint's torch_dtype, BF16
# (DecoderModelForCausalLM builds LMHead with dtype=config.pretrained_config.torch_dtype; the '.float()' after the
# gather converts on each GPU).
MTP_LOGIT_BYTES = 2


class MtpExtras(NamedTuple):
    """An MTP draft step's costs beyond the stand-in head's, on one GPU of ``g``: ``fixed_ms`` once a step (the MoE
    layer's kernels, the gather's latency), ``weight_bytes`` more weights read each step (the unsplit fusion),
    ``gather_bytes`` the gathered logits per sequence. All zero where the engine or the target has none of them."""

    fixed_ms: float = 0.0
    weight_bytes: float = 0.0
    gather_bytes: float = 0.0


NO_EXTRAS = MtpExtras()


def mtp_step_extras(target, engine, cal, g: int, head_bytes: float) -> MtpExtras:
    """What one draft step of ``target``'s MTP module costs beyond the stand-in head on ``engine`` (an
    :class:`lab.serving_calibration.Engine`) with calibration ``cal`` on ``g`` GPUs, the head's weights at
    ``head_bytes`` a parameter (its draft precision): none unless the checkpoint ships an MTP module
    (``target.mtp``) and the engine was read to run it so. On TensorRT-LLM as the DeepSeek-R1 blog ran it, on 8 x
    B200 with the head in BF16: the MoE layer's kernels (71.1 us), the unsplit fusion (7/8 of 2 x 7168^2 BF16
    weights, 180 MB a GPU) and the logits gathered (258,560 bytes a sequence, the all-reduce's 6.1 us latency once a
    step):

    >>> from lab.serving_calibration import CALIBRATIONS, ENGINES
    >>> from lab.serving_presets import TARGETS
    >>> x = mtp_step_extras(TARGETS["deepseek-v3"], ENGINES["trtllm"], CALIBRATIONS["b200"], 8, 2)
    >>> round(x.fixed_ms * 1000, 1), round(x.weight_bytes / 1e6), x.gather_bytes
    (77.2, 180, 258560)
    >>> mtp_step_extras(TARGETS["deepseek-v3"], ENGINES["vllm-v1"], CALIBRATIONS["b200"], 8, 2) == NO_EXTRAS
    True
    >>> mtp_step_extras(TARGETS["llama-3-70b"], ENGINES["trtllm"], CALIBRATIONS["b200"], 8, 2) == NO_EXTRAS
    True
    """
    if not target.mtp or not cal.engineTerms:
        return NO_EXTRAS
    fixed = cal.moeLayerUs / 1000 if engine.mtpHeadMoe and target.experts else 0.0
    weight_bytes = gather_bytes = 0.0
    if engine.mtpHeadUnsharded and g > 1:
        weight_bytes = (g - 1) / g * 2 * target.hidden ** 2 * head_bytes
        gather_bytes = target.vocab * MTP_LOGIT_BYTES
        fixed += allreduce_cost(cal, g)[0] / 1000
    return MtpExtras(fixed, weight_bytes, gather_bytes)


def gather_rates(cal, g: int, gather_bytes: float) -> tuple:
    """The gathered logits' bytes as the step prices them: ``(ms a sequence at the small rate, the sequences past which
    the large-message rate applies, ms a sequence past it)`` from the measured all-reduce's fit
    (:func:`lab.serving_calibration.allreduce_cost`, :func:`lab.serving_calibration.allreduce_beyond`); nothing
    without a gather.

    >>> from lab.serving_calibration import CALIBRATIONS
    >>> per, knee, beyond = gather_rates(CALIBRATIONS["b200"], 8, 258560)
    >>> round(per * 1000, 2), round(knee, 2), round(beyond * 1000, 2)   # us a sequence; 1 MiB is four sequences
    (7.74, 4.06, 1.2)
    """
    if not gather_bytes or g <= 1:
        return 0.0, float("inf"), 0.0
    _, per_ms = allreduce_cost(cal, g)
    start, beyond_per_ms = allreduce_beyond(cal, g)
    return gather_bytes / per_ms, start / gather_bytes, gather_bytes / beyond_per_ms
