"""The acceptance model judged on its own library, and the page's text from it: every library curve left out
in turn and predicted at its largest k from k = 1 (or k = 1..2) beside i.i.d. (:func:`leave_one_out`), the interval's
residual quantiles recomputed (:func:`residual_quantiles`) and how often the interval held (:func:`held_out_intervals`,
each curve's own residual left out), the prior's point that leave-one-out chooses (:func:`prior_choice`), the page's held-out table (:func:`held_out_html`) and the
numbers the acceptance paragraphs quote (:func:`page_facts`). Kept apart from :mod:`lab.acceptance`, the model, as
:mod:`lab.serving_validation` is from the serving model: nothing here changes a prediction.

>>> row = predict_from_lengths("glm-5.2-mtp-thinking", 1)
>>> row["lookahead"] == len(library_lengths("glm-5.2-mtp-thinking")), row["interval"][0] <= row["predicted"]
(True, True)
"""

import math

from .acceptance import (COPYING, FAMILIES, FAMILY_NAMES, INTERVAL_PERCENTILES, MIN_FAMILY_CURVES, POINT_RULE_BY_FIGURES,
                         PRIOR_MODE_BY_FIGURES, RESIDUAL_QUANTILES,
                         SECOND_WEIGHT, Curve, _drafter_weights, _library_shapes, _solve, _weighted_median,
                         conditional_from_unconditional, copy_ceiling, from_conditional, from_lengths, iid, iid_alpha,
                         library_lengths, mean_acceptance_length, nearest_by, plateau_start, prior_group, prior_point,
                         residual_interval, shape_of)
from .acceptance_curves import CURVES, drafter_of
from .acceptance_prior import lengths_as_kept
from .acceptance_table import family_spread, held_out_table_html, signed as _signed
from .stats import median, percentile

__all__ = ["predict_from_lengths", "predict_unseen", "leave_one_out", "residual_quantiles", "held_out_intervals", "coverage_by_reach",
           "PRIOR_CHOICES", "CHOICE_MARGIN", "kept_choice", "prior_choice",
           "NESTED_OPTIONS", "CANDIDATES", "KIND_CANDIDATES", "nested_leave_one_out", "kind_judgment",
           "start_alike_end_apart", "interval_note", "choice_note", "copying_note", "by_measurement", "measurement_note", "FOUND_LATER", "FOUND_LATER_LATEST_KIND", "found_later", "found_later_note", "CONFUSED", "label_cost", "label_note",
           "held_out_html", "page_facts"]


def predict_from_lengths(name: str, known: int) -> dict:
    """Leave library curve ``name`` out, build its curve from its lengths at k = 1..known (an engine's
    curve: from its per-position rates at positions 1..known), with the rest of the library as prior, and predict
    its length at its largest k; i.i.d. from the same figure (its alpha solved at k = known) beside it. Signed errors;
    ``residual``, ``ln(measured / predicted)``, and ``reach``, the positions predicted past the measured ones
    (:data:`lab.acceptance.RESIDUAL_QUANTILES` are their ratio's percentiles); ``interval``, the model's own (its
    frozen quantiles, which saw this curve); ``atMeasured``, the curve's length at its last measured position."""
    family, kind, values, *_ = CURVES[name]
    return {"name": name, **predict_unseen(family, kind, values, known, exclude=name)}


def predict_unseen(family: str, kind: str, values, known: int, exclude: str | tuple | None = None) -> dict:
    """A curve given as the library keeps one (``kind`` "lengths": L(1..K); "unconditional": a_1..a_K, so
    L(k) = 1 + a_1 + ... + a_k), predicted at its largest k K from its first ``known`` figures with the library
    (less ``exclude``) as prior: :func:`predict_from_lengths`'s arithmetic for a curve the library does not hold,
    so a curve found later is judged out of sample by the same code leave-one-out uses.

    >>> row = predict_unseen("block", "unconditional", (0.8, 0.6, 0.45, 0.33, 0.24), 1)
    >>> row["lookahead"], round(row["measured"], 2), abs(row["error"]) < abs(row["iidError"])
    (5, 3.42, True)
    """
    lengths = lengths_as_kept(kind, values)
    top = len(lengths)
    if kind == "unconditional":  # an engine's per-position rates, given as a reader would give them
        curve = from_conditional(conditional_from_unconditional(values[:known]), family, exclude=exclude)
    else:
        curve = from_lengths({k: lengths[k - 1] for k in range(1, known + 1)}, family, exclude=exclude)
    predicted = curve.length(top)
    alpha = iid_alpha(lengths[known - 1], known)
    iid_predicted = iid(alpha).length(top)
    low, high = curve.interval(top)
    return {"family": family, "lookahead": top, "measured": lengths[-1], "predicted": predicted,
            "interval": [low, high], "error": predicted / lengths[-1] - 1, "iid": iid_predicted,
            "iidError": iid_predicted / lengths[-1] - 1, "residual": math.log(lengths[-1] / predicted),
            "reach": top - curve.measuredAt, "atMeasured": curve.length(curve.measuredAt)}


def leave_one_out(known: int = 1, mode: str | None = None, rule: str | None = None) -> dict:
    """Every library curve left out in turn, predicted at its largest k from k = 1..known:
    the rows, the median absolute error of the model and of i.i.d., how many curves the model
    predicts better than i.i.d., which families have too few curves to trust, and each family's
    spread (``byFamily``: curves, median absolute error). ``mode``, ``rule``: the prior's point (:func:`lab.acceptance.prior_point`;
    the default is the model's). Each row's ``heldOutInterval`` and ``covered``, and the count ``covered``: the
    interval made without the held-out curve's own residual (:func:`held_out_intervals`), and whether it held the
    measured length; ``coveredInSample``: how many the model's own intervals (frozen quantiles) held."""
    with prior_point(mode, rule):
        rows = [predict_from_lengths(name, known) for name in CURVES]
    for row, interval in zip(rows, held_out_intervals(rows)):
        row["heldOutInterval"] = list(interval)
        row["covered"] = interval[0] <= row["measured"] <= interval[1]
    by_family = {}
    for row in rows:
        by_family.setdefault(row["family"], []).append(abs(row["error"]))
    counts = {family: sum(1 for c in CURVES.values() if c[0] == family) for family in FAMILIES}
    return {"known": known, "rows": rows,
            "medianError": median([abs(r["error"]) for r in rows]),
            "medianIidError": median([abs(r["iidError"]) for r in rows]),
            "better": sum(1 for r in rows if abs(r["error"]) < abs(r["iidError"])),
            "covered": sum(1 for r in rows if r["covered"]),
            "coveredInSample": sum(1 for r in rows if r["interval"][0] <= r["measured"] <= r["interval"][1]),
            "familyCounts": counts,
            "byFamily": {family: {"curves": len(errors), "medianError": median(errors)}
                         for family, errors in by_family.items()},
            "tooFew": [family for family in FAMILIES if counts[family] < MIN_FAMILY_CURVES]}


def _quantiles(rows) -> tuple[float, float]:
    """The :data:`lab.acceptance.INTERVAL_PERCENTILES` (nearest rank) of the rows' residuals per position reached."""
    scaled = [row["residual"] / row["reach"] for row in rows if row["reach"] > 0]
    return tuple(percentile(scaled, fraction) for fraction in INTERVAL_PERCENTILES)


def residual_quantiles(one: dict | None = None, two: dict | None = None) -> dict:
    """The interval's quantiles recomputed from the library (``one``, ``two``: :func:`leave_one_out` from k = 1 and
    k = 1..2, computed when not given): ``{1: (low, high), 2: (low, high)}``, the 10th and 90th percentiles of each
    held-out curve's ``ln(measured / predicted) / (K - m)``; :data:`lab.acceptance.RESIDUAL_QUANTILES` holds them to
    6 decimals (a test recomputes them; tools/refresh_interval_quantiles.py rewrites them).

    >>> found = residual_quantiles()
    >>> {figures: tuple(round(q, 6) for q in pair) for figures, pair in found.items()} == RESIDUAL_QUANTILES
    True
    """
    one, two = one or leave_one_out(1), two or leave_one_out(2)
    return {1: _quantiles(one["rows"]), 2: _quantiles(two["rows"])}


def held_out_intervals(rows) -> list[tuple[float, float]]:
    """Each row's interval at its largest k made as :meth:`lab.acceptance.Curve.interval` makes it
    (:func:`lab.acceptance.residual_interval`), but with quantiles from the other rows' residuals alone: the curve
    predicted is in neither the prior nor the quantiles of its own interval (nested leave-one-out)."""
    return [residual_interval(row["predicted"], row["reach"], _quantiles(rows[:index] + rows[index + 1:]),
                              row["atMeasured"], row["lookahead"] + 1) for index, row in enumerate(rows)]


def coverage_by_reach(result: dict) -> dict:
    """How often the held-out interval held (:func:`leave_one_out`'s ``result``), split at the median reach (positions
    predicted past the measured ones): ``{"short": (held, curves), "long": (held, curves), "median": reach}``, short
    below the median, long at or above it (most curves end at k = 8, so the median is shared by many).

    >>> split = coverage_by_reach(leave_one_out(2))
    >>> split["short"][1] + split["long"][1] == len(CURVES)
    True
    """
    middle = median([row["reach"] for row in result["rows"]])

    def held(rows):
        return sum(1 for row in rows if row["covered"]), len(rows)

    return {"short": held([row for row in result["rows"] if row["reach"] < middle]),
            "long": held([row for row in result["rows"] if row["reach"] >= middle]), "median": middle}


# The prior's points leave-one-out chooses among (mode, rule): the nearest curves over the whole library, the nearest
# of the reader's family, the whole library's median (the first model's).
PRIOR_CHOICES = {"pooled": ("pooled", "nearest"), "family": ("family", "nearest"), "library": ("pooled", "median")}
# How much better (in median error, a fraction) another point must predict before the model's point changes to it.
# Each library change moved the medians by up to half a point (one curve moves the median a rank), and the two-figure
# choice flipped three times by margins under 0.1 point (docs/READING.md, "The prior's choice, kept unless beaten by a
# margin"): a choice that follows noise changes every pinned number for nothing. A quarter of a point is half the
# largest move one curve made, fixed on 5 December 2026 before the next library change.
CHOICE_MARGIN = 0.0025


def prior_choice() -> dict:
    """The prior's point chosen by leave-one-out on the library, for each input apart: the median error from k = 1
    (one figure) and from k = 1..2 (two) under each of :data:`PRIOR_CHOICES`; for each input the choice with the
    smaller error (``best``) and the choice the rule makes (``chosen``: the model's own point unless ``best`` beats it
    by more than :data:`CHOICE_MARGIN`; ``{1: choice, 2: choice}``; the model's
    :data:`lab.acceptance.PRIOR_MODE_BY_FIGURES` follows it, a test holds it). ``nested``: the same choice made
    again inside each fold, without the curve it is judged on (:func:`nested_leave_one_out`): ``{figures: (median
    error, folds choosing the model's point, folds)}``."""
    errors = {choice: (leave_one_out(1, *how)["medianError"], leave_one_out(2, *how)["medianError"])
              for choice, how in PRIOR_CHOICES.items()}
    models = {figures: model_choice(figures) for figures in (1, 2)}
    nested = {}
    for figures, model in models.items():
        found = nested_leave_one_out(figures, (model,) + tuple(c for c in PRIOR_CHOICES if c != model), CHOICE_MARGIN)
        nested[figures] = (found["medianError"], list(found["chosen"].values()).count(model), len(found["chosen"]))
    best = {figures: min(PRIOR_CHOICES, key=lambda choice: errors[choice][figures - 1]) for figures in (1, 2)}
    return {"errors": errors, "nested": nested, "best": best,
            "chosen": {figures: kept_choice(model, best[figures],
                                            {choice: pair[figures - 1] for choice, pair in errors.items()})
                       for figures, model in models.items()}}


def kept_choice(model: str, best: str, errors: dict, margin: float = CHOICE_MARGIN) -> str:
    """The rule for changing the prior's point: keep the ``model``'s own unless the ``best`` point's median error
    is below it by more than ``margin`` (:data:`CHOICE_MARGIN`).

    >>> kept_choice("pooled", "library", {"pooled": 0.0343, "library": 0.0330}), kept_choice("pooled", "library",
    ...     {"pooled": 0.0343, "library": 0.0310})
    ('pooled', 'library')
    """
    return best if errors[model] - errors[best] > margin else model


# --- nested leave-one-out: a choice among rules made without the curve it is judged on ---------------
# The options a choice runs over: the prior's point (mode, which curves, the drop's weight) for one figure (k = 1) and
# two (k = 1..2). "family", "pooled" and "library" are PRIOR_CHOICES' three points; the rest are the four
# candidates, written down before any was evaluated (docs/READING.md): "kinds" (d: one figure, the family's nearest
# curves with engine logs and reference curves carrying equal weight), "joint" (a: nearest in (r_1, c) over the
# whole library), "drop-0.75" and "drop-1.0" (b: the measured length drop weighted 0.75 or 1 instead of
# SECOND_WEIGHT), "fall" (c: nearest in c alone). None of the four is the model's: nested leave-one-out kept today's
# (docs/READING.md, 4 December 2026). "same-kind" (the model's two-figure point from curves measured as the reader's
# input was) was judged apart, once, by its own written rule (KIND_CANDIDATES, kind_judgment; 5 December 2026): not
# adopted.
NESTED_OPTIONS = {"family": ("family", "r1", SECOND_WEIGHT), "pooled": ("pooled", "r1", SECOND_WEIGHT),
                  "library": ("pooled", "all", SECOND_WEIGHT), "kinds": ("family", "r1-kinds", SECOND_WEIGHT),
                  "joint": ("pooled", "r1-c", SECOND_WEIGHT), "drop-0.75": ("pooled", "r1", 0.75),
                  "drop-1.0": ("pooled", "r1", 1.0), "fall": ("pooled", "c", SECOND_WEIGHT),
                  "same-kind": ("pooled", "r1", SECOND_WEIGHT)}
# The candidates' judgment: for each input, the model's option first (ties go to it), then the candidates for that input.
CANDIDATES = {1: ("kinds",), 2: ("joint", "drop-0.75", "drop-1.0", "fall")}
# "same-kind" (docs/READING.md, "a prior from curves measured as the reader's were", written before it was run): the
# model's two-figure point, its curves cut to those measured as the reader's input was (two or more lengths: the
# reference curves, CURVES[name][1] == "lengths"; rates or a trace: the engine curves, "unconditional"), unless fewer
# than MIN_KIND_CURVES of that kind are in the reader's group (then the group whole). From one figure it is not a
# candidate (one figure carries no kind). Judged once, apart from CANDIDATES' run: :func:`kind_judgment`.
KIND_OPTIONS = ("same-kind",)
KIND_CANDIDATES = {2: ("same-kind",)}
MIN_KIND_CURVES = 10


def model_choice(figures: int) -> str:
    """The :data:`PRIOR_CHOICES` name of the model's own prior point for ``figures`` figures
    (:data:`lab.acceptance.PRIOR_MODE_BY_FIGURES`, :data:`lab.acceptance.POINT_RULE_BY_FIGURES`); the same name in
    :data:`NESTED_OPTIONS`, whose drop weight is :data:`lab.acceptance.SECOND_WEIGHT`.

    >>> model_choice(1), model_choice(2)
    ('family', 'pooled')
    """
    figures = min(figures, 2)
    how = (PRIOR_MODE_BY_FIGURES[figures], POINT_RULE_BY_FIGURES[figures])
    return next(name for name, point in PRIOR_CHOICES.items() if point == how)


def _option_point(option: str, pool, family, r1: float, c: float | None, kind: str | None = None) -> tuple:
    """The prior's point ``(c, d)`` under ``option`` from the library curves ``pool``, for a reader's ``r1`` (and
    measured drop ``c`` with two figures): the drafter-weighted median over the nearest curves (half the weight).
    ``kind``: how the reader's input was measured (:data:`KIND_OPTIONS` cut the group to it, :func:`_same_kind`)."""
    mode, rule, _ = NESTED_OPTIONS[option]
    if family in COPYING:  # a copying reader's point is its group's nearest in r_1 under every option (lab.acceptance.prior)
        rule = "r1"
    shapes = _library_shapes(tuple(CURVES.items()))
    centre = prior_group(pool, family, mode)[0]  # the group lab.acceptance.prior takes its point from
    if option in KIND_OPTIONS:
        centre = _same_kind(centre, kind)
    weights = _drafter_weights(centre)
    if rule == "r1-kinds" and len({CURVES[name][1] for name in centre}) == 2:
        total = sum(weights)
        per_kind = {}
        for name, weight in zip(centre, weights):
            per_kind[CURVES[name][1]] = per_kind.get(CURVES[name][1], 0.0) + weight
        weights = [weight * total / 2 / per_kind[CURVES[name][1]] for name, weight in zip(centre, weights)]
    first = {name: library_lengths(name)[0] - 1 for name in centre}
    drop = {name: shape_of(library_lengths(name)[:2])[0] for name in centre}  # c as a reader's two figures give it

    def spread(values):
        middle = median(values)
        return median([abs(v - middle) for v in values]) or 1.0

    if rule == "r1-c":
        scale_r, scale_c = spread(list(first.values())), spread(list(drop.values()))
        distance = {n: ((first[n] - r1) / scale_r) ** 2 + ((drop[n] - c) / scale_c) ** 2 for n in centre}
    elif rule == "c":
        distance = {n: abs(drop[n] - c) for n in centre}
    else:
        distance = {n: abs(first[n] - r1) for n in centre}
    chosen, chosen_weights = (centre, weights) if rule == "all" else nearest_by(centre, weights, distance.get)
    return (_weighted_median([shapes[name][0] for name in chosen], chosen_weights),
            _weighted_median([shapes[name][1] for name in chosen], chosen_weights))


def _same_kind(group, kind: str) -> list:
    """The curves of ``group`` measured as ``kind`` (:data:`lab.acceptance_curves.CURVES`' second field), or
    ``group`` whole when fewer than :data:`MIN_KIND_CURVES` of them are (a copying reader's 4 curves, all engine curves).

    >>> len(_same_kind(list(CURVES), "lengths")) == sum(1 for c in CURVES.values() if c[1] == "lengths")
    True
    >>> _same_kind(["vllm-24127-ngram", "vllm-24344-ngram"], "lengths")
    ['vllm-24127-ngram', 'vllm-24344-ngram']
    """
    own = [name for name in group if CURVES[name][1] == kind]
    return own if len(own) >= MIN_KIND_CURVES else list(group)


def _option_error(name: str, known: int, option: str, pool) -> float:
    """Library curve ``name``'s signed error at its largest k, predicted from k = 1..``known`` under ``option`` with
    the curves ``pool`` as the library: :func:`predict_from_lengths`'s arithmetic (a test holds the two equal for
    the model's options), with the point and the drop's weight given."""
    lengths = library_lengths(name)
    family, kind, values, *_ = CURVES[name]
    r1 = lengths[0] - 1
    ceiling = copy_ceiling(pool, family)  # a copying curve's filled-in rates: the pool's ceiling (lab.acceptance)
    if known == 1:  # one figure at k = 1: r_1 itself (a length's solved as from_single solves it), the prior's shape
        r1 = (_solve(lambda x: mean_acceptance_length([x], 1), lengths[0], 0.0, 1.0) if kind == "lengths"
              else conditional_from_unconditional(values[:1])[0])
        point = _option_point(option, pool, family, r1, None, kind)
        return Curve((r1,), point, "nested", ceiling=ceiling).length(len(lengths)) / lengths[-1] - 1
    if kind == "unconditional":  # one run's rates: the drop as measured, the fall the prior's
        r1, r2 = conditional_from_unconditional(values[:2])
        c = r2 / r1 if r1 > 0 else 1.0
        curve = Curve((r1, r2), (c, _option_point(option, pool, family, r1, c, kind)[1]), "nested", ceiling=ceiling)
    else:  # two lengths: the drop weighted against the prior's, the tail continued from r_1 c
        r2 = min(1.0, (lengths[1] - lengths[0]) / r1) if r1 > 0 else 0.0
        measured = r2 / r1 if r1 > 0 else 1.0
        point = _option_point(option, pool, family, r1, measured, kind)
        weight = NESTED_OPTIONS[option][2]
        c = weight * measured + (1 - weight) * point[0]
        curve = Curve((r1, r2), (c, point[1]), "nested", anchor=min(1.0, r1 * c), ceiling=ceiling)
    return curve.length(len(lengths)) / lengths[-1] - 1


def nested_leave_one_out(known: int = 1, options=None, margin: float = 0.0) -> dict:
    """Leave-one-out of a choice among prior points (:data:`NESTED_OPTIONS`; default the model's option, then
    the candidates of :data:`CANDIDATES` for the input): for each held-out curve, every option's plain leave-one-out on
    the other curves alone (each predicted from the rest, the held-out one never seen) picks the option with the
    smallest median |error| (ties to the first, and the first kept unless beaten by more than ``margin``: the rule of
    :func:`kept_choice`), which then predicts the held-out curve. ``plain``: each option's
    ordinary leave-one-out (``medianError``, ``better``: closer than i.i.d.); ``medianError``, ``better`` and
    ``chosen`` (option by curve) of the nested one; i.i.d.'s median beside them.

    >>> result = nested_leave_one_out(2, ("pooled", "library"))
    >>> result["medianError"] < result["medianIidError"], sorted(set(result["chosen"].values())) <= ["library", "pooled"]
    (True, True)
    """
    options = tuple(options or ((model_choice(known),) + CANDIDATES[known]))
    names = list(CURVES)
    iid_errors = {name: iid(iid_alpha(library_lengths(name)[known - 1], known)).length(len(library_lengths(name)))
                  / library_lengths(name)[-1] - 1 for name in names}
    plain = {option: {name: _option_error(name, known, option, [n for n in names if n != name]) for name in names}
             for option in options}
    chosen, errors = {}, {}
    for held in names:
        inner = [name for name in names if name != held]
        score = {option: median([abs(_option_error(name, known, option, [n for n in inner if n != name]))
                                 for name in inner]) for option in options}
        best = min(options, key=lambda option: (score[option], options.index(option)))
        chosen[held] = kept_choice(options[0], best, score, margin)
        errors[held] = plain[chosen[held]][held]

    def closer(found):
        return sum(1 for name in names if abs(found[name]) < abs(iid_errors[name]))

    return {"known": known, "options": options, "chosen": chosen, "errors": errors,
            "medianError": median([abs(e) for e in errors.values()]), "better": closer(errors),
            "medianIidError": median([abs(e) for e in iid_errors.values()]),
            "plain": {option: {"medianError": median([abs(e) for e in found.values()]), "better": closer(found),
                               "errors": found}
                      for option, found in plain.items()}}


def kind_judgment() -> dict:
    """The one judgment of the "same-kind" prior (:data:`KIND_CANDIDATES`), by the rule written before it was run
    (docs/READING.md, "a prior from curves measured as the reader's were"): nested leave-one-out from k = 1..2, the
    model's option first and the candidate second, margin :data:`CHOICE_MARGIN`. Adopt only if (1) the nested median
    |error| is below the model's plain one by more than the margin, (2) it is closer than i.i.d. on no fewer curves,
    and (3) on neither kind of curve apart is its median |error| above the model's by more than the margin.
    ``byKind``: ``{kind: {"curves", "nested", "model", "candidate"}}`` (median |error|: nested, the model's plain, the
    candidate's plain) and ``above`` (nested, model: curves predicted above the measurement); ``folds``: folds choosing
    the candidate."""
    model = model_choice(2)
    found = nested_leave_one_out(2, (model,) + KIND_CANDIDATES[2], CHOICE_MARGIN)
    plain, candidate = found["plain"][model], found["plain"][KIND_CANDIDATES[2][0]]
    by_kind = {}
    for kind in _MEASURED_AS:
        names = [name for name in CURVES if CURVES[name][1] == kind]
        by_kind[kind] = {"curves": len(names), "nested": median([abs(found["errors"][n]) for n in names]),
                         "model": median([abs(plain["errors"][n]) for n in names]),
                         "candidate": median([abs(candidate["errors"][n]) for n in names]),
                         "above": (sum(1 for n in names if found["errors"][n] > 0),
                                   sum(1 for n in names if plain["errors"][n] > 0))}
    rules = (plain["medianError"] - found["medianError"] > CHOICE_MARGIN, found["better"] >= plain["better"],
             all(entry["nested"] - entry["model"] <= CHOICE_MARGIN for entry in by_kind.values()))
    return {"medianError": found["medianError"], "better": found["better"], "model": plain["medianError"],
            "modelBetter": plain["better"], "candidate": candidate["medianError"],
            "candidateBetter": candidate["better"], "medianIidError": found["medianIidError"],
            "folds": sum(1 for option in found["chosen"].values() if option != model), "curves": len(found["chosen"]),
            "byKind": by_kind, "rules": rules, "adopt": all(rules)}


def start_alike_end_apart(window: float = 0.02, k: int = 8) -> dict:
    """Why one figure at k = 1 cannot say more: the two library curves of different drafters whose lengths at
    k = 1 lie within ``window`` of each other and whose lengths at ``k`` lie furthest apart (as a ratio). Any rule
    that predicts from the k = 1 figure alone gives them (nearly) one prediction ``P``, and the best single ``P``
    (``2 lo hi / (lo + hi)``) still misses each by ``floor = (hi - lo) / (hi + lo)``: a floor on that rule's error
    set by the drafters, not by the model.

    >>> pair = start_alike_end_apart()
    >>> abs(pair["lengthsAt1"][0] - pair["lengthsAt1"][1]) <= 0.02, pair["floor"] > 0.2
    (True, True)
    """
    lengths = {name: library_lengths(name) for name in CURVES}
    names = [name for name in CURVES if len(lengths[name]) >= k]
    best = None
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if drafter_of(a) == drafter_of(b) or abs(lengths[a][0] - lengths[b][0]) > window + 1e-9:
                continue
            low_name, high_name = sorted((a, b), key=lambda name: (lengths[name][k - 1], name))
            low, high = lengths[low_name][k - 1], lengths[high_name][k - 1]
            floor = (high - low) / (high + low)
            if best is None or floor > best["floor"]:
                best = {"names": (low_name, high_name), "lengthsAt1": (lengths[low_name][0], lengths[high_name][0]),
                        "lengthsAtK": (low, high), "k": k, "floor": floor}
    return best


# --- the page's held-out table: one function, used by the build ----------------

_CHOICE_NAMES = {"pooled": "the nearest curves over the whole library", "library": "all the library's curves",
                 "family": "the nearest curves of the reader's family"}


def choice_note(choice: dict) -> str:
    """The page's sentence on the prior's point, from :func:`prior_choice`'s result: for one figure and for two, the
    model's point (:data:`lab.acceptance.PRIOR_MODE_BY_FIGURES`), which choice leave-one-out prefers (saying so where
    the two differ) and every choice's median error.

    >>> note = choice_note({"errors": {"pooled": (0.08, 0.03), "family": (0.07, 0.05), "library": (0.09, 0.04)},
    ...                     "chosen": {1: "family", 2: "pooled"}, "nested": {1: (0.07, 41, 41), 2: (0.03, 39, 41)}})
    >>> note.startswith("From one figure the prior's drop and fall are the median of the nearest curves of the reader's")
    True
    >>> note.split("(nested,")[1]
    " the same margin), the choice is the model's in 41 of the 41 folds from k = 1 and in 39 from k = 1..2, and the median errors are 7.0% from k = 1 and 3.0% from k = 1..2."
    >>> close = choice_note({"errors": {"pooled": (0.08, 0.034), "family": (0.07, 0.042), "library": (0.09, 0.035)},
    ...                      "chosen": {1: "family", 2: "pooled"}, "nested": {1: (0.07, 41, 41), 2: (0.03, 12, 41)}})
    >>> close.split("k = 1..2 a close call ")[1].split(")")[0]
    "(3.4% with the nearest curves over the whole library against 3.5% with all the library's curves"
    >>> "the model has not followed" in choice_note({"errors": {"pooled": (0.08, 0.03), "family": (0.07, 0.05),
    ...     "library": (0.09, 0.04)}, "chosen": {1: "family", 2: "library"}, "nested": {1: (0.07, 41, 41), 2: (0.03, 9, 41)}})
    True
    """
    errors, chosen, nested = choice["errors"], choice["chosen"], choice["nested"]
    best = choice.get("best", chosen)

    def against(index: int) -> str:
        first, *rest = sorted(PRIOR_CHOICES, key=lambda name: (name != best[index + 1], name))
        return (f"{100 * errors[first][index]:.1f}% with {_CHOICE_NAMES[first]}, against "
                + " and ".join(f"{100 * errors[name][index]:.1f}% with {_CHOICE_NAMES[name]}" for name in rest))

    model = {figures: model_choice(figures) for figures in (1, 2)}  # the model's points
    head = (f"From one figure the prior's drop and fall are the median of {_CHOICE_NAMES[model[1]]} (those whose first "
            f"rate lies nearest the reader's, until they hold half the drafters, one vote each), from two or more of "
            f"{_CHOICE_NAMES[model[2]]}")
    if best == model:
        head += (f", because leaving each curve out prefers each for its input. Median error from k = 1: {against(0)}; "
                 f"from k = 1..2: {against(1)}.")
    elif chosen == model:   # a point better by less than the margin: kept, and said
        head += (f". Leaving each curve out prefers {_CHOICE_NAMES[best[1]]} from one figure and "
                 f"{_CHOICE_NAMES[best[2]]} from two, by less than the {100 * CHOICE_MARGIN:.2f} point a change needs "
                 f"(a closer margin follows the library's noise). Median error from k = 1: {against(0)}; from k = 1..2: "
                 f"{against(1)}.")
    else:  # the comparison and the model differ: said, not hidden (docs/READING.md, the copying ceiling's run)
        head += (f". Leaving each curve out prefers {_CHOICE_NAMES[chosen[1]]} from one figure and "
                 f"{_CHOICE_NAMES[chosen[2]]} from two. Median error from k = 1: {against(0)}; from k = 1..2: "
                 f"{against(1)}. Where that differs from the model's point, the model has not followed: a choice about "
                 "the model drafters' prior, left open.")
    inputs = {1: "k = 1", 2: "k = 1..2"}
    close = "".join(  # a choice most folds make otherwise is a close call: said, with the two nearest medians
        f"; from {inputs[figures]} a close call ({100 * errors[a][figures - 1]:.1f}% with {_CHOICE_NAMES[a]} against "
        f"{100 * errors[b][figures - 1]:.1f}% with {_CHOICE_NAMES[b]})"
        for figures in (1, 2) if 2 * nested[figures][1] < nested[figures][2]
        for a, b in [sorted(PRIOR_CHOICES, key=lambda name: (errors[name][figures - 1], name))[:2]])
    return (head + f" Made again inside each fold on the other curves' own leave-one-out alone (nested, the same "
            f"margin), the choice is the model's in {nested[1][1]} of the {nested[1][2]} folds from k = 1 and in {nested[2][1]} from "
            f"k = 1..2{close}, and the median errors are {100 * nested[1][0]:.1f}% from k = 1 and "
            f"{100 * nested[2][0]:.1f}% from k = 1..2.")


def interval_note(one: dict, two: dict) -> str:
    """What the interval is and how often it held, from leave-one-out from k = 1 (``one``) and k = 1..2 (``two``):
    the point times the model's held-out errors per extrapolated position (:data:`lab.acceptance.RESIDUAL_QUANTILES`,
    their 10th and 90th percentiles: an 80% interval by construction), and how many held-out lengths its nested form
    (:func:`held_out_intervals`) held beside the nominal count, said as it is when they differ.

    >>> interval_note({"covered": 24, "rows": [0] * 36}, {"covered": 29, "rows": [0] * 36}).split("it held ")[1]
    'the measured length on 24 of 36 (67%) from k = 1 and 29 of 36 (81%) from k = 1..2, where a calibrated 80% would hold 29.'
    """
    low, high = INTERVAL_PERCENTILES
    nominal = high - low

    def per_position(figures: int) -> str:
        q_low, q_high = RESIDUAL_QUANTILES[figures]
        return f"{_signed(math.exp(q_low) - 1)} to {_signed(math.exp(q_high) - 1)}"

    curves = len(one["rows"])
    return (f"The interval is an {100 * nominal:.0f}% band from the model's own misses: each library curve left out "
            f"and predicted at its largest k, its error (measured over predicted length, in logs) per position predicted "
            f"past the measured ones; the band runs from the {100 * low:.0f}th to the {100 * high:.0f}th percentile of "
            f"those errors, {per_position(1)} a position from one figure and {per_position(2)} from two or more "
            f"figures or per-position rates, compounded over the positions a lookahead reaches past the measured ones "
            f"(none at a measured k). Each curve left out, its own error left out of the percentiles too, it held the "
            f"measured length on {one['covered']} of {curves} ({100 * one['covered'] / curves:.0f}%) from k = 1 and "
            f"{two['covered']} of {len(two['rows'])} ({100 * two['covered'] / len(two['rows']):.0f}%) from k = 1..2, "
            f"where a calibrated {100 * nominal:.0f}% would hold {round(nominal * curves)}.")


def copying_note(counts: dict, too_few) -> str:
    """What the families with too few curves borrow (``counts``: curves per family; ``too_few``: those under
    :data:`lab.acceptance.MIN_FAMILY_CURVES`): drafters that copy text take their prior from each other's curves only
    (:func:`lab.acceptance.prior_group`), and how few those are; any other family the pooled library.

    >>> note = copying_note({"draft": 20, "ngram": 3, "suffix": 1}, ["suffix"])
    >>> note.startswith("Drafters that copy text (n-gram / prompt lookup, suffix decoding)"), "4 such curves from 3" in note
    (True, True)
    """
    copying = sum(counts.get(family, 0) for family in COPYING)
    drafters = len({drafter_of(name) for name, entry in CURVES.items() if entry[0] in COPYING})
    text = (f"Drafters that copy text ({', '.join(FAMILY_NAMES[f] for f in COPYING)}) take their prior from each "
            "other's curves only: their conditional rates rise with position where a model drafter's fall (a copy "
            "whose first token held is likely text repeating), so the shape may rise, toward a ceiling below 1 (the level "
            "their own measured rates reach: a copy can break at any token), and a curve left "
            f"out is predicted from the other copying curves. The library holds {copying} such curves from {drafters} "
            "drafters, too few to claim much from their errors.")
    others = [f for f in too_few if f not in COPYING]
    if others:
        text += f" {', '.join(FAMILY_NAMES[f] for f in others)}: predicted from the pooled library."
    return text


_MEASURED_AS = {"lengths": "reference curves (a mean acceptance length measured in its own run at each k)",
                "unconditional": "engine curves (per-position rates from one run at the largest k)"}


def by_measurement(one: dict, two: dict) -> dict:
    """Leave-one-out's signed errors split by how each curve was measured (``one``, ``two``: :func:`leave_one_out`
    from k = 1 and from k = 1..2): for each kind of :data:`lab.acceptance_curves.CURVES` (``lengths``, reference
    curves; ``unconditional``, engine curves), the number of curves and, from each input, the median signed error
    and how many the model predicts above the measurement.

    >>> split = by_measurement(leave_one_out(1), leave_one_out(2))
    >>> split["lengths"]["curves"] + split["unconditional"]["curves"] == len(CURVES)
    True
    """
    out = {}
    for kind in _MEASURED_AS:
        entry = {"curves": 0}
        for known, result in ((1, one), (2, two)):
            errors = [row["error"] for row in result["rows"] if CURVES[row["name"]][1] == kind]
            entry["curves"] = len(errors)
            entry[known] = {"median": median(errors), "above": sum(1 for e in errors if e > 0)}
        out[kind] = entry
    return out


def measurement_note(split: dict) -> str:
    """The page's sentence on :func:`by_measurement`: the model's errors by how the held-out curve was measured,
    signed, so a reader knows which way to lean with a figure of either kind.

    >>> note = measurement_note({"lengths": {"curves": 20, 1: {"median": 0.1, "above": 17}, 2: {"median": 0.07, "above": 16}},
    ...                          "unconditional": {"curves": 30, 1: {"median": -0.04, "above": 11},
    ...                                            2: {"median": -0.005, "above": 12}}})
    >>> note.split(": ")[1].split(";")[0]
    'the 20 reference curves (a mean acceptance length measured in its own run at each k) are predicted high, median +10.0% from k = 1 (17 of 20 above) and +7.0% from k = 1..2 (16 above)'
    >>> "engine curves (per-position rates from one run at the largest k) are predicted low, median \u22124.0%" in note
    True
    """
    def said(kind: str) -> str:
        entry = split[kind]
        one, two = entry[1], entry[2]
        lean = "high" if one["median"] > 0 else "low"
        return (f"the {entry['curves']} {_MEASURED_AS[kind]} are predicted {lean}, median "
                f"{_signed(one['median'])} from k = 1 ({one['above']} of {entry['curves']} above) and "
                f"{_signed(two['median'])} from k = 1..2 ({two['above']} above)")

    return ("By how the curve was measured: " + "; ".join(said(kind) for kind in _MEASURED_AS)
            + ". The two kinds come from different drafters and workloads (the reference curves mostly from 2026's "
              "largest models, thinking, on one coding benchmark), so this says which way the point is likely off for a "
              "figure of either kind; the model does not correct for it (a prior taken from curves of the same kind "
              "only, judged once by nested leave-one-out from k = 1..2, was not adopted: docs/READING.md).")


# Curves found after the prior's rules were set, each batch predicted before it joined the library (READING: "three
# curves the model had not seen, predicted before they joined the library", 5 December 2026; "curves the model had not
# seen", branch curves9, 6 December 2026; "classic draft models the model has never seen", branch curves10, 6 December
# 2026). Recomputed here with the library less the whole batch, so a later change of the model is judged on them as on
# the rest; the numbers READING recorded were the library of that day's.
FOUND_LATER = (
    ("5 December 2026", ("qwen3.8-flash-next-mtp-thinking", "dsv4.1-flash-dspark", "dsv4.1-flash-dspark-thinking")),
    ("6 December 2026", ("speculators-613-zlab-dflash-qwen3.6-35b", "speculators-613-zlab-dflash-qwen3.6-35b-garp",
                         "speculators-613-dflash-qwen3.5-4b-ultrachat", "speculators-613-dflash-qwen3.6-35b-ultrachat")),
    ("6 December 2026, curves10", (
        "tomasruizt-draft-llama3.2-1b-llama3.3-70b", "tomasruizt-eagle3-llama3.3-70b",
        "tomasruizt-draft-qwen3-1.7b-qwen3-32b-instructcoder", "tomasruizt-draft-qwen3-1.7b-qwen3-32b-mtbench",
        "tomasruizt-draft-qwen3-4b-qwen3-32b-instructcoder", "tomasruizt-draft-qwen3-4b-qwen3-32b-mtbench",
        "tomasruizt-eagle3-qwen3-32b-instructcoder", "tomasruizt-eagle3-qwen3-32b-mtbench")),
)
# What the page says the latest batch of FOUND_LATER is (its curves' kind and what they showed), beside its counts.
FOUND_LATER_LATEST_KIND = ("five classic draft models, a small model of the target's family drafting token by token, "
                           "whose conditional rates rise with position where the block drafters' prior falls, and three "
                           "EAGLE-3 heads")


def found_later(known: int = 1) -> dict:
    """The curves of :data:`FOUND_LATER`, each predicted at its largest k from k = 1..known with the library less its
    whole batch (:func:`predict_unseen`): the rows, and the median absolute error of the model and of i.i.d. and how
    many the model predicts closer.

    >>> result = found_later(1)
    >>> len(result["rows"]) == sum(len(names) for _, names in FOUND_LATER), 0 <= result["better"] <= len(result["rows"])
    (True, True)
    """
    rows = []
    for _, names in FOUND_LATER:
        for name in names:
            family, kind, values, *_ = CURVES[name]
            rows.append({"name": name, **predict_unseen(family, kind, values, known, exclude=names)})
    return {"rows": rows, "medianError": median([abs(row["error"]) for row in rows]),
            "medianIidError": median([abs(row["iidError"]) for row in rows]),
            "better": sum(1 for row in rows if abs(row["error"]) < abs(row["iidError"]))}


def found_later_note(one: dict, two: dict) -> str:
    """The page's sentence on :func:`found_later` from k = 1 (``one``) and from k = 1..2 (``two``): the curves found
    after the rules were set, predicted as they were before they joined.

    >>> note = found_later_note({"rows": [{}] * 15, "medianError": 0.1, "medianIidError": 0.15, "better": 4},
    ...                         {"rows": [{}] * 15, "medianError": 0.08, "medianIidError": 0.09, "better": 3})
    >>> note[:82]
    "Curves found after the model's rules were set (15, in 3 searches), each predicted "
    """
    latest = FOUND_LATER[-1][1]

    def low(result) -> int:
        return sum(1 for row in result["rows"] if row.get("name") in latest and row["error"] < 0)

    return (f"Curves found after the model's rules were set ({len(one['rows'])}, in {len(FOUND_LATER)} searches), each "
            f"predicted before it joined (its search's curves left out): from k = 1 median error {100 * one['medianError']:.1f}% "
            f"against the independent model's {100 * one['medianIidError']:.1f}%, closer on {one['better']}; from "
            f"k = 1..2 {100 * two['medianError']:.1f}% against {100 * two['medianIidError']:.1f}%, closer on "
            f"{two['better']}. The latest search's {len(latest)} ({FOUND_LATER_LATEST_KIND}) were predicted low on "
            f"{low(one)} from k = 1 and on {low(two)} from k = 1..2.")


# Two families of separate draft models a reader may confuse (docs/READING.md, "a classic draft model and a block
# drafter are two families"): a block drafter (DFlash, DSpark) drafts a block in one pass, a draft model token by token.
CONFUSED = ("block", "draft")


def label_cost(known: int = 1) -> dict:
    """Each library curve of the :data:`CONFUSED` families, left out and predicted from k = 1..known under the other
    one's label (:func:`predict_unseen`): ``{family: (curves, median |error|, predicted above)}``, by the family filed.

    >>> cost = label_cost(1)
    >>> cost["block"][0] + cost["draft"][0] == sum(1 for entry in CURVES.values() if entry[0] in CONFUSED)
    True
    """
    found = {}
    for family, other in (CONFUSED, CONFUSED[::-1]):
        errors = [predict_unseen(other, kind, values, known, exclude=name)["error"]
                  for name, (filed, kind, values, *_) in CURVES.items() if filed == family]
        found[family] = (len(errors), median([abs(e) for e in errors]), sum(1 for e in errors if e > 0))
    return found


def label_note(one: dict, two: dict) -> str:
    """The page's sentence on which of the :data:`CONFUSED` families to choose, with :func:`label_cost` from k = 1
    (``one``) and k = 1..2 (``two``), and how thin the draft-model family is (its curves, drafters, repositories).

    >>> label_note({"block": (29, 0.25, 28), "draft": (5, 0.08, 0)}, {"block": (29, 0.04, 17), "draft": (5, 0.04, 0)})[:72]
    'A drafter that proposes a block in one pass is a block drafter (DFlash, '
    """
    names = [name for name, entry in CURVES.items() if entry[0] == "draft"]
    sources = {CURVES[name][4].split()[0] for name in names}
    block, draft = (FAMILY_NAMES[f] for f in CONFUSED)
    return (f"A drafter that proposes a block in one pass is a {block}; a small model drafting token "
            f"by token is a {draft}, whose prior also takes the block drafters' curves (many call both draft "
            f"models). Filed under the other label, the {one['block'][0]} block curves are off by "
            f"{100 * one['block'][1]:.1f}% from k = 1 ({one['block'][2]} high) and {100 * two['block'][1]:.1f}% from "
            f"k = 1..2, the {one['draft'][0]} draft-model curves by {100 * one['draft'][1]:.1f}% and "
            f"{100 * two['draft'][1]:.1f}%. The draft-model family is thin: {len(names)} curves of "
            f"{len({drafter_of(name) for name in names})} drafters from {len(sources)} "
            f"repositor{'y' if len(sources) == 1 else 'ies'}.")


def held_out_html() -> str:
    """The leave-one-out table, in its own sideways-scrolling wrapper: every library curve left out, its mean acceptance
    length at its largest k predicted from k = 1 and from k = 1..2, the error beside i.i.d.'s; and below it the notes
    (which families have too few curves to trust, what the interval is, each family's spread, the prior's choice)."""
    from .figures import escape

    one, two = leave_one_out(1), leave_one_out(2)
    counts = one["familyCounts"]
    few = ", ".join(f"{FAMILY_NAMES[f]} ({counts[f]} curve{'s' if counts[f] != 1 else ''})" for f in one["tooFew"])
    return (held_out_table_html(one, two)
            + f'<p class="acceptance-too-few">Too few curves to trust a family of its own: {escape(few)}. '
            + escape(copying_note(counts, one["tooFew"])) + ' ' + escape(label_note(label_cost(1), label_cost(2))) + '</p>'
            + '<p class="acceptance-interval">' + escape(interval_note(one, two)) + '</p>'
            + '<p class="acceptance-by-family">' + escape(f"By family: {family_spread(one, two)}. {choice_note(prior_choice())}") + '</p>'
            + '<p class="acceptance-by-measurement">' + escape(measurement_note(by_measurement(one, two))) + '</p>'
            + '<p class="acceptance-found-later">' + escape(found_later_note(found_later(1), found_later(2))) + '</p>')


def page_facts() -> dict:
    """The numbers the article's acceptance paragraphs quote, computed from the library (so the prose
    cannot drift from it): two reference curves at k = 8 against i.i.d. from their k = 1 figure, the
    plateau of DeepSeek-V4-Pro's MTP curve, and the library's counts.

    >>> facts = page_facts()
    >>> facts["qwen"]["measured"], round(facts["qwen"]["iid"], 2), facts["deepseek"]["plateauStart"]
    (5.21, 6.85, 4)
    """
    def at_eight(name):
        lengths = library_lengths(name)
        curve = from_lengths(dict(enumerate(lengths, start=1)), CURVES[name][0])
        return {"measured": lengths[7], "iid": iid(lengths[0] - 1).length(8), "k1": lengths[0],
                "plateauStart": plateau_start(curve), "plateauLength": curve.length(plateau_start(curve) or 8)}

    kinds = [kind for _, kind, *_ in CURVES.values()]
    apart = start_alike_end_apart()
    apart["labels"] = tuple(CURVES[name][3] for name in apart["names"])
    apart["medianErrors"] = (leave_one_out(1)["medianError"], leave_one_out(2)["medianError"])
    return {"apart": apart, "qwen": at_eight("qwen3.5-397b-mtp-thinking"), "deepseek": at_eight("dsv4-pro-mtp-thinking"),
            "referenceCurves": kinds.count("lengths"), "engineCurves": kinds.count("unconditional")}
