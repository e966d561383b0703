"""Calibration of the serving model's per-operator step (``stepModel="measured"``) on measured
step times, one calibration per GPU preset, every number with where it was read.

Only step times are used here: a plain decode step (inter-token latency at a fixed batch) or a
verify step (the target's scoring pass over ``k + 1`` tokens per sequence), against the batch
and the tokens per sequence. End-to-end speedups of speculative decoding are kept apart, in
:mod:`lab.serving_validation`: they judge the model, so they do not tune it.

How the constants were chosen: coordinate descent over the efficiencies, the overlap and the per-pass
fixed cost minimising the squared log-ratio of model to measurement over the GPU family's
:data:`STEP_MEASUREMENTS` (:func:`lab.serving_validation.fit_calibration`, kept and tested;
``lab.checks.serving`` holds the model to every measurement within its tolerance). Each row is timed as
it was measured (:data:`KINDS`: a pass, an engine's verify step, a scorer's time, a draft proposal) on
the engine version that measured it (:data:`ENGINES`), so an engine's own costs are calibrated on its
own step times.

- Ampere (A100 40GB and 80GB share the GA100 chip and one calibration): the scoring times of vLLM's pull
  request 5691 (Llama-7B, k = 5, batch 4 to 128), both columns: the MQA scorer as the GPU pass alone
  and BatchExpansionTop1Scorer, the scorer vLLM V0 ran with CUDA graphs, which also fits V0's batch
  expansion (:data:`EXPANSION_KV_SHARE`); and a plain-decode sweep of Llama-3.1-8B on an A100 40GB
  (today's vLLM V1). Fitted 0.916 of the bandwidth, 0.839 of the BF16 peak, overlap 0.091, 3.73 ms a
  pass. Residuals 0.93 to 1.12.
- Hopper (H100 SXM and H200 share the GH100 chip and one calibration): the SpecDecode-Bench step-time
  model fitted to vLLM 0.10.1 on one H100 (Llama-3.1-8B, batch 1 to 64): its plain and verify passes
  (2, 4 and 6 tokens a sequence) at batch 1, 8, 16, 32 and 64 as rows, on the synchronous V1 it timed,
  which gives Hopper its verify-pass calibration; plain decode of Llama-3.1-8B on one H100 (batch 1 and
  4, today's V1) and vLLM's performance-benchmark latency tests on H200 (Llama-3.1-8B on one GPU and
  Llama-3-70B on four, batch 8; engine version not stated, synchronous assumed). Fitted 0.9015 of the
  bandwidth, 0.7626 of the BF16 peak, overlap 0.328, 0.74 ms a pass, with the all-reduce as measured (below).
  Residuals 0.93 to 1.04, and 0.78 for the 70B row on four GPUs (held to 25%: the uncited 30 us an all-reduce
  it was fitted with before had absorbed a cost of vLLM's tensor-parallel step not found measured); the study's
  proposal, an EAGLE-3 head's (lookahead 3, read in the study's run scripts), at batch 1 to 64 calibrates what V1
  0.10's EAGLE proposal costs beyond the ops priced from the code (0.306 ms a proposal, charged to EAGLE-1 too: 0.10.1
  runs both heads' drafts outside CUDA graphs; :mod:`lab.serving_specdecode`), residuals 0.955 to 1.086, held to 15%.
  The fit's rows are points of a fitted model, not its raw measurements (the study does not publish
  them), at an assumed 512 tokens of context.
- Per-sequence engine work, the same on every GPU (measured on the engine, not fitted): 1.13 us per
  sequence per step (vLLM's Scheduler.update_from_output micro-benchmark, :data:`SEQUENCE_US`) and
  the rejection sampler's 5.6 us per draft token in a verify pass (:data:`REJECT_US`). Neither is
  fitted on the step times above; the step-time residuals were unchanged by them to within 1%.
  Assumed: the sampler's measured cost (sampled drafts, temperature 0.5) for greedy verification
  too; the engine's other per-sequence loops (schedule(), input preparation), not found measured,
  are left out, so these terms are a lower bound on what grows with the batch.
- Output processing that speculation pays serially, the same on every GPU (measured on the engine, not
  fitted): 0.103 ms per sequence per verify step (:data:`SERIAL_OUTPUT_US`, an estimate in vLLM's RFC
  #6913) and 21.2 us per emitted token beyond a sequence's first (:data:`TOKEN_OUTPUT_US`, vLLM issue
  #5206). Plain decoding overlaps it with the next GPU pass; only engines that turn that overlap off while
  speculating pay it (vLLM V0; SGLang before its overlap scheduler ran with speculation, per sequence
  only, SGLang detokenizing in its own process). vLLM V1 detokenizes in its front end and does not.
- Engines (:data:`ENGINES`, read in each version's code, each switch with its place in ``costs``):
  which of these costs a version pays, batch expansion and its bookkeeping, the speculation
  bookkeeping of a cycle, a draft extend pass and whether it runs in a CUDA graph, vLLM V1's first draft
  step over the verified tokens, the host work a step leaves serial under synchronous scheduling (1.2
  ms, SpecDecode-Bench's per-step overhead), and V1 0.10's unfused state updates between draft steps (10 eager
  ops a gap of 8.6 us each, :func:`inter_step_ms`; fused in today's V1) and, with an EAGLE-3 head, V1 0.10's eager
  ops outside the draft's CUDA graph (4 a cycle and 4 a draft step, :func:`eagle3_eager_ms`), SGLang's V1 EAGLE
  worker's eager ops a cycle (62 with its extend pass captured, 41 eager, and 8 a draft step after the first,
  :func:`cycle_eager_ms`, counted in :mod:`lab.serving_sglang`); how each proposes n-gram drafts
  (:func:`ngram_proposal_ms`: vLLM V1's KMP scan measured at 1.06 ns a context token, :data:`NGRAM_SCAN_NS`; V0's
  proposer at 1.5 ms a proposed token, :data:`NGRAM_V0_PROPOSAL_TOKEN_MS`; SGLang's trie match at 32.4 us a request,
  45.3 before 2026, :data:`SGL_NGRAM_REQUEST_US`), whether V1 runs
  synchronously with them, and vLLM V0's draft model on several GPUs, whose steps are prepared on the CPU.
  TensorRT-LLM (``trtllm``): its one-model MTP as NVIDIA's DeepSeek-R1 B200 blog ran it, read in its code and blogs
  (the verify pass, acceptance and the head's k steps in one forward captured in one CUDA graph, so a draft step
  pays no launch of its own; the first step over the last accepted token only; the overlap scheduler on). On every
  engine an MTP module of a MoE checkpoint is the MoE layer it ships (:func:`lab.serving_presets.eagle_head`, its
  kernels :data:`MOE_LAYER_US`) and gathers its logits each draft step on several GPUs; where the engine's code builds
  its 2h -> h fusion whole, every GPU reads all of it (``mtpFusionWhole``; :mod:`lab.serving_mtp`). No verify or
  draft step time of it was found, so nothing of it is fitted: the blog's MTP rows only judge it
  (:mod:`lab.serving_validation`).
- A mixture of experts' own kernels (:data:`MOE_LAYER_US`, :mod:`lab.serving_moe`): a fixed cost per MoE layer per
  pass by the engine's MoE kernel stack (``Engine.moeKernels``, read in each engine's code) and GPU family, each stack
  fitted on its own engines' plain steps only (:data:`MOE_STEP_MEASUREMENTS`): TensorRT-LLM's own kernels on its
  DeepSeek-R1 steps on 8 x H200 (FP8) and 8 x B200 (FP4) (issue #5929): 182.3 us on Hopper, 71.1 us on Blackwell,
  Hopper's assumed elsewhere; the Triton fused_moe of vLLM and SGLang on vLLM's Qwen3-30B-A3B steps on one A100
  (tenstorrent/tt-inference-server #340): 23.8 us, assumed on every other family (vLLM's Mixtral steps on Hopper,
  :data:`MOE_TRITON_HOPPER_STEPS`, were read and refused: no one value holds them within 15%). Held out
  (:data:`MOE_HELD_OUT_STEPS`: SGLang's DeepSeek-V3 on 8 x H200, TensorRT-LLM's B200 blog, gpt-fast's Mixtral on 2 to
  8 A100s; SGLang's Qwen3-30B-A3B on H100s in :func:`lab.serving_validation.held_out_steps`), it is off by 0.15 to
  1.58: one value a stack does not price every version's kernels (docs/READING.md).
- The tensor-parallel all-reduce (:data:`ALLREDUCE_SOURCES`): two a layer, each ``t0 + bytes / rate``, fitted per GPU
  family and GPU count on measured kernel latencies against message size (:func:`allreduce_fit`,
  :func:`allreduce_cost`): Hopper from SGLang pull request 2904 (H100, 2, 4 and 8 GPUs), MI300X from ROCm/aiter pull
  request 801 and vLLM pull request 19744, MI355X from vLLM pull request 39080, the PCIe GPUs from an NCCL
  measurement over a PCIe switch; Ampere and Blackwell assume Hopper's (none read).
- Memory for weights and KV cache by engine (:func:`engine_memory_bytes`, each :class:`Engine`'s ``memoryRule``; in
  :mod:`lab.serving_engine_memory`): vLLM's gpu_memory_utilization 0.9, SGLang's mem_fraction_static by GPU memory
  and TP size (:func:`sgl_mem_fraction_static`), TensorRT-LLM's free_gpu_memory_fraction 0.9 of what the weights
  leave free.
- B200, B300, MI300X and MI355X: no measured dense step time that fits their efficiencies was found; their
  calibration is assumed (Hopper's efficiencies and fixed costs, the datasheet's interconnect; Blackwell's MoE term is
  its own) and the page says so. MI300X's fixed cost per pass alone is fitted, 3.00 ms, on AMD's published vLLM
  latencies of Llama-3.1-70B in FP8 on 8 x MI300X at batch 1 to 4 (:data:`PASS_STEP_MEASUREMENTS`, residuals 0.95 to
  1.13). B200's one measured dense plain step is held out (:func:`lab.serving_validation.held_out_steps`). vLLM V0's own
  logged stage times on 8 x MI300X fit nothing: they bound its scoring pass and hold its multi-GPU draft steps
  (:mod:`lab.serving_v0_stages`).
- L40S, RTX 4090 and RTX 3090: no measurement was found. Their calibration is assumed (Ampere's
  efficiencies, a PCIe link of 25 GB/s between GPUs), and the page says so. The one RTX 3090 trace found
  (noonghunna/club-3090 #105, lab/traces/samples/vllm_log.txt) is Qwen3.6-27B, a model with no preset here, in a
  mixed AutoRound quantization on power-capped cards: it checks nothing.

Standard library only; data as Python literals.
"""

from typing import NamedTuple

from .serving_allreduce import (ALLREDUCE_LARGE_SOURCES, ALLREDUCE_SOURCES, ALLREDUCE_VLLM_EAGER_HOPPER,  # noqa: F401
                                ALLREDUCE_VLLM_GRAPH_HOPPER, allreduce_beyond, allreduce_beyond_rows,
                                allreduce_cost, allreduce_fit, allreduce_rows, allreduce_us)
from .serving_specdecode import EAGLE3_PROPOSAL_MS, UNCAPTURED_DRAFT_COST, proposal_ms  # noqa: F401
from .serving_engine_sources import (SGLANG_DSV3_FUSION, TRTLLM_COSTS, V0_COSTS, V1_SHARED, VLLM_DSV3_FUSION,
                                     VLLM_GLM_FUSION, VLLM_QWEN3_NEXT_SPLIT)
from .serving_sglang import (FIRST_DRAFT_FROM_EXTEND, HOPPER_FA3_GPUS, NGRAM_MASK_OPS, SGLANG_TODAY_COSTS, V1_CYCLE_OPS,
                             V1_STEP_OPS, v1_cycle_ops)
from .serving_moe import MOE_KERNEL_SOURCES, MOE_LAYER_US, moe_layer_us, moe_pairs  # noqa: F401
from .serving_engine_memory import (TRTLLM_FREE_GPU_MEMORY_FRACTION, VLLM_GPU_MEMORY_UTILIZATION,  # noqa: F401
                                    engine_memory_bytes, sgl_mem_fraction_static)

__all__ = ["Calibration", "CALIBRATIONS", "IDEAL", "StepMeasurement", "STEP_MEASUREMENTS", "MEASURED_GPUS", "Engine", "inter_step_ms", "eagle3_eager_ms", "cycle_eager_ms",
           "EAGLE3_PROPOSAL_MS", "proposal_ms",   # from lab.serving_specdecode
           "MOE_LAYER_US", "moe_layer_us",   # from lab.serving_moe
           "MOE_STEP_MEASUREMENTS", "MOE_HELD_OUT_STEPS", "MOE_TRITON_HOPPER_STEPS", "MI300X_PASS_MS", "PASS_STEP_MEASUREMENTS",
           "ALLREDUCE_SOURCES", "allreduce_fit", "allreduce_rows", "allreduce_cost",
           "ALLREDUCE_LARGE_SOURCES", "allreduce_beyond_rows", "allreduce_beyond", "allreduce_us",
           "ALLREDUCE_VLLM_EAGER_HOPPER", "ALLREDUCE_VLLM_GRAPH_HOPPER",   # from lab.serving_allreduce
           "VLLM_GPU_MEMORY_UTILIZATION", "TRTLLM_FREE_GPU_MEMORY_FRACTION", "sgl_mem_fraction_static", "engine_memory_bytes",
           # from lab.serving_engine_memory
           "ENGINES", "DEFAULT_ENGINE",
           "NGRAM_SCAN_NS", "NGRAM_CALL_MS", "NGRAM_REQUEST_US", "NGRAM_V0_PROPOSAL_TOKEN_MS", "SGL_NGRAM_REQUEST_US",
           "ngram_proposal_ms"]


class Calibration(NamedTuple):
    """The per-operator model's constants for one GPU (module docstring of :mod:`lab.serving`).

    ``memEfficiency`` and ``flopEfficiency`` are fractions of the datasheet bandwidth and dense
    tensor peak; ``overlap`` the share of a GEMM's smaller time (memory or compute) hidden under
    the larger; ``passMs`` the fixed cost of one forward pass (scheduling, input preparation,
    sampling); ``layerMs`` the fixed cost per layer per pass (kernel launches, norms, rotary
    embedding); ``sequenceUs`` the engine's work per sequence per step (scheduler bookkeeping);
    ``rejectUs`` the rejection sampler's per draft token in a verify pass; ``serialOutputUs`` the
    engine's output processing per sequence that a speculative cycle pays serially after its verify
    pass (plain decoding overlaps it with the GPU); ``tokenOutputUs`` the same processing's cost for each
    token a cycle emits for a sequence beyond its first (incremental detokenization); ``allreduce`` one all-reduce's
    measured latency and rate by GPU count (:func:`allreduce_rows`, :func:`allreduce_cost`), ``allreduceUs`` its latency
    where none is measured (the ideal limit: 0); ``moeLayerUs`` the fixed cost of one mixture-of-experts layer per pass
    by MoE kernel stack, ``(stack, us)`` pairs (:data:`MOE_LAYER_US`, :func:`moe_layer_us`; none in the ideal limit); ``allreduceBeyond`` the rate past the measured small sizes by GPU count
    (:func:`allreduce_beyond_rows`, :func:`allreduce_beyond`); ``engineTerms`` whether the engine's own costs (:class:`Engine`) are charged
    (not in the ideal limit); ``linkBandwidth`` the bytes per second
    one GPU sends to the others (used only where no all-reduce is measured: a ring over it); ``memoryUtilization`` vLLM's default
    ``gpu_memory_utilization`` (:data:`VLLM_GPU_MEMORY_UTILIZATION`; what each engine gives to weights and KV cache is
    its own rule, :func:`engine_memory_bytes`)."""

    memEfficiency: float
    flopEfficiency: float
    overlap: float
    passMs: float
    draftPassMs: float
    specCycleMs: float
    layerMs: float
    allreduceUs: float
    linkBandwidth: float
    memoryUtilization: float
    measured: bool
    source: str
    sequenceUs: float = 0.0
    rejectUs: float = 0.0
    serialOutputUs: float = 0.0
    tokenOutputUs: float = 0.0
    engineTerms: bool = True
    moeLayerUs: tuple = ()
    allreduce: tuple = ()
    allreduceBeyond: tuple = ()


_AMPERE = ("fitted on the A100 step times listed in STEP_MEASUREMENTS (vLLM pull request 5691's scoring times, both "
           "scorers; a vLLM plain-decode sweep on A100 40GB); NVLink 3: 600 GB/s per GPU both ways, 300 one way")
_HOPPER = ("fitted on the H100 and H200 step times listed in STEP_MEASUREMENTS (SpecDecode-Bench's fitted vLLM 0.10.1 "
           "plain and verify passes, batch 1-64; plain decode on H100 and H200); NVLink 4: 900 GB/s per GPU both ways, "
           "450 one way")
_ASSUMED = ("no step-time measurement found: Ampere's efficiencies and fixed costs are assumed, with a PCIe "
            "link of about 25 GB/s between GPUs")

# The speculation bookkeeping per cycle, read in vLLM issue #6915 (github.com/vllm-project/vllm/issues/6915,
# 2024-07-29, by vLLM's speculative-decoding author): copying proposals to the CPU 'takes ~1ms', the scoring
# model's prepare inputs '(300us)', 'end-to-end ... ~1.3ms for MQA'. A measured engine cost, not a speedup.
SPEC_CYCLE_MS = 1.3
# Per-sequence engine work per step, read in vLLM pull request 46112 (github.com/vllm-project/vllm/pull/46112,
# 2026-06-18, micro-benchmark benchmarks/overheads/benchmark_scheduler_update_from_output.py, medians of 5, before
# the PR's change): Scheduler.update_from_output takes 0.142 ms at batch 128 and 0.287 ms at 256, so
# (0.287 - 0.142) / 128 = 1.13 us per sequence per step. That is one of the engine's per-sequence loops; the
# scheduler's schedule() and the input preparation loop over the sequences too and were not found measured, so
# this term is a lower bound. A CPU cost: the same on every GPU.
SEQUENCE_US = 1.13
# The rejection sampler per draft token, read in vLLM pull request 5131 (github.com/vllm-project/vllm/pull/5131,
# comment of 2024-06-06): 'Avg Time: 0.0017990445097287495' s in the rejection sampler's forward pass at batch 64,
# 5 speculative tokens, temperature 0.5 (a 68M draft on a 160M target; the GPU is not named): 1.80 ms / (64 x 5)
# = 5.6 us per draft token. Greedy verification (an argmax comparison) is cheaper; the model charges this
# measured sampled-verification cost whatever the temperature, an assumption the page states.
REJECT_US = 1.80e3 / (64 * 5)
# Output processing per sequence per engine step, read in vLLM issue #6913 (github.com/vllm-project/vllm/issues/6913,
# 'Asynchronous Output Processor', 2024-07-29, vLLM's team): time taken by LLMEngine._process_model_outputs with
# Llama-3-70B FP8 on 4 x H100, 128 input tokens: '| 1 | 19 | 0.2 |' and '| 32 | 25 | 3.4 |' (batch, TPOT ms, ms in
# the function; the table's third row repeats the first's numbers and is not used): (3.4 - 0.2) / (32 - 1) = 0.103
# ms per sequence. Plain decoding overlaps it with the next GPU pass (the asynchronous output processor that issue
# proposed, on by default from vLLM 0.6.0; SGLang's overlap scheduler). With speculative decoding vLLM V0 turned
# the overlap off (vllm/config.py, ModelConfig.verify_async_output_proc: 'if speculative_config:
# self.use_async_output_proc = False'; it logs 'Async output processing is not supported with speculative decoding
# currently') and so did SGLang with EAGLE (python/sglang/srt/server_args.py of the v0.4 series, read through the
# code index: 'The radix cache, chunked prefill, and overlap scheduler are disabled because of using eagle
# speculative decoding.'). So a speculative cycle pays it serially, once, after its verify pass. A CPU cost: the
# same on every GPU. Engines that overlap it with speculation as well pay less (the page says so).
SERIAL_OUTPUT_US = (3.4 - 0.2) / (32 - 1) * 1000
# Output processing per emitted token beyond a sequence's first in a cycle, read in vLLM issue #5206
# (github.com/vllm-project/vllm/issues/5206, vLLM 0.3.0, Qwen1.5-0.5B): the engine logged
# 'detokenize_incrementally cost 2.1219253540039062e-05 seconds' a call, one call per token (the typical logged
# value: eight logged calls from 1.93e-05 to 4.43e-05, median 2.11e-05): 21.2 us. The measured 0.103 ms above
# is one token a sequence; a speculative cycle emits T tokens a sequence, and vLLM V0's output processor for it appends, detokenizes and stop-checks them one at a time
# (vllm/engine/output_processor/multi_step.py, MultiStepOutputProcessor._process_seq_outputs: 'Incrementally
# append tokens to the sequence, as if we had only one new token', calling _process_decode_and_stop per token;
# read in a V0-era copy through the code index). Only the detokenization is charged per extra token (the stop
# check is cheaper and was not found measured): a lower bound. A CPU cost: the same on every GPU.
TOKEN_OUTPUT_US = 21.2
# A draft pass inside an engine step: no measurement found; assumed 0.2 ms (its argmax sampling and
# graph launch) plus the per-layer cost. The page says so.
DRAFT_PASS_MS = 0.2

# A mixture of experts' fixed cost per MoE layer per pass, us, by the engine's MoE kernel stack (Engine.moeKernels:
# TensorRT-LLM's own kernels, 'trtllm', or the Triton fused_moe of vLLM and SGLang, 'triton') and the GPU family:
# lab.serving_moe.MOE_LAYER_US, each stack fitted on its own engines' plain steps (MOE_STEP_MEASUREMENTS) only; each
# calibration below carries its family's (stack, us) pairs (lab.serving_moe.moe_pairs).
AMPERE = Calibration(0.916, 0.839, 0.091, 3.729, DRAFT_PASS_MS, SPEC_CYCLE_MS, 0.010, 10.0, 300e9, 0.9, True, _AMPERE,
                     SEQUENCE_US, REJECT_US, SERIAL_OUTPUT_US, TOKEN_OUTPUT_US, moeLayerUs=moe_pairs("ampere"),
                     allreduce=allreduce_rows("hopper"),  # no Ampere all-reduce measured: Hopper's assumed
                     allreduceBeyond=allreduce_beyond_rows("hopper"))
HOPPER = Calibration(0.9015, 0.7626, 0.3279, 0.7408, DRAFT_PASS_MS, SPEC_CYCLE_MS, 0.015, 30.0, 450e9, 0.9, True, _HOPPER,
                     SEQUENCE_US, REJECT_US, SERIAL_OUTPUT_US, TOKEN_OUTPUT_US, moeLayerUs=moe_pairs("hopper"),
                     allreduce=allreduce_rows("hopper"), allreduceBeyond=allreduce_beyond_rows("hopper"))
ADA = Calibration(0.916, 0.839, 0.091, 3.729, DRAFT_PASS_MS, SPEC_CYCLE_MS, 0.010, 30.0, 25e9, 0.9, False, _ASSUMED,
                  SEQUENCE_US, REJECT_US, SERIAL_OUTPUT_US, TOKEN_OUTPUT_US, moeLayerUs=moe_pairs("ada"),
                  allreduce=allreduce_rows("pcie"))

# The per-operator model with every extra term zeroed (``stepModel="operators"``): datasheet peaks,
# a GEMM's memory and compute fully overlapped, no fixed cost, a free interconnect, all memory usable.
IDEAL = Calibration(1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, float("inf"), 1.0, False, "no calibration: the ideal limit",
                    engineTerms=False)

# 2026 GPUs (lab.serving.GPUS: B200, B300, MI300X, MI355X): no step time that fits their efficiencies was found in
# the sources read (docs/READING.md lists them), so their calibration is assumed (measured=False, and the page says
# so): Hopper's efficiencies and overlap, with the datasheet's interconnect (one direction). MI300X alone has
# measured plain steps (PASS_STEP_MEASUREMENTS: AMD's published vLLM latencies of Llama-3.1-70B in FP8 on 8 x MI300X
# at batch 1 to 4), and they fit the one constant a flat, memory-bound step at small batch determines, its fixed
# cost per pass (MI300X_PASS_MS): fitting the efficiencies too on these rows (one model, precision and TP) gives 0.45
# of the bandwidth and 0.22 of the peak, which nothing else supports, so those stay Hopper's. B200's only measured
# dense plain step (the speculators qwen3.8-27b sweep at N = 1) is held out (lab.serving_validation.held_out_steps)
# and fits nothing.
_ASSUMED_2026 = ("no step-time measurement found: Hopper's efficiencies, overlap and fixed costs are assumed, with "
                 "the datasheet's interconnect one way (NVLink 5: 900 GB/s; Infinity Fabric: 537.6 GB/s on MI355X)")
# The fit of PASS_STEP_MEASUREMENTS' fixed cost per pass, ms (lab.serving_validation.fit_calibration over passMs
# alone, repeated until it stops moving; tests/test_serving_calibration_2026.py refits it): residuals 0.95 to 1.13.
MI300X_PASS_MS = 3.0023
_MI300X_2026 = ("no step-time measurement found that fits its efficiencies: Hopper's efficiencies and overlap are "
                "assumed, with the datasheet's Infinity Fabric one way (448 GB/s); its fixed cost per pass "
                f"({MI300X_PASS_MS:.2f} ms, Hopper's {HOPPER.passMs:.2f}) is fitted on AMD's published vLLM latencies "
                "of Llama-3.1-70B in FP8 on 8 x MI300X at batch 1 to 4, so it also carries what an 8-GPU step costs "
                "beyond the modelled kernels")
BLACKWELL = HOPPER._replace(linkBandwidth=900e9, measured=False, source=_ASSUMED_2026,  # NVLink 5
                            moeLayerUs=moe_pairs("blackwell"))
MI300X = HOPPER._replace(linkBandwidth=448e9, measured=False, source=_MI300X_2026,      # Infinity Fabric
                         passMs=MI300X_PASS_MS,
                         allreduce=allreduce_rows("mi300x"), allreduceBeyond=allreduce_beyond_rows("mi300x"))
MI355X = HOPPER._replace(linkBandwidth=537.6e9, measured=False, source=_ASSUMED_2026, allreduce=allreduce_rows("mi355x"),
                         allreduceBeyond=allreduce_beyond_rows("mi355x"))   # none measured: its small fit extrapolated

# The RTX 3090 (2026-12-04, chosen before the EAGLE-3 vLLM bracket was run on it): ADA, as for the RTX 4090 and L40S,
# since no step time of an RTX 3090 that fits anything here was found, and ADA is Ampere's own fitted efficiencies.
CALIBRATIONS = {"a100-80g": AMPERE, "a100-40g": AMPERE, "h100-sxm": HOPPER, "h200": HOPPER,
                "l40s": ADA, "rtx-4090": ADA, "rtx-3090": ADA, "b200": BLACKWELL, "b300": BLACKWELL, "mi300x": MI300X,
                "mi355x": MI355X}
MEASURED_GPUS = tuple(name for name, cal in CALIBRATIONS.items() if cal.measured)


class Engine(NamedTuple):
    """How one engine version runs a speculative cycle, where versions differ in what it costs. Each
    switch was read in that version's code (``costs`` names the place); the two fitted numbers,
    ``expansionKvShare`` and ``stepHostMs``, were fitted on that engine's own measured step times,
    never on a speedup.

    ``expandedVerify``: the verify pass scores each draft as a sequence of its own (batch expansion);
    each verified token beyond a sequence's first re-reads ``expansionKvShare`` of that sequence's KV
    cache (1: all of it; less where the copies hit in the GPU's L2 cache) and the expansion's
    bookkeeping costs ``expansionMs`` a cycle. ``specCycleMs``: the speculation bookkeeping a cycle
    pays on its verify pass beyond a plain step's (proposals copied to the CPU, the verify batch
    prepared). ``serialOutput``/``tokenOutput``: the engine turns its output-processing overlap off
    while speculating, so a cycle pays the output processing per sequence
    (:data:`SERIAL_OUTPUT_US`) and per emitted token beyond a sequence's first
    (:data:`TOKEN_OUTPUT_US`) after its verify pass. ``stepHostMs``: host work per engine step (plain
    or verify) left serial because scheduling is synchronous; 0 where asynchronous scheduling hides it
    under the GPU pass, plain and speculative alike. ``draftExtend``: the draft runs one more pass per
    cycle over the verified tokens; ``eagerExtend``: that pass runs outside a CUDA graph, paying a
    host-driven pass's fixed cost (``passMs``) instead of a captured draft pass's (``draftPassMs``);
    ``eagerExtendGpus``: the GPUs on which it runs so for a chain or an MLA target only (:mod:`lab.serving_sglang`);
    ``firstDraftFromExtend``: the extend pass's logits give the next cycle's first draft token, so a cycle of ``k`` drafts
    runs ``k - 1`` one-token draft steps (the extend pass in place of the first).
    ``firstDraftOverVerified``: the draft's first step of a cycle runs over every token the verify step
    scored (its layers over ``n`` tokens a sequence, its LM head over one), not over one token a sequence.
    ``interStepOps``: eager state-update ops the engine launches on the host between two draft steps, beyond
    the one a captured loop or a fused kernel needs (:func:`inter_step_ms`). ``eagle3CycleOps`` and
    ``eagle3StepOps``: the eager ops an EAGLE-3 head costs beyond an EAGLE-1 head outside the draft's CUDA graph,
    once a cycle and once a draft step (:func:`eagle3_eager_ms`); ``proposalMs``: what an EAGLE-1 or EAGLE-3 proposal
    costs a cycle beyond those and its priced steps, fitted on the engine's measured proposal (:func:`proposal_ms`).
    ``memoryRule``: how the engine's defaults
    share GPU memory between weights and KV cache and the rest (:func:`engine_memory_bytes`: "vllm", "sglang",
    "trtllm"). ``ngramProposer``: how the engine proposes n-gram drafts, which prices a cycle's proposal
    (:func:`ngram_proposal_ms`); ``ngramStepHostMs``: host work a verify step leaves serial when drafting by n-gram
    lookup, where the engine turns its asynchronous scheduling off for that draft (0 elsewhere); ``ngramRequestOps``: eager
    ops a request its n-gram draft preparation launches serially (:data:`lab.serving_sglang.NGRAM_MASK_OPS`);
    ``hostDraftStepsAboveTp1``: a draft model on more than one GPU runs each of its steps as a worker step prepared on
    the CPU, paying a host-driven pass's fixed cost (``passMs``) and the per-sequence work (``sequenceUs``) instead of
    a captured draft pass's (``draftPassMs``); ``draftInVerifyGraph``: an EAGLE or MTP head's k draft steps run inside the
    engine step's one forward, captured in one CUDA graph with the verify pass (TensorRT-LLM's one-model MTP), so a draft
    step pays no launch and sampling of its own (``draftPassMs``), only its layers' costs; a separate draft model does
    not run so. ``mtpFusionWhole``: the targets whose MTP module's 2h -> h fusion the engine's code builds whole on every
    GPU (a plain ``nn.Linear`` or a linear with no tensor-parallel mode, not split over the GPUs), each read in that
    engine version's MTP code for that model (:mod:`lab.serving_mtp` prices it and names the places); a target not
    named was read split there, or its MTP code was not read for that version and nothing is charged. That the MTP
    module of a MoE checkpoint is a MoE layer is the checkpoint's (:func:`lab.serving_presets.eagle_head`), and its
    logits gathered each draft step are every engine's read (:data:`lab.serving_mtp.LOGITS_GATHER`): neither is a
    switch here. ``moeKernels``: the kernel stack the engine runs a MoE layer on (:data:`lab.serving_moe.MOE_KERNELS`:
    "trtllm", TensorRT-LLM's own; "triton", the Triton fused_moe of vLLM and SGLang), which prices a MoE layer's fixed
    cost (:func:`moe_layer_us`), each read in the engine's code (:data:`lab.serving_moe.MOE_KERNEL_SOURCES`).
    ``cycleOps`` and ``cycleStepOps``: the eager ops an engine's worker launches serially each cycle outside its CUDA
    graphs (the verify's preparation and acceptance, the draft-extend pass's inputs, the draft graph's prologue), once a
    cycle and once a draft step after the first (:func:`cycle_eager_ms`; SGLang's V1 EAGLE worker,
    :data:`lab.serving_sglang.V1_EAGER_OPS`)."""

    name: str
    label: str
    expandedVerify: bool
    expansionMs: float
    draftExtend: bool
    source: str
    specCycleMs: float = 0.0
    serialOutput: bool = False
    tokenOutput: bool = False
    stepHostMs: float = 0.0
    eagerExtend: bool = False
    expansionKvShare: float = 1.0
    asyncScheduling: bool = False
    costs: tuple = ()
    firstDraftOverVerified: bool = False
    interStepOps: int = 0
    eagle3CycleOps: int = 0
    eagle3StepOps: int = 0
    proposalMs: float = 0.0
    memoryRule: str = "vllm"
    ngramProposer: str = "sglang-incremental"
    ngramStepHostMs: float = 0.0
    hostDraftStepsAboveTp1: bool = False
    draftInVerifyGraph: bool = False
    mtpFusionWhole: tuple = ()
    eagerExtendGpus: tuple = ()
    ngramRequestOps: int = 0
    firstDraftFromExtend: bool = False
    moeKernels: str = "triton"
    cycleOps: int = 0
    cycleStepOps: int = 0


# Batch expansion's bookkeeping, read in vLLM issue #6915 (the source of SPEC_CYCLE_MS): 'When batch expansion is
# used ... it is another 0.5-1ms spent in python processing', '~2ms for batch expansion' end to end against ~1.3
# for MQA. The middle of the quoted range, 0.75 ms, on top of SPEC_CYCLE_MS (1.3 + 0.75 = 2.05).
BATCH_EXPANSION_MS = 0.75
# The share of a sequence's KV cache each extra verified token re-reads under batch expansion, fitted on vLLM pull
# request 5691's two scoring columns (the same comment, the same runs: BatchExpansionTop1Scorer minus MQAScorer is
# 1.7, 2.9, 5.5, 10.9, 19.4 and 25.3 ms at batch 4 to 128, k = 5) with BATCH_EXPANSION_MS held: the copies of one
# sequence are neighbours in the expanded batch and read the same KV blocks, so most re-reads hit in L2. Fitted on step
# times (lab.serving_v0_stages.fit_expansion_kv_share), without the rejection sampler V0 times apart: 0.33 with it.
EXPANSION_KV_SHARE = 0.37
# Host work per engine step that synchronous scheduling leaves serial, read in the SpecDecode-Bench step-time model
# (github.com/SpecDecode-Bench/simulator, predictor.py, class Llama8BH100, commit 430e82c5: 'overhead_constant_per_step
# = 1.20683946e-03' s, charged once per plain step and once per speculative step, beside the forward pass; fitted to
# vLLM 0.10.1 on one H100). A host cost, the same on every GPU.
SYNC_STEP_HOST_MS = 1.20683946
# One eager PyTorch op on a small CUDA tensor, launched from Python, read in pytorch/pytorch issue #114860
# (github.com/pytorch/pytorch/issues/114860, 2023-11-30, torch.utils.benchmark Timer over torch.take on a 262,144-element
# CUDA tensor): 'Eager  8.6' us a call (the same table's CUDA-graph replay of that one op: 27.0 us). A host cost of the
# PyTorch dispatcher and the kernel launch, the same on every GPU (the issue names none: an assumption). It prices the
# small state-update ops an engine launches eagerly between two draft steps (:data:`Engine` ``interStepOps``).
EAGER_OP_US = 8.6
# The eager state-update ops vLLM V1's EAGLE proposer launched between two draft steps before vLLM pull request 33503
# (github.com/vllm-project/vllm/pull/33503, 'fuse EAGLE step slot mapping and metadata updates', 2026-02-01: 'many small
# PyTorch operations (position increment, clamping, block table lookup, slot mapping computation, seq_len updates),
# each causing separate GPU kernel launches ... fuses those operations into a single Triton kernel'). Counted in the
# proposer's loop, vllm/v1/spec_decode/eagle.py, EagleProposer.propose, 'for _ in range(self.num_speculative_tokens -
# 1)' (a V1 copy of the 0.10-0.11 series read through the code index, id 500433222): positions += 1, positions >=
# max_model_len, torch.where (clamp), seq_lens += 1, seq_lens.masked_fill_, // block_size, block_table.gather,
# * block_size, % block_size, +, slot_mapping.masked_fill_: 11 ops, which the PR makes one kernel. The one that remains
# is left in DRAFT_PASS_MS as before, so an engine before the PR pays 10 more per step after the first. Their share of
# a cycle agrees with vLLM pull request 20078 (2025-06-25, 'Fused state-update kernels ... Profiling showed the GPU
# was idling on kernel-launch latency more than it was computing. Result: ~2.5% higher decoding speed (TPOT)'), which
# fused the same updates (tests/test_serving_calibration.py holds the share to it).
V1_UNFUSED_STEP_OPS = 10
# What an EAGLE-3 head runs eagerly in vLLM V1 0.9.2 to 0.10.1 that an EAGLE-1 head does not, read in the sources of the
# released vllm 0.9.2, 0.10.0 and 0.10.1 wheels (the same code in all three). Both heads' draft models are compiled and
# captured in CUDA graphs (``@support_torch_compile`` on ``LlamaModel`` in llama_eagle.py and llama_eagle3.py; the
# proposer pads to the captured sizes, ``use_cuda_graph``), so what differs runs outside the graph:
# - once a cycle, vllm/v1/worker/gpu_model_runner.py, ``propose_draft_token_ids``: ``target_hidden_states = torch.cat(
#   [h[token_indices] for h in aux_hidden_states], dim=-1)``, three gathers and a cat where EAGLE-1 does one gather
#   (``hidden_states[token_indices]``): 3 more; vllm/v1/spec_decode/eagle.py, ``EagleProposer.propose``: ``if
#   self.method == "eagle3": target_hidden_states = self.model.combine_hidden_states(target_hidden_states)``, the fc
#   3h -> h as a plain ``torch.nn.Linear`` before the captured model runs (EAGLE-1's fc is inside its model): 1 more;
# - once a draft step, ``Eagle3LlamaForCausalLM.compute_logits`` (llama_eagle3.py), called by the proposer outside the
#   graph for each of the k drafts: ``torch.arange(draft_vocab_size)``, ``base + self.draft_id_to_target_id``,
#   ``logits.new_full((n, vocab_size), -inf)`` and ``logits_new[:, targets] = logits``: 4 more (EAGLE-1 inherits
#   LlamaForCausalLM.compute_logits, the logits processor alone).
# Each priced at EAGER_OP_US (a launch-bound op: the tensors are a batch's rows). The bytes they move (a 128,256-wide
# row of logits a sequence) are under a microsecond at batch one; not charged. The three extra auxiliary outputs of the
# target (``aux_hidden_states.append(hidden_states + residual)`` in llama.py) run inside the target's compiled graph.
V1_EAGLE3_CYCLE_OPS = 4
V1_EAGLE3_STEP_OPS = 4


def inter_step_ms(engine: "Engine", steps: int) -> float:
    """The host work an engine leaves between its draft steps, ms: ``steps x ops x t_op``, with ``ops`` the
    eager ops it launches between two steps (``interStepOps``) and ``t_op`` one eager op (:data:`EAGER_OP_US`).
    A cycle of k chained draft steps has ``k - 1`` such gaps.

    >>> round(inter_step_ms(ENGINES["vllm-v1-0.10"], 2), 3), inter_step_ms(ENGINES["vllm-v1"], 2)   # 2 x 10 x 8.6 us
    (0.172, 0.0)
    """
    return max(0, steps) * engine.interStepOps * EAGER_OP_US / 1000


def eagle3_eager_ms(engine: "Engine", steps: int) -> float:
    """The eager ops an EAGLE-3 head costs a cycle beyond an EAGLE-1 head, ms: ``(c + k s) t_op`` for a cycle of
    ``k`` draft steps, with ``c`` the ops once a cycle (``eagle3CycleOps``: the auxiliary hidden states gathered and
    concatenated, the fc), ``s`` those once a draft step (``eagle3StepOps``: the draft vocabulary's logits mapped onto
    the target's) and ``t_op`` one eager op (:data:`EAGER_OP_US`). No steps, no cost.

    >>> round(eagle3_eager_ms(ENGINES["vllm-v1-0.10"], 2), 4), round(eagle3_eager_ms(ENGINES["vllm-v1-0.10"], 7), 4)
    (0.1032, 0.2752)
    >>> eagle3_eager_ms(ENGINES["vllm-v1"], 3), eagle3_eager_ms(ENGINES["vllm-v1-0.10"], 0)
    (0.0, 0.0)
    """
    if steps <= 0:
        return 0.0
    return (engine.eagle3CycleOps + steps * engine.eagle3StepOps) * EAGER_OP_US / 1000


def cycle_eager_ms(engine: "Engine", steps: int) -> float:
    """The eager ops an engine's worker runs serially a cycle outside its CUDA graphs, ms: ``(c + (k - 1) s) t_op``
    for ``k`` draft steps, ``c`` once a cycle (``cycleOps``), ``s`` once a draft step after the first
    (``cycleStepOps``), ``t_op`` one eager op (:data:`EAGER_OP_US`); no steps, no cost. SGLang's V1 EAGLE worker:
    :data:`lab.serving_sglang.V1_EAGER_OPS`, counted in its code.

    >>> round(cycle_eager_ms(ENGINES["sglang-no-overlap"], 3), 4), cycle_eager_ms(ENGINES["sglang"], 3)   # 78 x 8.6 us
    (0.6708, 0.0)
    """
    return v1_cycle_ops(steps, engine.cycleOps, engine.cycleStepOps) * EAGER_OP_US / 1000


# n-gram drafting, priced by engine (Engine ``ngramProposer``, :func:`ngram_proposal_ms`): what one cycle's proposal of k
# tokens costs on the host, serially (the engine needs the cycle's sampled tokens on the CPU before it can look them up).
# vLLM V1's proposer runs a KMP scan over each sequence's whole context, prompt and output (vllm/v1/spec_decode/
# ngram_proposer.py, _find_longest_matched_ngram_and_propose_tokens, one pass over origin_tokens; vllm-project/vllm at
# 016e8ede), so its time grows with batch x context. Measured in vLLM pull request 56732 ('[Perf][Spec Decode] Add Tensor
# Parallel Ngram-CPU decoding', microbenchmark on a host with 4 x H100 80GB and 120 vCPUs): 'Batch 512 x ctx 129536, i.e.
# 66.3M tokens scanned per step', 'main (4 ranks x 1 thread) | 70.28 ms' (each rank scans the whole batch on one thread):
# 70.28 ms / (512 x 129,536) = 1.06 ns per context token scanned on one CPU thread. The same rate is assumed for V1 0.10's
# per-request calls (one numba KMP per request; before vLLM pull request 22437, merged in August 2025, it ran one KMP per
# n-gram size, so up to four times this at prompt_lookup 2-5: the single scan is a lower bound there).
NGRAM_SCAN_NS = 70.28e6 / (512 * 129536)
# A proposer call's fixed cost and a per-request call's cost (the Python loop over requests in V1 0.10's
# gpu_model_runner.propose_ngram_draft_token_ids, one drafter.propose per request): not found measured. Assumed: 20 us
# a call and 2 us a request, the lab's earlier n-gram figures.
NGRAM_CALL_MS, NGRAM_REQUEST_US = 0.02, 2.0
# SGLang's n-gram proposer, a C++ trie of the decoded tokens matched once a request a step (python/sglang/srt/
# speculative/ngram_worker.py over the corpus's batch_get), measured in sgl-project/sglang pull request 22180 (2026-04-06,
# 'Benchmark (CPU, max_trie_depth=18)', TestNgramCorpusMatchBenchmark: one request, 500 steps, draft_token_num 8):
# 'Incremental: 32.4 us/step' (the stateful match of pull request 21243, 2026-03) and 'Rebuild: 45.3 us/step' (the
# match rebuilt from the root each step, as before it); 'FFI + buildRecency + fillResult dominate'. Charged per request
# (one request a call in the benchmark, so the call's share is inside: an upper bound at larger batches), 45.3 us for
# SGLang before 2026 and 32.4 us today; independent of the context (the trie's depth bounds the match).
SGL_NGRAM_REQUEST_US = {"incremental": 32.4, "rebuild": 45.3}
# vLLM V0's n-gram proposer (vllm/spec_decode/ngram_worker.py, NGramWorker), measured in vLLM pull request 9333
# ('[Performance][Spec Decode] Optimize ngram lookup performance', 2024-10-14, by vLLM's speculative-decoding team, 'on a
# single H100', input_len 550, output_len 150): 'propose time after this PR' 2.2, 1.5 and 1.5 ms at system efficiency
# 0.31, 0.63 and 0.80 (the PR moved the lookup to the CPU; before it 4.4, 3.3 and 2.6 ms). Read as V0's logged
# 'average_time_per_proposal_tok_ms' (the proposal time V0's SpecDecodeWorker logs, beside the scoring_time_ms read for
# vLLM pull request 5691), so a cycle of k drafts pays k times it; the median, 1.5 ms. The batch and k of those runs are
# not stated: no growth with batch or context is priced (read as per cycle it would be k times smaller; the page says so).
NGRAM_V0_PROPOSAL_TOKEN_MS = 1.5


def ngram_proposal_ms(engine: "Engine", batch, context, lookahead: int) -> float:
    """One cycle's n-gram proposal of ``lookahead`` tokens for ``batch`` sequences of ``context`` tokens, ms, by how
    the engine proposes (``engine.ngramProposer``):

    - ``"vllm-batched"`` (V1 from pull request 24986, 2025-09: one numba call over the batch, one thread a rank):
      ``t_call + B L t_scan``;
    - ``"vllm-per-request"`` (V1 0.10: a Python loop, one numba KMP call a request): ``B (t_request + L t_scan)``;
    - ``"vllm-v0"`` (V0's NGramWorker): ``k t_token`` (:data:`NGRAM_V0_PROPOSAL_TOKEN_MS`);
    - ``"sglang-incremental"`` / ``"sglang-rebuild"`` (SGLang's C++ n-gram trie, matched once a request whatever
      the context, today's stateful match or the earlier rebuild): ``B (t_match + m t_op)``
      (:data:`SGL_NGRAM_REQUEST_US`, measured with one request a call; ``m`` the engine's ``ngramRequestOps``);
    - ``"unpriced"`` (an engine whose n-gram proposer was not read: TensorRT-LLM): 0, a lower bound.

    >>> v1, v0 = ENGINES["vllm-v1"], ENGINES["vllm-v0"]
    >>> round(ngram_proposal_ms(v1, 512, 129536, 5), 2), ngram_proposal_ms(v0, 1, 600, 4)   # pull request 56732's row
    (70.3, 6.0)
    >>> round(ngram_proposal_ms(ENGINES["vllm-v1-0.10"], 64, 1024, 4), 3), round(ngram_proposal_ms(ENGINES["sglang"], 64, 1024, 4), 3)
    (0.197, 2.624)
    """
    kind = engine.ngramProposer
    scan = batch * context * NGRAM_SCAN_NS / 1e6
    if kind == "vllm-batched":
        return NGRAM_CALL_MS + scan
    if kind == "vllm-per-request":
        return batch * NGRAM_REQUEST_US / 1000 + scan
    if kind == "vllm-v0":
        return lookahead * NGRAM_V0_PROPOSAL_TOKEN_MS
    if kind == "unpriced":
        return 0.0
    return batch * (SGL_NGRAM_REQUEST_US[kind.removeprefix("sglang-")] + engine.ngramRequestOps * EAGER_OP_US) / 1000

# SGLang's V1 EAGLE worker's eager ops a cycle, as its 'costs' entry names them (lab.serving_sglang.V1_EAGER_OPS).
V1_CYCLE_COSTS = (
    "eager ops a cycle", "eagle_worker.py (V1 EAGLEWorker; 00559eac), eagle_info.py (0007d13b), the draft and "
    "draft-extend CUDA graph runners' replay and FlashAttention 3's metadata, counted in their code: the draft's "
    "preparation (15), the verify's preparation and greedy acceptance with two .tolist() syncs (26), the extend "
    f"pass's inputs and graph prologue (27), less a plain step's own (6): {V1_CYCLE_OPS['captured extend']} a cycle and "
    f"{V1_STEP_OPS} a draft step after the first, each EAGER_OP_US (pytorch/pytorch issue #114860), all serial with "
    "the overlap scheduler off")
# GLM-4.5-Air is named beside GLM-4.5 wherever GLM-4.5's MTP fusion was read whole: one glm4_moe MTP class builds
# both checkpoints' module (vLLM's glm4_moe_mtp.py, SGLang's NextN for glm4_moe), whose shape alone differs.
ENGINES = {
    "vllm-v1": Engine(
        "vllm-v1", "vLLM V1 (today: 0.14 on)", False, 0.0, False,
        "vLLM V1 as of 2026: asynchronous scheduling on by default with EAGLE and MTP drafts (vLLM pull request "
        "31998, in 0.14.0), so host work overlaps the GPU in plain and speculative steps alike; one multi-query "
        "verify pass; detokenizing in the front end; the default",
        asyncScheduling=True, firstDraftOverVerified=True, ngramProposer="vllm-batched", ngramStepHostMs=SYNC_STEP_HOST_MS,
        mtpFusionWhole=("deepseek-v3", "glm-4.5", "glm-4.5-air"), moeKernels="triton",
        costs=V1_SHARED + (
            ("MoE kernels (Triton fused_moe)", MOE_KERNEL_SOURCES["vllm"]),
            ("MTP fusion read whole (DeepSeek-V3, GLM-4.5)", VLLM_DSV3_FUSION + " (a 2026 copy read through the code "
             "index, id 55130808037); " + VLLM_GLM_FUSION + " (a later copy quoted line by line, with parallel_config "
             "and enable_eplb, read through the code index, id 69173106718); " + VLLM_QWEN3_NEXT_SPLIT + " (a 2026 "
             "copy, id 59556251266)"),
            ("n-gram proposal", "vLLM pull request 24986 ('Add Batch Parallel Ngram', 2025-09-16): one numba call, "
             "batch_propose_numba, over the batch's requests; one thread a rank as measured in pull request 56732 "
             "(NGRAM_SCAN_NS: 1.06 ns a context token scanned)"),
            ("synchronous with n-gram drafts", "vLLM pull request 31998 ('Enable async scheduling by default with spec "
             "decoding', 2026-01-08): 'It will still be disabled implicitly for non-EAGLE/MTP types'; vllm/config/"
             "vllm.py enables it only for EagleModelTypes, the GPU n-gram proposer (NgramGPUTypes), draft_model and "
             "dspark (as quoted in vLLM issue #54039, 2026-08-27), so the CPU n-gram proposer runs synchronously and "
             "each verify step pays SYNC_STEP_HOST_MS serially (the synchronous host time measured on V1 0.10.1; "
             "assumed unchanged since); plain decoding, which has no speculative config, keeps it asynchronous"),
            ("draft CUDA graphs", "the EAGLE proposer's steps run in the piecewise CUDA graphs eagle.py asks for "
             "(cudagraph_runtime_mode=CUDAGraphMode.PIECEWISE since vLLM pull request 25109, 2025-09-17)"),
            ("fused state updates between draft steps", "vLLM pull request 33503 (2026-02): the slot mapping and "
             "metadata updates between EAGLE steps are one Triton kernel, counted in the draft pass's fixed cost"),
            ("asynchronous scheduling", "vLLM pull request 31998 ('Enable async scheduling by default with spec "
             "decoding', 2026-01-08, in 0.14.0) after pull request 24799 ('Async Scheduling X Spec Decoding "
             "Compatibility', 2025-09: draft token ids stay on the GPU, no copy to the scheduler)"),)),
    "vllm-v1-0.10": Engine(
        "vllm-v1-0.10", "vLLM V1 0.10 (synchronous)", False, 0.0, False,
        "vLLM V1 as the SpecDecode-Bench study ran it (0.10.1, August 2025): one multi-query verify pass and "
        "detokenizing in the front end as today, but asynchronous scheduling did not yet run with speculative "
        "decoding (vLLM pull request 24799 added it in September 2025), so every step pays its host work serially "
        "(SpecDecode-Bench's fitted per-step overhead)",
        stepHostMs=SYNC_STEP_HOST_MS, firstDraftOverVerified=True, interStepOps=V1_UNFUSED_STEP_OPS,
        eagle3CycleOps=V1_EAGLE3_CYCLE_OPS, eagle3StepOps=V1_EAGLE3_STEP_OPS, proposalMs=EAGLE3_PROPOSAL_MS,
        ngramProposer="vllm-per-request", mtpFusionWhole=("deepseek-v3", "glm-4.5", "glm-4.5-air"), moeKernels="triton",
        costs=V1_SHARED + (
            ("MoE kernels (Triton fused_moe)", MOE_KERNEL_SOURCES["vllm"]),
            ("MTP fusion read whole (DeepSeek-V3, GLM-4.5)", VLLM_DSV3_FUSION + " at 4f7c1440 (the V0 series) and at "
             "03356f8c (after 0.10.1, compute_logits without sampling_metadata): the same line either side of 0.10.1; "
             + VLLM_GLM_FUSION + " at 028aedf6 (the 0.10 series); Qwen3-Next's MTP came after 0.10.1 (not charged)"),
            ("n-gram proposal per request", "vllm/v1/worker/gpu_model_runner.py before vLLM pull request 24986 "
             "(2025-09), propose_ngram_draft_token_ids: 'for i, sampled_ids in enumerate(sampled_token_ids)' ... "
             "'drafter_output = self.drafter.propose(self.input_batch.token_ids_cpu[i, :num_tokens])', one numba KMP "
             "call a request (read through the code index); priced at NGRAM_SCAN_NS a token scanned and an assumed "
             "NGRAM_REQUEST_US a call"),
            ("synchronous scheduling", "vLLM pull request 24799 (merged 2025-09, after 0.10.1): 'aims to support "
             "spec decode with async_scheduling'; the host time per step: SpecDecode-Bench simulator/predictor.py, "
             "Llama8BH100.overhead_constant_per_step"),
            ("unfused state updates between draft steps", "vllm/v1/spec_decode/eagle.py, EagleProposer.propose: "
             "11 eager ops a step after the first (V1_UNFUSED_STEP_OPS), fused into one Triton kernel only by vLLM "
             "pull request 33503 (2026-02); an eager op's time: pytorch/pytorch issue #114860 (EAGER_OP_US)"),
            ("EAGLE-3's eager ops", "vllm 0.9.2, 0.10.0 and 0.10.1 (the released wheels' sources): the auxiliary "
             "hidden states gathered and concatenated (gpu_model_runner.py, torch.cat([h[token_indices] for h in "
             "aux_hidden_states])) and the fc run by EagleProposer.propose (combine_hidden_states) once a cycle, and "
             "Eagle3LlamaForCausalLM.compute_logits's draft-to-target vocabulary map (arange, add, new_full, index "
             "put) once a draft step, all outside the draft's CUDA graph: 4 + 4 k eager ops beyond EAGLE-1's "
             "(V1_EAGLE3_CYCLE_OPS, V1_EAGLE3_STEP_OPS), each EAGER_OP_US"),
            UNCAPTURED_DRAFT_COST,)),
    # V1 is the default from 0.8, but V1 had no draft-model speculation up to 0.10.0 (vLLM README: "Speculative
    # decoding with a draft models is not supported in vllm<=0.10.0"), so draft-model runs of that time, like the
    # 70B sweep of issue #17984, ran on V0 (N-6 of the December fact check).
    "vllm-v0": Engine(
        "vllm-v0", "vLLM V0 (≤0.7; drafts ≤0.10)", True, BATCH_EXPANSION_MS, False,
        "vLLM V0's speculative decoding: batch expansion with CUDA graphs on (BatchExpansionTop1Scorer), the "
        "speculation bookkeeping of vLLM issue #6915, and its asynchronous output processor switched off while "
        "speculating, so each cycle pays output processing and per-token detokenization serially",
        specCycleMs=SPEC_CYCLE_MS, serialOutput=True, tokenOutput=True, expansionKvShare=EXPANSION_KV_SHARE,
        ngramProposer="vllm-v0", hostDraftStepsAboveTp1=True, mtpFusionWhole=("deepseek-v3",), moeKernels="triton",
        costs=V0_COSTS + (
            ("MoE kernels (Triton fused_moe)", MOE_KERNEL_SOURCES["vllm"]),
            ("MTP fusion read whole (DeepSeek-V3)", VLLM_DSV3_FUSION + " at 4f7c1440 (the V0 series: CacheConfig in the "
             "layer's signature, compute_logits with sampling_metadata); no other MTP model read for V0"),)),
    "sglang": Engine(
        "sglang", "SGLang (today: overlap)", False, 0.0, True,
        "SGLang as of 2026: the speculative V2 workers with the overlap scheduler on (beta in pull request 11398, "
        "2025-10; every speculative algorithm, n-gram included, runs them since pull requests 27964 and 27977, "
        "2026-06), the k draft steps in one CUDA graph, the draft extend pass in one too except on Hopper for a chain "
        "or an MLA target (FlashAttention 3 there has none); draft, verify, then draft extend each decode step",
        asyncScheduling=True, memoryRule="sglang",
        mtpFusionWhole=("deepseek-v3", "glm-4.5", "glm-4.5-air", "qwen3-next-80b-a3b"),
        eagerExtendGpus=HOPPER_FA3_GPUS, ngramRequestOps=NGRAM_MASK_OPS["today"], firstDraftFromExtend=True,
        moeKernels="triton",
        costs=(
            ("MoE kernels (Triton fused_moe)", MOE_KERNEL_SOURCES["sglang"]),
            ("MTP fusion read whole (DeepSeek-V3, GLM-4.5, Qwen3-Next)", SGLANG_DSV3_FUSION + " (a 2026 copy read "
             "through the code index, id 54491606189; ReplicatedLinear, also whole, for Quark checkpoints); "
             "glm4_moe_nextn.py at 008b79d2: 'self.eh_proj = nn.Linear(2 * config.hidden_size, config.hidden_size, "
             "bias=False)'; qwen3_next_mtp.py at 00534216: 'self.fc = nn.Linear(2 * config.hidden_size, "
             "config.hidden_size, bias=False)'"),) + SGLANG_TODAY_COSTS),
    "sglang-no-overlap": Engine(
        "sglang-no-overlap", "SGLang 2025 (no overlap)", False, 0.0, True,
        "SGLang from the draft-extend CUDA graph (pull request 6606, May 2025) until the overlap scheduler ran with "
        "speculation: server_args.py switches the overlap scheduler off with EAGLE, so each cycle pays its output "
        "processing serially; the extend pass is captured",
        serialOutput=True, memoryRule="sglang", ngramProposer="sglang-rebuild", mtpFusionWhole=("deepseek-v3",),
        ngramRequestOps=NGRAM_MASK_OPS["v1"], firstDraftFromExtend=True, moeKernels="triton",
        cycleOps=V1_CYCLE_OPS["captured extend"], cycleStepOps=V1_STEP_OPS,
        costs=(
            ("MoE kernels (Triton fused_moe)", MOE_KERNEL_SOURCES["sglang"]),
            ("MTP fusion read whole (DeepSeek-V3)", SGLANG_DSV3_FUSION + " at c28bdc90 (mid-2025: eplb, "
             "enable_dp_lm_head); GLM-4.5's NextN of that time not read (not charged); Qwen3-Next's came later"),
            ("overlap off while speculating", "python/sglang/srt/server_args.py: 'if self.speculative_algorithm in "
             "(\"EAGLE\", \"EAGLE3\"): self.disable_overlap_schedule = True' (quoted in SGLang issue #9961, "
             "2025-09-03); the v0.4 series logs 'The radix cache, chunked prefill, and overlap scheduler are disabled "
             "because of using eagle speculative decoding.'"),
            ("draft extend pass", "eagle_worker.py: draft, verify, then forward_draft_extend_after_decode each step"),
            ("its CUDA graph", "SGLang pull request 6606 (2025-05), FA3 first: no Hopper exception in V1's worker"),
            ("n-gram mask built a request", "ngram_worker.py at f3b0fcd5: four eager ops a request (NGRAM_MASK_OPS)"),
            V1_CYCLE_COSTS,
            ("detokenizing", "SGLang's DetokenizerManager runs in its own process: no per-token work in the "
             "scheduler's loop"), FIRST_DRAFT_FROM_EXTEND)),
    "sglang-eager-extend": Engine(
        "sglang-eager-extend", "SGLang to May 2025 (eager)", False, 0.0, True,
        "SGLang's v0.4 EAGLE worker before the draft-extend CUDA graph: overlap scheduler off with EAGLE (serial "
        "output processing) and the draft extend pass run eagerly",
        serialOutput=True, eagerExtend=True, memoryRule="sglang", ngramProposer="sglang-rebuild",
        mtpFusionWhole=("deepseek-v3",), firstDraftFromExtend=True, moeKernels="triton",
        cycleOps=V1_CYCLE_OPS["eager extend"], cycleStepOps=V1_STEP_OPS,
        costs=(
            ("MoE kernels (Triton fused_moe)", MOE_KERNEL_SOURCES["sglang"] + "; the v0.4 series ran the same "
             "fused_moe_triton FusedMoE"),
            ("MTP fusion read whole (DeepSeek-V3)", SGLANG_DSV3_FUSION + " in a spring-2025 copy (read through the code "
             "index, id 926022823: vllm's _custom_ops, EPMoE, the decoder built without a prefix); GLM-4.5 and "
             "Qwen3-Next came later"),
            ("overlap off while speculating", "python/sglang/srt/server_args.py of the v0.4 series, read through the "
             "code index: 'The radix cache, chunked prefill, and overlap scheduler are disabled because of using "
             "eagle speculative decoding.'"),
            ("eager draft extend", "an early eagle_worker.py (read through the code index) runs the extend pass as "
             "draft_model_runner.forward in ForwardMode.DRAFT_EXTEND, which its CUDA graph runner did not capture; "
             "the graph runner came with SGLang pull request 6606 (2025-05)"),
            ("detokenizing", "SGLang's DetokenizerManager runs in its own process"), FIRST_DRAFT_FROM_EXTEND,
            ("eager ops a cycle", "the V1 EAGLEWorker's ops as counted for 2025's (lab.serving_sglang.V1_EAGER_OPS), "
             "the extend pass eager so its graph prologue (21) not run: the draft's preparation (15), the verify's (26), "
             f"the extend pass's inputs (6), less a plain step's own (6): {V1_CYCLE_OPS['eager extend']} a cycle and "
             f"{V1_STEP_OPS} a draft step after the first, each EAGER_OP_US; counted in the late-2025 code, assumed for "
             "the spring-2025 worker (its own copies not all held by the code index)"))),
    # TensorRT-LLM's PyTorch backend as NVIDIA's DeepSeek-R1 min-latency blog ran it on 8 x B200 (spring 2025, MTP
    # layers 1 to 5 against no MTP: lab.serving_validation's trtllm rows). Its one-model MTP path, read in
    # tensorrt_llm/_torch/speculative/mtp.py (a copy of the spring-2025 series, MTPConfig still in mtp.py, read through
    # the code index, id 3573226992) and the MTP blog (lab.serving_engine_sources.TRT_MTP_BLOG).
    "trtllm": Engine(
        "trtllm", "TensorRT-LLM 2025 (MTP)", False, 0.0, False,
        "TensorRT-LLM's PyTorch backend with its one-model MTP (spring 2025): the verify pass, the acceptance and the "
        "k draft steps of the MTP head run in the model engine's one forward, captured in one CUDA graph, with the "
        "overlap scheduler on; the first draft step runs over the last accepted token only",
        asyncScheduling=True, memoryRule="trtllm", ngramProposer="unpriced", draftInVerifyGraph=True,
        mtpFusionWhole=("deepseek-v3",), moeKernels="trtllm",
        costs=TRTLLM_COSTS + (("MoE kernels (TensorRT-LLM's own)", MOE_KERNEL_SOURCES["trtllm"]),)),
}
DEFAULT_ENGINE = "vllm-v1"


class StepMeasurement(NamedTuple):
    """One measured step: ``ms`` for ``target`` on ``gpus`` x ``gpu`` at ``batch`` sequences
    with ``newTokens`` tokens each and about ``context`` tokens of context; ``tolerance`` is the
    relative error the checks allow for it, ``source`` where it was read and ``note`` what was
    assumed in reading it. ``engine`` is the engine version it was measured on (:data:`ENGINES`; ""
    for the GPU pass alone, timed inside the worker) and ``kind`` what was timed (:data:`KINDS`); ``draft`` the draft
    a proposal was timed with (a draft preset's name; "": the target's EAGLE head)."""

    gpu: str
    target: str
    precision: str
    gpus: int
    batch: int
    newTokens: int
    context: int
    ms: float
    tolerance: float
    source: str
    note: str
    engine: str = ""
    kind: str = "pass"
    draft: str = ""


# What a step measurement timed, and so what the model is held to (lab.serving_validation.step_measurement_ms):
KINDS = {
    "pass": "a forward pass of the target over newTokens tokens a sequence, with the engine's host time per step",
    "verify": "the engine's whole verify step over newTokens tokens a sequence (lab.serving.verify_step_ms)",
    "scoring": "the scorer's time inside the worker (vLLM V0's scoring_time_ms): the verify pass in the engine's layout "
               "with batch expansion's bookkeeping, without the rejection sampler or the cycle's other bookkeeping",
    "proposal": "the engine's whole draft proposal of newTokens - 1 tokens by the row's draft: the draft steps, its extend "
                "pass and the engine's host work around them",
    "cycle": "the engine's whole speculative step at lookahead newTokens - 1 (a chain) with the row's draft, as the "
             "engine's own per-iteration log times it: the draft steps (or n-gram proposal), any extend pass, the verify "
             "step and the host work around them; output work at one emitted token a sequence (per-token output work "
             "is V0's alone, and no cycle row comes from V0)",
}


_PR5691 = ("vLLM pull request 5691 (github.com/vllm-project/vllm/pull/5691), comment of 2024-07-09 by the author: "
           "'scoring time for llama-7B model on a single A100', with CUDA graphs, MQA scorer, num_speculative_token 5")
_PR5691_NOTE = ("the scoring (verify) pass over k + 1 = 6 tokens per sequence; A100 80GB and a context of about 512 "
                "tokens assumed (the comment states neither)")
_A100_SWEEP = ("johnmusgrave.com/p/vllm-throughput-latency-sweep-on: Llama-3.1-8B-Instruct BF16, vLLM 0.23.0, one "
               "A100 40GB, 1024 input and 128 output tokens: 'about 75 tokens/sec' at one request, 'a 6.6x gain' in "
               "throughput up to concurrency 8")
_H100_SWEEP = ("yobitelcomm.github.io/bench/recipes/concurrency-sweep: Llama-3.1-8B-Instruct fp16 on one H100-80GB-HBM3, "
               "vLLM 0.21.0, median TPOT 6.48 ms at concurrency 1 and 6.59 ms at 4")
_H200_LATENCY = ("vLLM performance benchmark, buildkite.com/vllm/performance-benchmark/builds/9515, latency tests: "
                 "input 32, output 128 tokens, batch 8, mean latency on H200")

_PR5691_BE = ("vLLM pull request 5691, the same comment's BatchExpansionTop1Scorer column (the scorer vLLM V0 ran with "
              "CUDA graphs): 15.4, 17.7, 23.9, 36.4, 54.5 and 96.2 ms at batch 4 to 128")
_SPECDECODE = ("SpecDecode-Bench step-time model (arXiv 2601.11580; github.com/SpecDecode-Bench/simulator, predictor.py at "
               "430e82c5, class Llama8BH100, 'fitted with instructcoder bs=1,8,16,32,64' on vLLM 0.10.1, one H100, "
               "Llama-3.1-8B): forward pass = 3.92645679e-08 s x KV tokens in the batch + 2.10103129e-05 s x batched "
               "tokens + 5.88590713e-03 s, plus overhead_constant_per_step 1.20683946e-03 s a step; EAGLE-3 draft = "
               "2.37768493e-09 s x KV tokens + 8.41429603e-07 s x tokens per sequence + 2.13526175e-03 s")
_SPECDECODE_NOTE = ("a row of the fitted model (its measurements are not published), at about 512 tokens of context "
                    "(instructcoder prompts and outputs run a few hundred tokens each)")


def _specdecode_forward_ms(batch: int, tokens: int, context: int) -> float:
    """SpecDecode-Bench's fitted vLLM 0.10.1 step on one H100 (Llama-3.1-8B), ms: forward pass over
    ``batch x tokens`` batched tokens with ``batch x context`` tokens in the KV cache, plus its per-step
    overhead (:data:`_SPECDECODE`).

    >>> round(_specdecode_forward_ms(32, 4, 1000), 2)   # the issue's 'about 11 ms at batch 32'
    11.04
    """
    return (3.92645679e-08 * batch * context + 2.10103129e-05 * batch * tokens + 5.88590713e-03) * 1000 + SYNC_STEP_HOST_MS


def _specdecode_draft_ms(batch: int, tokens: int, context: int) -> float:
    """SpecDecode-Bench's fitted EAGLE-3 draft proposal (the whole proposal, not a step), ms, at ``tokens`` a sequence
    verified (``k + 1``)."""
    return (2.37768493e-09 * batch * context + 8.41429603e-07 * tokens + 2.13526175e-03) * 1000


STEP_MEASUREMENTS = (
    *(StepMeasurement("a100-80g", "llama-2-7b", "bf16", 1, batch, 6, 512, ms, 0.25, _PR5691, _PR5691_NOTE)
      for batch, ms in ((4, 13.7), (8, 14.8), (16, 18.4), (32, 25.5), (64, 35.1), (128, 70.9))),
    *(StepMeasurement("a100-80g", "llama-2-7b", "bf16", 1, batch, 6, 512, ms, 0.25, _PR5691_BE, _PR5691_NOTE,
                      "vllm-v0", "scoring")
      for batch, ms in ((4, 15.4), (8, 17.7), (16, 23.9), (32, 36.4), (64, 54.5), (128, 96.2))),
    *(StepMeasurement("h100-sxm", "llama-3-8b", "bf16", 1, batch, tokens, 512,
                      _specdecode_forward_ms(batch, tokens, 512), 0.15, _SPECDECODE, _SPECDECODE_NOTE,
                      "vllm-v1-0.10", "pass" if tokens == 1 else "verify")
      for batch in (1, 8, 16, 32, 64) for tokens in (1, 2, 4, 6)),
    *(StepMeasurement("h100-sxm", "llama-3-8b", "bf16", 1, batch, 4, 512, _specdecode_draft_ms(batch, 4, 512), 0.15,
                      _SPECDECODE, _SPECDECODE_NOTE + "; the drafter is EAGLE-3 (the simulator's only EAGLE proposer, "
                      "main.py's eagle3, labelled EAGLE3 in its plot.py; the study's runs load yuhuili/EAGLE3-LLaMA3.1-"
                      "Instruct-8B), at lookahead 3, read in the study's run scripts (SpecDecode-Bench/vllm, "
                      "scripts/run-l3-8b.sh at 75a86ce5: spec_tokens_map[\"eagle3\"]=\"3\"; scripts/profile-l3-8b.sh at "
                      "42bb068d: the same), so the fit's per-token draft term (0.84 µs) was never tested at another k. "
                      "The lab's EAGLE-3 proposal cost beyond the ops read in vLLM's code is fitted on these rows", "vllm-v1-0.10", "proposal", "eagle3-head")
      for batch in (1, 8, 16, 32, 64)),
    StepMeasurement("a100-40g", "llama-3-8b", "bf16", 1, 1, 1, 1088, 1000 / 75, 0.15, _A100_SWEEP,
                    "a plain step = 1000 / 75 ms; the context is the middle of the 1024 + 128 tokens", "vllm-v1"),
    StepMeasurement("a100-40g", "llama-3-8b", "bf16", 1, 8, 1, 1088, 8 * 1000 / (6.6 * 75), 0.15, _A100_SWEEP,
                    "a plain step at concurrency 8 = 8 / (6.6 x 75 tokens/s), derived from the quoted gain", "vllm-v1"),
    StepMeasurement("h100-sxm", "llama-3-8b", "bf16", 1, 1, 1, 512, 6.48, 0.15, _H100_SWEEP,
                    "TPOT is one plain step at concurrency 1; the context (a short chat workload) taken as 512", "vllm-v1"),
    StepMeasurement("h100-sxm", "llama-3-8b", "bf16", 1, 4, 1, 512, 6.59, 0.15, _H100_SWEEP,
                    "TPOT at concurrency 4 read as a plain step at batch 4", "vllm-v1"),
    StepMeasurement("h200", "llama-3-8b", "bf16", 1, 8, 1, 96, 833.42 / 128, 0.15, _H200_LATENCY + " (latency_llama8B_tp1: 833.42 ms)",
                    "mean latency / 128 output tokens, the 32-token prefill left in (a few percent); context about 96; the build's vLLM version is not stated: synchronous "
                    "scheduling assumed (asynchronous scheduling was opt-in before 2026)", "vllm-v1-0.10"),
    # held to 25%, not 15%: with the all-reduce priced as measured (ALLREDUCE_SOURCES) this row comes out 0.79 of the
    # measurement; the uncited 30 us an all-reduce it used to be fitted with had absorbed the rest. What vLLM's
    # tensor-parallel step pays beyond the kernels (its multiprocess executor hands each step to the workers) was not
    # found measured. Not its all-reduce kernel: SGLang pull request 2904's 9.2 us for vLLM's at 32 KB on 4 H100s (against
    # 4.8) is an eager copy a CUDA graph skips, and inside a graph vLLM's measures below the fit (ALLREDUCE_VLLM_GRAPH_HOPPER).
    StepMeasurement("h200", "llama-3-70b", "bf16", 4, 8, 1, 96, 2077.53 / 128, 0.25, _H200_LATENCY + " (latency_llama70B_tp4: 2077.53 ms)",
                    "mean latency / 128 output tokens on 4 GPUs (tensor parallel); context about 96; the build's vLLM version is not stated: synchronous "
                    "scheduling assumed (asynchronous scheduling was opt-in before 2026)", "vllm-v1-0.10"),
)


# Measured plain steps of a mixture of experts, the only ones MOE_LAYER_US is fitted on (not in STEP_MEASUREMENTS: they
# fit that one constant, every other is held), each kernel stack on its own engine's rows (the row's engine names its
# stack, Engine.moeKernels). TensorRT-LLM's ("trtllm"), read in NVIDIA/TensorRT-LLM issue #5929
# (github.com/NVIDIA/TensorRT-LLM/issues/5929, 2025-07-10, TensorRT-LLM v0.21.0rc2 built from source, LLMPerf against
# trtllm-serve, 8 x H200 141 GB and 8 x B200 180 GB): 'ITL p50 TP=8, EP=None' in seconds, DeepSeek-R1 FP8 on the H200s
# and FP4 on the B200s. Timed on ENGINES["trtllm"], whose plain pass is the GPU pass alone: TensorRT-LLM's host work is
# hidden by its overlap scheduler; no speculation named, so plain decoding assumed. vLLM's ("triton"), the Qwen3-30B-A3B
# rows of tenstorrent/tt-inference-server issue #340 (_TT340 below), held out until 5 December 2026 and chosen then, before
# the fit, as the Triton stack's fitted rows (docs/READING.md, "The MoE cost by kernel stack").
_TRT5929 = ("NVIDIA/TensorRT-LLM issue #5929 (2025-07-10), TensorRT-LLM v0.21.0rc2, LLMPerf against trtllm-serve, "
            "DeepSeek-R1, TP 8 without expert parallelism: ITL p50")
_TRT5929_NOTE = ("ITL p50 read as one plain step (no speculation named); context the prompt plus half the 600 output "
                 "tokens; TensorRT-LLM's host work assumed hidden (overlap scheduler), so the GPU pass alone is compared")
_TT340 = ("tenstorrent/tt-inference-server issue #340 ('Qwen3 Family: GPU Benchmarks', comment of 2025-07-18): Qwen3-30B-A3B "
          "on A100 with vLLM, concurrency 1, TPOT")
_TT340_NOTE = ("TPOT at concurrency 1 is one plain step; A100 80GB assumed (61 GB of BF16 weights do not fit 40 GB), BF16 "
               "(the checkpoint's); vLLM of mid-2025 (V1, synchronous scheduling); context the input plus half the output")
# vLLM's performance benchmark latency test (benchmark_latency.py, batch 8, input 32, output 128) of Mixtral-8x7B at TP 2:
# H200 from the table of build 9515 the dense H200 rows are read from (_H200_LATENCY; the copy stored at
# buildkite.com/buildkite/plugins-sparse-checkout/builds/65 holds it: 'latency_mixtral8x7B_tp2 H200 1917.44'; build 9513
# gives 1921.1), H100 from build 9555 ('8xH100', read as H100 SXM: the same table's dense rows, latency_llama8B_tp1
# 997.542 ms and latency_llama70B_tp4 2444.47 ms, come to 0.97 and 0.85 of the lab's H100 SXM). vLLM pull request 2542 (the first Triton fused_moe, 2024-01-22), 'This PR' at bs=1.
_H100_LATENCY = ("vLLM performance benchmark, buildkite.com/vllm/performance-benchmark/builds/9555, latency tests: input "
                 "32, output 128 tokens, batch 8, mean latency on '8xH100'")
_VLLM_LAT_MIXTRAL_NOTE = ("mean latency / 128 output tokens, the 256-token prefill left in (1.0% by the model) as for the "
                          "dense rows of the same tests; context about 96; BF16 (the checkpoint's); the build's vLLM version "
                          "is not stated: timed on vllm-v1-0.10 as those rows are")
_PR2542 = ("vLLM pull request 2542 ('Fused MOE for Mixtral', github.com/vllm-project/vllm/pull/2542, 2024-01-22): "
           "benchmark_latency.py --model=mistralai/Mixtral-8x7B-Instruct-v0.1 --input-len 1000 --output-len 50 -tp 8 on "
           "H100, 'This PR' bs=1: 0.459s")
_PR2542_NOTE = ("a step = 459 / 50 ms, the 1000-token prefill left in (2.9% by the model); H100 read as H100 SXM; BF16 (the "
                "checkpoint's); context the input plus half the output; vLLM of January 2024, V0")
MOE_STEP_MEASUREMENTS = (
    StepMeasurement("h200", "deepseek-v3", "fp8", 8, 1, 1, 1900, 13.78, 0.0, _TRT5929 + " 0.01378 s (input 1600)",
                    _TRT5929_NOTE, "trtllm"),
    StepMeasurement("h200", "deepseek-v3", "fp8", 8, 1, 1, 8492, 14.53, 0.0, _TRT5929 + " 0.01453 s (input 8192)",
                    _TRT5929_NOTE, "trtllm"),
    StepMeasurement("h200", "deepseek-v3", "fp8", 8, 8, 1, 1900, 18.18, 0.0, _TRT5929 + " 0.01818 s (batch 8, input "
                    "1600)", _TRT5929_NOTE, "trtllm"),
    StepMeasurement("b200", "deepseek-v3", "fp4", 8, 1, 1, 1900, 6.78, 0.0, _TRT5929 + " 0.00678 s (input 1600)",
                    _TRT5929_NOTE, "trtllm"),
    StepMeasurement("b200", "deepseek-v3", "fp4", 8, 1, 1, 8492, 7.14, 0.0, _TRT5929 + " 0.00714 s (input 8192)",
                    _TRT5929_NOTE, "trtllm"),
    *(StepMeasurement("a100-80g", "qwen3-30b-a3b", "bf16", 1, 1, 1, context, ms, 0.0,
                      _TT340 + f" {ms} ms (input {isl}, output 128)", _TT340_NOTE, "vllm-v1-0.10")
      for isl, context, ms in ((128, 192, 9.6), (2048, 2112, 9.9), (8192, 8256, 10.6))),
)

# The Triton stack's plain MoE steps on Hopper, READ AND NOT FITTED (5 December 2026, docs/READING.md, "The Triton stack
# on Hopper and other families"): the three rows that passed the screen written before any was read, vLLM's latency test
# of Mixtral-8x7B on H200 and H100 and vLLM's first fused MoE on H100. The screen fixed, before the fit, that every row
# passing it is fitted and that the one value must reproduce each within 15%, else no number changes. It cannot:
# fit_moe_layer_us on the three gives 163.8 us a layer, leaving 1.19, 1.21 and 0.86 (the two 2024 latency tests alone
# want about 63 us, the January 2024 V0 row at TP 8 about 203 us; at Ampere's assumed 23.8 us the model gives 0.89, 0.96
# and 0.38 of them). So MOE_LAYER_US keeps no Hopper value for the Triton stack.
MOE_TRITON_HOPPER_STEPS = (
    *(StepMeasurement(gpu, "mixtral-8x7b", "bf16", 2, 8, 1, 96, ms / 128, 0.0, f"{source}: latency_mixtral8x7B_tp2 "
                      f"{ms} ms", _VLLM_LAT_MIXTRAL_NOTE, "vllm-v1-0.10")
      for gpu, source, ms in (("h200", _H200_LATENCY, 1917.44), ("h100-sxm", _H100_LATENCY, 2326.97))),
    StepMeasurement("h100-sxm", "mixtral-8x7b", "bf16", 8, 1, 1, 1025, 459 / 50, 0.0, _PR2542, _PR2542_NOTE, "vllm-v0"),
)


# Measured plain steps of a mixture of experts held out of every fit (lab.serving_validation.moe_steps): SGLang's and the
# B200 blog's rows chosen before MOE_LAYER_US was fitted and looked at once after it (SGLang's older Triton kernels on
# Hopper, where the Triton stack's cost is assumed Ampere's; TensorRT-LLM in another configuration on Blackwell);
# gpt-fast's Mixtral rows found after the fit, used for nothing but this check: no engine, so neither stack (compiled
# PyTorch indexing each token's expert weights), timed on the default engine's GPU pass and so on the Triton stack's
# cost. vLLM's Qwen3-30B-A3B rows on one A100, held out here until 5 December 2026, now fit the Triton stack (above).
_SGL2643 = ("sgl-project/sglang pull request 2643 ('chore: bump v0.4.1.post2', 2024-12-29): DeepSeek-V3, --tp 8, 'Using "
            "CUDA Graph and FP8 GEMM Tuning', input 128, output 256")
_SGL2643_NOTE = ("a plain step = batch / output tokens per second (the 128-token prefill left in, under 2%); 8 x H200 assumed "
                 "(the GPU is not named; 671 GB of FP8 weights do not fit 8 x 80 GB); context the prompt plus half the output")
_TRT_BLOG1 = ("NVIDIA/TensorRT-LLM docs/source/blogs/tech_blog/blog1_Pushing_Latency_Boundaries_Optimizing_DeepSeek-R1_"
              "Performance_on_NVIDIA_B200_GPUs.md (at 5685103), table 'Autoregressive MTP Layers': 'Without MTP' 111 TPS/User, "
              "DeepSeek-R1 on 8 x B200, ISL 1k, OSL 2k, MoE in NVFP4 (attention BF16), TP 8 with the experts in mixed TP/EP")
_GPTFAST = ("meta-pytorch/gpt-fast mixtral-moe/README.md (at 5b78df6), Benchmarks: Mixtral-8x7B baseline (bfloat16) at batch "
            "size 1, prompt of 5 tokens, 'on an 8xA100-80GB, power limited to 330W with a hybrid cube mesh topology', "
            "tensor parallel")
_GPTFAST_NOTE = ("a plain step = 1000 / tokens per second; context about 105 (the 5-token prompt and half of generate.py's "
                 "200 new tokens, assumed); gpt-fast is compiled PyTorch with no serving engine (engine \"\"), its MoE "
                 "indexes each token's expert weights (no permutation kernels), and the GPUs were power-limited and not "
                 "on an NVSwitch: all of which the model does not know")
MOE_HELD_OUT_STEPS = (
    *(StepMeasurement("a100-80g", "mixtral-8x7b", "bf16", gpus, 1, 1, 105, 1000 / tps, 0.0,
                      _GPTFAST + f": {gpus} GPU {tps} tokens/s", _GPTFAST_NOTE)
      for gpus, tps in ((2, 96.67), (4, 155.35), (8, 227.82))),
    *(StepMeasurement("h200", "deepseek-v3", "fp8", 8, batch, 1, 256, batch * 1000 / tps, 0.0,
                      _SGL2643 + f": batch {batch}, {tps} token/s", _SGL2643_NOTE, "sglang")
      for batch, tps in ((1, 30.29), (8, 206.32), (32, 760.52))),
    StepMeasurement("b200", "deepseek-v3", "fp4", 8, 1, 1, 2048, 1000 / 111, 0.0, _TRT_BLOG1,
                    "1000 / 111 TPS at one user, plain decoding; context the input plus half the output; attention "
                    "in BF16 is priced as FP4 (the preset's one precision), so the model is a little fast there; timed "
                    "on the trtllm engine, whose plain pass is the GPU pass alone, its MoE kernels TensorRT-LLM's", "trtllm"),
)


# Measured plain steps on a GPU whose efficiencies stay assumed: the only rows MI300X_PASS_MS is fitted on (not in
# STEP_MEASUREMENTS, whose GPUs are fitted whole and called measured). AMD's 'Performance results with AMD ROCm
# software' page (amd.com/en/developer/resources/rocm-hub/dev-ai/performance-results.html), vLLM 'Latency
# Measurements' ('the time from when the system receives an input to when the model produces a result', vLLM's
# offline latency benchmark): Llama 3.1 70B (amd/Llama-3.1-70B-Instruct-FP8-KV), FP8, TP 8, input 128, output 2048, on
# 'Dual AMD EPYC 9554 ... with 8x AMD MI300X (192GB HBM3 750W)'. Three editions of the page, each with its container:
# rocm/vllm:rocm6.4.1_vllm_0.9.1_20250715 (the English page as stored: batch 1 17.236 s, batch 2 18.057 s) and
# rocm6.4.1_vllm_0.10.1_20250909 (its French and Chinese copies as stored: 15.254, 18.157 and 18.549 s at batch 1, 2
# and 4) and rocm/vllm:rocm7.0.0_vllm_0.10.2_20251006 (a later Chinese copy: 15.882, 17.934 and 18.487 s); the rest of
# each table was not in the stored text. Assumed in reading them: each step = latency / 2048 (the
# prefill of 128 tokens a sequence is left in, well under 1%); context the input plus half the output; Llama-3.1-70B
# priced as the llama-3-70b preset (the same layers, widths and 128,256-token vocabulary); vLLM V1 with synchronous
# scheduling (engine vllm-v1-0.10: asynchronous scheduling was opt-in before 2026); held to 25% as the house's other
# multi-GPU row is. The editions differ by 13% at batch one, the spread of the engine between releases.
_AMD_LATENCY = ("AMD, 'Performance results with AMD ROCm software' (amd.com/en/developer/resources/rocm-hub/dev-ai/"
                "performance-results.html), vLLM latency measurements: Llama 3.1 70B (amd/Llama-3.1-70B-Instruct-FP8-KV), "
                "FP8, TP 8 on 8 x MI300X, input 128, output 2048")
_AMD_LATENCY_NOTE = ("a plain step = latency / 2048 output tokens (the 128-token prefill left in, under 1%); context the "
                     "input plus half the output; vLLM V1 with synchronous scheduling assumed")
PASS_STEP_MEASUREMENTS = tuple(
    StepMeasurement("mi300x", "llama-3-70b", "fp8", 8, batch, 1, 128 + 2048 // 2, seconds * 1000 / 2048, 0.25,
                    _AMD_LATENCY + f" ({container}: batch {batch}, {seconds} s)", _AMD_LATENCY_NOTE, "vllm-v1-0.10")
    for container, batch, seconds in (("rocm/vllm:rocm6.4.1_vllm_0.9.1_20250715", 1, 17.236),
                                      ("rocm/vllm:rocm6.4.1_vllm_0.9.1_20250715", 2, 18.057),
                                      ("rocm6.4.1_vllm_0.10.1_20250909", 1, 15.254),
                                      ("rocm6.4.1_vllm_0.10.1_20250909", 2, 18.157),
                                      ("rocm6.4.1_vllm_0.10.1_20250909", 4, 18.549),
                                      ("rocm/vllm:rocm7.0.0_vllm_0.10.2_20251006", 1, 15.882),
                                      ("rocm/vllm:rocm7.0.0_vllm_0.10.2_20251006", 2, 17.934),
                                      ("rocm/vllm:rocm7.0.0_vllm_0.10.2_20251006", 4, 18.487)))
