"""Byte-pair encoding learned from a text, merge by merge (Sennrich, Haddow and Birch, 2016).

A text is cut into words (``tokenizer.words``: runs of letters and digits, every other visible character a
word of its own), and each word into its user-perceived characters followed by the end-of-word symbol
``END = "</w>"``: "low" -> ``l o w </w>``. Training then repeats, ``num_merges`` times,

    (a, b) = argmax over adjacent pairs of count(a, b),   count(a, b) = sum over words w of n(w) * pairs(a, b in w)

and replaces every ``a b`` by the new piece ``ab`` (left to right within a word), so the vocabulary grows by
one piece a merge. A pair never spans two words, so a piece never crosses a space. Ties are broken by the
pair's strings: of the pairs with the highest count, the one whose ``(a, b)`` comes first in code-point
order (``("e", "s")`` before ``("s", "t")``). Training stops early once every word is a single piece.

``apply_bpe`` cuts any text with the merges learned: each word's characters, then the merges applied one
after another in the order learned, as training applied them. A character the training text never had
stays a piece of its own that no merge touches (a real vocabulary would have it as unknown).
Pure Python: no torch, Streamlit, Plotly or pandas.
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .tokenizer import characters, words

END = "</w>"


@dataclass(frozen=True)
class Merge:
    """One learned merge: the adjacent pair ``left right`` became ``left + right``; ``count`` is how often the
    pair occurred in the training words (each word weighted by its frequency) when it was merged."""

    left: str
    right: str
    count: int

    @property
    def piece(self) -> str:
        return self.left + self.right


@dataclass(frozen=True)
class LearnedBPE:
    """What training learned: the ``alphabet`` (the training words' characters and ``END``, sorted) and the
    ``merges`` in the order learned (at most the number asked for)."""

    alphabet: tuple[str, ...]
    merges: tuple[Merge, ...]

    def vocabulary_sizes(self) -> list[int]:
        """Distinct pieces after 0, 1, ..., len(merges) merges ``[len(merges) + 1]``: the alphabet, then one
        more a merge (unless a merge made a piece that was already there, which overlapping pairs can)."""
        pieces, sizes = set(self.alphabet), [len(self.alphabet)]
        for merge in self.merges:
            pieces.add(merge.piece)
            sizes.append(len(pieces))
        return sizes


def word_symbols(word: str) -> tuple[str, ...]:
    """A word as BPE starts it: its user-perceived characters, then ``END`` ("low" -> l, o, w, </w>)."""
    return (*characters(word), END)


def word_counts(text: str) -> Counter:
    """How often each word (``tokenizer.words``) occurs in ``text``."""
    return Counter(words(text))


def _pairs(symbols: Sequence[str]) -> Counter:
    return Counter(zip(symbols, symbols[1:]))


def merge_word(symbols: Sequence[str], left: str, right: str) -> tuple[str, ...]:
    """``symbols`` with every ``left right`` replaced by ``left + right``, left to right ("a a a" -> "aa a")."""
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == right:
            out.append(left + right)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


class _Ranked:
    """A pair's heap key: the highest count first, then the pair's strings in code-point order."""

    __slots__ = ("count", "pair")

    def __init__(self, count: int, pair: tuple[str, str]):
        self.count, self.pair = count, pair

    def __lt__(self, other: "_Ranked") -> bool:
        return (-self.count, self.pair) < (-other.count, other.pair)


def train_bpe_counts(counts: Mapping[str, int], num_merges: int) -> LearnedBPE:
    """BPE learned from words and their frequencies (``{"low": 5, "lower": 2}``): at most ``num_merges``
    merges, each the most frequent adjacent pair (ties: the pair first in code-point order).

    Pair counts are kept up to date by recounting only the words a merge changed, and the best pair is
    found with a heap whose stale entries are skipped, so training is linear in the words each merge touches.
    """
    if num_merges < 0:
        raise ValueError(f"the number of merges is {num_merges}; use 0 or more.")
    vocab = [[word_symbols(word), int(n)] for word, n in sorted(counts.items()) if n > 0 and characters(word)]
    alphabet = tuple(sorted({s for symbols, _ in vocab for s in symbols}))
    pair_counts: Counter = Counter()
    where: dict[tuple[str, str], set[int]] = defaultdict(set)  # pair -> the words it occurs in
    for index, (symbols, n) in enumerate(vocab):
        for pair, times in _pairs(symbols).items():
            pair_counts[pair] += times * n
            where[pair].add(index)
    heap = [_Ranked(count, pair) for pair, count in pair_counts.items()]
    heapq.heapify(heap)
    merges: list[Merge] = []
    while heap and len(merges) < num_merges:
        best = heapq.heappop(heap)
        if pair_counts.get(best.pair, 0) != best.count or best.count < 1:
            continue  # stale: the pair's count changed since this entry was pushed
        left, right = best.pair
        merges.append(Merge(left, right, best.count))
        touched: set[tuple[str, str]] = set()
        for index in sorted(where.pop(best.pair, ())):
            symbols, n = vocab[index]
            merged = merge_word(symbols, left, right)
            for pair, times in _pairs(symbols).items():
                pair_counts[pair] -= times * n
                touched.add(pair)
            for pair, times in _pairs(merged).items():
                pair_counts[pair] += times * n
                where[pair].add(index)
                touched.add(pair)
            vocab[index][0] = merged
        for pair in touched:
            if pair_counts[pair] > 0:
                heapq.heappush(heap, _Ranked(pair_counts[pair], pair))
            else:
                del pair_counts[pair]
                where.pop(pair, None)
    return LearnedBPE(alphabet, tuple(merges))


def train_bpe(text: str, num_merges: int) -> LearnedBPE:
    """BPE learned from the words of ``text`` (``word_counts``): at most ``num_merges`` merges."""
    return train_bpe_counts(word_counts(text), num_merges)


def apply_to_word(word: str, merges: Sequence[Merge]) -> tuple[str, ...]:
    """One word's pieces: ``word_symbols(word)`` with ``merges`` applied one after another, in order."""
    symbols = word_symbols(word)
    for merge in merges:
        if len(symbols) == 1:
            break
        if merge.left in symbols:
            symbols = merge_word(symbols, merge.left, merge.right)
    return symbols


def apply_bpe(text: str, merges: Sequence[Merge]) -> list[tuple[str, ...]]:
    """``text`` cut into BPE pieces: one tuple of pieces a word (``tokenizer.words``), the last ending in
    ``END``. Joining a word's pieces gives the word followed by ``END``."""
    return [apply_to_word(word, merges) for word in words(text)]


def token_counts(text: str, merges: Sequence[Merge]) -> list[int]:
    """The number of BPE pieces of ``text`` after 0, 1, ..., len(merges) merges ``[len(merges) + 1]``,
    the merges applied one after another to its words (never rising: a merge only joins pieces)."""
    vocab = [word_symbols(word) for word in words(text)]
    total = sum(len(symbols) for symbols in vocab)
    out = [total]
    for merge in merges:
        for i, symbols in enumerate(vocab):
            if len(symbols) > 1 and merge.left in symbols:
                merged = merge_word(symbols, merge.left, merge.right)
                total -= len(symbols) - len(merged)
                vocab[i] = merged
        out.append(total)
    return out
