"""Part two, instrument two: speculative decoding under load, on real hardware presets.

Two step-time models price one decode step for a batch of ``B`` sequences, each with ``L``
tokens of context and ``n`` new tokens (``n = 1`` for plain decoding, ``n = k + 1`` when the
target verifies ``k`` drafts, a tree's node count when it verifies a tree).

**The per-operator model** (``stepModel="measured"``, the page's default), calibrated per GPU on
measured step times (:mod:`lab.serving_calibration`; end-to-end speedups, which judge it, are
kept apart in :mod:`lab.serving_validation`). With ``m = B n`` tokens in the pass, ``g`` GPUs
in tensor parallel, weights of ``b`` bytes, achievable bandwidth ``bw = BW eta_mem`` and
FLOP rate ``f = F eta_flop`` per GPU, one step is the sum of its operators:

    weights   = combine(W b / (g bw), 2 W m / (g f))        the layers' GEMMs, W their weights
    lm head   = combine(V h b / (g bw), 2 V h m / (g f))    V vocab, h hidden
    attention = max(B L kv / (min(g, kvh) bw), 4 layers heads d m L / (g f))   KV read or its FLOPs
    all-reduce= 2 layers (t_ar + m h 2 / r_ar)    two per layer, when g > 1; t_ar, r_ar measured per GPU family
    engine    = B t_seq + B (n - 1) t_reject + B t_serial   bookkeeping; rejection sampler; output
    fixed     = t_pass + layers t_layer   (a draft pass pays t_draft, a verify pass adds t_spec)
    (a draft pass pays no engine term: it runs inside the engine step; t_reject and t_serial, the
    output processing a speculative cycle pays serially where plain decoding overlaps it with the
    GPU, only in a verify pass: :func:`_engine_ms`; the cycle adds B (T - 1) t_token for the tokens
    it emits beyond each sequence's first, :func:`emitted_output_ms`)
    combine(M, C) = max(M, C) + (1 - overlap) min(M, C)

Engines differ in the cycle (``engine``, :data:`lab.serving_calibration.ENGINES`, read in their
code): vLLM V0 verifies by batch expansion, so its verify pass reads ``B n`` KV caches, not ``B``
(attention ``max(B n L kv / ..., ...)``), and adds its bookkeeping ``t_expand`` to the fixed cost;
SGLang runs a draft extend pass each cycle, one more draft pass over ``n`` tokens a sequence
(:func:`draft_extend_ms`); vLLM V1, the default, does neither.

For a mixture of experts (Mixtral-8x7B, Qwen3-30B-A3B, DeepSeek-V3) the layers' weights read
are the always-used ones (attention, routers, shared experts, dense layers) plus, per MoE layer,
the expected distinct experts of ``m`` tokens under uniform, independent routing,
``E (1 - (1 - k/E)**m)`` (:func:`distinct_experts`), while the FLOPs count the ``k`` experts each
token uses; so verifying ``k + 1`` tokens costs more than one token even at batch one. Latent
attention (DeepSeek-V3, Kimi-K2) caches ``kv_lora + rope_dim`` values a layer, replicated on every GPU,
and is computed absorbed (:func:`attention_flops`), so its arithmetic grows with the tokens verified on
one read of the cache. A sliding-window layer (gpt-oss) keeps only its window's cache
(:func:`window_kv_bytes_per_token`); a linear-attention layer (Qwen3-Next's Gated DeltaNet) keeps a
fixed-size state instead (:func:`linear_state_bytes`), of which a speculating engine keeps one copy per
verified position and a pass moves ``B (1 + n)`` copies (:func:`_state_copies`): that is what a rejected
draft costs there. Memory holds it all (:func:`kv_bytes_per_sequence`, :func:`max_batch_in_memory`).
Attention is never hidden under the GEMMs (one roofline over the whole step let the GEMMs'
compute hide the KV read); a GEMM's arithmetic overlaps its weight reads only in part
(``overlap``), so a pass with more tokens costs more well before the ridge, as measured; the
fixed costs make small drafts overhead-bound. For example, Llama-3-8B on one calibrated H100
at batch 64 and 1024 tokens of context (the operators add up to the step):

>>> s = DEFAULT_SETTINGS.with_(stepModel=MEASURED, target="llama-3-8b", gpus=1)
>>> plain = step_time_ms(TARGETS["llama-3-8b"], s, 64, 1, 1024)
>>> verify = step_time_ms(TARGETS["llama-3-8b"], s, 64, 4, 1024)
>>> round(plain, 2), round(verify / plain, 2)   # 4 tokens a sequence cost 1.26 plain steps
(9.96, 1.26)

``stepModel="operators"`` is the same sum with every extra term zeroed (datasheet peaks, full
overlap, no fixed costs): then at batch one every operator of a verify step is memory-bound and
it costs exactly a plain step.

**The roofline of the whole step** (``stepModel="roofline"``, the library default the trees
instrument prices its verify passes with, kept as it was). A model with ``N`` parameters of
``b`` bytes and ``kv`` bytes of KV cache per token per sequence on ``gpus`` GPUs of bandwidth
``BW`` and dense peak ``F`` (ideal tensor parallelism: they add up):

    t(B, n, L) = max( (N b + B L kv) / (BW eta_mem),  2 N B n / (F eta_flop) ) + t_fixed

with the sliders' efficiencies and fixed cost; attention FLOPs, ``4 layers heads head_dim L`` per
new token, can be added to the compute side (``attentionFlops``). For a mixture of experts ``N b``
is the same read as the per-operator model's: the always-used weights plus the distinct experts of
the pass's ``B n`` tokens under uniform routing (:func:`distinct_experts`), so the roofline too
charges a verify pass for the experts its extra tokens route to; ``N`` in the FLOPs counts the
experts a token uses. One treatment of experts in every step model.

A speculative cycle is ``k`` draft steps of the draft model (each one new token per sequence; a
model-free proposer, n-gram lookup or suffix decoding, runs on the CPU) and one verify step. It commits,
per sequence, the expected tokens per call ``1 + a + ... + a**k`` of :func:`lab.ledger.expected_tokens_per_call`, or,
given a measured per-position curve of conditional acceptance rates ``c_1, c_2, ...``,
``1 + c_1 + c_1 c_2 + ...`` (:func:`tokens_per_cycle`). Per sequence:

    plain ms per token  = t_target(B, 1, L)
    spec ms per token   = (k t_draft(B, 1, L) + t_extend(B, n, L) + t_verify(B, n, L) + t_emitted) / tokens per cycle
    speedup             = plain ms per token / spec ms per token
    throughput          = B x tokens / time, for the whole batch

Batch one reduces to Leviathan et al.: with the extra terms zeroed (``"operators"``, or the
roofline at ``eta = 1``, ``t_fixed = 0`` and no attention FLOPs) the verify step costs exactly a
plain step whenever it is memory-bound (:func:`verify_is_memory_bound`); then the speedup is
``(1 - a**(k+1)) / ((1 - a)(k c + 1))`` with ``c = t_draft / t_target``
(``lab.checks.serving`` checks it over the seed audit's grid). Every search over the batch
(crossover, load) stops at the largest batch whose weights and KV caches fit in memory.

Every preset below carries where its numbers were read. Standard library only.
"""

from functools import lru_cache
import math
from typing import NamedTuple

from . import serving_load, serving_memory, serving_presets, serving_step, serving_suffix
from .serving_calibration import DEFAULT_ENGINE, ENGINES
# lab.serving is the instrument's one name: it re-exports its parts (the star imports, each part's __all__,
# and the private names other modules and tests reach for); the explicit imports are what this module uses
from .serving_load import load_curves
from .serving_load import *  # noqa: F401,F403
from .serving_load import (_per_token_function, _per_token_terms, _steady_batch,  # noqa: F401
                           _steady_batch_numeric)
from .acceptance_text import MAX_POSITIONS
from .ledger import per_token_and_speedup
from .serving_presets import GPUS, PRECISIONS, TARGETS
from .serving_presets import *  # noqa: F401,F403
from .serving_presets import _distinct, _with_count  # noqa: F401
from .serving_memory import (fits_instead_text, held_weight_bytes, max_batch_in_memory, memory_available_bytes,
                             memory_needed_bytes, memory_needed_grid)
from .serving_memory import *  # noqa: F401,F403
from .serving_step import (DEFAULT_SETTINGS, MAX_BATCH, ServingSettings, effective_ridge, kv_bytes_per_token,
                           ridge_point, step_regime, tokens_per_cycle, verify_tokens, weight_bytes)
from .serving_step import *  # noqa: F401,F403
from .serving_step import (_MeasuredStep, _Step, _affine, _attention_ms, _cache_bytes, _combine, _compute_ms,  # noqa: F401
                           _cycle_ms, _cycle_steps, _cycle_steps_ms, _draft_time, _eager_extend_ms, _emitted_output_ms, _engine_ms,
                           _extend_time, _first_step, _kv_reads, _measured_constants, _measured_step, _memory_ms,
                           _models, _runs_extend, _state_copies, _step, _terms, _time, _weights_read_ms)
from .serving_sweep import cycle_steps_in_batch, cycles_in_batch, step_in_batch
from .serving_suffix import *  # noqa: F401,F403
from .stats import percentile, percentile_of_counts

__all__ = [
    *serving_presets.__all__, *serving_step.__all__, *serving_memory.__all__, *serving_load.__all__,
    *serving_suffix.__all__,
    "serving", "Serving", "setting_notes", "longest_lookahead_words", "cycle_speedup", "speedup_at", "verify_is_memory_bound", "crossover_batch", "crossover_batch_scan", "LOSS_TOLERANCE", "loses_at",
    "best_lookahead", "lookahead_speedups", "received_curve", "speedup_grid", "grid_steps", "grid_from_steps", "HEATMAP_BATCHES", "HEATMAP_CONTEXTS",
    "batch_sweep", "sweep_rows",
    "plain_tokens_per_second", "spec_tokens_per_second", "tail", "percentile",
    "ENGINES", "DEFAULT_ENGINE", "answer", "heatmap_answer", "heatmap_steps", "load_answer", "tail_answer", "LOAD_RATES",
    "SWEEP_BATCHES", "ROOFLINE_ONLY", "model_settings",
]


class Serving(NamedTuple):
    """The readout of one setting (the CLI's JSON keys, in camelCase)."""

    ridgeFlopsPerByte: float
    targetWeightBytes: int
    kvBytesPerToken: int
    plainStepMs: float
    draftStepMs: float
    verifyStepMs: float
    tokensPerCall: float
    plainMsPerToken: float
    specMsPerToken: float
    speedup: float
    plainTokensPerSecond: float
    specTokensPerSecond: float
    plainRegime: str
    verifyRegime: str
    effectiveRidgeFlopsPerByte: float = 0.0
    maxBatchInMemory: float = 0.0
    emittedOutputMs: float = 0.0
    draftExtendMs: float = 0.0


def setting_notes(target: str, draft: str, engine: str, batch: int) -> list[str]:
    """The notes every place that prices a setting prints beside its numbers (both CLIs, both widgets): a draft model
    that does not share its target's vocabulary (:func:`lab.serving_presets.draft_vocabulary_note`) and suffix
    decoding past Arctic Inference's batch limit on vLLM 0.10.1 (:func:`lab.serving_suffix.plugin_batch_note`).

    >>> setting_notes("llama-3-8b", "eagle-head", "vllm-v1", 8)
    []
    >>> [note[:24] for note in setting_notes("qwen3-8b", "llama-3.2-1b", "vllm-v1", 8)]
    ["Llama-3.2-1B's vocabular"]
    """
    return [note for note in (serving_presets.draft_vocabulary_note(target, draft),
                              serving_suffix.plugin_batch_note(draft, engine, batch)) if note]


def longest_lookahead_words(best_k: int, longest: int, where: str) -> str:
    """Where a best lookahead is the longest an instrument searches (``longest``, its k slider's end), a sentence that
    says so and that a longer one may pay more (a copying drafter such as suffix decoding often runs 24 to 32), which
    ``python -m lab serving`` searches to every position the acceptance model holds; else "".

    >>> longest_lookahead_words(5, 12, "this widget tries")
    ''
    >>> longest_lookahead_words(12, 12, "this widget tries")
    'k = 12 is the longest lookahead this widget tries, and a longer one may pay more (python -m lab serving searches k to 64)'
    """
    if best_k < longest:
        return ""
    return (f"k = {best_k} is the longest lookahead {where}, and a longer one may pay more (python -m lab serving "
            f"searches k to {MAX_POSITIONS})")


def cycle_speedup(plain_ms: float, tokens: float, cycle_ms: float) -> float:
    """Speculative decoding's speedup at one batch and context: a cycle of ``cycle_ms`` commits
    ``tokens`` a sequence where plain decoding commits one every ``plain_ms``, so
    ``speedup = plain_ms x tokens / cycle_ms``. The one place the sweeps (:func:`speedup_at`,
    :func:`best_lookahead`, :func:`speedup_grid`, :func:`batch_sweep`,
    :func:`lab.production.k_by_batch_steps`) write the ratio; the readout (:func:`serving`) states it
    per token, ``plain ms per token / spec ms per token``, by :func:`lab.ledger.per_token_and_speedup`:
    the same quotient, rounded in another order (about one float in three differs in its last bit).

    >>> cycle_speedup(10.0, 2.5, 20.0)   # 2.5 tokens in two plain steps' time
    1.25
    """
    return plain_ms * tokens / cycle_ms


def serving(settings: ServingSettings, curve=None) -> Serving:
    """Every number of the readout at the settings' own batch and context."""
    target, precision = TARGETS[settings.target], PRECISIONS[settings.precision]
    batch, context, k = settings.batch, settings.context, settings.lookahead
    target_step, verify_step, draft_step, n = _cycle_steps(settings)
    tokens = tokens_per_cycle(settings.acceptance / 100, k, curve)
    cycle = _cycle_ms(settings, k, draft_step, verify_step, batch, n, context, tokens)  # the one composition
    plain, verify = _time(target_step, batch, 1, context), _time(verify_step, batch, n, context)
    draft, extend = _draft_time(settings, draft_step, batch, context), _extend_time(settings, draft_step, batch, n, context, k)
    emitted = _emitted_output_ms(verify_step, batch, tokens)
    spec, speedup = per_token_and_speedup(plain, cycle, tokens)
    return Serving(
        ridgeFlopsPerByte=ridge_point(GPUS[settings.gpu], precision),
        targetWeightBytes=weight_bytes(target, precision),
        kvBytesPerToken=kv_bytes_per_token(target, precision),
        plainStepMs=plain, draftStepMs=draft, verifyStepMs=verify, tokensPerCall=tokens,
        plainMsPerToken=plain, specMsPerToken=spec, speedup=speedup,
        plainTokensPerSecond=batch * 1000 / plain, specTokensPerSecond=batch * tokens * 1000 / cycle,
        plainRegime=step_regime(target, settings, batch, 1, context),
        verifyRegime=step_regime(target, settings, batch, verify_tokens(settings), context),
        effectiveRidgeFlopsPerByte=effective_ridge(settings),
        maxBatchInMemory=max_batch_in_memory(settings), emittedOutputMs=emitted, draftExtendMs=extend,
    )


def speedup_at(settings: ServingSettings, batch, context, curve=None) -> float:
    """Speedup of speculative over plain decoding at ``batch`` and ``context``."""
    target, verify, draft, n = _cycle_steps(settings)
    tokens = tokens_per_cycle(settings.acceptance / 100, settings.lookahead, curve)
    return cycle_speedup(_time(target, batch, 1, context), tokens,
                         _cycle_ms(settings, settings.lookahead, draft, verify, batch, n, context, tokens))


def verify_is_memory_bound(settings: ServingSettings, batch, context) -> bool:
    """Whether the verify step's bytes take at least as long as its FLOPs (then, at B = 1 with no
    fixed cost, it costs exactly a plain step)."""
    return step_regime(TARGETS[settings.target], settings, batch, verify_tokens(settings), context) == "memory-bound"


# --- crossover, best lookahead, grids -----------------------------------------------------------

def _search_limit(settings: ServingSettings, context, max_batch) -> int:
    """The largest batch a search visits: ``max_batch`` (default :data:`MAX_BATCH`) and no more
    sequences than fit in GPU memory at ``context`` (at least 1)."""
    limit = MAX_BATCH if max_batch is None else max_batch
    return max(1, min(limit, int(max_batch_in_memory(settings, context))))


def crossover_batch_scan(settings: ServingSettings, context=None, curve=None, max_batch: int | None = None):
    """The smallest ``B`` in ``1..limit`` with speedup <= 1, by brute force (the oracle); the
    limit is the largest batch that fits in memory (:func:`_search_limit`)."""
    context = settings.context if context is None else context
    for batch in range(1, _search_limit(settings, context, max_batch) + 1):
        if loses_at(settings, batch, context, curve):
            return batch
    return None


# A speedup within rounding of 1 is no gain. Where speculation's margin is identically zero (a free draft whose verify
# step costs exactly its tokens' plain steps, compute-bound with no fixed cost) the ratio of the two times is 1 give
# or take an ulp, batch by batch; the first loss must not hang on those ulps, or the bisection and the scan disagree.
LOSS_TOLERANCE = 1e-12


def loses_at(settings: ServingSettings, batch, context, curve=None) -> bool:
    """Whether speculation does not pay at ``batch``: speedup <= 1 (within :data:`LOSS_TOLERANCE`)."""
    return speedup_at(settings, batch, context, curve) <= 1 + LOSS_TOLERANCE


def _ridge_batches(settings: ServingSettings, context) -> list[float]:
    """Batches where one operator of the three steps switches from memory- to compute-bound:
    between them every step time is affine in B, so speculation's margin is affine too."""
    target, verify, draft, n = _cycle_steps(settings)
    pieces = [(target, 1), (verify, n)] + ([] if draft is None else [(draft, 1)])
    if _runs_extend(settings, draft):
        pieces.append((draft, n))
    first = _first_step(settings, draft, n)
    if first is not None:
        pieces.append((first, n))
    breaks = []
    for step, new_tokens in pieces:
        for p, q, r, _ in _terms(step, new_tokens, context)[0]:
            if r > q and p > 0:
                breaks.append(p / (r - q))
    return breaks


def crossover_batch(settings: ServingSettings, context=None, curve=None, max_batch: int | None = None):
    """The smallest ``B`` in ``1..limit`` at which the speedup drops to 1 or below, or None; the
    limit is the largest batch that fits in GPU memory (no larger batch can run).

    Between the ridge batches (:func:`_ridge_batches`) the margin
    ``k t_draft + t_verify - tokens t_plain`` is affine in B, so on each piece the batches with
    speedup <= 1 form one end of it: check the ends, bisect inside. About 50 evaluations instead
    of thousands; ``crossover_batch_scan`` is the brute-force oracle the checks compare it with.
    """
    context = settings.context if context is None else context
    if not _affine(settings):  # a mixture of experts: no affine pieces to bisect, so visit every batch
        return crossover_batch_scan(settings, context, curve, max_batch)
    max_batch = _search_limit(settings, context, max_batch)
    ridges = _ridge_batches(settings, context)
    edges = sorted({1, max_batch, *(min(max_batch, max(1, int(b))) for b in ridges),
                    *(min(max_batch, max(1, int(b) + 1)) for b in ridges)})
    loses = lambda batch: loses_at(settings, batch, context, curve)  # noqa: E731
    for low, high in zip(edges, edges[1:] + [max_batch]):
        if loses(low):
            return low
        if not loses(high):
            continue
        # affine margin, positive at `low` and not at `high`: the first loss lies in (low, high]
        while high - low > 1:
            middle = (low + high) // 2
            if loses(middle):
                high = middle
            else:
                low = middle
        return high
    return None


def received_curve(rates, measured_at: int | None = None, lookahead: int = 0, method=None) -> tuple:
    """A measured curve as the serving model runs on it: the conditional ``rates`` as received, and
    past them, up to position ``max(lookahead, TOKEN_POSITIONS)``, the acceptance model's
    continuation of the measured positions 1..``measured_at`` (default: every rate given; by the drafter
    family ``method``'s prior, the token's ``~family``, else the pooled one), by
    :func:`lab.acceptance.extended_rates`, the one continuation the trace reader, the ledger, the
    policies and the trees use, never the last rate repeated. The curve library is
    imported here, so a setting with no curve never loads it.

    >>> curve = received_curve([0.8, 0.7])
    >>> len(curve), [round(r, 4) for r in curve[:4]]
    (16, [0.8, 0.7, 0.6907, 0.6815])
    """
    from .acceptance import TOKEN_POSITIONS, extended_rates

    return tuple(extended_rates(rates, max(lookahead, TOKEN_POSITIONS), measured_at, method))


def best_lookahead(settings: ServingSettings, max_lookahead: int = 12, curve=None,
                   measured_at: int | None = None) -> tuple[int, float]:
    """The lookahead in ``1..max_lookahead`` with the strictly largest speedup (first wins); on a
    ``curve``, by the one best-k rule (:func:`lab.acceptance.best_lookahead`), with the curve measured
    up to ``measured_at`` (default: every rate given). The speedups are :func:`lookahead_speedups`'."""
    speedups = lookahead_speedups(settings, max_lookahead, curve)
    if curve:  # on a curve, the one best-k rule: never past its plateau's start plus one
        from .acceptance import best_lookahead as best_on_curve, token_curve

        found = best_on_curve(lambda k: speedups[k - 1], token_curve(curve, measured_at), max_lookahead)
        return found["k"], found["speedup"]
    best_k, best = 0, -math.inf
    for k, value in enumerate(speedups, start=1):
        if value > best:
            best_k, best = k, value
    return best_k, best


def lookahead_speedups(settings: ServingSettings, max_lookahead: int = 12, curve=None) -> tuple:
    """The speedup at every lookahead ``1..max_lookahead`` (entry ``k - 1``) at the settings' batch and
    context, on ``curve`` (conditional rates) when given: entry ``k - 1`` is the very float :func:`speedup_at`
    gives for lookahead k (both compose the cycle with :func:`_cycle_ms`; the step constants do not depend on
    k, so they are built once). Kept (:func:`_lookahead_speedups`) under the settings with their own
    lookahead set aside, which nothing here reads, so the deployment panel's answer, its diagnosis and a step
    of either widget's lookahead slider share one scan; the cycles' steps, which the acceptance and the curve do
    not move, are kept apart (:func:`_lookahead_steps`), so a scan on another curve prices only the ratios.

    >>> s = DEFAULT_SETTINGS.with_(stepModel=MEASURED)
    >>> lookahead_speedups(s, 4)[2] == speedup_at(s.with_(lookahead=3), s.batch, s.context)
    True
    """
    return _lookahead_speedups(settings.with_(lookahead=1), max_lookahead, None if curve is None else tuple(curve))


@lru_cache(maxsize=32)
def _lookahead_speedups(settings: ServingSettings, max_lookahead: int, curve) -> tuple:
    plain, verify, steps = _lookahead_steps(settings.with_(acceptance=DEFAULT_SETTINGS.acceptance), max_lookahead)
    alpha, batch, speedups = settings.acceptance / 100, settings.batch, []
    for k, before in enumerate(steps, start=1):   # _cycle_ms: the cycle's steps plus the output processing
        tokens = tokens_per_cycle(alpha, k, curve)
        speedups.append(cycle_speedup(plain, tokens, before + _emitted_output_ms(verify, batch, tokens)))
    return tuple(speedups)


@lru_cache(maxsize=32)
def _lookahead_steps(settings: ServingSettings, max_lookahead: int) -> tuple:
    """What :func:`lookahead_speedups` reads that the acceptance (and a curve) does not move, kept with it set aside:
    the plain step, the verify step and each lookahead's cycle before its output processing
    (:func:`_cycle_steps_ms`), so that the panel's scans on two curves, or a step of the acceptance, price no step."""
    batch, context = settings.batch, settings.context
    target, verify, draft, _ = _cycle_steps(settings)
    return _time(target, batch, 1, context), verify, tuple(
        _cycle_steps_ms(settings, k, draft, verify, batch, verify_tokens(settings.with_(lookahead=k)), context)
        for k in range(1, max_lookahead + 1))


HEATMAP_BATCHES = tuple(2 ** i for i in range(11))           # 1 .. 1024
HEATMAP_CONTEXTS = tuple(512 * 2 ** i for i in range(9))     # 512 .. 131072


def speedup_grid(settings: ServingSettings, batches=HEATMAP_BATCHES, contexts=HEATMAP_CONTEXTS, curve=None):
    """Speedup for every (context, batch): one row per context, one column per batch.

    The step constants are built once per grid, which keeps the 99 cells to a fraction of a
    millisecond of arithmetic. The grid is made in two parts: the steps of every cell, which the
    acceptance does not move (:func:`grid_steps`), then the cycle each commits its tokens in
    (:func:`grid_from_steps`); the heatmap keeps the first (:func:`heatmap_answer`)."""
    tokens = tokens_per_cycle(settings.acceptance / 100, settings.lookahead, curve)
    return grid_from_steps(grid_steps(settings, tuple(batches), tuple(contexts)), tokens)


def grid_steps(settings: ServingSettings, batches=HEATMAP_BATCHES, contexts=HEATMAP_CONTEXTS) -> tuple:
    """The part of :func:`speedup_grid` the acceptance (and a curve) does not move: the verify step and, per
    context a row and per batch a cell, ``(batch, plain step, the cycle's steps before its output processing)``
    (:func:`lab.serving_step._cycle_steps_ms`). Reads every setting but the acceptance.

    >>> verify, rows = grid_steps(DEFAULT_SETTINGS, (1, 8), (1024,))
    >>> [batch for batch, _, _ in rows[0]], all(plain < steps for _, plain, steps in rows[0])
    ([1, 8], True)
    """
    target, verify_step, draft, n = _cycle_steps(settings)
    per_k, rows = [(settings.lookahead, n, None)], []
    for context in contexts:   # each a function of the batch (lab.serving_sweep): _time's and _cycle_steps_ms's floats
        plains, befores = step_in_batch(target, 1, context), cycle_steps_in_batch(settings, draft, verify_step, per_k, context)
        rows.append(tuple((batch, plains(batch), befores(batch)[0]) for batch in batches))
    return verify_step, tuple(rows)


def grid_from_steps(steps: tuple, tokens: float) -> list:
    """:func:`speedup_grid` from its steps (:func:`grid_steps`) and the tokens a cycle commits: each cell's cycle is
    its steps plus the output processing of those tokens (:func:`_cycle_ms`'s very float), its speedup
    :func:`cycle_speedup`'s."""
    verify_step, rows = steps
    return [[cycle_speedup(plain, tokens, before + _emitted_output_ms(verify_step, batch, tokens))
             for batch, plain, before in row] for row in rows]


def batch_sweep(settings: ServingSettings, batches, curve=None) -> list[dict]:
    """Speedup and both throughputs at each batch, at the settings' context (steps built once)."""
    return list(sweep_rows(settings, batches, curve))


def sweep_rows(settings: ServingSettings, batches, curve=None):
    """:func:`batch_sweep`'s rows one batch at a time (a scan that stops at the first it wants prices no more):
    the plain step and the cycle as functions of the batch, built once (:func:`_in_batch`)."""
    plains, cycles, tokens = _in_batch(settings, curve)
    for batch in batches:
        plain, cycle = plains(batch), cycles(batch)
        yield {"batch": batch, "speedup": cycle_speedup(plain, tokens, cycle), "plainTokensPerSecond": batch * 1000 / plain,
               "specTokensPerSecond": batch * tokens * 1000 / cycle}


def plain_tokens_per_second(settings: ServingSettings, batches, plains=None) -> list[float]:
    """:func:`batch_sweep`'s plainTokensPerSecond, ``B 1000 / t_plain``, at each batch, the plain step alone priced
    (``plains``, ``batch -> t_plain``, when a sweep already priced it: :func:`_in_batch`'s very floats)."""
    plains = _in_batch(settings)[0] if plains is None else plains
    return [batch * 1000 / plains(batch) for batch in batches]


def spec_tokens_per_second(settings: ServingSettings, batches, curve=None, cycles=None) -> list[float]:
    """:func:`batch_sweep`'s specTokensPerSecond, ``B T 1000 / t_cycle``, at each batch, the cycle alone priced
    (``cycles``, ``batch -> t_cycle`` at the settings' lookahead, when a sweep already priced it: :func:`_in_batch`'s
    very floats)."""
    _, priced, tokens = _in_batch(settings, curve)
    cycles = priced if cycles is None else cycles
    return [batch * tokens * 1000 / cycles(batch) for batch in batches]


def _in_batch(settings: ServingSettings, curve=None):
    """``(batch -> t_plain, batch -> t_cycle, T)`` at the settings' lookahead and context: the plain step and the
    cycle as functions of the batch (:func:`lab.serving_sweep.step_in_batch`, :func:`lab.serving_sweep.cycles_in_batch`:
    :func:`_cycle_ms`'s very floats), each priced only when called, and the tokens ``T`` a cycle commits."""
    context, k = settings.context, settings.lookahead
    target, verify, draft, n = _cycle_steps(settings)
    tokens = tokens_per_cycle(settings.acceptance / 100, k, curve)
    cycles = cycles_in_batch(settings, draft, verify, [(k, n, tokens)], context)
    return step_in_batch(target, 1, context), (lambda batch: cycles(batch)[0]), tokens


# --- the tail: one request's speedup varies ---------------------------------------------------

TAIL_SEEDS = 300


@lru_cache(maxsize=16)
def _tail_runs(certainty: int, match: int, lookahead: int, length: int, seeds: int) -> tuple:
    """The part of :func:`tail` the draft cost does not change, computed once per setting: each
    seed's (target calls, draft calls), from :func:`lab.sampler.trace_shape` (the same counts
    as :func:`lab.sampler.generate_trace`, without its tokens), and how many calls drafted each
    number of tokens, over all seeds."""
    from .sampler import trace_shape

    counts, calls_drafting = [], {}
    for seed in range(seeds):
        shape = trace_shape(certainty, match, lookahead, length, seed)
        counts.append((len(shape), sum(drafted for drafted, _ in shape)))
        for drafted, _ in shape:
            calls_drafting[drafted] = calls_drafting.get(drafted, 0) + 1
    return tuple(counts), tuple(sorted(calls_drafting.items()))


@lru_cache(maxsize=16)
def tail(certainty: int, match: int, lookahead: int, length: int, draft_cost: int, seeds: int = TAIL_SEEDS) -> dict:
    """Re-run the exact lab's seeded generation (:func:`lab.sampler.generate_trace`) with seeds
    ``0 .. seeds - 1`` at one setting of the exact lab.

    Returns each run's speedup (:func:`lab.exact.seeded_speedup`, the exact lab's ``trace.speedup``),
    the prediction (``theoreticalSpeedup`` of :func:`lab.exact.evaluate`), and the inter-token gaps in units of one target pass: a call that drafts ``j`` tokens takes
    ``1 + j c``; its first token arrives after that and the rest of its burst with it (gap 0).
    Plain decoding delivers one token per pass, every gap 1. Percentiles are nearest-rank.
    The runs are shared by every draft cost (:func:`_tail_runs`); the gaps are counted per value
    (``length`` tokens a run, one gap each) rather than listed."""
    from .exact import seeded_speedup, summary_alpha
    from .ledger import leviathan_speedup

    cost = draft_cost / 100
    counts, calls_drafting = _tail_runs(certainty, match, lookahead, length, seeds)
    speedups = [seeded_speedup(length, target_calls, draft_calls, cost) for target_calls, draft_calls in counts]
    calls = sum(target_calls for target_calls, _ in counts)
    gaps = {0.0: seeds * length - calls} if seeds * length > calls else {}  # the rest of each burst
    for drafted, how_many in calls_drafting:
        gap = 1 + drafted * cost
        gaps[gap] = gaps.get(gap, 0) + how_many
    prediction = leviathan_speedup(float(summary_alpha(certainty, match, length)), lookahead, cost)
    return {"speedups": tuple(speedups), "prediction": prediction, "seeds": seeds,
            "gapP50": percentile_of_counts(gaps, 0.5), "gapP99": percentile_of_counts(gaps, 0.99),
            "plainGapP50": 1.0, "plainGapP99": 1.0,
            "p05": percentile(speedups, 0.05), "p95": percentile(speedups, 0.95),
            "minimum": min(speedups), "maximum": max(speedups), "median": percentile(speedups, 0.5)}


# --- the answer: everything the serving widget shows, in one call --------------------------------

LOAD_RATES = tuple(round(0.05 * 10 ** (i / 8), 6) for i in range(41))   # 0.05 .. 5,000 requests/s
SWEEP_BATCHES = tuple(sorted({max(1, round(2 ** (i / 4))) for i in range(41)}))  # 1 .. 1024


def heatmap_answer(settings: ServingSettings, curve=None) -> tuple:
    """``(grid, fits)`` over :data:`HEATMAP_CONTEXTS` x :data:`HEATMAP_BATCHES`: the speedup
    (:func:`speedup_grid`) and whether weights and caches fit there, as tuples of rows (one per
    context). Independent of the settings' batch, context and output length, so they are set aside
    and the answer is kept under what is left (:func:`_heatmap_answer`): one grid serves every batch
    and context the reader picks."""
    return _heatmap_answer(settings.with_(batch=1, context=HEATMAP_CONTEXTS[0],
                                          requestOutputTokens=DEFAULT_SETTINGS.requestOutputTokens), curve)


@lru_cache(maxsize=32)
def _heatmap_answer(base: ServingSettings, curve) -> tuple:
    # the steps and the fits, which the acceptance does not move, are kept apart: a step of the acceptance
    # slider prices only the cycles' output processing and the ratios (speedup_grid's very floats)
    steps, fits = heatmap_steps(base.with_(acceptance=DEFAULT_SETTINGS.acceptance))
    grid = grid_from_steps(steps, tokens_per_cycle(base.acceptance / 100, base.lookahead, curve))
    return tuple(tuple(row) for row in grid), fits


@lru_cache(maxsize=32)
def heatmap_steps(settings: ServingSettings) -> tuple:
    """``(steps, fits)`` of :func:`heatmap_answer`, the parts its acceptance does not move (the settings come with
    it set aside): :func:`grid_steps` over the heatmap's batches and contexts, and whether weights and caches fit in
    each cell."""
    have = memory_available_bytes(settings)  # caches need not grow linearly (windows, linear-attention states)
    needed = memory_needed_grid(settings, HEATMAP_BATCHES, HEATMAP_CONTEXTS)  # memory_needed_bytes of every cell
    return grid_steps(settings), tuple(tuple(need <= have for need in row) for row in needed)


def load_answer(settings: ServingSettings, curve=None) -> tuple:
    """``(plain, spec, cross)``: each request's decode latency at every rate of :data:`LOAD_RATES`
    (:func:`latency_curve`, None where overloaded), plain and speculative, and where the two cross
    (:func:`curves_cross`), all three from :func:`lab.serving_load.load_curves`. Independent of the
    settings' batch (the load sets it), so it is set aside and the answer kept under the rest
    (:func:`_load_answer`)."""
    return _load_answer(settings.with_(batch=1), curve)


@lru_cache(maxsize=16)
def _load_answer(base: ServingSettings, curve) -> tuple:
    plain, spec, cross = load_curves(base, LOAD_RATES, curve)  # latency_curve's and curves_cross's
    return tuple(plain), tuple(spec), cross


@lru_cache(maxsize=16)
def tail_answer(certainty: int, match: int, lookahead: int, length: int, draft_cost: int, seed: int) -> dict:
    """The exact lab's setting re-run over every seed (:func:`tail`, whose arguments come in the same
    order) and the speedup of its own ``seed`` (:func:`lab.exact.seeded_speedup` of that seed's trace)."""
    from .exact import seeded_speedup
    from .sampler import generate_trace

    trace = generate_trace(certainty, match, lookahead, length, seed)
    return {"runs": tail(certainty, match, lookahead, length, draft_cost), "seed": seed,
            "seedSpeedup": seeded_speedup(length, trace.targetCalls, trace.draftCalls, draft_cost / 100)}


ROOFLINE_ONLY = ("memEfficiency", "flopEfficiency", "overheadMs")  # read by the roofline's steps alone (_step, effective_ridge)


def model_settings(settings: ServingSettings) -> ServingSettings:
    """``settings`` as its step model reads them: under a per-operator model (``measured``, ``operators``) the
    roofline's own sliders (:data:`ROOFLINE_ONLY`: bandwidth and FLOP/s reached, the fixed cost per pass) enter
    nothing (the per-operator steps and their ridge take the GPU's calibrated values), so they are set to the
    library's defaults; the roofline's settings come back as they are. Two settings with the same model
    settings have the same :func:`answer`, so a cache filed under them serves a step of those sliders.

    >>> s = DEFAULT_SETTINGS.with_(stepModel=MEASURED, memEfficiency=33, overheadMs=4.0)
    >>> model_settings(s) == s.with_(memEfficiency=80, overheadMs=0.5), model_settings(s.with_(stepModel=ROOFLINE)).memEfficiency
    (True, 33)
    >>> answer(s)["result"] == answer(model_settings(s))["result"]
    True
    """
    if settings.stepModel not in serving_step.PER_OPERATOR:
        return settings
    return settings.with_(**{name: getattr(DEFAULT_SETTINGS, name) for name in ROOFLINE_ONLY})


def answer(settings: ServingSettings, curve=None, exact: tuple | None = None, measured_at: int | None = None,
           method=None) -> dict:
    """Everything the serving widget shows at ``settings`` (with ``curve``, a tuple of measured
    per-position acceptance rates, in place of the acceptance; measured up to ``measured_at``, default
    all, and continued past its rates by :func:`received_curve`, with the drafter family ``method``: ``curve`` and ``measuredAt`` in the
    answer are the curve the model ran on and its last measured position), in one call, as
    :func:`lab.deployment.answer` does for its panel: the readout (``result``, :class:`Serving`), the
    crossover batch, the best lookahead, the batch sweep over :data:`SWEEP_BATCHES`, the heatmap
    (:func:`heatmap_answer`), the load curves (:func:`load_answer`), memory (what the setting needs,
    what the GPUs hold, the largest batch that fits and ``limit``, the largest a search visits), and,
    given the exact lab's ``(certainty, match, lookahead, length, draftCost, seed)``, the tail
    (:func:`tail_answer`). ``fits`` is False when weights and caches exceed memory at the settings'
    batch; ``room`` is False when not even the weights fit (then no batch runs: the widget claims no speedup and
    names the ``weights`` it cannot hold and what would hold them instead, ``instead``: :func:`fits_instead`).

    >>> a = answer(DEFAULT_SETTINGS.with_(target="deepseek-v3", gpu="h200", gpus=8, stepModel=MEASURED))
    >>> a["memory"]["fits"], a["memory"]["room"]
    (False, False)
    >>> a = answer(DEFAULT_SETTINGS)
    >>> a["memory"]["fits"], a["result"] == serving(DEFAULT_SETTINGS), len(a["sweep"]) == len(SWEEP_BATCHES)
    (True, True, True)
    """
    measured_k = None
    if curve is not None:
        measured_k = len(curve) if measured_at is None else measured_at
        curve = received_curve(curve, measured_k, settings.lookahead, method)
    most = max_batch_in_memory(settings)
    room = most >= 1
    best_k, best = best_lookahead(settings, curve=curve, measured_at=measured_k)
    need, have = memory_needed_bytes(settings), memory_available_bytes(settings)
    # each kept under the settings it reads, so a step of the batch, context or output length finds the grid,
    # and a step of the batch the load curves, already made
    grid, grid_fits = heatmap_answer(settings, curve)
    plain, spec, cross = load_answer(settings, curve)
    return {
        "settings": settings, "curve": curve, "measuredAt": measured_k, "result": serving(settings, curve),
        "crossover": crossover_batch(settings, curve=curve),
        "bestLookahead": best_k, "bestSpeedup": best, "verifyTokens": verify_tokens(settings),
        "sweep": batch_sweep(settings, SWEEP_BATCHES, curve),
        "heatmap": {"grid": grid, "fits": grid_fits},
        "load": {"rates": LOAD_RATES, "plain": plain, "spec": spec, "cross": cross},
        "memory": {"need": need, "have": have, "fits": need <= have, "maxBatch": most, "room": room,
                   "limit": max(1, min(MAX_BATCH, int(most))),
                   "weights": held_weight_bytes(settings),
                   "instead": "" if room else fits_instead_text(settings)},
        "tail": None if exact is None else tail_answer(*exact),
    }
