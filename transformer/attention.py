"""Scaled dot-product attention and multi-head attention that return their weights."""

from __future__ import annotations

import copy
import math

import torch
from torch import nn
from torch.nn import functional as F

from .positional_schemes import positional_scheme


def attention_scores(
    q: torch.Tensor, k: torch.Tensor, scale: float | None = None, bias: torch.Tensor | None = None
) -> torch.Tensor:
    """Pre-softmax scores ``S = scale * Q K^T + bias``, shape ``[..., Lq, Lk]``.

    q ``[..., Lq, d_k]``, k ``[..., Lk, d_k]``; ``scale`` defaults to 1/sqrt(d_k).
    """
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = torch.matmul(q, k.transpose(-2, -1)) * scale
    return scores if bias is None else scores + bias


def masked_softmax(scores: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Softmax over keys where ``mask`` is True; masked keys get weight 0.

    Masked scores are filled with -inf, so exp gives them exactly 0 (and no gradient
    reaches them). A row with no allowed key, where a plain softmax would give
    0/0 = NaN, is filled with 0 instead of -inf and then multiplied by 0: its weights
    are all zeros, and so are their gradients, never NaN.
    """
    if mask is None:
        return torch.softmax(scores, dim=-1)
    mask = mask.expand_as(scores) if mask.shape != scores.shape else mask
    row_has_key = mask.any(dim=-1, keepdim=True)
    filled = scores.masked_fill(~mask, float("-inf")).masked_fill(~row_has_key, 0.0)
    return torch.softmax(filled, dim=-1) * row_has_key


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None, scale: float | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
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
    ``[B, H, Lq, Lk]`` (post-softmax, before dropout, never averaged).

    With a ``record`` (see ``ForwardRecord``) the call stores its weights under
    ``name`` and, as the record asks, the pre-softmax scores ``[B, H, Lq, Lk]`` and
    the internals ``name.q``, ``name.k``, ``name.v`` ``[B, H, L, d_head]`` (q and k
    after any rotation), ``name.heads`` (each head's A V, ``[B, H, Lq, d_head]``) and
    ``name.out`` (after W^O). With ``need_weights=False`` and no record, the
    output comes from PyTorch's fused ``F.scaled_dot_product_attention`` (same
    numbers, no weights: the second value returned is None).

    ``positional`` names a scheme of ``positional_schemes``: one that acts inside attention rotates q and k by
    their positions (rotary) or adds a per-head bias to the scores (ALiBi's linear distance penalty); any other
    adds nothing here. ``num_kv_heads`` < ``num_heads`` projects fewer key and value heads, each
    shared by ``num_heads / num_kv_heads`` query heads (grouped-query; 1 = multi-query):
    ``w_k`` and ``w_v`` are then ``[num_kv_heads * d_head, d_model]``. ``head_dim`` sets d_head on its
    own (``w_q`` is then ``[num_heads * head_dim, d_model]`` and ``w_o`` its transpose's shape);
    ``qkv_bias`` (None = ``bias``) sets the Q, K, V projections' bias apart from W^O's; ``qk_norm`` (a
    norm over d_head, e.g. ``RMSNorm``) normalises each head's q and k before any rotation (Qwen3:
    ``q_norm`` and ``k_norm``, one module each); ``rope_scaling`` stretches RoPE's frequencies
    (``positional.rotary_frequencies``). A record may carry a
    ``KVCache``: the call then reads only the new tokens (at positions from
    ``cache.positions``) and attends to the stored keys too; ``window`` caps what a
    self-attention's cache keeps. The record also carries the pass's interventions (``Ablate``, ``Patch``), applied
    to ``heads`` before ``W^O`` (a ``Patch`` of part "q", "k" or "v" to q, k or v before the scores). The module
    keeps no state between calls, so a cached instance can serve many sessions.
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        bias: bool = True,
        dropout: float = 0.0,
        positional: str = "none",
        rope_base: float = 10000.0,
        scale_scores: bool = True,
        num_kv_heads: int | None = None,
        window: int | None = None,
        head_dim: int | None = None,
        qkv_bias: bool | None = None,
        qk_norm: nn.Module | None = None,
        rope_scaling: tuple | None = None,
    ):
        super().__init__()
        if head_dim is None and d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}.")
        kv_heads = num_heads if num_kv_heads is None else num_kv_heads
        if num_heads % kv_heads:
            raise ValueError(f"num_kv_heads={kv_heads} must divide num_heads={num_heads}.")
        self.d_model, self.num_heads = d_model, num_heads
        self.d_head = d_model // num_heads if head_dim is None else head_dim
        self.kv_heads, self.window = kv_heads, window
        self.rope_base, self.scale_scores = rope_base, scale_scores
        self.scheme = positional_scheme(positional)  # its record (``scheme.name``); a ValueError for an unknown one
        self.rope_scaling = rope_scaling
        width, in_bias = num_heads * self.d_head, bias if qkv_bias is None else qkv_bias
        self.w_q = nn.Linear(d_model, width, bias=in_bias)
        self.w_k = nn.Linear(d_model, kv_heads * self.d_head, bias=in_bias)
        self.w_v = nn.Linear(d_model, kv_heads * self.d_head, bias=in_bias)
        self.w_o = nn.Linear(width, d_model, bias=bias)
        self.q_norm = qk_norm
        self.k_norm = None if qk_norm is None else copy.deepcopy(qk_norm)
        self.dropout = nn.Dropout(dropout)

    def split_heads(self, x: torch.Tensor, heads: int | None = None) -> torch.Tensor:
        """``[B, L, heads * d_head] -> [B, heads, L, d_head]`` (``heads`` defaults to ``num_heads``)."""
        batch, length, _ = x.shape
        return x.view(batch, length, heads or self.num_heads, self.d_head).transpose(1, 2)

    def merge_heads(self, x: torch.Tensor) -> torch.Tensor:
        """Concat(head_1..head_h): ``[B, H, L, d_head] -> [B, L, H * d_head]`` (= d_model unless ``head_dim``)."""
        return x.transpose(1, 2).reshape(x.shape[0], x.shape[2], self.num_heads * self.d_head)

    def _rotated(self, x: torch.Tensor, start: int, norm: nn.Module | None) -> torch.Tensor:
        """Each head's q or k, normalised (``qk_norm``) then turned by position, as the module and its positional
        scheme ask (RoPE)."""
        x = x if norm is None else norm(x)
        rotate = self.scheme.rotate
        return x if rotate is None else rotate(x, self.rope_base, start, self.rope_scaling)

    def keys_and_values(self, key, value, cache, name: str, start: int, static_keys: bool):
        """This call's keys and values ``[B, H_kv, Lk, d_head]``: projected, or with a KV cache, the stored
        ones extended by the new tokens' (cross-attention's, ``static_keys``, are projected once)."""
        if cache is not None and static_keys and cache.fixed(name) is not None:
            return cache.fixed(name)
        k = self._rotated(self.split_heads(self.w_k(key), self.kv_heads), start, self.k_norm)
        v = self.split_heads(self.w_v(value), self.kv_heads)
        if cache is None:
            return k, v
        if static_keys:
            cache.keep(name, k, v)
            return k, v
        return cache.extend(name, k, v, self.window)

    def score_bias(self, length_q: int, length_k: int, dtype: torch.dtype, query_start: int = 0) -> torch.Tensor | None:
        """The positional scheme's ``[H, Lq, Lk]`` bias on the scores (ALiBi's distance penalty), or None for a
        scheme that adds none. The keys end with the last query (self-attention), so they start at
        ``query_start + Lq - Lk``."""
        bias = self.scheme.score_bias
        if bias is None:
            return None
        return bias(self.num_heads, length_q, length_k, query_start, query_start + length_q - length_k).to(dtype)

    @property
    def scale(self) -> float:
        return 1.0 / math.sqrt(self.d_head) if self.scale_scores else 1.0

    def forward(
        self,
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        mask: torch.Tensor | None = None,
        record=None,
        name: str = "attn",
        need_weights: bool = True,
        static_keys: bool = False,
    ):
        cache = None if record is None else record.cache
        start = 0 if cache is None else cache.positions
        q = self._rotated(self.split_heads(self.w_q(query)), start, self.q_norm)
        k, v = self.keys_and_values(key, value, cache, name, start, static_keys)
        if self.kv_heads != self.num_heads:  # each key-value head serves a group of query heads
            group = self.num_heads // self.kv_heads
            k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        if record is not None and record.interventions:  # queries, keys or values patched from another pass
            q, k, v = (record.intervene(name, t, part) for t, part in ((q, "q"), (k, "k"), (v, "v")))
        bias = self.score_bias(q.shape[-2], k.shape[-2], q.dtype, start)
        if record is None and not need_weights and _fused_ok(mask):
            heads = _fused_attention(q, k, v, mask, bias, self.scale, self.dropout.p if self.training else 0.0)
            return self.w_o(self.merge_heads(heads)), None
        scores = attention_scores(q, k, self.scale, bias)
        weights = masked_softmax(scores, mask)
        heads = torch.matmul(self.dropout(weights), v)
        if record is not None:
            heads = record.intervene(name, heads)
        output = self.w_o(self.merge_heads(heads))
        if record is not None:
            record.add(name, weights, scores)
            for part, tensor in (("q", q), ("k", k), ("v", v), ("heads", heads), ("out", output)):
                record.capture(f"{name}.{part}", tensor)
        return output, weights


def _fused_ok(mask: torch.Tensor | None) -> bool:
    """The fused kernel is used only when every query row has an allowed key (it gives NaN otherwise)."""
    return mask is None or bool(mask.any(dim=-1).all())


def _fused_attention(q, k, v, mask, bias, scale: float, dropout_p: float) -> torch.Tensor:
    """PyTorch's fused softmax(scale Q K^T + bias, masked) V, ``[B, H, Lq, d_head]``."""
    attn_mask = mask
    if bias is not None:
        attn_mask = bias if mask is None else torch.where(mask, bias, float("-inf"))
    return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, dropout_p=dropout_p, scale=scale)
