"""What an EAGLE proposal costs on vLLM V1 0.10 beyond the costs the lab reads in its code, calibrated on the
SpecDecode-Bench step-time model's draft term (step times only, never a speedup), and charged to every head that
engine's proposer runs, EAGLE-1 as EAGLE-3, because 0.10.1 runs both outside CUDA graphs.

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
``.max().item()`` on a CPU tensor, the drafting attention metadata, the drafts' ``.tolist()``; vLLM pull requests 20078 and 24539 give
only relative gains); it is priced as one constant a proposal, :data:`EAGLE3_PROPOSAL_MS`, fitted on the fit's rows
(:func:`lab.serving_validation.fit_eagle3_proposal_ms`).

Read again in December 2026 at the released sources of vllm 0.10.0, 0.10.1 and 0.10.2 (the wheels, fetched with pip:
the repository's history is too large to fetch here): on 0.10.1 and 0.10.2 the proposer's draft forwards run outside
any CUDA graph, for ``method`` "eagle" and "eagle3" alike. ``EagleProposer.propose`` (vllm/v1/spec_decode/eagle.py at
0.10.1, lines 188 and 309) opens ``set_forward_context(per_layer_attn_metadata, self.vllm_config,
num_tokens=...)`` without a ``cudagraph_runtime_mode``, whose default is ``CUDAGraphMode.NONE`` (vllm/forward_context.py,
line 205), and the ``CUDAGraphWrapper`` that vLLM pull request 20059 put around each compiled piece replays a graph only
when the forward context asks for its mode: ``if cudagraph_runtime_mode == CUDAGraphMode.NONE or ...: return
self.runnable(*args, **kwargs)`` (vllm/compilation/cuda_graph.py, lines 111-119); the drafter's warm-up
(``dummy_run``, eagle.py line 646, called at gpu_model_runner.py line 2410) opens the same context, so no drafter graph
is ever captured. On 0.10.0 the piecewise backend captured and replayed by itself unless told to skip
(vllm/compilation/cuda_piecewise_backend.py, lines 143-144: ``skip_cuda_graphs = get_forward_context().skip_cuda_graphs``,
default False), so the drafter ran in its piecewise graphs. vLLM pull request 23679 (2025-08-26) says it: "The cudagraph
ability of the EAGLE(3) model in V1 has been broken for a while since the launch of #20059"; pull request 25109
(2025-09-17, "Support PIECEWISE cudagraphs with eagle head") passes ``cudagraph_runtime_mode=CUDAGraphMode.PIECEWISE``
to those calls, as today's eagle.py does (read through the code index, commit 008603a3). No before/after step time of
that fix was found (its description shows a chart as an image; pull request 24539 names the broken graphs only as
offsetting its own 2%). What was measured on 0.10.1 is SpecDecode-Bench's proposal, with its drafts uncaptured, and
the lab's priced ops fall short of it by :data:`EAGLE3_PROPOSAL_MS`; an EAGLE-1 head's proposal there runs the same
uncaptured forwards, the same state updates and host reads (``prepare_inputs``, the attention metadata, the drafts'
``.tolist()``), so it is charged the same (an EAGLE-1 or MTP head is the same one decoder layer; its own kernels'
launches were not counted apart). Today's V1 captures its drafts and is charged nothing here.

Standard library only; data as Python literals.
"""

from .serving_presets import EAGLE, EAGLE3

__all__ = ["EAGLE3_PROPOSAL_MS", "UNCAPTURED_DRAFT_COST", "proposal_ms"]

# The EAGLE proposal's cost on vLLM V1 0.10 beyond what the lab prices from the code, ms a proposal (once a cycle,
# whatever k): the squared log ratios of the lab's EAGLE-3 proposal to SpecDecode-Bench's fitted one minimised over its
# rows in lab.serving_calibration.STEP_MEASUREMENTS (k = 3, batch 1, 8, 16, 32 and 64, 512 tokens of context: the
# study's profiled lookahead and the fit's batches; lab.serving_validation.fit_eagle3_proposal_ms). Residuals 0.955
# (batch 1) to 1.086 (batch 64): the lab's draft grows with the batch faster than the fit's 2.4 ns per KV token. Fitted
# on an EAGLE-3 head, the drafter the fit timed, and charged to every head vLLM V1 0.10's EagleProposer runs (EAGLE-1,
# EAGLE-3, MTP): on 0.10.1 their draft forwards all run outside CUDA graphs (the module's docstring has the lines).
# Only k = 3 was measured, so it stays once a proposal, though uncaptured forwards are paid once a draft step (at k = 2
# it may be high, at k = 7 low). Today's V1 (its drafts captured again since vLLM pull request 25109) is not charged.
EAGLE3_PROPOSAL_MS = 0.306

# The engine cost entry (lab.serving_calibration.ENGINES, vllm-v1-0.10's costs) naming the places.
UNCAPTURED_DRAFT_COST = (
    "the proposal beyond its priced ops (drafts outside CUDA graphs)",
    "SpecDecode-Bench's fitted EAGLE-3 proposal on 0.10.1 (simulator/predictor.py, Llama8BH100.draft_c_fixed and the "
    "rest of its draft term; the drafter named in its main.py and plot.py): EAGLE3_PROPOSAL_MS a proposal, fitted on "
    "its rows, charged to EAGLE-1 and EAGLE-3 heads alike: vllm 0.10.1's vllm/v1/spec_decode/eagle.py (lines 188 and "
    "309) opens set_forward_context without a cudagraph_runtime_mode (default NONE, vllm/forward_context.py line 205), "
    "so vllm/compilation/cuda_graph.py (lines 111-119) runs the drafter's compiled pieces without replaying a graph, "
    "for every method (vLLM pull request 23679: 'broken for a while since the launch of #20059'; fixed by pull "
    "request 25109, 2025-09-17) (lab.serving_specdecode)")


def proposal_ms(engine, draft: str, steps: int) -> float:
    """What a proposal of ``steps`` draft steps by an EAGLE-style head costs beyond its priced ops, ms a cycle: the
    engine's ``proposalMs`` (:data:`EAGLE3_PROPOSAL_MS` on vLLM V1 0.10, 0 elsewhere) once a proposal for an EAGLE-1
    or EAGLE-3 head (``draft`` "eagle-head" or "eagle3-head": the heads the engine's EagleProposer runs, an MTP module
    priced as the first); an n-gram or draft-model proposal, or no steps, none.

    >>> from lab.serving_calibration import ENGINES
    >>> proposal_ms(ENGINES["vllm-v1-0.10"], "eagle3-head", 3), proposal_ms(ENGINES["vllm-v1-0.10"], "eagle-head", 3)
    (0.306, 0.306)
    >>> proposal_ms(ENGINES["vllm-v1"], "eagle-head", 3), proposal_ms(ENGINES["vllm-v1-0.10"], "ngram", 3)
    (0.0, 0.0)
    >>> proposal_ms(ENGINES["vllm-v1-0.10"], "eagle-head", 0)
    0.0
    """
    return engine.proposalMs if steps > 0 and draft in (EAGLE, EAGLE3) else 0.0
