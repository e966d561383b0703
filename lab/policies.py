"""Part two, instrument three: lookahead policies on bursty acceptance, as exact long-run averages.

**Acceptance processes.** Text positions carry a hidden *acceptance state* that evolves as a
Markov chain, one step per position, whatever the decoder does; a draft token proposed for a
position in state ``x`` survives verification with probability ``alpha_x`` (independently of
everything else given the state). Four processes:

* :func:`iid`: one state, every draft survives with probability ``alpha``.
* :func:`bursty`: two states, *good* and *bad*, with the same long-run mean ``alpha``. The good
  state has stationary probability ``pi_g = alpha`` and rate ``alpha_g = alpha + h (1 - alpha)``,
  the bad state ``pi_b = 1 - alpha`` and ``alpha_b = alpha (1 - h)``, with contrast
  ``h = 3/4`` (:data:`CONTRAST`), so ``pi_g alpha_g + pi_b alpha_b = alpha`` for every ``h``.
  Burstiness ``b`` (percent) is the chain's persistence ``rho = b / 100``: each position keeps its
  state with probability ``rho`` and otherwise redraws it from ``(pi_g, pi_b)``, so
  ``T = rho I + (1 - rho) 1 pi``, lag-one correlation ``rho`` and mean stretch lengths
  ``1 / ((1 - rho) pi_b)`` (good) and ``1 / ((1 - rho) pi_g)`` (bad). At ``b = 0`` the states are
  drawn afresh at every position, so each acceptance is Bernoulli(``pi_g alpha_g + pi_b
  alpha_b``) = Bernoulli(``alpha``), independently: exactly the iid process in law (the check
  ``burstiness-zero-is-iid`` compares the numbers of every policy that does not observe the hidden
  state on the two; the iid process's draft confidence is the bursty one's with types drawn afresh,
  :func:`_type_levels`, so the threshold policy agrees too).
* :func:`toy`: the exact sampler's toy model (:mod:`lab.sampler`): the state is the position's
  slot (period 12), ``alpha_t = lab.sampler.position_alpha``, and the draft's own probabilities
  are known, so the confidence-threshold policy reads the draft's real ``q_t(x)``.
* :func:`depth_curve`: a measured per-depth conditional curve ``a_1, a_2, ...``:
  ``P(draft i survives | drafts 1..i-1 survived) = a_i`` (the last value holds beyond the list).

**Cost of one cycle** in target-step units (the conventions of :mod:`lab.ledger`), for ``n`` drafts:
``n c + 1 + (n - 1) tax + overhead`` with ``c = draftCost/100``, ``tax = verifyTax/100`` and
``overhead = overheadMs / targetMs``; with tax and overhead 0 it is Leviathan's ``n c + 1``.

**Policies** (each a Markov chain over (policy state, acceptance state at the cycle's start)):
static ``k``; the best static ``k`` in 1..64; Hugging Face's heuristic (start 5, ``+2`` after a
fully accepted block, else ``-1`` with floor 1: ``AssistedCandidateGenerator.update_candidate_strategy``
in ``src/transformers/generation/candidate_generator.py``); a confidence threshold (stop drafting
after the first draft token whose own probability is below the threshold, at most 20 drafts, as
Hugging Face's dynamic mode); the no-waste oracle (drafts exactly the tokens that will survive);
and a state-aware policy (a lookahead ``k_x`` per acceptance state ``x`` at the cycle's start,
the best such choice: see :func:`state_aware_policy`).

**Long-run averages** are renewal-reward ratios under the chain's stationary law ``pi``:
``speedup = E_pi[tokens per cycle] / E_pi[cost per cycle]`` (not the mean of per-cycle ratios).
``pi`` is solved directly by the GTH elimination (:func:`stationary`); the heuristic's unbounded
lookahead is truncated at ``K_max`` chosen from a proven bound on the untruncated chain's mass
above ``K_max`` (:func:`heuristic_tail_bound`, below :data:`TRUNCATION_TOLERANCE`).
"""

from fractions import Fraction
import math
from .errors import LabValueError

__all__ = [
    "Costs", "Process", "iid", "bursty", "toy", "depth_curve", "received_curve", "CONTRAST", "MAX_STATIC", "THRESHOLD_CAP",
    "HEURISTIC_START", "stationary", "static_policy", "best_static", "heuristic_policy", "threshold_policy",
    "oracle_policy", "state_aware_policy", "evaluate_policies", "POLICY_NAMES", "heuristic_tail_bound",
    "heuristic_truncation", "oracle_bound", "TRUNCATION_TOLERANCE", "cached",
]

CONTRAST = 0.75             # h: how far the good and bad states sit from the mean alpha
MAX_STATIC = 64             # best static k is searched in 1..64
THRESHOLD_CAP = 20          # Hugging Face's num_assistant_tokens in its dynamic (confidence) mode
HEURISTIC_START = 5         # Hugging Face's heuristic starts at 5 (irrelevant to the long-run law)
CONFIDENCE_SHARPNESS = 0.5  # sigma of the calibrated two-level confidence model (iid, bursty, curve)
TRUNCATION_TOLERANCE = 1e-10  # stationary mass the heuristic's truncation may cut (bound, not estimate)
POLICY_NAMES = ("static", "best-static", "heuristic", "threshold", "oracle", "state-aware")


# --- costs ------------------------------------------------------------------------------------

class Costs:
    """Cycle cost in target steps: ``n c + 1 + (n - 1) tax + overhead`` for ``n`` drafts.

    >>> Costs(0.12).cycle(5)   # Leviathan: 5 * 0.12 + 1
    1.6
    >>> round(Costs(0.12, 0.03, 6 / 80).cycle(5), 6)  # the ledger's default: 143.6 ms / 80 ms
    1.795
    """

    __slots__ = ("draft", "tax", "overhead")

    def __init__(self, draft: float, tax: float = 0.0, overhead: float = 0.0):
        self.draft, self.tax, self.overhead = float(draft), float(tax), float(overhead)

    def cycle(self, drafts: float) -> float:
        """Expected cost of a cycle with ``drafts`` expected drafts (the cost is linear in it)."""
        return drafts * self.draft + 1 + (drafts - 1) * self.tax + self.overhead

    def __repr__(self):
        return f"Costs({self.draft!r}, {self.tax!r}, {self.overhead!r})"


# --- acceptance processes ---------------------------------------------------------------------

class Process:
    """A hidden Markov acceptance process: ``states`` (names), ``transition`` (per position),
    ``rates`` (``alpha`` per state) or ``depth_rates`` (one state, ``alpha`` per depth), and
    ``levels``: per state, the draft's confidence law as ``(weight, confidence, accepted mass)``
    triples (weights sum to 1, accepted masses to ``alpha``)."""

    def __init__(self, name, states, transition, rates, levels, depth_rates=None, stationary_law=None,
                 measured_depth=None):
        self.name, self.states = name, tuple(states)
        self.transition = tuple(tuple(float(p) for p in row) for row in transition)
        self.rates = tuple(float(a) for a in rates)
        self.levels = tuple(tuple(level) for level in levels)
        self.depth_rates = tuple(float(a) for a in depth_rates) if depth_rates else None
        self.stationary_law = stationary_law
        # a depth curve's measured depths (the rates past them were extrapolated: received_curve)
        self.measured_depth = measured_depth if measured_depth is not None else (
            len(self.depth_rates) if self.depth_rates else None)

    @property
    def size(self) -> int:
        return len(self.states)

    def alpha(self, state: int, depth: int) -> float:
        """Survival probability of the draft at ``depth`` (1-based) in a position of ``state``."""
        if self.depth_rates:
            return self.depth_rates[min(depth, len(self.depth_rates)) - 1]
        return self.rates[state]

    def confidence_levels(self, state: int, depth: int):
        if self.depth_rates:
            return _calibrated_levels(self.alpha(state, depth))
        return self.levels[state]

    def max_alpha(self) -> float:
        return max(self.depth_rates or self.rates)

    def tail_alpha(self) -> float:
        """The rate that holds ever deeper: a curve's last value, else the largest state's rate. At 1
        a block of any length can be accepted whole for ever (the heuristic and the oracle then
        have no long-run law); a rate of 1 at a shallower depth of a curve is fine."""
        return self.depth_rates[-1] if self.depth_rates else self.max_alpha()

    def full_block_bound(self, k: int) -> float:
        """An upper bound on the chance that a block of ``k`` drafts is accepted whole, whatever the
        acceptance state: a curve's ``a_1 ... a_k`` (its last value repeated), else ``max_alpha ** k``.

        >>> depth_curve([1.0, 0.5]).full_block_bound(3), iid(0.5).full_block_bound(3)
        (0.25, 0.125)
        """
        if not self.depth_rates:
            return self.max_alpha() ** k
        rates = self.depth_rates
        product = math.prod(rates[:k])
        return product * rates[-1] ** max(0, k - len(rates))

    def step(self, state: int, rng) -> int:
        """The next position's state, sampled (one ``rng.random()``)."""
        u, total = rng.random(), 0.0
        row = self.transition[state]
        for nxt, p in enumerate(row):
            total += p
            if u < total:
                return nxt
        return max(i for i, p in enumerate(row) if p > 0)


def _calibrated_levels(alpha: float, sharpness: float = CONFIDENCE_SHARPNESS):
    """A calibrated two-level confidence (``P(accept | confidence u) = u``) with mean ``alpha``:
    ``u_hi = alpha + s (1 - alpha)`` with probability ``alpha``, ``u_lo = alpha (1 - s)`` otherwise.

    >>> [tuple(round(x, 4) for x in level) for level in _calibrated_levels(0.6)]
    [(0.6, 0.8, 0.48), (0.4, 0.3, 0.12)]
    """
    high, low = alpha + sharpness * (1 - alpha), alpha * (1 - sharpness)
    return ((alpha, high, alpha * high), (1 - alpha, low, (1 - alpha) * low))


def _type_levels(alpha: float, contrast: float = CONTRAST):
    """The confidence law of a position whose latent type (good with probability ``alpha``, else
    bad; the types of :func:`bursty`) is drawn afresh: the two types' calibrated levels, mixed.

    >>> round(sum(w for w, _, _ in _type_levels(0.7)), 12), round(sum(a for _, _, a in _type_levels(0.7)), 12)
    (1.0, 0.7)
    """
    good, bad = bursty_rates(alpha, contrast)
    return tuple((weight * w, u, weight * a) for weight, rate in ((alpha, good), (1 - alpha, bad))
                 for w, u, a in _calibrated_levels(rate))


def iid(alpha: float) -> Process:
    """Every draft survives with probability ``alpha``, independently. Its draft confidence is that
    of :func:`bursty` with its types drawn afresh at every position (:func:`_type_levels`), so that
    ``bursty(alpha, 0)`` is this process in law, confidence included.

    >>> iid(0.74).rates, iid(0.74).transition
    ((0.74,), ((1.0,),))
    """
    return Process("iid", ("all",), ((1.0,),), (alpha,), (_type_levels(alpha),), stationary_law=(1.0,))


def bursty_rates(alpha: float, contrast: float = CONTRAST) -> tuple[float, float]:
    """``(alpha_g, alpha_b) = (alpha + h (1 - alpha), alpha (1 - h))``; with ``pi_g = alpha`` their
    mean is ``alpha`` for any contrast ``h``.

    >>> good, bad = bursty_rates(0.8)
    >>> round(good, 12), round(bad, 12), round(0.8 * good + 0.2 * bad, 12)
    (0.95, 0.2, 0.8)
    """
    return alpha + contrast * (1 - alpha), alpha * (1 - contrast)


def bursty(alpha: float, burstiness: float, contrast: float = CONTRAST) -> Process:
    """Good and bad stretches with mean ``alpha``; ``burstiness`` in percent is the persistence
    ``rho`` of ``T = rho I + (1 - rho) 1 pi`` with ``pi = (alpha, 1 - alpha)``.

    >>> process = bursty(0.6, 50)
    >>> [[round(p, 12) for p in row] for row in process.transition]
    [[0.8, 0.2], [0.3, 0.7]]
    """
    rho = burstiness / 100
    pi = (alpha, 1 - alpha)
    transition = [[(rho if i == j else 0.0) + (1 - rho) * pi[j] for j in range(2)] for i in range(2)]
    rates = bursty_rates(alpha, contrast)
    return Process("bursty", ("good", "bad"), transition, rates, [_calibrated_levels(a) for a in rates],
                   stationary_law=pi)


def toy(certainty, match) -> Process:
    """The exact sampler's toy model: 12 position slots in a cycle, ``alpha_t`` from
    :func:`lab.sampler.position_alpha`, confidence = the draft's own ``q_t(x)`` of the token it drew.

    >>> process = toy(64, 72)
    >>> len(process.states), round(sum(process.rates) / 12, 6)
    (12, 0.839579)
    """
    from . import sampler

    size = len(sampler.FAVOURITES)
    transition = [[1.0 if j == (i + 1) % size else 0.0 for j in range(size)] for i in range(size)]
    rates, levels = [], []
    for slot in range(size):
        p, q = sampler.position_pair(certainty, match, slot)
        rates.append(float(sampler.position_alpha(certainty, match, slot)))
        levels.append(tuple((float(q_x), float(q_x), float(min(p_x, q_x))) for p_x, q_x in zip(p.probs, q.probs)))
    return Process("toy", tuple(f"slot {t}" for t in range(size)), transition, rates, levels,
                   stationary_law=tuple(1 / size for _ in range(size)))


def received_curve(curve, measured: int | None = None, method=None) -> Process:
    """The depth curve an instrument runs on when it receives measured conditional rates (a curve
    token, measured up to depth ``measured``, default all): past the measured depths the acceptance
    model continues the curve (:func:`lab.acceptance.extended_rates`, by the drafter family ``method``'s
    prior, the token's ``~family``, else the pooled one; the continuation the trace
    reader uses) to :data:`MAX_STATIC` depths, never the last rate repeated.

    >>> process = received_curve([0.8, 0.7])
    >>> len(process.depth_rates), process.measured_depth, process.alpha(0, 3) < 0.7
    (64, 2, True)
    """
    from .acceptance import extended_rates

    return depth_curve(extended_rates(curve, MAX_STATIC, measured, method), len(curve) if measured is None else measured)


def depth_curve(curve, measured: int | None = None) -> Process:
    """A measured conditional curve: draft ``i`` of a block survives with probability
    ``curve[i - 1]`` given that drafts ``1..i-1`` did (the last value holds deeper).

    >>> depth_curve([0.9, 0.8, 0.7]).alpha(0, 5)
    0.7
    """
    curve = [float(a) for a in curve]
    if not curve or not all(0 <= a <= 1 for a in curve):
        raise LabValueError("a depth curve is a non-empty list of probabilities in [0, 1]")
    return Process("curve", ("all",), ((1.0,),), (sum(curve) / len(curve),), ((),), depth_rates=curve,
                   stationary_law=(1.0,), measured_depth=measured)


# --- the stationary law -----------------------------------------------------------------------

def stationary(rows):
    """Stationary distribution of an irreducible chain by GTH elimination (Grassmann, Taksar and
    Heyman 1985): subtraction-free, so accurate to rounding, and it keeps a banded chain banded.
    ``rows[i]`` is a dict ``{j: P(i -> j)}`` (each summing to 1). Works on Fractions exactly.

    >>> [str(x) for x in stationary([{0: Fraction(1, 2), 1: Fraction(1, 2)}, {0: Fraction(1, 4), 1: Fraction(3, 4)}])]
    ['1/3', '2/3']
    """
    if len(rows) == 2 and not any(isinstance(p, Fraction) for row in rows for p in row.values()):
        return _two_state_law(rows)
    return _gth(rows)


def _gth(rows):
    """:func:`stationary`'s GTH elimination, for any number of states."""
    n = len(rows)
    matrix = [dict(row) for row in rows]
    incoming = [set() for _ in range(n)]   # who still points at j (fill-in keeps this current)
    for i, row in enumerate(matrix):
        for j in row:
            incoming[j].add(i)
    pivots = [0] * n
    for last in range(n - 1, 0, -1):
        row = matrix[last]
        out = sum(p for j, p in row.items() if j < last)
        if out <= 0:
            raise LabValueError("the chain is reducible: a state cannot reach the states before it")
        pivots[last] = out
        targets = [(j, p) for j, p in row.items() if j < last]
        for i in incoming[last]:
            if i >= last:
                continue
            weight = matrix[i].get(last, 0)
            if not weight:
                continue
            scale = weight / out
            target_row = matrix[i]
            for j, p in targets:
                if j not in target_row:
                    incoming[j].add(i)
                target_row[j] = target_row.get(j, 0) + scale * p
    exact = any(isinstance(p, Fraction) for row in rows for p in row.values())
    pi = [0] * n
    pi[0] = Fraction(1) if exact else 1.0
    for j in range(1, n):
        pi[j] = sum(pi[i] * matrix[i].get(j, 0) for i in incoming[j] if i < j) / pivots[j]
    total = sum(pi)
    return [x / total for x in pi]


def _two_state_law(rows) -> list:
    """:func:`stationary`'s elimination written out for two states of floats, each operation as it does them (so
    the same floats): the pivot ``P(1 -> 0)``, ``pi_1 = 1.0 P(0 -> 1) / pivot`` (0 when state 0 never leaves), both
    divided by ``1.0 + pi_1``. The lookahead-policies' two-state chains (good and bad stretches) take this path.

    >>> rows = [{0: 0.75, 1: 0.25}, {0: 0.1, 1: 0.9}]
    >>> _two_state_law(rows) == _gth(rows), _two_state_law([{0: 1.0}, {0: 0.3, 1: 0.7}]) == _gth([{0: 1.0}, {0: 0.3, 1: 0.7}])
    (True, True)
    """
    if 0 not in rows[1] or not 0 + rows[1][0] > 0:
        raise LabValueError("the chain is reducible: a state cannot reach the states before it")
    pivot = 0 + rows[1][0]
    pi = (0 + 1.0 * rows[0][1] if 1 in rows[0] else 0) / pivot
    total = 0 + 1.0 + pi
    return [1.0 / total, pi / total]


def invariance_residual(rows, pi) -> float:
    """``max_j |(pi P)_j - pi_j|``: zero for a stationary law."""
    image = [0.0] * len(pi)
    for i, row in enumerate(rows):
        for j, p in row.items():
            image[j] += pi[i] * p
    return max(abs(a - b) for a, b in zip(image, pi))


# --- one cycle from one start state: prefix sums over depth -------------------------------------

def _mat_row(vector, transition):
    """``vector T`` for a short dense vector."""
    size = len(vector)
    out = [0.0] * size
    for x, mass in enumerate(vector):
        if mass:
            for y, p in enumerate(transition[x]):
                if p:
                    out[y] += mass * p
    return out


class _Prefix:
    """From start state ``s``, for every depth ``k`` up to ``horizon``: the mass of a fully accepted
    block of ``k`` (``full[k]``), the next-start law after it (``full_next[k] = v_k T``), the
    cumulative next-start law after a rejection at depth ``<= k`` (``rejected_next[k]``) and
    ``token_sum[k] = sum_{i<=k} i R_i`` (a rejection at draft ``i`` commits ``i`` tokens)."""

    def __init__(self, process: Process, start: int, horizon: int):
        size = process.size
        v = [0.0] * size
        v[start] = 1.0
        self.process, self.horizon, self._v = process, 0, v
        self.full, self.full_next = [1.0], [_mat_row(v, process.transition)]
        self.rejected_next, self.token_sum = [[0.0] * size], [0.0]
        self.extend(horizon)

    def extend(self, horizon: int) -> None:
        """Carry the sums on to depth ``horizon`` (nothing when they reach it already): the same recursion
        from where it stopped, so every entry is the float a prefix built to ``horizon`` at once holds
        (a longer prefix serves every shorter horizon, :func:`_prefixes`).

        >>> process = bursty(0.7, 80)
        >>> grown = _Prefix(process, 1, 3); grown.extend(9)
        >>> once = _Prefix(process, 1, 9)
        >>> (grown.full, grown.full_next, grown.rejected_next, grown.token_sum) == (
        ...     once.full, once.full_next, once.rejected_next, once.token_sum)
        True
        """
        process, v = self.process, self._v
        T, size = process.transition, process.size
        for depth in range(self.horizon + 1, horizon + 1):
            accepted = [v[x] * process.alpha(x, depth) for x in range(size)]
            rejected = [v[x] - accepted[x] for x in range(size)]
            v = _mat_row(accepted, T)
            nxt = _mat_row(rejected, T)
            self.full.append(sum(v))
            self.full_next.append(_mat_row(v, T))
            self.rejected_next.append([a + b for a, b in zip(self.rejected_next[-1], nxt)])
            self.token_sum.append(self.token_sum[-1] + depth * sum(rejected))
        if horizon > self.horizon:
            self.horizon, self._v = horizon, v

    def block(self, k: int):
        """(expected tokens, next-start law) of a block of ``k`` drafts."""
        nxt = [a + b for a, b in zip(self.rejected_next[k], self.full_next[k])]
        return self.token_sum[k] + (k + 1) * self.full[k], nxt


def cached(cache: dict | None, process, what: str, args: tuple, compute):
    """``compute()``, kept in ``cache`` (a dict kept with ``process``, see :func:`evaluate_policies`)
    under the one key shape of every entry, ``(id(process), what, args)``: what is kept, and what it
    was computed from beyond the process. With no cache it is computed afresh.

    >>> cache, calls = {}, []
    >>> [cached(cache, "p", "square", (3,), lambda: calls.append(3) or 9) for _ in range(2)], len(calls)
    ([9, 9], 1)
    >>> [key[1:] for key in cache], cached(None, "p", "square", (3,), lambda: 10)
    ([('square', (3,))], 10)
    """
    if cache is None:
        return compute()
    key = (id(process), what, args)
    if key not in cache:
        cache[key] = compute()
    return cache[key]


def _prefixes(process, horizon, cache=None):
    """One :class:`_Prefix` per start state, to depth ``horizon`` at least. With a ``cache`` the process keeps one
    set, carried deeper when a deeper horizon is asked for (:meth:`_Prefix.extend`): its entries up to any depth
    are the floats of a set built to that depth, and every reader indexes depths up to the horizon it asked for.

    >>> process, cache = bursty(0.7, 80), {}
    >>> _prefixes(process, 64, cache) is _prefixes(process, 5, cache), len(_prefixes(process, 90, cache)[0].full)
    (True, 91)
    """
    if cache is None:
        return [_Prefix(process, s, horizon) for s in range(process.size)]
    prefixes = cached(cache, process, "prefixes", (), lambda: [_Prefix(process, s, horizon) for s in range(process.size)])
    for prefix in prefixes:
        prefix.extend(horizon)
    return prefixes


# --- evaluating a chain over acceptance states ------------------------------------------------

def _non_negative(waste: float) -> float:
    """Waste is never negative; the oracle's is zero up to rounding (drafts = survivors)."""
    return 0.0 if waste < 1e-12 else waste


def _summary(pi, tokens, drafts, costs: Costs, extra=None) -> dict:
    """Renewal-reward averages under ``pi``: speedup = E[tokens] / E[cost] (per cycle)."""
    mean_tokens = sum(p * t for p, t in zip(pi, tokens))
    mean_drafts = sum(p * d for p, d in zip(pi, drafts))
    accepted = mean_tokens - 1  # every cycle commits exactly one verifier token
    result = {
        "speedup": mean_tokens / costs.cycle(mean_drafts),
        "tokensPerCall": mean_tokens,
        "meanLookahead": mean_drafts,
        "wastedPerToken": _non_negative(mean_drafts - accepted) / mean_tokens,
    }
    result.update(extra or {})
    return result


def _per_state_chain(process, outcomes, costs, extra=None, detail=False, cache=None, law=None):
    """A policy without memory across cycles: ``outcomes[s] = (tokens, drafts, next law)``.
    ``law`` names the policy in ``cache``: its chain does not depend on the costs, so a second
    price of the same policy reuses the chain's stationary law."""
    def chain():
        rows = [{j: p for j, p in enumerate(nxt) if p > 0} for _, _, nxt in outcomes]
        return rows, stationary(rows) if process.size > 1 else [1.0]

    rows, pi = cached(cache if law is not None else None, process, "law", (law,), chain)
    result = _summary(pi, [o[0] for o in outcomes], [o[1] for o in outcomes], costs, extra)
    if detail:
        result["chain"] = {"rows": rows, "pi": pi}
    return result


def static_policy(process: Process, k: int, costs: Costs, cache=None, detail=False) -> dict:
    """Static lookahead ``k``: tokens ``sum_i i R_i + (k + 1) P(all k survive)``, ``k`` drafts.

    Under iid with no tax or overhead this is Leviathan's ``(1 - a**(k+1)) / ((1 - a)(k c + 1))``:

    >>> from lab.ledger import leviathan_speedup
    >>> abs(static_policy(iid(0.74), 5, Costs(0.12))["speedup"] - leviathan_speedup(0.74, 5, 0.12)) < 1e-12
    True
    """
    outcomes = []
    for prefix in _prefixes(process, k, cache):
        tokens, nxt = prefix.block(k)
        outcomes.append((tokens, k, nxt))
    return _per_state_chain(process, outcomes, costs, detail=detail, cache=cache, law=("static", k))


def _static_outcomes(prefixes, k):
    blocks = [p.block(k) for p in prefixes]
    return [(tokens, k, nxt) for tokens, nxt in blocks]


def best_static(process: Process, costs: Costs, max_k: int = MAX_STATIC, cache=None) -> dict:
    """The static ``k`` in ``1..max_k`` with the largest long-run speedup (the first on a tie,
    like :func:`lab.ledger.best_lookahead`); its numbers plus ``k``. On a measured per-depth curve
    (:func:`depth_curve`) the k comes from the one best-k rule every instrument uses
    (:func:`lab.acceptance.best_lookahead`): never past the curve's plateau start plus one, and the
    result also carries ``plateauStart``, ``capped``, ``uncappedK`` and ``extrapolatedFrom``.

    >>> found = best_static(depth_curve([0.8, 0.5, 0.3, 0.2]), Costs(0.0), 12)
    >>> found["k"], found["plateauStart"], found["capped"]
    (4, 3, True)
    """
    prefixes = _prefixes(process, max_k, cache)

    def speedup_at(k):
        return _speedup_only(process, _static_outcomes(prefixes, k), costs, cache, ("static", k))

    extra = {}
    if process.depth_rates:
        from .acceptance import best_lookahead, token_curve

        found = best_lookahead(speedup_at, token_curve(process.depth_rates, process.measured_depth), max_k)
        best_k = found["k"]
        extra = {name: found[name] for name in ("plateauStart", "capped", "uncappedK", "extrapolatedFrom")}
    else:
        best_k, best_speedup = 0, -math.inf
        for k in range(1, max_k + 1):
            speedup = speedup_at(k)
            if speedup > best_speedup:
                best_k, best_speedup = k, speedup
    return _per_state_chain(process, _static_outcomes(prefixes, best_k), costs, {"k": best_k, **extra}, cache=cache,
                            law=("static", best_k))


def _speedup_only(process, outcomes, costs, cache=None, law=None) -> float:
    """The long-run speedup alone (what the searches compare), as :func:`_summary` computes it."""
    if process.size == 1:
        tokens, drafts, _ = outcomes[0]
        return tokens / costs.cycle(drafts)
    return _per_state_chain(process, outcomes, costs, cache=cache, law=law)["speedup"]


def state_aware_policy(process: Process, costs: Costs, max_k: int = MAX_STATIC, cache=None) -> dict:
    """A lookahead ``k_x`` per acceptance state ``x`` at the cycle's start (the stretch it is in):
    what DISCO and SpecDec++ approximate from signals. With two states (bursty) the pair
    ``(k_good, k_bad)`` is the best of all ``max_k**2`` pairs; with more (the toy model's slots)
    :func:`_policy_iteration` finds the best ``k`` per state from the best static ``k``. Either way
    it is at least the best static policy. One state: the best static ``k``."""
    if process.size == 1:
        best = best_static(process, costs, max_k, cache)
        return {**best, "ks": [best["k"]]}
    # The search depends on the process and the costs only: a step that moves the lookahead,
    # the threshold (or, on the toy model, the acceptance sliders it ignores) reuses its answer.
    result = cached(cache, process, "state-aware", (costs.draft, costs.tax, costs.overhead, max_k),
                    lambda: _state_aware_search(process, costs, max_k, cache))
    return {**result, "ks": list(result["ks"])}  # the kept answer is never handed out to be changed


def _state_aware_search(process: Process, costs: Costs, max_k: int, cache) -> dict:
    """:func:`state_aware_policy`'s search, for two or more acceptance states."""
    prefixes = _prefixes(process, max_k, cache)
    blocks = [[None] + [p.block(k) for k in range(1, max_k + 1)] for p in prefixes]

    def value(ks):
        outcomes = [(blocks[s][k][0], k, blocks[s][k][1]) for s, k in enumerate(ks)]
        return _per_state_chain(process, outcomes, costs, {"ks": list(ks)})

    if process.size == 2:
        best, bad = None, _bad_starts(blocks, max_k)
        for k_good in range(1, max_k + 1):
            row = _two_state_row(blocks, k_good, max_k, costs, bad)
            top = max(row)
            if best is None or top > best[0]:
                best = (top, (k_good, row.index(top) + 1))   # the first maximum, as a scan would keep
        return value(best[1])
    start = [best_static(process, costs, max_k, cache)["k"]] * process.size
    return value(_policy_iteration(blocks, costs, max_k, start))


def _policy_iteration(blocks, costs, max_k, ks):
    """The best lookahead per start state, by Howard's policy iteration (1960) as Jewell extended it
    to maximise a rate of return over a Markov-renewal process ("Markov-Renewal Programming. II:
    Infinite Return Models", 1963): a cycle from state ``s`` with ``k`` drafts earns ``r(s, k)`` tokens, takes
    ``cycle(k)`` target steps and starts the next cycle in ``j`` with probability ``P(s, k, j)``.

    Evaluate ``ks``: solve ``h_s = r(s, k_s) - g cycle(k_s) + sum_j P(s, k_s, j) h_j`` with
    ``h_0 = 0``, where ``g`` is the long-run speedup. Improve: in each state take the ``k`` with the
    largest ``r(s, k) - g cycle(k) + sum_j P(s, k, j) h_j``, keeping ``k_s`` unless another is better
    beyond rounding. No policy comes back (each round raises ``g``, or where ``g`` ties, ``h``), and
    when no state changes no per-state policy has a larger long-run speedup. This needs one
    recurrent class under every policy, as on the toy model: each slot's first draft can be
    rejected (``alpha < 1``), so every slot reaches the next. ``blocks[s][k] = (r(s, k), P(s, k, .))``.

    >>> process, costs = bursty(0.7, 80), Costs(0.12, 0.03, 0.075)
    >>> blocks = [[None] + [p.block(k) for k in range(1, 17)] for p in _prefixes(process, 16)]
    >>> pairs = [(good, bad) for good in range(1, 17) for bad in range(1, 17)]
    >>> best = max(pairs, key=lambda ks: _two_state_speedup(blocks, *ks, costs))
    >>> _policy_iteration(blocks, costs, 16, [1, 1]) == list(best)
    True
    """
    n = len(blocks)
    for _ in range(4 * max_k * n):  # a guard against rounding only: no policy comes back
        # unknowns: g, h_1 .. h_{n-1}
        matrix, rhs = [], []
        for s, k in enumerate(ks):
            tokens, nxt = blocks[s][k]
            row = [costs.cycle(k)] + [(1.0 if j == s else 0.0) - nxt[j] for j in range(1, n)]
            matrix.append(row)
            rhs.append([tokens])
        solution = [x[0] for x in _solve(matrix, rhs)]
        gain, bias = solution[0], [0.0] + solution[1:]
        changed = False
        for s in range(n):
            def score(k):
                tokens, nxt = blocks[s][k]  # noqa: B023 (called in this iteration)
                return tokens - gain * costs.cycle(k) + sum(p * h for p, h in zip(nxt, bias))  # noqa: B023 (called in this iteration)
            current = score(ks[s])
            best_k, best = ks[s], current
            for k in range(1, max_k + 1):
                value = score(k)
                if value > best + 1e-12 * (1 + abs(current)):
                    best_k, best = k, value
            if best_k != ks[s]:
                ks = ks[:s] + [best_k] + ks[s + 1:]
                changed = True
        if not changed:
            return ks
    raise ArithmeticError("policy iteration did not settle")  # rounding only; not seen on any process here


def _two_state_row(blocks, k_good, max_k, costs, bad=None) -> list[float]:
    """:func:`_two_state_speedup` for ``k_bad = 1..max_k`` at once, with the same arithmetic in
    the same order (so the same floats), without a call per pair: the pair search's inner loop.

    >>> process, costs = bursty(0.7, 80), Costs(0.12, 0.03, 0.075)
    >>> blocks = [[None] + [p.block(k) for k in range(1, 9)] for p in _prefixes(process, 8)]
    >>> _two_state_row(blocks, 3, 8, costs) == [_two_state_speedup(blocks, 3, k, costs) for k in range(1, 9)]
    True
    """
    tokens_good, next_good = blocks[0][k_good]
    leave = next_good[1]
    draft, tax, overhead = costs.draft, costs.tax, costs.overhead
    bad = _bad_starts(blocks, max_k) if bad is None else bad
    # per k_bad: pi_good = enter / (leave + enter), tokens = pi_good t_good + (1 - pi_good) t_bad, drafts likewise,
    # and tokens / Costs.cycle(drafts) inlined; one comprehension, each operation as before (the same floats)
    return [((pi := enter / (leave + enter)) * tokens_good + (rest := 1 - pi) * tokens_bad)
            / ((drafts := pi * k_good + rest * k_bad) * draft + 1 + (drafts - 1) * tax + overhead)
            for tokens_bad, enter, k_bad in bad]


def _bad_starts(blocks, max_k) -> list[tuple]:
    """``(tokens, P(bad -> good), k)`` of a block of ``k = 1..max_k`` drafts from a bad start: what
    :func:`_two_state_row` reads of them, gathered once for every row of a search."""
    return [(blocks[1][k][0], blocks[1][k][1][0], k) for k in range(1, max_k + 1)]


def _two_state_speedup(blocks, k_good, k_bad, costs) -> float:
    """Long-run speedup of drafting ``k_good`` from good starts and ``k_bad`` from bad ones: the
    two-state chain's law is ``pi_good = P(bad -> good) / (P(good -> bad) + P(bad -> good))``."""
    tokens_good, next_good = blocks[0][k_good]
    tokens_bad, next_bad = blocks[1][k_bad]
    leave, enter = next_good[1], next_bad[0]
    pi_good = enter / (leave + enter)
    tokens = pi_good * tokens_good + (1 - pi_good) * tokens_bad
    return tokens / costs.cycle(pi_good * k_good + (1 - pi_good) * k_bad)


# --- the no-waste oracle ----------------------------------------------------------------------

def _solve(matrix, rhs_columns):
    """Solve ``matrix X = rhs`` (small, dense) by Gaussian elimination with partial pivoting."""
    n = len(matrix)
    a = [list(row) + list(rhs) for row, rhs in zip(matrix, rhs_columns)]
    width = len(a[0])
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col and a[r][col]:
                f = a[r][col] / a[col][col]
                for c in range(col, width):
                    a[r][c] -= f * a[col][c]
    return [[a[r][c] / a[r][r] for c in range(n, width)] for r in range(n)]


def oracle_policy(process: Process, costs: Costs, cache=None) -> dict:
    """Drafts exactly the tokens that will survive, then lets the verifier write the next one:
    ``j`` survivors cost ``j`` drafts and commit ``j + 1`` tokens, with no waste.

    Per start state, with ``D = diag(alpha) T``: expected survivors ``h = (I - D)^-1 alpha`` and
    next-start law ``(I - D)^-1 diag(1 - alpha) T`` (``sum_i D^i``, no truncation). Under iid it is
    the bound ``1 / (1 - alpha + alpha c)`` (:func:`oracle_bound`):

    >>> round(oracle_policy(iid(0.74), Costs(0.12))["speedup"], 12) == round(oracle_bound(0.74, 0.12), 12)
    True
    """
    if process.tail_alpha() >= 1:
        raise LabValueError("the oracle never stops where the rate that holds ever deeper is 1 (alpha = 1)")
    if process.depth_rates:
        return _oracle_depth_curve(process, costs)
    size, T, rates = process.size, process.transition, process.rates
    system = [[(1.0 if i == j else 0.0) - rates[i] * T[i][j] for j in range(size)] for i in range(size)]
    rhs = [[rates[i]] + [(1 - rates[i]) * T[i][j] for j in range(size)] for i in range(size)]
    solved = _solve(system, rhs)
    outcomes = [(row[0] + 1, row[0], row[1:]) for row in solved]
    return _per_state_chain(process, outcomes, costs)


def _oracle_depth_curve(process, costs):
    curve = process.depth_rates
    survive, expected = 1.0, 0.0
    for a in curve:
        survive *= a
        expected += survive          # P(j >= i)
    last = curve[-1]
    expected += survive * last / (1 - last)  # beyond the curve: geometric with the last rate
    return _summary([1.0], [expected + 1], [expected], costs)


def oracle_bound(alpha: float, draft_cost: float) -> float:
    """The no-waste bound under iid: ``1 / (1 - alpha + alpha c)``.

    >>> oracle_bound(0.5, 0.0)
    2.0
    """
    return 1 / (1 - alpha + alpha * draft_cost)


# --- the confidence threshold -----------------------------------------------------------------

def _split(levels, threshold):
    """(stop & survive, stop & fail, go on & survive, go on & fail) for one draft token: the draft
    stops after a token whose confidence is below ``threshold``."""
    stop_ok = stop_bad = go_ok = go_bad = 0.0
    for weight, confidence, accepted in levels:
        if confidence < threshold:
            stop_ok += accepted
            stop_bad += weight - accepted
        else:
            go_ok += accepted
            go_bad += weight - accepted
    return stop_ok, stop_bad, go_ok, go_bad


def _phantom_drafts(process, threshold, cap):
    """``extra[d][y]``: expected drafts from depth ``d`` on after a rejection, the draft writing on
    from a position in state ``y`` (its text will be discarded; its difficulty evolves as a fork
    of the chain): ``1 + P(go on) sum_y' T[y][y'] extra[d + 1][y']`` and ``1`` at the cap."""
    size, T = process.size, process.transition
    extra = [[0.0] * size for _ in range(cap + 2)]
    for depth in range(cap, 0, -1):
        for y in range(size):
            go = 0.0 if depth == cap else sum(w for w, u, _ in process.confidence_levels(y, depth) if u >= threshold)
            onward = sum(T[y][z] * extra[depth + 1][z] for z in range(size)) if go else 0.0
            extra[depth][y] = 1 + go * onward
    return extra


def threshold_policy(process: Process, threshold: float, costs: Costs, cap: int = THRESHOLD_CAP) -> dict:
    """Draft until a token's own confidence falls below ``threshold`` (that token is still sent),
    at most ``cap`` drafts. Toy model: the confidence is the draft's real ``q_t(x)``; iid, bursty and
    curve processes: a calibrated two-level confidence (:func:`_calibrated_levels`). Threshold 0
    never stops early, so it equals static ``cap``."""
    size, T = process.size, process.transition
    extra = _phantom_drafts(process, threshold, cap)
    outcomes = []
    for s in range(size):
        tokens = drafts = 0.0
        nxt = [0.0] * size
        alive = [0.0] * size
        alive[s] = 1.0
        for depth in range(1, cap + 1):
            following = [0.0] * size
            for x, mass in enumerate(alive):
                if not mass:
                    continue
                stop_ok, stop_bad, go_ok, go_bad = _split(process.confidence_levels(x, depth), threshold)
                if depth == cap:
                    stop_ok, stop_bad, go_ok, go_bad = stop_ok + go_ok, stop_bad + go_bad, 0.0, 0.0
                onward = sum(T[x][z] * extra[depth + 1][z] for z in range(size))
                tokens += mass * ((depth + 1) * stop_ok + depth * (stop_bad + go_bad))
                drafts += mass * (depth * (stop_ok + stop_bad + go_bad) + go_bad * onward)
                for z in range(size):
                    step = T[x][z]
                    if step:
                        following[z] += mass * go_ok * step
                        nxt[z] += mass * (stop_bad + go_bad) * step
                        if stop_ok:   # bonus at the next position, the cycle after it starts one further
                            for w in range(size):
                                nxt[w] += mass * stop_ok * step * T[z][w]
            alive = following
        outcomes.append((tokens, drafts, nxt))
    return _per_state_chain(process, outcomes, costs, {"threshold": threshold})


# --- Hugging Face's heuristic ------------------------------------------------------------------

def _level_bounds(full, tolerance: float):
    """Bounds ``B(m)`` on the stationary mass of lookahead ``m`` (index ``m``; ``B(1) = B(2) = 1``),
    computed until the rest is bounded in closed form, and that closed-form rest. ``full(m)`` bounds
    the chance of a fully accepted block at lookahead ``m`` (``a ** m`` for rates at most ``a``); it
    is non-increasing in ``m`` and tends to 0 (:meth:`Process.tail_alpha` below 1)."""
    bounds = [0.0, 1.0, 1.0]
    m = 2
    while True:
        top = full(m + 1)
        bounds.append(1.0 if top >= 1 else min(1.0, (full(m - 1) * bounds[m - 1] + full(m) * bounds[m]) / (1 - top)))
        m += 1
        top = full(m + 1)
        q = (full(m - 1) + full(m)) / (1 - top) if top < 1 else math.inf
        if q < 0.5:
            rest = 2 * q * max(bounds[m - 1], bounds[m]) / (1 - q)
            if rest < tolerance * 1e-3 or m > 200_000:
                return bounds, rest


def heuristic_tail_bound(max_alpha: float, k_max: int, tolerance: float = TRUNCATION_TOLERANCE) -> float:
    """An upper bound on the stationary mass above lookahead ``k_max`` of the untruncated
    heuristic chain, for any process whose rates are at most ``a = max_alpha < 1``.

    Proof. The lookahead ``m`` moves up by 2 only after a fully accepted block (probability
    ``<= a**m`` whatever the acceptance state) and otherwise down by 1 (to at least 1). In the
    stationary law the flow across the cut between levels ``<= m`` and ``> m`` balances: up-flow
    comes only from levels ``m - 1`` and ``m``, down-flow only from ``m + 1``, so
    ``pi(m+1) (1 - a**(m+1)) <= a**(m-1) pi(m-1) + a**m pi(m)``. From ``pi <= 1`` this recursion
    gives bounds ``B(m)`` (each capped at 1). Past a level ``H`` where
    ``q = (a**(H-1) + a**H) / (1 - a**(H+1)) < 1``, ``B(m+1) <= q max(B(m-1), B(m))``, so each
    further pair of levels holds at most ``q`` times the pair before: the rest is at most
    ``2 q max(B(H-1), B(H)) / (1 - q)``. The bound is the sum of ``B(m)`` over ``k_max < m <= H``
    plus that rest.

    >>> heuristic_tail_bound(0.5, 40) < 1e-12
    True
    >>> heuristic_tail_bound(0.9, 10) > heuristic_tail_bound(0.9, 30)
    True
    """
    if not 0 <= max_alpha < 1:
        return math.inf
    bounds, rest = _level_bounds(lambda m: max_alpha ** m, tolerance)
    return sum(bounds[k_max + 1:]) + rest


def heuristic_truncation(max_alpha: float, tolerance: float = TRUNCATION_TOLERANCE, full=None) -> tuple[int, float]:
    """The smallest ``K_max`` (at least 12) whose tail bound is below ``tolerance``, and the bound.
    ``full(m)`` (default ``max_alpha ** m``) bounds the chance of a fully accepted block at ``m``
    (:meth:`Process.full_block_bound`: a measured curve's own product, so a rate of 1 at one depth
    is allowed); ``max_alpha`` is then the rate that holds ever deeper (:meth:`Process.tail_alpha`).

    >>> heuristic_truncation(0.74)[0] <= 40
    True
    >>> curve = depth_curve([1.0, 0.9, 0.5])
    >>> heuristic_truncation(curve.tail_alpha(), full=curve.full_block_bound)[1] < TRUNCATION_TOLERANCE
    True
    """
    if not 0 <= max_alpha < 1:
        raise LabValueError("the heuristic has no stationary law when the rate that holds ever deeper is 1 "
                            "(alpha = 1: every block is accepted whole, so its lookahead grows without end)")
    bounds, rest = _level_bounds(full or (lambda m: max_alpha ** m), tolerance)
    tail, k = rest, len(bounds) - 1   # tail = bound on the mass above k
    while k > 12 and tail + bounds[k] < tolerance:
        tail += bounds[k]
        k -= 1
    return k, tail


def _heuristic_chain(process, k_max, cache=None):
    """Rows of the (lookahead, acceptance state) chain, truncated at ``k_max`` (a fully accepted
    block at the top stays at the top), and per-state tokens and drafts."""
    size = process.size
    prefixes = _prefixes(process, k_max, cache)
    # A measured curve whose first L rates are 1 accepts every block of L or fewer whole: lookahead L
    # only moves up, so the levels below it are never reached again (no stationary mass); the chain
    # starts at L (at 1 for every other process).
    floor = max([k for k in range(1, k_max) if process.full_block_bound(k) >= 1], default=1)
    index = lambda k, s: (k - floor) * size + s
    rows, tokens, drafts = [], [], []
    for k in range(floor, k_max + 1):
        up, down = min(k + 2, k_max), max(floor, k - 1)
        for prefix in prefixes:
            row = {}
            for z, p in enumerate(prefix.full_next[k]):
                if p > 0:
                    row[index(up, z)] = row.get(index(up, z), 0.0) + p
            for z, p in enumerate(prefix.rejected_next[k]):
                if p > 0:
                    row[index(down, z)] = row.get(index(down, z), 0.0) + p
            rows.append(row)
            tokens.append(prefix.block(k)[0])
            drafts.append(k)
    return rows, tokens, drafts


def heuristic_policy(process: Process, costs: Costs, cache=None, detail=False) -> dict:
    """Hugging Face's schedule: ``k += 2`` after a fully accepted block, else ``k = max(1, k - 1)``,
    no cap; truncated at ``K_max`` with the proven bound :func:`heuristic_tail_bound` on the cut mass
    (reported as ``truncationBound``). The start (5) does not change the long-run law."""
    def chain():  # the chain and its law do not depend on the costs
        k_max, bound = heuristic_truncation(process.tail_alpha(), full=process.full_block_bound)
        rows, tokens, drafts = _heuristic_chain(process, k_max, cache)
        return k_max, bound, rows, tokens, drafts, stationary(rows)

    k_max, bound, rows, tokens, drafts, pi = cached(cache, process, "heuristic", (), chain)
    result = _summary(pi, tokens, drafts, costs, {"kMax": k_max, "truncationBound": bound})
    if detail:
        result["chain"] = {"rows": rows, "pi": pi}
    return result


# --- all policies -------------------------------------------------------------------------------

def evaluate_policies(process: Process, costs: Costs, lookahead: int = 5, threshold: float = 0.4,
                      cache: dict | None = None) -> dict:
    """Every policy's long-run numbers at one setting, keyed by :data:`POLICY_NAMES`; for
    ``best-static`` the mean lookahead is the best ``k``. ``cache`` (a dict kept with
    ``process``, which must outlive it) carries what does not depend on the costs, the lookahead
    or the threshold to the next call on the same process (prefix sums, the chains' laws), and
    the state-aware search's answer per costs."""
    cache = {} if cache is None else cache
    horizon = MAX_STATIC
    _prefixes(process, horizon, cache)
    best = best_static(process, costs, MAX_STATIC, cache)
    return {
        "static": static_policy(process, lookahead, costs, cache),
        "best-static": best,
        "heuristic": heuristic_policy(process, costs, cache),
        "threshold": threshold_policy(process, threshold, costs),
        "oracle": oracle_policy(process, costs),
        "state-aware": state_aware_policy(process, costs, MAX_STATIC, cache),
    }


def setting_costs(values: dict) -> Costs:
    """Costs from slider/flag values in percent and ms (the ledger's units).

    >>> round(setting_costs({"draftCost": 12, "verifyTax": 3, "overheadMs": 6, "targetMs": 80}).cycle(5) * 80, 9)
    143.6
    """
    return Costs(values["draftCost"] / 100, values.get("verifyTax", 0) / 100,
                 values.get("overheadMs", 0) / values.get("targetMs", 80))


def setting_process(values: dict) -> Process:
    """iid at burstiness 0, else bursty, at ``acceptance`` percent."""
    alpha = values["acceptance"] / 100
    return iid(alpha) if values.get("burst", 0) == 0 else bursty(alpha, values["burst"])


def evaluate_setting(values: dict) -> dict:
    """:func:`evaluate_policies` for slider/flag values (acceptance, draftCost, lookahead, burst,
    threshold in percent; verifyTax, overheadMs, targetMs as the ledger's)."""
    return evaluate_policies(setting_process(values), setting_costs(values), int(values.get("lookahead", 5)),
                             values.get("threshold", 40) / 100)

