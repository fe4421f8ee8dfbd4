"""Per-head statistics and attention rollout over a stack's weights ``[L, H, T, T]`` (numpy/pandas)."""

from __future__ import annotations

import numpy as np
import pandas as pd

STAT_COLUMNS = ("entropy (nats)", "on previous token", "on first token", "on itself", "mean distance")


def head_stats(weights: np.ndarray) -> pd.DataFrame:
    """One row per (layer, head) of ``weights`` ``[L, H, T, T]`` (rows = queries, summing to 1).

    - entropy: mean over queries i of H_i = -sum_j a_ij ln a_ij (0 ln 0 = 0);
    - on previous token: mean over i >= 1 of a_{i, i-1} (undefined, NaN, when T = 1);
    - on first token: mean over i of a_{i, 0};
    - on itself: mean over i of a_{i, i};
    - mean distance: mean over i of sum_j a_ij |i - j| (in tokens).
    """
    w = np.asarray(weights, dtype=np.float64)
    layers, heads, length, _ = w.shape
    positions = np.arange(length)
    entropy = -(w * np.log(np.where(w > 0, w, 1.0))).sum(-1).mean(-1)
    previous = w[..., positions[1:], positions[:-1]].mean(-1) if length > 1 else np.full((layers, heads), np.nan)
    first = w[..., :, 0].mean(-1)
    itself = w[..., positions, positions].mean(-1)
    distance = (w * np.abs(positions[:, None] - positions[None, :])).sum(-1).mean(-1)
    layer_index, head_index = np.meshgrid(np.arange(layers), np.arange(heads), indexing="ij")
    frame = pd.DataFrame({"layer": layer_index.ravel() + 1, "head": head_index.ravel() + 1})  # numbered from 1
    for name, values in zip(STAT_COLUMNS, (entropy, previous, first, itself, distance)):
        frame[name] = np.asarray(values, dtype=np.float64).ravel()
    return frame


def attention_rollout(weights: np.ndarray) -> np.ndarray:
    """Abnar & Zuidema's rollout over layers, float32 ``[T, T]`` from ``weights`` ``[L, H, T, T]``.

    Each layer: Â_l = 0.5 mean_h(A_l) + 0.5 I (the residual path), rows renormalised;
    rollout R = Â_L ... Â_2 Â_1, so R_ij says how much of input token j reaches output i.
    """
    w = np.asarray(weights, dtype=np.float64)
    length = w.shape[-1]
    rollout = np.eye(length)
    for layer in w:
        mixed = 0.5 * layer.mean(0) + 0.5 * np.eye(length)
        mixed /= mixed.sum(-1, keepdims=True)
        rollout = mixed @ rollout
    return rollout.astype(np.float32)
