"""The sentence input: NFC-normalised, tokenised, capped, with friendly messages."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from . import runtime  # noqa: F401  (torch threads are set before any torch work)
from transformer import HashTokenizer, normalize, truncate

MAX_TOKENS = 64


@dataclass(frozen=True)
class TokenizedText:
    """Tokens as shown to the user, their ids, and whether the text was cut."""

    tokens: tuple[str, ...]
    ids: tuple[int, ...]
    cut_from: int | None = None


def tokenize_text(
    text: str, max_tokens: int = MAX_TOKENS, level: str = "word", vocab_size: int = 4096, tokenizer=None
) -> TokenizedText | None:
    """Tokenise ``text`` (None if it has no tokens), keeping at most ``max_tokens``; ``tokenizer``
    is the model's (default: the word-level hash tokenizer of the random models)."""
    tokenizer = tokenizer or HashTokenizer(vocab_size=vocab_size, level=level)
    if hasattr(tokenizer, "encode_text"):  # WordPiece: [CLS] ... [SEP], cut by the tokenizer itself
        pieces = tokenizer.with_max_tokens(max(8, max_tokens)).encode_text(normalize(text))
        if not any(not special for special in pieces.special):
            return None
        return TokenizedText(tuple(pieces.tokens), tuple(pieces.ids), pieces.cut_from)
    all_tokens = tokenizer.tokenize(text)
    if not all_tokens:
        return None
    tokens, was_cut = truncate(all_tokens, max_tokens)
    return TokenizedText(tuple(tokens), tuple(tokenizer.encode(tokens)), len(all_tokens) if was_cut else None)


def sentence_input(
    label: str,
    default: str,
    key: str,
    max_tokens: int = MAX_TOKENS,
    level: str = "word",
    vocab_size: int = 4096,
    container=st,
    tokenizer=None,
) -> TokenizedText | None:
    """A text box bound to the URL; returns the tokens, or None after a prompt if empty.

    When the text has more than ``max_tokens`` tokens, the rest is dropped and a
    note says so. The user's text is never rendered as Markdown or HTML here.
    """
    text = container.text_input(label, value=default, key=key, bind="query-params", max_chars=2000)
    result = tokenize_text(text, max_tokens, level, vocab_size, tokenizer)
    if result is None:
        container.info("Type a sentence above to see its attention (it is empty now).")
        return None
    if result.cut_from is not None:
        container.warning(
            f"The text has {result.cut_from} tokens; only the first {max_tokens} "
            f"are used, to keep the figures readable and fast."
        )
    return result
