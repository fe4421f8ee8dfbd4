"""The road from 2017: what each change of today's decoder block does, measured on the package's own modules.

- Where the norm goes: post-LN, x <- LN(x + F(x)) (the paper), or pre-LN, x <- x + F(LN(x)) (GPT-2 on):
  the pre-LN stream is never normalised, so what the layers add piles up in it.
- LayerNorm(x) = (x - mean x) / sqrt(var x + eps) (then a gain and a bias) against
  RMSNorm(x) = x / sqrt(mean x^2 + eps) (then a gain): no centring, no bias.
- ReLU's feed-forward, ReLU(x W_1 + b_1) W_2 + b_2, against SwiGLU's, (SiLU(x W_gate) * x W_1) W_2:
  three matrices, so at equal parameters d_ff shrinks to 2/3 (Llama's 8 d_model / 3).
- Sinusoidal positions are added to the token before W_Q and W_K; RoPE turns q and k by their
  positions after, so q_m . k_n depends on n - m alone.
- Multi-head, grouped-query and multi-query attention: the KV cache holds H_kv heads' keys and values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch

from transformer import FeedForward, TransformerConfig, build_model, divisors
from transformer.norms import RMSNorm
from transformer.positional import apply_rotary, sinusoidal_encoding

from .decoding_cost import cache_bytes


@dataclass(frozen=True)
class NormedVector:
    """One vector ``x`` [d], its LayerNorm and its RMSNorm (gains 1, no bias, eps 1e-5 both)."""

    x: np.ndarray
    layer_norm: np.ndarray
    rms_norm: np.ndarray

    @property
    def mean(self) -> float:
        return float(self.x.mean())

    @property
    def rms(self) -> float:
        return float(np.sqrt((self.x.astype(np.float64) ** 2).mean()))


def normed(values) -> NormedVector:
    """``values`` (at least 2 numbers) through ``nn.LayerNorm`` and the package's ``RMSNorm``."""
    x = torch.tensor(np.asarray(values, dtype=np.float32))
    layer_norm = torch.nn.LayerNorm(x.shape[-1], eps=1e-5, elementwise_affine=False)
    rms_norm = RMSNorm(x.shape[-1], eps=1e-5, elementwise_affine=False)
    with torch.no_grad():
        return NormedVector(x.numpy(), layer_norm(x).numpy(), rms_norm(x).numpy())


def feed_forward_table(d_model: int, d_ff: int) -> pd.DataFrame:
    """The feed-forward's weights, counted on the modules: ReLU with biases (2017), SwiGLU at the same d_ff,
    and SwiGLU at 2/3 of it (rounded), which matches ReLU's count."""
    narrow = max(1, round(2 * d_ff / 3))
    rows = [
        ("ReLU, biases (2017)", "relu", d_ff, True, "2 d_model d_ff + d_ff + d_model"),
        ("SwiGLU, same d_ff", "swiglu", d_ff, False, "3 d_model d_ff"),
        ("SwiGLU, d_ff × 2/3", "swiglu", narrow, False, "3 d_model d_ff"),
    ]
    return pd.DataFrame(
        [
            {
                "feed-forward": name,
                "d_ff": width,
                "matrices": 3 if activation == "swiglu" else 2,
                "weights": sum(
                    p.numel() for p in FeedForward(d_model, width, activation=activation, bias=bias).parameters()
                ),
                "formula": formula,
            }
            for name, activation, width, bias, formula in rows
        ]
    )


def offset_scores(d_model: int, pairs: list[tuple[int, int]], seed: int = 0) -> pd.DataFrame:
    """The score q_m . k_n of one query token at position m and one key token at n, for each (m, n) of ``pairs``:
    with the sinusoids added to both tokens before W_Q and W_K, and with RoPE turning W_Q a and W_K b by m and n.
    Tokens and projections are seeded random (d_model = d_head: one head)."""
    generator = torch.Generator().manual_seed(seed)
    a, b = torch.randn(2, d_model, generator=generator, dtype=torch.float64)
    w_q, w_k = torch.randn(2, d_model, d_model, generator=generator, dtype=torch.float64) / d_model**0.5
    table = sinusoidal_encoding(max(max(p) for p in pairs) + 1, d_model).double()
    rows = []
    for m, n in pairs:
        added = float((w_q @ (a + table[m])) @ (w_k @ (b + table[n])))
        q = apply_rotary((w_q @ a)[None], start=m)[0]
        k = apply_rotary((w_k @ b)[None], start=n)[0]
        rows.append(
            {"query at": m + 1, "key at": n + 1, "offset": n - m, "sinusoidal (added)": added, "RoPE": float(q @ k)}
        )
    return pd.DataFrame(rows)


def residual_growth(config: TransformerConfig, ids: list[int], layers: int = 6, seed: int = 0) -> pd.DataFrame:
    """The residual stream's root mean square after each of ``layers`` layers of a random decoder, post-LN and
    pre-LN (``config``'s other settings, dropout 0), on ``ids``: one row per layer, counted from 1."""
    rows = {}
    for name, norm_first in (("post-LN (2017)", False), ("pre-LN (today)", True)):
        stack = TransformerConfig(
            **{**config.to_dict(), "num_decoder_layers": layers, "norm_first": norm_first, "dropout": 0.0}
        )
        model = build_model(stack, seed=seed, kind="decoder-only").eval()
        with torch.inference_mode():
            internals = model(torch.tensor([ids]), return_internals=True).attention.internals
        rows[name] = [
            float(internals[f"decoder.layers.{i}.after_feed_forward"].double().pow(2).mean().sqrt())
            for i in range(layers)
        ]
    return pd.DataFrame({"layer": range(1, layers + 1), **rows})


def kv_cache_table(config: TransformerConfig, tokens: int) -> pd.DataFrame:
    """The KV cache after ``tokens`` tokens for every key-value head count the config's heads allow, from
    multi-head (H_kv = H) to multi-query (H_kv = 1), by ``decoding_cost.cache_bytes``."""
    rows = []
    for kv in reversed(divisors(config.num_heads)):
        name = "multi-head" if kv == config.num_heads else "multi-query" if kv == 1 else "grouped-query"
        bytes_ = int(cache_bytes(TransformerConfig(**{**config.to_dict(), "num_kv_heads": kv}), tokens))
        rows.append({"attention": name, "key-value heads": kv, "cache (bytes)": bytes_})
    table = pd.DataFrame(rows)
    table["share of multi-head"] = table["cache (bytes)"] / table["cache (bytes)"].iloc[0]
    return table
