"""Position-wise feed-forward network and the encoder and decoder layers."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from .attention import MultiHeadAttention
from .config import TransformerConfig
from .record import AttentionRecord


class FeedForward(nn.Module):
    """FFN(x) = act(x W_1 + b_1) W_2 + b_2, applied to each position alone.

    ``[B, L, d_model] -> [B, L, d_ff] -> [B, L, d_model]``; act is ReLU (the paper) or GELU.
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0, activation: str = "relu",
                 bias: bool = True):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff, bias=bias)
        self.linear2 = nn.Linear(d_ff, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)
        self.activation = F.gelu if activation == "gelu" else F.relu

    def hidden(self, x: torch.Tensor) -> torch.Tensor:
        """The activated hidden units act(x W_1 + b_1), ``[B, L, d_ff]``."""
        return self.activation(self.linear1(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear2(self.dropout(self.hidden(x)))


def _attention(config: TransformerConfig, positional: str) -> MultiHeadAttention:
    return MultiHeadAttention(config.d_model, config.num_heads, bias=config.bias,
                              dropout=config.dropout, positional=positional,
                              rope_base=config.pe_base, scale_scores=config.scale_scores)


def _record(record: AttentionRecord | None, name: str, result) -> torch.Tensor:
    """Store an attention call's weights (and scores) in the record; return its output."""
    if record is not None:
        record.add(name, result[1], result[2] if len(result) > 2 else None)
    return result[0]


class EncoderLayer(nn.Module):
    """Self-attention then feed-forward, each wrapped in a residual and LayerNorm.

    Post-LN (the paper): x = LN(x + Sublayer(x)). Pre-LN: x = x + Sublayer(LN(x)).
    ``x [B, L, d_model] -> [B, L, d_model]``; ``mask`` broadcasts to ``[B, H, L, L]``.
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.norm_first = config.norm_first
        self.self_attn = _attention(config, config.positional)
        self.feed_forward = FeedForward(config.d_model, config.d_ff, config.dropout,
                                        config.activation, config.bias)
        self.norm1 = nn.LayerNorm(config.d_model, eps=config.layer_norm_eps, bias=config.bias)
        self.norm2 = nn.LayerNorm(config.d_model, eps=config.layer_norm_eps, bias=config.bias)
        self.dropout1 = nn.Dropout(config.dropout)
        self.dropout2 = nn.Dropout(config.dropout)

    def attend(self, x: torch.Tensor, mask, record, name) -> torch.Tensor:
        keep = record is not None and record.keep_scores
        result = self.self_attn(x, x, x, mask, return_scores=keep)
        return self.dropout1(_record(record, f"{name}.self_attn", result))

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None,
                record: AttentionRecord | None = None, name: str = "layer") -> torch.Tensor:
        if self.norm_first:
            x = x + self.attend(self.norm1(x), mask, record, name)
            return x + self.dropout2(self.feed_forward(self.norm2(x)))
        x = self.norm1(x + self.attend(x, mask, record, name))
        return self.norm2(x + self.dropout2(self.feed_forward(x)))


class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention over the encoder output, feed-forward.

    Each sublayer has a residual and a LayerNorm (post-LN or pre-LN, as in
    ``EncoderLayer``). ``x [B, Lt, d]``, ``memory [B, Ls, d]``; ``self_mask``
    broadcasts to ``[B, H, Lt, Lt]`` (usually causal) and ``memory_mask`` to
    ``[B, H, Lt, Ls]`` (source padding). Returns ``[B, Lt, d]``.
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.norm_first = config.norm_first
        self.self_attn = _attention(config, config.positional)
        self.cross_attn = _attention(config, "none")
        self.feed_forward = FeedForward(config.d_model, config.d_ff, config.dropout,
                                        config.activation, config.bias)
        self.norm1 = nn.LayerNorm(config.d_model, eps=config.layer_norm_eps, bias=config.bias)
        self.norm2 = nn.LayerNorm(config.d_model, eps=config.layer_norm_eps, bias=config.bias)
        self.norm3 = nn.LayerNorm(config.d_model, eps=config.layer_norm_eps, bias=config.bias)
        self.dropout1 = nn.Dropout(config.dropout)
        self.dropout2 = nn.Dropout(config.dropout)
        self.dropout3 = nn.Dropout(config.dropout)

    def self_block(self, x, mask, record, name) -> torch.Tensor:
        keep = record is not None and record.keep_scores
        result = self.self_attn(x, x, x, mask, return_scores=keep)
        return self.dropout1(_record(record, f"{name}.self_attn", result))

    def cross_block(self, x, memory, mask, record, name) -> torch.Tensor:
        keep = record is not None and record.keep_scores
        result = self.cross_attn(x, memory, memory, mask, return_scores=keep)
        return self.dropout2(_record(record, f"{name}.cross_attn", result))

    def forward(self, x: torch.Tensor, memory: torch.Tensor, self_mask: torch.Tensor | None = None,
                memory_mask: torch.Tensor | None = None, record: AttentionRecord | None = None,
                name: str = "layer") -> torch.Tensor:
        if self.norm_first:
            x = x + self.self_block(self.norm1(x), self_mask, record, name)
            x = x + self.cross_block(self.norm2(x), memory, memory_mask, record, name)
            return x + self.dropout3(self.feed_forward(self.norm3(x)))
        x = self.norm1(x + self.self_block(x, self_mask, record, name))
        x = self.norm2(x + self.cross_block(x, memory, memory_mask, record, name))
        return self.norm3(x + self.dropout3(self.feed_forward(x)))
