"""BERT's WordPiece tokenizer, run by the ``tokenizers`` library from a ``tokenizer.json``.

WordPiece splits each word into the longest pieces found in a fixed vocabulary,
greedily from the left: "tokenization" -> "token", "##ization" ("##" marks a
piece that continues a word). A word with no split is ``[UNK]``. BERT wraps a
text as ``[CLS] text [SEP]`` and a pair as ``[CLS] a [SEP] b [SEP]``, with
token-type (segment) ids 0 for the first part and 1 for the second.

The tokenizer here never pads and cuts at ``max_tokens``; it gives the same ids as
Hugging Face's tokenizer for the same model with ``truncation=True,
max_length=max_tokens``. It is frozen, hashable and read-only after construction,
so one instance can serve every session and thread.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ClassVar, Sequence

import torch
from tokenizers import Encoding, Tokenizer

CONTINUATION = "##"
MIN_TOKENS = 8


@dataclass(frozen=True)
class WordPieces:
    """One encoded text or pair of texts: L pieces, ``[CLS]`` first, ``[SEP]`` last.

    Every tuple has one entry per piece. ``offsets[i] = (start, end)`` are
    character indices into ``texts[type_ids[i]]`` (``(0, 0)`` for special pieces),
    so ``piece_text(i)`` is the stretch of the typed text a piece came from.
    ``word_ids[i]`` numbers the words of its segment (None for special pieces).
    ``cut_from`` is the number of pieces before cutting at the cap, or None if
    nothing was cut.
    """

    texts: tuple[str, ...]
    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    offsets: tuple[tuple[int, int], ...]
    type_ids: tuple[int, ...]
    special: tuple[bool, ...]
    continuation: tuple[bool, ...]
    unknown: tuple[bool, ...]
    word_ids: tuple[int | None, ...]
    cut_from: int | None = None

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def truncated(self) -> bool:
        """True when the text had more than the cap's pieces and the rest was dropped."""
        return self.cut_from is not None

    def piece_text(self, i: int) -> str:
        """The characters piece ``i`` came from ("" for ``[CLS]``/``[SEP]``)."""
        start, end = self.offsets[i]
        return self.texts[self.type_ids[i]][start:end]

    def tensors(self) -> dict[str, torch.Tensor]:
        """``input_ids``, ``attention_mask`` (all True) and ``token_type_ids``, each ``[1, L]``."""
        return batch_tensors([self])


def batch_tensors(batch: Sequence[WordPieces], pad_id: int = 0) -> dict[str, torch.Tensor]:
    """Right-pad several encodings to the longest: ``input_ids`` (``pad_id`` in the padding),
    ``attention_mask`` (bool, True = real piece) and ``token_type_ids`` (0 in the padding),
    each ``[B, max L]``."""
    if not batch:
        raise ValueError("batch_tensors needs at least one encoding.")
    length = max(len(pieces) for pieces in batch)
    ids = torch.full((len(batch), length), pad_id, dtype=torch.long)
    types = torch.zeros((len(batch), length), dtype=torch.long)
    mask = torch.zeros((len(batch), length), dtype=torch.bool)
    for row, pieces in enumerate(batch):
        n = len(pieces)
        ids[row, :n] = torch.tensor(pieces.ids, dtype=torch.long)
        types[row, :n] = torch.tensor(pieces.type_ids, dtype=torch.long)
        mask[row, :n] = True
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}


@functools.lru_cache(maxsize=4)
def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@functools.lru_cache(maxsize=16)
def _engine(spec_json: str, max_length: int | None, model: str = "WordPiece") -> Tokenizer:
    """A ``tokenizers.Tokenizer`` from the JSON text, no padding, cut at ``max_length`` (None: never);
    its model must be ``model`` ("WordPiece", or "BPE" for GPT-2's byte-level tokenizer).

    Built once per (text, cap) and shared: building one parses the whole JSON, which for a vocabulary of
    BERT's size is too slow to repeat on every rerun (docs/performance.md), and an engine is never changed
    after this function returns (encoding only reads it).
    """
    try:
        engine = Tokenizer.from_str(spec_json)
    except Exception as error:  # the Rust side raises a bare Exception for malformed JSON
        raise ValueError(f"not a valid tokenizer.json ({error}).") from None
    if type(engine.model).__name__ != model:
        raise ValueError(f"the tokenizer's model is {type(engine.model).__name__}, not {model}.")
    engine.no_padding()
    if max_length is None:
        engine.no_truncation()
    else:
        engine.enable_truncation(max_length=max_length, strategy="longest_first", direction="right")
    return engine


@dataclass(frozen=True)
class WordPieceTokenizer:
    """A WordPiece tokenizer from a ``tokenizer.json`` text, padding off, cut at ``max_tokens``.

    ``max_tokens`` (pieces, ``[CLS]`` and ``[SEP]`` included) lies in
    [8, ``model_max_len``]; ``model_max_len`` is the model's number of positions.
    Equality and hashing use the name, the caps and the SHA-256 of the JSON.
    """

    spec_json: str = field(repr=False, compare=False)
    name: str = "wordpiece"
    max_tokens: int = 128
    model_max_len: int = 512
    digest: str = field(init=False)
    _full: Tokenizer = field(init=False, repr=False, compare=False)
    _capped: Tokenizer = field(init=False, repr=False, compare=False)
    MODEL: ClassVar[str] = "WordPiece"  # the tokenizer.json's model type
    SPECIALS: ClassVar[tuple[str, ...]] = ("[CLS]", "[SEP]", "[UNK]")  # pieces its vocabulary must hold

    def __post_init__(self) -> None:
        if (
            isinstance(self.max_tokens, bool)
            or not isinstance(self.max_tokens, int)
            or not MIN_TOKENS <= self.max_tokens <= self.model_max_len
        ):
            raise ValueError(
                f"max_tokens must be a whole number from {MIN_TOKENS} to {self.model_max_len} "
                f"(the model's positions), got {self.max_tokens!r}."
            )
        object.__setattr__(self, "digest", _sha256(self.spec_json))
        object.__setattr__(self, "_full", _engine(self.spec_json, None, self.MODEL))
        object.__setattr__(self, "_capped", _engine(self.spec_json, self.max_tokens, self.MODEL))
        for token in self.SPECIALS:
            if self._full.token_to_id(token) is None:
                raise ValueError(f"the tokenizer's vocabulary has no {token}; it is not a BERT WordPiece one.")

    @classmethod
    def from_file(
        cls, path: str | Path, name: str = "wordpiece", max_tokens: int = 128, model_max_len: int = 512
    ) -> "WordPieceTokenizer":
        """Read a ``tokenizer.json`` file (UTF-8)."""
        return cls(Path(path).read_text(encoding="utf-8"), name, max_tokens, model_max_len)

    def __reduce__(self):
        """Pickle and copy as the constructor's arguments (the ``tokenizers`` engines are rebuilt)."""
        return type(self), (self.spec_json, self.name, self.max_tokens, self.model_max_len)

    def with_max_tokens(self, max_tokens: int) -> "WordPieceTokenizer":
        """The same tokenizer with another cap."""
        return replace(self, max_tokens=max_tokens)

    @property
    def vocab_size(self) -> int:
        """Number of ids, special tokens included (30522 for BERT uncased)."""
        return self._full.get_vocab_size(with_added_tokens=True)

    @property
    def unk_id(self) -> int:
        return self._full.token_to_id("[UNK]")

    def is_special(self, token_id: int) -> bool:
        """True for a special token's id ([CLS], [SEP], <s>, <|endoftext|>, ...), as the file marks them."""
        added = self._full.get_added_tokens_decoder().get(int(token_id))
        return bool(added is not None and added.special)

    def encode_text(self, text: str) -> WordPieces:
        """``[CLS] pieces(text) [SEP]``, cut to ``max_tokens``; all type ids 0."""
        return self._encode((text,))

    def encode_pair(self, first: str, second: str) -> WordPieces:
        """``[CLS] pieces(first) [SEP] pieces(second) [SEP]``, type ids 0 then 1; when too long,
        pieces are dropped from the end of the longer segment first (``longest_first``)."""
        return self._encode((first, second))

    def _encode(self, texts: tuple[str, ...]) -> WordPieces:
        for text in texts:
            if not isinstance(text, str):
                raise TypeError(f"text must be a str, got {type(text).__name__}.")
        encoding = self._full.encode(*texts)
        cut_from = None
        if len(encoding.ids) > self.max_tokens:
            cut_from, encoding = len(encoding.ids), self._capped.encode(*texts)
        return _pieces(encoding, texts, cut_from, self.unk_id)

    def tokenize(self, text: str) -> list[str]:
        """The pieces the model sees, ``[CLS]`` and ``[SEP]`` included (cut to ``max_tokens``)."""
        return list(self.encode_text(text).tokens)

    def encode(self, tokens: Sequence[str]) -> list[int]:
        """Ids of pieces as ``tokenize`` gives them; a string outside the vocabulary is ``[UNK]``."""
        ids = (self._full.token_to_id(token) for token in tokens)
        return [self.unk_id if i is None else i for i in ids]

    def to_dict(self) -> dict:
        return {"kind": "wordpiece", "name": self.name}


def _pieces(encoding: Encoding, texts: tuple[str, ...], cut_from: int | None, unk_id: int) -> WordPieces:
    """Collect one ``tokenizers.Encoding`` into ``WordPieces``."""
    special = tuple(bool(flag) for flag in encoding.special_tokens_mask)
    tokens = tuple(encoding.tokens)
    return WordPieces(
        texts=texts,
        ids=tuple(encoding.ids),
        tokens=tokens,
        offsets=tuple((int(a), int(b)) for a, b in encoding.offsets),
        type_ids=tuple(encoding.type_ids),
        special=special,
        continuation=tuple(t.startswith(CONTINUATION) and not s for t, s in zip(tokens, special)),
        unknown=tuple(i == unk_id for i in encoding.ids),
        word_ids=tuple(encoding.word_ids),
        cut_from=cut_from,
    )
