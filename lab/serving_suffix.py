"""Suffix decoding as a draft the serving model prices: Arctic Inference's suffix trees (``SuffixDecodingCache``)
run by vLLM V1's ``SuffixDecodingProposer`` (speculative method ``"suffix"``), or before it by Arctic Inference's
vLLM plugin, a proposer with no model, like n-gram lookup. What one cycle costs the host, as read in the code
(docs/READING.md, "Suffix decoding"):

* vLLM V1 (vllm/v1/spec_decode/suffix_decoding.py, from vLLM pull request 25784, opened 2025-09-26, in 0.12.0):
  ``propose`` loops in Python over the batch's requests, after the verify step's sampled tokens reached the CPU
  (``sampled_token_ids``, a list); for each it appends the tokens just sampled to the request's trees
  (``add_active_response``: the prompt tree and the global tree of responses, Arctic Inference's C++ ``append``
  walks up to ``max_tree_depth`` active nodes a token) and asks for a draft (``speculate``: two C++ calls, the
  prompt tree's and the global tree's, each matching the last ``max_tree_depth`` tokens from the root at every
  length until one fails and walking the likeliest path from each match). Nothing is batched and nothing depends
  on the context beyond the last ``max_tree_depth`` tokens: the cost is a constant a request.
* vLLM V1 0.10.1 with Arctic Inference's plugin (``arctic-inference[vllm]`` 0.1.0 and 0.1.1 pin vllm 0.10.1; the
  ``vllm-v1-0.10`` engine): the plugin's ``GPUModelRunner`` patch (arctic_inference/vllm/model_runner.py) calls the
  same two methods of the same ``SuffixDecodingCache`` (its C++ unchanged from pull request 212 to today) after the
  same GPU-to-CPU sync in ``execute_model``, but in two Python loops over the batch's requests, not one:
  ``_update_suffix_cache`` (``add_active_response``) and then ``propose_suffix_draft_token_ids`` (``speculate``).
  The same kind of cost, a constant a request, with one more loop (:data:`SUFFIX_LOOPS`); that engine runs
  every step synchronously already (``stepHostMs``).
* It runs synchronously with the GPU: vLLM turns asynchronous scheduling off for every speculative method but the
  EAGLE/MTP kinds, the GPU n-gram proposer, draft models and DSpark (vllm/config/vllm.py: "Async scheduling not
  supported with %s-based speculative decoding and will be disabled"), so its verify step pays the host work
  synchronous scheduling leaves serial, as n-gram lookup's does (``ngramStepHostMs``).
* It proposes a variable number of tokens: at most ``num_speculative_tokens`` (``suffix_decoding_max_tree_depth``,
  24, when unset), at most ``suffix_decoding_max_spec_factor`` (1.0) times the matched length, and it stops where
  the path's estimated probability falls below ``suffix_decoding_min_token_prob`` (0.1). The serving model prices
  the chain of ``k`` it is capped at (the verify step's upper bound); the acceptance curve (family ``suffix``)
  carries how many are kept. (The plugin caps a draft at the rejection sampler's ``MAX_SPEC_LEN`` and at
  ``suffix_max_spec_factor`` times a match of at most ``suffix_cache_max_depth`` tokens, default 64, and turns
  speculation off past ``disable_by_batch_size`` requests, 64 unless set: :mod:`lab.engine_config` says what a
  reader sets.)

Measured: the proposer's own calls, timed by Arctic Inference's simulator (arctic_inference/suffix_decoding/
simulator.py: ``time.perf_counter()`` around ``suffix_cache.speculate`` and around
``suffix_cache.add_active_response``) in snowflakedb/ArcticInference pull request 212 (2025-10-19, the code vLLM
runs: no change to csrc/suffix_decoding since): :data:`SUFFIX_CACHE_US` a request a cycle. Assumed, not measured:
vLLM's own loop around those calls (:data:`SUFFIX_LOOP_US`). Left out: building a request's prompt tree
(``start_request``, once a request, in its first decode step) and evicting a cached response, paid once a request,
not a cycle.

Standard library only.
"""

from .errors import LabValueError
from .serving_calibration import ENGINES
from .serving_presets import NGRAM, SUFFIX

__all__ = ["MODEL_FREE", "model_free", "SUFFIX_SPECULATE_US", "SUFFIX_UPDATE_US", "SUFFIX_CACHE_US", "SUFFIX_LOOP_US",
           "SUFFIX_LOOPS", "SUFFIX_ENGINES", "ARCTIC_SUFFIX_BATCH_LIMIT", "PLUGIN_ENGINE", "plugin_batch_note",
           "draft_engine_problem", "engine_running", "suffix_proposal_ms"]

# The drafts with no model: a proposer on the host, no draft forward pass (n-gram lookup, suffix decoding).
MODEL_FREE = (NGRAM, SUFFIX)


def model_free(draft: str) -> bool:
    """Whether ``draft`` is a model-free proposer (:data:`MODEL_FREE`): no draft model, no draft forward pass, its
    proposal priced as host time a cycle, and a verify step that runs synchronously on vLLM V1.

    >>> model_free("ngram"), model_free("suffix"), model_free("eagle-head")
    (True, True, False)
    """
    return draft in MODEL_FREE


# Measured (quoted): snowflakedb/ArcticInference pull request 212 ('More suffix decoding optimizations', 2025-10-19),
# its 'After' row of the simulator's summary: avg_accept_toks 0.693407, avg_spec_toks 3.260117, spec_ms_per_tok
# 0.006288, update_ms_per_tok 0.004126. The simulator (arctic_inference/suffix_decoding/simulator.py,
# results_summary) divides the summed speculate time by the tokens speculated ('sum_spec_ms / sum_spec_toks') and
# the summed update time by the tokens appended ('sum_update_ms / sum_out_toks', the accepted tokens and the bonus
# token of each step), so a call costs the per-token figure times the mean tokens a call: speculate 0.006288 ms x
# 3.260117 = 20.5 us, update 0.004126 ms x 1.693407 = 7.0 us (the last step of a request appends no bonus token: the
# mean is a hair lower). The PR does not give its command, dataset or CPU; the simulator's defaults are max depth 64
# (vLLM's default suffix_decoding_max_tree_depth is 24: a shorter match loop, so the price is an upper bound there)
# and tree speculation (vLLM walks a path). Both trees are in each call, as in vLLM (a global cache on).
SUFFIX_SPECULATE_US = 1000 * 0.006288 * 3.260117
SUFFIX_UPDATE_US = 1000 * 0.004126 * (0.693407 + 1)
SUFFIX_CACHE_US = SUFFIX_SPECULATE_US + SUFFIX_UPDATE_US
# Assumed, not measured: a propose loop's own Python a request around the cache's calls (the request-id look-ups,
# the numpy slice of the last max_tree_depth tokens, the list appends), charged once for each loop over the batch
# the engine's code runs (SUFFIX_LOOPS). Not found measured; taken as the
# 2 us the lab assumes for V1 0.10's n-gram loop a request (lab.serving_calibration.NGRAM_REQUEST_US), a Python loop
# of the same kind. A constant of its own so that a measurement of either replaces one number.
SUFFIX_LOOP_US = 2.0
# The engine versions whose code runs suffix decoding (lab.serving_calibration.ENGINES), each with the Python loops
# over the batch's requests its code runs a cycle around the cache's calls (each loop priced SUFFIX_LOOP_US a
# request): vLLM V1 from pull request 25784 (in vLLM 0.12.0), one loop (SuffixDecodingProposer.propose calls
# add_active_response and speculate in the same loop); vLLM V1 0.10.1 with Arctic Inference's plugin 0.1.0 or 0.1.1
# (snowflakedb/ArcticInference at db565372, arctic_inference/vllm/model_runner.py: _update_suffix_cache, lines
# 668-693, then propose_suffix_draft_token_ids, lines 695-731, both from execute_model after the sampled tokens'
# GPU-to-CPU sync), two. Not V0 (the plugin patches V1's GPUModelRunner; V0 had no suffix proposer), not SGLang
# (its server_args.py builtins, read for lab.engine_config, are EAGLE, EAGLE3, NEXTN, STANDALONE, NGRAM, DFLASH,
# DSPARK; its suffix pull requests 13553 and 27582 were closed unmerged; sgl-project/sglang issue #31127,
# 2026-07-14: 'any plan to support suffix decoding?', a maintainer: 'No'), not TensorRT-LLM (none read).
SUFFIX_LOOPS = {"vllm-v1": 1, "vllm-v1-0.10": 2}
SUFFIX_ENGINES = tuple(SUFFIX_LOOPS)
# Arctic Inference's plugin turns speculation off past this many requests when disable_by_batch_size is unset
# (arctic_inference/vllm/config.py, SpeculativeConfigPatch.__post_init__: 'Defaulting disable_by_batch_size to 64')
ARCTIC_SUFFIX_BATCH_LIMIT = 64
PLUGIN_ENGINE = "vllm-v1-0.10"   # the engine version that ran suffix decoding through the plugin


def plugin_batch_note(draft: str, engine: str, batch: int) -> str:
    """A sentence when suffix decoding on vLLM 0.10.1 (Arctic Inference's plugin) is asked for at a batch past the
    plugin's default ``disable_by_batch_size`` (:data:`ARCTIC_SUFFIX_BATCH_LIMIT`), where with its defaults the engine
    drafts nothing at all; else "". The model's numbers are what speculating would cost there, which the reader gets
    by raising that key (the deployment panel's vLLM configuration writes it).

    >>> plugin_batch_note("suffix", "vllm-v1-0.10", 64), plugin_batch_note("suffix", "vllm-v1", 128)
    ('', '')
    >>> plugin_batch_note("suffix", "vllm-v1-0.10", 128)[:72]
    "Arctic Inference's plugin, as vLLM 0.10.1 ran suffix decoding, drafts no"
    """
    if draft != SUFFIX or engine != PLUGIN_ENGINE or batch <= ARCTIC_SUFFIX_BATCH_LIMIT:
        return ""
    return (f"Arctic Inference's plugin, as vLLM 0.10.1 ran suffix decoding, drafts nothing past disable_by_batch_size "
            f"requests ({ARCTIC_SUFFIX_BATCH_LIMIT} unless set): at batch {batch:,} with its defaults the engine decodes "
            f"without drafting (about 1.0x); the numbers here are what speculating costs once that key is raised to "
            f"{batch:,} or more")


def draft_engine_problem(draft: str, engine: str) -> str:
    """Why ``engine`` cannot run ``draft``, or "" when it can: suffix decoding runs only on :data:`SUFFIX_ENGINES`;
    every other draft runs on every engine the model prices.

    >>> draft_engine_problem("suffix", "vllm-v1"), draft_engine_problem("suffix", "vllm-v1-0.10")
    ('', '')
    >>> draft_engine_problem("ngram", "sglang")
    ''
    >>> print(draft_engine_problem("suffix", "sglang"))
    sglang (SGLang (today: overlap)) has no suffix proposer (vLLM V1 runs it: its own from pull request 25784, in 0.12.0; Arctic Inference's plugin before; vLLM V0, SGLang and TensorRT-LLM have none): suffix decoding runs on vllm-v1, vLLM V1 (today: 0.14 on), or vllm-v1-0.10, vLLM V1 0.10 (synchronous)
    """
    if draft != SUFFIX or engine in SUFFIX_ENGINES:
        return ""
    valid = ", or ".join(f"{name}, {ENGINES[name].label}" for name in SUFFIX_ENGINES)
    return (f"{engine} ({ENGINES[engine].label}) has no suffix proposer (vLLM V1 runs it: its own from pull request "
            f"25784, in 0.12.0; Arctic Inference's plugin before; vLLM V0, SGLang and TensorRT-LLM have none): suffix "
            f"decoding runs on {valid}")


def engine_running(draft: str, engine: str) -> tuple[str, str]:
    """(the engine a widget prices ``draft`` on, a note or ""): ``engine`` itself where it runs the draft, else the
    first engine that does (:data:`SUFFIX_ENGINES`, today's vLLM V1) with a note that names why, so the reader sees a
    number for an engine that runs suffix decoding and never one for an engine that does not.

    >>> engine_running("suffix", "vllm-v1"), engine_running("suffix", "vllm-v1-0.10"), engine_running("ngram", "trtllm")
    (('vllm-v1', ''), ('vllm-v1-0.10', ''), ('trtllm', ''))
    >>> engine_running("suffix", "trtllm")[1].endswith("; priced on vLLM V1 (today: 0.14 on) instead")
    True
    """
    problem = draft_engine_problem(draft, engine)
    if not problem:
        return engine, ""
    return SUFFIX_ENGINES[0], f"Engine: {problem}; priced on {ENGINES[SUFFIX_ENGINES[0]].label} instead"


def suffix_proposal_ms(engine: str, batch) -> float:
    """One cycle's suffix-decoding proposal for ``batch`` sequences on ``engine``, ms: ``B (t_cache + m t_loop)``,
    the cache's measured calls a request (:data:`SUFFIX_CACHE_US`) and ``m`` loops of assumed Python a request
    (:data:`SUFFIX_LOOP_US`; ``m`` = :data:`SUFFIX_LOOPS`, 1 on today's vLLM V1, 2 in Arctic Inference's plugin on
    V1 0.10); whatever the context (only the last ``max_tree_depth`` tokens are matched) and ``k`` (the path walks
    are inside the measurement, at its 3.26 tokens a call). An engine that does not run it is refused
    (:func:`draft_engine_problem`).

    >>> round(suffix_proposal_ms("vllm-v1", 1), 4), round(suffix_proposal_ms("vllm-v1", 64), 3)
    (0.0295, 1.887)
    >>> round(suffix_proposal_ms("vllm-v1-0.10", 1), 4), round(suffix_proposal_ms("vllm-v1-0.10", 64), 3)
    (0.0315, 2.015)
    >>> suffix_proposal_ms("sglang", 8)
    Traceback (most recent call last):
    ...
    lab.errors.LabValueError: sglang (SGLang (today: overlap)) has no suffix proposer (vLLM V1 runs it: its own from pull request 25784, in 0.12.0; Arctic Inference's plugin before; vLLM V0, SGLang and TensorRT-LLM have none): suffix decoding runs on vllm-v1, vLLM V1 (today: 0.14 on), or vllm-v1-0.10, vLLM V1 0.10 (synchronous)
    """
    problem = draft_engine_problem(SUFFIX, engine)
    if problem:
        raise LabValueError(problem)
    return batch * (SUFFIX_CACHE_US + SUFFIX_LOOPS[engine] * SUFFIX_LOOP_US) / 1000
