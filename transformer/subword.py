"""A shared subword vocabulary for translation: byte-pair encoding learned on both languages at once.

As in the paper's shared BPE (its vocabulary of about 37,000 pieces for English-German), one vocabulary
serves the source and the target, so one embedding matrix can serve both and the pre-softmax layer. Each
word is split at spaces and punctuation and then into the longest pieces its learned merges make; a piece
that starts a word carries "▁" (a space before it), so the pieces join back into the text exactly:
"I'm cold." -> "▁I", "'", "m", "▁cold", ".". The ``tokenizers`` library learns the merges and runs them;
ids 0-3 are ``<pad>``, ``<s>``, ``</s>`` and ``<unk>``, as for every tokenizer of the package.

The tokenizer is frozen, hashable by the SHA-256 of its JSON and read-only, so one instance serves every
session; its JSON travels in the checkpoint's metadata (``to_dict``).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

from .tokenizer import SPECIALS, UNK

WORD_START = "▁"
NARROW_SPACES = ("\u202f", "\u00a0")  # French typography's (narrow) no-break space before "?", "!", ":"


@functools.lru_cache(maxsize=8)
def _engine(spec_json: str) -> Tokenizer:
    """The ``tokenizers`` engine of a JSON text, built once per text (parsing it is slow) and never changed."""
    try:
        engine = Tokenizer.from_str(spec_json)
    except Exception as error:  # the Rust side raises a bare Exception for malformed JSON
        raise ValueError(f"not a valid subword tokenizer JSON ({error}).") from None
    if type(engine.model).__name__ != "BPE":
        raise ValueError(f"the subword tokenizer's model is {type(engine.model).__name__}, not BPE.")
    for number, special in enumerate(SPECIALS):
        if engine.token_to_id(special) != number:
            raise ValueError(f"the subword tokenizer must give {special} the id {number}.")
    engine.no_padding()
    engine.no_truncation()
    return engine


@dataclass(frozen=True)
class SubwordTokenizer:
    """Shared BPE pieces from a ``tokenizers`` JSON text: ``tokenize`` (pieces), ``encode`` (ids), ``decode``."""

    spec_json: str = field(repr=False, compare=False)
    digest: str = field(init=False)

    def __post_init__(self) -> None:
        if not isinstance(self.spec_json, str):
            raise ValueError("the subword tokenizer needs its JSON text.")
        _engine(self.spec_json)
        object.__setattr__(self, "digest", hashlib.sha256(self.spec_json.encode("utf-8")).hexdigest())

    @property
    def _engine(self) -> Tokenizer:
        return _engine(self.spec_json)

    @property
    def vocab_size(self) -> int:
        """Number of ids, the four special tokens included."""
        return self._engine.get_vocab_size(with_added_tokens=True)

    def tokenize(self, text: str) -> list[str]:
        """The pieces of ``text`` (NFC-normalised); a character never seen in training is ``<unk>``."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}.")
        return list(self._engine.encode(text, add_special_tokens=False).tokens)

    def encode(self, tokens: Sequence[str]) -> list[int]:
        """Ids of pieces as ``tokenize`` gives them; a string outside the vocabulary is ``<unk>``."""
        unk = SPECIALS.index(UNK)
        ids = (self._engine.token_to_id(token) for token in tokens)
        return [unk if i is None else i for i in ids]

    def id_to_piece(self, token_id: int) -> str:
        """The piece an id stands for, as the vocabulary spells it ("▁" marks a space before it)."""
        piece = self._engine.id_to_token(int(token_id))
        if piece is None:
            raise ValueError(f"id {token_id} is outside the vocabulary of {self.vocab_size} pieces.")
        return piece

    def decode(self, ids: Iterable[int]) -> str:
        """The text of ``ids``: pieces joined, "▁" back to a space, special tokens left out."""
        return self._engine.decode([int(i) for i in ids], skip_special_tokens=True)

    def to_dict(self) -> dict:
        return {"kind": "subword", "tokenizer_json": self.spec_json}


def word_starts(pieces: Sequence[str]) -> list[bool]:
    """For each piece, whether it starts a word as typed: it carries "▁" (a space before it) or comes first.
    Pieces split off without a space ("'", "m" of "I'm"; "." of "cold.") belong to the word before them."""
    return [i == 0 or piece.startswith(WORD_START) for i, piece in enumerate(pieces)]


def train_subword_tokenizer(texts: Iterable[str], vocab_size: int = 4000) -> SubwordTokenizer:
    """BPE merges learned on ``texts`` (both languages) until the vocabulary has ``vocab_size`` pieces.

    Text is NFC-normalised (a no-break space read as a space) and split into words and single punctuation
    marks, each with the space before it ("▁" marks it: "▁!" in French "merci !"); every character of the
    texts is in the vocabulary, so only characters never seen become ``<unk>``."""
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size <= len(SPECIALS):
        raise ValueError(f"vocab_size must be a whole number above {len(SPECIALS)}, got {vocab_size!r}.")
    engine = Tokenizer(models.BPE(unk_token=UNK))
    engine.normalizer = normalizers.Sequence(
        [normalizers.NFC(), *(normalizers.Replace(space, " ") for space in NARROW_SPACES)]
    )
    engine.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Metaspace(replacement=WORD_START, prepend_scheme="always"),
            pre_tokenizers.Split(Regex(rf"{WORD_START}?[^\w{WORD_START}]|{WORD_START}?\w+"), behavior="isolated"),
        ]
    )
    engine.decoder = decoders.Metaspace(replacement=WORD_START, prepend_scheme="always")
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(SPECIALS), show_progress=False)
    engine.train_from_iterator(texts, trainer=trainer)
    return SubwordTokenizer(engine.to_str())
