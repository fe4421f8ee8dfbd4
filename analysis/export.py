"""Attention weights as a long-form table and CSV, for download."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


def weights_long_frame(weights: np.ndarray, tokens: Sequence[str]) -> pd.DataFrame:
    """``weights`` ``[L, H, T, T]`` as one row per cell: layer, head, query position, query token,
    key position, key token, weight (L * H * T^2 rows, layer-major)."""
    w = np.asarray(weights, dtype=np.float32)
    layers, heads, length, _ = w.shape
    layer, head, query, key = (
        a.ravel()
        for a in np.meshgrid(np.arange(layers), np.arange(heads), np.arange(length), np.arange(length), indexing="ij")
    )
    token_array = np.asarray(list(tokens), dtype=object)
    return pd.DataFrame(
        {
            "layer": layer + 1,
            "head": head + 1,  # numbered from 1, as on screen
            "query position": query,
            "query token": token_array[query],
            "key position": key,
            "key token": token_array[key],
            "weight": w.ravel(),
        }
    )


def weights_csv(weights: np.ndarray, tokens: Sequence[str]) -> str:
    """The long-form table of :func:`weights_long_frame` as CSV text (weights to 6 decimals)."""
    return weights_long_frame(weights, tokens).to_csv(index=False, float_format="%.6f")
