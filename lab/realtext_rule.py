"""The rule on real text (:mod:`lab.realtext`): part three's rejection rule on rows of a model, the proposers,
one cycle, and the exact law of the token a cycle commits.

One cycle (:func:`run_cycle`): the proposer drafts k tokens (all random draws for drafts first), then
:func:`verify_block` judges them in order: keep draft x iff ``u < min(1, p(x)/q(x))``; the first
rejection commits a token from ``norm(max(0, p - q))``; if all survive, a bonus token from the next p
row. The order of draws is :func:`lab.sampler.verify`'s. :func:`first_token_law` runs
:func:`verify_block` itself under :func:`lab.sampler.uniform_law` on exact rows, so the checks
compare the law of the code that decodes, not of a formula.
"""

from __future__ import annotations

import math
from fractions import Fraction
from operator import mul, sub
from random import Random  # noqa: F401 (the examples draw with it)

from .realtext_rows import RESIDUAL_DRAWS, ChainRow, Model, OneHotRow, Row, TemperedRow, argmax, sample_row
from .realtext_rows import _example_model  # noqa: F401 (the examples' model)

__all__ = ["PROMPT_LOOKUP", "PROPOSERS", "ResidualRow", "acceptance_probability", "residual", "overlap",
           "verify_block", "prompt_lookup", "Drafts", "propose", "run_cycle", "first_alpha", "first_token_law"]

PROMPT_LOOKUP = (2, 5)         # (prompt_lookup_min, prompt_lookup_max) of the ngram proposer
PROPOSERS = ("draft", "draft-greedy", "ngram")
ZERO = Fraction(0)


class ResidualRow:
    """``norm(max(0, p - q))`` of two rows, sampled by rejection from p: draw y from p, keep it
    with chance ``(p(y) - q(y)) / p(y)`` (one more ``rng.random()``), else draw again. A draw is
    kept with chance ``sum max(0, p - q) = 1 - overlap``, so it takes ``1 / (1 - overlap)`` draws
    on average; a rejection itself happens with chance ``1 - overlap``, so per verifier position
    the expected work is one draw, and no whole row is read. After :data:`RESIDUAL_DRAWS` draws
    kept none (a residual of almost no mass) it samples the residual token by token."""

    __slots__ = ("p", "q")

    def __init__(self, p: Row, q: Row):
        self.p, self.q = p, q

    def sample(self, rng) -> int:
        p, q = self.p, self.q
        for _ in range(RESIDUAL_DRAWS):
            token = p.sample(rng)
            p_x = p[token]
            if rng.random() * p_x < p_x - q[token]:
                return token
        return sample_row(self.dense(), rng)

    def dense(self) -> list:
        return residual(list(self.p), list(self.q))

    def __iter__(self):
        return iter(self.dense())

    def __len__(self) -> int:
        return len(self.p)


# --- the rule ------------------------------------------------------------------------------------

def acceptance_probability(p_x, q_x):
    """``min(1, p(x)/q(x))``; a token the draft gives no mass is never proposed (0)."""
    if q_x == 0:
        return q_x * 0
    return min(p_x / q_x, p_x * 0 + 1)


def _derived(p, q, name: str, compute):
    """``compute(p, q)``, kept on ``p`` when both are :class:`Row` objects (the rows never change,
    so the value never does; a dict per row, keyed by what was derived and from which q row).
    In a run of slider steps about one overlap in thirteen recurs (the same context and draft row
    at the same temperature: the first calls after a prompt); keeping one is a float.

    >>> model = _example_model()
    >>> p, q = model.row("target", [1, 2]), model.row("draft", [1, 2])
    >>> overlap(p, q) is overlap(p, q)
    True
    """
    if not (isinstance(p, Row) and isinstance(q, Row)):
        return compute(p, q)
    try:
        derived = p.derived
    except AttributeError:
        derived = p.derived = {}
    entry = derived.get((name, id(q)))
    if entry is None or entry[0] is not q:
        entry = derived[(name, id(q))] = (q, compute(p, q))
    return entry[1]


def _rows_of(p, q) -> bool:
    """Whether p and q are rows of one model."""
    return isinstance(p, Row) and isinstance(q, Row) and p.model is q.model


def _chain_and_temperature(row) -> tuple:
    if isinstance(row, TemperedRow):
        return row.chain, row.temperature
    return (row, 1) if isinstance(row, ChainRow) else (None, None)


_RESIDUAL_MEMO: list = [None, None, None]  # (p, q, residual) of the last lists: the law walk asks for it once per token


def residual(p, q):
    """``norm(max(0, p - q))``: of two lists, token by token (None when p == q: then nothing is
    ever rejected); of two rows of a model, a :class:`ResidualRow`, which samples it by rejection
    from p without reading a whole row.

    >>> residual([0.5, 0.5], [0.25, 0.75])
    [1.0, 0.0]
    """
    if _rows_of(p, q):
        return ResidualRow(p, q)
    if _RESIDUAL_MEMO[0] is p and _RESIDUAL_MEMO[1] is q:
        return _RESIDUAL_MEMO[2]
    zero = p[0] * 0  # 0.0 or Fraction(0): the row's own kind of number
    excess = [gap if gap > zero else zero for gap in map(sub, p, q)]
    mass = sum(excess)
    result = None if mass == 0 else [e / mass for e in excess]
    _RESIDUAL_MEMO[:] = (p, q, result)
    return result


def _overlap(p, q):
    if not _rows_of(p, q):  # lists, token by token (fractions stay exact)
        return sum([b if b < a else a for a, b in zip(p, q)])
    if isinstance(q, OneHotRow) or isinstance(p, OneHotRow):  # one term has mass
        return min(p[q.token], 1.0) if isinstance(q, OneHotRow) else min(q[p.token], 1.0)
    (p_chain, temperature), (q_chain, q_temperature) = _chain_and_temperature(p), _chain_and_temperature(q)
    if (p_chain is not None and q_chain is not None and temperature == q_temperature and not q_chain.upper
            and p_chain.history[-1:] == q_chain.history[-1:]):
        return _shared_overlap(p, q, p_chain, q_chain, temperature)
    # per class, counted once per token neither row names, then the tokens either names
    # (mapped in C: a named token's value is its dict's, else its class's)
    (p_values, p_named), (q_values, q_named) = p.parts(), q.parts()
    named = list(p_named.keys() | q_named.keys())
    of_class = list(map(p.model.classes.__getitem__, named))
    terms = list(map(mul, p.model.unnamed_counts(named), map(min, p_values, q_values)))
    terms += map(min, map(p_named.get, named, map(p_values.__getitem__, of_class)),
                 map(q_named.get, named, map(q_values.__getitem__, of_class)))
    return math.fsum(terms)


def _shared_overlap(p, q, p_chain: ChainRow, q_chain: ChainRow, temperature) -> float:
    """The overlap of two rows after the same last token at one temperature, q with no level
    above its bigram's (a draft row). Off X (the tokens p's upper levels name) ``p = alpha a`` and
    ``q = beta b`` for the bigram-level rows a and b (:class:`Base`): over the tokens either base
    names the terms are summed one by one; off them both rows are the unigram powers scaled, so
    the rest adds ``min(alpha w_a, beta w_b)`` times their sum there; X's terms are then put right."""
    model, last = p.model, p_chain.history[-1:]
    first, second = model.base(p_chain.which, last, temperature), model.base(q_chain.which, last, temperature)
    if isinstance(p, TemperedRow):
        alpha, beta = p.scale / p.total, 1.0 / q.total
    else:
        alpha, beta = p_chain.upper_scale(), 1.0
    only_second = sorted(set(second.named).difference(first.named))  # a draft's word the target's bigram lacks: rare
    tokens = first.named + only_second
    a = first.values + first.values_of(only_second) if only_second else first.values
    # min(x, y) as "y if y < x else x" (the same choice, also between equal values)
    terms = [y if y < x else x for x, y in zip([alpha * value for value in a],
                                               [beta * value for value in second.values_of(tokens)])]
    powers = first.powers
    rest = first.rest - math.fsum([powers[token] for token in only_second])
    terms.append(min(alpha * first.weight, beta * second.weight) * rest)
    extra = p_chain.upper_words()
    if extra:
        terms += [y if y < x else x for x, y in zip(p.values(extra), q.values(extra))]
        counted = zip([alpha * value for value in first.values_of(extra)],
                      [beta * value for value in second.values_of(extra)])
        terms += [-(y if y < x else x) for x, y in counted]
    return math.fsum(terms)


def overlap(p, q):
    """``sum_x min(p(x), q(x))``, the chance that a draft sampled from q survives against p.
    Two rows of a model after one last token (the target's and the draft's, as every cycle
    asks) take a term per token their bigram levels name and per token p's upper levels name
    (:func:`_shared_overlap`); other rows of a model are summed per class and named token
    (``math.fsum``).

    >>> overlap([0.25, 0.75], [0.5, 0.5])
    0.75
    """
    return _derived(p, q, "overlap", _overlap)


def verify_block(drafts, p_rows, q_rows, rng, sample=sample_row):
    """One verifier call: ``(committed tokens, accepted drafts, ended in a rejection?)``.

    ``p_rows[i]`` is the target's row after the drafts before ``i`` (``p_rows`` may compute rows
    lazily: a row past the first rejection is never needed), ``q_rows[i]`` the row draft ``i`` was
    proposed from. Draft i survives iff ``u < min(1, p(x)/q(x))``; the first rejection commits a
    token sampled from the residual; if every draft survives the row after them gives a bonus.

    >>> verify_block([1], [[0.0, 1.0], [1.0, 0.0]], [[0.0, 1.0]], Random(0))
    ([1, 0], 1, False)
    """
    committed = []
    for index, token in enumerate(drafts):
        p, q = p_rows[index], q_rows[index]
        if rng.random() < acceptance_probability(p[token], q[token]):
            committed.append(token)
            continue
        committed.append(sample(residual(p, q), rng))
        return committed, index, True
    committed.append(sample(p_rows[len(drafts)], rng))
    return committed, len(drafts), False


class LazyRows:
    """``rows[i]``: the target's row after ``tokens + drafts[:i]``, computed when first read."""

    def __init__(self, model: Model, tokens, drafts, temperature):
        self.model, self.tokens, self.drafts, self.temperature = model, tokens, drafts, temperature
        self.rows: dict[int, list] = {}

    def __getitem__(self, index):
        row = self.rows.get(index)
        if row is None:
            context = self.tokens[-(self.model.order - 1):] + list(self.drafts[:index])
            row = self.rows[index] = self.model.row("target", context, self.temperature)
        return row


# --- proposers -----------------------------------------------------------------------------------

def prompt_lookup(tokens, k: int, min_n: int = PROMPT_LOOKUP[0], max_n: int = PROMPT_LOOKUP[1]) -> list[int]:
    """vLLM's n-gram proposer: the longest suffix of ``tokens`` (``min_n`` to ``max_n`` tokens)
    that occurs earlier, at its earliest occurrence, and up to ``k`` tokens that followed it
    (``_find_longest_matched_ngram_and_propose_tokens`` in ``vllm/v1/spec_decode/ngram_proposer.py``).

    >>> prompt_lookup([1, 2, 3, 4, 2, 3], 4, 2, 3)
    [4, 2, 3]
    >>> prompt_lookup([1, 2, 3], 2)
    []
    """
    length = len(tokens)
    for n in range(min(max_n, length - 1), min_n - 1, -1):
        suffix = tokens[length - n:]
        first = suffix[0]
        for start in range(0, length - n):
            if tokens[start] == first and tokens[start:start + n] == suffix:
                return list(tokens[start + n:start + n + k])
    return []


class _Drawn:
    """Stands in for the generator where a draw was made earlier: :func:`sample_row` with it
    samples exactly as it would have with the generator at that draw."""

    __slots__ = ("value",)

    def __init__(self, value: float):
        self.value = value

    def random(self) -> float:
        return self.value


class Drafts:
    """The draft model's k drafts of one cycle, each resolved (its q row computed and sampled
    with its draw) only when first read, in order: draft i+1 is proposed after draft i.

    All k draws are taken from the generator when the cycle proposes (one ``rng.random()`` per
    draft, as sampling them there would take), so the draws that follow are the same whether or
    not a draft is ever resolved. The verifier reads the drafts in order and stops at the first
    rejection: the drafts after it never change the run, only the list of drafts the cycle
    shows. A list of drafts reads them all (``list(drafts)``), with the same tokens.

    >>> model = _example_model()
    >>> drafts = Drafts(model, "draft", [1, 2], 3, 1.0, Random(4))
    >>> len(drafts), len(drafts.tokens)
    (3, 0)
    >>> drafts[0] == drafts.tokens[0], len(drafts.tokens)
    (True, 1)
    >>> list(drafts) == propose(model, "draft", [1, 2], 3, 1.0, Random(4))[0]
    True
    """

    def __init__(self, model: Model, proposer: str, tokens, k: int, temperature, rng):
        if proposer not in ("draft", "draft-greedy"):
            raise ValueError(f"proposer must be one of {', '.join(PROPOSERS)}, got {proposer!r}")
        self.model, self.proposer, self.k, self.temperature = model, proposer, k, temperature
        self.context = list(tokens[-(model.order - 1):])
        self.draws = [rng.random() for _ in range(k)] if proposer == "draft" else None
        self.tokens: list[int] = []
        self.rows: list = []

    def _resolve(self, count: int) -> None:
        if count <= len(self.tokens):  # resolved already (the verifier reads each draft more than once)
            return
        model = self.model
        while len(self.tokens) < min(count, self.k):
            if self.proposer == "draft":
                q = model.row("draft", self.context, self.temperature)
                token = sample_row(q, _Drawn(self.draws[len(self.tokens)]))
            else:
                token = argmax(model.row("draft", self.context))
                q = OneHotRow(model, token)
            self.tokens.append(token)
            self.rows.append(q)
            self.context.append(token)

    def __len__(self) -> int:
        return self.k

    def __getitem__(self, index):
        if isinstance(index, slice):
            self._resolve(range(self.k)[index].stop if index.step in (None, 1) else self.k)
            return self.tokens[index]
        if index < 0:
            index += self.k
        if not 0 <= index < self.k:
            raise IndexError("draft index out of range")
        self._resolve(index + 1)
        return self.tokens[index]

    def __iter__(self):
        for index in range(self.k):
            yield self[index]

    def __eq__(self, other):
        return list(self) == list(other)

    def __repr__(self) -> str:
        return repr(list(self))

    def row(self, index: int):
        """The q row draft ``index`` was proposed from (resolving it)."""
        self._resolve(index + 1)
        return self.rows[index]


class DraftRows:
    """``q_rows[i]`` of a :class:`Drafts`: the row draft i was proposed from."""

    def __init__(self, drafts: Drafts):
        self.drafts = drafts

    def __getitem__(self, index):
        return self.drafts.row(index)

    def __len__(self) -> int:
        return len(self.drafts)


def propose(model: Model, proposer: str, tokens: list[int], k: int, temperature, rng):
    """``(drafts, q rows)`` for one cycle after ``tokens``. ``draft`` samples the draft model at
    the temperature; ``draft-greedy`` takes its argmax; ``ngram`` copies from the text (both with
    one-hot q). Drafts of the draft model are proposed one after another, each after the last
    (:class:`Drafts`, all resolved here)."""
    if proposer == "ngram":
        drafts = prompt_lookup(tokens, k)
        return drafts, [OneHotRow(model, token) for token in drafts]
    drafts = Drafts(model, proposer, tokens, k, temperature, rng)
    return list(drafts), drafts.rows


def run_cycle(model: Model, proposer: str, tokens: list[int], k: int, temperature, rng, lazy: bool = False) -> dict:
    """Draft, verify, commit: one cycle's record. ``firstAlpha`` is the analytic chance that the
    first draft survives at this context: ``sum_x min(p(x), q(x))`` for a sampled draft,
    ``min(1, p(x))`` of the proposed token for a one-hot one. ``checked`` holds ``(p(x), q(x))``
    of every draft the verifier examined (the kept ones and the rejected one; a draft after the
    rejection is never examined): draft x survived with chance ``min(1, p(x) / q(x))``. Reading
    them costs no row the verifier did not already compute.

    With ``lazy`` the record's ``drafts`` of the draft model is the :class:`Drafts` itself: the
    drafts after the rejected one are resolved only if read (the page reads them for the call it
    shows in detail), with the same tokens; and ``firstAlpha`` is computed only when
    :func:`first_alpha` asks for it (the page shows it for that one call: for a sampled draft it
    is an overlap of two rows, about a quarter of a run's time). The record is otherwise the same."""
    if proposer == "ngram":
        drafts, q_rows = propose(model, proposer, tokens, k, temperature, rng)
    else:
        drafts = Drafts(model, proposer, tokens, k, temperature, rng)
        q_rows = DraftRows(drafts)
    p_rows = LazyRows(model, tokens, drafts, temperature)
    committed, accepted, rejected = verify_block(drafts, p_rows, q_rows, rng)
    checked = [(p_rows[i][token], q_rows[i][token]) for i, token in enumerate(drafts[:accepted + 1])]
    record = {"drafts": drafts, "accepted": accepted, "rejected": rejected, "committed": committed,
              "firstAlpha": None, "checked": checked}
    if drafts:
        record[_FIRST_ROWS] = (p_rows[0], q_rows[0])
    if not lazy:
        record["drafts"] = list(drafts)
        first_alpha(record)
    return record


_FIRST_ROWS = "_firstRows"  # a lazy record's (p, q) of its first draft, until first_alpha reads them


def first_alpha(cycle: dict) -> float | None:
    """The analytic chance that the cycle's first draft survives, ``cycle["firstAlpha"]``:
    ``sum_x min(p(x), q(x))`` (:func:`overlap`), which for a one-hot q (greedy drafts, prompt
    lookup) is ``min(1, p(x))`` of the proposed token; None when nothing was drafted. A lazy
    record (:func:`run_cycle`) computes it here, once, and keeps it.

    >>> model = _example_model()
    >>> lazy = run_cycle(model, "draft", [1, 2], 2, 1.0, Random(3), lazy=True)
    >>> lazy["firstAlpha"] is None, first_alpha(lazy) == run_cycle(model, "draft", [1, 2], 2, 1.0, Random(3))["firstAlpha"]
    (True, True)
    """
    rows = cycle.pop(_FIRST_ROWS, None)
    if rows is not None:
        cycle["firstAlpha"] = overlap(*rows)
    return cycle["firstAlpha"]


# --- the exact law of one cycle --------------------------------------------------------------------

def first_token_law(p, q) -> list[Fraction]:
    """The exact law of the first token one cycle commits, from :func:`verify_block` itself.

    For each draft token x (weight q(x)) the cycle is run under :func:`lab.sampler.uniform_law`
    on the exact rows, with sampling replaced by a marker that names the row sampled: the law of
    its comparisons is exact (its thresholds are fractions), and a marked row adds its mass
    times that row. A correct rule gives ``p`` exactly.

    >>> half = [Fraction(1, 2)] * 2
    >>> first_token_law([Fraction(1, 4), Fraction(3, 4)], half) == [Fraction(1, 4), Fraction(3, 4)]
    True
    """
    from .sampler import uniform_law

    rows: dict[int, list] = {}

    def marker(row, rng):
        rows[id(row)] = row
        return ("row", id(row))

    law = [ZERO] * len(p)
    sampled: dict[int, Fraction] = {}
    for token, q_x in enumerate(q):
        if not q_x:
            continue
        outcome_law = uniform_law(lambda rng: verify_block([token], [p, p], [q], rng, sample=marker)[0][0])  # noqa: B023 (called in this iteration)
        for outcome, weight in outcome_law.items():
            if isinstance(outcome, tuple):
                sampled[outcome[1]] = sampled.get(outcome[1], ZERO) + q_x * weight
            else:
                law[outcome] += q_x * weight
    for key, mass in sampled.items():
        law = [value + mass * r for value, r in zip(law, rows[key])]
    return law
