"""Cross-attention read as a word alignment, and how far each head agrees with a hand-made one.

A translation model's cross-attention ``[T, S]`` (one row per decoder step, one column per source piece) is
the classic alignment picture of neural translation: the row of the step that writes a French word shows
which English words it read. Pieces are joined into the words as typed (``transformer.word_starts``):

    A_words[i, j] = mean over the pieces p of target word i of  sum over the pieces q of source word j of  A[p, q]

so each row is still a distribution over the source words (it sums to 1, as each piece's row does).

A head *agrees* with a hand-made alignment on a target word when the source word it attends to most is one
of that word's links; its agreement is the share of linked target words where it does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from transformer import BOS_ID, EOS_ID, word_starts

WORD_START = "▁"


def word_groups(pieces: Sequence[str]) -> list[int]:
    """For each piece, the number (from 0) of the word it belongs to; ``<s>``/``</s>`` are words of their own."""
    groups, word = [], -1
    for piece, starts in zip(pieces, word_starts(list(pieces))):
        special = piece in ("<s>", "</s>", "<pad>")
        if starts or special or (groups and pieces[len(groups) - 1] in ("<s>", "</s>")):
            word += 1
        groups.append(word)
    return groups


def word_labels(pieces: Sequence[str], groups: Sequence[int]) -> tuple[str, ...]:
    """Each word's text: its pieces joined, the "▁" of its start dropped."""
    words: dict[int, str] = {}
    for piece, group in zip(pieces, groups):
        words[group] = words.get(group, "") + piece
    return tuple(words[g].replace(WORD_START, "") or WORD_START for g in sorted(words))


def to_words(weights: np.ndarray, row_groups: Sequence[int], col_groups: Sequence[int]) -> np.ndarray:
    """``weights [..., T, S]`` over pieces -> ``[..., Tw, Sw]`` over words: columns summed within a source word,
    rows averaged within a target word (see the module's formula)."""
    weights = np.asarray(weights, dtype=np.float64)
    rows, cols = np.asarray(row_groups), np.asarray(col_groups)
    n_rows, n_cols = rows.max() + 1, cols.max() + 1
    col_sum = np.zeros((n_cols, len(cols)))
    col_sum[cols, np.arange(len(cols))] = 1.0
    row_mean = np.zeros((n_rows, len(rows)))
    row_mean[rows, np.arange(len(rows))] = 1.0
    row_mean /= row_mean.sum(axis=1, keepdims=True)
    return (row_mean @ weights @ col_sum.T).astype(np.float32)


@dataclass(frozen=True)
class AlignedPair:
    """An English sentence, a French translation of it and the hand-made word links: ``links[i]`` holds the
    English words (numbered from 0, as typed) that French word ``i`` translates; an empty set: no counterpart."""

    english: str
    french: str
    links: tuple[frozenset[int], ...]


def _pair(english: str, french: str, *links: Sequence[int]) -> AlignedPair:
    assert len(links) == len(french.split()), (french, links)
    return AlignedPair(english, french, tuple(frozenset(link) for link in links))


# Hand-made links, word by word (words as typed: punctuation stays with its word). In each, an adjective
# follows its noun in French and precedes it in English: the links cross.
ALIGNED_PAIRS = (
    _pair("I have a red car.", "J'ai une voiture rouge.", (0, 1), (2,), (4,), (3,)),
    _pair("She has a black cat.", "Elle a un chat noir.", (0,), (1,), (2,), (4,), (3,)),
    _pair("Tom has a white dog.", "Tom a un chien blanc.", (0,), (1,), (2,), (4,), (3,)),
    _pair("I am reading a good book.", "Je lis un bon livre.", (0,), (1, 2), (3,), (4,), (5,)),
    _pair("We live in a small town.", "Nous vivons dans une petite ville.", (0,), (1,), (2,), (3,), (4,), (5,)),
    _pair("He is wearing a blue shirt.", "Il porte une chemise bleue.", (0,), (1, 2), (3,), (5,), (4,)),
    _pair("She likes green apples.", "Elle aime les pommes vertes.", (0,), (1,), (), (3,), (2,)),
    _pair("This is a big house.", "C'est une grande maison.", (0, 1), (2,), (3,), (4,)),
)


def argmax_links(word_weights: np.ndarray) -> np.ndarray:
    """For each target word (row of ``[Tw, Sw]``), the source word attended to most."""
    return np.asarray(word_weights).argmax(axis=-1)


def agreement(word_weights: np.ndarray, links: Sequence[frozenset[int]]) -> tuple[int, int]:
    """(target words whose most-attended source word is one of their links, linked target words) for one map
    ``[Tw, Sw]`` whose rows are the French words of ``links`` in order (rows beyond them, such as the end token's,
    are not counted)."""
    best = argmax_links(word_weights)
    linked = [i for i, link in enumerate(links) if link]
    return sum(int(best[i]) in links[i] for i in linked), len(linked)


def written_pieces(tokenizer, ids) -> tuple[str, ...]:
    """The pieces of written ids as the vocabulary spells them, the end token as ``</s>``."""
    return tuple("</s>" if int(i) == EOS_ID else tokenizer.id_to_piece(int(i)) for i in ids)


def cross_attention_maps(model, source: Sequence[int], written: Sequence[int]) -> np.ndarray:
    """Every decoder layer's cross-attention ``[L, H, T, S]`` (float32) while ``model`` writes ``written``
    (teacher-forced: it reads ``<s>`` and the ids before each one), so row t is the step that writes
    ``written[t]``."""
    with torch.inference_mode():
        out = model(torch.tensor([list(source)]), torch.tensor([[BOS_ID, *written[:-1]]]), return_attention=True)
    return out.attention.stacked("decoder", "cross_attn")[:, 0].float().numpy()


def pair_alignment(model, tokenizer, english: str, french: str) -> np.ndarray:
    """``[L, H, Tw, Sw]``: ``model``'s cross-attention while it writes ``french`` (and the end token) for
    ``english``, joined into the words as typed (``to_words``)."""
    source = tokenizer.encode(tokenizer.tokenize(english))
    written = (*tokenizer.encode(tokenizer.tokenize(french)), EOS_ID)
    maps = cross_attention_maps(model, source, written)
    return to_words(maps, word_groups(written_pieces(tokenizer, written)), word_groups(tokenizer.tokenize(english)))
