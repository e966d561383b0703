"""Rows of the real-text models (:mod:`lab.realtext`): the model file read back, each row held as its chain of
Kneser-Ney levels, tempered, and sampled without walking the vocabulary.

Interpolated Kneser-Ney (Chen and Goodman 1998, eq. 17 and section 3) with one absolute discount
:data:`DISCOUNT` at every order: a history's kept mass per word ``(c - D)/c(h)`` and back-off weight
``D N1+(h .)/c(h)``. With integer counts and a rational D every probability is rational: :func:`kn_row`
computes a row in floats or in fractions by the same code, and every float here is an integer over an
integer (in units of 1 / D's denominator: :data:`UNITS`, :data:`SCALE`), correctly rounded.
"""

from __future__ import annotations

import io
import math
import struct
import zipfile
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter, OrderedDict
from fractions import Fraction
from itertools import accumulate
from operator import itemgetter

from .realtext_training import FORMAT, Tokenizer, _unpack_array, build_model_file

__all__ = ["DISCOUNT", "ModelUnavailable", "Table", "Level", "Row", "OneHotRow", "ChainRow", "TemperedRow", "Base",
           "Model", "UNITS", "SCALE", "float_ratio", "unigram_row", "kn_row", "argmax", "one_hot",
           "cumulative", "sample_row"]

DISCOUNT = Fraction(3, 4)      # Kneser-Ney's absolute discount D, the same at every order
# Every float below is a ratio of integers in units of 1 / D's denominator: a word's kept count
# c - D is (SCALE c - UNITS) units, a history's total c(h) is SCALE c(h), its back-off mass D N is
# UNITS N (4c - 3, 4 c(h) and 3 N with D = 3/4), so each is one correctly rounded division.
UNITS, SCALE = DISCOUNT.numerator, DISCOUNT.denominator
# The hot loops over a row's tokens are comprehensions, not map() over bound methods or operator
# functions: the same float operations in the same order, but in Pyodide every C function map() calls
# goes through a call trampoline, and a comprehension of the same arithmetic ran 2 to 2.5 times faster
# there (1.5 to 2 times in CPython; measured on 5 December 2026 over 243-token lists, bench in
# docs/PERFORMANCE.md).
ROWS_KEPT = 1024               # rows a model keeps (each a chain of levels and a number or two): a few requests' worth
BASES_KEPT = 512               # tempered bases a model keeps (a temperature step makes one per last token at the
                               # new T), and PARENTS_KEPT bases at T = 1, which every tempered base raises and all
PARENTS_KEPT = 1024            # temperatures share: each the least recently used out first
LEVELS_KEPT = 4096             # contexts a table keeps, each its level (words, counts, what is derived) or None
FEW_TOKENS = 8                 # Base.values_of looks up fewer than 1/FEW_TOKENS of N's tokens by bisection, not a dict
RESIDUAL_DRAWS = 1000          # draws from p a residual tries before it samples itself token by token (ResidualRow)


class ModelUnavailable(RuntimeError):
    """No model file here (the page has not loaded it; no corpus to train from)."""



class Table:
    """One order's entries, searched by context key (bisection over the sorted keys)."""

    __slots__ = ("n", "keys", "starts", "words", "counts", "size", "_levels")

    def __init__(self, data: bytes, size: int):
        n, contexts, entries = struct.unpack_from("<3I", data)
        offset = 12
        self.keys = _unpack_array("Q", data[offset:offset + 8 * contexts])
        offset += 8 * contexts
        lengths = _unpack_array("H", data[offset:offset + 2 * contexts])
        offset += 2 * contexts
        self.words = _unpack_array("H", data[offset:offset + 2 * entries])
        offset += 2 * entries
        self.counts = _unpack_array("I", data[offset:offset + 4 * entries])
        self.starts = array("I", accumulate(lengths, initial=0))
        self.n, self.size = n, size
        self._levels: dict = {}

    def find(self, context) -> tuple[int, int] | None:
        """(first, end) entry indices of ``context`` (the last n-1 tokens), or None."""
        return self._span(self._key(context))

    def _key(self, context) -> int:
        """``context``'s key: its tokens as the digits of a number in base ``size``."""
        key = 0
        for token in context:
            key = key * self.size + token
        return key

    def _span(self, key: int) -> tuple[int, int] | None:
        """(first, end) entry indices of the context whose key is ``key`` (a bisection), or None."""
        keys = self.keys
        index = bisect_left(keys, key)
        if index == len(keys) or keys[index] != key:
            return None
        return self.starts[index], self.starts[index + 1]

    def level(self, context) -> "Level | None":
        """The :class:`Level` of ``context``'s entries, or None. The last :data:`LEVELS_KEPT` contexts
        met are kept by their key (the oldest goes first), the contexts the table lacks among them
        (as None), so a context asked for again takes no bisection. Its words are a list (the
        bisections of :meth:`Level.kept` and the bases' lookups read a list faster than an array)."""
        key, levels = self._key(context), self._levels
        level = levels.get(key, _UNKNOWN)
        if level is _UNKNOWN:
            span = self._span(key)
            level = None if span is None else Level(self.words[span[0]:span[1]].tolist(), self.counts[span[0]:span[1]])
            levels[key] = level
            if len(levels) > LEVELS_KEPT:
                del levels[next(iter(levels))]
        return level


_UNKNOWN = object()  # Table.level: a context not looked up yet


class Level:
    """One level of a row that its table holds for the history (a :class:`Table` entry), ready to
    mix and to sample: the back-off ``weight = D N1+(h .)/c(h) = 3 N / (4 c(h))``, each word's kept
    mass ``(c - D)/c(h) = (4c - 3)/(4 c(h))`` (:meth:`kept`, the float :func:`kn_row` adds), and
    ``mass``, the kept masses' sum ``1 - weight``. The words are the entry's, in id order.

    >>> level = Level([7, 9], [1, 3])        # c(h) = 4, two words: weight 6/16
    >>> level.weight, level.kept(7), level.kept(9), level.kept(8), level.mass
    (0.375, 0.0625, 0.5625, 0.0, 0.625)
    >>> level.sample(0.0), level.sample(0.1), level.sample(0.62)
    (7, 9, 9)
    """

    __slots__ = ("weight", "words", "counts", "denominator", "mass", "_kept_values", "_kept_map", "_running")

    def __init__(self, words, counts):
        denominator = SCALE * sum(counts)
        self.words, self.counts, self.denominator = words, counts, denominator
        self.weight = UNITS * len(words) / denominator  # int / int, correctly rounded (as float_ratio)
        self.mass = (denominator - UNITS * len(words)) / denominator
        self._kept_values = self._kept_map = self._running = None  # made when asked for: most levels are only read

    def kept(self, word: int) -> float:
        """``(4c - 3) / (4 c(h))`` of ``word``, 0.0 if this level does not name it."""
        words = self.words
        index = bisect_left(words, word)
        if index < len(words) and words[index] == word:
            return (SCALE * self.counts[index] - UNITS) / self.denominator
        return 0.0

    def kept_values(self) -> list[float]:
        """Every word's kept mass, in the words' order (:meth:`kept_masses`), kept as a list."""
        if self._kept_values is None:
            self._kept_values = list(self.kept_masses())
        return self._kept_values

    def kept_masses(self):
        """Every word's kept mass, ``(4c - 3) / (4 c(h))``, in the words' order: the list :meth:`kept_values`
        keeps when it was made, else a new one the level does not keep (a bigram level's are read by its base
        alone, once)."""
        if self._kept_values is not None:
            return self._kept_values
        denominator = self.denominator
        return [(SCALE * count - UNITS) / denominator for count in self.counts]

    def kept_map(self) -> dict:
        """``{word: kept mass}`` (for looking up many words at once)."""
        if self._kept_map is None:
            self._kept_map = dict(zip(self.words, self.kept_values()))
        return self._kept_map

    def sample(self, units: float) -> int:
        """The word at ``units`` (0 <= units < mass) of the kept masses laid end to end (in units
        of ``1 / denominator`` they are the integers ``4c - 3``: exact running sums)."""
        running = self._running
        if running is None:
            running = self._running = list(accumulate([SCALE * count - UNITS for count in self.counts]))
        index = bisect_right(running, units * self.denominator)
        return self.words[min(index, len(self.words) - 1)]


class Row:
    """A row of the model: ``row[x]`` is the probability of token x; never changed once made.

    No row is held token by token. A row at temperature 1 is its chain of levels
    (:class:`ChainRow`), a tempered row that chain and one normaliser (:class:`TemperedRow`), a
    one-hot row its token (:class:`OneHotRow`): each answers ``row[x]`` for one token and samples
    itself (a draft row with one ``rng.random()``), and what a whole row gives (its sum, its
    overlap with the draft's) is computed from what all rows after one last token share
    (:class:`Base`), so a verifier call never walks the vocabulary. ``parts()`` (``(class
    values, {token: value})``, every token a dict does not name having its class's value) and
    iterating the row (:meth:`dense`, token by token) are there for the checks and the figures.

    Subclasses give ``parts``, ``__getitem__`` for an int and ``sample``."""

    __slots__ = ("model", "derived")

    def __len__(self) -> int:
        return self.model.size

    def __iter__(self):
        return iter(self.dense())

    def dense(self) -> list:
        """The row token by token (a list of :attr:`Model.size` floats)."""
        values, named = self.parts()
        row = list(self.model.spread(values))
        for token, value in named.items():
            row[token] = value
        return row

    def argmax(self) -> int:
        """The first token of highest probability: ``dense().index(max(dense()))``, per class.

        Read first off the row's highest values (C's max over the classes and the named tokens):
        when a named token is above every class, or a class of the highest value has a token the
        row does not name, that decides it; only when every class of the highest value is named
        throughout are the classes counted (:meth:`_argmax_counted`). The same token either way."""
        values, named = self.parts()
        model = self.model
        top = max(values)
        named_values = list(named.values())
        named_top = max(named_values) if named_values else -math.inf
        if named_top > top:  # no class reaches it: the first named token of that value
            if named_values.count(named_top) == 1:
                return list(named)[named_values.index(named_top)]
            return min(token for token, value in named.items() if value == named_top)
        members, best = model._members, model.size
        for index in ([values.index(top)] if values.count(top) == 1 else
                      [index for index, value in enumerate(values) if value == top]):
            best = min(best, next((token for token in members[index] if token not in named), best))
        if best == model.size:  # every class of the top value named throughout
            return self._argmax_counted(values, named)
        if named_top == top:
            best = min(best, min(token for token, value in named.items() if value == top))
        return best

    def _argmax_counted(self, values, named) -> int:
        """:meth:`argmax` with every class's unnamed tokens counted."""
        model = self.model
        counts = model.unnamed_counts(named)
        top = max((value for value, count in zip(values, counts) if count), default=-math.inf)
        if named:
            top = max(top, max(named.values()))
        best = min((token for token, value in named.items() if value == top), default=model.size)
        for index, (value, count) in enumerate(zip(values, counts)):
            if count and value == top:
                best = min(best, model.unnamed_member(index, 0, named, count))
        return best


class OneHotRow(Row):
    """Probability 1 on one token: a deterministic proposer's q, or a row at T = 0."""

    __slots__ = ("token",)

    def __init__(self, model: "Model", token: int):
        self.model, self.token = model, token

    def parts(self) -> tuple[list, dict]:
        return self.model.zeros, {self.token: 1.0}

    def __getitem__(self, token):
        if not isinstance(token, int):
            return self.dense()[token]
        return 1.0 if token == self.token else 0.0

    def sample(self, rng) -> int:
        rng.random()  # one draw, as every row's sample takes
        return self.token


class ChainRow(Row):
    """A row at temperature 1, held as its chain of levels over the unigram row: ``p(x)`` is
    the unigram value of x, then at each level the tables hold for the history
    ``weight * value + kept(x)``: the same float operations in the same order as :func:`kn_row`,
    for one token (a bisection per level). ``bigram`` is the order-2 level (None when the table
    has no entry for the last token, or the history is empty); ``upper`` the levels above it.

    It samples from the chain read as a mixture (Kneser-Ney's interpolation is one): the top
    level's kept masses with chance ``mass_n``, else, with chance ``weight_n``, the row below,
    down to the unigram's kept masses and the uniform row. One ``rng.random()`` picks the level
    and the word within it (:meth:`Model.mixture`)."""

    __slots__ = ("which", "history", "bigram", "upper", "_mixture", "_parts", "_upper_terms")

    def __init__(self, model: "Model", which: str, history: tuple, bigram, upper: list):
        self.model, self.which, self.history, self.bigram, self.upper = model, which, history, bigram, upper
        self._mixture = self._parts = self._upper_terms = None

    def parts(self) -> tuple[list, dict]:
        if self._parts is None:
            self._parts = self.model.row_parts(self.which, self.history)
        return self._parts

    def __getitem__(self, token):
        if not isinstance(token, int):
            return self.dense()[token]
        value = self.model.unigram[token]
        if self.bigram is not None:
            value = self.bigram.weight * value + self.bigram.kept(token)  # + 0.0 leaves a float as it is
        for level in self.upper:
            value = level.weight * value + level.kept(token)
        return value

    def sample(self, rng) -> int:
        mixture = self._mixture
        if mixture is None:
            levels = self.upper if self.bigram is None else [self.bigram, *self.upper]
            mixture = self._mixture = self.model.mixture(levels)
        ends, components = mixture
        position = rng.random() * ends[-1]
        index = min(bisect_right(ends, position), len(ends) - 1)
        level, scale = components[index]
        units = (position - (ends[index - 1] if index else 0.0)) / scale
        if level is None:  # the uniform row at the bottom of the chain
            return min(int(units * self.model.size), self.model.size - 1)
        return level.sample(units)

    def values(self, tokens: list[int], bigram_values: list[float] | None = None) -> list[float]:
        """``[self[x] for x in tokens]``, level by level over all of them (one comprehension a level).
        ``bigram_values``, when the caller has them, are the bigram-level row's values of the
        tokens (its base's at T = 1, as :meth:`bigram_values` gives)."""
        values = self.bigram_values(tokens) if bigram_values is None else bigram_values
        for level in self.upper:
            weight, kept = level.weight, level.kept_map().get
            values = [weight * value + kept(token, 0.0) for value, token in zip(values, tokens)]
        return values

    def bigram_values(self, tokens: list[int]) -> list[float]:
        """The bigram-level row's values of ``tokens``: the unigram's after an unseen last token,
        else its base's at T = 1 (the chain's own floats)."""
        if self.bigram is None:
            unigram = self.model.unigram
            return [unigram[token] for token in tokens]
        return self.model.base(self.which, self.history[-1:], 1).values_of(tokens)

    def upper_words(self) -> list[int]:
        """The tokens a level above the bigram's names, in id order (X: see :class:`TemperedRow`)."""
        if not self.upper:
            return []
        if len(self.upper) == 1:
            return list(self.upper[0].words)
        return sorted(set().union(*(level.words for level in self.upper)))

    def upper_scale(self) -> float:
        """The product of the upper levels' weights: ``p(x) = scale * bigram row(x)`` for every
        token x no upper level names (up to rounding)."""
        scale = 1.0
        for level in self.upper:
            scale *= level.weight
        return scale

    def upper_terms(self) -> tuple[list[int], float, list[float], list[float]]:
        """``(X, s, b(X), p(X))``: :meth:`upper_words`, :meth:`upper_scale`, the bigram-level row's
        values of X (:meth:`bigram_values`) and this row's (:meth:`values`). None of them depends on
        the temperature, so they are computed once per chain and kept: every :class:`TemperedRow`
        of this history, at any T, starts from them (a temperature step re-reads the chains it
        has met before)."""
        terms = self._upper_terms
        if terms is None:
            extra = self.upper_words()
            bigram = self.bigram_values(extra)
            if len(self.upper) == 1:  # X is the one level's words, in its order: its kept masses, no lookups
                level = self.upper[0]
                weight = level.weight
                values = [weight * value + kept for value, kept in zip(bigram, level.kept_values())]
            else:
                values = self.values(extra, bigram)
            terms = self._upper_terms = (extra, self.upper_scale(), bigram, values)
        return terms


class TemperedRow(Row):
    """``p_T(x) = p(x)^(1/T) / Z`` for 0 < T != 1, from the chain row p at T = 1.

    ``Z`` is not a sum over the vocabulary. A token no level above the bigram's names (all but
    the few in X) has ``p(x) = s * b(x)``, where b is the bigram-level row, shared by every
    history with this last token, and s the upper levels' weights. So

        Z = s^(1/T) (B_T - sum_{x in X} b(x)^(1/T)) + sum_{x in X} p(x)^(1/T),

    with ``B_T = sum_x b(x)^(1/T)`` kept once per last token and temperature (:class:`Base`). It
    samples X's share directly and the rest from the bigram-level row at T, drawing again when a
    draw falls in X. Since ``p(x) >= s b(x)`` everywhere, ``Z >= s^(1/T) B_T``, so a sample takes
    at most one draw from that row on average. A row with X empty (every draft row) samples with
    one draw."""

    __slots__ = ("chain", "temperature", "power", "base", "scale", "extra", "extra_running", "total", "_parts")

    def __init__(self, chain: ChainRow, temperature):
        model = self.model = chain.model
        self.chain, self.temperature, self.power, self._parts = chain, temperature, 1.0 / temperature, None
        power = self.power
        self.base = base = model.base(chain.which, chain.history[-1:], temperature)
        # X, s, b(X) (raised, they are the base's b_T of X) and p(X): the chain's, whatever T
        extra, scale, bigram, values = chain.upper_terms()
        self.extra = extra
        self.scale = scale = scale ** power
        weights = [value ** power for value in values]
        self.extra_running = list(accumulate(weights))
        generic = scale * base.mass
        self.total = math.fsum([generic, *[-scale * value ** power for value in bigram], *weights])

    def __getitem__(self, token):
        if not isinstance(token, int):
            return self.dense()[token]
        return self.chain[token] ** self.power / self.total

    def sample(self, rng) -> int:
        extra, base = self.extra, self.base
        if not extra:
            return base.sample(rng.random())
        position = rng.random() * self.total
        if position < self.extra_running[-1]:
            return extra[min(bisect_right(self.extra_running, position), len(extra) - 1)]
        for _ in range(RESIDUAL_DRAWS):
            token = base.sample(rng.random())
            if not _contains(extra, token):
                return token
        return sample_row(self.dense(), rng)  # a row whose X holds all but a sliver of b: token by token

    def values(self, tokens: list[int]) -> list[float]:
        """``[self[x] for x in tokens]`` (one comprehension)."""
        power, total = self.power, self.total
        return [value ** power / total for value in self.chain.values(tokens)]

    def parts(self) -> tuple[list, dict]:
        if self._parts is None:
            values, named = self.chain.parts()
            power, total = self.power, self.total
            self._parts = ([value ** power / total for value in values],
                           {token: value ** power / total for token, value in named.items()})
        return self._parts


def _contains(ordered, token) -> bool:
    index = bisect_left(ordered, token)
    return index < len(ordered) and ordered[index] == token


class Base:
    """What every row of one model after one last token h shares, at one temperature T: the
    bigram-level row ``b`` (``b(x) = w u(x) + kept(x)`` for the tokens N the order-2 entry of h
    names, ``w u(x)`` for the rest; u itself after an empty history or an h the table lacks),
    raised to ``1/T``: ``b_T(x) = b(x)^(1/T)``, taken as ``w^(1/T) u(x)^(1/T)`` off N (``weight``
    is ``w^(1/T)``).

    ``mass`` is ``sum_x b_T(x)`` (a pass over N); :meth:`sample` inverts, with one uniform, N's
    values in id order followed by the rest of the vocabulary in id order (found by bisection
    on the running unigram powers less N's: no pass over the vocabulary)."""

    __slots__ = ("model", "named", "_values", "powers", "powers_running", "powers_total", "weight", "power", "parent",
                 "_mass", "_rest", "_running", "_named_running", "_values_of")

    def __init__(self, model: "Model", level, temperature, parent: "Base | None" = None):
        """``parent``, for T != 1, is the same row's base at T = 1: its values are raised, not
        recomputed."""
        self.model, self.parent, self.power = model, parent, 1.0 / temperature
        self.powers, self.powers_running, self.powers_total = model.unigram_powers(temperature)
        if level is None:
            self.named, self._values, self.weight = [], [], 1.0
        elif parent is None:  # T = 1: weight * u(x) + kept(x), the chain's floats
            # N: the level's words (a list nothing changes; a Level made by hand may hold another sequence)
            words = level.words
            self.named, self.weight = (words if isinstance(words, list) else list(words)), level.weight
            weight, powers = self.weight, self.powers
            self._values = [weight * powers[token] + kept for token, kept in zip(self.named, level.kept_masses())]
        else:  # raised when first asked for (values)
            self.named, self.weight, self._values = parent.named, level.weight ** self.power, None
        self._mass = self._rest = self._running = self._named_running = self._values_of = None

    @property
    def values(self) -> list[float]:
        """``b_T(x)`` of the tokens N, in N's order (at T != 1 the T = 1 base's values raised)."""
        if self._values is None:
            power = self.power
            self._values = [value ** power for value in self.parent.values]
        return self._values

    @property
    def mass(self) -> float:
        """``sum_x b_T(x)`` (made when first asked for: a T = 1 base made for its values never is)."""
        if self._mass is None:  # w_T (sum of all u_T) + sum over N of (b_T - w_T u_T): one pass over N
            weight, powers = self.weight, self.powers
            lifted = [value - weight * powers[token] for value, token in zip(self.values, self.named)]
            self._mass = self.weight * self.powers_total + math.fsum(lifted)
        return self._mass

    @property
    def rest(self) -> float:
        """The unigram powers' sum off N."""
        if self._rest is None:
            powers = self.powers
            self._rest = self.powers_total - math.fsum([powers[token] for token in self.named])
        return self._rest

    def values_of(self, tokens) -> list[float]:
        """``b_T`` of each token (N's value, else ``weight * u_T``; at T != 1 the
        T = 1 base's raised, as ``values`` are)."""
        if self.parent is not None:
            power = self.power
            return [value ** power for value in self.parent.values_of(tokens)]
        weight, powers = self.weight, self.powers
        if self._values_of is None and len(tokens) * FEW_TOKENS < len(self.named):
            # a few tokens (a chain's X, most often): a bisection each in N, in id order, not a dict of all N
            named, values, last = self.named, self.values, len(self.named)
            return [values[index] if index < last and named[index] == token else weight * powers[token]
                    for token, index in zip(tokens, [bisect_left(named, token) for token in tokens])]
        if self._values_of is None:
            self._values_of = dict(zip(self.named, self.values))
        named = self._values_of.get
        return [named(token, weight * powers[token]) for token in tokens]

    def sample(self, uniform: float) -> int:
        if self._running is None:  # made when first sampled: many a base only gives its mass
            self._running = list(accumulate(self.values))
        running, position = self._running, uniform * self.mass
        named_total = running[-1] if running else 0.0
        if position < named_total:
            return self.named[min(bisect_right(running, position), len(self.named) - 1)]
        return self.rest_token((position - named_total) / self.weight)

    def rest_token(self, position: float) -> int:
        """The token off N at ``position`` (0 <= position < rest) of the unigram powers laid
        end to end in id order, N's left out: the first t with ``U(t + 1) - U_N(t) > position``,
        ``U`` the running unigram powers and ``U_N(t)`` those of N's tokens up to t."""
        named, named_running, running = self.named, self._named_running, self.powers_running
        if named_running is None:  # made when a draw first falls off N
            powers = self.powers
            named_running = self._named_running = list(accumulate([powers[token] for token in named], initial=0.0))
        last = len(self.powers) - 1
        low, high = 0, last
        while low < high:
            middle = (low + high) // 2
            if running[middle + 1] - named_running[bisect_right(named, middle)] > position:
                high = middle
            else:
                low = middle + 1
        while _contains(named, low) and low < last:
            low += 1  # rounding landed on a token of N: the next one off N
        while _contains(named, low):
            low -= 1
        return low


class Model:
    """Tokenizer, target tables (orders 1..ORDER) and draft table, plus row caches."""

    def __init__(self, data: bytes):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            header = archive.read("header.txt").decode().split("\n")
            if header[0] != FORMAT:
                raise ModelUnavailable(f"model file format {header[0]!r}, this lab reads {FORMAT!r}")
            merges = _unpack_array("H", archive.read("merges.bin"))
            self.tokenizer = Tokenizer(zip(merges[0::2], merges[1::2]))
            self.size = len(self.tokenizer)
            self.order = int(header[2].split()[1])
            self.note = "\n".join(header[4:]).strip()
            self.target = [Table(archive.read(f"order{n}.bin"), self.size) for n in range(1, self.order + 1)]
            self.draft = [self.target[0], Table(archive.read("draft2.bin"), self.size)]
        self.bytes = len(data)
        self._rows: OrderedDict = OrderedDict()
        self.unigram = unigram_row(self.target[0], self.size, float_ratio)
        # the unigram level as a Level, for sampling: its weight is the mass it backs off to the uniform row
        self._unigram_level = Level(self.target[0].words, self.target[0].counts)
        # Tokens of equal unigram probability form a class: a row's value for a token no higher
        # order names is its class's value times the levels' weights, so a whole row is laid out
        # per class plus per named token (row_parts: for the checks, argmax and odd overlaps).
        index: dict = {}
        self.classes = [index.setdefault(value, len(index)) for value in self.unigram]
        self.class_values = list(index)
        self.spread = itemgetter(*self.classes)  # class values -> the row's values, token by token
        self._members: list[list[int]] = [[] for _ in self.class_values]
        for token, member_of in enumerate(self.classes):
            self._members[member_of].append(token)
        self._class_sizes = [len(members) for members in self._members]
        self.zeros = [0.0] * len(self.class_values)
        self._parts: OrderedDict = OrderedDict()
        self._bases: OrderedDict = OrderedDict()   # tempered bases (T != 1)
        self._parents: OrderedDict = OrderedDict()  # bases at T = 1, which every tempered one raises
        self._powers: OrderedDict = OrderedDict()

    def row(self, which: str, context, temperature=1.0) -> Row:
        """The row of ``which`` ("target" or "draft") after ``context``, tempered; cached.

        At T = 1 a :class:`ChainRow` (its levels); at 0 < T != 1 a :class:`TemperedRow` of that
        chain; at T = 0 a :class:`OneHotRow` on the chain's argmax. The cache keeps the
        :data:`ROWS_KEPT` rows used last (one at a time out, oldest first: emptying it all at
        once cost a tenth of a second in one request). A row never changes, so what is derived
        from it (its sampling table, its overlap with a draft row) is kept on it."""
        tables = self.target if which == "target" else self.draft
        keep = len(tables) - 1  # the last n - 1 tokens
        history = tuple(context[-keep:]) if keep else ()
        key = (which, history, temperature)
        rows = self._rows
        row = rows.get(key)
        if row is None:
            if temperature == 1:
                bigram, upper = None, []
                for n in range(2, min(len(tables), len(history) + 1) + 1):
                    level = tables[n - 1].level(history[len(history) - (n - 1):])
                    if level is None:  # an unseen history: P_n = P_{n-1}
                        continue
                    if n == 2:
                        bigram = level
                    else:
                        upper.append(level)
                row = ChainRow(self, which, history, bigram, upper)
            else:
                chain = self.row(which, history)
                row = OneHotRow(self, chain.argmax()) if temperature == 0 else TemperedRow(chain, temperature)
            rows[key] = row
            while len(rows) > ROWS_KEPT:
                rows.popitem(last=False)
        else:
            rows.move_to_end(key)
        return row

    def unigram_powers(self, temperature) -> tuple[list, list, float]:
        """``(u(x)^(1/T) per token, their running sums from 0, their fsum)``, kept per T."""
        entry = self._powers.get(temperature)
        if entry is None:
            power = 1.0 / temperature
            powers = self.unigram if temperature == 1 else [value ** power for value in self.unigram]
            entry = self._powers[temperature] = (powers, list(accumulate(powers, initial=0.0)), math.fsum(powers))
            while len(self._powers) > 8:
                self._powers.popitem(last=False)
        return entry

    def base(self, which: str, last: tuple, temperature) -> "Base":
        """The :class:`Base` of ``which`` after ``last`` (the history's last token, or ``()``) at T."""
        key = (which, last, temperature)
        bases, kept = (self._parents, PARENTS_KEPT) if temperature == 1 else (self._bases, BASES_KEPT)
        base = bases.get(key)
        if base is None:
            level = (self.target if which == "target" else self.draft)[1].level(last) if last else None
            parent = None if temperature == 1 or level is None else self.base(which, last, 1)
            base = bases[key] = Base(self, level, temperature, parent)
            while len(bases) > kept:
                bases.popitem(last=False)
        else:
            bases.move_to_end(key)
        return base

    def row_parts(self, which: str, history: tuple) -> tuple[list, dict]:
        """:func:`kn_row` in floats, per class: ``(class values, {token: value})``, where a token
        any found level names has its own value and every other token its class's. The same
        float operations on each token's value, in the same order, as :func:`kn_row`: each level
        multiplies every value by its weight, then adds its kept mass to the tokens it names.

        Levels 2..n of a row read only the history's last n - 1 tokens, so the parts after them
        are kept per that suffix and shared: a history's parts are its own level on top of the
        parts of the history without its first token (the bigram level is computed once per last
        token, not once per context)."""
        key = (which, history)
        parts = self._parts.get(key)
        if parts is not None:
            self._parts.move_to_end(key)
            return parts
        if not history:
            return self.class_values, {}
        parts = self.row_parts(which, history[1:])  # levels 2 .. len(history)
        level = (self.target if which == "target" else self.draft)[len(history)].level(history)
        if level is not None:  # else an unseen history: P_n = P_{n-1}
            (values, named), classes = parts, self.classes
            weight, denominator = level.weight, level.denominator
            values = [weight * value for value in values]
            named = {token: weight * value for token, value in named.items()}
            for word, count in zip(level.words, level.counts):
                value = named.get(word)
                if value is None:
                    value = values[classes[word]]
                named[word] = value + (SCALE * count - UNITS) / denominator
            parts = (values, named)
        self._parts[key] = parts
        while len(self._parts) > 2 * ROWS_KEPT:  # each a few hundred to a thousand or so floats
            self._parts.popitem(last=False)
        return parts

    def unnamed_counts(self, named) -> list[int]:
        """Per class, how many of its tokens ``named`` (a set or dict of tokens) leaves out."""
        classes = self.classes
        removed = Counter([classes[token] for token in named])
        return [size - removed.get(index, 0) for index, size in enumerate(self._class_sizes)]

    def unnamed_member(self, index: int, position: int, named, count: int) -> int:
        """The ``position``-th (clamped to 0 .. count - 1) token of class ``index`` that
        ``named`` leaves out, in id order."""
        position = min(max(position, 0), count - 1)
        for token in self._members[index]:
            if token not in named:
                if not position:
                    return token
                position -= 1
        raise ValueError(f"class {index} has fewer than {count} tokens outside the named ones")

    def mixture(self, levels: list) -> tuple[list, list]:
        """A chain row as a mixture, for :meth:`ChainRow.sample`: ``(ends, components)``, the
        running masses and ``(level, scale)`` of each component, top level first, then the
        unigram's kept masses, then the uniform row (level None). ``scale`` is the product of
        the weights above the component; the component's mass is ``scale * level.mass``."""
        masses, components, scale = [], [], 1.0
        for level in (*reversed(levels), self._unigram_level):
            components.append((level, scale))
            masses.append(scale * level.mass)
            scale *= level.weight
        components.append((None, scale))
        masses.append(scale)
        return list(accumulate(masses)), components

    def exact_row(self, which: str, context) -> list[Fraction]:
        """The same row (temperature 1) in exact fractions."""
        tables = self.target if which == "target" else self.draft
        return kn_row(tables, tuple(context[max(0, len(context) - (len(tables) - 1)):]), self.size, Fraction)


def float_ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator  # int / int is correctly rounded


def unigram_row(unigram: "Table", size: int, ratio) -> list:
    """The lowest level: ``max(c(w) - D, 0)/N  +  D types/N  1/size`` (continuation counts)."""
    total, types = sum(unigram.counts), len(unigram.words)
    uniform = ratio(UNITS * types, SCALE * total * size)
    row = [uniform] * size
    for word, count in zip(unigram.words, unigram.counts):
        row[word] = uniform + ratio(SCALE * count - UNITS, SCALE * total)
    return row


def kn_row(tables, context, size: int, ratio, base=None) -> list:
    """Interpolated Kneser-Ney row after ``context`` from ``tables`` (order 1 first), with
    ``ratio(a, b)`` building each probability: ``float_ratio`` or :class:`fractions.Fraction`.
    With D = 3/4: the kept mass ``(c - D)/c(h) = (4c - 3)/(4 c(h))`` and the back-off weight
    ``D N1+(h .)/c(h) = 3 N1+(h .)/(4 c(h))``; the unigram level (:func:`unigram_row`, passed
    as ``base`` when cached) backs off to ``1/size``.

    >>> from lab.realtext_training import pack_table
    >>> tables = [Table(pack_table(Counter({(0,): 3, (1,): 1}), 1, 3), 3)]
    >>> kn_row(tables, (), 3, Fraction)  # 1/8 each from the uniform level, then (4c - 3)/16
    [Fraction(11, 16), Fraction(3, 16), Fraction(1, 8)]
    """
    row = base if base is not None else unigram_row(tables[0], size, ratio)
    for n in range(2, len(tables) + 1):
        if len(context) < n - 1:
            break
        found = tables[n - 1].find(context[len(context) - (n - 1):])
        if found is None:
            continue  # an unseen history: P_n = P_{n-1}
        first, end = found
        words, counts = tables[n - 1].words[first:end], tables[n - 1].counts[first:end]
        total = sum(counts)
        weight = ratio(UNITS * (end - first), SCALE * total)
        row = [weight * value for value in row]
        for word, count in zip(words, counts):
            row[word] += ratio(SCALE * count - UNITS, SCALE * total)
    return list(row)


def argmax(row) -> int:
    """The first token of highest probability (ties go to the smallest id); a :class:`Row`
    finds it per class (:meth:`Row.argmax`)."""
    if isinstance(row, Row):
        return row.argmax()
    return row.index(max(row))


def one_hot(size: int, token: int, one=1.0) -> list:
    row = [one * 0] * size
    row[token] = one
    return row


def cumulative(row) -> tuple[list, int]:
    """``(cdf, last)``: the running sums of ``row`` and its last token with mass, whose sum is
    replaced by infinity (so float rounding cannot run past it)."""
    cdf = list(accumulate(row))
    last = len(row) - 1
    while row[last] == 0:
        last -= 1
    cdf[last] = math.inf
    return cdf, last


def sample_row(row, rng) -> int:
    """Inverse-CDF sampling with one ``rng.random()``; a token of zero mass never wins (the
    last token with mass closes the CDF at infinity). A row that samples itself (a :class:`Row`:
    its classes and named tokens, or its chain; a :class:`ResidualRow`: by rejection) does.

    >>> from random import Random
    >>> sample_row([0.25, 0.75, 0.0], Random(0))  # Random(0).random() = 0.844...
    1
    """
    sample = getattr(row, "sample", None)
    if sample is not None:
        return sample(rng)
    cdf, last = cumulative(row)
    return bisect_right(cdf, rng.random(), 0, last + 1)


# --- a small model for the examples -----------------------------------------------------------------

_MODELS: dict = {}  # "default": the real model (lab.realtext.default_model), "example": the one below


def _example_model() -> Model:
    """A model of a few hundred bytes for this module's examples (trained on one line of code)."""
    model = _MODELS.get("example")
    if model is None:
        text = "for item in items:\n    total = total + item\nfor key in keys:\n    total = total + key\n"
        model = _MODELS["example"] = Model(build_model_file([text], 256 + 16, note="example"))
    return model
