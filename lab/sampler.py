"""Part three: the exact rejection sampler of speculative decoding, and the toy model it runs on.

The rule (Leviathan et al. 2023; Chen et al. 2023). A draft model with next-token
distribution ``q`` proposes a token ``x``; the target model, whose distribution is ``p``,
keeps it with probability ``min(1, p(x) / q(x))``. On a rejection the verifier samples a
replacement from the residual ``norm(max(0, p - q))``. If every draft in the block survives,
the same verifier pass yields one bonus token from the target. Then for every ``p`` and ``q``

    P(output = x) = q(x) min(1, p(x)/q(x)) + (1 - alpha) r(x) = min(p, q)(x) + max(0, p - q)(x) = p(x)

with ``alpha = sum_x min(p(x), q(x)) = 1 - TV(p, q)`` the chance that a draft survives and
``r`` the normalised residual. :func:`exact_output_distribution` evaluates the left-hand
side in :class:`fractions.Fraction`, from the same helper functions :func:`verify` uses, so
"the output equals the target" is checked exactly and is never a rounding accident.

The toy model (documented here so that every number in the article can be re-derived).

* Vocabulary: the eight words of :data:`VOCABULARY`; token ``x`` is an index 0..7.
* Position ``t`` has a favourite token ``FAVOURITES[t % 12]`` (greedy decoding spells the
  sentence "the draft proposes and the target verifies and keeps it . ." over and over)
  and a context kind ``CONTEXTS[t % 12]``: ``easy`` (templated text), ``normal`` or ``hard``
  (a rare-domain token or a tool-call boundary). Acceptance is contextual, so each kind
  shifts the two sliders before they shape the distributions, keeping 0 and 100 fixed (so
  certainty 100 is greedy decoding everywhere and match 100 an identical draft everywhere):
  easy: ``c' = c + (100 - c)/2`` and ``m' = m + (100 - m)/2``;  normal: ``c' = c, m' = m``;
  hard: ``c' = c**2/100`` and ``m' = m**2/100``.
* Target: ``p(x)`` proportional to ``rho ** rank(x)`` with ``rho = 1 - c'/100`` and
  ``rank(x) = (x - favourite) mod 8``: uniform at certainty 0, one-hot (greedy) at 100.
* Draft: ``q = mu p + (1 - mu) d`` with ``mu = m'/100``. ``d`` is the small model's own,
  overconfident guess: the same geometric shape with ratio ``rho / 2`` centred on the
  neighbouring token ``favourite + 1``. Match 100 makes ``q = p``.
* All probabilities are exact fractions; sampling uses floats derived from them by correct
  rounding and ``random.Random`` (the same stream in CPython and Pyodide).
* The model ignores the words already written: ``p_t`` and ``q_t`` depend on the position
  ``t`` only, never on the earlier tokens (a real language model conditions on them). The
  rule itself does not care, and :func:`exact_prefix_distribution` also takes row functions
  of the prefix; the tests run it, and :func:`verify`, on a bigram model, so that a sampler
  that conditions on the wrong context would be caught.
* Row validation: :class:`Categorical` refuses rows that are not distributions (negative,
  non-finite, empty, or not summing to 1) with a ``ValueError`` naming the problem.

The random draws of one verifier call happen in this order: the draft tokens (one per draft
pass), then for each draft in turn one uniform ``u`` (accept iff ``u < p(x)/q(x)``), then at
most one token from the residual or from the bonus row.

The sampler's own law. :func:`uniform_law` runs any program (``verify``, ``generate_trace``)
under a scripted generator that follows every branch of its comparisons with the uniforms and
weights each run by the lengths of the uniforms' intervals, giving the program's output
distribution in fractions; :func:`verify_prefix_law` composes verifier calls with it. The
audit compares these laws with the target's, so a sampler that follows the formula in its
helpers but not in its code (one uniform for a whole block, drafts from p, a scaled
acceptance test) is caught.
"""

from bisect import bisect_right
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import accumulate
from math import gcd
from typing import Sequence

from . import stats
from .errors import LabValueError

__all__ = [
    "VOCABULARY", "FAVOURITES", "CONTEXTS", "Categorical", "context_sliders",
    "target_distribution", "draft_distribution", "position_pair", "position_alpha", "reference_pair",
    "acceptance_probability", "per_token_acceptance", "total_variation", "residual_distribution",
    "exact_output_distribution", "buggy_output_distribution", "exact_prefix_distribution",
    "PairRule", "rule_for", "judge", "verify", "draft_resample_verify", "VerifyResult", "SeededGeneration", "generate_trace",
    "trace_shape",
    "sample_outputs", "empirical_tv", "uniform_law", "verify_prefix_law", "product_law",
]

ZERO, ONE = Fraction(0), Fraction(1)

VOCABULARY = ("the", "draft", "proposes", "and", "target", "verifies", "keeps", "it")
#              the   draft  proposes  and  the  target  verifies  and  keeps  it   .   .
FAVOURITES = (0, 1, 2, 3, 0, 4, 5, 3, 6, 7, 0, 1)
CONTEXTS = ("easy", "easy", "normal", "normal", "easy", "easy", "hard", "normal",
            "easy", "easy", "hard", "normal")


class Categorical:
    """A distribution over token indices: exact probabilities plus a float CDF for sampling.

    A row must be a distribution: at least one token, every value a finite number >= 0, and
    the total 1. Anything else raises :class:`ValueError` naming what was wrong, because on
    such a row :func:`verify` (which samples from the float CDF) and the exact laws (which
    use the probabilities) would silently disagree. Exact rows (fractions, integers) must sum
    to exactly 1. Floats are converted exactly; a row with floats whose total misses 1 only by
    rounding (``|total - 1| <= 1e-9``, e.g. ``[0.1] * 10``) is divided by its exact total, so
    the sampler and the exact laws still see the same row.

    >>> Categorical([Fraction(1, 4), Fraction(3, 4)]).probs
    (Fraction(1, 4), Fraction(3, 4))
    >>> Categorical([0.5, -0.25, 0.75])
    Traceback (most recent call last):
    ...
    lab.errors.LabValueError: a probability row needs every value >= 0, got -0.25 at token 1
    """

    __slots__ = ("probs", "cdf", "rule")

    def __init__(self, probs: Sequence):
        try:
            inexact = any(type(value) is float for value in probs)
            values = [value if type(value) is Fraction else Fraction(value) for value in probs]
        except (TypeError, ValueError, OverflowError) as error:
            raise LabValueError(f"a probability row needs finite numbers, got {list(probs)!r} ({error})") from None
        if not values:
            raise LabValueError("a probability row needs at least one token, got an empty row")
        if not inexact:  # exact rows (the toy model's): summed in integers over the common denominator, as rotated()
            self._exact(values)
            return
        for token, value in enumerate(values):
            if value < 0:
                raise LabValueError(f"a probability row needs every value >= 0, got {float(value):g} at token {token}")
        cumulative = list(accumulate(values))
        total = cumulative[-1]
        if total != 1:
            if not inexact or abs(total - 1) > _ROUNDING:
                raise LabValueError(f"a probability row must sum to 1, got a total of {float(total):.12g} "
                                 f"over {len(values)} tokens (normalise it first)")
            values = [value / total for value in values]  # float rounding only: make it exact
            cumulative = list(accumulate(values))
        self.probs = tuple(values)
        self.cdf = [float(c) for c in cumulative]
        # An exact total of 1 already gives 1.0 here; the guard keeps a row whose float total
        # rounds below 1 from ever sampling past its last token.
        self.cdf[-1] = float("inf")
        self.rule = None  # (p, PairRule) of the last target this row was verified against as q

    def _exact(self, values: list) -> None:
        """``__init__`` for a row of Fractions: the same checks and the same CDF, its partial sums taken as
        integers over the row's common denominator (``n / d`` of Python ints is correctly rounded, as
        ``float(Fraction)`` is, so the floats are the ones summing the Fractions gives, at a fraction of the cost).

        >>> row = [Fraction(1, 6), Fraction(1, 3), Fraction(1, 2)]
        >>> Categorical(row).cdf[:2] == [float(Fraction(1, 6)), float(Fraction(1, 2))]
        True
        """
        denominator = 1
        for value in values:
            denominator = denominator * value.denominator // gcd(denominator, value.denominator)
        numerators = [value.numerator * (denominator // value.denominator) for value in values]
        for token, numerator in enumerate(numerators):
            if numerator < 0:
                raise LabValueError(f"a probability row needs every value >= 0, got {float(values[token]):g} at token {token}")
        cumulative = list(accumulate(numerators))
        if cumulative[-1] != denominator:
            raise LabValueError(f"a probability row must sum to 1, got a total of "
                                f"{float(Fraction(cumulative[-1], denominator)):.12g} over {len(values)} tokens "
                                "(normalise it first)")
        self.probs = tuple(values)
        self.cdf = [total / denominator for total in cumulative]
        self.cdf[-1] = float("inf")  # an exact total of 1: nothing samples past the last token
        self.rule = None

    def __len__(self):
        return len(self.probs)

    def __getitem__(self, token):
        return self.probs[token]

    def sample(self, rng) -> int:
        """Inverse-CDF sampling with one ``rng.random()`` draw; zero-mass tokens never win."""
        return bisect_right(self.cdf, rng.random())

    def rotated(self, shift: int) -> "Categorical":
        """The same distribution relabelled: token ``x`` gets the mass of ``x - shift``.

        The row is this one's probabilities in another order, so it is not checked again, and
        its CDF is summed in integers over the common denominator: ``n / d`` of Python ints is
        correctly rounded, as ``float(Fraction)`` is, so the floats are the ones
        ``Categorical(_rotate(self.probs, shift))`` computes, at a fraction of the cost (the toy
        model builds most of its rows so, several per slider step).

        >>> row = Categorical([Fraction(1, 6), Fraction(1, 3), Fraction(1, 2)])
        >>> row.rotated(1).probs, row.rotated(1).cdf == Categorical(_rotate(row.probs, 1)).cdf
        ((Fraction(1, 2), Fraction(1, 6), Fraction(1, 3)), True)
        """
        values = tuple(_rotate(self.probs, shift))
        denominator = 1
        for value in values:
            denominator = denominator * value.denominator // gcd(denominator, value.denominator)
        row = Categorical.__new__(Categorical)
        row.probs = values
        row.cdf = [total / denominator for total in
                   accumulate(value.numerator * (denominator // value.denominator) for value in values)]
        row.cdf[-1] = float("inf")  # as __init__ does: nothing samples past the last token
        row.rule = None
        return row


_ROUNDING = Fraction(1, 10**9)  # how far a float row's total may miss 1 and still count as normalised


def _rotate(values, shift: int) -> list:
    shift %= len(values)
    return list(values[-shift:]) + list(values[:-shift]) if shift else list(values)


def _categorical(row) -> Categorical:
    return row if isinstance(row, Categorical) else Categorical(row)


def context_sliders(certainty: Fraction, match: Fraction, kind: str) -> tuple[Fraction, Fraction]:
    """The effective (certainty, match) in percent at a position of the given context kind: an easy
    context halves what is missing from 100, a hard one squares the fraction, a normal one keeps them.

    >>> [tuple(map(int, context_sliders(Fraction(c), Fraction(m), kind))) for c, m, kind in
    ...  ((64, 72, "easy"), (60, 50, "hard"), (60, 50, "normal"))]
    [(82, 86), (36, 25), (60, 50)]
    """
    if kind == "easy":
        return certainty + (100 - certainty) / 2, match + (100 - match) / 2
    if kind == "hard":
        return certainty * certainty / 100, match * match / 100
    if kind == "normal":
        return certainty, match
    raise LabValueError(f"context kind must be easy, normal or hard, got {kind!r}")


def _geometric_weights(ratio: Fraction, centre: int, size: int) -> list[int]:
    """Integer weights proportional to ``ratio ** ((x - centre) mod size)``.

    With ``ratio = a/b`` the weight of rank ``k`` is ``a**k * b**(size-1-k)``: the same
    proportions with no fractions built along the way (``0 ** 0 == 1`` makes ratio 0 one-hot)."""
    a, b = ratio.numerator, ratio.denominator
    return [a ** ((token - centre) % size) * b ** (size - 1 - (token - centre) % size) for token in range(size)]


def target_distribution(certainty, favourite: int, size: int = len(VOCABULARY)) -> tuple[Fraction, ...]:
    """p: geometric with ratio ``rho = 1 - certainty/100`` around the favourite token.

    >>> [str(x) for x in target_distribution(50, 0, 3)]   # rho = 1/2: weights 4, 2, 1
    ['4/7', '2/7', '1/7']
    """
    weights = _geometric_weights(1 - Fraction(certainty) / 100, favourite, size)
    total = sum(weights)
    return tuple(Fraction(w, total) for w in weights)


def draft_distribution(certainty, match, favourite: int, size: int = len(VOCABULARY)) -> tuple[Fraction, ...]:
    """q = mu p + (1 - mu) d, with d overconfident (ratio rho/2) about the next token over.

    >>> draft_distribution(50, 100, 0, 3) == target_distribution(50, 0, 3)   # match 100: q = p
    True
    >>> [str(x) for x in draft_distribution(50, 0, 0, 3)]   # match 0: d alone, centred on token 1
    ['1/21', '16/21', '4/21']
    """
    rho = 1 - Fraction(certainty) / 100
    mu = Fraction(match) / 100
    p_weights = _geometric_weights(rho, favourite, size)
    d_weights = _geometric_weights(rho / 2, (favourite + 1) % size, size)
    p_total, d_total = sum(p_weights), sum(d_weights)
    a, b = mu.numerator, mu.denominator  # mu = a/b, so q = (a p_w d_T + (b - a) d_w p_T) / (b p_T d_T)
    denominator = b * p_total * d_total
    return tuple(Fraction(a * p_w * d_total + (b - a) * d_w * p_total, denominator)
                 for p_w, d_w in zip(p_weights, d_weights))


# Bounded caches (an audit run needs about 380 pairs and 430 slots): memory stays flat however
# long a slider session runs, and the verifier tables ride along with their pair (q.rule).
@lru_cache(maxsize=1024)
def _pair(certainty: Fraction, match: Fraction, favourite: int) -> tuple[Categorical, Categorical]:
    if favourite:
        # Every distribution of the model is its favourite-0 twin relabelled (token x moves
        # to x + favourite), and the rule acts token by token, so the exact numbers and the
        # verifier's tables are rotated rather than recomputed.
        p0, q0 = _pair(certainty, match, 0)
        p, q = p0.rotated(favourite), q0.rotated(favourite)
        q.rule = (p, rule_for(p0, q0).rotated(favourite, p, q))
        return p, q
    return (Categorical(target_distribution(certainty, 0)),
            Categorical(draft_distribution(certainty, match, 0)))


def position_pair(certainty, match, position: int) -> tuple[Categorical, Categorical]:
    """(p_t, q_t) at sequence position ``t`` for the slider values ``certainty`` and ``match``."""
    return _slot_pair(certainty, match, position % len(FAVOURITES))


@lru_cache(maxsize=1024)
def _slot_pair(certainty, match, slot: int) -> tuple[Categorical, Categorical]:
    c, m = context_sliders(Fraction(certainty), Fraction(match), CONTEXTS[slot])
    return _pair(c, m, FAVOURITES[slot])


def position_alpha(certainty, match, position: int) -> Fraction:
    """alpha = sum min(p_t, q_t) at position ``t``. Relabelling tokens leaves the sum as it is,
    so it is computed once per context (on the favourite-0 pair), not once per position."""
    slot = position % len(FAVOURITES)
    return _context_alpha(*context_sliders(Fraction(certainty), Fraction(match), CONTEXTS[slot]))


@lru_cache(maxsize=1024)
def _context_alpha(certainty: Fraction, match: Fraction) -> Fraction:
    return per_token_acceptance(*_pair(certainty, match, 0))


def reference_pair(certainty, match) -> tuple[Categorical, Categorical]:
    """The pair the sliders set directly: a ``normal`` context centred on token 0.

    The article's p/q bars and the contract fields alpha, draftTv, exactTv and wrongTv
    use this pair."""
    return _pair(Fraction(certainty), Fraction(match), 0)


# --- the rule ---------------------------------------------------------------------------

def acceptance_probability(p_x: Fraction, q_x: Fraction) -> Fraction:
    """``min(1, p(x)/q(x))``; a token the draft gives no mass is rejected (never proposed).

    >>> [str(acceptance_probability(Fraction(p), Fraction(q))) for p, q in (("1/4", "1/2"), ("1/2", "1/4"), ("1/2", 0))]
    ['1/2', '1', '0']
    """
    if q_x == 0:
        return ZERO
    return min(ONE, p_x / q_x)


def per_token_acceptance(p, q) -> Fraction:
    """alpha = sum_x min(p(x), q(x)): the chance that one draft token survives.

    >>> p, q = (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
    >>> per_token_acceptance(p, q), 1 - total_variation(p, q)
    (Fraction(3, 4), Fraction(3, 4))
    """
    return sum((min(p_x, q_x) for p_x, q_x in zip(_probs(p), _probs(q))), ZERO)


def total_variation(p, q) -> Fraction:
    """TV(p, q) = 1/2 sum_x |p(x) - q(x)| (:func:`lab.stats.total_variation`) of two rows or
    Categoricals.

    >>> total_variation([Fraction(1, 2), Fraction(1, 2)], Categorical([Fraction(1, 4), Fraction(3, 4)]))
    Fraction(1, 4)
    """
    return stats.total_variation(_probs(p), _probs(q))


def residual_distribution(p, q) -> Categorical | None:
    """norm(max(0, p - q)); ``None`` when p == q (then nothing is ever rejected).

    >>> p, q = (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
    >>> [str(x) for x in residual_distribution(p, q).probs], residual_distribution(p, p)
    (['1', '0', '0'], None)
    """
    excess = [max(ZERO, p_x - q_x) for p_x, q_x in zip(_probs(p), _probs(q))]
    mass = sum(excess)
    if mass == 0:
        return None
    return Categorical([e / mass for e in excess])


def _probs(row) -> Sequence[Fraction]:
    return row.probs if isinstance(row, Categorical) else [v if type(v) is Fraction else Fraction(v) for v in row]


def _rejection_split(p, q) -> tuple[list[Fraction], Fraction]:
    """Mass each token gets from surviving drafts, and the total rejection probability,
    both computed from the rule's own acceptance test (not from the identity alpha = 1 - TV)."""
    kept = [q_x * acceptance_probability(p_x, q_x) for p_x, q_x in zip(_probs(p), _probs(q))]
    return kept, 1 - sum(kept)


def exact_output_distribution(p, q) -> tuple[Fraction, ...]:
    """The exact distribution of the token one verification step commits (should equal p).

    >>> p, q = (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
    >>> exact_output_distribution(p, q) == p
    True
    """
    kept, rejected = _rejection_split(p, q)
    residual = residual_distribution(p, q)
    if residual is None:
        return tuple(kept)
    return tuple(k + rejected * r for k, r in zip(kept, residual.probs))


def buggy_output_distribution(p, q) -> tuple[Fraction, ...]:
    """What the plausible bug commits: after a rejection it draws a fresh token from the
    draft ``q`` instead of the residual. Its output ``min(p, q) + (1 - alpha) q`` differs from
    ``p`` whenever ``p != q``: some token has ``q(x) > p(x)``, and it gets too much mass.

    (The other classic bug, redrawing from the target ``p``, is unbiased when ``q`` equals
    ``alpha p`` on the support of ``p``, a one-hot greedy target for instance; it would not
    make a counterexample for every ``p != q``.)"""
    kept, rejected = _rejection_split(p, q)
    return tuple(k + rejected * q_x for k, q_x in zip(kept, _probs(q)))


class PairRule:
    """The verifier's view of one position: p, q, the float acceptance table
    ``float(min(1, p(x)/q(x)))`` and the residual. Sampling compares a uniform ``u`` with
    the correctly rounded float, so CPython and Pyodide take the same branch."""

    __slots__ = ("p", "q", "keep", "kept", "rejected", "accept", "residual")

    def __init__(self, p, q):
        self.p, self.q = _categorical(p), _categorical(q)
        if len(self.p) != len(self.q):
            raise LabValueError(f"p and q need the same vocabulary, got {len(self.p)} and {len(self.q)} tokens")
        self.keep = [acceptance_probability(p_x, q_x) for p_x, q_x in zip(self.p.probs, self.q.probs)]
        self.accept = [float(keep) for keep in self.keep]
        self.kept, self.rejected = _rejection_split(self.p, self.q)
        self.residual = residual_distribution(self.p, self.q)


def _rotated_rule(self, shift: int, p: "Categorical", q: "Categorical") -> "PairRule":
    """This rule for the relabelled pair (p, q) = (self.p, self.q) rotated by ``shift``."""
    rule = PairRule.__new__(PairRule)
    rule.p, rule.q = p, q
    rule.keep, rule.accept, rule.kept = (_rotate(values, shift) for values in (self.keep, self.accept, self.kept))
    rule.rejected = self.rejected
    rule.residual = self.residual.rotated(shift) if self.residual is not None else None
    return rule


PairRule.rotated = _rotated_rule


def rule_for(p, q) -> PairRule:
    """The :class:`PairRule` of (p, q), memoised for the cached Categoricals of the toy model.

    The rule is kept on the draft row itself (``q.rule``, with the target it was built for),
    so it lives exactly as long as the pair: when the lru_caches of the toy model drop a pair,
    its rule goes with it, and a long slider session holds a bounded number of rules. (An
    earlier global dict keyed by ``id(p), id(q)`` was never freed and grew without bound.)"""
    if not (isinstance(p, Categorical) and isinstance(q, Categorical)):
        return PairRule(p, q)
    cached = q.rule
    if cached is not None and cached[0] is p:
        return cached[1]
    rule = PairRule(p, q)
    q.rule = (p, rule)
    return rule


def judge(rule: PairRule, token: int, rng, bug: bool = False):
    """Verify one draft token: ``None`` if it survives, else the token committed instead
    (from the residual; from q again for the bug). One ``rng.random()`` for the test, one
    more on a rejection."""
    if rng.random() < rule.accept[token]:
        return None
    replacement = rule.q if bug else rule.residual
    return replacement.sample(rng) if replacement is not None else token


@dataclass(frozen=True)
class VerifyResult:
    """What one verifier call commits: ``tokens`` (accepted drafts, then one correction or
    bonus token), how many drafts were ``accepted``, and whether the block ended in a rejection."""

    tokens: tuple[int, ...]
    accepted: int
    rejected: bool


def verify(draft_tokens: Sequence[int], p_rows, q_rows, rng, *, _bug: bool = False) -> VerifyResult:
    """One verifier call on ``k = len(draft_tokens)`` drafts.

    ``q_rows[i]`` is the draft distribution the ``i``-th draft token was sampled from and
    ``p_rows[i]`` the target's at that position; ``p_rows`` has one more row, for the bonus
    token. Draft ``i`` survives iff ``u < min(1, p(x)/q(x))`` for a fresh uniform ``u`` (a token
    with ``q(x) = 0`` never survives); the first rejection commits a token from
    ``norm(max(0, p - q))`` and ends the block; if all survive the last p row gives a bonus token.
    Rows must be distributions and draft tokens ids of the vocabulary (else ``ValueError``).
    """
    if len(p_rows) != len(draft_tokens) + 1 or len(q_rows) != len(draft_tokens):
        raise LabValueError("verify needs one q row per draft token and one more p row than drafts")
    committed = []
    for index, token in enumerate(draft_tokens):
        rule = rule_for(p_rows[index], q_rows[index])
        if type(token) is not int or not 0 <= token < len(rule.accept):
            raise LabValueError(f"draft token {index} must be a token id from 0 to {len(rule.accept) - 1}, got {token!r}")
        fixed = judge(rule, token, rng, _bug)
        if fixed is not None:
            committed.append(fixed)
            return VerifyResult(tuple(committed), index, True)
        committed.append(token)
    committed.append(_categorical(p_rows[-1]).sample(rng))
    return VerifyResult(tuple(committed), len(draft_tokens), False)


def draft_resample_verify(draft_tokens, p_rows, q_rows, rng) -> VerifyResult:
    """The buggy verifier of :func:`buggy_output_distribution`, for demonstrations and tests."""
    return verify(draft_tokens, p_rows, q_rows, rng, _bug=True)


def exact_prefix_distribution(p_rows, q_rows, lookahead: int, n: int) -> dict[tuple[int, ...], Fraction]:
    """Exact joint distribution of the first ``n`` tokens that repeated verifier calls with
    ``lookahead`` drafts each commit, following every branch of :func:`verify` in fractions.

    The rows are either sequences indexed by position (``p_rows[t]``, ``q_rows[t]``, at least
    ``n + lookahead`` of them: the toy model, whose rows depend on the position only) or functions
    of the prefix written so far (``p_rows(prefix)``, ``q_rows(prefix)``: a real language
    model, where draft ``i`` is proposed after the drafts before it). The draft proposes from
    ``q``; a block restarts after each call. A rejected draft never reaches the output, so its
    branches are summed before the residual token is chosen. For a correct sampler the result
    is the chain rule ``p(x_0) p(x_1 | x_0) ... p(x_{n-1} | x_0..x_{n-2})``.

    >>> half = [Fraction(1, 2)] * 2
    >>> exact_prefix_distribution(lambda prefix: [1, 0] if prefix[-1:] == (1,) else half,
    ...                           lambda prefix: half, 1, 2) == {(0, 0): Fraction(1, 4),
    ...     (0, 1): Fraction(1, 4), (1, 0): Fraction(1, 2)}
    True
    """
    result: dict[tuple[int, ...], Fraction] = {}
    p_at = p_rows if callable(p_rows) else (lambda prefix: p_rows[len(prefix)])
    q_at = q_rows if callable(q_rows) else (lambda prefix: q_rows[len(prefix)])

    def block(prefix: tuple[int, ...], weight: Fraction):
        if len(prefix) >= n:
            key = prefix[:n]
            result[key] = result.get(key, ZERO) + weight
            return
        draft(prefix, 0, weight)

    def draft(prefix, index, weight):
        # ``prefix`` holds the committed tokens and the drafts of this block that survived:
        # exactly the context the next draft (and its target row) conditions on.
        if len(prefix) >= n:  # the rest of this block cannot change the first n tokens
            block(prefix, weight)
            return
        if index == lookahead:  # every draft survived: the bonus token
            for token, prob in enumerate(_categorical(p_at(prefix)).probs):
                if prob:
                    block(prefix + (token,), weight * prob)
            return
        rule = rule_for(p_at(prefix), q_at(prefix))
        for token, kept in enumerate(rule.kept):  # kept = q(x) min(1, p(x)/q(x))
            if kept:
                draft(prefix + (token,), index + 1, weight * kept)
        if rule.rejected and rule.residual is not None:
            rejected = weight * rule.rejected
            for fixed, r_x in enumerate(rule.residual.probs):
                if r_x:
                    block(prefix + (fixed,), rejected * r_x)

    block((), ONE)
    return result


# --- the sampler's own law, exactly ------------------------------------------------------

class _Uniform:
    """One ``rng.random()`` draw known only as an interval ``[lo, hi)`` of [0, 1).

    Comparing it with a threshold inside the interval is a branch point: the scripted
    generator decides the outcome and narrows the interval to the part that gives it.
    (Equality has probability 0 for a continuous uniform, so ``<=`` acts as ``<``.) Any
    arithmetic on it raises TypeError: the sampler must compare uniforms with thresholds."""

    __slots__ = ("source", "lo", "hi")

    def __init__(self, source):
        self.source, self.lo, self.hi = source, 0.0, 1.0

    def __lt__(self, threshold):
        return self.source.below(self, threshold)

    __le__ = __lt__

    def __gt__(self, threshold):
        return not self.source.below(self, threshold)

    __ge__ = __gt__


class _ScriptedUniforms:
    """A stand-in for ``random.Random`` whose ``random()`` returns :class:`_Uniform` intervals
    and replays a script of branch decisions (True first, then False)."""

    def __init__(self, script: list):
        self.script, self.decisions, self.draws = script, [], []

    def random(self):
        u = _Uniform(self)
        self.draws.append(u)
        return u

    def below(self, u: _Uniform, threshold) -> bool:
        if threshold >= u.hi:
            return True
        if threshold <= u.lo:
            return False
        index = len(self.decisions)
        decision = self.script[index] if index < len(self.script) else True
        self.decisions.append(decision)
        if decision:
            u.hi = threshold
        else:
            u.lo = threshold
        return decision


def uniform_law(program) -> dict:
    """The exact law of ``program(rng)`` when every ``rng.random()`` is uniform on [0, 1).

    ``program`` is run once per branch of its comparisons with the uniforms (a depth-first
    walk that replays the decisions taken so far): each draw is an interval, narrowed at
    every comparison, and a run's weight is the product of its intervals' lengths, computed
    in fractions from the float thresholds the program itself compared with. So the result
    is the program's own law, not the formula it is meant to follow:

        P(result = r) = sum over runs returning r of prod_draws (hi - lo)

    >>> uniform_law(lambda rng: rng.random() < 0.25) == {True: Fraction(1, 4), False: Fraction(3, 4)}
    True
    """
    law: dict = {}
    script: list = []
    while True:
        rng = _ScriptedUniforms(script)
        outcome = program(rng)
        weight = ONE
        for u in rng.draws:
            weight *= Fraction(u.hi) - Fraction(u.lo)
        if weight:
            law[outcome] = law.get(outcome, ZERO) + weight
        script = rng.decisions
        while script and not script[-1]:  # backtrack to the last True and take its False branch
            script.pop()
        if not script:
            return law
        script[-1] = False


def verify_prefix_law(p_rows, q_rows, lookahead: int, n: int) -> dict[tuple[int, ...], Fraction]:
    """The law of the first ``n`` tokens committed by :func:`verify` itself, driven block by
    block: each call drafts ``k = min(lookahead, n - start - 1)`` tokens with
    :meth:`Categorical.sample` from the q rows, then lets :func:`verify` judge them (the same
    order of draws as :func:`generate_trace`). Each call's law comes from :func:`uniform_law`;
    the rows depend on the position only, so a call's law depends on (start, k) alone and the
    calls compose by the chain rule. Compare it with the product of the p rows: the two
    agree up to the rounding of the float thresholds verify compares with (about 1e-16)."""
    p_rows = [_categorical(row) for row in p_rows]
    q_rows = [_categorical(row) for row in q_rows]
    call_laws: dict = {}

    def call_law(start: int, k: int) -> dict:
        if (start, k) not in call_laws:
            def call(rng):
                drafts = [q_rows[start + i].sample(rng) for i in range(k)]
                return verify(drafts, p_rows[start:start + k + 1], q_rows[start:start + k], rng).tokens
            call_laws[start, k] = uniform_law(call)
        return call_laws[start, k]

    law: dict = {}
    pending = {(): ONE}
    while pending:
        prefix, weight = pending.popitem()
        start = len(prefix)
        for committed, w in call_law(start, min(lookahead, n - start - 1)).items():
            longer = prefix + committed
            target = law if len(longer) >= n else pending
            key = longer[:n]
            target[key] = target.get(key, ZERO) + weight * w
    return law


# --- a seeded generation ----------------------------------------------------------------

@dataclass(frozen=True)
class SeededGeneration:
    """One seeded speculative generation of the exact lab (not a measured trace: that is
    :mod:`lab.traces`). ``calls`` lists each verifier call as
    (start position, drafted tokens, committed tokens, rejected?)."""

    tokens: tuple[int, ...]
    targetCalls: int
    draftCalls: int
    acceptedDraft: int
    rejectedDraft: int
    bonusTokens: int
    calls: tuple

    @property
    def length(self) -> int:
        return len(self.tokens)


def generate_trace(certainty, match, lookahead: int, length: int, seed: int, *, verifier=verify, rng=None) -> SeededGeneration:
    """Generate ``length`` tokens speculatively with ``random.Random(seed)`` (or with ``rng``
    when given: :func:`uniform_law` passes its scripted generator here).

    Each call drafts ``k = min(lookahead, remaining - 1)`` tokens, so the last call never commits
    past ``length`` (with one token left it drafts none and the verifier's token counts as a
    bonus). Every call ends in exactly one rejection or one bonus token, so
    ``targetCalls = rejectedDraft + bonusTokens`` and
    ``acceptedDraft + rejectedDraft + bonusTokens = length``.
    """
    import random

    if rng is None:
        rng = random.Random(seed)
    tokens: list[int] = []
    calls = []
    draft_calls = accepted = rejected = bonus = 0
    period = len(FAVOURITES)
    slots = [position_pair(certainty, match, slot) for slot in range(period)]  # position t's: slot t mod period
    while len(tokens) < length:
        start = len(tokens)
        k = min(lookahead, length - start - 1)
        pairs = [slots[(start + i) % period] for i in range(k + 1)]
        drafts = [pairs[i][1].sample(rng) for i in range(k)]
        result = verifier(drafts, [p for p, _ in pairs], [q for _, q in pairs[:k]], rng)
        draft_calls += k
        accepted += result.accepted
        rejected += result.rejected
        bonus += not result.rejected
        tokens.extend(result.tokens)
        calls.append((start, tuple(drafts), result.tokens, result.rejected))
    return SeededGeneration(tuple(tokens), len(calls), draft_calls, accepted, rejected, bonus, tuple(calls))


def trace_shape(certainty, match, lookahead: int, length: int, seed: int) -> tuple[tuple[int, int], ...]:
    """The shape of :func:`generate_trace`'s run for the same arguments, computed without its
    tokens: ``(drafted, committed)`` per verifier call, in order.

    It draws the same ``random.Random(seed)`` numbers in the same order (one per draft, one per
    acceptance test, one for the residual token after a rejection when p - q has mass, one for
    the bonus token) from the same tables (each slot's draft CDF, its float acceptance table,
    whether it has a residual), so every count equals the full run's; it only skips building the
    tokens, the rows and the per-call tuples, which makes it about four times faster. The model's
    rows depend on the position alone (they repeat every ``len(CONTEXTS)`` positions), so the
    committed tokens never feed back into the draws. The serving widget's tail re-runs hundreds of
    seeds through it.

    >>> trace = generate_trace(64, 72, 5, 40, 7)
    >>> trace_shape(64, 72, 5, 40, 7) == tuple((len(d), len(c)) for _, d, c, _ in trace.calls)
    True
    """
    import random

    period = len(FAVOURITES)
    draft_cdfs, accepts, residuals = [], [], []
    for slot in range(period):
        p, q = position_pair(certainty, match, slot)
        rule = rule_for(p, q)
        draft_cdfs.append(q.cdf)
        accepts.append(rule.accept)
        residuals.append(rule.residual is not None)
    uniform = random.Random(seed).random
    shape = []
    start = 0
    while start < length:
        drafted = min(lookahead, length - start - 1)
        slots = [(start + i) % period for i in range(drafted)]
        drafts = [bisect_right(draft_cdfs[slot], uniform()) for slot in slots]
        committed = drafted + 1  # every draft accepted, then the bonus token
        for index, slot in enumerate(slots):
            if uniform() >= accepts[slot][drafts[index]]:  # rejected: judge()'s test, inverted
                if residuals[slot]:
                    uniform()  # the correction token, drawn from the residual
                committed = index + 1
                break
        else:
            uniform()  # the bonus token, drawn from the target's row
        shape.append((drafted, committed))
        start += committed
    return tuple(shape)


def sample_outputs(p: Categorical, q: Categorical, count: int, rng, method: str) -> list[int]:
    """Token counts of ``count`` one-token outputs drawn by ``method``:
    ``"speculative"`` (draft from q, then :func:`judge`), ``"target"`` (straight from p) or
    ``"buggy"`` (the draft-resampling bug)."""
    counts = [0] * len(p)
    uniform = rng.random
    if method == "target":
        target_cdf = p.cdf
        for _ in range(count):
            counts[bisect_right(target_cdf, uniform())] += 1  # p.sample(rng), inlined
        return counts
    if method not in ("speculative", "buggy"):
        raise LabValueError(f"method must be speculative, target or buggy, got {method!r}")
    rule = rule_for(p, q)
    # q.sample(rng) and judge(rule, token, rng, bug), inlined: this loop is hot (a third less
    # time in Pyodide). The same draws in the same order: the draft, the acceptance test, then
    # the replacement after a rejection (none when there is no replacement row: the draft stays).
    replacement = rule.q if method == "buggy" else rule.residual
    draft_cdf, accept = q.cdf, rule.accept
    replacement_cdf = replacement.cdf if replacement is not None else None
    for _ in range(count):
        token = bisect_right(draft_cdf, uniform())
        if uniform() >= accept[token] and replacement_cdf is not None:
            token = bisect_right(replacement_cdf, uniform())
        counts[token] += 1
    return counts


def empirical_tv(counts: Sequence[int], p) -> float:
    """TV between the histogram ``counts`` (normalised) and ``p``, as a float."""
    total = sum(counts)
    return float(stats.total_variation([Fraction(c, total) for c in counts], _probs(p)))


def product_law(p_rows, n: int) -> dict[tuple[int, ...], Fraction]:
    """The target's joint law of ``n`` tokens for position-indexed rows: ``p_0 x ... x p_{n-1}``
    (zero-mass sequences left out)."""
    law = {(): ONE}
    for t in range(n):
        row = _probs(p_rows[t])
        law = {prefix + (x,): w * p_x for prefix, w in law.items() for x, p_x in enumerate(row) if p_x}
    return law
