"""vLLM V0's own logged stage times, held against the serving model (docs/READING.md, "vLLM V0's own stage times").

V0's SpecDecodeWorker logged ``SpecDecodeWorker stage times: average_time_per_proposal_tok_ms=... scoring_time_ms=...
verification_time_ms=...``. What each number times, read in ``vllm/spec_decode/spec_decode_worker.py`` (vllm-project/vllm
at 00b974db, ``_run_speculative_decoding_step``, read through the code index) and ``vllm/spec_decode/util.py`` (at
0531c222, ``Timer``: "Basic timer context manager for measuring CPU time", ``time.time()`` on entry and exit, no device
synchronisation):

- ``average_time_per_proposal_tok_ms``: ``proposer_worker.get_spec_proposals`` over the whole proposal of k tokens,
  divided by ``num_lookahead_slots`` (k). A row of kind ``"proposal"`` holds k times it (:data:`KINDS`).
- ``scoring_time_ms``: ``scorer.score_proposals``, with CUDA graphs ``BatchExpansionTop1Scorer`` (the batch expanded on
  the host, the target's pass, the batch contracted). A row of kind ``"scoring"``: the verify pass in V0's layout with
  batch expansion's bookkeeping, **without** the rejection sampler (:func:`lab.serving_validation.step_measurement_ms`).
- ``verification_time_ms``: ``_verify_tokens``, the rejection sampler. No row: its GPU work is not synchronised inside
  its timer (the logged 0.17 to 1.61 ms barely moves with batch x k), so it is the sampler's launch, not its cost.

``_create_output_sampler_list`` logs them only when the rejection sampler emits metrics ("every 5s", vLLM pull request
6963's author in review, 2024-07-30), so each line is **one** step's timing, not an average. Which lines were used, and why the others were not, is in docs/READING.md (the
curation rule was written there before the lines were held against the model).

Used: one public MI300X benchmark note (:data:`MI300X_NOTE`; Llama-3.1-70B on 8 x MI300X, vLLM's ROCm V0 of December
2024, a closed loop at concurrency 128). Its step's own batch is not logged: the closed loop bounds it by 128, so a
scoring row is held as a bracket (the measurement lies between the model at batch 1 and at the bound,
:func:`stage_failures`), and a proposal row, nearly flat in the batch on several GPUs (each draft step a host-driven
pass), within its tolerance at both ends. Nothing is fitted on these rows (they miss in no one direction: the
scoring pass at the bound is above them, the multi-GPU proposal a little below, within 25%).

What the same reading changed: pull request 5691's ``BatchExpansionTop1Scorer`` column, V0's scoring time, had been
compared with a verify pass that included the rejection sampler V0 times apart; without it the share of a KV cache
each extra verified token re-reads, fitted on those times alone, is 0.37, not 0.33 (:func:`fit_expansion_kv_share`,
:data:`lab.serving_calibration.EXPANSION_KV_SHARE`).

>>> [m.kind for m in STAGE_MEASUREMENTS]
['scoring', 'proposal', 'scoring']
>>> stage_failures()
[]
"""

import math
from typing import NamedTuple

from .serving_calibration import StepMeasurement

__all__ = ["MI300X_NOTE", "StageLine", "STAGE_LINES", "STAGE_MEASUREMENTS", "BATCH_BOUND", "stage_rows",
           "stage_failures", "implied_batch", "fit_expansion_kv_share"]

# A public benchmark note, github.com/AUGMXNT/llm-tracker.info-vault, 'vLLM Benchmark serving.md' (the lines first at
# commit 65121bc6, 2024-12-17; the source of llm-tracker.info), by its author as user
# 'hotaisle' on a Hot Aisle MI300X node ('# MI300X', 'hotaisle@ENC1-CLS01-SVR14:~/vllm-rocm/benchmarks$'), vLLM's ROCm
# build (VLLM_USE_TRITON_FLASH_ATTN=0), V0 (spec_decode_worker.py:961, logged 12-16: December 2024). Read December 2026.
MI300X_NOTE = ("an MI300X benchmark note, github.com/AUGMXNT/llm-tracker.info-vault, 'vLLM Benchmark serving.md' at 65121bc6 "
               "(2024-12-17; user 'hotaisle', "
               "vLLM ROCm V0, logged 12-16, so December 2024): 'VLLM_USE_TRITON_FLASH_ATTN=0 vllm serve -tp 8 "
               "meta-llama/Llama-3.1-70B-Instruct --gpu_memory_utilization=0.96 --max-num-seqs 2048 --speculative_model "
               "...', driven by 'benchmark_serving.py ... --dataset-name sharegpt --num-prompts 1024 --max-concurrency "
               "128' (1024 requests, 'Total input tokens: 220902', about 191,900 generated)")
_MI300X_ASSUMED = ("assumed: BF16 weights (the checkpoint's, no dtype or quantization flag); Llama-3.1-70B priced as "
                   "llama-3-70b; the step's batch at most 128, the closed loop's concurrency (not logged); context 310 "
                   "(the mean prompt, 216 tokens, plus half the mean output, 187); the draft on the target's 8 GPUs (V0's "
                   "default draft tensor-parallel size); batch expansion (ROCm's attention backend is not FLASH_ATTN "
                   "and CUDA graphs were on: create_worker disables the MQA scorer for either)")
BATCH_BOUND = 128   # --max-concurrency 128: no step of the closed loop ran more sequences
_CONTEXT = 216 + 187 // 2   # 220,902 / 1024 prompt tokens and about 187 generated a request, half of them read


class StageLine(NamedTuple):
    """One logged ``SpecDecodeWorker stage times`` line as pasted, with the run it came from: ``draft`` the lab's
    draft preset when the lab prices it ("" when not: only its scoring is used), ``k`` the speculative tokens."""

    label: str
    draftModel: str
    draft: str
    k: int
    proposalTokenMs: float
    scoringMs: float
    verificationMs: float
    quoted: str


STAGE_LINES = (
    StageLine("1B draft, k = 10", "meta-llama/Llama-3.2-1B-Instruct", "llama-3.2-1b", 10, 4.51, 32.27, 1.58,
              "'--speculative_model meta-llama/Llama-3.2-1B-Instruct --num_speculative_tokens 10': 'INFO 12-16 17:05:51 "
              "spec_decode_worker.py:961] SpecDecodeWorker stage times: average_time_per_proposal_tok_ms=4.51 "
              "scoring_time_ms=32.27 verification_time_ms=1.58'"),
    StageLine("8B draft, k = 5", "meta-llama/Llama-3.1-8B-Instruct", "", 5, 7.98, 36.46, 1.61,
              "'--speculative_model meta-llama/Llama-3.1-8B-Instruct --num_speculative_tokens 5': 'INFO 12-16 17:15:43 "
              "spec_decode_worker.py:961] SpecDecodeWorker stage times: average_time_per_proposal_tok_ms=7.98 "
              "scoring_time_ms=36.46 verification_time_ms=1.61'"),
)


def stage_rows(line: StageLine) -> tuple:
    """The step measurements one logged line gives (kinds of :data:`lab.serving_calibration.KINDS`, engine
    ``vllm-v0``, at the batch bound): its scoring pass over ``k + 1`` tokens a sequence, and, where the lab prices
    the draft, its whole proposal, ``k x average_time_per_proposal_tok_ms``. Tolerance 25%, the house's for a row
    on several GPUs (a scoring row is held as a bracket over the batch instead: :func:`stage_failures`)."""
    source = MI300X_NOTE + "; " + line.quoted
    rows = [StepMeasurement("mi300x", "llama-3-70b", "bf16", 8, BATCH_BOUND, line.k + 1, _CONTEXT, line.scoringMs, 0.25,
                            source, "scoring_time_ms, one step; " + _MI300X_ASSUMED, "vllm-v0", "scoring")]
    if line.draft:
        rows.append(StepMeasurement("mi300x", "llama-3-70b", "bf16", 8, BATCH_BOUND, line.k + 1, _CONTEXT,
                                    round(line.k * line.proposalTokenMs, 2), 0.25, source,
                                    f"{line.k} x average_time_per_proposal_tok_ms, one step; " + _MI300X_ASSUMED,
                                    "vllm-v0", "proposal", line.draft))
    return tuple(rows)


STAGE_MEASUREMENTS = tuple(m for line in STAGE_LINES for m in stage_rows(line))


def _model_ms(m: StepMeasurement, batch: int) -> float:
    from .serving_validation import step_measurement_ms
    return step_measurement_ms(m._replace(batch=batch))


def stage_failures(rows=STAGE_MEASUREMENTS) -> list[str]:
    """Each row the model does not hold, as a message ([] when all hold): a ``"scoring"`` row must lie between the
    model at batch 1 and at the row's batch (the bound: the step's own batch is not logged), so a model that
    under-prices V0's scoring pass at the largest batch the run could have had fails it, and one that over-prices it
    at batch one; any other row must be within its tolerance at batch 1 and at the bound.

    >>> stage_failures([m._replace(ms=m.ms * 4) for m in STAGE_MEASUREMENTS[:1]])[0][:45]
    'llama-3-70b on 8 x mi300x (vllm-v0, scoring):'
    """
    out = []
    for m in rows:
        low, high = _model_ms(m, 1), _model_ms(m, m.batch)
        head = f"{m.target} on {m.gpus} x {m.gpu} ({m.engine}, {m.kind}):"
        if m.kind == "scoring":
            if not low <= m.ms <= high:
                out.append(f"{head} measured {m.ms:.2f} ms outside the model's {low:.2f} (batch 1) to {high:.2f} ms "
                           f"(batch {m.batch})")
        elif max(abs(low / m.ms - 1), abs(high / m.ms - 1)) > m.tolerance:
            out.append(f"{head} model {low:.2f} (batch 1) to {high:.2f} ms (batch {m.batch}), measured {m.ms:.2f} ms "
                       f"(tolerance {m.tolerance:.0%})")
    return out


def implied_batch(m: StepMeasurement) -> int | None:
    """The smallest batch at which the model's time for ``m`` reaches the measured one (None if it never does up to
    the row's batch): for a scoring row, the batch the logged step would have had if the model were right.

    >>> [implied_batch(m) for m in STAGE_MEASUREMENTS if m.kind == "scoring"]
    [41, 87]
    """
    for batch in range(1, m.batch + 1):
        if _model_ms(m, batch) >= m.ms:
            return batch
    return None


def fit_expansion_kv_share(rows=None, low: float = 0.0, high: float = 1.0) -> float:
    """The share of a sequence's KV cache each extra verified token re-reads under batch expansion (vLLM V0's
    ``expansionKvShare``) that minimises the sum of squared log ratios, model over measured, over ``rows`` (default:
    the ``"scoring"`` rows of :data:`lab.serving_calibration.STEP_MEASUREMENTS`, pull request 5691's
    BatchExpansionTop1Scorer column), every other constant held: a ternary search to 0.0001, rounded to 0.01. How
    :data:`lab.serving_calibration.EXPANSION_KV_SHARE` was found (0.33 while the scoring rows wrongly carried the
    rejection sampler).

    >>> fit_expansion_kv_share()
    0.37
    """
    from . import serving_calibration as cal
    from .serving_validation import _ternary_minimum, step_measurement_ms
    rows = [m for m in cal.STEP_MEASUREMENTS if m.kind == "scoring"] if rows is None else rows

    def loss(share):
        return sum(math.log(step_measurement_ms(m, engine=cal.ENGINES[m.engine]._replace(expansionKvShare=share)) / m.ms)
                   ** 2 for m in rows)

    return round(_ternary_minimum(loss, low, high, 0.0001), 2)
