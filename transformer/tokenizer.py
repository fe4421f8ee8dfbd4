"""Deterministic tokenisation of free text, by words or by characters.

Two ways to map tokens to ids: by hashing (``HashTokenizer``, any text, for the
random models: the same word always gets the same id and so the same embedding
row, whatever else is in the sentence) and by a fixed vocabulary
(``VocabTokenizer``, for trained models). Ids 0-3 are the special tokens.
"""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass

PAD, BOS, EOS, UNK = "<pad>", "<s>", "</s>", "<unk>"
SPECIALS = (PAD, BOS, EOS, UNK)
PAD_ID, BOS_ID, EOS_ID, UNK_ID = 0, 1, 2, 3

_JOINERS = {"\u200d"}  # zero-width joiner glues emoji sequences
_EXTENDERS = {"\ufe0f", "\ufe0e"}  # variation selectors


def normalize(text: str) -> str:
    """Unicode NFC, so that "e" + combining acute and the single "é" are one token."""
    return unicodedata.normalize("NFC", text)


def _extends_previous(char: str, previous: str) -> bool:
    """True if ``char`` belongs to the same user-perceived character as what precedes it."""
    if previous and previous[-1] in _JOINERS:
        return True
    category = unicodedata.category(char)
    return (
        category.startswith("M") or char in _EXTENDERS or char in _JOINERS or 0x1F3FB <= ord(char) <= 0x1F3FF
    )  # skin-tone modifiers


def characters(text: str) -> list[str]:
    """User-perceived characters: a base character with its combining marks and
    emoji joiners kept together. Whitespace is dropped."""
    clusters: list[str] = []
    for char in normalize(text):
        if clusters and _extends_previous(char, clusters[-1]):
            clusters[-1] += char
        elif not char.isspace():
            clusters.append(char)
        else:
            clusters.append(" ")
    return [c for c in clusters if c != " "]


def _is_ideograph(cluster: str) -> bool:
    """CJK ideographs carry a word's worth of meaning each and have no spaces between them."""
    return unicodedata.name(cluster[0], "").startswith("CJK UNIFIED IDEOGRAPH")


def _is_word_char(cluster: str) -> bool:
    category = unicodedata.category(cluster[0])
    return category[0] in "LMN" or cluster[0] == "_"


def words(text: str) -> list[str]:
    """Words and punctuation: runs of letters, digits and marks (an inner apostrophe
    stays in, as in "didn't"); every other visible character is a token of its own."""
    tokens: list[str] = []
    for chunk in normalize(text).split():
        clusters = characters(chunk)
        current = ""
        for i, cluster in enumerate(clusters):
            inner_apostrophe = cluster in "'’" and current and i + 1 < len(clusters) and _is_word_char(clusters[i + 1])
            if (_is_word_char(cluster) or inner_apostrophe) and not _is_ideograph(cluster):
                current += cluster
                continue
            if current:
                tokens.append(current)
                current = ""
            tokens.append(cluster)
        if current:
            tokens.append(current)
    return tokens


@dataclass(frozen=True)
class HashTokenizer:
    """Splits text into tokens (``level`` "word" or "char") and maps them to ids by hashing.

    id(token) = 4 + (BLAKE2b(token) mod (vocab_size - 4)): stable across runs,
    processes and sessions, for any text. Distinct tokens may share an id when
    the vocabulary is small (a hash collision), exactly as in hashed-feature
    models. This is the tokenizer of the random models.
    """

    vocab_size: int = 4096
    level: str = "word"

    def __post_init__(self) -> None:
        if self.level not in ("word", "char"):
            raise ValueError(f"level={self.level!r} is unknown; use 'word' or 'char'.")
        if self.vocab_size <= len(SPECIALS):
            raise ValueError(f"vocab_size must exceed {len(SPECIALS)} (the special tokens), got {self.vocab_size}.")

    def tokenize(self, text: str) -> list[str]:
        return words(text) if self.level == "word" else characters(text)

    def token_id(self, token: str) -> int:
        if token in SPECIALS:
            return SPECIALS.index(token)
        digest = hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest()
        return len(SPECIALS) + int.from_bytes(digest, "little") % (self.vocab_size - len(SPECIALS))

    def encode(self, tokens: list[str]) -> list[int]:
        return [self.token_id(t) for t in tokens]

    def to_dict(self) -> dict:
        return {"kind": "hash", "vocab_size": self.vocab_size, "level": self.level}


@dataclass(frozen=True)
class VocabTokenizer:
    """A fixed vocabulary: ids 0-3 are the special tokens, then ``vocabulary[i]`` has id 4 + i.

    Text is split by ``level`` ("word" or "char"); a token outside the vocabulary
    becomes ``<unk>`` (id 3) and is shown as such. This is the tokenizer of a
    model trained on a toy task or a text.
    """

    vocabulary: tuple[str, ...]
    level: str = "word"

    def __post_init__(self) -> None:
        if self.level not in ("word", "char"):
            raise ValueError(f"level={self.level!r} is unknown; use 'word' or 'char'.")
        clashes = sorted(set(self.vocabulary) & set(SPECIALS))
        if clashes or len(set(self.vocabulary)) != len(self.vocabulary):
            raise ValueError(
                f"the vocabulary must hold distinct tokens other than {SPECIALS}; "
                f"fix {clashes or 'the repeated tokens'}."
            )

    @property
    def vocab_size(self) -> int:
        return len(SPECIALS) + len(self.vocabulary)

    def tokenize(self, text: str) -> list[str]:
        tokens = words(text) if self.level == "word" else characters(text)
        known = set(self.vocabulary) | set(SPECIALS)
        return [t if t in known else UNK for t in tokens]

    def encode(self, tokens: list[str]) -> list[int]:
        index = {t: i for i, t in enumerate(SPECIALS + self.vocabulary)}
        return [index.get(t, SPECIALS.index(UNK)) for t in tokens]

    def to_dict(self) -> dict:
        return {"kind": "vocab", "vocabulary": list(self.vocabulary), "level": self.level}


def truncate(tokens: list[str], max_tokens: int) -> tuple[list[str], bool]:
    """The first ``max_tokens`` tokens, and whether anything was cut."""
    return tokens[:max_tokens], len(tokens) > max_tokens
