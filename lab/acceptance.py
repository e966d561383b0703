"""Acceptance by draft position: the conditional rate of each position, not one alpha stretched.

``r_i`` is the chance that draft ``i`` is accepted given drafts ``1..i-1`` were. The mean acceptance
length at lookahead ``k`` (tokens per verifier call, the verifier's own token counted) is

    L(k) = 1 + sum_{i=1..k} prod_{j<=i} r_j

and the independent (i.i.d.) model every instrument used before is the constant curve ``r_i = alpha``.

A curve is built from what the reader has:

* per-position rates from a trace (conditional, or vLLM's and llama.cpp's printed rates, which are
  unconditional: ``a_i = prod_{j<=i} r_j``);
* mean acceptance lengths at several k (fitted);
* one figure at one k plus the decay prior of the method family (``draft``, ``eagle``, ``mtp``,
  ``ngram``, ``suffix``).

The shape (the decay prior): the first rate, one drop to the second, then a geometric fall,

    r_1,   r_i = r_1 c d^(i-2)  (i >= 2),   capped at 1,

so a curve can fall fast and plateau in length (DeepSeek-V4-Pro's MTP: d near 0.75, the length stays near 2.55 from
k = 4 on) or hardly fall. Where the reader's figures do not fix the shape it comes from the decay prior, learned
from the library of measured curves (:mod:`lab.acceptance_prior`). Past the last measured position a curve continues
its own shape: ``r_{m+j} = min(C, r_m d^j)`` (C: 1, or a copying family's :func:`copy_ceiling`).

The model's modules, one idea each; every name of the first three stays importable from here (``__all__``):

* :mod:`lab.acceptance_rates`: the :class:`Curve` type and its arithmetic (rates to lengths, printed rates to
  conditional ones, the shape's rates);
* :mod:`lab.acceptance_prior`: the decay prior, ``(c, d)`` learned from the library and the point chosen for a reader;
* :mod:`lab.acceptance_text`: the reader's text (rates, lengths, the measured-curve token) parsed;
* this module: the builders (``from_*``), the plateau and best-k rules, the curve token and the CLI's report;
* :mod:`lab.acceptance_curves`: the library of measured curves the prior learns from (data, with sources);
* :mod:`lab.acceptance_validation`: the model judged on its own library (leave-one-out; build and CLI only).

>>> round(mean_acceptance_length([0.8, 0.5], 2), 6)
2.2
>>> from lab.ledger import expected_tokens_per_call
>>> iid(0.74).length(5) == expected_tokens_per_call(0.74, 5)
True
"""

import math
import re

from . import ledger
from .acceptance_curves import CURVES
# The model's parts (see above); the private names are those other modules and tests import from here.
from .acceptance_prior import (BORROWS_FROM, COPY_RISE_MAX, COPYING, MIN_FAMILY_CURVES, POINT_RULE_BY_FIGURES, POINT_RULES,  # noqa: F401
                               PRIOR_MODE_BY_FIGURES, PRIOR_MODES, _copy_level, _drafter_weights, _fall_high, _fit,
                               _library_shapes, _weighted_median, copy_ceiling, lengths_as_kept, library_less, library_lengths, library_shape,
                               nearest_by,
                               nearest_curves, prior, prior_group, prior_point, shape_of)
from .acceptance_rates import (INTERVAL_PERCENTILES, PLATEAU_GAIN, RESIDUAL_QUANTILES, Curve, _solve,  # noqa: F401
                               conditional_from_unconditional, lengths_of, mean_acceptance_length, residual_interval,
                               shaped_rates)
from .acceptance_text import (FAMILIES, FAMILY_MARK, MAX_POSITIONS, MEASURED_MARK, parse_lengths, parse_rates,  # noqa: F401
                              rates_token, split_family, split_measured, token_measured_at, token_method, token_rates)
from .errors import LabValueError
from .jsformat import to_fixed

__all__ = ["FAMILIES", "FAMILY_NAMES", "MAX_POSITIONS", "COPYING", "BORROWS_FROM", "COPY_RISE_MAX", "MIN_FAMILY_CURVES", "PLATEAU_GAIN",
           "SECOND_WEIGHT", "INTERVAL_PERCENTILES", "RESIDUAL_QUANTILES", "residual_interval", "Curve",
           "mean_acceptance_length", "lengths_of", "conditional_from_unconditional", "shaped_rates", "shape_of", "library_shape", "prior", "iid",
           "extended_rates", "split_measured", "split_family", "token_measured_at", "token_rates", "token_method",
           "rates_token", "TOKEN_POSITIONS", "MEASURED_MARK", "FAMILY_MARK", "from_conditional", "from_unconditional",
           "from_lengths", "from_single", "library_lengths", "prior_group", "copy_ceiling", "prior_point",
           "PRIOR_MODES", "PRIOR_MODE_BY_FIGURES", "POINT_RULES", "POINT_RULE_BY_FIGURES", "nearest_curves",
           "nearest_by", "plateau_start", "measured_plateau_start", "best_lookahead", "token_curve", "curve_token",
           "iid_alpha", "plateau_words", "parse_rates", "parse_lengths", "report", "family_of_draft", "parse_curve_text"]

FAMILY_NAMES = {"draft": "draft model", "block": "block drafter (DFlash, DSpark)", "eagle": "EAGLE / EAGLE-3", "mtp": "MTP heads",
                "ngram": "n-gram / prompt lookup", "suffix": "suffix decoding"}
SECOND_WEIGHT = 0.5     # weight of a measured second-position drop against the prior's (the rest)
MAX_SENT_RATE = 0.9999  # the largest rate a curve token carries (see curve_token)


def _check_family(method):
    if method is not None and method not in FAMILIES:
        raise LabValueError(f"the method must be one of {', '.join(FAMILIES)}, got {method!r}")


def _check_rates(rates, what: str) -> list[float]:
    rates = [float(r) for r in rates]
    if not 1 <= len(rates) <= MAX_POSITIONS:
        raise LabValueError(f"{what}: give 1 to {MAX_POSITIONS} rates, got {len(rates)}")
    for r in rates:
        if not (math.isfinite(r) and 0 <= r <= 1):
            raise LabValueError(f"{what}: every rate must be a fraction from 0 to 1, got {r:g}")
    return rates


def iid(alpha: float) -> Curve:
    """The independent model: ``r_i = alpha`` at every position (extrapolating nothing).

    >>> iid(0.5).rates(3)
    [0.5, 0.5, 0.5]
    """
    alpha = _check_rates([alpha], "alpha")[0]
    return Curve((alpha,), (1.0, 1.0), "iid")


def _ceiling(family, exclude) -> float:
    """A reader's :func:`copy_ceiling`: the library less ``exclude`` (the curve leave-one-out predicts)."""
    return copy_ceiling(library_less(exclude), family)


def _tail_shape(rates, family, exclude=None) -> tuple[tuple, tuple]:
    """The shape that continues measured rates: fitted on them when there are three or more (c
    from the first two, d meeting the measured length at m), else the prior's; and the spread."""
    point, spread, _ = prior(family, exclude, rates[0], figures=len(rates))
    if len(rates) >= 3 and rates[0] > 0:
        return shape_of(lengths_of(rates), family), spread
    if len(rates) == 2 and rates[0] > 0:
        return (rates[1] / rates[0], point[1]), spread
    return point, spread


def from_conditional(rates, method=None, exclude: str | tuple | None = None) -> Curve:
    """A curve from measured conditional rates (a trace's per-position curve). Counted in one run, the
    rates are taken as they are (two of them: the measured drop, then the prior's fall), unlike a
    difference of two lengths measured in separate runs (:func:`from_lengths` weights that drop).

    >>> from_conditional([0.9, 0.8, 0.7]).length(3) == mean_acceptance_length([0.9, 0.8, 0.7], 3)
    True
    """
    _check_family(method)
    rates = _check_rates(rates, "per-position rates")
    shape, spread = _tail_shape(rates, method, exclude)
    return Curve(tuple(rates), shape, "per-position", method, spread, len(rates), ceiling=_ceiling(method, exclude))


def from_unconditional(per_position, method=None) -> Curve:
    """A curve from vLLM's or llama.cpp's printed per-position rates (unconditional: ``a_i``, the chance the first i
    drafts all survive), as the conditional ``r_i = a_i / a_{i-1}`` (:func:`conditional_from_unconditional`).

    >>> curve = from_unconditional([0.8, 0.4])
    >>> curve.rates(2), curve.source
    ([0.8, 0.5], 'unconditional')
    """
    per_position = _check_rates(per_position, "per-position rates")
    if any(later > earlier + 1e-9 for earlier, later in zip(per_position, per_position[1:])):
        raise LabValueError("unconditional per-position rates cannot rise with position (vLLM prints them "
                            "falling); were these conditional rates?")
    return from_conditional(conditional_from_unconditional(per_position), method)._replace(source="unconditional")


def from_single(length: float, at: int, method=None, exclude: str | tuple | None = None) -> Curve:
    """One mean acceptance length at lookahead ``at`` plus the family's prior: the first rate
    solved so that the prior's shape meets ``length`` at ``at``. The positions up to ``at`` are
    inferred, not measured, but the length there is: ``measuredAt`` is ``at``.

    >>> round(from_single(2.0, 1, "eagle").rates(1)[0], 6)
    1.0
    """
    _check_family(method)
    if not (isinstance(at, int) and 1 <= at <= MAX_POSITIONS):
        raise LabValueError(f"the lookahead the length was measured at must be 1 to {MAX_POSITIONS}, got {at!r}")
    if not (math.isfinite(length) and 1 <= length <= at + 1):
        raise LabValueError(f"a mean acceptance length at k = {at} lies from 1 to {at + 1}, got {length:g}")
    point, spread, _ = prior(method, exclude, figures=1)
    # r_1 solved under the library's point first, then the point of the curves nearest it
    point = prior(method, exclude, _first_rate(length, at, point), figures=1)[0]
    if mean_acceptance_length(shaped_rates(1.0, point, at), at) < length:
        # longer than the prior's shape can reach even at r_1 = 1: the shape moves toward no decay
        # (c = d = 1, every draft kept) just far enough
        def toward(t):
            return (point[0] + t * (1 - point[0]), point[1] + t * (1 - point[1]))

        t = _solve(lambda x: mean_acceptance_length(shaped_rates(1.0, toward(x), at), at), length, 0.0, 1.0)
        return Curve(tuple(shaped_rates(1.0, toward(t), at)), toward(t), "single", method, spread, at,
                     ceiling=_ceiling(method, exclude))
    r1 = _first_rate(length, at, point)
    return Curve(tuple(shaped_rates(r1, point, at)), point, "single", method, spread, at, ceiling=_ceiling(method, exclude))


def _first_rate(length: float, at: int, shape) -> float:
    """The first rate ``r_1`` whose curve of ``shape`` (:func:`shaped_rates`) has mean acceptance length ``length`` at
    lookahead ``at``, by bisection on [0, 1] (an end when no rate reaches it).

    >>> round(_first_rate(1.875, 3, (1.0, 1.0)), 9), _first_rate(4.0, 2, (0.5, 0.5))
    (0.5, 1.0)
    """
    return _solve(lambda x: mean_acceptance_length(shaped_rates(x, shape, at), at), length, 0.0, 1.0)


def from_lengths(lengths: dict, method=None, exclude: str | tuple | None = None) -> Curve:
    """A curve from mean acceptance lengths at one or more lookaheads ``{k: L}``.

    One length: :func:`from_single`. Lengths at k = 1 and 2: ``r_1`` and ``r_2`` as measured, and the shape past
    them uses ``c`` weighted :data:`SECOND_WEIGHT` toward the measured drop (a length difference is a noisy rate).
    Three or more: ``r_1`` from k = 1 when given, and ``(c, d)`` fitted to every given length (least squares on
    relative errors); the measured positions are the fitted shape's, up to the largest k given, except past a
    measured plateau (:func:`measured_plateau_start`: the lengths after it add less than :data:`PLATEAU_GAIN`
    altogether), where they follow the measured increments (:func:`_measured_tail`): the curve stays as flat as
    measured, and every instrument that receives its rates (a curve token) finds the same plateau
    (:func:`plateau_start`), not a fitted rise the data do not show.

    >>> flat = from_lengths({1: 1.79, 2: 2.27, 3: 2.49, 4: 2.54, 5: 2.55, 6: 2.55})
    >>> round(flat.length(6) - flat.length(4), 4), plateau_start(token_curve(flat.rates(16)))
    (0.01, 4)

    >>> curve = from_lengths({1: 1.8, 2: 2.44})
    >>> [round(r, 4) for r in curve.rates(2)], curve.measuredAt
    ([0.8, 0.8], 2)
    >>> from_lengths({1: 1.8, 2: 1.79}).rates(2)  # a length that falls: no gain at k = 2, never a negative rate
    [0.8, 0.0]
    """
    _check_family(method)
    if not lengths:
        raise LabValueError("give at least one mean acceptance length")
    clean = {}
    for k, value in lengths.items():
        if not (isinstance(k, int) and 1 <= k <= MAX_POSITIONS):
            raise LabValueError(f"a lookahead must be an integer from 1 to {MAX_POSITIONS}, got {k!r}")
        if not (math.isfinite(value) and 1 <= value <= k + 1):
            raise LabValueError(f"the mean acceptance length at k = {k} lies from 1 to {k + 1}, got {value:g}")
        clean[k] = float(value)
    if len(clean) == 1:
        (k, value), = clean.items()
        return from_single(value, k, method, exclude)
    point, spread, _ = prior(method, exclude, clean[1] - 1 if 1 in clean else None, figures=len(clean))
    top = max(clean)
    if sorted(clean) == [1, 2]:
        r1 = clean[1] - 1
        # a length at k = 2 below the one at k = 1 (noise on a plateau, or a slip) is no gain from the second draft,
        # r_2 = 0, as a measured plateau's falls are (_measured_tail); a negative rate is no chance
        r2 = min(1.0, max(0.0, (clean[2] - clean[1]) / r1)) if r1 > 0 else 0.0
        c_measured = r2 / r1 if r1 > 0 else point[0]
        c = SECOND_WEIGHT * c_measured + (1 - SECOND_WEIGHT) * point[0]
        # past position 2 the curve continues from r_1 c (the weighted drop), not from the noisy r_2
        return Curve((r1, r2), (c, point[1]), "lengths", method, spread, 2, anchor=min(1.0, r1 * c),
                     ceiling=_ceiling(method, exclude))
    r1, shape = _fit(clean, point, _fall_high(method))
    given = tuple(sorted(clean.items()))
    rates = shaped_rates(r1, shape, top)
    plateau = _measured_plateau(given)
    if plateau is not None and all(k in clean for k in range(plateau, top + 1)):
        rates = _measured_tail(rates, plateau, clean)
    return Curve(tuple(rates), shape, "lengths", method, spread, top, given=given, ceiling=_ceiling(method, exclude))


def _measured_tail(rates, plateau: int, lengths: dict) -> list[float]:
    """Fitted ``rates`` kept up to a measured ``plateau`` and, past it, the measured lengths' own
    increments as survival: the chance draft k survives is ``L(k) - L(k - 1)`` as measured (never below
    0, never above the survival before it), so the curve stays as flat as measured instead of the fit's
    rise, and its rates carry the plateau to any instrument that receives them.

    >>> [round(r, 4) for r in _measured_tail([0.8, 0.7, 0.6, 0.5], 2, {1: 1.8, 2: 2.36, 3: 2.38, 4: 2.37})]
    [0.8, 0.7, 0.0357, 0.0]
    """
    out, survival = list(rates[:plateau]), 1.0
    for rate in out:
        survival *= rate
    for k in range(plateau + 1, len(rates) + 1):
        step = min(survival, max(0.0, lengths[k] - lengths[k - 1]))
        out.append(step / survival if survival > 0 else 0.0)
        survival = step
    return out


def iid_alpha(length: float, at: int) -> float:
    """The alpha whose independent model gives ``length`` at lookahead ``at`` (lab.ledger.alpha_iid).

    >>> iid_alpha(1.875, 3), iid(0.5).length(3)
    (0.5, 1.875)
    """
    return ledger.alpha_iid(length - 1, at)


def plateau_start(curve: Curve, max_k: int = MAX_POSITIONS) -> int | None:
    """The lookahead from which every further draft adds less than :data:`PLATEAU_GAIN` tokens per
    call (the chance all drafts up to it survive falls below it), or None within ``max_k``; never
    later than the measured lengths' own plateau (:func:`measured_plateau_start`), which a fit can
    smooth away.

    >>> plateau_start(from_lengths({1: 1.79, 2: 2.27, 3: 2.49, 4: 2.54, 5: 2.55, 6: 2.55}))
    4
    >>> plateau_start(iid(0.5), 12)
    4
    """
    found = _measured_plateau(curve.given)
    survival = 1.0
    for k, rate in enumerate(curve.rates(max_k), start=1):
        survival *= rate
        if survival < PLATEAU_GAIN:
            return k - 1 if found is None else min(found, k - 1)
    return found


def measured_plateau_start(lengths) -> int | None:
    """THE plateau of a measured curve (one definition, used by every instrument's cap and the tests
    over the library): the first measured lookahead k after which no measured mean acceptance length
    exceeds its own by :data:`PLATEAU_GAIN` tokens or more, i.e. every further draft together adds less
    than a twentieth of a token per verifier call; None when the lengths keep rising to the last one.
    ``lengths`` at k = 1..K in order, or ``{k: length}``. An engine's per-position rates give lengths
    ``1 + a_1 + ... + a_k`` (:func:`library_lengths`).

    >>> measured_plateau_start([1.79, 2.27, 2.49, 2.54, 2.55, 2.55, 2.54, 2.58])
    4
    >>> measured_plateau_start({1: 1.9, 2: 2.7, 4: 3.8}) is None
    True
    """
    pairs = sorted(lengths.items()) if isinstance(lengths, dict) else list(enumerate(lengths, start=1))
    return _measured_plateau(tuple(pairs))


def plateau_words(start: int, rates=None) -> str:
    """What a plateau starting at lookahead ``start`` does to k, in the words every instrument and CLI
    uses after "the curve" or "it" (a plateau "from k = 0" is said as what it means). Given the curve's conditional
    ``rates`` and they rise from position 2 to ``start + 1`` without a fall (a drafter that copies text; a measured
    uptick after a fall is noise), the drafts there are few, not worse, and the words say so instead of "plateaus"
    (the chance all drafts survive never rises, so the rule holds).

    >>> plateau_words(4)
    'plateaus from k = 4 (each further draft adds under 0.05 tokens a call), so no k past 5'
    >>> plateau_words(0)
    'adds under 0.05 tokens a call even with its first draft, so no k past 1'
    >>> plateau_words(2, [0.2, 0.3, 0.4])
    'adds under 0.05 tokens a call with each draft past k = 2 (its rates still rise, but few calls get that far), so no k past 3'
    """
    if start == 0:
        return f"adds under {PLATEAU_GAIN} tokens a call even with its first draft, so no k past 1"
    if rates is not None and len(rates) > start and rates[start] > rates[start - 1] and all(
            b >= a for a, b in zip(rates[1:start], rates[2:start + 1])):
        return (f"adds under {PLATEAU_GAIN} tokens a call with each draft past k = {start} (its rates still rise, but "
                f"few calls get that far), so no k past {start + 1}")
    return f"plateaus from k = {start} (each further draft adds under {PLATEAU_GAIN} tokens a call), so no k past {start + 1}"


def _measured_plateau(given) -> int | None:
    """Where measured lengths stop rising: the first given k with a later given k, whose length no
    later given length exceeds by :data:`PLATEAU_GAIN` or more (a fit can smooth a plateau away).

    >>> _measured_plateau(((1, 1.8), (2, 2.3), (3, 2.5), (4, 2.52), (5, 2.5))), _measured_plateau(((1, 1.8), (2, 2.4)))
    (3, None)
    """
    for index, (k, length) in enumerate(given[:-1]):
        if all(later < length + PLATEAU_GAIN for _, later in given[index + 1:]):
            return k
    return None


def best_lookahead(speedup_at, curve: Curve, max_k: int = 12) -> dict:
    """The lookahead in 1..max_k with the strictly largest ``speedup_at(k)`` (a function of k on
    this curve), never past the plateau's start plus one: ``k``, ``speedup``, ``extrapolatedFrom``
    (the last measured position when k lies past it, else None), ``plateauStart``, ``capped`` (the
    uncapped argmax lies past the cap), ``uncappedK``.

    This is the one rule every instrument's best k goes through (the ledger, the policies, serving
    and the deployment panel on a curve; :func:`token_curve` builds the curve from the rates an
    instrument received). ``speedup_at`` is called once per k.

    >>> best = best_lookahead(lambda k: iid(0.5).length(k) / (1 + 0.001 * k), iid(0.5), 12)
    >>> best["k"], best["plateauStart"], best["capped"], best["uncappedK"]
    (5, 4, True, 8)
    """
    plateau = plateau_start(curve, max_k)
    limit = max_k if plateau is None else min(max_k, plateau + 1)
    speedups = [speedup_at(k) for k in range(1, max_k + 1)]
    best_k, best_speedup = _first_argmax(speedups[:limit])
    unlimited = _first_argmax(speedups)[0]
    return {"k": best_k, "speedup": best_speedup, "extrapolatedFrom": curve.extrapolated_from(best_k),
            "plateauStart": plateau, "capped": unlimited > best_k, "uncappedK": unlimited}


def best_lookahead_on_curve(settings: "ledger.LedgerSettings", conditional, max_lookahead: int = 12,
                            measured_at: int | None = None) -> dict:
    """The ledger's best lookahead on a measured conditional curve, by the one rule every instrument
    uses (:func:`best_lookahead`): the first strict maximum of the speedup over
    ``1..max_lookahead``, never past the curve's plateau start plus one, saying when it rests on
    positions past the measured ones (``measured_at``, default every rate given).

    >>> best = best_lookahead_on_curve(ledger.LedgerSettings(draftCost=0, verifyTax=0), [0.8, 0.5, 0.3, 0.2])
    >>> best["k"], best["plateauStart"], best["uncappedK"], best["extrapolatedFrom"]
    (4, 3, 12, None)
    """
    return best_lookahead(lambda k: ledger.ledger_from_curve(settings.with_(lookahead=k), conditional).speedup,
                         token_curve(conditional, measured_at), max_lookahead)


def best_lookahead_from_curve(settings: "ledger.LedgerSettings", conditional, max_lookahead: int = 12) -> tuple[int, float]:
    """:func:`best_lookahead_on_curve` as ``(k, speedup)``, the shape :func:`best_lookahead` returns."""
    best = best_lookahead_on_curve(settings, conditional, max_lookahead)
    return best["k"], best["speedup"]


def _first_argmax(values) -> tuple[int, float]:
    """The first strict maximum of ``values`` as ``(k, value)``, k counted from 1 (a scan that
    replaces only on a larger value, as :func:`lab.ledger.best_lookahead` scans).

    >>> _first_argmax([1.0, 2.0, 2.0, 1.5])
    (2, 2.0)
    """
    best_k, best = 0, float("-inf")
    for k, value in enumerate(values, start=1):
        if value > best:
            best_k, best = k, value
    return best_k, best


def token_curve(rates, measured_at: int | None = None, method=None) -> Curve:
    """The curve an instrument runs on when it receives conditional ``rates`` (a measured-curve
    token, a trace's curve): the rates as given, the last one repeated past them (as
    :func:`lab.ledger.expected_accepted_from_curve` and :func:`lab.policies.depth_curve` continue a
    curve), measured up to ``measured_at`` (default: every rate given; the deployment panel's tokens
    carry positions its model filled in, so it passes the curve's own ``measuredAt``). The widgets
    extend a received curve first (:func:`extended_rates`), so the repetition is never reached there.
    With the token's drafter family ``method`` (:func:`token_method`) the curve continues past the rates
    as :func:`extended_rates` continues it, by that family's prior.

    >>> token_curve([0.9, 0.5]).rates(4), token_curve([0.9, 0.5]).extrapolated_from(3)
    ([0.9, 0.5, 0.5, 0.5], 2)
    >>> [round(r, 4) for r in token_curve([0.6, 0.8], method="ngram").rates(4)]   # a copying curve rises
    [0.6, 0.8, 0.8272, 0.8553]
    """
    rates = _check_rates(rates, "curve")
    if method is None:
        return Curve(tuple(rates), (1.0, 1.0), "token", measuredAt=len(rates) if measured_at is None else measured_at)
    return _continued(rates, measured_at, method)._replace(source="token")


TOKEN_POSITIONS = 16   # the positions a measured-curve token carries (curve_token) and a widget extends to


def _continued(rates, measured_at, method) -> Curve:
    """``rates`` (checked) as measured, continued past them by :func:`from_conditional` of positions 1..``measured_at``
    (default all) under the ``method`` family's prior (None: the pooled prior)."""
    return from_conditional(rates[:_measured_positions(rates, measured_at)], method)._replace(measured=tuple(rates))


def _measured_positions(rates, measured_at) -> int:
    """How many of ``rates`` were measured: ``measured_at``, 1 to all of them (default all)."""
    m = len(rates) if measured_at is None else measured_at
    if not 1 <= m <= len(rates):
        raise LabValueError(f"a curve's measured positions are 1 to {len(rates)}, got {m}")
    return m


def extended_rates(rates, k: int = TOKEN_POSITIONS, measured_at: int | None = None, method=None) -> list[float]:
    """A received curve's conditional rates at positions 1..max(k, len(rates)): the rates as given,
    and past them the acceptance model's continuation of the measured ones (positions
    1..``measured_at``, default all) by :func:`from_conditional` under the drafter family ``method``'s prior
    (the token's :func:`token_method`; None: the pooled prior), the continuation the trace reader uses, never the
    last rate repeated. A rate past the measured ones stays below 1 (a curve that accepts every draft has no
    long-run law in the lookahead policies).

    >>> [round(r, 4) for r in extended_rates([0.8, 0.7], 4)]
    [0.8, 0.7, 0.6907, 0.6815]
    >>> extended_rates([0.9, 0.8, 0.7], 2)
    [0.9, 0.8, 0.7]
    >>> [round(r, 4) for r in extended_rates([0.6, 0.8], 4)], [round(r, 4) for r in extended_rates([0.6, 0.8], 4, method="ngram")]
    ([0.6, 0.8, 0.7984, 0.7968], [0.6, 0.8, 0.8272, 0.8553])
    """
    rates = _check_rates(rates, "curve")
    m = _measured_positions(rates, measured_at)
    if k <= len(rates):
        return rates
    return rates + [min(r, MAX_SENT_RATE) for r in _continued(rates, m, method).rates(k)[len(rates):]]


def curve_token(curve: Curve, positions: int = TOKEN_POSITIONS) -> str:
    """The curve as the instruments' measured-curve token (``custom:r1,r2,...``, 4 decimals), the
    positions past the measured ones filled by the model so no instrument repeats a last rate, and
    marked ``@m`` (m, the last measured position) when they are, so the receiver knows where
    extrapolation starts, and ``~family`` (:data:`FAMILY_MARK`) when the curve's drafter family is known, so
    the receiver continues it by that family's prior. A rate of 1 goes as :data:`MAX_SENT_RATE`: the lookahead
    policies' Markov chains need every draft to be rejectable (a curve that accepts everything has no stationary
    law there).

    >>> curve_token(iid(0.74), 3), curve_token(iid(1.0), 2)
    ('custom:0.7400,0.7400,0.7400', 'custom:0.9999,0.9999')
    >>> curve_token(from_conditional([0.8, 0.7]), 3), curve_token(from_conditional([0.6, 0.8], "ngram"), 3)
    ('custom:0.8000,0.7000,0.6907@2', 'custom:0.6000,0.8000,0.8272@2~ngram')
    """
    body = ",".join(to_fixed(min(r, MAX_SENT_RATE), 4) for r in curve.rates(positions))
    measured = curve.measuredAt
    return ("custom:" + body + (f"{MEASURED_MARK}{measured}" if measured is not None and measured < positions else "")
            + (f"{FAMILY_MARK}{curve.family}" if curve.family is not None else ""))


# --- the CLI's report and the deployment panel's curve box (the reader's text itself is parsed in lab.acceptance_text)

def report(curve: Curve, lookahead: int) -> dict:
    """The CLI's JSON for a curve at lookahead k: the model's length and interval (:meth:`Curve.interval`: the
    10th to 90th percentile of its held-out errors per extrapolated position, an 80% interval), the conditional
    rates at positions 1..k, the last measured position when k lies past it, and i.i.d. from the
    same figure (its alpha solved from the curve's length at the last measured lookahead, or at k).

    >>> r = report(from_conditional([0.8, 0.6]), 2)
    >>> round(r["meanAcceptanceLength"], 4), r["extrapolatedFrom"]
    (2.28, None)
    """
    low, high = curve.interval(lookahead)
    anchor = min(lookahead, curve.measuredAt or lookahead)
    alpha = iid_alpha(curve.length(anchor), anchor)
    return {"meanAcceptanceLength": curve.length(lookahead), "interval": [low, high],
            "perPosition": curve.rates(lookahead), "extrapolatedFrom": curve.extrapolated_from(lookahead),
            "alphaIid": alpha, "meanAcceptanceLengthIid": iid(alpha).length(lookahead),
            "method": curve.family, "source": curve.source, "plateauStart": plateau_start(curve),
            "priorNote": _prior_note(curve) if curve.extrapolated_from(lookahead) is not None else None}


def _prior_note(curve: Curve) -> str | None:
    """Says so when the curve's family has too few library curves for a prior of its own (the interval's residual
    quantiles are the whole library's for every family, :data:`RESIDUAL_QUANTILES`).

    >>> _prior_note(from_single(1.8, 1, "suffix"))
    'the library holds 1 suffix decoding curve: its prior is the 4 curves of drafters that copy text (n-gram and suffix decoding), too few to claim much'
    """
    if curve.family is None:
        return "no method given: the prior is the whole library's"
    count = sum(1 for entry in CURVES.values() if entry[0] == curve.family)
    if count >= MIN_FAMILY_CURVES:
        return None
    held = f"the library holds {count} {FAMILY_NAMES[curve.family]} curve{'' if count == 1 else 's'}: "
    copying = sum(1 for entry in CURVES.values() if entry[0] in COPYING)
    if curve.family in COPYING and copying >= MIN_FAMILY_CURVES:  # prior_group's copying group
        return (held + f"its prior is the {copying} curves of drafters that copy text (n-gram and "
                "suffix decoding), too few to claim much")
    return held + "its prior is the whole library's"


def family_of_draft(draft: str, target: str | None = None) -> str:
    """The method family of a serving draft preset's name (lab.serving.DRAFT_NAMES); the "EAGLE or MTP
    head" on a ``target`` whose checkpoint ships an MTP module is that module (lab.serving_presets.eagle_head
    prices it so), so its family is MTP's.

    >>> family_of_draft("eagle-head"), family_of_draft("ngram"), family_of_draft("llama-3.2-1b")
    ('eagle', 'ngram', 'draft')
    >>> family_of_draft("eagle-head", "deepseek-v3"), family_of_draft("eagle3-head", "deepseek-v3")
    ('mtp', 'eagle')
    >>> family_of_draft("qwen3-0.6b"), family_of_draft("dflash-qwen3-8b")
    ('draft', 'block')
    """
    from .serving_presets import EAGLE, MTP_TARGETS

    if draft == EAGLE and target in MTP_TARGETS:
        return "mtp"
    name = str(draft).lower()
    if "mtp" in name:
        return "mtp"
    if "eagle" in name:
        return "eagle"
    if "ngram" in name or "lookup" in name:
        return "ngram"
    if "suffix" in name:
        return "suffix"
    if "dflash" in name or "dspark" in name:  # a block drafter (no serving preset is one today)
        return "block"
    return "draft"  # a small model of the target's family, drafting token by token


def parse_curve_text(text: str, method=None) -> Curve:
    """The deployment panel's curve box: ``K:L,...`` (mean acceptance lengths) or ``A1,A2,...`` (the
    per-position rates vLLM and llama.cpp print, unconditional).

    A whole vLLM or llama.cpp line is read too: the rates after "Per-position acceptance rate:" or
    inside "acceptance rate per position = (...)".

    >>> parse_curve_text("1:1.8,2:2.4").measuredAt, parse_curve_text("0.8, 0.4").rates(2)
    (2, [0.8, 0.5])
    >>> parse_curve_text("Accepted: 489 tokens, Per-position acceptance rate: 0.740, 0.473, Avg Draft").measuredAt
    2
    """
    text = str(text).strip()
    printed = _PRINTED_RATES.search(text)
    if printed:
        text = (printed.group(1) or printed.group(2)).strip().rstrip(",")
    elif ":" in text:
        return from_lengths(parse_lengths(text, "curve"), method)
    return from_unconditional(parse_rates(text, "curve"), method)


# vLLM's SpecDecoding line and llama.cpp's print_timing line (see lab.traces for both formats)
_PRINTED_RATES = re.compile(r"per-position acceptance rate:\s*((?:[0-9.]+\s*,\s*)*[0-9.]+)"
                            r"|acceptance rate per position\s*=\s*\(([^)]*)\)", re.I)
