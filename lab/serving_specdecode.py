"""What an EAGLE-3 proposal costs on vLLM V1 0.10 beyond the costs the lab reads in its code, calibrated on the
SpecDecode-Bench step-time model's draft term (step times only, never a speedup).

SpecDecode-Bench (arXiv 2601.11580; github.com/SpecDecode-Bench/simulator) fits one drafter's proposal on vLLM 0.10.1,
one H100, Llama-3.1-8B-Instruct (predictor.py on main at 2fdccbd, the same on branch dev/add-adaptive at 430e82c5, class
``Llama8BH100``, "fitted with instructcoder bs=1,8,16,32,64"): ``draft_c_kv = 2.37768493e-09`` s per token in the batch's KV cache, ``draft_c_num_spec_tokens =
8.41429603e-07`` s per token a sequence verifies, ``draft_c_fixed = 2.13526175e-03`` s, charged once a step beside the
forward pass and ``overhead_constant_per_step`` (simulator.py, ``simulate_sd_batch``: ``verify_time + draft_time +
get_overhead_per_step()``; ``num_tokens_in_kv`` is the whole batch's, ``step_input_lens`` a sequence's k + 1). Which
drafter it fits, read in the same repository: the EAGLE-3 head. main.py maps ``--proposer eagle3`` (its only EAGLE
choice) to the acceptance data it simulates (``ACC_GT_METHOD_MAP = {"eagle3": AccLenGroundTruth.EAGLE, ...}``), plot.py
labels that method ``"EAGLE": "EAGLE3"``, and README.md says the simulator "Run[s] simulations for EAGLE3, NGRAM, and
combined proposers". The study's profiling runs (SpecDecode-Bench/vllm, scripts/common.py, ``get_eagle_model``) load
``yuhuili/EAGLE3-LLaMA3.1-Instruct-8B`` for method eagle3, at ``num_spec_tokens`` 3 (scripts/run-l3-8b.sh at 75a86ce5,
scripts/profile-l3-8b.sh at 42bb068d; the plotting default ``{"eagle": [3], "eagle3": [3]}`` in common.py), with CUDA
graphs on (scripts/bench_latency.py: ``enforce_eager=False``). Its step timer (benchmarks/profiler.py, ``SDProfiler``)
times the verify pass between two ``torch.cuda.synchronize()`` calls and the proposal by host clock
(``start_propose``/``end_propose``, ``time.perf_counter()``), so the proposal is what the host waits for. No other
model or GPU is fitted in the simulator ("we only support Llama3.1-8B-Instruct with H100 for now").

The lab had held this term against an EAGLE-1 head (up to December 2026): read for the drafter it fits, the lab's
EAGLE-3 proposal at k = 3 and 512 tokens of context (:mod:`lab.serving_step`: three one-token draft steps of the head as
llama_eagle3.py builds it, the first over the verified tokens, the unfused state updates between steps, EAGLE-3's eager
ops and the fc once a cycle) is 1.74 ms at batch 1 and 2.10 at batch 64 against the fit's 2.14 and 2.22: 0.81 to 0.95
of it. What is missing was not found measured by itself (the proposer's host work: its input preparation with a
``.max().item()``, the drafting attention metadata, the drafts' ``.tolist()``; vLLM pull requests 20078 and 24539 give
only relative gains); it is priced as one constant a proposal, :data:`EAGLE3_PROPOSAL_MS`, fitted on the fit's rows
(:func:`lab.serving_validation.fit_eagle3_proposal_ms`).

Standard library only; data as Python literals.
"""

__all__ = ["EAGLE3_PROPOSAL_MS", "eagle3_proposal_ms"]

# The EAGLE-3 proposal's cost on vLLM V1 0.10 beyond what the lab prices from the code, ms a proposal (once a cycle,
# whatever k): the squared log ratios of the lab's EAGLE-3 proposal to SpecDecode-Bench's fitted one minimised over its
# rows in lab.serving_calibration.STEP_MEASUREMENTS (k = 3, batch 1, 8, 16, 32 and 64, 512 tokens of context: the
# study's profiled lookahead and the fit's batches; lab.serving_validation.fit_eagle3_proposal_ms). Residuals 0.955
# (batch 1) to 1.086 (batch 64): the lab's draft grows with the batch faster than the fit's 2.4 ns per KV token. Charged
# to vllm-v1-0.10 with an EAGLE-3 head only, the drafter the fit timed: whether an EAGLE-1 head pays it on 0.10 (the
# host work named above is the proposer's, not the head's) was not measured, so EAGLE-1 is not charged (a lower
# bound there); today's V1 (asynchronous scheduling, padded speculation) was not measured either and is not charged.
EAGLE3_PROPOSAL_MS = 0.306


def eagle3_proposal_ms(engine, steps: int) -> float:
    """The EAGLE-3 proposal's fitted cost beyond its priced ops, ms a cycle of ``steps`` draft steps: the engine's
    ``eagle3ProposalMs`` (:data:`EAGLE3_PROPOSAL_MS` on vLLM V1 0.10, 0 elsewhere) once a proposal; no steps, none.

    >>> from lab.serving_calibration import ENGINES
    >>> eagle3_proposal_ms(ENGINES["vllm-v1-0.10"], 3), eagle3_proposal_ms(ENGINES["vllm-v1"], 3)
    (0.306, 0.0)
    >>> eagle3_proposal_ms(ENGINES["vllm-v1-0.10"], 0)
    0.0
    """
    return engine.eagle3ProposalMs if steps > 0 else 0.0
