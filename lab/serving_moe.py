"""A mixture of experts' fixed cost per MoE layer per pass, by the engine's MoE kernel stack and the GPU family.

What a MoE layer's own kernels cost beyond streaming the weights (router GEMM, top-k, token permutation and
unpermutation, the two grouped GEMMs launched over a few tokens an expert, their local reduction) is a cost of the
kernels that run them, and the engines run different ones (read in their code; :data:`MOE_KERNEL_SOURCES`):

- ``"trtllm"``: TensorRT-LLM's own MoE kernels (its CUTLASS MoE by default; TRT-LLM-gen's for FP8 block scales and
  NVFP4 when asked for);
- ``"triton"``: the Triton ``fused_moe`` kernels vLLM (every version) and SGLang (every preset) run by default.

Each stack is calibrated on its own engines' measured PLAIN steps only (:data:`lab.serving_calibration.
MOE_STEP_MEASUREMENTS`; :func:`lab.serving_validation.fit_moe_layer_us`): TensorRT-LLM's DeepSeek-R1 steps on 8 x H200
(FP8) and 8 x B200 (FP4), issue #5929; vLLM's Qwen3-30B-A3B steps on one A100 (BF16), tenstorrent/tt-inference-server
issue #340. A family with no fitted value for a stack is assumed to pay another family's (:data:`MOE_ASSUMED`), and the
page says so. The model reads the pair through the calibration (``Calibration.moeLayerUs``, a tuple of ``(stack, us)``
for its family) and the engine (``Engine.moeKernels``): :func:`moe_layer_us`. How the Triton kernel's own time grows
with the tokens a pass against the model's distinct experts is :mod:`lab.serving_moe_kernel` (kernel tables; a latency
per distinct expert fitted there was refused, so the experts cost their bytes alone).

Standard library only.
"""

__all__ = ["MOE_KERNELS", "MOE_LAYER_US", "MOE_ASSUMED", "MOE_KERNEL_SOURCES", "moe_pairs", "moe_layer_us",
           "with_moe_layer_us"]

# The kernel stacks an engine's MoE layers run on (Engine.moeKernels).
MOE_KERNELS = ("trtllm", "triton")

# Fitted values, us a MoE layer a pass, keyed by (kernel stack, GPU family); each fitted with every other constant held
# (lab.serving_validation.fit_moe_layer_us, the squared log ratios) on that stack's own rows of MOE_STEP_MEASUREMENTS:
# - ("trtllm", "hopper") 182.3 and ("trtllm", "blackwell") 71.1: NVIDIA/TensorRT-LLM issue #5929 (2025-07-10,
#   v0.21.0rc2, DeepSeek-R1 TP 8 without expert parallelism, ITL p50), 8 x H200 FP8 (residuals 0.97 to 1.02) and
#   8 x B200 FP4 (0.98 and 1.02), with the all-reduce as measured;
# - ("triton", "ampere") 23.8: tenstorrent/tt-inference-server issue #340 (comment of 2025-07-18), Qwen3-30B-A3B BF16 on one
#   A100 with vLLM, TPOT at concurrency 1 (9.6, 9.9 and 10.6 ms at inputs 128, 2048 and 8192), decided as the Triton
#   stack's fitted rows before the fit (docs/READING.md, "The MoE cost by kernel stack").
MOE_LAYER_US = {("trtllm", "hopper"): 182.3, ("trtllm", "blackwell"): 71.1, ("triton", "ampere"): 23.8}

# Where no value is fitted, the family whose value is assumed, by stack: TensorRT-LLM's Hopper value everywhere but
# Blackwell (as before); the Triton stack's one fitted family, Ampere, everywhere (no vLLM or SGLang plain MoE step on
# another family is fitted: SGLang's Qwen3-30B-A3B steps on H100s are held out, the test of this assumption; vLLM's
# Mixtral-8x7B steps on H200 and H100, lab.serving_calibration.MOE_TRITON_HOPPER_STEPS, were read on 5 December 2026
# and refused: one value leaves them at 1.19, 1.21 and 0.86, beyond the 15% fixed before the fit).
MOE_ASSUMED = {"trtllm": "hopper", "triton": "ampere"}

# Where each engine's MoE kernels were read (Engine.moeKernels; docs/READING.md, "The MoE cost by kernel stack").
MOE_KERNEL_SOURCES = {
    "vllm": ("vllm/model_executor/layers/fused_moe/unquantized_fused_moe_method.py (a 2026 copy read through the code "
             "index, id 212887876): UnquantizedFusedMoEMethod builds 'FusedMoEModularKernel(MoEPrepareAndFinalizeNoEP(), "
             "TritonExperts(self.moe_quant_config), ...)' on CUDA unless FlashInfer's CUTLASS MoE is switched on "
             "(VLLM_USE_FLASHINFER_MOE_FP16 with expert parallelism) or ROCm's AITER is; TritonExperts is fused_moe.py's "
             "Triton fused_moe_kernel, tuned per GPU by configs/E=...,N=...,device_name=....json (e.g. "
             "E=128,N=192,device_name=NVIDIA_A100-SXM4-80GB.json); the same fused_moe Triton kernel since V0. vLLM's "
             "quantized paths that leave Triton (DeepGEMM, CUTLASS or FlashInfer for FP8 block scales and FP4 on Hopper "
             "and Blackwell, when chosen) are not modelled: the stack is the engine's default"),
    "sglang": ("python/sglang/srt/layers/moe/fused_moe_triton/ (the models import 'from sglang.srt.layers.moe."
               "fused_moe_triton import FusedMoE', read through the code index; per-GPU Triton configs in its configs/, "
               "e.g. 'E=257,N=256,device_name=NVIDIA_H200,dtype=fp8_w8a8,block_shape=[128, 128].json' for DeepSeek-V3); "
               "its other --moe-runner-backend choices (FlashInfer, DeepGEMM) are not the default and not modelled"),
    "trtllm": ("tensorrt_llm/_torch/modules/fused_moe/create_moe.py (commit 01f8de52, read through the code index), "
               "get_moe_cls: 'if moe_backend.upper() == \"CUTLASS\": return CutlassFusedMoE', \"TRTLLM\" giving "
               "TRTLLMGenFusedMoE for FP8 block scales and NVFP4; MoeConfig.backend 'Field(default='CUTLASS')' "
               "(tensorrt_llm/llmapi/llm_args.py, as quoted in the code index): its own CUTLASS and TRT-LLM-gen kernels"),
}


def moe_pairs(family: str) -> tuple:
    """The ``(stack, us)`` pairs a GPU family's calibration carries: each stack's fitted value for the family, else
    the value of the family :data:`MOE_ASSUMED` names for that stack.

    >>> moe_pairs("hopper"), moe_pairs("blackwell")[0]
    ((('trtllm', 182.3), ('triton', 23.8)), ('trtllm', 71.1))
    """
    return tuple((stack, MOE_LAYER_US.get((stack, family), MOE_LAYER_US[(stack, MOE_ASSUMED[stack])]))
                 for stack in MOE_KERNELS)


def moe_layer_us(calibration, stack: str) -> float:
    """The fixed cost of one MoE layer a pass, us, that ``calibration`` charges an engine whose MoE kernels are
    ``stack``; 0 for a calibration with no MoE term (the ideal limit).

    >>> from lab.serving_calibration import CALIBRATIONS, IDEAL
    >>> moe_layer_us(CALIBRATIONS["h200"], "trtllm"), moe_layer_us(CALIBRATIONS["h200"], "triton"), moe_layer_us(IDEAL, "triton")
    (182.3, 23.8, 0.0)
    >>> moe_layer_us(CALIBRATIONS["h200"], "cutlass")
    Traceback (most recent call last):
    ...
    ValueError: unknown MoE kernel stack 'cutlass'; valid: trtllm, triton
    """
    _check_stack(stack)
    return next((us for name, us in calibration.moeLayerUs if name == stack), 0.0)


def with_moe_layer_us(calibration, stack: str, us: float):
    """``calibration`` with ``stack``'s MoE cost set to ``us`` (a refit), the other stacks' kept.

    >>> from lab.serving_calibration import CALIBRATIONS
    >>> with_moe_layer_us(CALIBRATIONS["h200"], "triton", 0.0).moeLayerUs
    (('trtllm', 182.3), ('triton', 0.0))
    """
    _check_stack(stack)
    pairs = dict(calibration.moeLayerUs or ((name, 0.0) for name in MOE_KERNELS))
    pairs[stack] = us
    return calibration._replace(moeLayerUs=tuple((name, pairs.get(name, 0.0)) for name in MOE_KERNELS))


def _check_stack(stack: str) -> None:
    """Refuses a name that is not one of :data:`MOE_KERNELS` (an engine's ``moeKernels`` is data, so a misspelt one
    fails here instead of pricing its MoE layers at 0)."""
    if stack not in MOE_KERNELS:
        raise ValueError(f"unknown MoE kernel stack {stack!r}; valid: {', '.join(MOE_KERNELS)}")
