"""The fused MoE kernel's measured time by tokens a pass, against the lab's MoE layer.

The serving model prices one MoE layer of a pass of ``M`` tokens on one GPU as the stack's fixed cost
(:func:`lab.serving_moe.moe_layer_us`) plus the expected distinct routed experts of those tokens under uniform routing
(:func:`lab.serving_presets.distinct_experts`) times one expert's weight bytes (the GPU's share) over the calibrated
bandwidth. :func:`moe_layer_time_us` computes that from the step model's own constants
(``serving_step._measured_constants``), so no formula is written twice; its ``expert_us`` adds a candidate latency per
distinct expert (0: the model as it is), the one term the screen allowed to be proposed. :data:`MOE_KERNEL_TIMES` are
the kernel tables that passed the screen written before any was read (docs/READING.md, "The fused MoE kernel's time by
tokens a pass"): vLLM's ``benchmarks/kernels/benchmark_moe.py`` and SGLang's ``tuning_fused_moe_triton.py`` time the
Triton ``fused_moe`` (block alignment, both grouped GEMMs, activation, sum; the top-k of the random gating too in
vLLM's early script, computed outside the timed graph in SGLang's and vLLM's later ones) as ten calls in a CUDA graph,
per token count ``M`` (read through the code index: vLLM's ``benchmark_config`` at commit 005b07cd, "Capture 10
invocations with CUDA graph", ``avg = sum(latencies) / (num_iters * 10) * 1000 # us``; SGLang's ``prepare(i)`` calling
``select_experts`` before the replay). A cost the same at every ``M`` (the top-k) moves ``t(1)``, not the increments
``t(M) - t(1)`` the test turns on. :func:`kernel_comparison` sets each table beside the lab; :func:`fit_moe_expert_us`
fits the latency per distinct expert on the kernel times' increments ``t(M) - t(1)`` for ``M`` = 2..16 only. The result
(5 December 2026): the lab carries the growth of Mixtral's large experts and misses part of it for Qwen3's small ones
(the measured increments 21% to 57% above the lab's in two of the three Hopper tables); the fitted latency,
:data:`FITTED_EXPERT_US` (0.27 us), leaves one increment 16% off (Qwen3-30B-A3B FP8 on H100 at M = 4, beyond the 15%
fixed before the fit), so it was REFUSED and no model constant changed; even adopted it would add at most 48 x 128 x
0.27 us = 1.7 ms to a Qwen3-30B-A3B pass, and about 0.27 ms more to a verify pass of 4 tokens at batch one than to a
plain step (0.06 of a 4.5 ms plain step): not the cause of the SGLang rows' gap of about one plain step a cycle.

Standard library only.
"""

from math import log
from typing import NamedTuple

from .serving_calibration import CALIBRATIONS, ENGINES
from .serving_moe import moe_layer_us
from .serving_presets import GPUS, PRECISIONS, Transformer, _distinct
from .serving_step import _measured_constants

__all__ = ["KernelTable", "MOE_KERNEL_TIMES", "VERIFY_TOKENS", "TOLERANCE", "NOISE_US", "FITTED_EXPERT_US",
           "moe_layer_time_us", "kernel_comparison", "increment_misses", "fit_moe_expert_us"]

# The token counts a verify pass of batch 1 to 4 carries beyond a plain step's one: the test's range.
VERIFY_TOKENS = (2, 4, 8, 16)
# The screen's tolerance, fixed before any table was read: 15% on a ratio (|ln| <= 0.15); a measured increment under
# NOISE_US x 20/3 (20 us) may be missed by up to NOISE_US (3 us) instead, for timing noise.
TOLERANCE = 0.15
NOISE_US = 3.0
# fit_moe_expert_us() on MOE_KERNEL_TIMES (run once, 5 December 2026): refused, it misses one increment (above)
FITTED_EXPERT_US = 0.27


class KernelTable(NamedTuple):
    """One passing kernel table: ``source`` (repository, pull request, date, what was run), the lab's ``gpu`` and
    ``precision`` names, the kernel's shape on one GPU (``experts`` E, ``topk`` k, ``hidden``, ``n`` the per-GPU
    intermediate width as the config files name it, ``tp`` the tensor parallelism that gave it) and ``times``,
    ``(M, us)`` pairs as printed."""

    source: str
    gpu: str
    precision: str
    experts: int
    topk: int
    hidden: int
    n: int
    tp: int
    times: tuple


_PR24700 = ("vllm-project/vllm pull request 24700 (mgoin, 2025-09-11, '### Benchmarks on H100', the log naming "
            "E=8,N=7168,device_name=NVIDIA_H100_80GB_HBM3.json), benchmarks/kernels/benchmark_moe.py")
MOE_KERNEL_TIMES = (
    KernelTable(_PR24700 + " --model=mistralai/Mixtral-8x7B-Instruct-v0.1 -tp=2, '# Tuned Config': 'Batch size: 1, "
                "Kernel time: 144.03 us' ... 'Batch size: 16, Kernel time: 471.49 us'",
                "h100-sxm", "bf16", 8, 2, 4096, 7168, 2,
                ((1, 144.03), (2, 229.28), (4, 351.10), (8, 434.98), (16, 471.49))),
    KernelTable(_PR24700 + " --model=Qwen/Qwen3-30B-A3B -tp=1 --dtype=fp8_w8a8, '# Main': 'Batch size: 1, Kernel "
                "time: 44.54 us' ... 'Batch size: 16, Kernel time: 185.40 us'",
                "h100-sxm", "fp8", 128, 8, 2048, 768, 1,
                ((1, 44.54), (2, 59.94), (4, 90.46), (8, 129.77), (16, 185.40))),
    KernelTable("sgl-project/sglang pull request 11730 (pdasgup, 2025-10-16, 'add tuned fuse moe kernel for qwen3 235b "
                "fp8 on h200'), benchmark/kernels/fused_moe_triton/tuning_fused_moe_triton.py --model "
                "Qwen/Qwen3-235B-A22B-Instruct-2507 --tp-size 8 --dtype fp8_w8a8, '# Without tuned kernel': 'Batch "
                "size: 1 ... Kernel time: 31.70 us' ... 'Batch size: 16 ... Kernel time: 92.36 us'",
                "h200", "fp8", 128, 8, 4096, 192, 8,
                ((1, 31.70), (2, 36.56), (4, 49.67), (8, 66.87), (16, 92.36))),
    KernelTable("vllm-project/vllm pull request 31448 (Jzz1943, 2025-12-28, 'Add tuned triton fused_moe configs for "
                "Qwen3Moe on B200'), benchmarks/kernels/benchmark_moe.py --model Qwen/Qwen3-Omni-30B-A3B-Instruct "
                "--dtype auto --tp-size 1, '- with default config' (E=128,N=768,device_name=NVIDIA_B200): 'Batch size: "
                "1 ... kernel time: 39.61 us' ... 'Batch size: 4 ... kernel time: 73.18 us' (the rest not in the part "
                "read)", "b200", "bf16", 128, 8, 2048, 768, 1,
                ((1, 39.61), (2, 51.87), (4, 73.18))),
)


def _kernel_shape(table: KernelTable) -> Transformer:
    """One MoE layer of ``table``'s per-GPU shape, as a preset would write it (one layer, no attention to speak of)."""
    return Transformer("kernel", f"E={table.experts},N={table.n}", 1, table.hidden, 1, 1, 1, 0, 1, False, False,
                       table.source, experts=table.experts, active_experts=table.topk, expert_intermediate=table.n)


def moe_layer_time_us(table: KernelTable, tokens: float, stack: str = "triton", calibration=None,
                      expert_us: float = 0.0) -> float:
    """The lab's time of one MoE layer of ``table``'s shape on one of its GPUs, us, for a pass of ``tokens`` tokens on
    ``stack``'s kernels: the step model's fixed cost a MoE layer plus its expected distinct experts times one expert's
    bytes over the calibrated bandwidth, read off the step model's constants (``calibration``, a refit, in place of the
    GPU's), plus ``expert_us`` a distinct expert (a candidate term; the model has none). The experts' FLOPs (under 1%
    of it at ``tokens`` <= 64) are not added, as the screen decided.

    >>> round(moe_layer_time_us(MOE_KERNEL_TIMES[0], 1), 1), round(moe_layer_time_us(MOE_KERNEL_TIMES[1], 4), 1)
    (140.5, 69.3)
    >>> moe_layer_time_us(MOE_KERNEL_TIMES[0], 0)
    Traceback (most recent call last):
    ...
    ValueError: tokens must be at least 1 (got 0)
    """
    if tokens < 1:
        raise ValueError(f"tokens must be at least 1 (got {tokens})")
    if table.gpu not in GPUS or table.precision not in PRECISIONS:
        raise ValueError(f"unknown GPU {table.gpu!r} or precision {table.precision!r}; valid GPUs: {', '.join(GPUS)}; "
                         f"precisions: {', '.join(PRECISIONS)}")
    cal = calibration or CALIBRATIONS[table.gpu]
    fixed = moe_layer_us(cal, stack)   # refuses an unknown stack with one clear message
    engine = next(e for e in ENGINES.values() if e.moeKernels == stack)   # an engine on that stack prices the experts
    step = _measured_constants(_kernel_shape(table), table.gpu, table.precision, 1, cal, "target", engine)
    return fixed + (step.expert_ms * 1000 + expert_us) * _distinct(step, tokens)


def kernel_comparison(expert_us: float = 0.0) -> list:
    """Each passing table beside the lab at :data:`VERIFY_TOKENS` (against M = 1): dicts of ``table``, ``tokens``,
    ``measured`` and ``lab`` (us), ``ratio`` (measured ``t(M)/t(1)``), ``labRatio``, ``increment`` (``t(M) - t(1)``,
    us) and ``labIncrement``; ``expert_us`` a candidate latency per distinct expert (0: the model as it is).

    >>> rows = kernel_comparison()
    >>> len(rows), rows[0]["tokens"], round(rows[0]["ratio"], 3), round(rows[0]["labRatio"], 3)
    (14, 2, 1.592, 1.623)
    """
    rows = []
    for table in MOE_KERNEL_TIMES:
        measured = dict(table.times)
        lab_one = moe_layer_time_us(table, 1, expert_us=expert_us)
        for tokens in VERIFY_TOKENS:
            if tokens not in measured:
                continue
            lab = moe_layer_time_us(table, tokens, expert_us=expert_us)
            rows.append({"table": table, "tokens": tokens, "measured": measured[tokens], "lab": lab,
                         "ratio": measured[tokens] / measured[1], "labRatio": lab / lab_one,
                         "increment": measured[tokens] - measured[1], "labIncrement": lab - lab_one})
    return rows


def _increment_missed(row) -> bool:
    """Whether the lab's increment misses the measured one beyond the screen's tolerance (15%, or NOISE_US where the
    measured increment is under 20 us)."""
    if row["increment"] < NOISE_US * 20 / 3 and abs(row["labIncrement"] - row["increment"]) <= NOISE_US:
        return False
    return abs(log(row["labIncrement"] / row["increment"])) > TOLERANCE


def increment_misses(expert_us: float = 0.0) -> list:
    """The ``(table index, tokens)`` whose lab increment misses the measured one beyond the screen's tolerance, with
    ``expert_us`` a distinct expert (0: the model as it is).

    >>> increment_misses(FITTED_EXPERT_US)
    [(1, 4)]
    """
    return [(MOE_KERNEL_TIMES.index(row["table"]), row["tokens"]) for row in kernel_comparison(expert_us)
            if _increment_missed(row)]


def fit_moe_expert_us(low: float = 0.0, high: float = 5.0) -> float:
    """The latency per distinct expert (us) that minimises the sum of squared ``ln(lab increment / measured
    increment)`` over every passing table's M = 2..16, with every other constant held: a ternary search to 0.01 us
    (the loss is unimodal: each increment is affine in it), kernel times only. How :data:`FITTED_EXPERT_US` was found.

    >>> fit_moe_expert_us() == FITTED_EXPERT_US
    True
    """
    from .serving_validation import _ternary_minimum   # the search every one-constant fit of the serving model uses

    def loss(us):
        return sum(log(row["labIncrement"] / row["increment"]) ** 2 for row in kernel_comparison(us))

    return round(_ternary_minimum(loss, low, high, 0.005), 2)
