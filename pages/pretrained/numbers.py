"""The pretrained-model page's numbers: WordPiece tokens, all 72 heads, sentence embeddings (tokens and the
forward pass kept in the computation cache, ``ui.cache.computation``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from ui import runtime  # noqa: F401  (torch threads are set before any torch work)

from transformer import WordPieces, normalize
from transformer.spec import ModelSpec
from ui.cache import computation
from ui.forward import encoder_reading
from ui.models import load_model

MODEL = ModelSpec.pretrained("all-MiniLM-L6-v2")
CAPS = (32, 64, 128, 256, 512)


@computation
def wordpieces(text: str, cap: int) -> WordPieces:
    """The NFC-normalised text as WordPiece tokens ([CLS] ... [SEP]), at most ``cap`` of them."""
    return load_model(MODEL).tokenizer.with_max_tokens(int(cap)).encode_text(normalize(text))


def piece_kinds(pieces: WordPieces) -> list[int]:
    """0 word start, 1 continuation (##), 2 special ([CLS], [SEP]), 3 unknown ([UNK]) per piece."""
    return [
        2 if s else 3 if u else 1 if c else 0 for s, u, c in zip(pieces.special, pieces.unknown, pieces.continuation)
    ]


@dataclass(frozen=True)
class Reading:
    """The model on one text: ``weights`` ``[6, 12, T, T]`` and the sentence ``embedding`` ``[384]``:
    the mean of the last hidden states over all T tokens, divided by its norm (sentence-transformers'
    mean pooling and normalisation)."""

    weights: np.ndarray
    embedding: np.ndarray


def reading(ids: tuple[int, ...]) -> Reading:
    """The model on one text (its forward pass cached for every session by ``encoder_reading``)."""
    model = encoder_reading(MODEL, tuple(ids))
    pooled = model.hidden.astype(np.float64).mean(0)
    return Reading(model.weights, (pooled / max(np.linalg.norm(pooled), 1e-12)).astype(np.float32))


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """cos(a, b) = a·b / (|a| |b|) for unit vectors: their dot product."""
    return float(np.dot(a.astype(np.float64), b.astype(np.float64)))
