"""The tensor-parallel all-reduce of the serving model, priced from measured kernels.

One all-reduce costs ``t0 + bytes / rate`` up to the largest small message measured, and the bytes beyond it at a
rate measured on large messages (:func:`allreduce_us`), by GPU family and GPU count. The tables are the measurements,
each with where it was read; :mod:`lab.serving_calibration` puts the rows into each GPU family's calibration. Kept
apart from it because it is one idea with its own sources (split when that module passed 1,000 lines).

Standard library only; data as Python literals.
"""

__all__ = ["ALLREDUCE_SOURCES", "ALLREDUCE_LARGE_SOURCES", "ALLREDUCE_VLLM_EAGER_HOPPER", "ALLREDUCE_VLLM_GRAPH_HOPPER",
           "allreduce_fit", "allreduce_rows", "allreduce_beyond_rows", "allreduce_beyond", "allreduce_us", "allreduce_cost",
           "message_rates"]

# One tensor-parallel all-reduce, measured: latency in us against message bytes, by GPU family and GPU count, the
# kernels the engines run for decode-sized messages (a custom one-shot/two-shot all-reduce over NVLink or Infinity
# Fabric; NCCL where none runs). Priced as an affine fit per GPU count (allreduce_fit: t = t0 + bytes / rate, least
# squares of the relative error over the measured sizes, all of them at most 1.5 MiB, the decode range): t0 is what every all-reduce pays, the
# rate what a larger batch adds. A GPU count not measured takes the nearest measured count above it, or the largest
# (allreduce_cost). Families with no measurement of their own take another's, and the page calls them assumed.
ALLREDUCE_SOURCES = {
    # sgl-project/sglang pull request 2904 ('optimize custom allreduce kernel', 2025-01-15), 'unit test performance in
    # H100 (without cuda graph)', tests/test_trt_reduce.py, table 'custom allreduce', latency(ms) at tp size 2/4/8, its
    # 'data size' read as bytes: 512 0.0037/0.0048/0.0059, 4096 0.0039/0.0037/0.0057, 32768 0.0045/0.0048/0.0078,
    # 262144 0.0079/0.0139/0.0167, 524288 0.0125/0.0202/0.0221, 1048576 0.0199/0.0311/0.0338. Without a CUDA graph, so a
    # launch is in each figure (engines replay decode in graphs: an upper bound). The kernel timed is the TensorRT-LLM
    # one-shot SGLang ran from January to April 2025; SGLang pull request 5079 (2025-04-05: 'adapt vllm custom allreduce
    # kernel', 'remove existed tensorrt llm kernel') made it vLLM's, so both engines run one kernel family since. The
    # same table's vLLM kernel (ALLREDUCE_VLLM_EAGER_HOPPER, 8.7, 9.2 and 11.8 us at 32768) is slower by a copy the PR
    # itself names, not by its kernel: it is not charged to vLLM (ALLREDUCE_VLLM_GRAPH_HOPPER says why).
    "hopper": {
        2: ((512, 3.7), (4096, 3.9), (32768, 4.5), (262144, 7.9), (524288, 12.5), (1048576, 19.9)),
        4: ((512, 4.8), (4096, 3.7), (32768, 4.8), (262144, 13.9), (524288, 20.2), (1048576, 31.1)),
        8: ((512, 5.9), (4096, 5.7), (32768, 7.8), (262144, 16.7), (524288, 22.1), (1048576, 33.8)),
    },
    "mi300x": {
        # ROCm/aiter pull request 801 ('[feature] [rocm] add quick allreduce', 2025), kernel table float16, 'tp2(us)',
        # column 'vllm cr' (vLLM's custom all-reduce on ROCm): 4k 7.07, 8k 7.58, 16k 7.53, 32k 7.30, 64k 7.66, 128k 8.70,
        # 256k 11.45, 512k 17.13, 1M 28.15 (k read as KiB). The PR names ROCm, not the GPU: an MI300X (gfx942, the GPU
        # quickreduce targets, per vLLM pull request 19744) assumed.
        2: ((4096, 7.07), (8192, 7.58), (16384, 7.53), (32768, 7.30), (65536, 7.66), (131072, 8.70), (262144, 11.45),
            (524288, 17.13), (1048576, 28.15)),
        # vLLM pull request 19744 ('[Feature][Rocm] add quick all reduce for rocm', 2025-06-17; the collective 'only
        # enabled on AMD, MI300'), kernel test TP=4, column 'baseline' (the custom all-reduce): 2.0KB 7.18, 16.0KB 7.26,
        # 32.0KB 7.58, 256.0KB 14.39, 512.0KB 14.65, 1.0MB 22.91 us. No TP 8 row was read: 8 GPUs take TP 4's (assumed).
        4: ((2048, 7.18), (16384, 7.26), (32768, 7.58), (262144, 14.39), (524288, 14.65), (1048576, 22.91)),
    },
    # vLLM pull request 39080 ('[ROCM] Optimize all-reduce performances.', 2026-04-06, 'tunes some all-reduce performance
    # for mi355x'), table 'TP8 (bf16, dim=3072)', column 'vllm/us' (before the PR): 24K 6.3, 48K 6.7, 96K 7.6, 192K 10.0,
    # 384K 13.1, 768K 16.0, 1.5M 24.2. Only TP 8 was read: 2 and 4 GPUs take it too (assumed; fewer GPUs are faster on
    # every other family, so an upper bound).
    "mi355x": {
        8: ((24576, 6.3), (49152, 6.7), (98304, 7.6), (196608, 10.0), (393216, 13.1), (786432, 16.0), (1572864, 24.2)),
    },
    # haohervchb/sglang-V100 pull request 2 (2026-09-12): 'Measured inside a CUDA graph on this host (4 ranks, fp16)',
    # four V100 SXM2 behind one PCIe switch, no NVLink, column 'NCCL (PXB)': 4 KB 19.4, 8 KB 20.3, 16 KB 22.3, 32 KB 24.2,
    # 128 KB 51.8, 384 KB 83.5 us. Another GPU, but the PCIe path L40S and RTX 4090 all-reduce over (NCCL; vLLM's custom
    # all-reduce refuses more than two PCIe-only GPUs): their assumed all-reduce, at every GPU count.
    "pcie": {
        4: ((4096, 19.4), (8192, 20.3), (16384, 22.3), (32768, 24.2), (131072, 51.8), (393216, 83.5)),
    },
}


# The same all-reduce past the small fit's largest measured size (ALLREDUCE_SOURCES: 1 to 1.5 MiB), where engines
# switch algorithms (vLLM: custom two-shot up to its max size, then torch symmetric memory or NCCL, which approach the
# link's bandwidth): the small-message slope is not their rate. Measured latencies at 1 MiB and above, the kernel the
# engine dispatches; only their marginal rate is used (allreduce_beyond_rows: the rate of an affine fit over them,
# allreduce_fit), joined to the small fit at its largest measured size so the cost is continuous. A family with no
# large-size measurement keeps its small fit's rate past its largest measured size: an EXTRAPOLATION, assumed.
ALLREDUCE_LARGE_SOURCES = {
    # vllm-project/vllm pull request 24111 ('[Kernels] Enable Torch Symmetric Memory All-Reduce By Default',
    # 2025-09-02), 'Isolated primitives benchmark results', the description's H100 section (its first table, TP=2, is
    # headed '### H100'; the TP=6 table read is in the same description), bfloat16, hidden size 8192, column 'Best'
    # (what vLLM's size-based dispatch picks, symm_mem_multimem at these sizes), ms: (128, 8192) 2.00 MB 0.021,
    # (192, 8192) 3.00 MB 0.025, (256, 8192) 4.00 MB 0.031 ('MB' = MiB: (32, 8192) x 2 bytes is '0.50 MB'). Only
    # TP 6 was read: 2, 4 and 8 GPUs take its rate (assumed). Corroborating, not used: vllm-project/vllm pull request
    # 24532 ('[core] add nccl symmetric memory for all reduce'), TP = 4, GPU not named in what was read, best column
    # 2.00 MB 0.021, 3.00 MB 0.023, 4.00 MB 0.028 ms: the same marginal rate within 30%.
    "hopper": {6: ((2097152, 21.0), (3145728, 25.0), (4194304, 31.0))},
    # sgl-project/sglang pull request 6619 ('[Feature] Integrate quick allreduce and select the best allreduce
    # implementation'), 'TP=4 (latency us)', column 'baseline' (the custom all-reduce; its 1.0MB row, 22.91, is vLLM
    # pull request 19744's, read for ALLREDUCE_SOURCES): 1.0MB 22.91, 2.0MB 36.64, 4.0MB 63.86, 8.0MB 118.31 us. On
    # ROCm, an MI300X assumed as above; TP 2 and 8 take TP 4's rate (assumed).
    "mi300x": {4: ((1048576, 22.91), (2097152, 36.64), (4194304, 63.86), (8388608, 118.31))},
}


# vLLM's own custom all-reduce on H100 as sgl-project/sglang pull request 2904 timed it beside SGLang's (the same table
# as ALLREDUCE_SOURCES["hopper"], 'vllm', latency(ms) at tp size 2/4/8): 512 0.0095/0.0091/0.0101, 4096
# 0.0088/0.0085/0.0093, 32768 0.0087/0.0092/0.0118, 262144 0.0129/0.0206/0.0241, 524288 0.0177/0.0269/0.0304, 1048576
# 0.0266/0.0402/0.0450. 'Without cuda graph', and the PR says why it is slower: 'custom allreduce performance is faster
# than vllm when disable cuda graph since copy input mode can save launch kernel time'. Outside a graph vLLM's kernel
# first copies its input into the shared buffer, a second launch; inside one it reads registered graph buffers
# (vllm/distributed/device_communicators/custom_all_reduce.py, CustomAllreduce.custom_all_reduce, read through the
# code index, id 57434741329: 'all_reduce(input, registered=True)' while the stream is capturing, else 'outside of
# cuda graph context, custom allreduce incurs a cost of cudaMemcpy'; SGLang PR 2904 itself: 'adapt vllm register cuda
# graph buffer to save a data copy'). The gap over SGLang's is a near-constant 3.6
# to 5.8 us at 512 B to 32 KiB (tests/test_serving_calibration_allreduce.py), a launch and not a rate. vLLM decodes in CUDA
# graphs, so this table prices a copy vLLM's decode does not make: NOT charged, kept as the measurement that says so.
ALLREDUCE_VLLM_EAGER_HOPPER = {
    2: ((512, 9.5), (4096, 8.8), (32768, 8.7), (262144, 12.9), (524288, 17.7), (1048576, 26.6)),
    4: ((512, 9.1), (4096, 8.5), (32768, 9.2), (262144, 20.6), (524288, 26.9), (1048576, 40.2)),
    8: ((512, 10.1), (4096, 9.3), (32768, 11.8), (262144, 24.1), (524288, 30.4), (1048576, 45.0)),
}
# vLLM's all-reduce as its decode runs it: timed inside a CUDA graph by vLLM's own benchmark
# (benchmarks/kernels/benchmark_device_communicators.py: CUDA_GRAPH_CAPTURE_CYCLES = 10 all-reduces captured in one
# graph, replayed, the wall time divided by 10), bfloat16, hidden 8192, in us. Measured from 0.5 MiB only (32 tokens of
# a hidden of 8192); no in-graph H100 time of it below that size was found (vLLM pull request 33839, 2026-02-04,
# benchmarked 2 KiB to 1 GiB on 4 and 8 H100s, but only its ratios were read: 'custom_AR wins (1.07x - 1.35x faster)'
# at 32K-256K on 4 GPUs, as vllm/distributed/device_communicators/all_reduce_utils.py quotes them).
# - 2 GPUs: vllm-project/vllm pull request 24111 (2025-09-02), '### H100', 'TP=2', ca_1stage, the 'Best' there: 0.50 MB
#   0.007, 1.00 MB 0.009, 1.50 MB 0.011 ms (the rows past 1.5 MB read from a mirror of the PR page in the pages corpus,
#   github.mosekj.com/vllm-project/vllm/pull/24111; its 2.00 MB row is cut before its 'Best'). Its marginal rate, 262
#   GB/s, is within a quarter of the 215 GB/s ALLREDUCE_LARGE_SOURCES assumes for 2 GPUs from the TP=6 table.
# - 4 GPUs: vllm-project/vllm pull request 24532 ('[core] add nccl symmetric memory for all reduce', 2025-09-09), 'TP = 4',
#   ca_1stage (the best of the default kernels at these sizes) 0.50 MB 0.010, 1.00 MB 0.014, 1.50 MB 0.019 ms. The
#   GPU is not named in what was read: an H100 assumed (the PR's DeepSeek-R1 run is on 8 GPUs of one node).
# - 6 GPUs: pull request 24111, the H100 TP=6 table, 'Best' (what vLLM's size-based dispatch picks): 0.50 MB 0.013
#   (ca_1stage), 1.00 MB 0.016, 1.50 MB 0.018 (symm_mem_multimem).
# NOT charged: the small sizes of batch-1 decode are not measured, and one kernel for both engines (SGLang pull request
# 5079, above) gives no engine a split. What it shows (tests/test_serving_calibration_allreduce.py): at 0.5 to 1.5 MiB
# the Hopper fit (SGLang's January 2025 kernel, eager) charges 1.7 to 2.5 times what vLLM measures in a graph, so for
# vLLM on several H100s the priced all-reduce is an upper bound there, and the 70B row's missing time (0.78) is not in
# its all-reduce.
ALLREDUCE_VLLM_GRAPH_HOPPER = {
    2: ((524288, 7.0), (1048576, 9.0), (1572864, 11.0)),
    4: ((524288, 10.0), (1048576, 14.0), (1572864, 19.0)),
    6: ((524288, 13.0), (1048576, 16.0), (1572864, 18.0)),
}


def allreduce_fit(points) -> tuple:
    """One all-reduce's latency against its size, fitted as ``t = t0 + bytes / rate`` over ``points`` ((bytes, us)
    pairs) by least squares on the relative error, ``sum ((t0 + x / rate - y) / y)^2`` (weights ``1 / y^2``), so a
    small message, the decode case, counts as much as a large one: ``(t0 in us, rate in bytes per us)``.

    >>> t0, rate = allreduce_fit(((0, 5.0), (1000, 6.0), (2000, 7.0)))
    >>> round(t0, 6), round(rate, 6)
    (5.0, 1000.0)
    """
    weights = [1 / y ** 2 for _, y in points]
    total = sum(weights)
    mean_x = sum(w * x for w, (x, _) in zip(weights, points)) / total
    mean_y = sum(w * y for w, (_, y) in zip(weights, points)) / total
    slope = (sum(w * (x - mean_x) * (y - mean_y) for w, (x, y) in zip(weights, points))
             / sum(w * (x - mean_x) ** 2 for w, (x, _) in zip(weights, points)))
    return mean_y - slope * mean_x, 1 / slope


def allreduce_rows(family: str) -> tuple:
    """A family's measured all-reduce as ``(gpus, t0 us, rate bytes per us)`` rows, one per measured GPU count
    (:data:`ALLREDUCE_SOURCES`, :func:`allreduce_fit`): what a :class:`Calibration` holds.

    >>> [(g, round(t0, 1)) for g, t0, _ in allreduce_rows("hopper")]
    [(2, 3.8), (4, 4.0), (8, 6.1)]
    """
    return tuple((g, *allreduce_fit(points)) for g, points in sorted(ALLREDUCE_SOURCES[family].items()))


def allreduce_beyond_rows(family: str) -> tuple:
    """Past each measured GPU count's largest measured small size (:data:`ALLREDUCE_SOURCES`), the marginal rate
    measured on large messages (:data:`ALLREDUCE_LARGE_SOURCES`, the rate of :func:`allreduce_fit` over them; the
    nearest large-measured GPU count at or above, else the largest): ``(gpus, from bytes, rate bytes per us)`` rows.
    A family with none measured: no rows (its small fit's rate continues, an extrapolation).

    >>> [(g, start, round(rate / 1000)) for g, start, rate in allreduce_beyond_rows("hopper")]   # GB/s
    [(2, 1048576, 215), (4, 1048576, 215), (8, 1048576, 215)]
    >>> allreduce_beyond_rows("pcie")
    ()
    """
    large = ALLREDUCE_LARGE_SOURCES.get(family)
    if not large:
        return ()
    counts = sorted(large)
    rows = []
    for g, points in sorted(ALLREDUCE_SOURCES[family].items()):
        nearest = next((c for c in counts if c >= g), counts[-1])
        rows.append((g, max(x for x, _ in points), allreduce_fit(large[nearest])[1]))
    return tuple(rows)


def allreduce_beyond(cal, g: int) -> tuple:
    """Where one all-reduce on ``g`` GPUs under ``cal`` leaves its small-message fit (:func:`allreduce_cost`) and the
    rate it is charged past it: ``(from bytes, bytes per ms)``; ``(inf, the small rate)`` where no large message is
    measured (the small fit extrapolated, assumed) or on one GPU. Rows chosen as :func:`allreduce_cost` chooses them.

    >>> from lab.serving_calibration import ADA, HOPPER, IDEAL   # the families' calibrations
    >>> start, rate = allreduce_beyond(HOPPER, 4)
    >>> start, round(rate / 1e6)     # from 1 MiB, at about 215 GB/s
    (1048576, 215)
    >>> allreduce_beyond(ADA, 4)[0]
    inf
    """
    if g > 1 and cal.allreduceBeyond:
        row = next((row for row in cal.allreduceBeyond if row[0] >= g), cal.allreduceBeyond[-1])
        return row[1], row[2] * 1000
    return float("inf"), allreduce_cost(cal, g)[1]


def allreduce_us(cal, g: int, message_bytes: float) -> float:
    """One all-reduce of ``message_bytes`` on ``g`` GPUs, us: ``t0 + x / rate`` up to the small fit's largest measured
    size ``s`` (:func:`allreduce_cost`), then ``t0 + s / rate + (x - s) / rate_beyond`` (:func:`allreduce_beyond`).
    A 240-token verify pass of Llama-3-70B on 4 H100s (240 x 8192 x 2 bytes):

    >>> from lab.serving_calibration import ADA, HOPPER, IDEAL   # the families' calibrations
    >>> round(allreduce_us(HOPPER, 4, 240 * 8192 * 2), 1), round(allreduce_us(HOPPER, 4, 2 ** 20), 1)
    (48.0, 34.6)
    """
    latency_us, bytes_per_ms = allreduce_cost(cal, g)
    start, beyond_per_ms = allreduce_beyond(cal, g)
    small = min(message_bytes, start)
    return latency_us + 1000 * (small / bytes_per_ms + max(0.0, message_bytes - start) / beyond_per_ms)


def allreduce_cost(cal, g: int) -> tuple:
    """One all-reduce on ``g`` GPUs under ``cal``: ``(latency us, bytes per ms)``, its message taking
    ``latency + bytes / rate``. From the calibration's measured rows (``allreduce``: the nearest measured GPU count
    at or above ``g``, else the largest), or where it has none (the ideal limit) a ring over the link:
    ``allreduceUs`` and ``linkBandwidth g / (2 (g - 1))``. One GPU: no all-reduce.

    >>> from lab.serving_calibration import ADA, HOPPER, IDEAL   # the families' calibrations
    >>> allreduce_cost(HOPPER, 1)
    (0.0, inf)
    >>> [round(allreduce_cost(HOPPER, g)[0], 1) for g in (2, 3, 4, 8, 16)]
    [3.8, 4.0, 4.0, 6.1, 6.1]
    >>> allreduce_cost(IDEAL, 8)
    (0.0, inf)
    """
    if g <= 1:
        return 0.0, float("inf")
    if cal.allreduce:
        row = next((row for row in cal.allreduce if row[0] >= g), cal.allreduce[-1])
        return row[1], row[2] * 1000
    return cal.allreduceUs, cal.linkBandwidth / 1000 * g / (2 * (g - 1))


def message_rates(cal, g: int, unit_bytes: float) -> tuple:
    """A message of ``unit_bytes`` per unit (a token's activations, a sequence's gathered logits) on ``g`` GPUs, as a
    step prices it: ``(ms a unit at the small rate, the units past which the large-message rate applies, ms a unit
    past them)``, from the measured fit (:func:`allreduce_cost`, :func:`allreduce_beyond`); nothing on one GPU or
    without a message. One DeepSeek-V3 MTP step's gathered logits on 8 B200s (1 MiB is about four sequences):

    >>> from lab.serving_calibration import CALIBRATIONS
    >>> per, knee, beyond = message_rates(CALIBRATIONS["b200"], 8, 258560)
    >>> round(per * 1000, 2), round(knee, 2), round(beyond * 1000, 2)   # us a sequence
    (7.74, 4.06, 1.2)
    """
    if not unit_bytes or g <= 1:
        return 0.0, float("inf"), 0.0
    _, per_ms = allreduce_cost(cal, g)
    start, beyond_per_ms = allreduce_beyond(cal, g)
    return unit_bytes / per_ms, start / unit_bytes, unit_bytes / beyond_per_ms
