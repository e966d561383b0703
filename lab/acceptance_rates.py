"""A conditional acceptance curve and its arithmetic, the part of the acceptance model (:mod:`lab.acceptance`)
everything else stands on: the :class:`Curve` type (measured rates, the shape ``(c, d)`` that continues them, the
interval from the model's held-out errors per extrapolated position, :data:`RESIDUAL_QUANTILES`), the mean acceptance
length

    L(k) = 1 + sum_{i=1..k} prod_{j<=i} r_j

(:func:`mean_acceptance_length`, :func:`lengths_of`), the engines' printed unconditional rates as conditional ones
(:func:`conditional_from_unconditional`), the shape's rates ``r_1, r_1 c d^(i-2)`` (:func:`shaped_rates`), the
bisection that inverts a length (:func:`_solve`) and the plateau's threshold (:data:`PLATEAU_GAIN`).

Apart because the rest of the model stands on it and it on nothing of the model: the decay prior fits the library's
curves with this arithmetic and the builders build with it, so either can live in a module of its own without an
import cycle. :mod:`lab.acceptance` re-exports every name.

>>> Curve((0.8, 0.5), (1.0, 1.0), "test").length(2) == mean_acceptance_length([0.8, 0.5], 2)
True
"""

import math
from typing import NamedTuple

from .errors import LabValueError

__all__ = ["PLATEAU_GAIN", "INTERVAL_PERCENTILES", "RESIDUAL_QUANTILES", "Curve", "residual_interval",
           "mean_acceptance_length", "lengths_of", "conditional_from_unconditional", "shaped_rates"]

# a draft adding less than this many tokens per call lies on the plateau (lab.acceptance.plateau_start; the copying
# ceiling's reach, lab.acceptance_prior._copy_level, reads it too)
PLATEAU_GAIN = 0.05
# The interval's ends: the 10th and 90th percentiles (nearest rank, lab.stats.percentile) of the model's held-out
# errors per extrapolated position (RESIDUAL_QUANTILES), so about 80% of held-out lengths fall inside by construction.
INTERVAL_PERCENTILES = (0.1, 0.9)
# The held-out residuals' quantiles, frozen (the leave-one-out behind them is too heavy for every slider step): for a
# curve built from one figure (key 1) and from two or more, or per-position rates (key 2), the INTERVAL_PERCENTILES of
#     ln(measured L(K) / predicted L(K)) / (K - m)
# over the library's curves, each left out in turn and predicted at its largest k (K) from its lengths (an engine
# curve: its rates) at k = 1 (m = 1) or k = 1..2 (m = 2), the rest of the library as prior
# (lab.acceptance_validation.residual_quantiles). Per position past the last measured one (K - m): of three scalings
# (K - m, the point's own ln L(K) - ln L(m), the old spread's width) it gave the most even held-out coverage across
# reach (docs/READING.md, "a calibrated interval"). Computed on 5 December 2026 from the 61-curve library and refreshed
# on 6 December 2026 from the 65-curve one (branch curves9: {1: (-0.022388, 0.017477), 2: (-0.021226, 0.010099)} before);
# tests/test_acceptance_validation.py recomputes them (6 decimals), and tools/refresh_interval_quantiles.py rewrites
# these lines when the library changes.
RESIDUAL_QUANTILES = {1: (-0.025256, 0.016709), 2: (-0.025165, 0.012250)}
_BISECT = 80   # halvings of [0, 1]: an interval of 2^-80 (about 1e-24), far finer than a rate's 4 printed decimals


class Curve(NamedTuple):
    """A conditional acceptance curve: ``measured`` rates at positions 1..m (read or fitted), and
    the shape ``(c, d)`` that continues it; ``family`` and ``spread`` (the ``(c, d)`` pairs of the
    prior's group; a curve without one has no interval) when a prior was used; ``measuredAt`` is m, None for the i.i.d. curve
    (which is the same at every position and extrapolates nothing)."""

    measured: tuple
    shape: tuple
    source: str
    family: str | None = None
    spread: tuple = ()
    measuredAt: int | None = None
    anchor: float | None = None   # the rate the tail continues from (default: the last measured one)
    given: tuple = ()             # the (k, mean acceptance length) pairs the curve was fitted to, if any
    ceiling: float = 1.0          # the most a rate the model fills in may be (below 1 for a copying family: copy_ceiling)

    def rates(self, k: int) -> list[float]:
        """The conditional rates at positions 1..k.

        >>> Curve((0.9, 0.6), (0.9, 0.5), "test").rates(4)
        [0.9, 0.6, 0.3, 0.15]
        >>> Curve((0.9, 0.6), (0.9, 0.5), "test", anchor=0.8).rates(4)
        [0.9, 0.6, 0.4, 0.2]
        >>> Curve((0.8,), (1.2, 1.5), "test", ceiling=0.95).rates(4)   # filled-in rates stop at the ceiling
        [0.8, 0.95, 0.95, 0.95]
        """
        measured = list(self.measured)
        if k <= len(measured):
            return measured[:k]
        c, d = self.shape
        out = list(measured)
        if len(out) == 1:
            out.append(min(self.ceiling, out[0] * c))
        rate = out[-1] if self.anchor is None or len(out) != len(measured) else self.anchor
        while len(out) < k:
            rate = min(self.ceiling, rate * d)
            out.append(rate)
        return out[:k]

    def length(self, k: int) -> float:
        """The mean acceptance length at lookahead k."""
        return mean_acceptance_length(self.rates(k), k)

    def extrapolated_from(self, k: int) -> int | None:
        """The last measured position when lookahead k reaches past it, else None.

        >>> curve = Curve((0.8, 0.6), (0.9, 0.7), "test", measuredAt=2)
        >>> curve.extrapolated_from(2), curve.extrapolated_from(4)
        (None, 2)
        """
        return self.measuredAt if self.measuredAt is not None and k > self.measuredAt else None

    def figures(self) -> int:
        """The reader's input as :data:`RESIDUAL_QUANTILES` keys it: 1 for one figure (one length, :func:`lab.acceptance.
        from_single`, or one rate), 2 for two or more (lengths, or per-position rates from a trace).

        >>> Curve((0.8,), (0.9, 0.7), "single", measuredAt=1).figures(), Curve((0.8, 0.6), (0.9, 0.7), "x", measuredAt=2).figures()
        (1, 2)
        """
        return 1 if self.source == "single" or self.measuredAt == 1 else 2

    def interval(self, k: int) -> tuple[float, float]:
        """The point at k times ``exp(q_low (k - m))`` and ``exp(q_high (k - m))``, m the last measured position and
        ``q`` the held-out residual quantiles per position for the reader's input (:data:`RESIDUAL_QUANTILES`,
        :meth:`figures`), within what a length can be (no less than the curve's length at m, no more than k + 1) and
        holding the point; the point value twice when nothing is extrapolated or no prior made the point (a curve
        given without one, which repeats its last rate).

        >>> curve = Curve((0.8, 0.6), (0.9, 0.7), "test", spread=((0.9, 0.5), (0.9, 0.9)), measuredAt=2)
        >>> [round(x, 4) for x in curve.interval(4)], round(curve.length(4), 4)
        ([2.4162, 2.6039], 2.5409)
        >>> curve.interval(2) == (curve.length(2),) * 2   # nothing extrapolated at k = 2
        True
        """
        point = self.length(k)
        if self.extrapolated_from(k) is None or not self.spread:
            return point, point
        return residual_interval(point, k - self.measuredAt, RESIDUAL_QUANTILES[self.figures()],
                                 self.length(self.measuredAt), k + 1)


def residual_interval(point: float, reach: int, quantiles, floor: float = 1.0, top: float = math.inf) -> tuple:
    """``point`` times ``exp(q_low reach)`` and ``exp(q_high reach)`` (``quantiles``: the residual quantiles per
    extrapolated position), clamped to ``[floor, top]`` and widened to hold the point: :meth:`Curve.interval`'s
    arithmetic, apart so the validation can make the held-out interval with quantiles that leave its curve out.

    >>> [round(x, 4) for x in residual_interval(3.0, 4, (-0.02, 0.01))], residual_interval(3.0, 4, (-0.5, 0.5), 2.5, 4.0)
    ([2.7693, 3.1224], (2.5, 4.0))
    """
    low, high = quantiles
    return (min(point, max(floor, point * math.exp(low * reach))),
            max(point, min(top, point * math.exp(high * reach))))


def mean_acceptance_length(rates, k: int) -> float:
    """``1 + sum_{i=1..k} prod_{j<=i} r_j`` over the first k rates (the product formed as
    :func:`lab.ledger.expected_accepted_from_curve` forms it, so a constant curve gives its float).

    >>> mean_acceptance_length([0.5, 0.5, 0.5], 3)
    1.875
    """
    if k > len(rates):
        raise LabValueError(f"the curve has {len(rates)} positions, not {k}")
    total, survival = 0.0, 1.0
    for position in range(k):
        survival *= rates[position]
        total += survival
    return 1 + total


def lengths_of(rates) -> list[float]:
    """The mean acceptance length at every k = 1..len(rates).

    >>> lengths_of([0.5, 0.5])
    [1.5, 1.75]
    """
    return [mean_acceptance_length(rates, k) for k in range(1, len(rates) + 1)]


def conditional_from_unconditional(per_position) -> list[float]:
    """vLLM's and llama.cpp's per-position rates (``a_i``: the first i drafts all survived) as
    conditional rates ``r_i = a_i / a_{i-1}`` (``a_0 = 1``; a position after one nobody reached
    repeats the rate before it; each capped at 1, as printed rates are rounded).

    >>> conditional_from_unconditional([0.8, 0.4, 0.0, 0.0])
    [0.8, 0.5, 0.0, 0.0]
    """
    out, before = [], 1.0
    for a in per_position:
        out.append(min(1.0, a / before) if before > 0 else (out[-1] if out else 0.0))
        before = a
    return out


def shaped_rates(r1: float, shape, k: int) -> list[float]:
    """The shape's rates at positions 1..k: ``r_1``, then ``r_1 c d^(i-2)``, capped at 1.

    >>> [round(r, 3) for r in shaped_rates(0.8, (0.9, 0.5), 4)]
    [0.8, 0.72, 0.36, 0.18]
    """
    return Curve((r1,), tuple(shape), "shape").rates(k)


def _solve(function, target: float, low: float, high: float) -> float:
    """The root of an increasing ``function(x) = target`` in [low, high] by bisection (an end when
    the target lies outside).

    >>> _solve(lambda x: x * x, 0.25, 0.0, 1.0), _solve(lambda x: x, 2.0, 0.0, 1.0)
    (0.5, 1.0)
    """
    if function(low) >= target:
        return low
    if function(high) <= target:
        return high
    for _ in range(_BISECT):
        middle = (low + high) / 2
        if function(middle) < target:
            low = middle
        else:
            high = middle
    return (low + high) / 2
