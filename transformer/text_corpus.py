"""The text task's corpus: characters as ids, a train/validation split and the perplexity target.

The built-in corpus (``corpus.txt`` beside this file) is about 55 KB of plain explanations,
written for this project, of what the app teaches: tokens and embeddings, attention, softmax and
scaling, masks, heads, positions, the residual stream, encoder and decoder, training, induction
heads, decoding and the KV cache. It uses letters, spaces and ``' , - . : ;`` only (33 symbols).
Text is NFC-normalised and split into user-perceived characters, lower-cased; every run of
whitespace becomes the one symbol "▁" (the tokenizers drop whitespace, so the space needs a
visible stand-in). The first 90 % of the symbols are the training split, the
last 10 % the validation split.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import torch

from .tokenizer import SPECIALS, UNK_ID, characters, normalize

SPACE = "▁"
CORPUS_PATH = Path(__file__).with_name("corpus.txt")
MIN_TEXT_SYMBOLS, MAX_TEXT_CHARS, MAX_ALPHABET = 1000, 100_000, 200
VALIDATION_SHARE = 0.1
TARGET_FACTOR = 0.65  # learned = validation perplexity <= 0.65 x that of the bigram table


def symbols(text: str) -> list[str]:
    """Lower-cased characters of ``text`` with each whitespace run as one "▁" (none at the ends)."""
    out: list[str] = []
    for chunk in normalize(normalize(text).lower()).split():
        if out:
            out.append(SPACE)
        out.extend(characters(chunk))
    return out


@dataclass(frozen=True)
class TextSource:
    """A corpus as ids: ``train`` and ``val`` 1-D int64 tensors over ``vocabulary`` (ids from 4).

    ``target`` is the validation perplexity that counts as learned: ``TARGET_FACTOR`` times the
    perplexity of an add-one-smoothed bigram table counted on the training split,
    ``P(c | b) = (N(b c) + 1) / (N(b) + V)``.
    """

    vocabulary: tuple[str, ...]
    train: torch.Tensor
    val: torch.Tensor
    target: float

    def windows(self, size: int, context: int, generator: torch.Generator, split: str) -> torch.Tensor:
        """``[size, context + 1]`` ids: windows starting at random places of the split."""
        ids = self.train if split == "train" else self.val
        starts = torch.randint(0, len(ids) - context, (size,), generator=generator)
        return ids[starts[:, None] + torch.arange(context + 1)[None, :]]

    def consecutive(self, context: int) -> torch.Tensor:
        """``[k, context + 1]`` ids: the validation split as consecutive windows (each predicts ``context``)."""
        count = (len(self.val) - 1) // context
        return self.val[torch.arange(count)[:, None] * context + torch.arange(context + 1)[None, :]]

    def probe(self, context: int) -> torch.Tensor:
        """``context + 1`` ids of the validation split, from its first word start (or its start)."""
        spaces = (self.val[: len(self.val) - context - 1] == self.space_id).nonzero()
        start = int(spaces[0]) + 1 if len(spaces) else 0
        return self.val[start : start + context + 1]

    @property
    def space_id(self) -> int:
        """The id of "▁" (-1 if the text has no whitespace)."""
        return len(SPECIALS) + self.vocabulary.index(SPACE) if SPACE in self.vocabulary else -1

    def symbols_of(self, text: str) -> list[str]:
        """A user's text as symbols of this corpus' alphabet ("▁" for whitespace)."""
        return symbols(text)


def _bigram_perplexity(train: list[int], val: list[int], size: int) -> float:
    pairs, firsts = Counter(zip(train, train[1:])), Counter(train[:-1])
    nll = -sum(math.log((pairs[(b, c)] + 1) / (firsts[b] + size)) for b, c in zip(val, val[1:]))
    return math.exp(nll / (len(val) - 1))


@lru_cache(maxsize=8)
def text_source(text: str | None = None) -> TextSource:
    """The corpus ``text`` (None = the built-in one) prepared for the text task; ValueError if unusable.

    At most ``MAX_TEXT_CHARS`` characters and at least ``MIN_TEXT_SYMBOLS`` symbols; the
    ``MAX_ALPHABET`` most frequent symbols form the vocabulary, the rest become ``<unk>``.
    """
    if text is None:
        text = CORPUS_PATH.read_text(encoding="utf-8")
    if not isinstance(text, str):
        raise ValueError("the text must be a string.")
    if len(text) > MAX_TEXT_CHARS:
        raise ValueError(f"the text has {len(text)} characters; use at most {MAX_TEXT_CHARS}.")
    seq = symbols(text)
    if len(seq) < MIN_TEXT_SYMBOLS:
        raise ValueError(
            f"the text has {len(seq)} characters (spaces counted once); give at least "
            f"{MIN_TEXT_SYMBOLS} so that a validation part can be held out."
        )
    counts = Counter(seq)
    vocabulary = tuple(sorted(s for s, _ in counts.most_common(MAX_ALPHABET) if s not in SPECIALS))
    index = {s: len(SPECIALS) + i for i, s in enumerate(vocabulary)}
    ids = [index.get(s, UNK_ID) for s in seq]
    cut = int(len(ids) * (1 - VALIDATION_SHARE))
    bigram = _bigram_perplexity(ids[:cut], ids[cut:], len(SPECIALS) + len(vocabulary))
    return TextSource(vocabulary, torch.tensor(ids[:cut]), torch.tensor(ids[cut:]), round(TARGET_FACTOR * bigram, 2))
