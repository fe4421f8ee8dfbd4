"""Per-head statistics and attention rollout over a stack's weights ``[L, H, T, T]`` (numpy/pandas)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

STAT_COLUMNS = (
    "entropy (nats)",
    "entropy / ln(keys)",
    "on previous token",
    "on first token",
    "on itself",
    "mean distance",
)


def row_entropy(weights: np.ndarray) -> np.ndarray:
    """H_i = -sum_j a_ij ln a_ij (0 ln 0 = 0) of every row of ``[..., Lq, Lk]``, in nats: ``[..., Lq]``."""
    w = np.asarray(weights, dtype=np.float64)
    return -(w * np.log(np.where(w > 0, w, 1.0))).sum(-1)


def normalised_entropy(weights: np.ndarray, allowed: np.ndarray | None = None) -> np.ndarray:
    """Mean over queries of H_i / ln n_i, ``[...]`` from ``[..., Lq, Lk]``: n_i is the number of keys
    row i may attend to (``allowed`` ``[Lq, Lk]`` bool, True = may attend; None = every key), so
    1 = spread evenly over the keys the row can see and 0 = one key. A causal row i has n_i = i + 1
    and a maximum of ln(i + 1), not ln Lk. Rows with fewer than two allowed keys have no choice to
    make and are left out; with none left, NaN."""
    w = np.asarray(weights, dtype=np.float64)
    keys = np.full(w.shape[-2], w.shape[-1]) if allowed is None else np.asarray(allowed, bool).sum(-1)
    rows = keys >= 2
    if not rows.any():
        return np.full(w.shape[:-2], np.nan)
    return (row_entropy(w)[..., rows] / np.log(keys[rows])).mean(-1)


def head_stats(weights: np.ndarray, allowed: np.ndarray | None = None) -> pd.DataFrame:
    """One row per (layer, head) of ``weights`` ``[L, H, T, T]`` (rows = queries, summing to 1);
    ``allowed`` ``[T, T]`` bool, the keys each query may attend to (None = all; a causal mask for a decoder).

    - entropy: mean over queries i of H_i = -sum_j a_ij ln a_ij (0 ln 0 = 0);
    - entropy / ln(keys): ``normalised_entropy`` (per row, by ln of its number of allowed keys);
    - on previous token: mean over i >= 1 of a_{i, i-1} (undefined, NaN, when T = 1);
    - on first token: mean over i of a_{i, 0};
    - on itself: mean over i of a_{i, i};
    - mean distance: mean over i of sum_j a_ij |i - j| (in tokens).
    """
    w = np.asarray(weights, dtype=np.float64)
    layers, heads, length, _ = w.shape
    positions = np.arange(length)
    entropy = row_entropy(w).mean(-1)
    evenness = normalised_entropy(w, allowed)
    previous = w[..., positions[1:], positions[:-1]].mean(-1) if length > 1 else np.full((layers, heads), np.nan)
    first = w[..., :, 0].mean(-1)
    itself = w[..., positions, positions].mean(-1)
    distance = (w * np.abs(positions[:, None] - positions[None, :])).sum(-1).mean(-1)
    layer_index, head_index = np.meshgrid(np.arange(layers), np.arange(heads), indexing="ij")
    frame = pd.DataFrame({"layer": layer_index.ravel() + 1, "head": head_index.ravel() + 1})  # numbered from 1
    for name, values in zip(STAT_COLUMNS, (entropy, evenness, previous, first, itself, distance)):
        frame[name] = np.asarray(values, dtype=np.float64).ravel()
    return frame


def attention_rollout(weights: np.ndarray) -> np.ndarray:
    """Abnar & Zuidema's rollout over layers, float32 ``[T, T]`` from ``weights`` ``[L, H, T, T]``.

    Each layer: Â_l = 0.5 mean_h(A_l) + 0.5 I, rows renormalised; rollout R = Â_L ... Â_2 Â_1.
    A heuristic: the 0.5 I for the residual path is Abnar & Zuidema's assumption, and the values, W^O,
    the feed-forward networks and LayerNorm are ignored, so R_ij is where attention alone could route
    input token j to output i under that assumption, not a measured share of j in output i.
    """
    w = np.asarray(weights, dtype=np.float64)
    length = w.shape[-1]
    rollout = np.eye(length)
    for layer in w:
        mixed = 0.5 * layer.mean(0) + 0.5 * np.eye(length)
        mixed /= mixed.sum(-1, keepdims=True)
        rollout = mixed @ rollout
    return rollout.astype(np.float32)


def strongest_link(weights: np.ndarray, query: int, keys: Sequence[int] | None = None) -> tuple[int, int, float]:
    """Of one layer's weights ``[H, T, T]``: the head h and key j (among ``keys``, every key when None or empty)
    with the largest weight a^h_{query, j}, and that weight: (h, j, a), both from 0; the first head and key on a
    tie (numpy's argmax reads heads first)."""
    row = np.asarray(weights, dtype=np.float64)[:, query, :]  # [H, T]
    columns = np.asarray(list(keys) if keys else range(row.shape[1]), dtype=np.int64)
    head, at = np.unravel_index(int(np.argmax(row[:, columns])), (row.shape[0], columns.size))
    key = int(columns[at])
    return int(head), key, float(row[head, key])
