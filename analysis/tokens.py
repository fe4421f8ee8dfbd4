"""One sentence cut four ways (characters, words, BPE pieces, WordPiece pieces) and laid out along one line, so
that the pieces of every way line up under the characters they came from.

Layout: each character (``tokenizer.characters``: user-perceived) takes one unit of x, in reading order, and
each word (``tokenizer.words``) is followed by ``END_UNITS`` units that stand for BPE's end-of-word symbol
"</w>": a BPE piece that ends a word covers them, and in the other ways they are the gap between words.
Whitespace takes no unit of its own; a line may break only where the text had whitespace, since no piece of
any way crosses a space. Pure Python over the package: no Streamlit or Plotly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from transformer.bpe_training import END, Merge, apply_to_word
from transformer.tokenizer import characters, normalize, words
from transformer.wordpiece import WordPieces

END_UNITS = 3  # x units of "</w>": wide enough to write "e</w>" in a one-letter piece that ends a word
STARTS, CONTINUES, UNKNOWN = 0, 1, 2  # a piece starts a word, continues one, or is not in the vocabulary


@dataclass(frozen=True)
class Way:
    """One way of cutting the text: piece ``labels`` [P] as the tokenizer writes them, each covering x units
    ``starts[i]`` to ``ends[i]`` and of kind ``kinds[i]`` (``STARTS``, ``CONTINUES`` or ``UNKNOWN``)."""

    name: str
    labels: tuple[str, ...]
    starts: tuple[float, ...]
    ends: tuple[float, ...]
    kinds: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.labels)


@dataclass(frozen=True)
class Layout:
    """Where each character and word of a text sits: ``clusters`` [C] with their code-point spans ``spans`` in
    the NFC text and x units ``x`` [C]; ``words`` [W] with the index of their first and last cluster; ``breaks``,
    the x where a line may start (after whitespace); ``width``, the units in all."""

    text: str
    clusters: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]
    x: tuple[int, ...]
    words: tuple[tuple[str, int, int], ...]
    breaks: tuple[int, ...]
    width: int


def layout(text: str) -> Layout:
    """The x units of ``text`` (NFC): a unit a character, ``END_UNITS`` after each word."""
    text = normalize(text)
    clusters, spans, x, word_list, breaks = [], [], [], [], []
    position, unit = 0, 0
    for word in words(text):
        first = len(clusters)
        for cluster in characters(word):
            start = text.index(cluster, position)
            if clusters and len(clusters) == first and start > spans[-1][1]:
                breaks.append(unit)  # whitespace before this word: a line may start here
            clusters.append(cluster)
            spans.append((start, start + len(cluster)))
            x.append(unit)
            position, unit = start + len(cluster), unit + 1
        unit += END_UNITS
        word_list.append((word, first, len(clusters) - 1))
    return Layout(text, tuple(clusters), tuple(spans), tuple(x), tuple(word_list), tuple(breaks), unit)


def character_way(place: Layout) -> Way:
    """Every character a token (whitespace dropped); the first of each word starts it."""
    firsts = {first for _, first, _ in place.words}
    return Way(
        "characters",
        place.clusters,
        tuple(float(x) for x in place.x),
        tuple(float(x + 1) for x in place.x),
        tuple(STARTS if i in firsts else CONTINUES for i in range(len(place.clusters))),
    )


def word_way(place: Layout) -> Way:
    """Every word a token (``tokenizer.words``: punctuation a word of its own)."""
    return Way(
        "words",
        tuple(w for w, _, _ in place.words),
        tuple(float(place.x[f]) for _, f, _ in place.words),
        tuple(float(place.x[last] + 1) for _, _, last in place.words),
        (STARTS,) * len(place.words),
    )


def bpe_way(place: Layout, merges: Sequence[Merge], alphabet: Sequence[str]) -> Way:
    """Each word's BPE pieces after ``merges``; a piece holding "</w>" also covers the word's ``END_UNITS``.
    A character the training text never had (not in ``alphabet``) is ``UNKNOWN``."""
    known = set(alphabet)
    labels, starts, ends, kinds = [], [], [], []
    for word, first, last in place.words:
        cluster = first
        for n, piece in enumerate(apply_to_word(word, merges)):
            body = piece[: -len(END)] if piece.endswith(END) else piece
            begin, text = cluster, ""
            while len(text) < len(body):
                text += place.clusters[cluster]
                cluster += 1
            start = float(place.x[begin]) if body else float(place.x[last] + 1)
            end = float(place.x[cluster - 1] + 1) if body else start
            labels.append(piece)
            starts.append(start)
            ends.append(end + END_UNITS if piece.endswith(END) else end)
            kinds.append(UNKNOWN if cluster - begin == 1 and body not in known else STARTS if n == 0 else CONTINUES)
    return Way("BPE", tuple(labels), tuple(starts), tuple(ends), tuple(kinds))


def wordpiece_way(place: Layout, pieces: WordPieces) -> Way:
    """MiniLM's WordPiece pieces of the same text (``[CLS]`` and ``[SEP]`` left out): "##" starts a piece that
    continues a word, ``[UNK]`` stands for a word it cannot spell. Each piece covers the characters its offsets
    name (code points of the NFC text)."""
    begin_x = {}
    end_x = {}
    for (start, end), x in zip(place.spans, place.x):
        for point in range(start, end):
            begin_x[point], end_x[point] = x, x + 1
    labels, starts, ends, kinds = [], [], [], []
    for i, token in enumerate(pieces.tokens):
        start, end = pieces.offsets[i]
        if pieces.special[i] or end <= start or start not in begin_x or end - 1 not in end_x:
            continue
        labels.append(token)
        starts.append(float(begin_x[start]))
        ends.append(float(end_x[end - 1]))
        kinds.append(UNKNOWN if pieces.unknown[i] else CONTINUES if pieces.continuation[i] else STARTS)
    return Way("WordPiece", tuple(labels), tuple(starts), tuple(ends), tuple(kinds))
