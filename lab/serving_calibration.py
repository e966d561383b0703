"""Calibration of the serving model's per-operator step (``stepModel="measured"``) on measured
step times, one calibration per GPU preset, every number with where it was read.

Only step times are used here: a plain decode step (inter-token latency at a fixed batch) or a
verify step (the target's scoring pass over ``k + 1`` tokens per sequence), against the batch
and the tokens per sequence. End-to-end speedups of speculative decoding are kept apart, in
:mod:`lab.serving_validation`: they judge the model, so they do not tune it.

How the constants were chosen: a grid search over the efficiencies, the overlap and the fixed
costs minimising the squared log-ratio of model to measurement over the GPU family's
:data:`STEP_MEASUREMENTS` (the script is not kept: the constants and the residuals below are the
record; ``lab.checks.serving`` holds the model to every measurement within its tolerance).

- Ampere (A100 40GB and 80GB share the GA100 chip and one calibration): the verify-step times
  of vLLM's pull request 5691 (Llama-7B, k = 5, batch 4 to 128) and a plain-decode sweep of
  Llama-3.1-8B on an A100 40GB. Residuals 0.92 to 1.20 (the worst: batch 64 of the verify sweep).
- Hopper (H100 SXM and H200 share the GH100 chip and one calibration): plain decode of
  Llama-3.1-8B on one H100 (batch 1 and 4) and vLLM's performance-benchmark latency tests on H200
  (Llama-3.1-8B on one GPU and Llama-3-70B on four, batch 8). Residuals 0.87 to 1.08: the H100
  and H200 8B rows disagree with each other (the faster H200 measured no faster), so no one
  calibration fits both better than about 10%. No verify-step time on Hopper was
  found: the overlap (how much a GEMM's arithmetic hides under its weight reads) is the Ampere
  value, an assumption, and the FLOP efficiency is weakly fixed by plain steps alone.
- Per-sequence engine work, the same on every GPU (measured on the engine, not fitted): 1.13 us per
  sequence per step (vLLM's Scheduler.update_from_output micro-benchmark, :data:`SEQUENCE_US`) and
  the rejection sampler's 5.6 us per draft token in a verify pass (:data:`REJECT_US`). Neither is
  fitted on the step times above; the step-time residuals were unchanged by them to within 1%.
  Assumed: the sampler's measured cost (sampled drafts, temperature 0.5) for greedy verification
  too; the engine's other per-sequence loops (schedule(), input preparation), not found measured,
  are left out, so these terms are a lower bound on what grows with the batch.
- Output processing that speculation pays serially, the same on every GPU (measured on the engine, not
  fitted): 0.103 ms per sequence per verify step (:data:`SERIAL_OUTPUT_US`), vLLM's measured time in
  ``_process_model_outputs`` (0.2 ms at batch 1, 3.4 ms at batch 32). Plain decoding overlaps it with the
  next GPU pass (vLLM's asynchronous output processor; SGLang's overlap scheduler), so the plain-step
  calibration above has no such term; the engines the batch brackets were measured on turned that overlap
  off with speculative decoding (vLLM V0's ``verify_async_output_proc``; SGLang's server arguments with
  EAGLE), so a speculative cycle pays it once, after its verify step. An engine that overlaps it with
  speculation too (vLLM V1's separate output process, asynchronous scheduling with speculation) pays less:
  for it this term overstates the cost, and the page says so. Charged per sequence; each token a cycle emits
  beyond a sequence's first adds the measured incremental detokenization, 21.2 us (:data:`TOKEN_OUTPUT_US`,
  vLLM issue #5206; vLLM V0's output processor detokenizes a cycle's tokens one at a time), a cycle term
  that grows with the acceptance; the rest of the per-token work (appending, stop checks) was not found
  measured, so this is still a lower bound for those engines. Neither is fitted on the step times above:
  they touch no plain or calibrated verify pass.
- Engines (:data:`ENGINES`, read in each engine's code, not fitted): vLLM V0 verifies by batch
  expansion with CUDA graphs on (a KV cache read per verified token, 0.75 ms more bookkeeping a
  cycle, :data:`BATCH_EXPANSION_MS`); SGLang's EAGLE worker runs a draft extend pass each cycle;
  vLLM V1 does neither. They touch no plain pass and no calibrated step above.
- L40S and RTX 4090: no measurement was found. Their calibration is assumed (Ampere's
  efficiencies, a PCIe link of 25 GB/s between GPUs), and the page says so.

Standard library only; data as Python literals.
"""

from typing import NamedTuple

__all__ = ["Calibration", "CALIBRATIONS", "IDEAL", "StepMeasurement", "STEP_MEASUREMENTS", "MEASURED_GPUS", "Engine",
           "ENGINES", "DEFAULT_ENGINE"]


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
    token a cycle emits for a sequence beyond its first (incremental detokenization); ``allreduceUs`` one
    all-reduce's latency; ``linkBandwidth`` the bytes per second
    one GPU sends to the others; ``memoryUtilization`` the share of GPU memory an engine gives to
    weights and KV cache (vLLM's default ``gpu_memory_utilization``)."""

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


_AMPERE = ("fitted on the A100 step times listed in STEP_MEASUREMENTS (vLLM pull request 5691's verify steps; "
           "a vLLM plain-decode sweep on A100 40GB); NVLink 3: 600 GB/s per GPU both ways, 300 one way")
_HOPPER = ("fitted on the H100 and H200 plain-decode steps listed in STEP_MEASUREMENTS; the overlap is Ampere's "
           "(no Hopper verify-step time was found); NVLink 4: 900 GB/s per GPU both ways, 450 one way")
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

AMPERE = Calibration(0.85, 0.70, 0.25, 3.0, DRAFT_PASS_MS, SPEC_CYCLE_MS, 0.010, 10.0, 300e9, 0.9, True, _AMPERE,
                     SEQUENCE_US, REJECT_US, SERIAL_OUTPUT_US, TOKEN_OUTPUT_US)
HOPPER = Calibration(0.90, 0.50, 0.25, 1.5, DRAFT_PASS_MS, SPEC_CYCLE_MS, 0.015, 30.0, 450e9, 0.9, True, _HOPPER,
                     SEQUENCE_US, REJECT_US, SERIAL_OUTPUT_US, TOKEN_OUTPUT_US)
ADA = Calibration(0.85, 0.70, 0.25, 3.0, DRAFT_PASS_MS, SPEC_CYCLE_MS, 0.010, 30.0, 25e9, 0.9, False, _ASSUMED,
                  SEQUENCE_US, REJECT_US, SERIAL_OUTPUT_US, TOKEN_OUTPUT_US)

# The per-operator model with every extra term zeroed (``stepModel="operators"``): datasheet peaks,
# a GEMM's memory and compute fully overlapped, no fixed cost, a free interconnect, all memory usable.
IDEAL = Calibration(1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, float("inf"), 1.0, False, "no calibration: the ideal limit")

CALIBRATIONS = {"a100-80g": AMPERE, "a100-40g": AMPERE, "h100-sxm": HOPPER, "h200": HOPPER,
                "l40s": ADA, "rtx-4090": ADA}
MEASURED_GPUS = tuple(name for name, cal in CALIBRATIONS.items() if cal.measured)


class Engine(NamedTuple):
    """How an engine runs a speculative cycle, where engines differ in what it costs (read in their
    code, not fitted): ``expandedVerify``, the verify pass scores each draft as a sequence of its own
    (batch expansion), so attention reads a sequence's KV cache once per verified token, not once;
    ``expansionMs``, the extra bookkeeping of that expansion per cycle (measured); ``draftExtend``,
    the draft model runs one more pass per cycle over the verified tokens, to catch up on the
    tokens the target accepted."""

    name: str
    label: str
    expandedVerify: bool
    expansionMs: float
    draftExtend: bool
    source: str


# Batch expansion's bookkeeping, read in vLLM issue #6915 (the source of SPEC_CYCLE_MS): 'When batch expansion is
# used ... it is another 0.5-1ms spent in python processing', '~2ms for batch expansion' end to end against ~1.3
# for MQA. The middle of the quoted range, 0.75 ms, on top of SPEC_CYCLE_MS (1.3 + 0.75 = 2.05).
BATCH_EXPANSION_MS = 0.75
ENGINES = {
    # Labels (N-6 of the December fact check): V1 is the default from 0.8, but V1 had no draft-model speculation
    # up to 0.10.0 (vLLM README: "Speculative decoding with a draft models is not supported in vllm<=0.10.0"), so
    # draft-model runs of that time, like the 70B sweep of issue #17984, ran on V0.
    "vllm-v1": Engine("vllm-v1", "vLLM V1 (0.8 on)", False, 0.0, False,
                      "vLLM V1's EAGLE and draft-model proposers score every sequence's drafts in one multi-query "
                      "pass (each KV cache read once) and run the draft's first step over the verified tokens "
                      "(no extra pass); the default"),
    "vllm-v0": Engine("vllm-v0", "vLLM V0 (default to 0.7; draft models to 0.10)", True, BATCH_EXPANSION_MS, False,
                      "vllm/spec_decode/spec_decode_worker.py (V0), create_worker: 'Disabling MQA scorer as the "
                      "target model is not running in eager mode' (and when the draft's max_model_len is smaller "
                      "than the target's), so with CUDA graphs, the default, the scorer is BatchExpansionTop1Scorer: "
                      "each sequence with k drafts becomes k + 1 sequences of one token, each reading its KV cache "
                      "(vLLM issue #17984 describes it: 'expands the batch by the factor of k'); read through the "
                      "code index in V0-era copies"),
    "sglang": Engine("sglang", "SGLang (EAGLE worker)", False, 0.0, True,
                     "SGLang's EAGLE worker runs draft, verify, then draft extend in every decode step (SGLang pull "
                     "request 21895: 'Decode executes in the order Draft -> Verify -> DraftExtend'), the extend pass "
                     "computing the draft's logits for every verified row (pull request 35546, 2026: 'the model "
                     "computes full-vocabulary logits for every draft row'); verify reads each KV cache once (a "
                     "prefill kernel with a tree mask)"),
}
DEFAULT_ENGINE = "vllm-v1"


class StepMeasurement(NamedTuple):
    """One measured step: ``ms`` for ``target`` on ``gpus`` x ``gpu`` at ``batch`` sequences
    with ``newTokens`` tokens each and about ``context`` tokens of context; ``tolerance`` is the
    relative error the checks allow for it, ``source`` where it was read and ``note`` what was
    assumed in reading it."""

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

STEP_MEASUREMENTS = (
    *(StepMeasurement("a100-80g", "llama-2-7b", "bf16", 1, batch, 6, 512, ms, 0.25, _PR5691, _PR5691_NOTE)
      for batch, ms in ((4, 13.7), (8, 14.8), (16, 18.4), (32, 25.5), (64, 35.1), (128, 70.9))),
    StepMeasurement("a100-40g", "llama-3-8b", "bf16", 1, 1, 1, 1088, 1000 / 75, 0.15, _A100_SWEEP,
                    "a plain step = 1000 / 75 ms; the context is the middle of the 1024 + 128 tokens"),
    StepMeasurement("a100-40g", "llama-3-8b", "bf16", 1, 8, 1, 1088, 8 * 1000 / (6.6 * 75), 0.15, _A100_SWEEP,
                    "a plain step at concurrency 8 = 8 / (6.6 x 75 tokens/s), derived from the quoted gain"),
    StepMeasurement("h100-sxm", "llama-3-8b", "bf16", 1, 1, 1, 512, 6.48, 0.15, _H100_SWEEP,
                    "TPOT is one plain step at concurrency 1; the context (a short chat workload) taken as 512"),
    StepMeasurement("h100-sxm", "llama-3-8b", "bf16", 1, 4, 1, 512, 6.59, 0.15, _H100_SWEEP,
                    "TPOT at concurrency 4 read as a plain step at batch 4"),
    StepMeasurement("h200", "llama-3-8b", "bf16", 1, 8, 1, 96, 833.42 / 128, 0.15, _H200_LATENCY + " (latency_llama8B_tp1: 833.42 ms)",
                    "mean latency / 128 output tokens, the 32-token prefill left in (a few percent); context about 96"),
    StepMeasurement("h200", "llama-3-70b", "bf16", 4, 8, 1, 96, 2077.53 / 128, 0.15, _H200_LATENCY + " (latency_llama70B_tp4: 2077.53 ms)",
                    "mean latency / 128 output tokens on 4 GPUs (tensor parallel); context about 96"),
)
