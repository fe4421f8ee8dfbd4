"""GPT-2's byte-level BPE tokenizer, run by the ``tokenizers`` library from a ``tokenizer.json``.

Byte-level BPE first turns the text into bytes, each shown as a printable character
(a space is "Ġ"), then merges the most frequent pairs it learned into pieces:
"Hello world" -> "Hello", "Ġworld". Every byte is in the vocabulary, so no text is
unknown: a character outside it (an emoji, most CJK) becomes several byte pieces.
GPT-2 adds no ``[CLS]``/``[SEP]``; the pieces are the model's input as they are.

The tokenizer here never pads and cuts at ``max_tokens``; it gives the same ids as
Hugging Face's tokenizer for the same file with ``truncation=True,
max_length=max_tokens``. Like ``WordPieceTokenizer`` (whose interface it shares, and
whose ``WordPieces`` it returns) it is frozen, hashable and read-only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar, Sequence

from .wordpiece import WordPieces, WordPieceTokenizer


@dataclass(frozen=True)
class BPETokenizer(WordPieceTokenizer):
    """A byte-level BPE tokenizer from a ``tokenizer.json`` text, padding off, cut at ``max_tokens``.

    ``tokens`` are the vocabulary's strings, as Hugging Face's ``convert_ids_to_tokens`` gives
    them ("Ġ" = a space before the piece); a piece continues a word when it has the word's
    number and the piece before it does too. Equality and hashing as ``WordPieceTokenizer``.
    """

    name: str = "bpe"
    MODEL: ClassVar[str] = "BPE"
    SPECIALS: ClassVar[tuple[str, ...]] = ()

    @property
    def unk_id(self) -> int:
        """The unknown piece's id; -1 (matching no id) for byte-level BPE, where nothing is unknown."""
        unk = getattr(self._full.model, "unk_token", None)
        found = self._full.token_to_id(unk) if unk else None
        return -1 if found is None else found

    def _encode(self, texts: tuple[str, ...]) -> WordPieces:
        pieces = super()._encode(texts)
        words = pieces.word_ids
        continues = tuple(i > 0 and w is not None and words[i - 1] == w for i, w in enumerate(words))
        return replace(pieces, continuation=continues)

    def encode(self, tokens: Sequence[str]) -> list[int]:
        """Ids of pieces as ``tokenize`` gives them; a string outside the vocabulary is a ValueError."""
        ids = [self._full.token_to_id(token) for token in tokens]
        missing = [token for token, i in zip(tokens, ids) if i is None]
        if missing:
            raise ValueError(f"{missing[:5]} are not in the vocabulary; encode the text with encode_text.")
        return ids

    def decode(self, ids: Sequence[int]) -> str:
        """The text of ``ids`` (bytes joined, then read as UTF-8)."""
        return self._full.decode(list(ids), skip_special_tokens=False)

    def to_dict(self) -> dict:
        return {"kind": "bpe", "name": self.name}
