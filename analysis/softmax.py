"""How peaked softmax rows are: row entropy, and its growth with d_k without the 1/sqrt(d_k) scaling."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch


PEAK_DIMS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)


@dataclass(frozen=True)
class Peakedness:
    """How peaked softmax rows get as d_k grows: ``dims`` ``[D]`` and, with and without
    the 1/sqrt(d_k) scaling, the mean row entropy (nats), the mean max weight and the mean size of the
    softmax's Jacobian (``jacobian_norm``) ``[D]``."""

    dims: np.ndarray
    entropy_scaled: np.ndarray
    entropy_unscaled: np.ndarray
    max_scaled: np.ndarray
    max_unscaled: np.ndarray
    keys: int
    jacobian_scaled: np.ndarray
    jacobian_unscaled: np.ndarray


def row_entropy(weights: torch.Tensor) -> torch.Tensor:
    """H(a) = -sum_j a_j log a_j over the last axis (0 log 0 = 0): ``[..., n] -> [...]``."""
    return -(weights * torch.log(weights.clamp_min(1e-30))).sum(-1)


def jacobian_norm(weights: torch.Tensor) -> torch.Tensor:
    """||J||_F of each row's softmax Jacobian J = diag(a) - a a^T (da_i / ds_j for scores s): how much the weights
    move when the scores move, and so how much gradient reaches the scores. ``[..., n] -> [...]``; it is near 0
    for a saturated row (one weight near 1) and largest for a flat one.
    ||J||_F^2 = sum_i a_i^2 (1 - 2 a_i) + (sum_i a_i^2)^2."""
    squares = weights.square()
    return (squares.mul(1 - 2 * weights).sum(-1) + squares.sum(-1).square()).clamp_min(0).sqrt()


def peakedness_against_dk(
    keys: int = 16, queries: int = 256, seed: int = 0, dims: tuple[int, ...] = PEAK_DIMS
) -> Peakedness:
    """For q, k ~ N(0, I_{d_k}): mean entropy, max and Jacobian size (``jacobian_norm``) of softmax(q.k) vs
    softmax(q.k / sqrt(d_k)).

    q.k has variance d_k, so unscaled rows saturate (entropy -> 0, max -> 1) as
    d_k grows; dividing by sqrt(d_k) keeps the variance at 1 for every d_k.
    """
    generator = torch.Generator().manual_seed(seed)
    out = {name: [] for name in ("es", "eu", "ms", "mu", "js", "ju")}
    for d in dims:
        q = torch.randn(queries, d, generator=generator)
        k = torch.randn(keys, d, generator=generator)
        raw = q @ k.T
        for tag, scores in (("s", raw / math.sqrt(d)), ("u", raw)):
            weights = torch.softmax(scores.double(), dim=-1)
            out["e" + tag].append(float(row_entropy(weights).mean()))
            out["m" + tag].append(float(weights.max(-1).values.mean()))
            out["j" + tag].append(float(jacobian_norm(weights).mean()))
    arrays = {name: np.asarray(values, dtype=np.float32) for name, values in out.items()}
    return Peakedness(
        np.asarray(dims, dtype=np.float32),
        arrays["es"],
        arrays["eu"],
        arrays["ms"],
        arrays["mu"],
        keys,
        arrays["js"],
        arrays["ju"],
    )
