"""The rules of the production schedule and of the acceptance curve, each written out again here and held to the
model's numbers: checks added where a mutation sweep (tools/mutation_sweep.py, docs/CHECKS.md "The mutation sweep")
found planted mistakes that no check caught. They ride in the deployment family of the instruments suite
(:data:`lab.checks.deployment.CHECKS` appends :data:`RULE_CHECKS` last); apart from it for size.
"""

import json
import math
import re

from .. import acceptance, deployment, ledger, production, serving
from ..acceptance_text import token_measured_at, token_method, token_rates
from ..jsformat import to_fixed
from ..stats import median

__all__ = ["RULE_CHECKS", "schedule_keeps_k_within_tolerance", "schedule_covers_what_fits", "ties_go_to_the_smaller_k",
           "curve_continues_by_its_rule", "copy_ceiling_only_for_copying", "token_keeps_what_was_measured",
           "extended_rates_stay_below_one", "schedule_on_a_curve_is_the_answer", "engine_plan_reads_its_batch",
           "diagnosis_by_its_rules", "engine_config_as_read"]

# The panel's default at two acceptances (at 75% its best k rises from 5 to 6 at batch 11 and falls back at 18,
# a rise within the tolerance: lab.production.steady_schedule's example) and a dense 8B with an EAGLE-3 head.
SCHEDULE_CASES = ((deployment.DEFAULT_DEPLOYMENT, 75), (deployment.DEFAULT_DEPLOYMENT, 71),
                  (deployment.Deployment(target="llama-3-8b", draft=serving.EAGLE3, gpu="h100-sxm", gpus=1, batch=16,
                                         context=2048), 71))


def schedule_keeps_k_within_tolerance(out):
    """The steady schedule is its rule, walked batch by batch here: where the best k (lab.production.k_by_batch) rises
    above the scheduled k of the batch before, that k is kept exactly when its speedup at this batch
    (serving.speedup_at; 1 for k = 0) is at least the best's times 1 - SCHEDULE_TOLERANCE, and the best k runs
    otherwise; every held run names the batches, the k kept, the largest best k and the largest share given up. The
    check fails too if no case holds a k (it would test nothing)."""
    tolerance, holds = production.SCHEDULE_TOLERANCE, 0
    for d, percent in SCHEDULE_CASES:
        out.visited += 1
        settings = deployment.serving_settings(d, percent)
        ks = yield from production.k_by_batch_steps(settings, deployment.MAX_LOOKAHEAD, every=64)
        steady, held = production.steady_schedule(settings, ks)
        expected, runs = [], []
        for batch, (best_k, best) in enumerate(ks, start=1):
            choice = best_k
            if expected and best_k > expected[-1]:
                kept = expected[-1]
                value = 1.0 if kept == 0 else serving.speedup_at(settings.with_(lookahead=kept), batch, settings.context)
                if value >= best * (1 - tolerance):
                    choice, share = kept, 1 - value / best
                    if runs and runs[-1]["to"] == batch - 1 and runs[-1]["kept"] == kept:
                        runs[-1].update(to=batch, best=max(runs[-1]["best"], best_k),
                                        shortfall=max(runs[-1]["shortfall"], share))
                    else:
                        runs.append({"from": batch, "to": batch, "kept": kept, "best": best_k, "shortfall": share})
            expected.append(choice)
        scheduled = [k for k, _ in steady]
        if scheduled != expected:
            batch = next(b for b, (a, e) in enumerate(zip(scheduled, expected), start=1) if a != e)
            out.fail(f"{d.target} at {percent}%: at batch {batch} the schedule runs k = {scheduled[batch - 1]}, its rule "
                     f"gives k = {expected[batch - 1]} (best k {ks[batch - 1][0]}, tolerance {tolerance})")
            return
        if held != runs:
            out.fail(f"{d.target} at {percent}%: the held runs {held} differ from the rule's {runs}")
            return
        holds += len(runs)
    if not holds:
        out.fail("no case holds a k within the tolerance, so this check tests nothing")


# The panel's default, a 70B at 32k context on four H100s (memory stops the batch near a dozen sequences) and an 8B
# with a 1B draft model at 128k context on one A100 (a draft's weights and caches count too).
FIT_CASES = (deployment.DEFAULT_DEPLOYMENT,
             deployment.Deployment(target="llama-3-70b", draft=serving.EAGLE, gpu="h100-sxm", gpus=4, batch=8,
                                   context=32768),
             deployment.Deployment(target="llama-3-8b", draft="llama-3.2-1b", gpu="a100-80g", gpus=1, batch=8,
                                   context=131072))


def schedule_covers_what_fits(out):
    """The schedule covers batch 1 to the largest batch whose weights and KV caches (lab.serving.memory_needed_bytes:
    target and draft, each batch's caches at the context) fit in the memory the engine gives them
    (memory_available_bytes), at most SCHEDULE_MAX_BATCH and at least 1: found here by a search over the batches, so a
    schedule that runs a batch past memory, or a fit test that forgets the weights, fails. The check fails too if no
    case stops below SCHEDULE_MAX_BATCH (memory would never bind)."""
    binds = 0
    for d in FIT_CASES:
        out.visited += 1
        settings = deployment.serving_settings(d, 71)
        available = serving.memory_available_bytes(settings)
        low, high = 0, production.SCHEDULE_MAX_BATCH   # the largest fitting batch lies in [low, high]
        while low < high:
            middle = (low + high + 1) // 2
            low, high = (middle, high) if serving.memory_needed_bytes(settings, middle) <= available else (low, middle - 1)
        expected = max(1, low)
        limit = production.schedule_limit(settings)
        if limit != expected:
            out.fail(f"{d.target} at context {d.context}: the schedule covers batches 1 to {limit}, memory holds "
                     f"{low} sequences (expected 1 to {expected})")
            return
        binds += low < production.SCHEDULE_MAX_BATCH
    if not binds:
        out.fail("memory binds in no case, so this check tests nothing")


# A curve whose drafts past the first never survive: tokens per cycle are the same at every k, so equal speedups.
_FLAT_RATES = (0.7,) + (0.0,) * 11


def ties_go_to_the_smaller_k(out):
    """Among equal speedups the smaller k wins (the first strict maximum: as many tokens for fewer drafts), in
    lab.acceptance.best_lookahead and in lab.production.k_by_batch alike: on a curve whose drafts past the second
    never survive, the ledger at no draft cost ties every k from 2 on, and n-gram lookup under the roofline (no
    proposal cost, a memory-bound verify pass) ties every k at small batches. The expected k is the first maximum of
    the speedups at each k, computed here; the check fails too if no tie occurs (it would test nothing)."""
    ties = 0
    rates = [0.8, 0.5] + [0.0] * 10
    settings = ledger.DEFAULT_SETTINGS.with_(draftCost=0, verifyTax=0, overheadMs=0)
    speedups = [ledger.ledger_from_curve(settings.with_(lookahead=k), rates).speedup for k in range(1, 13)]
    best = acceptance.best_lookahead_on_curve(settings, rates, 12)
    cap = min(12, best["plateauStart"] + 1) if best["plateauStart"] is not None else 12
    want = 1 + max(range(cap), key=lambda i: (speedups[i], -i))
    out.visited += 1
    ties += speedups[:cap].count(speedups[want - 1]) > 1
    if best["k"] != want:
        out.fail(f"the ledger on {rates[:3]}...: best k {best['k']}, the first of the equal speedups is k = {want}")
        return
    s = serving.DEFAULT_SETTINGS.with_(target="llama-3-8b", draft=serving.NGRAM, gpus=1, stepModel=serving.ROOFLINE,
                                       context=1024)
    ks = yield from production.k_by_batch_steps(s, 12, every=64, curve=_FLAT_RATES)
    for batch in (1, 2, 4, 8):
        out.visited += 1
        values = [serving.speedup_at(s.with_(lookahead=k), batch, s.context, _FLAT_RATES) for k in range(1, 13)]
        top = max(values)
        want = (values.index(top) + 1) if top > 1 else 0
        ties += values.count(top) > 1
        if ks[batch - 1][0] != want:
            out.fail(f"n-gram under the roofline at batch {batch}: k_by_batch gives k = {ks[batch - 1][0]}, the first "
                     f"of the equal speedups is k = {want}")
            return
    if ties < 2:
        out.fail("no tie among the speedups, so this check tests nothing")


def _rule_rates(curve, k):
    """Curve.rates' rule, written out again: the measured rates; past them, with one measured rate, r_1 c; then each
    the one before (or, right after the measured ones, the anchor when set) times d; every filled-in rate at most the
    curve's ceiling."""
    c, d = curve.shape
    out = list(curve.measured[:k])
    previous = curve.measured[-1]
    for position in range(len(curve.measured) + 1, k + 1):
        if position == 2:
            rate = curve.measured[0] * c
        elif position == len(curve.measured) + 1 and curve.anchor is not None:
            rate = curve.anchor * d
        else:
            rate = previous * d
        previous = min(curve.ceiling, rate)
        out.append(previous)
    return out


def curve_continues_by_its_rule(out):
    """A curve's rates follow its rule (lab.acceptance.Curve.rates, written out again in :func:`_rule_rates`), on
    curves from one length, two lengths (whose continuation starts from r_1 c, the measured drop weighted
    SECOND_WEIGHT against the prior's, not from the noisy r_2), several lengths, conditional rates and vLLM's printed
    unconditional ones; two lengths at k = 1 and 2 come back exactly (r_1 = L(1) - 1 and r_1 r_2 = L(2) - L(1): the
    second rate is conditional); printed unconditional rates a_i come back as the chance the first i drafts survive,
    r_1 ... r_i = a_i."""
    cases = [("two lengths", acceptance.from_lengths({1: 1.8, 2: 2.3}, "eagle")),
             ("two lengths, copying", acceptance.from_lengths({1: 1.6, 2: 2.1}, "ngram")),
             ("one length", acceptance.from_single(2.6, 3, "mtp")),
             ("one rate", acceptance.from_conditional([0.7], "draft")),
             ("several lengths", acceptance.from_lengths({1: 1.79, 2: 2.27, 3: 2.49, 4: 2.6}, "mtp")),
             ("conditional rates", acceptance.from_conditional([0.6, 0.8, 0.9], "ngram"))]
    for name, curve in cases:
        out.visited += 1
        got, want = curve.rates(12), _rule_rates(curve, 12)
        if any(abs(a - b) > 1e-12 for a, b in zip(got, want)) or len(got) != len(want):
            out.fail(f"{name}: rates {[round(r, 4) for r in got]}, the rule gives {[round(r, 4) for r in want]}")
            return
    for lengths in ({1: 1.8, 2: 2.3}, {1: 1.5, 2: 1.9}, {1: 1.95, 2: 2.9}):
        out.visited += 1
        curve = acceptance.from_lengths(lengths, "eagle")
        r1, r2 = curve.rates(2)
        c = curve.shape[0]
        prior_c = acceptance.prior("eagle", None, lengths[1] - 1, figures=2)[0][0]
        weighted = acceptance.SECOND_WEIGHT * r2 / r1 + (1 - acceptance.SECOND_WEIGHT) * prior_c
        if (abs(r1 - (lengths[1] - 1)) > 1e-12 or abs(r1 * r2 - (lengths[2] - lengths[1])) > 1e-12
                or abs(c - weighted) > 1e-12 or curve.anchor is None or abs(curve.anchor - min(1.0, r1 * c)) > 1e-12):
            out.fail(f"lengths {lengths}: rates {r1:.4f}, {r2:.4f}, drop {c:.4f} (the rule's {weighted:.4f}), anchor "
                     f"{curve.anchor}; r_1 r_2 must be {lengths[2] - lengths[1]:.4f}")
            return
    for printed in ((0.8, 0.6, 0.45, 0.3), (0.9, 0.5, 0.2), (0.6, 0.6, 0.3)):
        out.visited += 1
        rates, survival = acceptance.from_unconditional(printed).rates(len(printed)), 1.0
        for i, (rate, a) in enumerate(zip(rates, printed), start=1):
            survival *= rate
            if abs(survival - a) > 1e-12:
                out.fail(f"printed rates {printed}: the first {i} drafts survive with {survival:.4f}, printed {a}")
                return
    failure = _measured_shape_difference() or _pooled_point_difference()
    if failure:
        out.fail(failure)


def _measured_shape_difference() -> str | None:
    """Three or more measured conditional rates fix the shape that continues them (lab.acceptance._tail_shape's
    rule, written out): c = r_2 / r_1 from the first two, and d such that the shape's rates r_1, r_1 c, r_1 c d, ...
    meet the measured mean acceptance length at the last measured position m; or None."""
    for rates, family in (([0.6, 0.8, 0.9], "ngram"), ([0.9, 0.7, 0.6, 0.5], "draft"), ([0.85, 0.8, 0.7], None)):
        curve = acceptance.from_conditional(rates, family)
        c, d = curve.shape
        m = len(rates)
        measured = 1 + sum(math.prod(rates[:i]) for i in range(1, m + 1))
        shaped = acceptance.mean_acceptance_length(acceptance.shaped_rates(rates[0], (c, d), m), m)
        if abs(c - rates[1] / rates[0]) > 1e-12 or abs(shaped - measured) > 1e-9:
            return (f"{rates}: the shape ({c:.4f}, {d:.4f}) gives L({m}) = {shaped:.6f}; the rule's drop is "
                    f"{rates[1] / rates[0]:.4f} and the measured length {measured:.6f}")
    return None


def _pooled_point_difference() -> str | None:
    """The prior's point (lab.acceptance.prior) by its rule, written out, or None: one vote per drafter (each curve
    weighs 1 / the number of its group's curves of its drafter, lab.acceptance_curves.drafter_of); given the reader's
    r_1, the curves whose own first rate L(1) - 1 lies nearest it (ties by name), in order, until their votes reach
    half the group's (a hair of rounding allowed); the point is the weighted median of their (c, d), where the
    running weight in order first passes half (the mean of two values where it lands on half). Cases: the whole
    library (no family, no r_1), and two readers whose nearest curves reach exactly half the votes (EAGLE from one
    figure at r_1 = 0.76, its family's curves; no family from two figures at r_1 = 0.77, the whole library's) and a
    draft model from one figure at r_1 = 0.8, whose group holds the block drafters' curves too."""
    from ..acceptance_curves import drafter_of

    # A draft model not said to be block borrows the block drafters' curves too (the rule, restated)
    borrows = {"draft": ("draft", "block")}
    for family, r1, figures in ((None, None, 2), ("eagle", 0.76, 1), (None, 0.77, 2), ("draft", 0.8, 1)):
        point, spread, _ = acceptance.prior(family, None, r1, figures=figures)
        group = [name for name in acceptance.CURVES
                 if family is None or acceptance.CURVES[name][0] in borrows.get(family, (family,))]
        drafters = [drafter_of(name) for name in group]
        weights = [1.0 / drafters.count(drafter) for drafter in drafters]
        if len(set(weights)) == 1:
            return f"{family}: every curve has its own drafter, so one vote per drafter tests nothing"
        shapes = dict(zip(group, spread))
        chosen = list(range(len(group)))
        if r1 is not None:
            order = sorted(chosen, key=lambda i: (abs(acceptance.library_lengths(group[i])[0] - 1 - r1), group[i]))
            running, chosen = 0.0, []
            for i in order:
                chosen.append(i)
                running += weights[i]
                if running >= sum(weights) / 2 - 1e-12:
                    break
        for axis in (0, 1):
            pairs = sorted((shapes[group[i]][axis], weights[i]) for i in chosen)
            half, running, want = sum(w for _, w in pairs) / 2, 0.0, pairs[-1][0]
            for index, (value, weight) in enumerate(pairs):
                running += weight
                if abs(running - half) <= 1e-12 * max(1.0, half) and index + 1 < len(pairs):
                    want = (value + pairs[index + 1][0]) / 2
                    break
                if running > half:
                    want = value
                    break
            if abs(point[axis] - want) > 1e-12:
                return (f"{family or 'the whole library'} at r_1 = {r1}: the prior's {'cd'[axis]} is "
                        f"{point[axis]:.4f}, the rule's drafter-weighted median {want:.4f}")
    return None


def copy_ceiling_only_for_copying(out):
    """A filled-in rate's ceiling is below 1 only for a drafter that copies text (lab.acceptance.COPYING): every model
    drafter's curve has ceiling 1. A copying family's is the median, over its prior group's copying library curves,
    of each curve's highest conditional rate at a position from 2 on that at least PLATEAU_GAIN of the calls reach,
    computed here from the library's lengths (position i's conditional rate (L_i - L_{i-1}) / (L_{i-1} - L_{i-2}),
    reached by the calls whose first i - 1 drafts survive, L_{i-1} - L_{i-2})."""
    names = list(acceptance.CURVES)
    for family in acceptance.FAMILY_NAMES:
        out.visited += 1
        ceiling = acceptance.from_conditional([0.8, 0.7], family).ceiling
        if family not in acceptance.COPYING:
            if ceiling != 1.0 or acceptance.copy_ceiling(names, family) != 1.0:
                out.fail(f"{family}, a model drafter: ceiling {ceiling}, not 1")
                return
            continue
        group, _, enough = acceptance.prior_group(names, family, "pooled")
        if not enough:
            group = [name for name in names if acceptance.CURVES[name][0] in acceptance.COPYING]
        levels = []
        for name in group:
            lengths = [1.0] + list(acceptance.library_lengths(name))            # L_0 = 1
            shares = [1.0] + [b - a for a, b in zip(lengths, lengths[1:])]      # shares[i]: the first i drafts survive
            found = [min(1.0, shares[i] / shares[i - 1]) for i in range(2, len(shares))
                     if shares[i - 1] >= acceptance.PLATEAU_GAIN]
            if found:
                levels.append(max(found))
        want = median(levels) if levels else 1.0
        if abs(ceiling - want) > 1e-9:
            out.fail(f"{family}: ceiling {ceiling:.4f}, the median copy level of its group is {want:.4f}")
            return


def token_keeps_what_was_measured(out):
    """A measured-curve token carries where measurement ends (its @m mark) and every instrument's curve keeps it:
    lab.acceptance.token_curve of the token's rates, mark and family says the curve is measured to m and that a
    lookahead past m is extrapolated from m (a lookahead within m is not), for tokens with and without a family; the
    trees widget's levels continue a marked curve from m, as every instrument does."""
    for curve in (acceptance.from_lengths({1: 1.8, 2: 2.3}), acceptance.from_single(2.6, 3, "mtp"),
                  acceptance.from_conditional([0.6, 0.8, 0.85], "ngram"), acceptance.from_conditional([0.9, 0.8])):
        token = acceptance.curve_token(curve)
        m = token_measured_at(token)
        out.visited += 1
        if m != curve.measuredAt:
            out.fail(f"{token}: the mark says measured to {m}, the curve to {curve.measuredAt}")
            return
        received = acceptance.token_curve(token_rates(token), m, token_method(token))
        flags = [received.extrapolated_from(k) for k in range(1, 13)]
        want = [m if k > m else None for k in range(1, 13)]
        if received.measuredAt != m or flags != want:
            out.fail(f"{token}: the received curve is measured to {received.measuredAt} and extrapolates {flags}, "
                     f"the token says {m}")
            return
    _tree_levels_keep_the_mark(out)


def _tree_levels_keep_the_mark(out):
    """The trees widget's levels on a marked token (rates received past the mark m) continue the curve as every
    instrument does, from the measured m (lab.acceptance.extended_rates with the mark), not from its last received
    rate; each case's mark changes the levels, so the case tests something."""
    from .. import trees_depth

    for rates, m, method in (((0.8, 0.5, 0.45), 1, None), ((0.6, 0.8, 0.85, 0.8), 2, "ngram")):
        out.visited += 1
        levels = trees_depth.depth_rates(list(rates), 70, m, method=method)
        if levels == trees_depth.depth_rates(list(rates), 70, None, method=method):
            out.fail(f"{rates}@{m}: the mark does not change the tree's levels, so this case tests nothing")
        elif levels != acceptance.extended_rates(list(rates), trees_depth.CURVE_LEVELS, m, method):
            out.fail(f"{rates}@{m}: the tree's levels {levels[:6]} do not continue the curve from the measured {m}")


def extended_rates_stay_below_one(out):
    """A received curve extended past its rates (lab.acceptance.extended_rates, what every widget runs on) keeps each
    filled-in rate at most MAX_SENT_RATE, below 1: a curve that accepts every draft has no long-run law in the
    lookahead policies. On curves whose model continuation reaches 1 (checked here, so that the cap binds)."""
    for rates, method in (([1.0, 1.0, 1.0], None), ([0.9, 1.0, 1.0], "mtp"), ([0.95, 0.99, 1.0], "eagle")):
        out.visited += 1
        continued = acceptance.from_conditional(rates, method).rates(16)
        extended = acceptance.extended_rates(rates, 16, method=method)
        if max(continued[len(rates):]) < 1.0:
            out.fail(f"{rates}: the continuation never reaches 1, so this case tests nothing")
            return
        if extended[:len(rates)] != rates or max(extended[len(rates):]) > acceptance.MAX_SENT_RATE:
            out.fail(f"{rates} extended: {extended}, a filled-in rate above {acceptance.MAX_SENT_RATE}")
            return


def schedule_on_a_curve_is_the_answer(out):
    """On a curve that plateaus, the schedule's best k at a batch is the k the panel's answer names there: the
    serving model's speedup at each k on the curve's rates, through lab.acceptance.best_lookahead (the first strict
    maximum, never past the plateau's start plus one), at batches 1, 8 and 64, for the panel's default pair drafting
    by n-gram lookup on prompt lookup's shape (most first drafts fail, a rare match runs on: plateau from k = 2, the
    uncapped best far deeper at batch 1) and a falling printed-rate curve. The check fails too if the cap never binds."""
    d = deployment.DEFAULT_DEPLOYMENT._replace(draft=serving.NGRAM)
    settings = deployment.serving_settings(d, 71)
    binds = 0
    for curve in (acceptance.from_conditional([0.6, 0.17, 0.4] + [0.95] * 13, "ngram"),
                  acceptance.from_unconditional([0.9, 0.8, 0.6, 0.3, 0.1, 0.02], "eagle")):
        rates, cap = deployment.curve_schedule_terms(curve)
        ks = yield from production.k_by_batch_steps(settings, deployment.MAX_LOOKAHEAD, every=64, curve=rates, cap=cap)
        for batch in (1, 8, 64):
            out.visited += 1
            best = acceptance.best_lookahead(
                lambda k: serving.speedup_at(settings.with_(lookahead=k), batch, settings.context, rates), curve,  # noqa: B023 (called in this iteration)
                deployment.MAX_LOOKAHEAD)
            want = best["k"] if best["speedup"] > 1 else 0
            binds += best["capped"]
            if ks[batch - 1][0] != want:
                out.fail(f"{curve.source} curve at batch {batch}: the schedule's best k is {ks[batch - 1][0]}, the "
                         f"answer's rule gives {want} (plateau from {best['plateauStart']})")
                return
    if not binds:
        out.fail("the plateau cap binds nowhere, so this check tests nothing")


def engine_plan_reads_its_batch(out):
    """The engine configuration's plan names, at the deployment's batch, the serving model's best k there and its
    speedup (serving.best_lookahead at that batch, k = 0 and 1 where no k gains), at the batches where the best k
    changes from one batch to the next (where reading a neighbour's would show) and at the schedule's last batch."""
    d = deployment.DEFAULT_DEPLOYMENT
    settings = deployment.serving_settings(d, 75)
    ks = yield from production.k_by_batch_steps(settings, deployment.MAX_LOOKAHEAD, every=64)
    edges = [b for b in range(1, len(ks)) if ks[b - 1][0] != ks[b][0]][:4]
    if not edges:
        out.fail("the best k never changes with the batch, so this check tests nothing")
        return
    for batch in edges + [len(ks)]:
        out.visited += 1
        plan = deployment.engine_plan(d._replace(batch=batch), ks)
        k, speedup = serving.best_lookahead(settings.with_(batch=batch), deployment.MAX_LOOKAHEAD)
        want = (k, speedup) if speedup > 1 else (0, 1.0)
        if (plan["batchK"], plan["bestSpeedup"]) != want:
            out.fail(f"batch {batch}: the plan names k = {plan['batchK']} ({plan['bestSpeedup']:.4f}x), the best there "
                     f"is k = {want[0]} ({want[1]:.4f}x)")
            return


# Diagnosis cases (lab.production.diagnosis), each at a batch and the batch before: a draft model at 50% and k = 4
# (its k = 4 crossover at batch 10 on one H100, its four draft steps past the slow-draft share), n-gram lookup and a
# draft model at 10% (no k pays; a trained draft's figure that low may be a random-token benchmark's, a proposer's not).
DIAGNOSIS_CASES = ((dict(draft="llama-3.2-1b", acceptance=50, lookahead=4), (9, 10)),
                   (dict(draft=serving.NGRAM, acceptance=10, lookahead=4), (1,)),
                   (dict(draft="llama-3.2-1b", acceptance=10, lookahead=3), (2,)))
DIAGNOSIS_BATCHES = 32   # the schedule's length handed to the diagnosis: its crossover search stops there


def diagnosis_by_its_rules(out):
    """The diagnosis's factors by their rules, written out here: the crossover named from the first losing batch on, the
    chance all k drafts survive a^k, the slow draft's share k draft steps a plain step, the random-token warning only
    for a trained draft."""
    # On Llama-3-8B on one H100 (calibrated model): the crossover found by scanning batches 1..32 and never named before
    # it; the slow-draft factor named exactly where it reaches lab.production.DRAFT_SLOW; never n-gram lookup or suffix
    # decoding for the random-token warning.
    for changes, batches in DIAGNOSIS_CASES:
        base = serving.DEFAULT_SETTINGS.with_(target="llama-3-8b", gpu="h100-sxm", gpus=1, context=1024,
                                              stepModel=serving.MEASURED, **changes)
        k, alpha = base.lookahead, base.acceptance / 100
        losing = [b for b in range(1, DIAGNOSIS_BATCHES + 1) if serving.speedup_at(base, b, base.context) <= 1]
        crossover = losing[0] if losing else None
        for batch in batches:
            out.visited += 1
            here = base.with_(batch=batch)
            found = {item["factor"]: item for item in production.diagnosis(here, k, [(1, 1.2)] * DIAGNOSIS_BATCHES)}
            where = f"{changes} at batch {batch}"
            past = crossover is not None and batch >= crossover
            if ("crossover" in found) != past or (past and found["crossover"]["number"] != crossover):
                out.fail(f"{where}: crossover named {'crossover' in found}, but the first losing batch is {crossover}")
            r = serving.serving(here.with_(lookahead=k))
            share = k * r.draftStepMs / r.plainStepMs
            if ("draft" in found) != (share >= production.DRAFT_SLOW) or (
                    "draft" in found and not _near(found["draft"]["number"], share)):
                out.fail(f"{where}: slow draft named {'draft' in found} ({found.get('draft', {}).get('number')}), "
                         f"but {k} draft steps cost {share:.3f} plain steps")
            acceptance = found.get("acceptance")
            if acceptance and acceptance["sentence"].startswith("Acceptance too low for k =") and not _near(
                    acceptance["number"], alpha ** k):
                out.fail(f"{where}: the chance all {k} drafts survive is given as {acceptance['number']}, not "
                         f"{alpha ** k}")
            trained = not serving.model_free(here.draft)
            if ("random" in found) != (trained and alpha < production.RANDOM_TOKENS_ALPHA):
                out.fail(f"{where}: the random-token warning {'given' if 'random' in found else 'missing'} for "
                         f"{'a trained draft' if trained else 'a model-free proposer'} at {alpha:.0%}")


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-12 * max(abs(a), abs(b), 1e-300)


def _plan(target: str, draft: str, batch: int, batch_k: int = 3) -> dict:
    """An engine plan (lab.deployment.engine_plan's keys) whose largest k (6) differs from the k at the batch."""
    return {"target": target, "draft": draft, "gpus": 1, "lookahead": 6, "ranges": [(1, 40, 6), (41, 4096, batch_k)],
            "batch": batch, "batchK": batch_k, "bestSpeedup": 1.4}


def engine_config_as_read(out):
    """The engine configuration the panel prints, by the engine's rules as read: one k for every batch is the best k at
    the reader's batch; the plugin's disable_by_batch_size only past 64 and then at least the batch; an MTP module where
    the checkpoint ships one."""
    # vLLM's suffix method and SGLang take one k for every batch, not the schedule's largest; the plugin drafts nothing
    # past disable_by_batch_size; an MTP target is configured with vLLM's method mtp or SGLang's NEXTN and no separate
    # draft checkpoint, every other target's EAGLE head as a checkpoint of its own.
    from .. import engine_config
    from .serving_notes import MTP_SHIPPED

    for batch in (1, 63, 64, 65, 200):
        out.visited += 1
        config = engine_config.configuration("vllm", _plan("llama-3-8b", serving.SUFFIX, batch))
        first = json.loads(config["lines"][2]["text"].split("'")[1])
        if first["num_speculative_tokens"] != 3:
            out.fail(f"suffix decoding on vLLM at batch {batch}: num_speculative_tokens {first['num_speculative_tokens']}"
                     f", not the best k at the batch, 3")
        limit = re.search(r'"disable_by_batch_size": (\d+)', config["text"])
        if (limit is not None) != (batch > 64) or (limit and int(limit.group(1)) < batch):
            out.fail(f"suffix decoding on vLLM 0.10.1 at batch {batch}: disable_by_batch_size "
                     f"{limit and limit.group(1)}, where the plugin's default is 64")
    sglang = engine_config.configuration("sglang", _plan("llama-3-8b", serving.EAGLE, 100))
    out.visited += 1
    if "--speculative-num-steps 3 " not in sglang["text"]:
        out.fail(f"SGLang (one k) is not given the best k at the batch, 3: {sglang['text'][-160:]!r}")
    for target in sorted(serving.TARGETS):
        out.visited += 1
        plan = _plan(target, serving.EAGLE, 8)
        vllm = json.loads(engine_config.configuration("vllm", plan)["lines"][2]["text"].split("'")[1])
        sgl = engine_config.configuration("sglang", plan)["text"]
        ships = target in MTP_SHIPPED
        if (vllm["method"] == "mtp") != ships or ("model" in vllm) == ships or ("NEXTN" in sgl) != ships:
            out.fail(f"{target}'s EAGLE preset configured as {vllm} on vLLM, SGLang {'NEXTN' in sgl}, though its "
                     f"checkpoint {'ships' if ships else 'has no'} MTP module")


RULE_CHECKS = (
    ("production-schedule-keeps-k-within-tolerance", schedule_keeps_k_within_tolerance),
    ("production-schedule-covers-what-fits", schedule_covers_what_fits),
    ("acceptance-ties-go-to-the-smaller-k", ties_go_to_the_smaller_k),
    ("acceptance-curve-continues-by-its-rule", curve_continues_by_its_rule),
    ("acceptance-copy-ceiling-only-for-copying", copy_ceiling_only_for_copying),
    ("acceptance-token-keeps-what-was-measured", token_keeps_what_was_measured),
    ("acceptance-extended-rates-stay-below-one", extended_rates_stay_below_one),
    ("deployment-schedule-on-a-curve-is-the-answer", schedule_on_a_curve_is_the_answer),
    ("deployment-engine-plan-reads-its-batch", engine_plan_reads_its_batch),
    ("deployment-diagnosis-by-its-rules", diagnosis_by_its_rules),
    ("deployment-engine-config-as-read", engine_config_as_read),
)


# --- helpers of lab.checks.deployment's readouts and acceptance checks (here for that module's size) ---------------

def tpot_target_difference(where, extra, d, percent, curve) -> str | None:
    """The TPOT target's rows: each at the largest batch whose TPOT meets the target (the next batch's misses it, or
    none fits past it), plain at k = 0 and scheduled at the schedule's k for that batch (lab.production.tpot_ms)."""
    if production.largest_batch_within([10.0, 15.0, 16.0], 15.0) != 2:  # a TPOT exactly at the target meets it
        return f"{where}: a batch whose TPOT is exactly the target is not counted as meeting it"
    prod, steady = extra["production"], extra["scheduleByBatch"]
    settings, rates = deployment.serving_settings(d, percent), deployment.curve_schedule_terms(curve)[0]
    for name, row in prod.get("target", {}).items():
        if row is None:
            continue
        b = row["batch"]
        k_of = (lambda n: 0) if name == "plain" else (lambda n: steady[n - 1][0])  # noqa: E731
        if row["lookahead"] != k_of(b):
            return f"{where}: the TPOT target's {name} row runs k = {row['lookahead']} at batch {b}, the schedule {k_of(b)}"
        if b < len(steady) and production.tpot_ms(settings, b + 1, k_of(b + 1), rates) <= prod["tpotTargetMs"]:
            return f"{where}: the TPOT target's {name} row stops at batch {b}, but batch {b + 1} meets it too"
    return None


def held_out_table_difference() -> str | None:
    """The appendix's leave-one-out table (lab.acceptance_table.held_out_table_html, family_spread) rendered from
    made-up results whose every number differs (leave-one-out itself takes seconds, too slow for the browser): each
    row's cells from k = 1 and from k = 1..2 in their columns, the model's and i.i.d.'s in order, the caption's medians
    and counts of each, and each family's two median errors."""
    from .. import acceptance_table as av
    from . import unescape

    f = to_fixed
    names = list(av.CURVES)[:2]

    def result(shift: float) -> dict:   # shift: k = 1..2's numbers apart from k = 1's
        rows = [{"name": name, "family": av.CURVES[name][0], "lookahead": 5 + i, "measured": 3.0 + i,
                 "predicted": 3.1 + i + shift, "error": 0.03 + i / 100 + shift / 10, "iid": 3.6 + i + shift,
                 "iidError": 0.2 + i / 100 + shift / 10} for i, name in enumerate(names)]
        return {"rows": rows, "medianError": 0.041 + shift / 10, "medianIidError": 0.137 + shift / 10,
                "better": 2 - int(10 * shift), "covered": 1 + int(10 * shift),
                "byFamily": {row["family"]: {"curves": 1, "medianError": row["error"]} for row in rows}}

    def cell(value: float, error: float) -> str:
        return f"{f(value, 2)} (+{f(100 * error, 1)}%)"

    one, two = result(0.0), result(0.1)
    table = unescape(av.held_out_table_html(one, two))
    for a, b in zip(one["rows"], two["rows"]):
        want = (f"<td>{f(a['measured'], 2)}</td><td>{cell(a['predicted'], a['error'])}</td><td>{cell(a['iid'], a['iidError'])}"
                f"</td><td>{cell(b['predicted'], b['error'])}</td><td>{cell(b['iid'], b['iidError'])}</td></tr>")
        if want not in table:
            return f"the held-out table's row for {a['name']} does not read {want!r}"
    for phrase in (f"From k = 1: median error {f(100 * one['medianError'], 1)}% against the independent model's "
                   f"{f(100 * one['medianIidError'], 1)}%", f"closer than it on {one['better']} of 2",
                   f"From k = 1..2: {f(100 * two['medianError'], 1)}% against {f(100 * two['medianIidError'], 1)}%, "
                   f"closer on {two['better']} of 2, inside the interval on {two['covered']}."):
        if phrase not in table:
            return f"the held-out table's caption lacks {phrase!r}"
    spread = av.family_spread(one, two)
    for family in one["byFamily"]:
        phrase = (f"median error {f(100 * one['byFamily'][family]['medianError'], 1)}% from k = 1 and "
                  f"{f(100 * two['byFamily'][family]['medianError'], 1)}% from k = 1..2")
        if phrase not in spread:
            return f"the held-out note by family lacks {phrase!r}"
    return None
