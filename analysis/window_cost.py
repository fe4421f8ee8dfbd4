"""Full against sliding-window attention: the same weighted sums, n^2 scores against n w.

Full causal attention scores every query against every earlier key, n(n+1)/2 scores, computed as one
n x n matrix. A window of w scores each query against its w most recent keys only; computed as a band,

    out_i = sum_{j = i-w+1..i} softmax_j(q_i . k_j / sqrt(d)) v_j,

it costs O(n w d) instead of O(n^2 d), and it equals full attention under the band mask.
``measure_window_cost`` times both on this machine and ``analysis.attention_cost.fit_power_law`` fits
their exponents (about 2 and about 1).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch.nn import functional as F

from transformer import scaled_dot_product_attention
from transformer.masks import window_mask

from .attention_cost import PowerLaw, fit_power_law


def banded_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, window: int) -> torch.Tensor:
    """Causal sliding-window attention computed on the band only: q, k, v ``[n, d]`` -> ``[n, d]``."""
    n, d = q.shape
    padded_k = F.pad(k, (0, 0, window - 1, 0))  # key i - w + 1 .. i sit at rows i .. i + w - 1
    padded_v = F.pad(v, (0, 0, window - 1, 0))
    keys = padded_k.unfold(0, window, 1).transpose(1, 2)  # [n, w, d]
    values = padded_v.unfold(0, window, 1).transpose(1, 2)
    scores = (keys @ q[:, :, None])[..., 0] / math.sqrt(d)  # [n, w]
    real = torch.arange(window)[None, :] >= (window - 1 - torch.arange(n))[:, None]  # no key before position 0
    weights = torch.softmax(scores.masked_fill(~real, float("-inf")), dim=-1)
    return (weights[:, None, :] @ values)[:, 0]


def full_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, window: int | None = None) -> torch.Tensor:
    """The same on the whole n x n matrix, with the causal (and band) mask: ``[n, d]``."""
    return scaled_dot_product_attention(q, k, v, window_mask(q.shape[0], window=window))[0]


@dataclass(frozen=True)
class WindowCost:
    """Best seconds ``[L]`` of full and windowed attention at each length, the bytes of their score
    matrices, and the fitted power laws."""

    lengths: np.ndarray
    full_seconds: np.ndarray
    window_seconds: np.ndarray
    full_bytes: np.ndarray
    window_bytes: np.ndarray
    window: int
    full_fit: PowerLaw
    window_fit: PowerLaw


def measure_window_cost(
    lengths: Sequence[int] = (256, 512, 1024, 2048),
    window: int = 64,
    d: int = 64,
    repeats: int = 5,
    seed: int = 0,
    clock: Callable[[], float] = time.perf_counter,
) -> WindowCost:
    """Time causal attention over ``[n, d]`` random q, k, v, full and in a band of ``window``; each length's
    time is its best of ``repeats`` rounds (a burst of load on a shared machine falls out)."""
    generator = torch.Generator().manual_seed(seed)
    data = {n: torch.randn(3, n, d, generator=generator) for n in lengths}
    best = {"full": [math.inf] * len(lengths), "window": [math.inf] * len(lengths)}
    with torch.inference_mode():
        for _ in range(max(1, repeats)):
            for i, n in enumerate(lengths):
                q, k, v = data[n]
                for name, run, arguments in (
                    ("full", full_attention, (q, k, v)),
                    ("window", banded_attention, (q, k, v, window)),
                ):
                    start = clock()
                    run(*arguments)
                    best[name][i] = min(best[name][i], clock() - start)
    n = np.asarray(lengths, dtype=np.int64)
    full, windowed = np.asarray(best["full"]), np.asarray(best["window"])
    return WindowCost(
        n,
        full,
        windowed,
        n * n * 4,
        n * min(window, int(n.max())) * 4,
        window,
        fit_power_law(n, full),
        fit_power_law(n, windowed),
    )
