"""Small statistics helpers, one function per formula, in the style of CPython's
:mod:`statistics`: plain functions over sequences of numbers, exact where the inputs are exact
(a ``Fraction`` in gives a ``Fraction`` out), a docstring that states the formula, and a
runnable example. Standard library only (the browser's lab has no ``statistics`` module).

    total_variation(p, q)               TV(p, q) = 1/2 sum_x |p(x) - q(x)|
    chi_square_survival(x, dof)         P(X >= x) for X chi-square with dof degrees of freedom
    wilson_interval(successes, trials)  the Wilson score interval of a proportion
    percentile(values, fraction)        the nearest-rank percentile
"""

import math

__all__ = ["total_variation", "chi_square_survival", "wilson_interval", "percentile", "percentile_of_counts", "median", "Z95"]

Z95 = 1.959963984540054  # the 97.5% point of the standard normal: a two-sided 95% interval


def total_variation(p, q):
    """Total variation distance between two distributions given as sequences of probabilities
    over the same outcomes: ``TV(p, q) = 1/2 sum_x |p(x) - q(x)|``, half the L1 distance.

    Exact for exact inputs:

    >>> from fractions import Fraction as F
    >>> total_variation([F(1, 2), F(1, 2)], [F(1, 4), F(3, 4)])
    Fraction(1, 4)
    >>> total_variation([0.5, 0.5], [0.5, 0.5])
    0.0
    """
    return sum(abs(p_x - q_x) for p_x, q_x in zip(p, q)) / 2


def chi_square_survival(x: float, dof: int) -> float:
    """P(X >= x) for X chi-square with ``dof`` (an integer >= 1) degrees of freedom, in closed form:

        even dof: exp(-x/2) sum_{i < dof/2} (x/2)**i / i!
        odd dof:  erfc(sqrt(x/2)) + exp(-x/2) sum_{i=1}^{(dof-1)/2} (x/2)**(i-1/2) / Gamma(i + 1/2)

    (Abramowitz and Stegun 26.4.4 and 26.4.5.) The 5% critical values 3.841 (1 degree of freedom)
    and 5.991 (2) give 0.05:

    >>> round(chi_square_survival(3.841458820694124, 1), 6), round(chi_square_survival(5.991464547107979, 2), 6)
    (0.05, 0.05)
    """
    if x <= 0:
        return 1.0
    half = x / 2
    if dof % 2 == 0:
        term = total = math.exp(-half)
        for i in range(1, dof // 2):
            term *= half / i
            total += term
        return min(1.0, total)
    total = math.erfc(math.sqrt(half))
    term = math.exp(-half) * math.sqrt(half) / math.gamma(1.5)
    for i in range(1, (dof + 1) // 2):
        total += term
        term *= half / (i + 0.5)
    return min(1.0, total)


def regularized_gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function ``Q(a, x) = Gamma(a, x) / Gamma(a)``: a
    series for ``P = 1 - Q`` when ``x < a + 1``, a continued fraction (modified Lentz) otherwise.
    ``Q(dof/2, x/2)`` is the chi-square tail by another road than :func:`chi_square_survival`'s
    closed forms, so the instruments suite holds each to the other.

    >>> round(regularized_gamma_q(1, 2), 12) == round(math.exp(-2), 12)
    True
    """
    if a <= 0:
        raise ValueError("a must be positive")
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(10000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return min(1.0, max(0.0, 1.0 - total * math.exp(log_front)))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return min(1.0, max(0.0, math.exp(log_front) * h))


def wilson_interval(successes: float, trials: float, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion: centre ``(p + z^2/2n) / (1 + z^2/n)``, half-width
    ``z sqrt(p(1-p)/n + z^2/4n^2) / (1 + z^2/n)`` with ``p = successes / trials``, ``n = trials``.
    It stays inside [0, 1] and is sensible at 0 and n successes, where the textbook interval
    collapses; with no trials it is all of [0, 1].

    >>> [round(x, 4) for x in wilson_interval(0, 10)], wilson_interval(0, 0)
    ([0.0, 0.2775], (0.0, 1.0))
    """
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(max(0.0, p * (1 - p) / trials + z2 / (4 * trials * trials))) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(values, fraction: float):
    """Nearest-rank percentile: the smallest value with at least ``fraction`` of the values at
    or below it, ``sorted(values)[ceil(fraction n) - 1]`` (the first value for fraction 0).

    >>> percentile([0, 0, 1, 2], 0.5), percentile([0, 0, 1, 2], 0.99), percentile([3, 1, 2], 0)
    (0, 2, 1)
    """
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def median(values) -> float:
    """The middle value of ``values``, or the mean of the two middle ones (``statistics.median``'s rule,
    kept here because importing :mod:`statistics` brings :mod:`decimal` and :mod:`fractions` into the
    browser's chunks).

    >>> median([3, 1, 2]), median([4, 1, 3, 2])
    (2, 2.5)
    """
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def percentile_of_counts(counts, fraction: float):
    """:func:`percentile` of a list given as ``{value: how many times}``: the same nearest-rank
    value, ``sorted(values)[ceil(fraction n) - 1]`` with ``n = sum(counts.values())``, without
    building or sorting the list (a histogram of a few distinct values stands for many).

    >>> percentile_of_counts({0: 2, 1: 1, 2: 1}, 0.5), percentile_of_counts({2: 1, 0: 2, 1: 1}, 0.99)
    (0, 2)
    >>> percentile_of_counts({3: 1, 1: 1, 2: 1}, 0) == percentile([3, 1, 2], 0)
    True
    """
    rank = max(1, math.ceil(fraction * sum(counts.values())))
    seen = 0
    for value in sorted(counts):
        seen += counts[value]
        if seen >= rank:
            return value
    raise ValueError("percentile_of_counts needs at least one counted value")
