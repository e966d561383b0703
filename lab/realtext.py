"""Speculative decoding on real text: a real tokenizer, a real target model, real proposers, exact.

The toy of part three has eight words and rows that ignore the text written so far. This module
runs the same rejection rule on models trained on real text: the Python standard library's source
as Pyodide 314.0.7 ships it (``python_stdlib.zip``, Python Software Foundation License), trained at
build time (:mod:`sitebuild.realtext_train` reads the corpus and caches the model file).

* **Tokenizer.** Byte-level byte-pair encoding (Sennrich et al. 2016; byte-level as in GPT-2):
  text is split into pre-tokens by :data:`PRETOKEN`, then merged by rank. Tokens 0..255 are the
  bytes, so every text encodes; :data:`VOCABULARY_SIZE` tokens in all.
* **Target p.** Interpolated Kneser-Ney (Chen and Goodman 1998, eq. 17 and section 3) of order
  :data:`ORDER` with one discount ``D = 3/4`` at every order:

      P_n(w | h) = max(c(h w) - D, 0) / c(h)  +  D N1+(h .) / c(h)  P_{n-1}(w | h')

  with raw counts at the highest order and continuation counts ``N1+(. h w)`` below it; a history
  the table does not hold falls through to ``P_{n-1}``; the unigram level interpolates with the
  uniform row, so every token has mass. Totals ``c(h)`` and ``N1+(h .)`` are taken from the kept
  (pruned) entries, so each row sums to 1 whatever was pruned. With integer counts and a rational
  D every probability is rational: :func:`kn_row` computes a row in floats for decoding or in
  :class:`fractions.Fraction` for the checks, by the same code.
* **Draft q.** A Kneser-Ney bigram: raw bigram counts (pruned below :data:`DRAFT_MIN_COUNT`)
  over the target's own continuation unigram, a much smaller model with its own distribution.
  (The target's order-2 level alone holds continuation counts, a back-off distribution that
  predicts badly on its own.) ``draft`` samples it at temperature T (q is the tempered row);
  ``draft-greedy`` proposes its argmax (q one-hot: vLLM's greedy draft sampling); ``ngram`` is
  vLLM's prompt lookup (:func:`prompt_lookup`, q one-hot).
* **Temperature.** ``p_T(x) = p(x)^(1/T) / sum_y p(y)^(1/T)`` for target and draft alike; T = 0 is
  the argmax (first of equals), so at T = 0 every row is one-hot and speculative decoding commits
  exactly the target's greedy tokens.
* **Rows as they are held.** No row is laid out token by token while decoding (:class:`Row`). At
  T = 1 a row is its chain of levels: ``p(x)`` is looked up through them for one token, with the
  same float operations as :func:`kn_row`, and a sample is drawn from the chain read as the mixture
  that interpolation is. A tempered row adds one normaliser, and a whole-row sum (the normaliser,
  the overlap) is taken through what every row after the same last token shares (:class:`Base`)
  plus the few tokens the higher levels name. A rejection's token is drawn by rejection from p
  (:class:`ResidualRow`). The vocabulary is never walked, so a verifier call costs a few hundred
  operations, not a few thousand.
* **One cycle** (:func:`run_cycle`): the proposer drafts k tokens (all random draws for drafts
  first), then :func:`verify_block` judges them in order with part three's rule: keep draft x iff
  ``u < min(1, p(x)/q(x))``; the first rejection commits a token from ``norm(max(0, p - q))``; if
  all survive, a bonus token from the next p row. The order of draws is :func:`lab.sampler.verify`'s.
  :func:`first_token_law` runs :func:`verify_block` itself under :func:`lab.sampler.uniform_law`
  on exact rows, so the checks compare the law of the code that decodes, not of a formula.
"""

from __future__ import annotations

import io
import math
import re
import struct
import sys
import zipfile
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter, OrderedDict
from fractions import Fraction
from itertools import accumulate, repeat
from operator import add, itemgetter, mul, neg, sub, truediv
from random import Random

from .errors import LabValueError

__all__ = [
    "FORMAT", "VOCABULARY_SIZE", "ORDER", "PRETOKEN", "PROPOSERS", "PRESETS", "DEFAULT_PRESET", "LIMITS",
    "MIN_TEMPERATURE", "check_temperature",
    "Tokenizer", "Model", "ModelUnavailable", "merge_pair", "train_merges", "count_tables", "build_model_file", "load_model",
    "default_model", "Level", "Row", "OneHotRow", "ChainRow", "TemperedRow", "ResidualRow", "Base",
    "kn_row", "argmax", "cumulative", "sample_row", "acceptance_probability",
    "residual", "overlap",
    "verify_block",
    "prompt_lookup", "Drafts", "propose", "run_cycle", "first_alpha", "Run", "generate", "text_alpha", "greedy", "first_token_law",
    "summarise", "held_out_texts",
]

FORMAT = "realtext-1"          # bump when the model file's layout or the trainer's meaning changes
VOCABULARY_SIZE = 2048         # 256 bytes + 1792 merges
ORDER = 4                      # the target's n-gram order
DRAFT_MIN_COUNT = 2            # the draft's raw bigram counts kept (pruned as the target's tables are)
DISCOUNT = Fraction(3, 4)      # Kneser-Ney's absolute discount D, the same at every order
PRETOKEN = rb" ?[A-Za-z_]+| ?[0-9]+| ?[^\sA-Za-z_0-9]+|\s+(?!\S)|\s+"
PROMPT_LOOKUP = (2, 5)         # (prompt_lookup_min, prompt_lookup_max) of the ngram proposer
PROPOSERS = ("draft", "draft-greedy", "ngram")
PROPOSER_NAMES = {"draft": "draft model (sampled)", "draft-greedy": "draft model (greedy)",
                  "ngram": "prompt lookup (n-gram)"}
# name: (label, prompt). A function to complete, technical English, a repetitive template.
PRESETS = {
    "python": ("a Python function", "def read_lines(path, encoding=None):\n"
               "    \"\"\"Return the lines of the file at path.\"\"\"\n"
               "    with open(path, encoding=encoding) as f:\n        return"),
    "docstring": ("an English docstring", "    \"\"\"Return the number of items in the queue.\n\n"
                  "    If the queue is empty, this method returns zero. Note that the"),
    "template": ("a repetitive template", "    def get_host(self):\n        return self._host\n\n"
                 "    def get_port(self):\n        return self._port\n\n    def get_user(self):\n        return"),
}
DEFAULT_PRESET = "python"
# setting: (low, high, default); integers except temperature.
LIMITS = {"lookahead": (1, 8, 4), "temperature": (0.0, 2.0, 1.0), "tokens": (1, 256, 48), "seed": (0, 2**31 - 1, 1)}
# The smallest temperature above 0 (greedy). A tempered row raises its levels' floats to 1/T: the
# bigram back-off weight (at least 0.0016 in the shipped draft table, 0.00073 at the target's top
# order) and the unigram (at least 3.9e-6) raised to 1/T underflow to 0 near T = 0.0055 (1/T = 182),
# and the row's normaliser and sampler divide by them. At T = 0.05 (1/T = 20) the smallest such
# product, (0.0016 * 0.00073 * 0.0099 * 3.9e-6)^20, is about 1e-278: a float, with room to spare.
# Below it the sampled text is the greedy text in all but name; T is 0 or at least this.
MIN_TEMPERATURE = 0.05
MAX_PROMPT_CHARS = 2000
MODEL_DATA_PATH = "/lab-data/realtext/model.zip"   # where the page's worker writes the model file
ZERO, ONE = Fraction(0), Fraction(1)


ROWS_KEPT = 1024               # rows a model keeps (each a chain of levels and a number or two): a few requests' worth
LEVELS_KEPT = 4096             # levels a table keeps (an entry's words, counts and what is derived from them)
RESIDUAL_DRAWS = 1000          # draws from p a residual tries before it samples itself token by token (ResidualRow)


class ModelUnavailable(RuntimeError):
    """No model file here (the page has not loaded it; no corpus to train from)."""


# --- tokenizer ----------------------------------------------------------------------------------

class Tokenizer:
    """Byte-level BPE: token ``256 + i`` is merge ``i`` (a pair of earlier tokens).

    >>> tokenizer = Tokenizer([(97, 98), (256, 99)])
    >>> tokenizer.encode("abc ab"), tokenizer.decode(tokenizer.encode("abc ab"))
    ([257, 32, 256], 'abc ab')
    """

    def __init__(self, merges):
        self.merges = [tuple(pair) for pair in merges]
        self.ranks = {pair: rank for rank, pair in enumerate(self.merges)}
        pieces = [bytes([b]) for b in range(256)]
        for left, right in self.merges:
            pieces.append(pieces[left] + pieces[right])
        self.pieces = pieces
        self._cache: dict[bytes, list[int]] = {}

    def __len__(self):
        return len(self.pieces)

    def encode_word(self, word: bytes) -> list[int]:
        """One pre-token: merge the lowest-ranked adjacent pair until none is a merge."""
        ids = list(word)
        ranks = self.ranks
        while len(ids) > 1:
            best = min(zip(ids, ids[1:]), key=lambda pair: ranks.get(pair, 1 << 30))
            rank = ranks.get(best)
            if rank is None:
                break
            ids = merge_pair(ids, best, 256 + rank)
        return ids

    def encode(self, text: str) -> list[int]:
        tokens: list[int] = []
        for word in re.findall(PRETOKEN, text.encode("utf-8", errors="replace")):  # a lone surrogate: "?"
            encoded = self._cache.get(word)
            if encoded is None:
                encoded = self.encode_word(word)
                if len(self._cache) < 65536:
                    self._cache[word] = encoded
            tokens.extend(encoded)
        return tokens

    def decode(self, tokens) -> str:
        return b"".join(self.pieces[t] for t in tokens).decode("utf-8", errors="replace")

    def piece(self, token: int) -> str:
        """One token's text as shown on the page (a split UTF-8 sequence shows as U+FFFD)."""
        return self.pieces[token].decode("utf-8", errors="replace")


def merge_pair(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """``ids`` with every non-overlapping occurrence of ``pair``, left to right, replaced by
    ``new_id``: one byte-pair merge, as encoding applies it and as training counts it.

    >>> merge_pair([97, 97, 97, 98], (97, 97), 256)
    [256, 97, 98]
    """
    merged, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            merged.append(new_id)
            i += 2
        else:
            merged.append(ids[i])
            i += 1
    return merged


# --- training (build time; the checks also train a small model here) ------------------------------

def train_merges(word_counts: Counter, merges: int) -> list[tuple[int, int]]:
    """Byte-pair merges over pre-token types weighted by their counts.

    Each step merges the most frequent adjacent pair (ties: the smallest pair of ids), updating the
    pair counts of only the words that hold it; a heap with lazy deletion finds the maximum.

    >>> train_merges(Counter({b"abab": 3, b"ab": 1}), 2)
    [(97, 98), (256, 256)]
    """
    import heapq

    words = [list(word) for word in sorted(word_counts)]
    weights = [word_counts[word] for word in sorted(word_counts)]
    pair_counts: Counter = Counter()
    where: dict[tuple[int, int], set[int]] = {}
    for index, word in enumerate(words):
        for pair in zip(word, word[1:]):
            pair_counts[pair] += weights[index]
            where.setdefault(pair, set()).add(index)
    heap = [(-count, pair) for pair, count in pair_counts.items()]
    heapq.heapify(heap)
    result: list[tuple[int, int]] = []
    while len(result) < merges and heap:
        negative, pair = heapq.heappop(heap)
        if pair_counts.get(pair, 0) != -negative or negative >= 0:
            continue  # a stale entry: the pair's count changed after it was pushed
        new_id = 256 + len(result)
        result.append(pair)
        touched: Counter = Counter()
        for index in where.pop(pair, ()):  # words are independent: their order changes nothing
            word, weight = words[index], weights[index]
            for old in zip(word, word[1:]):
                touched[old] -= weight
            merged = merge_pair(word, pair, new_id)
            words[index] = merged
            for new in zip(merged, merged[1:]):
                touched[new] += weight
                where.setdefault(new, set()).add(index)
        for changed, delta in touched.items():
            if delta:
                pair_counts[changed] += delta
                heapq.heappush(heap, (-pair_counts[changed], changed))
        pair_counts.pop(pair, None)
    return result


def count_tables(tokens: list[int], order: int, min_counts: dict) -> dict[int, Counter]:
    """Kneser-Ney count tables ``{n: Counter(ngram -> count)}``: raw counts at ``order``,
    continuation counts ``N1+(. h w)`` (distinct tokens seen before ``h w``) below, each pruned
    to entries of at least ``min_counts[n]``. One pass counts the top order; each distinct
    lower-order n-gram is a prefix of a distinct higher one (or ends the text).

    >>> {n: sorted(table.items()) for n, table in count_tables([1, 2, 1, 2, 3], 2, {1: 1, 2: 1}).items()}
    {2: [((1, 2), 2), ((2, 1), 1), ((2, 3), 1)], 1: [((1,), 1), ((2,), 1), ((3,), 1)]}
    """
    top = Counter(zip(*(tokens[i:] for i in range(order))))
    tables: dict[int, Counter] = {order: top}
    distinct = set(top)  # the distinct n-grams of the current order
    for n in range(order - 1, 0, -1):
        continuation: Counter = Counter(gram[1:] for gram in distinct)
        tables[n] = continuation
        distinct = {gram[:-1] for gram in distinct}
        if len(tokens) >= n:
            distinct.add(tuple(tokens[len(tokens) - n:]))
    return {n: Counter({g: c for g, c in table.items() if c >= min_counts[n]}) for n, table in tables.items()}


def encode_texts(texts, tokenizer: Tokenizer) -> list[int]:
    """The texts as one token list, in order (each distinct pre-token encoded once)."""
    tokens: list[int] = []
    for text in texts:
        tokens.extend(tokenizer.encode(text))
    return tokens


def build_model_file(texts, vocabulary_size: int = VOCABULARY_SIZE, order: int = ORDER,
                     min_counts=None, note: str = "") -> bytes:
    """Train tokenizer and counts on ``texts`` (str) and pack them into a model file (zip bytes)."""
    min_counts = min_counts or {n: 1 for n in range(1, order + 1)}
    words: Counter = Counter()
    for text in texts:
        words.update(re.findall(PRETOKEN, text.encode("utf-8")))
    merges = train_merges(words, vocabulary_size - 256)
    tokenizer = Tokenizer(merges)
    tokens = encode_texts(texts, tokenizer)
    tables = count_tables(tokens, order, min_counts)
    bigrams = Counter(zip(tokens, tokens[1:]))
    draft = Counter({gram: count for gram, count in bigrams.items() if count >= DRAFT_MIN_COUNT})
    header = f"{FORMAT}\nvocabulary {len(tokenizer)}\norder {order}\ntokens {len(tokens)}\n{note}".encode()
    entries = {"header.txt": header, "merges.bin": _pack_array("H", [t for pair in merges for t in pair]),
               "draft2.bin": pack_table(draft, 2, len(tokenizer))}
    for n, table in tables.items():
        entries[f"order{n}.bin"] = pack_table(table, n, len(tokenizer))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED  # the server compresses the file as a whole
            archive.writestr(info, entries[name])
    return buffer.getvalue()


# --- the model file -------------------------------------------------------------------------------

def _pack_array(code: str, values) -> bytes:
    packed = array(code, values)
    if sys.byteorder != "little":
        packed.byteswap()
    return packed.tobytes()


def _unpack_array(code: str, data: bytes) -> array:
    unpacked = array(code)
    unpacked.frombytes(data)
    if sys.byteorder != "little":
        unpacked.byteswap()
    return unpacked


def pack_table(table: Counter, n: int, size: int) -> bytes:
    """One order's entries as columns: header (n, contexts C, entries E), the context keys
    (``sum h_i size^(n-2-i)``, uint64, sorted), entries per context (uint16), then per entry the
    next token (uint16) and the count (uint32)."""
    grams = sorted(table)
    keys, lengths, words, counts = [], [], [], []
    for gram in grams:
        key = 0
        for token in gram[:-1]:
            key = key * size + token
        if not keys or keys[-1] != key:
            keys.append(key)
            lengths.append(0)
        lengths[-1] += 1
        words.append(gram[-1])
        counts.append(table[gram])
    return (struct.pack("<3I", n, len(keys), len(words)) + _pack_array("Q", keys) + _pack_array("H", lengths)
            + _pack_array("H", words) + _pack_array("I", counts))


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
        key = 0
        for token in context:
            key = key * self.size + token
        index = bisect_left(self.keys, key)
        if index == len(self.keys) or self.keys[index] != key:
            return None
        return self.starts[index], self.starts[index + 1]

    def level(self, context) -> "Level | None":
        """The :class:`Level` of ``context``'s entries, or None. The :data:`LEVELS_KEPT` made last are
        kept (the oldest goes first)."""
        found = self.find(context)
        if found is None:
            return None
        level = self._levels.get(found[0])
        if level is None:
            first, end = found
            level = self._levels[first] = Level(self.words[first:end], self.counts[first:end])
            if len(self._levels) > LEVELS_KEPT:
                del self._levels[next(iter(self._levels))]
        return level


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
        denominator = 4 * sum(counts)
        self.words, self.counts, self.denominator = words, counts, denominator
        self.weight = 3 * len(words) / denominator  # int / int, correctly rounded (as float_ratio)
        self.mass = (denominator - 3 * len(words)) / denominator
        self._kept_values = self._kept_map = self._running = None  # made when asked for: most levels are only read

    def kept(self, word: int) -> float:
        """``(4c - 3) / (4 c(h))`` of ``word``, 0.0 if this level does not name it."""
        words = self.words
        index = bisect_left(words, word)
        if index < len(words) and words[index] == word:
            return (4 * self.counts[index] - 3) / self.denominator
        return 0.0

    def kept_values(self) -> list[float]:
        """Every word's kept mass, in the words' order."""
        if self._kept_values is None:
            denominator = self.denominator
            self._kept_values = [(4 * count - 3) / denominator for count in self.counts]
        return self._kept_values

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
            running = self._running = list(accumulate(4 * count - 3 for count in self.counts))
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
        """The first token of highest probability: ``dense().index(max(dense()))``, per class."""
        values, named = self.parts()
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

    __slots__ = ("which", "history", "bigram", "upper", "_mixture", "_parts")

    def __init__(self, model: "Model", which: str, history: tuple, bigram, upper: list):
        self.model, self.which, self.history, self.bigram, self.upper = model, which, history, bigram, upper
        self._mixture = self._parts = None

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
        """``[self[x] for x in tokens]``, level by level over all of them (mapped in C).
        ``bigram_values``, when the caller has them, are the bigram-level row's values of the
        tokens (its base's at T = 1, as :meth:`bigram_values` gives)."""
        values = self.bigram_values(tokens) if bigram_values is None else bigram_values
        for level in self.upper:
            values = list(map(add, map(level.weight.__mul__, values), map(level.kept_map().get, tokens, repeat(0.0))))
        return values

    def bigram_values(self, tokens: list[int]) -> list[float]:
        """The bigram-level row's values of ``tokens``: the unigram's after an unseen last token,
        else its base's at T = 1 (the chain's own floats)."""
        if self.bigram is None:
            return list(map(self.model.unigram.__getitem__, tokens))
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
        extra = self.extra = chain.upper_words()
        self.scale = chain.upper_scale() ** power
        bigram = chain.bigram_values(extra)  # read once: raised, they are the base's b_T of X
        weights = list(map(pow, chain.values(extra, bigram), repeat(power)))
        self.extra_running = list(accumulate(weights))
        generic = self.scale * base.mass
        self.total = math.fsum([generic, *(-self.scale * value ** power for value in bigram), *weights])

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
        """``[self[x] for x in tokens]`` (mapped in C)."""
        return list(map(truediv, map(pow, self.chain.values(tokens), repeat(self.power)), repeat(self.total)))

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

    __slots__ = ("model", "named", "values", "powers", "powers_running", "powers_total", "weight", "power", "parent",
                 "_mass", "_rest", "_running", "_named_running", "_values_of")

    def __init__(self, model: "Model", level, temperature, parent: "Base | None" = None):
        """``parent``, for T != 1, is the same row's base at T = 1: its values are raised, not
        recomputed."""
        self.model, self.parent, self.power = model, parent, 1.0 / temperature
        self.powers, self.powers_running, self.powers_total = model.unigram_powers(temperature)
        if level is None:
            self.named, self.values, self.weight = [], [], 1.0
        elif parent is None:  # T = 1: weight * u(x) + kept(x), the chain's floats, mapped in C
            self.named, self.weight = list(level.words), level.weight
            self.values = list(map(add, map(self.weight.__mul__, map(self.powers.__getitem__, self.named)),
                                   level.kept_values()))
        else:
            self.named, self.weight = parent.named, level.weight ** self.power
            self.values = list(map(pow, parent.values, repeat(self.power)))
        self._mass = self._rest = self._running = self._named_running = self._values_of = None

    @property
    def mass(self) -> float:
        """``sum_x b_T(x)`` (made when first asked for: a T = 1 base made for its values never is)."""
        if self._mass is None:  # w_T (sum of all u_T) + sum over N of (b_T - w_T u_T): one pass over N
            lifted = map(sub, self.values, map(self.weight.__mul__, map(self.powers.__getitem__, self.named)))
            self._mass = self.weight * self.powers_total + math.fsum(lifted)
        return self._mass

    @property
    def rest(self) -> float:
        """The unigram powers' sum off N."""
        if self._rest is None:
            self._rest = self.powers_total - math.fsum(map(self.powers.__getitem__, self.named))
        return self._rest

    def values_of(self, tokens) -> list[float]:
        """``b_T`` of each token (mapped in C: N's value, else ``weight * u_T``; at T != 1 the
        T = 1 base's raised, as ``values`` are)."""
        if self.parent is not None:
            return list(map(pow, self.parent.values_of(tokens), repeat(self.power)))
        if self._values_of is None:
            self._values_of = dict(zip(self.named, self.values))
        return list(map(self._values_of.get, tokens, map(self.weight.__mul__, map(self.powers.__getitem__, tokens))))

    def sample(self, uniform: float) -> int:
        if self._running is None:  # made when first sampled: many a base only gives its mass
            self._running = list(accumulate(self.values))
            self._named_running = list(accumulate(map(self.powers.__getitem__, self.named), initial=0.0))
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
            self.corpus_tokens = int(header[3].split()[1])
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
        self._bases: OrderedDict = OrderedDict()
        self._powers: OrderedDict = OrderedDict()

    def row(self, which: str, context, temperature=1.0) -> Row:
        """The row of ``which`` ("target" or "draft") after ``context``, tempered; cached.

        At T = 1 a :class:`ChainRow` (its levels); at 0 < T != 1 a :class:`TemperedRow` of that
        chain; at T = 0 a :class:`OneHotRow` on the chain's argmax. The cache keeps the
        :data:`ROWS_KEPT` rows used last (one at a time out, oldest first: emptying it all at
        once cost a tenth of a second in one request). A row never changes, so what is derived
        from it (its sampling table, its overlap with a draft row) is kept on it."""
        tables = self.target if which == "target" else self.draft
        history = tuple(context[max(0, len(context) - (len(tables) - 1)):])
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
            powers = self.unigram if temperature == 1 else list(map(pow, self.unigram, repeat(1.0 / temperature)))
            entry = self._powers[temperature] = (powers, list(accumulate(powers, initial=0.0)), math.fsum(powers))
            while len(self._powers) > 8:
                self._powers.popitem(last=False)
        return entry

    def base(self, which: str, last: tuple, temperature) -> "Base":
        """The :class:`Base` of ``which`` after ``last`` (the history's last token, or ``()``) at T."""
        key = (which, last, temperature)
        base = self._bases.get(key)
        if base is None:
            level = (self.target if which == "target" else self.draft)[1].level(last) if last else None
            parent = None if temperature == 1 or level is None else self.base(which, last, 1)
            base = self._bases[key] = Base(self, level, temperature, parent)
            while len(self._bases) > ROWS_KEPT // 2:
                self._bases.popitem(last=False)
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
            scale, denominator = level.weight.__mul__, level.denominator  # weight * value, mapped in C
            values = list(map(scale, values))
            named = dict(zip(named, map(scale, named.values())))
            for word, count in zip(level.words, level.counts):
                value = named.get(word)
                if value is None:
                    value = values[classes[word]]
                named[word] = value + (4 * count - 3) / denominator
            parts = (values, named)
        self._parts[key] = parts
        while len(self._parts) > 2 * ROWS_KEPT:  # each a few hundred to a thousand or so floats
            self._parts.popitem(last=False)
        return parts

    def unnamed_counts(self, named) -> list[int]:
        """Per class, how many of its tokens ``named`` (a set or dict of tokens) leaves out."""
        removed = Counter(map(self.classes.__getitem__, named))
        return list(map(sub, self._class_sizes, map(removed.get, range(len(self._class_sizes)), repeat(0))))

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
    uniform = ratio(3 * types, 4 * total * size)
    row = [uniform] * size
    for word, count in zip(unigram.words, unigram.counts):
        row[word] = uniform + ratio(4 * count - 3, 4 * total)
    return row


def kn_row(tables, context, size: int, ratio, base=None) -> list:
    """Interpolated Kneser-Ney row after ``context`` from ``tables`` (order 1 first), with
    ``ratio(a, b)`` building each probability: ``float_ratio`` or :class:`fractions.Fraction`.
    With D = 3/4: the kept mass ``(c - D)/c(h) = (4c - 3)/(4 c(h))`` and the back-off weight
    ``D N1+(h .)/c(h) = 3 N1+(h .)/(4 c(h))``; the unigram level (:func:`unigram_row`, passed
    as ``base`` when cached) backs off to ``1/size``.

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
        weight = ratio(3 * (end - first), 4 * total)
        row = [weight * value for value in row]
        for word, count in zip(words, counts):
            row[word] += ratio(4 * count - 3, 4 * total)
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

    >>> sample_row([0.25, 0.75, 0.0], Random(0))  # Random(0).random() = 0.844...
    1
    """
    sample = getattr(row, "sample", None)
    if sample is not None:
        return sample(rng)
    cdf, last = cumulative(row)
    return bisect_right(cdf, rng.random(), 0, last + 1)


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
    terms = [y if y < x else x for x, y in zip(map(alpha.__mul__, a), map(beta.__mul__, second.values_of(tokens)))]
    rest = first.rest - math.fsum(map(first.powers.__getitem__, only_second))
    terms.append(min(alpha * first.weight, beta * second.weight) * rest)
    extra = p_chain.upper_words()
    if extra:
        terms += map(min, p.values(extra), q.values(extra))
        counted = map(min, map(alpha.__mul__, first.values_of(extra)), map(beta.__mul__, second.values_of(extra)))
        terms += map(neg, counted)
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


class Run:
    """One seeded run (``random.Random(seed)``) that grows only as far as it is asked, and keeps
    what it computed: :meth:`upto` returns the run's first calls, drawing more cycles from the
    saved generator (and the tokens written so far) only when the calls it holds are not enough.
    The calls are those of one run computed in one go (one generator, drawn in the same order),
    so a page that steps through a run, or writes fewer or more tokens of it, recomputes nothing
    it already showed. With ``lazy`` each record's drafts are :func:`run_cycle`'s lazy ones (the
    same tokens when read).

    >>> model = _example_model()
    >>> run = Run(model, [1, 2], "draft", 2, 1.0, 5)
    >>> run.upto(6, 2) == generate(model, [1, 2], "draft", 2, 1.0, 6, 5, max_calls=2)
    True
    >>> run.upto(9) == generate(model, [1, 2], "draft", 2, 1.0, 9, 5)
    True
    """

    def __init__(self, model: Model, prompt_tokens, proposer: str, k: int, temperature, seed: int,
                 lazy: bool = False):
        check_temperature(temperature)
        self.model, self.proposer, self.k, self.temperature = model, proposer, k, temperature
        self.lazy = lazy  # records' drafts resolved only when read (run_cycle's lazy)
        self.rng = Random(seed)
        self.tokens = list(prompt_tokens)
        self.cycles: list[dict] = []
        self.done: list[int] = []  # committed tokens after each call

    def upto(self, count: int, max_calls: int | None = None) -> list[dict]:
        """The calls until ``count`` tokens are committed, or ``max_calls`` calls (the first
        reached); see :func:`generate`."""
        calls = 0
        while (self.done[calls - 1] if calls else 0) < count and (max_calls is None or calls < max_calls):
            if calls == len(self.cycles):
                cycle = run_cycle(self.model, self.proposer, self.tokens, self.k, self.temperature, self.rng,
                                  self.lazy)
                self.cycles.append(cycle)
                self.tokens.extend(cycle["committed"])
                self.done.append((self.done[-1] if self.done else 0) + len(cycle["committed"]))
            calls += 1
        return self.cycles[:calls]


def check_temperature(temperature) -> None:
    """Refuse a temperature that is neither 0 (greedy) nor from :data:`MIN_TEMPERATURE` to
    ``LIMITS["temperature"][1]``: rows tempered below the minimum underflow to a zero total.

    >>> check_temperature(0), check_temperature(0.05), check_temperature(1.5)
    (None, None, None)
    >>> check_temperature(0.003)
    Traceback (most recent call last):
    ...
    lab.errors.LabValueError: temperature 0.003 is neither 0 (greedy) nor from 0.05 to 2
    """
    if not (temperature == 0 or MIN_TEMPERATURE <= temperature <= LIMITS["temperature"][1]):
        raise LabValueError(f"temperature {temperature:.3g} is neither 0 (greedy) nor from {MIN_TEMPERATURE:g} "
                            f"to {LIMITS['temperature'][1]:g}")


def generate(model: Model, prompt_tokens, proposer: str, k: int, temperature, count: int, seed: int,
             max_calls: int | None = None) -> list[dict]:
    """Cycles with ``random.Random(seed)`` until ``count`` tokens are committed. The last call may
    commit up to k more; the output keeps them, so that every call drafted what its proposer
    offered at lookahead k and the trace reads at that lookahead. With ``max_calls`` it stops
    after that many verifier calls: the same calls as the whole run's first ones (one seeded
    generator, drawn in the same order), so a page can step through a run one call per request
    and recompute it from the seed each time (or keep the :class:`Run` and extend it)."""
    return Run(model, prompt_tokens, proposer, k, temperature, seed).upto(count, max_calls)


def text_alpha(model: Model, tokens, temperature=1.0) -> list[float]:
    """The per-token acceptance at every position of a text itself: ``sum_x min(p(x), q(x))`` with
    both rows conditioned on the text before that position (the chance that a draft sampled there
    survives). It measures the text, not a run: a run's continuation is whatever the target
    writes, which for these models, trained on code, leaves prose within a few tokens."""
    return [math.fsum(map(min, model.row("target", tokens[:index], temperature),
                          model.row("draft", tokens[:index], temperature)))
            for index in range(1, len(tokens))]


def greedy(model: Model, prompt_tokens, count: int) -> list[int]:
    """Plain greedy decoding of the target: ``count`` argmax tokens, one after another."""
    tokens = list(prompt_tokens)
    out = []
    for _ in range(count):
        token = argmax(model.row("target", tokens[-(model.order - 1):]))
        out.append(token)
        tokens.append(token)
    return out


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
        outcome_law = uniform_law(lambda rng: verify_block([token], [p, p], [q], rng, sample=marker)[0][0])
        for outcome, weight in outcome_law.items():
            if isinstance(outcome, tuple):
                sampled[outcome[1]] = sampled.get(outcome[1], ZERO) + q_x * weight
            else:
                law[outcome] += q_x * weight
    for key, mass in sampled.items():
        law = [value + mass * r for value, r in zip(law, rows[key])]
    return law


# --- what a run says -------------------------------------------------------------------------------

def summarise(cycles: list[dict], k: int, analytic: bool = True) -> dict:
    """The run's numbers, through the trace reader's own analysis (:mod:`lab.traces`).

    ``cycles`` (the trace) lists the accepted count of every call that carried a draft (vLLM's
    ``num_drafts``); the per-position curve, alphaIid and alphaMle are
    :func:`lab.traces.analyse` of that trace at lookahead k. ``tokensPerCall`` = committed tokens /
    verifier calls = 1 + accepted / calls (the mean acceptance length); ``acceptanceRate`` =
    accepted / drafted (the engines' ratio); ``meanFirstAlpha`` the analytic first-position
    acceptance (:func:`first_alpha`) averaged over the calls that drafted, or, with ``analytic``
    False, None (a lazy run's records then keep theirs uncomputed)."""
    from . import ledger, traces

    calls = len(cycles)
    drafted = sum(len(c["drafts"]) for c in cycles)
    accepted = sum(c["accepted"] for c in cycles)
    committed = sum(len(c["committed"]) for c in cycles)
    trace_cycles = [c["accepted"] for c in cycles if c["drafts"]]
    result = {"verifierCalls": calls, "draftedTokens": drafted, "acceptedTokens": accepted,
              "committedTokens": committed, "cycles": trace_cycles,
              "tokensPerCall": committed / calls if calls else 0.0,
              "meanAcceptanceLength": 1 + accepted / calls if calls else 0.0,
              "acceptanceRate": accepted / drafted if drafted else None,
              "perPosition": None, "alphaIid": None, "alphaMle": None, "predictedTokensPerCall": None,
              "callsWithoutDraft": calls - len(trace_cycles)}
    alphas = [alpha for alpha in map(first_alpha, cycles) if alpha is not None] if analytic else []
    result["meanFirstAlpha"] = math.fsum(alphas) / len(alphas) if alphas else None
    if trace_cycles:
        histogram = Counter(trace_cycles)
        analysis = traces.analyse(traces.cycles_to_trace(dict(histogram), k))
        result.update(perPosition=analysis["perPosition"], alphaIid=analysis["alphaIid"],
                      alphaMle=analysis["alphaMle"], conditional=analysis["conditional"])
        # What the ledger predicts from the measured alpha (independent acceptance):
        # 1 + alpha + ... + alpha^k tokens per call, against what the run achieved.
        result["predictedTokensPerCall"] = 1 + ledger.expected_accepted_drafts(analysis["alphaMle"], k)
    return result


def run_document(model: Model, values: dict, compare: bool = False) -> dict:
    """What the CLI prints for one run (``values``: prompt, proposer, lookahead, temperature,
    tokens, seed): the text and tokens written, the trace and its numbers; with ``compare`` the
    target's greedy text of the same length and whether the run wrote exactly it."""
    prompt_tokens = model.tokenizer.encode(values["prompt"])
    k = values["lookahead"]
    cycles = generate(model, prompt_tokens, values["proposer"], k, values["temperature"], values["tokens"],
                      values["seed"])
    tokens = [token for cycle in cycles for token in cycle["committed"]]
    summary = summarise(cycles, k)
    document = {"prompt": values["prompt"], "promptTokens": len(prompt_tokens), "proposer": values["proposer"],
                "lookahead": k, "temperature": values["temperature"], "seed": values["seed"],
                "text": model.tokenizer.decode(tokens), "tokens": tokens, **summary}
    document.pop("conditional", None)
    if compare:
        plain = greedy(model, prompt_tokens, len(tokens))
        document["plainText"] = model.tokenizer.decode(plain)
        document["identical"] = plain == tokens
    return document


# --- loading --------------------------------------------------------------------------------------

_MODELS: dict = {}


def load_model(data: bytes) -> Model:
    return Model(data)


def default_model() -> Model:
    """The real model: the file the page's worker wrote (:data:`MODEL_DATA_PATH`), else, in a
    checkout with ``node_modules``, the build's cached file (trained first if missing)."""
    model = _MODELS.get("default")
    if model is not None:
        return model
    import os

    for path in (os.environ.get("PROOFROOM_REALTEXT_MODEL"), MODEL_DATA_PATH):
        if path and os.path.isfile(path):
            try:
                with open(path, "rb") as handle:
                    model = _MODELS["default"] = Model(handle.read())
            except (OSError, zipfile.BadZipFile, KeyError, ValueError, IndexError, struct.error) as error:
                raise ModelUnavailable(f"the model file cannot be read ({type(error).__name__}: {error})") from None
            return model
    try:
        from sitebuild import realtext_train  # CPython in a checkout only; never in the browser
    except ImportError:
        raise ModelUnavailable("the real-text model is not loaded yet") from None
    try:
        data = realtext_train.model_bytes(realtext_train.ROOT)
    except FileNotFoundError as error:
        raise ModelUnavailable(str(error)) from None
    model = _MODELS["default"] = Model(data)
    return model


def held_out_texts() -> dict:
    """Code and English the models never saw (``{kind: {"text", "sources", "charsEach"}}``), read in a checkout when
    the page is built (:func:`sitebuild.realtext_train.held_out_texts`); never in the browser."""
    try:
        from sitebuild import realtext_train  # CPython in a checkout only
    except ImportError:
        raise ModelUnavailable("held-out texts are read only when the page is built") from None
    try:
        return realtext_train.held_out_texts(realtext_train.ROOT)
    except OSError as error:
        raise ModelUnavailable(f"a held-out text cannot be read ({error})") from None


def _example_model() -> Model:
    """A model of a few hundred bytes for this module's examples (trained on one line of code)."""
    model = _MODELS.get("example")
    if model is None:
        text = "for item in items:\n    total = total + item\nfor key in keys:\n    total = total + key\n"
        model = _MODELS["example"] = Model(build_model_file([text], 256 + 16, note="example"))
    return model


def model_available() -> bool:
    """Whether :func:`default_model` can answer without training (loaded, or its file is here)."""
    import os

    return "default" in _MODELS or any(path and os.path.isfile(path) for path in
                                       (os.environ.get("PROOFROOM_REALTEXT_MODEL"), MODEL_DATA_PATH))
