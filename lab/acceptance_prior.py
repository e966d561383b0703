"""The acceptance model's decay prior: the shape ``(c, d)`` a reader's curve borrows where their figures do not fix
it, learned from the library of measured curves (:mod:`lab.acceptance_curves`), and the point chosen for a reader.

The shape: the first rate, one drop to the second, then a geometric fall (:func:`lab.acceptance_rates.shaped_rates`),

    r_1,   r_i = r_1 c d^(i-2)  (i >= 2),   capped at 1.

For drafters that copy text (:data:`COPYING`: n-gram lookup, suffix decoding) d may exceed 1, up to :data:`COPY_RISE_MAX`: the rates rise (once a copied span's first token is accepted the
text is likely repeating; vLLM #24344's n-gram run: 0.81, 0.91, 0.95, 0.97), every rate the model fills in at most
the copying curves' ceiling below 1 (:func:`copy_ceiling`: a copy can break at any token), and their
prior comes from the copying curves alone (:func:`prior_group`); a model drafter's d stays at most 1. Each curve of the library
(:mod:`lab.acceptance_curves`) gives one ``(c, d)``, fitted to all its lengths (:func:`library_shape`: least squares on
relative errors, as a reader's lengths are fitted, so no single noisy length sets it). A prediction from one figure takes
the median ``(c, d)`` of the reader's family's curves whose own first rate lies nearest the reader's (:func:`nearest_curves`:
half the drafters; a drafter's fall goes with how good it is), one vote per drafter (:data:`lab.acceptance_curves.SAME_DRAFTER`:
a drafter measured with thinking on and off, or on nine workloads, is one piece of evidence); from two or more figures (the
drop measured) the median of the whole library's curves nearest it (:data:`PRIOR_MODE_BY_FIGURES`, :data:`POINT_RULE_BY_FIGURES`: what
leave-one-out on the library prefers for each input; :func:`lab.acceptance_validation.prior_choice` reruns that choice
and the page states it with each family's spread; a copying reader always takes its group's nearest), and the spread of ``(c, d)`` pairs of the reader's family (the
copying curves for a copying family, else the pooled library, when the family has fewer than :data:`MIN_FAMILY_CURVES`
curves). The interval is not taken over that spread: it is the point's held-out residual band
(:data:`lab.acceptance_rates.RESIDUAL_QUANTILES`).

Apart from the builders (:mod:`lab.acceptance`, which call :func:`prior` and :func:`copy_ceiling`) because it is one
idea with its own evidence: it reads the library and never a reader's figures, and leave-one-out
(:mod:`lab.acceptance_validation`) judges its choices on their own. It stands on :mod:`lab.acceptance_rates` and
imports nothing of :mod:`lab.acceptance`, which re-exports every name.
"""

import contextlib
import contextvars
from functools import lru_cache
from itertools import accumulate

from .acceptance_curves import CURVES, drafter_of
from .acceptance_rates import (PLATEAU_GAIN, _solve, conditional_from_unconditional, lengths_of,  # noqa: F401 (lengths_of: doctests)
                               mean_acceptance_length, shaped_rates)
from .errors import LabValueError
from .stats import median

__all__ = ["COPYING", "BORROWS_FROM", "COPY_RISE_MAX", "MIN_FAMILY_CURVES", "library_less", "lengths_as_kept", "shape_of", "library_shape", "library_lengths", "prior",
           "prior_group", "copy_ceiling", "prior_point", "PRIOR_MODES", "PRIOR_MODE_BY_FIGURES", "POINT_RULES",
           "POINT_RULE_BY_FIGURES", "nearest_curves", "nearest_by"]

MIN_FAMILY_CURVES = 3   # a family with fewer curves in the library borrows its group's (copying) or the pooled spread
# Drafters that copy text already seen (n-gram prompt lookup, suffix decoding): once a copied span's first token is
# accepted the text is likely repeating, so their conditional rates may rise with position (docs/READING.md, "Copying
# drafters' curves may rise"). Their fits let the fall d run up to COPY_RISE_MAX (a rise; a filled-in rate stops at
# copy_ceiling, below 1, where the measured copying curves level off);
# a model drafter's errors compound, and its d stays in [0, 1]. A copying reader's prior comes from copying curves only.
COPYING = ("ngram", "suffix")
# The library families a reader's family borrows its prior from, where that is more than its own. "draft" names a
# separate draft model without saying how it drafts: token by token (a classic draft model, the library's "draft"
# curves) or a block of positions in one pass (DFlash, DSpark: "block"). Readers, and evaluations whose list of
# families has no block drafter, call a DFlash drafter a draft model; with the classic curves alone as its prior such a
# reader's one figure was predicted a median 25% high (docs/READING.md, "the block family"), so "draft" borrows from
# both kinds and "block", the precise label, from the block drafters alone.
BORROWS_FROM = {"draft": ("draft", "block")}
_DROP_MAX = 1.5     # the largest drop c _fit tries, for every family (c > 1: a second rate above the first)
COPY_RISE_MAX = _DROP_MAX   # a copying fit's largest d, c's bound: past it a rate above 2/3 meets the cap at once


def shape_of(lengths, method=None) -> tuple[float, float]:
    """A library curve's ``(c, d)`` from its lengths at k = 1..K (K >= 2): ``c = r_2 / r_1`` from the
    first two, ``d`` so that the shape meets the length at K (``d = 1`` when K = 2), d in [0, 1], or up to
    :data:`COPY_RISE_MAX` for a copying ``method`` (:data:`COPYING`: its rates may rise, capped at 1).

    >>> c, d = shape_of(lengths_of(shaped_rates(0.8, (0.9, 0.7), 6)))
    >>> round(c, 6), round(d, 6)
    (0.9, 0.7)
    >>> rising = lengths_of(shaped_rates(0.7, (1.2, 1.05), 6))
    >>> [round(x, 6) for x in shape_of(rising, "ngram")], round(shape_of(rising)[1], 6)
    ([1.2, 1.05], 1.0)
    """
    r1 = lengths[0] - 1
    if r1 <= 0:
        return 1.0, 1.0
    c = min(1.0 / r1, max(0.0, (lengths[1] - lengths[0]) / r1 / r1))
    if len(lengths) < 3:
        return c, 1.0
    k = len(lengths)
    d = _solve(lambda x: mean_acceptance_length(shaped_rates(r1, (c, x), k), k), lengths[-1], 0.0, _fall_high(method))
    return c, d


def _fall_high(method) -> float:
    """The largest fall d a fit allows for ``method``: :data:`COPY_RISE_MAX` for a copying family, else 1."""
    return COPY_RISE_MAX if method in COPYING else 1.0


def library_lengths(name: str) -> list[float]:
    """A library curve's mean acceptance lengths at k = 1..K.

    >>> library_lengths("vllm-24127-ngram")[:2]
    [1.983, 2.932]
    """
    _, kind, values, *_ = CURVES[name]
    return lengths_as_kept(kind, values)


def lengths_as_kept(kind: str, values) -> list[float]:
    """The mean acceptance lengths at k = 1..K of a curve as the library keeps one: ``kind`` "lengths", L(1..K) as
    given; "unconditional", an engine's a_1..a_K, so L(k) = 1 + a_1 + ... + a_k (12 decimals: the sums' last bits).

    >>> lengths_as_kept("unconditional", (0.8, 0.6)), lengths_as_kept("lengths", (1.8, 2.4))
    ([1.8, 2.4], [1.8, 2.4])
    """
    if kind == "lengths":
        return list(values)
    total, out = 1.0, []
    for a in values:
        total += a
        out.append(round(total, 12))
    return out


def library_less(exclude=None) -> list[str]:
    """The library's curve names less ``exclude``: one name (the curve leave-one-out predicts), a collection of names
    (a batch of curves found later, each predicted with the whole batch out), or None.

    >>> len(library_less()) - len(library_less(next(iter(CURVES)))), len(CURVES) - len(library_less(tuple(CURVES)[:3]))
    (1, 3)
    """
    gone = {exclude} if isinstance(exclude, str) else set(exclude or ())
    return [name for name in CURVES if name not in gone]


def prior(family: str | None, exclude=None, r1: float | None = None,
          figures: int = 2) -> tuple[tuple, tuple, bool]:
    """The decay prior: ``(point (c, d), spread of (c, d) pairs, the spread is the family's or its group's)``. The
    point is the drafter-weighted median over the library curves (less ``exclude``, :func:`library_less`) nearest ``r1``
    (:func:`nearest_curves`; all of them when ``r1`` is None) of the group :func:`prior_group` gives for the mode
    :data:`PRIOR_MODE_BY_FIGURES` says for a curve built from ``figures`` figures (one length, or one rate; two or
    more): a model drafter's family's curves or the whole library's; a copying family's (:data:`COPYING`) own curves,
    or the copying curves pooled, in either mode and always their nearest (the points :func:`prior_point` compares
    are alternatives for readers that borrow from other drafters); the spread is that family's or group's pairs, or
    the whole library's.

    >>> prior(None, r1=0.9, figures=1)[0] != prior(None, figures=1)[0], prior(None, r1=0.9)[0] != prior(None)[0]
    (True, True)
    >>> prior("ngram", r1=0.8)[0][1] > 1 > prior(None, r1=0.8)[0][1]   # a copying prior rises; the pooled one falls
    True
    """
    names = library_less(exclude)
    every = _library_shapes(tuple(CURVES.items()))
    shapes = {name: every[name] for name in names}
    mode = _PRIOR_MODE.get() or PRIOR_MODE_BY_FIGURES[min(figures, 2)]
    centre, group, enough = prior_group(names, family, mode)
    weights = _drafter_weights(centre)
    rule = _POINT_RULE.get() or POINT_RULE_BY_FIGURES[min(figures, 2)]
    if r1 is not None and (rule == "nearest" or family in COPYING):  # a copying reader: always nearest
        centre, weights = nearest_curves(centre, weights, r1)
    point = (_weighted_median([shapes[n][0] for n in centre], weights),
             _weighted_median([shapes[n][1] for n in centre], weights))
    return point, tuple(shapes[n] for n in group), enough


def prior_group(names, family, mode: str) -> tuple[list, list, bool]:
    """The library curves (of ``names``) a reader of ``family`` takes the prior's point from under ``mode``
    (:data:`PRIOR_MODES`) and its spread from, and whether that spread is the family's (or its copying group's)
    rather than the whole library's: ``(centre, spread, enough)``.

    A model drafter (or no family): the point from the family's curves (with those :data:`BORROWS_FROM` names: a
    draft model's include the block drafters') in "family" mode when it has
    :data:`MIN_FAMILY_CURVES`, else the whole library; the spread from the family's curves when it has enough, else
    the whole library. A copying family (:data:`COPYING`), in either mode: its own curves when it has enough, else the
    copying curves pooled when those are enough, else the whole library: a model drafter's fall is the wrong
    direction for a drafter that copies text (docs/READING.md).

    >>> names = ["vllm-24127-ngram", "vllm-24344-ngram", "vllm-35521-suffix", "vllm-48892-mtp8"]
    >>> prior_group(names, "suffix", "pooled")[0]
    ['vllm-24127-ngram', 'vllm-24344-ngram', 'vllm-35521-suffix']
    >>> prior_group(names, "mtp", "family") == (names, names, False)
    True
    >>> len(prior_group(CURVES, "draft", "family")[0]) == sum(1 for c in CURVES.values() if c[0] in ("draft", "block"))
    True
    """
    names = list(names)
    own = [name for name in names if CURVES[name][0] in BORROWS_FROM.get(family, (family,))]
    if family in COPYING:
        if len(own) < MIN_FAMILY_CURVES:
            own = [name for name in names if CURVES[name][0] in COPYING]
        return (own, own, True) if len(own) >= MIN_FAMILY_CURVES else (names, names, False)
    enough = len(own) >= MIN_FAMILY_CURVES
    return (own if enough and mode == "family" else names), (own if enough else names), enough


def copy_ceiling(names, family) -> float:
    """The most a rate the model fills in may be on a curve of ``family`` with the library curves ``names``: for a
    copying family (:data:`COPYING`), the median over the copying curves of its prior group (:func:`prior_group`; the
    copying curves of ``names`` when that group is the whole library) of each curve's highest conditional rate at a
    position from 2 on that enough drafts reach (:func:`_copy_level`): a copy can break at any token, and the measured
    copying curves level off below 1 (docs/READING.md, "A copying curve's model-filled rates stay under a ceiling").
    1 (no ceiling) for any other family, or when ``names`` hold no copying curve.

    >>> round(copy_ceiling(list(CURVES), "ngram"), 3), round(copy_ceiling(list(CURVES), "suffix"), 3)
    (0.965, 0.949)
    >>> copy_ceiling(list(CURVES), "mtp"), copy_ceiling(["vllm-48892-mtp8"], "ngram")
    (1.0, 1.0)
    """
    if family not in COPYING:
        return 1.0
    names = list(names)
    group, _, enough = prior_group(names, family, "pooled")
    if not enough:
        group = [name for name in names if CURVES[name][0] in COPYING]
    levels = [level for level in map(_copy_level, group) if level is not None]
    return median(levels) if levels else 1.0


def _copy_level(name: str) -> float | None:
    """A library curve's highest conditional rate at a position from 2 on reached by at least :data:`PLATEAU_GAIN` of
    its drafts (the share that reaches position i is the unconditional rate of position i - 1, read from the curve;
    under it the lab says few calls get that far), None when no such position was measured.

    >>> round(_copy_level("vllm-24344-ngram"), 4), round(_copy_level("vllm-35521-suffix"), 4)   # 0.68 / 0.70; 0.039 / 0.071
    (0.9714, 0.5493)
    """
    kind, values = CURVES[name][1], CURVES[name][2]
    lengths = [1.0] + library_lengths(name)
    shares = list(values) if kind == "unconditional" else [b - a for a, b in zip(lengths, lengths[1:])]
    rates, reach = conditional_from_unconditional(shares), [1.0] + shares[:-1]
    enough = [rate for i, (rate, share) in enumerate(zip(rates, reach)) if i >= 1 and share >= PLATEAU_GAIN]
    return max(enough) if enough else None


def nearest_curves(names, weights, r1: float) -> tuple[list, list]:
    """The library curves whose own first rate (``L(1) - 1``) lies nearest ``r1``, in order, until their
    weights (one vote per drafter) reach half the total: a drafter's fall goes with how good it is, and
    ``r_1`` is what a reader's one figure says of it (docs/READING.md: the choice among three candidates).

    >>> nearest_curves(["vllm-24127-ngram", "vllm-35521-suffix", "club3090-qwen3.6-27b-mtp"], [1.0, 1.0, 1.0], 0.7)[0]
    ['club3090-qwen3.6-27b-mtp', 'vllm-24127-ngram']
    """
    return nearest_by(names, weights, lambda name: abs(library_lengths(name)[0] - 1 - r1))


def nearest_by(names, weights, distance) -> tuple[list, list]:
    """The ``names`` nearest by ``distance(name)`` (ties by name), in order, until their ``weights`` reach half
    the total: the "half the drafters" rule of :func:`nearest_curves`, for any distance (leave-one-out's candidate
    rules use others, :mod:`lab.acceptance_validation`).

    >>> nearest_by(["a", "b", "c"], [1.0, 1.0, 1.0], {"a": 3, "b": 1, "c": 2}.get)
    (['b', 'c'], [1.0, 1.0])
    """
    order = sorted(range(len(names)), key=lambda i: (distance(names[i]), names[i]))
    running = accumulate(weights[i] for i in order)
    chosen = order[:next(n for n, total in enumerate(running, 1) if total >= sum(weights) / 2 - 1e-12)]
    return [names[i] for i in chosen], [weights[i] for i in chosen]


def _drafter_weights(names) -> list[float]:
    """One vote per drafter (:func:`lab.acceptance_curves.drafter_of`): each curve weighs 1 / the number of
    ``names`` that measure its drafter, so nine workloads of one drafter count as one piece of evidence.

    >>> _drafter_weights(["qwen3.5-397b-mtp", "qwen3.5-397b-mtp-thinking", "vllm-48892-mtp8"])
    [0.5, 0.5, 1.0]
    """
    groups = [drafter_of(name) for name in names]
    return [1.0 / groups.count(group) for group in groups]


def _weighted_median(values, weights) -> float:
    """The weighted median: the value where the cumulative weight, in order, first passes half the total; the
    mean of two values when it lands exactly on half (so equal weights give :func:`lab.stats.median`).

    >>> _weighted_median([1.0, 2.0, 3.0, 4.0], [1, 1, 1, 1]), _weighted_median([1.0, 2.0, 3.0], [0.5, 0.5, 2])
    (2.5, 3.0)
    """
    pairs = sorted(zip(values, weights))
    half, running = sum(weights) / 2, 0.0
    for index, (value, weight) in enumerate(pairs):
        running += weight
        if abs(running - half) <= 1e-12 * max(1.0, half) and index + 1 < len(pairs):
            return (value + pairs[index + 1][0]) / 2
        if running > half:
            return value
    return pairs[-1][0]


# Which median the prior's point is: "pooled" (over the whole library) or "family" (the reader's family's own, when
# it has MIN_FAMILY_CURVES curves). The model takes, for a curve built from one figure and for one built from two or
# more, the mode leave-one-out on the library prefers for that input, changed only when another beats it by more than
# lab.acceptance_validation.CHOICE_MARGIN (prior_choice, a test holds the rule): one figure borrows the whole shape from the prior, and there the family's own curves predict
# better; from two figures the drop is measured and only the fall is borrowed, and there the whole library's nearest
# curves do. prior_point overrides it for the comparison.
PRIOR_MODES = ("pooled", "family")
PRIOR_MODE_BY_FIGURES = {1: "family", 2: "pooled"}
_PRIOR_MODE = contextvars.ContextVar("acceptance_prior_mode", default=None)
# The median runs over the curves "nearest" the reader's r_1 or all of them ("median"), by the number of figures as
# leave-one-out prefers (the same test): from one figure the nearest; from two the whole library's median from the
# copying ceiling of December 2026 (3.03% against 3.23%) to the seventh curve search, and the nearest again since the
# eighth (5 December 2026, 58 curves: 3.43% against the median's 3.51%; docs/READING.md), where the margin now keeps
# it until another point is better by more than a quarter of a point. A copying reader's point is always its group's
# nearest.
POINT_RULES = ("nearest", "median")
POINT_RULE_BY_FIGURES = {1: "nearest", 2: "nearest"}
_POINT_RULE = contextvars.ContextVar("acceptance_point_rule", default=None)


@contextlib.contextmanager
def prior_point(mode: str | None = None, rule: str | None = None):
    """Within the block, :func:`prior`'s point is the ``mode`` median (:data:`PRIOR_MODES`; None: the model's
    choice by the number of figures, :data:`PRIOR_MODE_BY_FIGURES`) over the ``rule`` curves (:data:`POINT_RULES`;
    None: :data:`POINT_RULE_BY_FIGURES`), the choices leave-one-out compares (:mod:`lab.acceptance_validation`).

    >>> with prior_point("pooled", "median"):
    ...     prior(None, r1=0.9)[0] == prior(None)[0]
    True
    """
    if (mode is not None and mode not in PRIOR_MODES) or (rule is not None and rule not in POINT_RULES):
        raise LabValueError(f"the prior's mode and rule are one of {PRIOR_MODES}, {POINT_RULES}: got {mode!r}, {rule!r}")
    token, rule_token = _PRIOR_MODE.set(mode), _POINT_RULE.set(rule)
    try:
        yield
    finally:
        _PRIOR_MODE.reset(token)
        _POINT_RULE.reset(rule_token)


@lru_cache(maxsize=4)
def _library_shapes(items: tuple) -> dict:
    """Every library curve's ``(c, d)``, computed once per library (the items are its cache key)."""
    return {name: library_shape(library_lengths(name), entry[0]) for name, entry in items}


def library_shape(lengths, method=None) -> tuple[float, float]:
    """A library curve's ``(c, d)`` fitted to all its lengths at k = 1..K, as :func:`lab.acceptance.from_lengths` fits a
    reader's lengths (``r_1 = L(1) - 1``, least squares on relative errors), so that one noisy point,
    the last length of a reference curve measured in its own run, does not set the fall alone
    (:func:`shape_of` solves exactly through the first two lengths and the last; it is the start). A copying
    ``method`` (:data:`COPYING`) lets d rise past 1, to :data:`COPY_RISE_MAX`.

    >>> c, d = library_shape(lengths_of(shaped_rates(0.8, (0.9, 0.7), 6)))
    >>> round(c, 3), round(d, 3)
    (0.9, 0.7)
    """
    start = shape_of(lengths, method)
    if len(lengths) < 3 or lengths[0] <= 1:
        return start
    return _fit(dict(enumerate(lengths, start=1)), start, _fall_high(method))[1]


def _fit(lengths: dict, point, high: float = 1.0) -> tuple[float, tuple]:
    """``(r_1, (c, d))`` minimising ``sum_k ((L_model(k) - L(k)) / L(k))^2`` over the given lengths ``{k: L(k)}``, on
    a grid of step 0.05 (r_1 over [0, 1], or ``L(1) - 1`` when k = 1 is given; c within 0.6 of ``point``'s, in
    [0, 1.5]; d within 0.5 of it, in [0, ``high``]) refined twice, to 0.01 and then 0.002, one step of the coarser
    grid either side of its best.

    >>> r1, (c, d) = _fit(dict(enumerate(lengths_of(shaped_rates(0.8, (0.9, 0.7), 5)), start=1)), (0.9, 0.7))
    >>> round(r1, 6), round(c, 6), round(d, 6)
    (0.8, 0.9, 0.7)
    """
    ks = sorted(lengths)
    wanted = set(ks)

    def error(r1, c, d):  # one pass over the positions: the length at every k on the way
        total, survival, rate, out = 1.0, 1.0, r1, 0.0
        for k in range(1, ks[-1] + 1):
            if k == 2:
                rate = min(1.0, r1 * c)
            elif k > 2:
                rate = min(1.0, rate * d)
            survival *= rate
            total += survival
            if k in wanted:
                out += ((total - lengths[k]) / lengths[k]) ** 2
        return out

    fixed = lengths[1] - 1 if 1 in lengths else None
    best = (float("inf"), 0.5, point[0], point[1])
    spans = (0.5, 0.6, 0.5)
    centre = (best[1] if fixed is None else fixed, point[0], point[1])
    for step in (0.05, 0.01, 0.002):
        r_values = [fixed] if fixed is not None else _grid(centre[0], spans[0], step, 0.0, 1.0)
        for r1 in r_values:
            for c in _grid(centre[1], spans[1], step, 0.0, _DROP_MAX):
                for d in _grid(centre[2], spans[2], step, 0.0, high):
                    e = error(r1, c, d)
                    if e < best[0]:
                        best = (e, r1, c, d)
        centre = best[1:]
        spans = (step,) * 3  # the next, finer grid spans one step of this one either side
    return best[1], (best[2], best[3])


def _grid(centre: float, span: float, step: float, low: float, high: float) -> list[float]:
    """The points ``centre + i step`` within ``span`` of ``centre``, clipped to [low, high] and rounded to 6 decimals
    (so a float's drift makes no second point), sorted and each once.

    >>> _grid(0.98, 0.04, 0.02, 0.0, 1.0)
    [0.94, 0.96, 0.98, 1.0]
    """
    n = int(round(span / step))
    return sorted({min(high, max(low, round(centre + i * step, 6))) for i in range(-n, n + 1)})
