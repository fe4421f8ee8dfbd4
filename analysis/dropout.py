"""Dropout made visible: a seeded Bernoulli keep-mask applied to evaluation-mode arrays (numpy).

Training applies inverted dropout to a tensor ``x``:

    dropout(x)_i = m_i x_i / (1 - p),   m_i ~ Bernoulli(1 - p) independently,

so each entry is zeroed with probability ``p`` and every survivor is scaled by 1/(1-p),
which keeps the expected value: E[dropout(x)_i] = x_i. Evaluation (and inference) skips it:
dropout(x) = x. The model on a page always runs in evaluation mode, and a model shared
between sessions is never switched to training; this module shows what training would do
to the recorded arrays by drawing the mask itself, from a seeded generator of its own
(no global random state is read or changed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


def keep_mask(shape: Sequence[int], p: float, seed: int, stream: int = 0) -> np.ndarray:
    """Bool ``shape``: True where an entry survives, each independently with probability 1 - p.

    The draw is ``u < 1 - p`` for ``u ~ Uniform[0, 1)`` from ``np.random.default_rng([seed, stream])``:
    the same (seed, stream) gives the same mask, ``p = 0`` keeps everything. ``stream`` separates
    the masks of different places that share one seed (e.g. attention weights and a sub-layer output).
    """
    check_rate(p)
    uniform = np.random.default_rng([int(seed), int(stream)]).random(tuple(int(n) for n in shape))
    return uniform < 1.0 - p


def apply_dropout(x: np.ndarray, keep: np.ndarray, p: float) -> np.ndarray:
    """``m ⊙ x / (1 - p)`` with ``m = keep``: zeros where dropped, ``x / (1 - p)`` elsewhere.

    ``x`` and ``keep`` have the same shape; returns ``x``'s floating dtype. ``p = 0`` returns
    a copy equal to ``x``. Non-finite inputs are not produced here: ``1 - p >= 0.5`` for the
    rates the page offers, and ``p`` must be below 1.
    """
    check_rate(p)
    x = np.asarray(x)
    scaled = x / x.dtype.type(1.0 - p) if np.issubdtype(x.dtype, np.floating) else x / (1.0 - p)
    return np.where(keep, scaled, 0).astype(scaled.dtype)


@dataclass(frozen=True)
class Dropped:
    """One array before and after training-mode dropout with rate ``p``.

    ``before`` is the evaluation-mode array (what every other figure shows), ``keep`` the
    mask m (True = survives), ``after = m ⊙ before / (1 - p)``; all the same shape.
    """

    before: np.ndarray
    keep: np.ndarray
    after: np.ndarray
    p: float

    def part(self, index) -> Dropped:
        """The same view restricted to ``before[index]`` (e.g. one head of ``[H, L, L]`` weights)."""
        return Dropped(self.before[index], self.keep[index], self.after[index], self.p)

    @property
    def kept_fraction(self) -> float:
        """Share of entries that survived (about 1 - p on a large array; 1.0 for an empty one)."""
        return float(self.keep.mean()) if self.keep.size else 1.0


def dropout_view(x: np.ndarray, p: float, seed: int, stream: int = 0) -> Dropped:
    """``x`` through dropout with rate ``p`` and the mask of (``seed``, ``stream``) (see ``keep_mask``)."""
    x = np.asarray(x, dtype=np.float32)
    keep = keep_mask(x.shape, p, seed, stream)
    return Dropped(x, keep, apply_dropout(x, keep, p), float(p))


def row_sums(weights: np.ndarray) -> np.ndarray:
    """Sum over the last axis, float32 ``[..., Lq]``: 1 for attention rows before dropout, not after."""
    return np.asarray(weights, dtype=np.float64).sum(-1).astype(np.float32)


def check_rate(p: float) -> None:
    """A dropout rate must be in [0, 1): at 1 every entry would go and 1/(1-p) would divide by 0."""
    if not 0.0 <= p < 1.0:
        raise ValueError(f"dropout rate p must be in [0, 1), got {p}.")
