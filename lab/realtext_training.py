"""The real-text models' tokenizer and training, and the model file's layout (:mod:`lab.realtext`).

Byte-level byte-pair encoding (Sennrich et al. 2016; byte-level as in GPT-2) over the pre-tokens of
:data:`PRETOKEN`, then Kneser-Ney count tables, packed into one zip file: what
:mod:`sitebuild.realtext_train` runs on the corpus at build time (its cache key hashes this
module's trainer parts), and what the checks run on a small corpus in the page. The file is read
back by :class:`lab.realtext_rows.Model`.
"""

from __future__ import annotations

import io
import re
import struct
import sys
import zipfile
from array import array
from collections import Counter

__all__ = ["FORMAT", "VOCABULARY_SIZE", "ORDER", "DRAFT_MIN_COUNT", "PRETOKEN", "Tokenizer", "merge_pair",
           "train_merges", "count_tables", "encode_texts", "build_model_file", "pack_table"]

FORMAT = "realtext-1"          # bump when the model file's layout or the trainer's meaning changes
VOCABULARY_SIZE = 2048         # 256 bytes + 1792 merges
ORDER = 4                      # the target's n-gram order
DRAFT_MIN_COUNT = 2            # the draft's raw bigram counts kept (pruned as the target's tables are)
PRETOKEN = rb" ?[A-Za-z_]+| ?[0-9]+| ?[^\sA-Za-z_0-9]+|\s+(?!\S)|\s+"


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
