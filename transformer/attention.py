"""Scaled dot-product attention and multi-head attention that return their weights."""

from __future__ import annotations

import math

import torch
from torch import nn

from .positional import alibi_bias, apply_rotary


def attention_scores(q: torch.Tensor, k: torch.Tensor, scale: float | None = None,
                     bias: torch.Tensor | None = None) -> torch.Tensor:
    """Pre-softmax scores ``S = scale * Q K^T + bias``, shape ``[..., Lq, Lk]``.

    q ``[..., Lq, d_k]``, k ``[..., Lk, d_k]``; ``scale`` defaults to 1/sqrt(d_k).
    """
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = torch.matmul(q, k.transpose(-2, -1)) * scale
    return scores if bias is None else scores + bias


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Softmax over keys where ``mask`` is True; masked keys get weight 0.

    A row with no allowed key (a plain softmax would give 0/0 = NaN there) is all
    zeros. Gradients stay finite: the masked positions never see -inf.
    """
    if mask is None:
        return torch.softmax(scores, dim=-1)
    mask = mask.expand_as(scores) if mask.shape != scores.shape else mask
    row_has_key = mask.any(dim=-1, keepdim=True)
    filled = scores.masked_fill(~mask, float("-inf")).masked_fill(~row_has_key, 0.0)
    return torch.softmax(filled, dim=-1) * row_has_key


def scaled_dot_product_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                                 mask: torch.Tensor | None = None,
                                 scale: float | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V, with its weights.

    q ``[..., Lq, d_k]``, k ``[..., Lk, d_k]``, v ``[..., Lk, d_v]``; ``mask`` is
    boolean, True = may attend, broadcast to ``[..., Lq, Lk]``. Returns the output
    ``[..., Lq, d_v]`` and the weights ``[..., Lq, Lk]``; fully masked rows are zeros.
    """
    weights = masked_softmax(attention_scores(q, k, scale), mask)
    return torch.matmul(weights, v), weights


class MultiHeadAttention(nn.Module):
    """MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O, head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V).

    Batch-first: query ``[B, Lq, d_model]``, key and value ``[B, Lk, d_model]``.
    ``forward`` returns the output ``[B, Lq, d_model]`` and the per-head weights
    ``[B, H, Lq, Lk]`` (post-softmax, before dropout, never averaged) and, with
    ``return_scores=True``, the pre-softmax scores ``[B, H, Lq, Lk]`` as well.

    ``positional`` may be "rotary" (q and k rotated per position) or "alibi" (a
    linear distance penalty per head added to the scores); anything else adds
    nothing. The module keeps no state between calls, so a cached instance can
    serve many sessions.
    """

    def __init__(self, d_model: int, num_heads: int, bias: bool = True, dropout: float = 0.0,
                 positional: str = "none", rope_base: float = 10000.0, scale_scores: bool = True):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}.")
        self.d_model, self.num_heads, self.d_head = d_model, num_heads, d_model // num_heads
        self.positional, self.rope_base, self.scale_scores = positional, rope_base, scale_scores
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        """``[B, L, d_model] -> [B, H, L, d_head]``."""
        batch, length, _ = x.shape
        return x.view(batch, length, self.num_heads, self.d_head).transpose(1, 2)

    def forward(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                mask: torch.Tensor | None = None, return_scores: bool = False):
        q = self.split_heads(self.w_q(query))
        k = self.split_heads(self.w_k(key))
        v = self.split_heads(self.w_v(value))
        if self.positional == "rotary":
            q, k = apply_rotary(q, self.rope_base), apply_rotary(k, self.rope_base)
        bias = None
        if self.positional == "alibi":
            bias = alibi_bias(self.num_heads, q.shape[-2], k.shape[-2]).to(q.dtype)
        scale = 1.0 / math.sqrt(self.d_head) if self.scale_scores else 1.0
        scores = attention_scores(q, k, scale, bias)
        weights = masked_softmax(scores, mask)
        heads = torch.matmul(self.dropout(weights), v)
        output = self.w_o(heads.transpose(1, 2).reshape(query.shape[0], -1, self.d_model))
        if return_scores:
            return output, weights, scores
        return output, weights

