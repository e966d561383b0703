"""The deployment in production terms, from the serving model's step times (:mod:`lab.serving`):
the k schedule by batch, throughput per GPU and per user, time per output token, cost per
million output tokens, the largest batch that meets a TPOT target, what a separate draft adds to
the prefill, and a diagnosis with one sentence per limiting factor. One function per formula:

    TPOT (ms)              plain: t_plain(B);  speculative: (k t_draft + t_extend + t_verify + t_emitted) / T(k)
    tokens/s per user      1000 / TPOT
    tokens/s per GPU       B 1000 / (TPOT g)                      (g GPUs serve the batch)
    $ per 1M output tokens price 10^6 / (3600 tokens/s per GPU)   (price: $ per GPU-hour)

The schedule is the serving model's best k in 1..:data:`lab.deployment.MAX_LOOKAHEAD` at every
batch from 1 to the largest that fits in memory (at most :data:`SCHEDULE_MAX_BATCH`), k = 0
(speculation off) where no k gives a speedup above 1, as ranges of equal k. Given an acceptance
curve (its conditional rates and the cap its plateau puts on k, :func:`lab.acceptance.best_lookahead`),
every figure here runs on the curve, as the panel's own answer does, not on one alpha.

Standard library only.
"""

import math
from array import array
from functools import lru_cache
from itertools import islice
from typing import NamedTuple

from . import serving
from .serving_sweep import cycles_in_batch, step_in_batch

__all__ = ["SCHEDULE_MAX_BATCH", "SCHEDULE_TOLERANCE", "EXPERTS_REACHED", "best_k_at", "k_by_batch", "k_by_batch_steps",
           "k_by_batch_scan",
           "steady_schedule", "schedule_rises", "schedule_ranges", "schedule_limit", "tokens_per_second_per_user",
           "tokens_per_second_per_gpu", "cost_per_million_tokens", "tpot_ms", "largest_batch_within", "tpots_by_batch", "crossover_within",
           "draft_prefill_ms", "production", "diagnosis", "VERIFY_COSTLY", "DRAFT_SLOW", "RANDOM_TOKENS_ALPHA"]

SCHEDULE_MAX_BATCH = 1024   # the serving widget's batch slider ends here
# How much speedup a schedule gives up to keep k from rising back as the batch grows: 2%, under the step model's median
# error on the measured step times it is calibrated on (3%: lab.serving_calibration.STEP_MEASUREMENTS, held by
# tests/test_production_schedule.py), so a gain it cannot resolve. Such rises come from kinks in the modelled verify
# time as B x (k + 1) tokens grow, not from the drafts.
SCHEDULE_TOLERANCE = 0.02
# A mixture of experts' verify pass is named a cause of a rise in k where its tokens already reach more than this share of
# each MoE layer's routed experts (lab.serving_presets.distinct_experts, uniform routing, the count every step model
# prices): one more token then reads k (1 - D/E) experts not read yet on average, fewer than half of its k. A choice.
EXPERTS_REACHED = 0.5
VERIFY_COSTLY = 1.5         # a verify pass above this many plain steps is named a limiting factor
DRAFT_SLOW = 0.25           # k draft steps above this share of a plain step, likewise
RANDOM_TOKENS_ALPHA = 0.15  # below this a trained draft's alpha is named suspect (a random-token benchmark?): a choice


def tokens_per_second_per_user(tpot: float) -> float:
    """Tokens a second one sequence receives: ``1000 / TPOT`` (TPOT in ms).

    >>> tokens_per_second_per_user(20.0)
    50.0
    """
    return 1000.0 / tpot


def tokens_per_second_per_gpu(batch: float, tpot: float, gpus: int) -> float:
    """Output tokens a second for each of the ``gpus`` GPUs serving a batch of ``batch``:
    ``B 1000 / (TPOT g)``.

    >>> tokens_per_second_per_gpu(32, 20.0, 4)
    400.0
    """
    return batch * 1000.0 / (tpot * gpus)


def cost_per_million_tokens(dollars_per_gpu_hour: float, per_gpu: float) -> float:
    """Dollars per million output tokens at a price per GPU-hour: ``price 10^6 / (3600 tok/s per GPU)``.

    >>> round(cost_per_million_tokens(2.5, 400.0), 6)
    1.736111
    """
    return dollars_per_gpu_hour * 1e6 / (3600.0 * per_gpu)


def tpot_ms(settings: serving.ServingSettings, batch: int, lookahead: int, curve=None) -> float:
    """Time per output token of one sequence at ``batch``: a plain step at ``lookahead`` 0, else a
    speculative cycle over the tokens it commits (:func:`lab.serving.serving`'s specMsPerToken, on
    ``curve``'s conditional rates when given).

    >>> s = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED)
    >>> tpot_ms(s, 8, 0) == serving.serving(s).plainMsPerToken
    True
    """
    if lookahead == 0:   # the plain step alone: serving()'s plainMsPerToken, the same float, without the rest of the readout
        return serving.step_time_ms(serving.TARGETS[settings.target], settings, batch, 1, settings.context)
    return serving.serving(settings.with_(batch=batch, lookahead=lookahead), curve).specMsPerToken


def best_k_at(settings: serving.ServingSettings, batch: int, max_lookahead: int = 12) -> tuple[int, float]:
    """The serving model's best k at ``batch`` (:func:`lab.serving.best_lookahead`) and its
    speedup; k = 0 with speedup 1 when no k gives more than 1."""
    k, speedup = serving.best_lookahead(settings.with_(batch=batch), max_lookahead)
    return (k, speedup) if speedup > 1 else (0, 1.0)


def schedule_limit(settings: serving.ServingSettings) -> int:
    """The largest batch the schedule covers: the largest that fits in memory at the settings'
    context, at most :data:`SCHEDULE_MAX_BATCH`, at least 1."""
    return max(1, min(SCHEDULE_MAX_BATCH, int(serving.max_batch_in_memory(settings))))


def k_by_batch(settings: serving.ServingSettings, max_lookahead: int = 12, curve=None,
               cap: int | None = None) -> list[tuple[int, float]]:
    """``(best k, its speedup)`` at every batch ``1..schedule_limit``, index ``batch - 1``: at each
    batch the same arithmetic as :func:`lab.serving.best_lookahead` (strictly largest speedup,
    first wins; the very floats, the checks compare them), priced through :mod:`lab.serving_sweep` (each
    step a function of the batch built once, the draft's one-token step once a batch, the extend and verify
    passes once per distinct verify token count; :func:`k_by_batch_scan` is the straightforward oracle, about
    four times slower); k = 0 where no k gives more than 1. The settings' own batch
    and lookahead do not enter, so the last few answers are kept by the rest of the settings (a
    pure function: the panel's batch, k, price or engine changes reuse them). On ``curve`` (conditional
    rates, a tuple) the tokens per cycle are the curve's and k runs to ``cap`` at most (the plateau's start
    plus one: :func:`lab.acceptance.best_lookahead`'s rule, so at every batch the k the panel's answer
    names on the curve)."""
    steps = k_by_batch_steps(settings, max_lookahead, curve=curve, cap=cap)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return list(done.value)


class Priced(NamedTuple):
    """One schedule :func:`k_by_batch_steps` computed, kept with the steps it was priced from: ``ks`` its answer,
    ``(best k, its speedup)`` by batch from 1; ``plain`` the plain step by batch and ``cycles[k - 1]`` lookahead
    ``k``'s cycle by batch (ms, on the key's curve) for k up to the largest best k (the k a schedule drawn from ``ks``
    can run, :func:`steady_schedule`). The production terms' TPOT sweeps (:func:`tpots_by_batch`, through
    :func:`_priced`) read the steps instead of pricing them again; nothing else does. The steps are ``array("d")``:
    the very floats, 8 bytes each instead of a float object and its pointer."""
    ks: tuple
    plain: array
    cycles: tuple


# k_by_batch's last KEEP schedules, each a Priced, by (the settings as _kept_as files them, max_lookahead, curve, cap):
# a cache, the oldest out first, the only state here (tests and the benchmark clear it with _KEPT.clear())
_KEPT: dict = {}
KEEP = 16


def k_by_batch_steps(settings: serving.ServingSettings, max_lookahead: int = 12, every: int = 32, curve=None,
                     cap: int | None = None):
    """:func:`k_by_batch` as a generator that pauses every ``every`` batches (the in-browser
    suite answers a reader between two pauses, :func:`lab.audit.run_check_steps`) and returns
    the tuple; a kept answer returns at once (kept with the steps it was priced from: :class:`Priced`)."""
    curve = None if curve is None else tuple(curve)
    key = (_kept_as(settings, curve, batch=1, lookahead=1), max_lookahead, curve, cap)
    if key in _KEPT:
        return _KEPT[key].ks
    settings = key[0]
    target, verify, draft, _ = serving._cycle_steps(settings)
    context, per_k = settings.context, _per_k(settings, max_lookahead, curve, cap)
    plains, cycles = step_in_batch(target, 1, context), cycles_in_batch(settings, draft, verify, per_k, context)
    result, plain_steps, rows = [], array("d"), []
    for batch in range(1, schedule_limit(settings) + 1):
        plain, row = plains(batch), cycles(batch)
        best_k, best = 0, float("-inf")
        for (k, _, tokens), cycle in zip(per_k, row):
            value = serving.cycle_speedup(plain, tokens, cycle)
            if value > best:
                best_k, best = k, value
        result.append((best_k, best) if best > 1 else (0, 1.0))
        plain_steps.append(plain)
        rows.append(row)
        if batch % every == 0:
            yield
    if len(_KEPT) >= KEEP:
        _KEPT.pop(next(iter(_KEPT)))
    # the cycles of the k a schedule can run, by k: a steady schedule (steady_schedule) runs a batch's best k or keeps
    # the k of the batch before, so none above the largest best k
    top = max(result)[0]   # (k, speedup) pairs: the largest k first
    _KEPT[key] = Priced(tuple(result), plain_steps, tuple(array("d", steps) for steps in islice(zip(*rows), top)))
    return _KEPT[key].ks


def _priced(settings: serving.ServingSettings, curve, k: int, last: int):
    """The plain step (``k`` 0) or lookahead ``k``'s cycle on ``curve``, by batch from 1 to at least ``last``, from a
    schedule :data:`_KEPT` holds (a :class:`Priced`) priced at ``settings`` as :func:`k_by_batch_steps` files them
    (batch and lookahead 1), else None: the very floats :func:`lab.serving.plain_tokens_per_second` and
    :func:`lab.serving.spec_tokens_per_second` would price again (all from :mod:`lab.serving_sweep`). It matches what
    the steps depend on and no more: the settings; for a cycle the curve too, and ``k`` among the cycles kept; and
    ``last`` within the batches priced. A cleared :data:`_KEPT` lets nothing through.

    >>> s = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED)
    >>> _KEPT.clear(); ks = k_by_batch(s, 4)
    >>> filed = _kept_as(s, None, batch=1, lookahead=1)
    >>> _priced(filed, None, 0, len(ks))[4] == serving.step_time_ms(serving.TARGETS[s.target], s, 5, 1, s.context)
    True
    >>> _priced(filed, None, 5, 1), _priced(filed, (0.8,) * 12, 2, 1), _priced(filed, None, 0, len(ks) + 1)
    (None, None, None)
    """
    for (filed, _, on, _), kept in _KEPT.items():
        if filed == settings and last <= len(kept.plain) and (k == 0 or (on == curve and k <= len(kept.cycles))):
            return kept.plain if k == 0 else kept.cycles[k - 1]
    return None


def _kept_as(settings: serving.ServingSettings, curve, **changes) -> serving.ServingSettings:
    """The settings a kept answer is filed under: ``changes`` made and, on a non-empty ``curve``, the acceptance set
    to 0, which nothing on a curve reads (:func:`lab.serving.tokens_per_cycle` takes the curve's rates), so that an
    acceptance moving with the reader's k (the panel's i.i.d. equivalent at k) finds the answers kept.

    >>> s = serving.DEFAULT_SETTINGS
    >>> _kept_as(s, (0.8, 0.7), batch=1).acceptance, _kept_as(s, None, batch=1).acceptance, _kept_as(s, ()).acceptance
    (0.0, 70, 70)
    """
    return settings.with_(acceptance=0.0 if curve else settings.acceptance, **changes)


def _per_k(settings: serving.ServingSettings, max_lookahead: int, curve, cap) -> list[tuple[int, int, float]]:
    """``(k, verify tokens, tokens per cycle)`` for every k the schedule tries: 1..``max_lookahead``, at most ``cap``."""
    alpha = settings.acceptance / 100
    top = max_lookahead if cap is None else max(1, min(max_lookahead, cap))
    return [(k, serving.verify_tokens(settings.with_(lookahead=k)), serving.tokens_per_cycle(alpha, k, curve))
            for k in range(1, top + 1)]


def k_by_batch_scan(settings: serving.ServingSettings, max_lookahead: int = 12, curve=None,
                    cap: int | None = None) -> list[tuple[int, float]]:
    """:func:`k_by_batch` the straightforward way, the oracle it is held to (tests/test_serving_sweep.py, the
    benchmark's ratio): every cycle composed by :func:`lab.serving_step._cycle_ms` at every batch and k, nothing
    kept. The same list, float for float."""
    curve = None if curve is None else tuple(curve)
    settings = settings.with_(batch=1, lookahead=1)
    target, verify, draft, _ = serving._cycle_steps(settings)
    context, per_k, result = settings.context, _per_k(settings, max_lookahead, curve, cap), []
    for batch in range(1, schedule_limit(settings) + 1):
        plain = serving._time(target, batch, 1, context)
        best_k, best = 0, float("-inf")
        for k, n, tokens in per_k:
            value = serving.cycle_speedup(plain, tokens, serving._cycle_ms(settings, k, draft, verify, batch, n, context, tokens))
            if value > best:
                best_k, best = k, value
        result.append((best_k, best) if best > 1 else (0, 1.0))
    return result


def steady_schedule(settings: serving.ServingSettings, ks, curve=None,
                    tolerance: float = SCHEDULE_TOLERANCE) -> tuple[list, list]:
    """The schedule an operator runs, from the best k by batch ``ks`` (:func:`k_by_batch`): batch by batch
    the best k, except that where it would rise above the k of the batch before, that k is kept while its
    speedup is within ``tolerance`` of the best (a k falls as freely as the best does). Returns ``(steady,
    held)``: ``(k, speedup)`` by batch as ``ks`` is, and the inclusive runs ``{"from", "to", "kept", "best",
    "shortfall"}`` where it differs from the best (``best`` the largest best k there, ``shortfall`` the largest
    fraction of the best speedup given up). k = 0 (speculation off) holds at speedup 1.

    >>> from lab import deployment   # the panel's default: Llama-3-70B with an EAGLE head on four H100s, alpha 75%
    >>> s = deployment.serving_settings(deployment.DEFAULT_DEPLOYMENT, 75)
    >>> ks = k_by_batch(s, 12)
    >>> steady, held = steady_schedule(s, ks)
    >>> schedule_ranges([k for k, _ in ks])[2:5], schedule_ranges([k for k, _ in steady])[2:4]
    ([(5, 10, 5), (11, 17, 6), (18, 34, 5)], [(5, 34, 5), (35, 54, 4)])
    >>> [(r["from"], r["to"], r["kept"], r["best"], round(r["shortfall"], 3)) for r in held]
    [(11, 17, 5, 6, 0.008)]
    """
    curve = None if curve is None else tuple(curve)
    steady, held = [], []
    for batch, (best_k, best) in enumerate(ks, start=1):
        choice = (best_k, best)
        if steady and best_k > steady[-1][0]:
            kept = steady[-1][0]
            value = 1.0 if kept == 0 else serving.speedup_at(settings.with_(lookahead=kept), batch, settings.context,
                                                              curve)
            if value >= best * (1 - tolerance):
                choice = (kept, value)
                shortfall = 1 - value / best
                if held and held[-1]["to"] == batch - 1 and held[-1]["kept"] == kept:
                    run = held[-1]
                    run.update(to=batch, best=max(run["best"], best_k), shortfall=max(run["shortfall"], shortfall))
                else:
                    held.append({"from": batch, "to": batch, "kept": kept, "best": best_k, "shortfall": shortfall})
        steady.append(choice)
    return steady, held


def _allreduce_start(settings: serving.ServingSettings) -> float:
    """Where the verify pass's tensor-parallel all-reduce leaves its small-message fit for the rate measured on large
    messages, in bytes (:func:`lab.serving_allreduce.allreduce_beyond`, under the calibration the step model prices
    with): infinite on one GPU, under the roofline (no all-reduce priced) and where no large message is measured."""
    if settings.gpus <= 1 or settings.stepModel not in serving.PER_OPERATOR:
        return float("inf")
    from .serving_allreduce import allreduce_beyond
    from .serving_calibration import CALIBRATIONS, IDEAL

    cal = CALIBRATIONS[settings.gpu] if settings.stepModel == serving.MEASURED else IDEAL
    return allreduce_beyond(cal, settings.gpus)[0]


def schedule_rises(settings: serving.ServingSettings, steady, curve=None) -> list[dict]:
    """Where the schedule's k goes up as the batch grows, and why, computed: for each batch ``b`` where the steady
    schedule (:func:`steady_schedule`, ``(k, speedup)`` by batch) runs a larger k than at ``b - 1``, ``{"batch",
    "from", "to", "gain", "addedMs", "addedMsBefore", "messageBytes", "allreduceFrom", "experts", "expertsRead",
    "causes"}``: the k before and after; ``gain`` the fraction the new k is faster than keeping the old at ``b``
    (on ``curve``'s rates when given); ``addedMs`` the verify step's added ms per added draft from the old k to the
    new at ``b`` (:func:`lab.serving.verify_step_ms`), ``addedMsBefore`` the same at ``b - 1``; ``messageBytes``
    one all-reduce of the new k's verify pass at ``b`` (``b`` x its verify tokens x hidden x activation bytes) and
    ``allreduceFrom`` where the all-reduce's large-message rate starts (None where none applies:
    :func:`_allreduce_start`); ``expertsRead`` the distinct routed experts one MoE layer reads for those tokens of
    its ``experts`` and ``newExpertsPerToken`` the experts one more token reads that are not read yet, on average
``activeExperts (1 - expertsRead / experts)`` (all zero for a dense target). ``causes``, each a computed test: ``"allreduce"`` where the message
    is past ``allreduceFrom``, so the added tokens' bytes are charged at the lower large-message rate;
    ``"experts"`` where the experts read are past :data:`EXPERTS_REACHED` of the experts, so an added token reads
    fewer than half of its experts new; else ``["none"]`` (the verify step's cost per added draft falls there, ``addedMsBefore`` to
    ``addedMs``, for another reason).

    >>> from lab import deployment   # the panel's default: Llama-3-70B, EAGLE head, 4 x H100, its default curve
    >>> d = deployment.DEFAULT_DEPLOYMENT
    >>> curve = deployment.figure_curve(deployment.alpha_from(2.8, "length", 4), 4, d.draft, target=d.target)
    >>> s = deployment.serving_settings(d, 71)
    >>> rates, cap = deployment.curve_schedule_terms(curve)
    >>> steady, _ = steady_schedule(s, k_by_batch(s, deployment.MAX_LOOKAHEAD, rates, cap), rates)
    >>> [(r["batch"], r["from"], r["to"], round(r["gain"], 3), r["causes"]) for r in schedule_rises(s, steady, rates)]
    [(16, 3, 4, 0.026, ['allreduce'])]
    >>> r = schedule_rises(s, steady, rates)[0]   # one more draft costs the verify step less than at batch 15
    >>> round(r["addedMs"], 2), round(r["addedMsBefore"], 2), r["messageBytes"] / 2 ** 20, r["allreduceFrom"] / 2 ** 20
    (0.78, 0.99, 1.25, 1.0)
    """
    curve = None if curve is None else tuple(curve)
    target, context = serving.TARGETS[settings.target], settings.context
    start = _allreduce_start(settings)
    rises = []
    for batch in range(2, len(steady) + 1):
        low, (high, faster) = steady[batch - 2][0], steady[batch - 1]
        if high <= low:
            continue
        kept = 1.0 if low == 0 else serving.speedup_at(settings.with_(lookahead=low), batch, context, curve)

        def added(b):
            return (serving.verify_step_ms(settings.with_(lookahead=high), b, context)  # noqa: B023 (called in this iteration)
                    - serving.verify_step_ms(settings.with_(lookahead=low), b, context)) / (high - low)  # noqa: B023 (called in this iteration)

        tokens = batch * serving.verify_tokens(settings.with_(lookahead=high))
        message = tokens * target.hidden * serving.ACTIVATION_BYTES
        read = serving.distinct_experts(target, tokens)
        causes = ([name for name, applies in (("allreduce", message > start),
                                              ("experts", target.experts and read > EXPERTS_REACHED * target.experts))
                   if applies] or ["none"])
        rises.append({"batch": batch, "from": low, "to": high, "gain": faster / kept - 1, "addedMs": added(batch),
                      "addedMsBefore": added(batch - 1), "messageBytes": message,
                      "allreduceFrom": None if math.isinf(start) else start, "experts": target.experts,
                      "expertsRead": read, "newExpertsPerToken": target.active_experts * (1 - read / target.experts)
                      if target.experts else 0.0, "activeExperts": target.active_experts, "causes": causes})
    return rises


def schedule_ranges(ks) -> list[tuple[int, int, int]]:
    """Runs of equal k as inclusive ``(from, to, k)`` batch ranges (``ks[i]`` is batch ``i + 1``'s k).

    >>> schedule_ranges([4, 4, 3, 0, 0])
    [(1, 2, 4), (3, 3, 3), (4, 5, 0)]
    """
    ranges = []
    for batch, k in enumerate(ks, start=1):
        if ranges and ranges[-1][2] == k:
            ranges[-1] = (ranges[-1][0], batch, k)
        else:
            ranges.append((batch, batch, k))
    return ranges


def largest_batch_within(tpots, target_ms: float):
    """The largest batch whose TPOT is at most ``target_ms`` (``tpots[i]`` is batch ``i + 1``'s),
    or None when none is.

    >>> largest_batch_within([10.0, 12.0, 15.0, 14.0, 21.0], 15.0)
    4
    """
    fits = [batch for batch, tpot in enumerate(tpots, start=1) if tpot <= target_ms]
    return fits[-1] if fits else None


def draft_prefill_ms(settings: serving.ServingSettings, prompt_tokens: int) -> tuple[float, float]:
    """(the draft's prefill of one prompt, the target's), in ms, by the step model over
    ``prompt_tokens`` new tokens at that context: what a separate draft adds to the time to first
    token. Zero for n-gram lookup. The step model is calibrated on decode steps, not prefill: an
    estimate, not validated.

    >>> s = serving.DEFAULT_SETTINGS.with_(stepModel=serving.MEASURED, draft=serving.NGRAM)
    >>> draft_prefill_ms(s, 1024)[0], draft_prefill_ms(s.with_(draft="llama-3.2-1b"), 1024)[0] > 0
    (0.0, True)
    """
    target = serving.TARGETS[settings.target]
    target_ms = serving.step_time_ms(target, settings, 1, prompt_tokens, prompt_tokens)
    shape = serving.draft_shape(settings)
    if shape is None:
        return 0.0, target_ms
    return serving.step_time_ms(shape, settings, 1, prompt_tokens, prompt_tokens), target_ms


def tpots_by_batch(settings: serving.ServingSettings, batches, lookaheads, curve=None) -> list[float]:
    """TPOT at each batch with its own k (0: plain), the steps built once per distinct k, only the plain step or
    only the cycle priced (:func:`lab.serving.plain_tokens_per_second`, :func:`lab.serving.spec_tokens_per_second`:
    :func:`lab.serving.batch_sweep`'s throughputs, on ``curve`` when given): ``B 1000 / tokens per second`` of the
    whole batch. Steps the schedule's own sweep priced at these settings (:func:`_priced`) are read, not priced again."""
    result = {}
    for k in sorted(set(lookaheads)):
        mine = [b for b, kk in zip(batches, lookaheads) if kk == k]
        here = settings.with_(lookahead=max(1, k))
        steps = _priced(settings, None if k == 0 else curve, k, max(mine))   # the schedule's sweep priced them?
        known = None if steps is None else (lambda batch, steps=steps: steps[batch - 1])
        rates = (serving.plain_tokens_per_second(here, mine, known) if k == 0
                 else serving.spec_tokens_per_second(here, mine, curve, known))
        for batch, per_second in zip(mine, rates):
            result[batch] = batch * 1000.0 / per_second
    return [result[b] for b in batches]


def production(settings: serving.ServingSettings, reader_k: int, dollars_per_gpu_hour: float, tpot_target_ms,
               ks=None, curve=None) -> dict:
    """Every production figure for the settings (their batch, context, GPUs): at the reader's
    batch without speculation (``plain``), at the reader's k (``speculative``) and under the
    schedule (``scheduled``), each with TPOT, tokens/s per user and per GPU and $ per million
    tokens; the TPOT target's largest batch plain and scheduled with their throughput; the
    draft's prefill. ``ks`` is :func:`k_by_batch`'s list when already computed; ``curve`` (conditional
    rates, a tuple) the acceptance curve every speculative figure runs on."""
    curve = None if curve is None else tuple(curve)
    ks = k_by_batch(settings, curve=curve) if ks is None else ks
    batch, gpus = settings.batch, settings.gpus
    tpots = {}   # (batch, k) -> TPOT: the reader's k and the schedule's at the reader's batch are often one k

    def terms(b, k, tpot=None):
        if tpot is None:
            if (b, k) not in tpots:
                tpots[b, k] = tpot_ms(settings, b, k, curve)
            tpot = tpots[b, k]
        per_gpu = tokens_per_second_per_gpu(b, tpot, gpus)
        return {"batch": b, "lookahead": k, "tpotMs": tpot, "tokensPerSecondPerUser": tokens_per_second_per_user(tpot),
                "tokensPerSecondPerGpu": per_gpu, "costPerMillionTokens": cost_per_million_tokens(dollars_per_gpu_hour, per_gpu)}

    here = min(batch, len(ks))
    result = {"dollarsPerGpuHour": dollars_per_gpu_hour, "plain": terms(batch, 0), "speculative": terms(batch, reader_k),
              "scheduled": terms(batch, ks[here - 1][0]), "tpotTargetMs": tpot_target_ms}
    if tpot_target_ms is not None:
        plain, scheduled = _sweeps(_kept_as(settings, curve, batch=1, lookahead=1), tuple(k for k, _ in ks), curve)
        best_plain, best_spec = largest_batch_within(plain, tpot_target_ms), largest_batch_within(scheduled, tpot_target_ms)
        result["target"] = {
            "plain": None if best_plain is None else terms(best_plain, 0, plain[best_plain - 1]),
            "scheduled": None if best_spec is None else terms(best_spec, ks[best_spec - 1][0], scheduled[best_spec - 1])}
    draft, target = draft_prefill_ms(settings, settings.context)
    result["prefill"] = {"promptTokens": settings.context, "draftMs": draft, "targetMs": target}
    return result


@lru_cache(maxsize=16)
def _sweeps(settings: serving.ServingSettings, lookaheads: tuple, curve=None) -> tuple:
    """TPOT at every batch plain and under the schedule (kept: the batch, price and target do not enter)."""
    batches = list(range(1, len(lookaheads) + 1))
    return (tpots_by_batch(settings, batches, [0] * len(batches)),
            tpots_by_batch(settings, batches, list(lookaheads), curve))


def crossover_within(settings: serving.ServingSettings, limit: int, curve=None):
    """The first batch in ``1..limit`` where the settings' k gives no speedup above 1 (the
    serving model's crossover, :func:`lab.serving.crossover_batch_scan`, over the schedule's
    batches, the steps built once; on ``curve`` when given), or None."""
    for row in serving.sweep_rows(settings, range(1, limit + 1), curve):
        if row["speedup"] <= 1:
            return row["batch"]
    return None


@lru_cache(maxsize=16)
def _crossover(settings: serving.ServingSettings, limit: int, curve=None):
    return crossover_within(settings, limit, curve)


def _survival(alpha: float, k: int, curve=None) -> float:
    """The chance all ``k`` drafts survive: ``alpha^k``, or the product of the curve's first ``k`` rates.

    >>> _survival(0.5, 3), _survival(0.0, 2, (0.8, 0.5, 0.1))
    (0.125, 0.4)
    """
    return alpha ** k if curve is None else math.prod(curve[:k])


def diagnosis(settings: serving.ServingSettings, reader_k: int, ks, log=None, curve=None) -> list[dict]:
    """One sentence per limiting factor, each with the number that shows it (``factor``,
    ``number``, ``sentence``): acceptance too low for this k, the batch past the crossover, a
    verify pass costly for this architecture, a slow draft, a random-token benchmark (from a log
    analysed by :func:`lab.traces.analyse`, given as ``log``). None found: one sentence saying so.
    On ``curve`` (conditional rates, a tuple) the speedups and the chance all drafts survive are the curve's."""
    curve = None if curve is None else tuple(curve)
    alpha = settings.acceptance / 100
    batch, k = settings.batch, reader_k
    here = settings.with_(lookahead=k)
    result = serving.serving(here, curve)
    best_k, best = ks[min(batch, len(ks)) - 1]
    found = []
    raw_k, raw_best = serving.best_lookahead(here, 12, curve)
    if raw_best <= 1:
        at = "on your curve" if curve else f"at \u03b1 = {100 * alpha:.0f}%"
        found.append({"factor": "acceptance", "number": raw_best,
                      "sentence": f"Acceptance too low for any k at batch {batch}: {at} the "
                                  f"best k ({raw_k}) gives {raw_best:.2f}x, not above 1."})
    elif best_k < k:
        survive = _survival(alpha, k, curve)
        chance = f"chance {survive:.2f} on your curve" if curve else f"chance \u03b1^{k} = {survive:.2f}"
        found.append({"factor": "acceptance", "number": survive,
                      "sentence": f"Acceptance too low for k = {k}: all {k} drafts survive with {chance}, so the "
                                  f"last drafts are mostly wasted; the best k at batch {batch} "
                                  f"is {best_k} ({best:.2f}x against {result.speedup:.2f}x)."})
    crossover = _crossover(_kept_as(here, curve, batch=1), len(ks), curve)
    if crossover is not None and batch >= crossover:
        found.append({"factor": "crossover", "number": crossover,
                      "sentence": f"Batch {batch} is past the crossover: at k = {k} speculation stops paying from "
                                  f"batch {crossover} ({result.speedup:.2f}x here); the schedule runs k = {best_k} at this batch."})
    ratio = result.verifyStepMs / result.plainStepMs
    if ratio >= VERIFY_COSTLY:
        target = serving.TARGETS[settings.target]
        why = (f" (a mixture of experts: {k + 1} tokens a sequence read more of its {target.experts} experts)"
               if target.experts else "")
        found.append({"factor": "verify", "number": ratio,
                      "sentence": f"The verify pass is costly for this architecture: {k + 1} tokens a sequence cost "
                                  f"{ratio:.2f} plain steps{why}."})
    share = k * result.draftStepMs / result.plainStepMs
    if share >= DRAFT_SLOW:
        found.append({"factor": "draft", "number": share,
                      "sentence": f"The draft is slow: {k} draft steps cost {100 * share:.0f}% of a plain step each "
                                  f"cycle ({result.draftStepMs:.2f} ms a step against {result.plainStepMs:.2f} ms)."})
    if log is not None and log.get("alphaIid") is not None and log["alphaIid"] < RANDOM_TOKENS_ALPHA:
        found.append({"factor": "random", "number": log["alphaIid"],
                      "sentence": f"The log's \u03b1 = {100 * log['alphaIid']:.1f}% (mean acceptance length "
                                  f"{log['meanAcceptanceLength']:.2f}) is very low for a trained draft: if the log "
                                  f"came from a benchmark's random-token dataset, it measures those prompts, not your "
                                  f"traffic (random prompts change what a draft gets right); measure on your prompts."})
    elif log is None and alpha < RANDOM_TOKENS_ALPHA and not serving.model_free(settings.draft):
        found.append({"factor": "random", "number": alpha,
                      "sentence": f"\u03b1 = {100 * alpha:.0f}% is very low for a trained draft: if your figure "
                                  f"came from a benchmark's random-token dataset, it measures those prompts, not your "
                                  f"traffic (random prompts change what a draft gets right); measure on your prompts."})
    if not found:
        where = ("no crossover at any batch that fits" if crossover is None
                 else f"below its crossover at k = {k} (batch {crossover})")
        found.append({"factor": "none", "number": result.speedup,
                      "sentence": f"No limiting factor: {result.speedup:.2f}x at k = {k}, batch {batch}, {where}, "
                                  "with a verify pass and drafts that cost little."})
    return found
