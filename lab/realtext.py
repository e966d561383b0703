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
from itertools import accumulate
from operator import itemgetter, sub
from random import Random

__all__ = [
    "FORMAT", "VOCABULARY_SIZE", "ORDER", "PRETOKEN", "PROPOSERS", "PRESETS", "DEFAULT_PRESET", "LIMITS",
    "Tokenizer", "Model", "ModelUnavailable", "merge_pair", "train_merges", "count_tables", "build_model_file", "load_model",
    "default_model", "Row", "kn_row", "tempered", "argmax", "cumulative", "sample_row", "acceptance_probability",
    "residual", "overlap",
    "verify_block",
    "prompt_lookup", "Drafts", "propose", "run_cycle", "Run", "generate", "text_alpha", "greedy", "first_token_law",
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
MAX_PROMPT_CHARS = 2000
MODEL_DATA_PATH = "/lab-data/realtext/model.zip"   # where the page's worker writes the model file
ZERO, ONE = Fraction(0), Fraction(1)


ROWS_KEPT = 1024               # rows a model keeps (each 2,048 floats, and its cumulative table): a few requests' worth


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


class Row(list):
    """A model's row (a list of probabilities) that is never changed once made, so what is derived
    from it is computed once and kept on it: its cumulative table (:func:`sample_row`), and per
    draft row its overlap ``sum min(p, q)`` (:func:`overlap`). (A residual is kept by no row: in
    a run of slider steps fewer than one in ten recurred, and it is a row of its own.)

    ``parts``, when the model made the row from its classes (:meth:`Model._spread_row`), is
    ``(class values, {token: value}, spread)``: every token the dict does not name has its class's
    value, and ``spread`` lays class values out token by token. Two rows with parts over the same
    spread are compared class by class (:func:`overlap`, :func:`residual`): the same values, summed
    in the same token order, as token by token, for a sixth of the Python work."""

    __slots__ = ("cumulative", "derived", "parts")


class Table:
    """One order's entries, searched by context key (bisection over the sorted keys)."""

    __slots__ = ("n", "keys", "starts", "words", "counts", "size")

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

    def find(self, context) -> tuple[int, int] | None:
        """(first, end) entry indices of ``context`` (the last n-1 tokens), or None."""
        key = 0
        for token in context:
            key = key * self.size + token
        index = bisect_left(self.keys, key)
        if index == len(self.keys) or self.keys[index] != key:
            return None
        return self.starts[index], self.starts[index + 1]


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
        self._unigram = unigram_row(self.target[0], self.size, float_ratio)
        # Tokens of equal unigram probability form a class: a row's value for a token no higher
        # order names is its class's value times the levels' weights, so a row is computed per
        # class plus per named token (see _parts), then spread over the vocabulary.
        index: dict = {}
        self._classes = [index.setdefault(value, len(index)) for value in self._unigram]
        self._class_values = list(index)
        self._spread = itemgetter(*self._classes)  # class values -> the row's values, token by token
        self._parts: OrderedDict = OrderedDict()

    def row(self, which: str, context, temperature=1.0) -> Row:
        """The float row of ``which`` ("target" or "draft") after ``context``, tempered; cached.

        The cache keeps the :data:`ROWS_KEPT` rows used last (one at a time out, oldest first:
        emptying it all at once cost a tenth of a second in one request). A row is a :class:`Row`,
        never changed once made, so what is derived from it (its cumulative table, its overlap
        with a draft row, the residual) is kept on it."""
        tables = self.target if which == "target" else self.draft
        history = tuple(context[max(0, len(context) - (len(tables) - 1)):])
        key = (which, history, temperature)
        rows = self._rows
        row = rows.get(key)
        if row is None:
            if temperature not in (0, 1):
                row = rows[key] = self._tempered_row(self._row_parts(which, history), temperature)
            else:
                base_key = (which, history, 1.0)
                base = rows.get(base_key)
                if base is None:
                    base = rows[base_key] = self._spread_row(*self._row_parts(which, history))
                row = tempered(base, temperature)
                rows[key] = row if row is base else Row(row)
                row = rows[key]
            while len(rows) > ROWS_KEPT:
                rows.popitem(last=False)
        else:
            rows.move_to_end(key)
        return row

    def _row_parts(self, which: str, history: tuple) -> tuple[list, dict]:
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
            return self._class_values, {}
        parts = self._row_parts(which, history[1:])  # levels 2 .. len(history)
        level = (self.target if which == "target" else self.draft)[len(history)]  # level len(history) + 1
        found = level.find(history)
        if found is not None:  # else an unseen history: P_n = P_{n-1}
            first, end = found
            words, counts = level.words[first:end], level.counts[first:end]
            denominator = 4 * sum(counts)
            weight = 3 * (end - first) / denominator  # float_ratio, inline: int / int, correctly rounded
            (values, named), classes = parts, self._classes
            values = [weight * value for value in values]
            named = {token: weight * value for token, value in named.items()}
            for word, count in zip(words, counts):
                value = named.get(word)
                if value is None:
                    value = values[classes[word]]
                named[word] = value + (4 * count - 3) / denominator
            parts = (values, named)
        self._parts[key] = parts
        while len(self._parts) > 2 * ROWS_KEPT:  # each a few hundred to a thousand or so floats
            self._parts.popitem(last=False)
        return parts

    def _spread_row(self, values: list, named: dict) -> Row:
        """The row with these parts, token by token (it keeps them: :class:`Row`)."""
        row = Row(self._spread(values))
        for token, value in named.items():
            row[token] = value
        row.parts = (values, named, self._spread)
        return row

    def _tempered_row(self, parts: tuple[list, dict], temperature) -> Row:
        """:func:`tempered` of the row with these parts (0 < T, T != 1), per class: each value's
        weight ``(value / top)^(1/T)`` computed once per class, spread, summed in token order,
        divided per class. ``top`` is the row's maximum: a class whose tokens are all named has a
        value at most theirs (a level adds mass, never removes it), so the classes' values and
        the named ones have the row's maximum."""
        values, named = parts
        top = max(values)
        if named:
            top = max(top, max(named.values()))
        power = 1.0 / temperature
        class_weights = [(value / top) ** power for value in values]
        named_weights = {token: (value / top) ** power for token, value in named.items()}
        weights = self._spread_row(class_weights, named_weights)
        total = sum(weights)
        return self._spread_row([w / total for w in class_weights],
                                {token: w / total for token, w in named_weights.items()})

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
    """The first token of highest probability (ties go to the smallest id)."""
    return row.index(max(row))


def tempered(row, temperature) -> list:
    """``p^(1/T)`` normalised; T = 1 is the row itself, T = 0 one-hot on :func:`argmax`.

    >>> tempered([0.25, 0.75], 0), tempered([0.5, 0.5], 0.5)
    ([0.0, 1.0], [0.5, 0.5])
    """
    if temperature == 1:
        return row
    if temperature == 0:
        one_hot = [0.0] * len(row)
        one_hot[argmax(row)] = 1.0
        return one_hot
    top, power = max(row), 1.0 / temperature
    weights = [(value / top) ** power for value in row]  # relative to the top: the top stays 1, never 0
    total = sum(weights)
    return [w / total for w in weights]


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
    last token with mass closes the CDF at infinity). A :class:`Row` keeps its table.

    >>> sample_row([0.25, 0.75, 0.0], Random(0))  # Random(0).random() = 0.844...
    1
    """
    table = getattr(row, "cumulative", None)
    if table is None:
        table = cumulative(row)
        if isinstance(row, Row):
            row.cumulative = table
    cdf, last = table
    return bisect_right(cdf, rng.random(), 0, last + 1)


# --- the rule ------------------------------------------------------------------------------------

def acceptance_probability(p_x, q_x):
    """``min(1, p(x)/q(x))``; a token the draft gives no mass is never proposed (0)."""
    if q_x == 0:
        return q_x * 0
    return min(p_x / q_x, p_x * 0 + 1)


_RESIDUAL_MEMO: list = [None, None, None]  # (p, q, residual) of the last call: the law walk reuses it


def _derived(p, q, name: str, compute):
    """``compute(p, q)``, kept on ``p`` when both are :class:`Row` objects (the rows never change,
    so the value never does; a dict per row, keyed by what was derived and from which q row).
    In a run of slider steps about one overlap in thirteen recurs (the same context and draft row
    at the same temperature: the first calls after a prompt); keeping one is a float."""
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


def _shared_parts(p, q):
    """``(p's class values, q's, the tokens either names, spread)`` when both rows carry parts over
    one class layout (:class:`Row`), else None."""
    p_parts, q_parts = getattr(p, "parts", None), getattr(q, "parts", None)
    if p_parts is None or q_parts is None or p_parts[2] is not q_parts[2]:
        return None
    return p_parts[0], q_parts[0], p_parts[1].keys() | q_parts[1].keys(), p_parts[2]


def residual(p, q):
    """``norm(max(0, p - q))``, or None when p == q (then nothing is ever rejected)."""
    if _RESIDUAL_MEMO[0] is p and _RESIDUAL_MEMO[1] is q:
        return _RESIDUAL_MEMO[2]
    zero = p[0] * 0  # 0.0 or Fraction(0): the row's own kind of number
    shared = _shared_parts(p, q)
    if shared is None:
        excess = [gap if gap > zero else zero for gap in map(sub, p, q)]
        mass = sum(excess)
        result = None if mass == 0 else [e / mass for e in excess]
    else:  # the same values as above, class by class: a token neither row names has its class's
        p_values, q_values, named, spread = shared
        class_excess = [gap if gap > zero else zero for gap in map(sub, p_values, q_values)]
        excess = list(spread(class_excess))
        for token in named:
            gap = p[token] - q[token]
            excess[token] = gap if gap > zero else zero
        mass = sum(excess)
        result = None
        if mass != 0:
            result = list(spread([e / mass for e in class_excess]))
            for token in named:
                result[token] = excess[token] / mass
    _RESIDUAL_MEMO[:] = (p, q, result)
    return result


def _overlap(p, q):
    # min(a, b) is a unless b < a: the same values, summed in the same order, as sum(map(min, p, q));
    # class by class when the rows share parts (a token neither row names has its class's values)
    shared = _shared_parts(p, q)
    if shared is None:
        return sum([b if b < a else a for a, b in zip(p, q)])
    p_values, q_values, named, spread = shared
    values = list(spread([b if b < a else a for a, b in zip(p_values, q_values)]))
    for token in named:
        a, b = p[token], q[token]
        values[token] = b if b < a else a
    return sum(values)


def overlap(p, q):
    """``sum_x min(p(x), q(x))``, the chance that a draft sampled from q survives against p.

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
                q = one_hot(model.size, token)
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
        return drafts, [one_hot(model.size, token) for token in drafts]
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
    shows in detail), with the same tokens; the record is otherwise the same."""
    if proposer == "ngram":
        drafts = prompt_lookup(tokens, k)
        q_rows = [one_hot(model.size, token) for token in drafts]
    else:
        drafts = Drafts(model, proposer, tokens, k, temperature, rng)
        q_rows = DraftRows(drafts)
    p_rows = LazyRows(model, tokens, drafts, temperature)
    committed, accepted, rejected = verify_block(drafts, p_rows, q_rows, rng)
    first_alpha = None
    if drafts:
        p, q = p_rows[0], q_rows[0]
        first_alpha = overlap(p, q) if proposer == "draft" else min(1.0, p[drafts[0]])
    checked = [(p_rows[i][token], q_rows[i][token]) for i, token in enumerate(drafts[:accepted + 1])]
    if not lazy and isinstance(drafts, Drafts):
        drafts = list(drafts)
    return {"drafts": drafts, "accepted": accepted, "rejected": rejected, "committed": committed,
            "firstAlpha": first_alpha, "checked": checked}


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

def summarise(cycles: list[dict], k: int) -> dict:
    """The run's numbers, through the trace reader's own analysis (:mod:`lab.traces`).

    ``cycles`` (the trace) lists the accepted count of every call that carried a draft (vLLM's
    ``num_drafts``); the per-position curve, alphaIid and alphaMle are
    :func:`lab.traces.analyse` of that trace at lookahead k. ``tokensPerCall`` = committed tokens /
    verifier calls = 1 + accepted / calls (the mean acceptance length); ``acceptanceRate`` =
    accepted / drafted (the engines' ratio); ``meanFirstAlpha`` the analytic first-position
    acceptance averaged over the calls that drafted."""
    from . import traces

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
    alphas = [c["firstAlpha"] for c in cycles if c["firstAlpha"] is not None]
    result["meanFirstAlpha"] = math.fsum(alphas) / len(alphas) if alphas else None
    if trace_cycles:
        histogram = Counter(trace_cycles)
        analysis = traces.analyse(traces.cycles_to_trace(dict(histogram), k))
        result.update(perPosition=analysis["perPosition"], alphaIid=analysis["alphaIid"],
                      alphaMle=analysis["alphaMle"], conditional=analysis["conditional"])
        # What the ledger predicts from the measured alpha (independent acceptance):
        # 1 + alpha + ... + alpha^k tokens per call, against what the run achieved.
        result["predictedTokensPerCall"] = 1 + traces.expected_accepted_iid(analysis["alphaMle"], k)
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
