"""A tokenizer rebuilt from the description a checkpoint carries (each tokenizer's ``to_dict()``)."""

from __future__ import annotations

from .tokenizer import HashTokenizer, VocabTokenizer


def tokenizer_from_dict(values: dict):
    """Rebuild a tokenizer from its ``to_dict()`` (hash, vocabulary or subword); anything else is a ValueError
    saying what is wrong."""
    if not isinstance(values, dict):
        raise ValueError("the tokenizer description must be a JSON object.")
    kind = values.get("kind")
    try:
        if kind == "hash":
            return HashTokenizer(int(values["vocab_size"]), str(values.get("level", "word")))
        if kind == "vocab":
            vocabulary = values["vocabulary"]
            if not isinstance(vocabulary, list) or not all(isinstance(t, str) for t in vocabulary):
                raise ValueError("the vocabulary must be a list of strings.")
            return VocabTokenizer(tuple(vocabulary), str(values.get("level", "word")))
        if kind == "subword":
            from .subword import SubwordTokenizer  # the ``tokenizers`` engine, loaded only for these models

            return SubwordTokenizer(values["tokenizer_json"])
    except (KeyError, TypeError) as error:
        raise ValueError(f"the tokenizer description is incomplete ({error}).") from None
    raise ValueError(f"tokenizer kind {kind!r} is unknown; expected 'hash', 'vocab' or 'subword'.")
