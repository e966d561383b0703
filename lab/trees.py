"""Part four: token trees and multi-draft verification, proven exact in fractions.

Four models, each small enough to be computed exactly.

**Multi-draft verification at one position** (SpecInfer's multi-step speculative sampling,
Miao et al. 2024; llama.cpp's multi-branch verification). ``n`` candidates are drawn i.i.d.
from the draft ``q``. They are tried in turn: candidate ``x`` is accepted with probability
``min(1, cur(x) / q(x))``, where ``cur`` starts as the target ``p`` and after every rejection
becomes the residual ``norm(max(0, cur - q))``. After ``n`` rejections one token is drawn from
``cur``. Each trial is the one-draft rule of part three with target ``cur``, so by induction on
``n`` the output is ``p`` exactly, for every ``(p, q, n)``:

    out_n(cur) = min(cur, q) + (1 - alpha(cur, q)) out_{n-1}(residual(cur, q)),   out_0(cur) = cur

**The no-update bug.** Every candidate is tested against the original ``p`` and, after ``n``
rejections, one token comes from ``norm(max(0, p - q))``. With ``m = min(p, q)``,
``e = max(0, p - q)``, ``alpha = sum m`` and ``beta = 1 - alpha`` its output is

    bug_n = (1 + beta + ... + beta**(n-1)) m + beta**(n-1) e

At ``n = 1`` this is ``m + e = p``. For ``n >= 2`` it equals ``p = m + e`` exactly when
``A m = B e`` token by token, with ``A = (beta - beta**n) / alpha`` and ``B = 1 - beta**(n-1)``.
If ``0 < beta < 1`` both are positive, so a token with ``0 < p(x) <= q(x)`` (where ``e = 0``,
``m > 0``) breaks it; on the support of ``p`` we need ``q < p`` and ``A q = B (p - q)``, i.e.
``q = c p`` with ``c = B / (A + B)``; conversely ``q = c p`` on ``p``'s support gives
``alpha = c``, ``beta = 1 - c`` and ``c (A / B + 1) = c / (1 - beta) = 1``. The cases
``beta = 0`` (``q = p``) and ``beta = 1`` (``q`` is zero on ``p``'s support) are ``c = 1`` and
``c = 0``. So, for ``n >= 2``:

    the bug is exact  <=>  q(x) = c p(x) for every x with p(x) > 0, for one constant c

(:func:`bug_is_exact_predicted`). ``q`` may put its remaining mass ``1 - c`` anywhere else.

**Medusa's typical acceptance** (Cai et al. 2024; ``evaluate_posterior`` in
``medusa/model/utils.py`` of FasterDecoding/Medusa, defaults ``posterior_threshold = 0.09`` and
``posterior_alpha = 0.3`` in ``medusa_generate`` of ``medusa/model/medusa_model.py``). A
candidate ``x`` is accepted if ``p(x) > min(epsilon, delta exp(-H(p)))`` with ``H`` the entropy
in nats. Here ``n`` candidates are drawn i.i.d. from ``q``; the first typical one is kept and,
if none is, the token is drawn from ``p``. With ``T`` the typical set and ``Q = q(T)``:

    typical_n(x) = (1 - (1 - Q)**n) q(x) / Q [x in T] + (1 - Q)**n p(x)

which is ``p`` only if ``Q = 0`` or ``q`` restricted to ``T`` and renormalised is ``p``
(:func:`typical_is_exact_predicted`). Medusa's code smooths the entropy as
``-sum p log(p + 1e-5)``; the lab uses the exact entropy. ``exp(-H)`` is irrational in general,
so :func:`is_typical` decides ``p(x) > delta exp(-H)`` by floats when the margin is large, then
by 60-digit decimals, and at a true tie exactly (raising both sides to the common denominator of
``p``); a tie is not accepted, as Medusa's strict ``>`` says.

**Whole trees on the toy model** (:func:`tree_output`): every node's children are candidates
drawn i.i.d. from the draft's next-token distribution there and tried with the multi-draft
rule; an accepted child's own children are tried next; a leaf commits a bonus token from the
target. The committed path, completed by sampling the target directly up to a fixed length,
has exactly the target's path distribution.

**Sequoia's positional model** (Chen et al. 2024, arXiv 2402.12374, ``tree_search.py`` in
Infini-AI-Lab/Sequoia): the ``b``-th ranked child of a node is the accepted one with probability
``p_b``. A tree's value, the mean number of tokens one verify pass commits (bonus included), is
the sum over its nodes of the product of ``p`` along the path from the root (the root counts 1).
:func:`tree_values` is the dynamic programme for the best tree with at most ``n`` nodes and at
most ``D`` levels (the root is level 1). A chain under the same limits has ``min(n, D)`` nodes,
one per level, and is worth ``sum_{i < min(n, D)} p_1**i``, which saturates at ``1 / (1 - p_1)``.
"""

from decimal import Decimal, localcontext
from fractions import Fraction
from functools import lru_cache
from heapq import heappop, heappush
from math import exp, frexp, gcd, ldexp, log
from operator import add
from typing import NamedTuple, Sequence

from . import sampler, stats
from .errors import LabValueError
from .ledger import (LedgerSettings, cycle_costs, expected_tokens_per_call, per_token_and_speedup,
                     verify_ms as _ledger_verify_ms)

__all__ = [
    "EPSILON", "DELTA", "normalise", "total_variation", "multi_draft_output", "multi_draft_outputs", "no_update_output", "no_update_outputs",
    "bug_is_exact_predicted", "entropy", "is_typical", "typical_set", "typical_output",
    "typical_is_exact_predicted", "toy_pair", "tree_output", "target_path_distribution", "shape_from_parents",
    "rank_probabilities", "tree_values", "BestTree", "best_tree", "best_tree_shapes", "non_increasing",
    "ranked_nodes", "ranked_tree_shapes", "ranked_best_tree", "fast_best_tree", "fast_tree_shapes", "tree_value", "chain_value",
    "chain_parents", "ledger_verify_ms", "TreeCost", "tree_cost", "ROOFLINE_BATCH", "ROOFLINE_CONTEXT",
    "roofline_verify_ms", "roofline_tree_cost", "roofline_ridge_nodes", "depth_rank_probabilities",
    "tree_value_by_depth", "depth_profile", "depth_best_tree",
]

ZERO, ONE = Fraction(0), Fraction(1)
EPSILON = Fraction(9, 100)   # Medusa's posterior_threshold default
DELTA = Fraction(3, 10)      # Medusa's posterior_alpha default


# --- one position: multi-draft verification and its bug --------------------------------------

def _exact(values: Sequence) -> tuple[Fraction, ...]:
    """The values as fractions, without copying those that already are."""
    return tuple(v if type(v) is Fraction else Fraction(v) for v in values)


def normalise(weights: Sequence) -> tuple[Fraction, ...]:
    """Exact proportions of non-negative weights with a positive total.

    >>> normalise([1, 1, 2])
    (Fraction(1, 4), Fraction(1, 4), Fraction(1, 2))
    """
    values = [Fraction(w) for w in weights]
    total = sum(values)
    if total <= 0 or min(values) < 0:
        raise LabValueError("weights must be non-negative with a positive total")
    return tuple(v / total for v in values)


def total_variation(p: Sequence, q: Sequence) -> Fraction:
    """TV(p, q) = 1/2 sum |p - q| in exact fractions (:func:`lab.stats.total_variation`).

    >>> total_variation([Fraction(1, 2), Fraction(1, 2)], [1, 0])
    Fraction(1, 2)
    """
    return stats.total_variation([Fraction(a) for a in p], [Fraction(b) for b in q])


def _trial(cur: Sequence[Fraction], q: Sequence[Fraction]) -> tuple[list[Fraction], Fraction]:
    """One candidate x ~ q tested against ``cur``: the mass each token gets from an accepted
    candidate, ``q(x) min(1, cur(x)/q(x))``, and the probability of a rejection, from the rule's
    own acceptance test."""
    kept = [q_x * sampler.acceptance_probability(c_x, q_x) for c_x, q_x in zip(cur, q)]
    return kept, 1 - sum(kept)


def _residual(cur: Sequence[Fraction], q: Sequence[Fraction]) -> tuple[Fraction, ...]:
    """norm(max(0, cur - q)); only called after a rejection had positive probability."""
    excess = [max(ZERO, c_x - q_x) for c_x, q_x in zip(cur, q)]
    mass = sum(excess)
    return tuple(e / mass for e in excess)


def multi_draft_outputs(p: Sequence, q: Sequence, max_candidates: int) -> list[tuple[Fraction, ...]]:
    """The exact output distribution of n-candidate verification for n = 1..max_candidates (each is p).

    The chain of residuals cur_0 = p, cur_1, ... does not depend on n, so one walk along it
    gives every n: out_n = sum_{i<n} reach_i min(cur_i, q) + reach_n cur_n.

    >>> p, q = (Fraction(1, 2), Fraction(1, 2), ZERO), (Fraction(1, 3),) * 3
    >>> multi_draft_outputs(p, q, 3) == [p, p, p]
    True
    """
    cur, q = _exact(p), _exact(q)
    kept_so_far, reach, outputs = [ZERO] * len(cur), ONE, []
    for _ in range(max_candidates):
        kept, rejected = _trial(cur, q)
        kept_so_far = [o + reach * m for o, m in zip(kept_so_far, kept)]
        if rejected == 0:   # cur == q: every later candidate is accepted too
            outputs += [tuple(kept_so_far)] * (max_candidates - len(outputs))
            break
        reach *= rejected
        cur = _residual(cur, q)   # the update that keeps the rule exact
        outputs.append(tuple(o + reach * c for o, c in zip(kept_so_far, cur)))
    return outputs


def multi_draft_output(p: Sequence, q: Sequence, candidates: int) -> tuple[Fraction, ...]:
    """The exact distribution of the token that n-candidate verification commits (it is p).

    >>> p, q = (Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4))
    >>> multi_draft_output(p, q, 2) == p
    True
    """
    return multi_draft_outputs(p, q, candidates)[-1]


def no_update_outputs(p: Sequence, q: Sequence, max_candidates: int) -> list[tuple[Fraction, ...]]:
    """The bug's exact output for n = 1..max_candidates: every candidate tested against the original p;
    after n rejections one draw from norm(max(0, p - q)). Exact at n = 1; see the module
    docstring for n >= 2.

    >>> p, q = (Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4))
    >>> no_update_outputs(p, q, 2) == [p, (Fraction(5, 8), Fraction(3, 8))]
    True
    """
    p, q = _exact(p), _exact(q)
    kept, rejected = _trial(p, q)
    residual = _residual(p, q) if rejected else None
    kept_so_far, reach, outputs = [ZERO] * len(p), ONE, []
    for _ in range(max_candidates):
        kept_so_far = [o + reach * m for o, m in zip(kept_so_far, kept)]
        reach *= rejected
        outputs.append(tuple(kept_so_far) if residual is None
                       else tuple(o + reach * r for o, r in zip(kept_so_far, residual)))
    return outputs


def no_update_output(p: Sequence, q: Sequence, candidates: int) -> tuple[Fraction, ...]:
    """The bug's exact output distribution for n candidates."""
    return no_update_outputs(p, q, candidates)[-1]


def bug_is_exact_predicted(p: Sequence, q: Sequence, candidates: int) -> bool:
    """Where the no-update bug is exact: always at n = 1; for n >= 2 exactly when
    q(x) = c p(x) on the support of p for a single constant c (derived in the module docstring).

    >>> bug_is_exact_predicted((Fraction(1, 2), Fraction(1, 2), 0), (Fraction(1, 4), Fraction(1, 4), Fraction(1, 2)), 3)
    True
    >>> bug_is_exact_predicted((Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4)), 2)
    False
    """
    if candidates == 1:
        return True
    support = [(p_x, q_x) for p_x, q_x in zip(_exact(p), _exact(q)) if p_x > 0]
    ratio = support[0][1] / support[0][0]
    return all(q_x == ratio * p_x for p_x, q_x in support)


# --- Medusa's typical acceptance ------------------------------------------------------------

def entropy(p: Sequence) -> float:
    """H(p) = -sum p log p in nats (a float: the lab only uses it to compare).

    >>> round(entropy([Fraction(1, 2), Fraction(1, 2)]), 12) == round(log(2), 12)
    True
    """
    return -sum(float(x) * _log(x) for x in p if x > 0)


def _log(x) -> float:
    """log x for a positive number; a Fraction's log is taken from its integers, so a probability
    too small (or a weight too large) for a float still has one.

    >>> round(_log(Fraction(1, 10 ** 400)), 6) == round(-400 * log(10), 6)
    True
    """
    if isinstance(x, Fraction):
        return log(x.numerator) - log(x.denominator)
    return log(x)


FLOAT_MARGIN = 1e-9      # far above the float error of an 8-term entropy
DECIMAL_DIGITS = 60
DECIMAL_MARGIN = Decimal(10) ** -50
EXACT_DENOMINATOR_LIMIT = 4096   # exact tie-breaking raises to this power at most


def _decimal_threshold(delta: Fraction, p: Sequence[Fraction]) -> Decimal:
    with localcontext() as context:
        context.prec = DECIMAL_DIGITS
        h = -sum((Decimal(x.numerator) / x.denominator) * (Decimal(x.numerator) / x.denominator).ln()
                 for x in p if x > 0)
        return Decimal(delta.numerator) / delta.denominator * (-h).exp()


def _exceeds_exactly(p_x: Fraction, delta: Fraction, p: Sequence[Fraction]) -> bool | None:
    """p_x > delta prod p_i**p_i, decided in integers after raising both sides to the common
    denominator D of p (exp(-H) = prod p_i**p_i); ``None`` when D is too large to do so."""
    denominator = 1
    for x in p:
        denominator = denominator * x.denominator // gcd(denominator, x.denominator)
    if denominator > EXACT_DENOMINATOR_LIMIT:
        return None
    right = delta ** denominator
    for x in p:
        if x > 0:
            right *= x ** (x * denominator).numerator
    return p_x ** denominator > right


def is_typical(p_x: Fraction, p: Sequence, epsilon: Fraction = EPSILON, delta: Fraction = DELTA,
               threshold: float | None = None) -> bool:
    """Medusa's test p(x) > min(epsilon, delta exp(-H(p))), decided without rounding errors.

    ``p(x) > min(a, b)`` is ``p(x) > a or p(x) > b``; the first is exact in fractions. The second
    is decided by floats when the gap exceeds 1e-9, else by 60-digit decimals when it exceeds
    1e-50, else exactly (see :func:`_exceeds_exactly`); a tie is not typical (Medusa's ``>``).
    ``threshold`` is ``delta exp(-H(p))`` as a float, when the caller has it already.

    >>> uniform = [Fraction(1, 4)] * 4             # exp(-H) = 1/4: delta = 1 makes a true tie
    >>> is_typical(Fraction(1, 4), uniform, epsilon=ONE, delta=ONE)
    False
    >>> is_typical(Fraction(1, 4), uniform, epsilon=ONE, delta=Fraction(999999999999, 10**12))
    True
    """
    p_x = Fraction(p_x)
    if p_x > epsilon:
        return True
    p = _exact(p)
    if threshold is None:
        threshold = float(delta) * exp(-entropy(p))
    gap = float(p_x) - threshold
    if abs(gap) > FLOAT_MARGIN:
        return gap > 0
    precise = Decimal(p_x.numerator) / p_x.denominator - _decimal_threshold(Fraction(delta), p)
    if abs(precise) > DECIMAL_MARGIN:
        return precise > 0
    exact = _exceeds_exactly(p_x, Fraction(delta), p)
    return bool(exact)   # None: within 1e-50 of a tie that cannot be settled exactly; treated as a tie


def typical_set(p: Sequence, epsilon: Fraction = EPSILON, delta: Fraction = DELTA) -> tuple[bool, ...]:
    """Which tokens pass the typical-acceptance test (the entropy is computed once).

    >>> typical_set([Fraction(7, 10), Fraction(2, 10), Fraction(1, 10)])
    (True, True, True)
    >>> typical_set([Fraction(94, 100), Fraction(5, 100), Fraction(1, 100)])
    (True, False, False)
    """
    p = _exact(p)
    threshold = float(delta) * exp(-entropy(p))
    return tuple(is_typical(x, p, epsilon, delta, threshold) for x in p)


def typical_output(p: Sequence, q: Sequence, candidates: int, epsilon: Fraction = EPSILON,
                   delta: Fraction = DELTA) -> tuple[Fraction, ...]:
    """The exact output of n i.i.d. candidates under typical acceptance, falling back to a
    draw from p when none is typical (formula in the module docstring).

    >>> typical_output((Fraction(1, 2), Fraction(1, 2)), (1, 0), 1)   # the draft's favourite always passes
    (Fraction(1, 1), Fraction(0, 1))
    """
    p, q = _exact(p), _exact(q)
    typical = typical_set(p, epsilon, delta)
    typical_mass = sum((q_x for q_x, t in zip(q, typical) if t), ZERO)
    none_typical = (1 - typical_mass) ** candidates
    if typical_mass == 0:
        return tuple(p)
    return tuple((1 - none_typical) * q_x / typical_mass * t + none_typical * p_x
                 for p_x, q_x, t in zip(p, q, typical))


def typical_is_exact_predicted(p: Sequence, q: Sequence, epsilon: Fraction = EPSILON,
                               delta: Fraction = DELTA) -> bool:
    """Typical acceptance returns p only if no typical token has draft mass, or q restricted
    to the typical set and renormalised is p."""
    p, q = _exact(p), _exact(q)
    typical = typical_set(p, epsilon, delta)
    mass = sum((q_x for q_x, t in zip(q, typical) if t), ZERO)
    return mass == 0 or all((q_x / mass if t else ZERO) == p_x for p_x, q_x, t in zip(p, q, typical))


# --- whole trees on the toy model -------------------------------------------------------------

@lru_cache(maxsize=4096)
def toy_pair(certainty: int, match: int, prefix: tuple[int, ...]) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    """(p, q) after ``prefix`` on the toy model: the pair of position ``len(prefix)`` from
    :mod:`lab.sampler`, relabelled by the sum of the prefix's tokens (mod 8), so that the next
    token's distribution depends on the path taken and a verifier that mixes up branches shows."""
    p, q = sampler.position_pair(certainty, match, len(prefix))
    shift = sum(prefix) % len(p)
    return p.rotated(shift).probs, q.rotated(shift).probs


def _complete(prefix, weight, length, pair, out):
    """Continue ``prefix`` by sampling the target directly up to ``length`` tokens."""
    if len(prefix) == length:
        out[prefix] = out.get(prefix, ZERO) + weight
        return
    for token, p_x in enumerate(pair(prefix)[0]):
        if p_x:
            _complete(prefix + (token,), weight * p_x, length, pair, out)


def _verify_node(prefix, children, weight, length, pair, out):
    """Try ``children`` (one candidate per child, i.i.d. from q) with the multi-draft rule; an
    accepted child's subtree is verified next; after all rejections one token from the residual."""
    p, q = pair(prefix)
    cur = p
    for child in children:
        kept, rejected = _trial(cur, q)
        for token, mass in enumerate(kept):
            if mass:
                _verify_node(prefix + (token,), child, weight * mass, length, pair, out)
        if rejected == 0:
            return
        weight *= rejected
        cur = _residual(cur, q)
    for token, c_x in enumerate(cur):
        if c_x:
            _complete(prefix + (token,), weight * c_x, length, pair, out)


def tree_output(shape: tuple, length: int, pair) -> dict[tuple[int, ...], Fraction]:
    """Exact distribution of the first ``length`` tokens: one tree-verified pass over a tree of
    ``shape`` (a node is the tuple of its children's shapes; ``()`` is a leaf), then the target.
    ``pair(prefix) -> (p, q)``. ``length`` must exceed the tree's candidate depth.

    >>> pair = lambda prefix: ((Fraction(1, 2), Fraction(1, 2)), (Fraction(1, 4), Fraction(3, 4)))
    >>> tree_output(((), ()), 2, pair) == target_path_distribution(2, pair)
    True
    """
    out: dict[tuple[int, ...], Fraction] = {}
    _verify_node((), shape, ONE, length, pair, out)
    return out


def target_path_distribution(length: int, pair) -> dict[tuple[int, ...], Fraction]:
    """The target's own distribution of the first ``length`` tokens: prod_t p(s_t | s_<t)."""
    out: dict[tuple[int, ...], Fraction] = {}
    _complete((), ONE, length, pair, out)
    return out


def shape_from_parents(parents: Sequence[int]) -> tuple:
    """The nested-tuple shape of a tree given as parent indices (-1 for the root; children in
    rank order).

    >>> shape_from_parents([-1, 0, 0, 1])
    (((),), ())
    """
    children: list[list[int]] = [[] for _ in parents]
    for node, parent in enumerate(parents):
        if parent >= 0:
            children[parent].append(node)

    def build(node):
        return tuple(build(child) for child in children[node])

    return build(0)


# --- Sequoia's positional model and its dynamic programme -------------------------------------

def rank_probabilities(top1: float, decay: float, ranks: int) -> tuple[float, ...]:
    """The widget's acceptance vector: the b-th candidate, tried after b-1 failures, passes
    with probability top1 * decay**(b-1), so p_b = top1 decay**(b-1) prod_{j<b} (1 - top1 decay**(j-1)),
    and sum p_b <= 1 by construction.

    >>> [round(x, 4) for x in rank_probabilities(0.5, 0.5, 3)]
    [0.5, 0.125, 0.0469]
    """
    probs, survive = [], 1.0
    for rank in range(ranks):
        passes = top1 * decay ** rank
        probs.append(survive * passes)
        survive *= 1 - passes
    return tuple(probs)


class _Table(NamedTuple):
    best: list[list[float]]                  # best[d][n]: at most n nodes, at most d levels
    forests: list[list[list[float]]]         # forests[d][b][m]: exactly b children, at most m nodes
    probs: tuple[float, ...]
    splits: dict                             # (d, n) -> the child subtrees' (d - 1, size), memoised
    shapes: dict                             # (d, n) -> (nodes, levels) of that best subtree, memoised


NEG = float("-inf")


def _capacity(budget: int) -> int:
    """Tables are built for a power-of-two budget, so one table serves every smaller budget
    (the widget's budget slider then reuses the table of the value-vs-budget curve)."""
    capacity = 64
    while capacity < budget:
        capacity *= 2
    return capacity


@lru_cache(maxsize=64)
def _table(rank_probs: tuple[float, ...], budget: int, max_depth: int) -> _Table:
    best = [[0.0] * (budget + 1) for _ in range(max_depth + 1)]
    forests: list[list[list[float]]] = [[] for _ in range(max_depth + 1)]
    best[1] = [0.0] + [1.0] * budget                     # one level: the root alone
    for depth in range(2, max_depth + 1):
        below = best[depth - 1]
        if depth > 2 and below == best[depth - 2]:
            # the same inputs give the same level: a deeper level adds nothing at these budgets
            forests[depth], best[depth] = forests[depth - 1], below
            continue
        rows = [[0.0] * budget]                          # no children: worth 0, whatever m
        for rank, p_b in enumerate(rank_probs, start=1):
            previous = rows[-1]
            if p_b == 0:   # every split adds 0.0 to a non-decreasing row: its best is previous[m - 1]
                rows.append([NEG] * rank + previous[rank - 1:budget - 1])
                continue
            scaled = [p_b * value for value in below[1:]]    # scaled[j - 1]: child `rank` with j nodes
            backwards = previous[::-1]                       # backwards[budget - m:] is previous[m - 1::-1]
            # child `rank` gets j = 1..m nodes, the first rank-1 children share m - j
            rows.append([NEG] * rank + [max(map(add, backwards[budget - m:], scaled)) for m in range(rank, budget)])
        forests[depth] = rows
        best[depth] = [0.0] + [1.0 + max(column) for column in zip(*rows)]
    return _Table(best, forests, rank_probs, {}, {})


def tree_values(rank_probs: Sequence[float], budget: int, max_depth: int) -> list[float]:
    """Best tree value for every node budget 1..budget at most ``max_depth`` levels:
    ``V(n, d) = 1 + max over b and splits of sum_{i<=b} p_i V(n_i, d - 1)`` with
    ``sum n_i <= n - 1`` (Sequoia's DP, ``tree_search.py``), and ``V(n, 1) = 1``.

    >>> [round(v, 4) for v in tree_values((0.6, 0.3), 4, 3)]
    [1.0, 1.6, 1.96, 2.26]
    """
    return _table(tuple(float(x) for x in rank_probs), _capacity(budget), max_depth).best[max_depth][1:budget + 1]


class BestTree(NamedTuple):
    value: float          # expected tokens per verify pass (bonus included)
    parents: list[int]    # breadth-first, children in rank order; -1 for the root
    depth: int            # levels, root included
    nodes: int


def _children_of(table: _Table, depth: int, n: int) -> list[tuple[int, int]]:
    """(depth, nodes) of each child subtree of the best tree with n nodes and depth levels: the
    first maximum in rank order, then in split order, recomputed exactly as the table summed it."""
    key = (depth, n)
    if key in table.splits:
        return table.splits[key]
    children = []
    if depth > 1 and n > 1:
        rows, m = table.forests[depth], n - 1
        target = max(row[m] for row in rows)
        count = next(b for b, row in enumerate(rows) if row[m] == target)
        sizes = []
        for rank in range(count, 0, -1):
            previous, p_b, below = rows[rank - 1], table.probs[rank - 1], table.best[depth - 1]
            values = [previous[m - j] + p_b * below[j] for j in range(1, m + 1)]
            j = values.index(max(values)) + 1
            sizes.append(j)
            m -= j
        children = [(depth - 1, j) for j in reversed(sizes)]
    table.splits[key] = children
    return children


def best_tree(rank_probs: Sequence[float], budget: int, max_depth: int, capacity: int = 0) -> BestTree:
    """The DP's best tree, rebuilt from its table (the first maximum in rank and split order).
    ``capacity`` asks for the table of a larger budget, to share one already built (the tree
    is the same: a table answers every budget up to its own).

    >>> best_tree((0.6, 0.3), 4, 3)
    BestTree(value=2.26, parents=[-1, 0, 0, 1], depth=3, nodes=4)
    """
    table = _table(tuple(float(x) for x in rank_probs), _capacity(max(budget, capacity)), max_depth)
    parents, queue, deepest, head = [-1], [(0, max_depth, budget, 1)], 1, 0
    while head < len(queue):   # breadth first: a stable order, parents before children
        node, depth, n, level = queue[head]
        head += 1
        deepest = max(deepest, level)
        for child_depth, size in _children_of(table, depth, n):
            parents.append(node)
            queue.append((len(parents) - 1, child_depth, size, level + 1))
    return BestTree(table.best[max_depth][budget], parents, deepest, len(parents))


def _shape(table: _Table, depth: int, n: int) -> tuple[int, int]:
    """(nodes, levels) of the best subtree with at most n nodes and depth levels, from the same
    splits :func:`best_tree` walks, without building its parent list."""
    key = (depth, n)
    if key not in table.shapes:
        nodes, levels = 1, 1
        for child_depth, size in _children_of(table, depth, n):
            child_nodes, child_levels = _shape(table, child_depth, size)
            nodes, levels = nodes + child_nodes, max(levels, 1 + child_levels)
        table.shapes[key] = (nodes, levels)
    return table.shapes[key]


def best_tree_shapes(rank_probs: Sequence[float], budget: int, max_depth: int) -> list[tuple[float, int, int]]:
    """``(value, nodes, depth)`` of :func:`best_tree` for every budget 1..budget, sharing one DP
    table and its memoised subtrees: what a curve over the budget needs, at a fraction of the
    cost of rebuilding each tree.

    >>> best_tree_shapes((0.6, 0.3), 4, 3)
    [(1.0, 1, 1), (1.6, 2, 2), (1.96, 3, 3), (2.26, 4, 3)]
    """
    table = _table(tuple(float(x) for x in rank_probs), _capacity(budget), max_depth)
    return [(table.best[max_depth][n], *_shape(table, max_depth, n)) for n in range(1, budget + 1)]


# --- the best trees by ranking nodes ----------------------------------------------------------
#
# In the positional model a tree's value is the sum of its nodes' reaches (the product of p_rank
# along the path; the root reaches 1). A child never reaches more than its parent, and when
# ``rank_probs`` does not increase, rank r + 1 never more than rank r (both hold for the rounded
# products too: rounding is monotone). So the nodes of the depth-limited k-ary tree listed by
# (-reach, level, rank path) put every parent before its children and every sibling after the
# lower-ranked ones: each prefix of the list is a tree, and its first n nodes are worth the most
# any n nodes can be. One heap walk answers every budget at once, in O(n log n), where the DP
# costs O(depth k n**2). Where several trees are equally good the order chooses (higher reach, then
# the shallower node, then the lower ranks), so it draws the shallowest of them, the cheapest to
# draft; the DP chooses among them by the rounding of its sums. The DP stays Sequoia's algorithm
# and the reference of the checks and the tests.


def non_increasing(rank_probs: Sequence[float]) -> bool:
    """Whether no rank is likelier than the one before it: what the ranking needs.

    >>> non_increasing((0.6, 0.2, 0.2)), non_increasing((0.2, 0.6))
    (True, False)
    """
    return all(later <= earlier for earlier, later in zip(rank_probs, rank_probs[1:]))


# Reaches are compared rounded to this many significant bits: the same product taken along two
# paths in two orders can differ in its last bits, and that must not decide between them. Rounding
# is monotone, so parents still come first; 40 bits (about 12 digits, relative) is far above the
# bits that differ and far below any real gap.
REACH_BITS = 40


def _rounded(reach: float) -> float:
    """``reach`` to :data:`REACH_BITS` significant bits (a monotone rounding).

    >>> 0.7 * 0.3 * 0.1 == 0.7 * 0.1 * 0.3, _rounded(0.7 * 0.3 * 0.1) == _rounded(0.7 * 0.1 * 0.3)
    (False, True)
    """
    mantissa, exponent = frexp(reach)
    return ldexp(round(mantissa * (1 << REACH_BITS)), exponent - REACH_BITS)


@lru_cache(maxsize=64)
def _ranked(rank_probs: tuple[float, ...], budget: int, max_depth: int) -> tuple[tuple[float, int, tuple], ...]:
    nodes, heap = [], [(-1.0, 1, (), 1.0, 1.0)]   # (-rounded reach, level, rank path, reach, the parent's reach)
    while heap and len(nodes) < budget:
        _, level, path, reach, parent = heappop(heap)
        nodes.append((reach, level, path))
        # the two nodes that come right after this one among its relatives: its first child and
        # its next sibling (every other node follows one of those)
        if level < max_depth and rank_probs and rank_probs[0] > 0:
            child = reach * rank_probs[0]
            heappush(heap, (-_rounded(child), level + 1, path + (0,), child, reach))
        if path and path[-1] + 1 < len(rank_probs) and rank_probs[path[-1] + 1] > 0:
            sibling = parent * rank_probs[path[-1] + 1]
            heappush(heap, (-_rounded(sibling), level, path[:-1] + (path[-1] + 1,), sibling, parent))
    return tuple(nodes)


def ranked_nodes(rank_probs: Sequence[float], budget: int, max_depth: int) -> tuple[tuple[float, int, tuple], ...]:
    """The first ``budget`` nodes of positive reach, as (reach, level, rank path), in the order
    (-reach to :data:`REACH_BITS` bits, level, path): for a non-increasing ``rank_probs``,
    the first n of them are a best tree of n nodes (fewer if fewer nodes have positive reach).

    >>> [(round(r, 2), level, path) for r, level, path in ranked_nodes((0.6, 0.3), 4, 3)]
    [(1.0, 1, ()), (0.6, 2, (0,)), (0.36, 3, (0, 0)), (0.3, 2, (1,))]
    """
    probs = tuple(float(x) for x in rank_probs)
    if not non_increasing(probs):
        raise LabValueError(f"ranking needs rank probabilities that do not increase, got {probs}")
    return _ranked(probs, budget, max_depth)


def _parents_of(paths) -> list[int]:
    """Parent indices of a tree given as rank paths, breadth first with children in rank order
    (the order :func:`best_tree` lists them in)."""
    members, parents, level = set(paths), [-1], [((), 0)]
    while level:
        following = []
        for path, index in level:
            rank = 0
            while path + (rank,) in members:
                parents.append(index)
                following.append((path + (rank,), len(parents) - 1))
                rank += 1
        level = following
    return parents


def ranked_tree_shapes(rank_probs: Sequence[float], budget: int, max_depth: int) -> list[tuple[float, int, int]]:
    """(value, nodes, depth) of the ranked best tree for every budget 1..budget: what
    :func:`best_tree_shapes` gives by the DP (values equal to rounding; nodes and depth equal
    unless equally good trees differ in them, where the ranking's order chooses).

    >>> ranked_tree_shapes((0.6, 0.3), 4, 3)
    [(1.0, 1, 1), (1.6, 2, 2), (1.96, 3, 3), (2.26, 4, 3)]
    """
    shapes, total, deepest = [], 0.0, 0
    nodes = ranked_nodes(rank_probs, budget, max_depth)
    for reach, level, _ in nodes:
        total, deepest = total + reach, max(deepest, level)
        shapes.append((total, len(shapes) + 1, deepest))
    return shapes + [shapes[-1]] * (budget - len(shapes))


def ranked_best_tree(rank_probs: Sequence[float], budget: int, max_depth: int, capacity: int = 0) -> BestTree:
    """The best tree of at most ``budget`` nodes as the first nodes of :func:`ranked_nodes`
    (``capacity`` ranks that many, to share the ranking of a larger budget).

    >>> ranked_best_tree((0.6, 0.3), 4, 3)
    BestTree(value=2.26, parents=[-1, 0, 0, 1], depth=3, nodes=4)
    """
    kept = ranked_nodes(rank_probs, max(budget, capacity), max_depth)[:budget]
    return BestTree(sum(reach for reach, _, _ in kept), _parents_of(path for _, _, path in kept),
                    max(level for _, level, _ in kept), len(kept))


def fast_best_tree(rank_probs: Sequence[float], budget: int, max_depth: int, capacity: int = 0) -> BestTree:
    """What the widget and the CLI show: :func:`ranked_best_tree` when the ranking applies
    (``rank_probs`` non-increasing), else the DP's :func:`best_tree`.

    >>> fast_best_tree((0.2, 0.6), 3, 2) == best_tree((0.2, 0.6), 3, 2)
    True
    """
    if non_increasing(tuple(rank_probs)):
        return ranked_best_tree(rank_probs, budget, max_depth, capacity)
    return best_tree(rank_probs, budget, max_depth, capacity)


def fast_tree_shapes(rank_probs: Sequence[float], budget: int, max_depth: int) -> list[tuple[float, int, int]]:
    """:func:`ranked_tree_shapes` when the ranking applies, else the DP's :func:`best_tree_shapes`."""
    if non_increasing(tuple(rank_probs)):
        return ranked_tree_shapes(rank_probs, budget, max_depth)
    return best_tree_shapes(rank_probs, budget, max_depth)


def tree_value(parents: Sequence[int], rank_probs: Sequence) -> float | Fraction:
    """Sum over nodes of the product of p_rank along the path (the root counts 1); a child's
    rank is its position among its parent's children. Exact if ``rank_probs`` are Fractions.

    >>> tree_value([-1, 0, 0, 1], (Fraction(1, 2), Fraction(1, 4)))
    Fraction(2, 1)
    """
    reach, seen = [], {}
    for parent in parents:
        if parent < 0:
            reach.append(rank_probs[0] ** 0)
            continue
        rank = seen.get(parent, 0)
        seen[parent] = rank + 1
        reach.append(reach[parent] * rank_probs[rank])
    return sum(reach[1:], reach[0])


def chain_value(top1: float, budget: int, max_depth: int) -> float:
    """A chain's value ``sum_{i < n} p_1**i`` with ``n = min(budget, max_depth)`` nodes: the ledger's
    tokens per call at lookahead ``n - 1`` (:func:`lab.ledger.expected_tokens_per_call`); 0 with no node.

    >>> chain_value(0.5, 10, 3)
    1.75
    """
    nodes = min(budget, max_depth)
    return expected_tokens_per_call(top1, nodes - 1) if nodes > 0 else 0.0


# --- acceptance that falls with depth: a curve's positions, one per level ---------------

def depth_rank_probabilities(rates: Sequence[float], decay: float, ranks: int, depth: int) -> tuple[tuple, ...]:
    """The rank probabilities at each level 1..``depth`` of a tree from a conditional acceptance
    curve: level ``i`` uses position ``i``'s rate as its top-1 acceptance (:func:`rank_probabilities`
    at ``rates[i - 1]``), the last rate repeated past the curve (as the instruments continue a curve).
    A tree of depth d uses positions 1..d only.

    >>> [[round(p, 3) for p in level] for level in depth_rank_probabilities([0.8, 0.5], 0.5, 2, 3)]
    [[0.8, 0.08], [0.5, 0.125], [0.5, 0.125]]
    """
    return tuple(rank_probabilities(rates[min(level, len(rates) - 1)], decay, ranks) for level in range(depth))


def _depth_reaches(parents: Sequence[int], probs_by_depth) -> list[tuple[int, float]]:
    """Each node's (level, reach): the product of its path's rank probabilities, the level's own."""
    out, seen = [], {}
    for parent in parents:
        if parent < 0:
            out.append((0, 1.0))
            continue
        rank = seen.get(parent, 0)
        seen[parent] = rank + 1
        level = out[parent][0] + 1
        out.append((level, out[parent][1] * probs_by_depth[level - 1][rank]))
    return out


def tree_value_by_depth(parents: Sequence[int], probs_by_depth) -> float:
    """:func:`tree_value` with rank probabilities that change with depth (``probs_by_depth[i - 1]``
    at level i): the tokens a verify pass commits on average when acceptance falls with position.
    With the same probabilities at every level it is :func:`tree_value`; a chain's is the curve's
    mean acceptance length at k = nodes - 1.

    >>> tree_value_by_depth([-1, 0, 1], ((0.8,), (0.5,)))
    2.2
    """
    return sum(reach for _, reach in _depth_reaches(parents, probs_by_depth))


def depth_profile(parents: Sequence[int], probs_by_depth) -> list[dict]:
    """Per level 1..depth of the tree: the top-1 acceptance there (the curve's position), how many
    nodes the tree puts there, and the tokens they add on average (the sum of their reaches).

    >>> [(row["depth"], row["top1"], row["nodes"], round(row["tokens"], 3)) for row in depth_profile([-1, 0, 0, 1], ((0.8, 0.1), (0.5, 0.2)))]
    [(1, 0.8, 2, 0.9), (2, 0.5, 1, 0.4)]
    """
    reaches = _depth_reaches(parents, probs_by_depth)
    depth = max(level for level, _ in reaches)
    return [{"depth": level, "top1": probs_by_depth[level - 1][0],
             "nodes": sum(1 for lv, _ in reaches if lv == level),
             "tokens": sum(reach for lv, reach in reaches if lv == level)} for level in range(1, depth + 1)]


def depth_best_tree(probs_by_depth, budget: int, max_depth: int) -> BestTree:
    """The best tree of at most ``budget`` nodes and ``max_depth`` levels (root included) when the
    rank probabilities change with depth (``probs_by_depth[i - 1]`` at level i below the root, as
    :func:`depth_rank_probabilities` gives them from a curve): the tree's budget goes where the depth
    profile says acceptance is, not where one top-1 rate at every level would put it.

    The nodes in order of reach, best first (:func:`ranked_nodes`' search, the level's own
    probabilities for each child): every node's reach is at most its parent's (a probability is at
    most 1) and at most its previous sibling's (each level's rank probabilities do not increase), so
    the n largest reaches form a tree, and no tree of n nodes holds more. Its value is
    :func:`tree_value_by_depth` on the tree it returns.

    >>> depth_best_tree(((0.6, 0.3), (0.6, 0.3)), 4, 3) == ranked_best_tree((0.6, 0.3), 4, 3)
    True
    >>> depth_best_tree(((0.9, 0.3), (0.2, 0.1)), 3, 3).parents, ranked_best_tree((0.9, 0.3), 3, 3).parents
    ([-1, 0, 0], [-1, 0, 1])

    (level 2 accepts 20%, not 90%: the depth-aware tree widens level 1 where one rate would deepen.)
    """
    levels = [tuple(float(p) for p in level) for level in probs_by_depth]
    for level in levels:
        if not non_increasing(level) or not all(0 <= p <= 1 for p in level):
            raise LabValueError(f"each level's rank probabilities lie in [0, 1] and do not increase, got {level}")
    if budget < 1 or max_depth < 1:
        raise LabValueError(f"a tree has at least one node and one level, got {budget} and {max_depth}")
    nodes, heap = [], [(-1.0, 1, (), 1.0, 1.0)]   # (-rounded reach, level, rank path, reach, the parent's reach)
    while heap and len(nodes) < budget:
        _, level, path, reach, parent = heappop(heap)
        nodes.append((reach, level, path))
        below = levels[level - 1] if level <= len(levels) else ()
        if level < max_depth and below and below[0] > 0:   # the first child, at the next level's rates
            heappush(heap, (-_rounded(reach * below[0]), level + 1, path + (0,), reach * below[0], reach))
        own = levels[level - 2] if path else ()
        if path and path[-1] + 1 < len(own) and own[path[-1] + 1] > 0:   # the next sibling, at this level's
            sibling = parent * own[path[-1] + 1]
            heappush(heap, (-_rounded(sibling), level, path[:-1] + (path[-1] + 1,), sibling, parent))
    return BestTree(sum(reach for reach, _, _ in nodes), _parents_of(path for _, _, path in nodes),
                    max(level for _, level, _ in nodes), len(nodes))


def chain_parents(nodes: int) -> list[int]:
    """The chain as parent indices: [-1, 0, 1, ...]."""
    return [-1] + list(range(nodes - 1))


# --- what a verify pass costs ------------------------------------------------------------------

def ledger_verify_ms(nodes: int, target_ms: float, verify_tax: float) -> float:
    """The ledger's verify cost for a tree of ``nodes`` (root included): a chain of N nodes
    carries k = N - 1 drafts, and the ledger charges ``target (1 + (k - 1) tax)``
    (:func:`lab.ledger.verify_ms`); a lone root is plain decoding. This is the seam where a serving roofline (a target step with n = N
    tokens per sequence) can replace the ledger's linear tax.

    >>> round(ledger_verify_ms(6, 80, 3), 9)     # the ledger's verifyMs at lookahead 5
    89.6
    """
    return _ledger_verify_ms(max(1, nodes - 1), target_ms, verify_tax)


class TreeCost(NamedTuple):
    draftMs: float
    verifyMs: float
    cycleMs: float
    msPerToken: float
    speedup: float


def tree_cost(value: float, nodes: int, depth: int, *, target_ms: float = 80, draft_cost: float = 12,
              overhead_ms: float = 6, verify_tax: float = 3, verify_ms=ledger_verify_ms) -> TreeCost:
    """One cycle of tree speculation: one draft pass per level below the root (Sequoia's
    ``d * draft_time``), one verify pass over ``nodes`` tokens, the overhead; ``value`` tokens.

    >>> round(tree_cost(3.214590, 6, 6).speedup, 4)   # the ledger's default chain, m = 5
    1.7909
    """
    settings = LedgerSettings(acceptance=0, draftCost=draft_cost, lookahead=max(1, nodes - 1),
                              overheadMs=overhead_ms, targetMs=target_ms, verifyTax=verify_tax)
    draft, verify, cycle = cycle_costs(settings, settings.lookahead, draft_passes=depth - 1,
                                       verify=verify_ms(nodes, target_ms, verify_tax))
    return TreeCost(draft, verify, cycle, *per_token_and_speedup(target_ms, cycle, value))


# --- the same cycle under the serving roofline ------------------------------------------------

ROOFLINE_BATCH, ROOFLINE_CONTEXT = 1, 1024  # one sequence, a 1024-token context


def roofline_verify_ms(settings, batch: int = ROOFLINE_BATCH, context: int = ROOFLINE_CONTEXT):
    """A ``verify_ms`` for :func:`tree_cost` from part two's roofline: verifying a tree of
    ``nodes`` is one target step with ``n = nodes`` new tokens per sequence,
    :func:`lab.serving.step_time_ms` at ``settings`` (a ``ServingSettings``), ``batch`` and
    ``context``. The ledger's ``target_ms`` and ``verify_tax`` are not used: the hardware sets
    the price. At batch 1 the step streams the weights whatever N is, so it is flat in N until
    its FLOPs catch up with its bytes (:func:`roofline_ridge_nodes`).

    >>> from lab import serving
    >>> verify = roofline_verify_ms(serving.DEFAULT_SETTINGS)
    >>> verify(1, 80, 3) == verify(64, 80, 3)   # memory-bound: 64 tokens cost what one does
    True
    """
    from . import serving

    target = serving.TARGETS[settings.target]

    def verify_ms(nodes: int, target_ms: float = 0.0, verify_tax: float = 0.0) -> float:
        return serving.step_time_ms(target, settings, batch, nodes, context)

    return verify_ms


def roofline_tree_cost(value: float, nodes: int, depth: int, settings, *, batch: int = ROOFLINE_BATCH,
                       context: int = ROOFLINE_CONTEXT) -> TreeCost:
    """:func:`tree_cost` with every price from the roofline at ``settings``: plain decoding is
    the target's one-token step, each tree level below the root costs one draft step
    (:func:`lab.serving.draft_step_ms`; at batch 1 a level's few tokens stream the draft's
    weights once, like one token), the verify pass is :func:`roofline_verify_ms`, and the
    per-pass fixed cost is already inside each step (no separate overhead)."""
    from . import serving

    plain = serving.step_time_ms(serving.TARGETS[settings.target], settings, batch, 1, context)
    draft = serving.draft_step_ms(settings, batch, context)
    return tree_cost(value, nodes, depth, target_ms=plain, draft_cost=100 * draft / plain, overhead_ms=0.0,
                     verify_tax=0.0, verify_ms=roofline_verify_ms(settings, batch, context))


def roofline_ridge_nodes(settings, batch: int = ROOFLINE_BATCH, context: int = ROOFLINE_CONTEXT,
                         limit: int = 1 << 20) -> int:
    """The fewest tree nodes whose verify step is compute-bound (:func:`lab.serving.step_regime`):
    below it the verify step costs what a one-token step does. ``limit`` if none up to it is.

    >>> from lab import serving
    >>> roofline_ridge_nodes(serving.DEFAULT_SETTINGS.with_(gpu="a100-80g"))
    116
    """
    from . import serving

    target = serving.TARGETS[settings.target]
    bound = lambda n: serving.step_regime(target, settings, batch, n, context) == "compute-bound"  # noqa: E731
    if not bound(limit):
        return limit
    low, high = 1, limit   # the regime flips once: FLOPs grow with n, bytes do not
    if bound(low):
        return low
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if bound(middle) else (middle, high)
    return high
