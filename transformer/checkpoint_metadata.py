"""The metadata of a checkpoint file: what the safetensors header's ``__metadata__`` (str -> str) holds.

    format     "attention-lab-checkpoint" (marks our files)
    version    "1"
    kind       "encoder-decoder", "decoder-only", "encoder-only" or "vision" (a key of ARCHITECTURES)
    config     JSON of TransformerConfig.to_dict()
    tokenizer  JSON of the tokenizer's to_dict() (rebuilt by tokenizer_from_dict); without one the
               model's own hash tokenizer (``hash_tokenizer``); ``null`` for a vision model, which
               reads images
    metadata   JSON object: the caller's metadata without "kind", "config" and "tokenizer"

``metadata_entries`` writes that map and ``read_metadata`` reads it back, checking every entry:
the caller's metadata with "kind" (str), "config" (TransformerConfig) and "tokenizer" (object, None
for a vision model).
"""

from __future__ import annotations

import json

from torch import nn

from .config import TransformerConfig
from .architectures import ARCHITECTURES
from .tokenizer import HashTokenizer
from .tokenizer_reading import tokenizer_from_dict

FORMAT = "attention-lab-checkpoint"
VERSION = "1"
RESERVED_KEYS = ("kind", "config", "tokenizer")
VOCAB_FIELDS = {
    "encoder-decoder": ("src_vocab_size", "tgt_vocab_size"),
    "decoder-only": ("tgt_vocab_size",),
    "encoder-only": ("src_vocab_size",),
}
FIX = "Use a .safetensors checkpoint saved by this dashboard (transformer.save_checkpoint)."


def hash_tokenizer(config: TransformerConfig, kind: str) -> HashTokenizer | None:
    """The model's own tokenizer when it has no other: word-level hashing over the ids every input
    embedding of ``kind`` has (an encoder-decoder's smaller of its two vocabularies); None for a
    vision model, which reads pixels, not ids."""
    if kind == "vision":
        return None
    return HashTokenizer(min(getattr(config, field) for field in VOCAB_FIELDS[kind]))


def _tokenizer_dict(tokenizer) -> dict:
    """The tokenizer's description (from ``to_dict()`` or a dict), checked by rebuilding it."""
    values = tokenizer.to_dict() if hasattr(tokenizer, "to_dict") else tokenizer
    tokenizer_from_dict(values)
    return values


def _tokenizer_entry(model: nn.Module, tokenizer) -> dict | None:
    """What the header stores as the tokenizer: ``tokenizer`` (or the model's hash tokenizer) as a dict;
    None for a vision model, which must be given none."""
    if model.kind == "vision":
        if tokenizer is not None:
            raise ValueError("a vision model reads images and has no tokenizer; drop metadata['tokenizer'].")
        return None
    return _tokenizer_dict(tokenizer or hash_tokenizer(model.config, model.kind))


def metadata_entries(model: nn.Module, metadata: dict) -> dict[str, str]:
    """The str -> str map stored in the file's header (see the module docstring)."""
    if not isinstance(metadata, dict):
        raise ValueError(f"metadata must be a dict (JSON-serialisable values), got {type(metadata).__name__}.")
    config = metadata.get("config", model.config)
    if (
        metadata.get("kind", model.kind) != model.kind
        or (config.to_dict() if isinstance(config, TransformerConfig) else config) != model.config.to_dict()
    ):
        raise ValueError(
            "metadata['kind'] / metadata['config'] differ from the model's; drop them (the model's own are saved)."
        )
    rest = {key: value for key, value in metadata.items() if key not in RESERVED_KEYS}
    tokenizer = _tokenizer_entry(model, metadata.get("tokenizer"))
    try:
        return {
            "format": FORMAT,
            "version": VERSION,
            "kind": model.kind,
            "config": json.dumps(model.config.to_dict(), allow_nan=False),
            "tokenizer": json.dumps(tokenizer, allow_nan=False),
            "metadata": json.dumps(rest, allow_nan=False),
        }
    except (TypeError, ValueError) as error:
        raise ValueError(f"metadata must be JSON-serialisable (str, numbers, lists, dicts): {error}.") from None


def _json_entry(metadata: dict, key: str, what: type):
    """``metadata[key]`` parsed as JSON and of type ``what``, else a ValueError naming the key."""
    try:
        value = json.loads(metadata[key])
    except (KeyError, TypeError, ValueError, RecursionError):
        value = None
    if not isinstance(value, what):
        raise ValueError(f"the checkpoint's '{key}' entry is missing or not valid JSON; save the model again.")
    return value


def read_metadata(metadata: dict[str, str] | None) -> dict:
    """The caller's metadata with "kind", "config" and "tokenizer" rebuilt from the header's ``__metadata__``."""
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        found = metadata.get("format") if isinstance(metadata, dict) else None
        raise ValueError(
            f"the file has no Attention Lab metadata (format {found!r}): it is a safetensors "
            f"file saved by another program, so the model cannot be rebuilt from it. {FIX}"
        )
    if metadata.get("version") != VERSION:
        raise ValueError(
            f"the checkpoint has format version {metadata.get('version')!r}; this dashboard "
            f"reads version {VERSION}. Update the dashboard or save the model again."
        )
    kind = metadata.get("kind")
    if kind not in ARCHITECTURES:
        raise ValueError(
            f"the checkpoint's architecture kind={kind!r} is unknown; expected one of {sorted(ARCHITECTURES)}."
        )
    try:
        config = TransformerConfig.from_dict(_json_entry(metadata, "config", dict))
    except TypeError as error:
        raise ValueError(f"the checkpoint's config is invalid: {error}.") from None
    except ValueError as error:
        raise ValueError(f"the checkpoint's config is invalid: {error}") from None
    tokenizer = _no_tokenizer(metadata) if kind == "vision" else _read_tokenizer(metadata, config, kind)
    rest = _json_entry(metadata, "metadata", dict) if "metadata" in metadata else {}
    return {**rest, "kind": kind, "config": config, "tokenizer": tokenizer}


def _read_tokenizer(metadata: dict[str, str], config: TransformerConfig, kind: str):
    """The tokenizer the header describes, checked against the model's vocabulary."""
    try:
        tokenizer = tokenizer_from_dict(_json_entry(metadata, "tokenizer", dict))
    except (ValueError, OverflowError) as error:
        raise ValueError(f"the checkpoint's tokenizer is invalid: {error}") from None
    vocab = min(getattr(config, field) for field in VOCAB_FIELDS[kind])
    if tokenizer.vocab_size > vocab:
        raise ValueError(
            f"the checkpoint's tokenizer makes {tokenizer.vocab_size} ids but the model has "
            f"only {vocab} embeddings; save the model with its own tokenizer."
        )
    return tokenizer


def _no_tokenizer(metadata: dict[str, str]) -> None:
    """A vision checkpoint's tokenizer entry, which must be JSON null (the model reads images)."""
    if metadata.get("tokenizer") != "null":
        raise ValueError(
            "the checkpoint holds a vision model, whose 'tokenizer' entry must be null; save the model again."
        )
    return None
