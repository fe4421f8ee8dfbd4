"""Position-wise feed-forward network and the encoder and decoder layers."""

from __future__ import annotations

import functools
from collections.abc import Callable

import torch
from torch import nn
from torch.nn import functional as F

from .attention import MultiHeadAttention
from .config import GATED_ACTIVATIONS, TransformerConfig
from .norms import make_norm
from .record import ForwardRecord, capture


_ACTIVATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "relu": F.relu,
    "gelu": F.gelu,
    "gelu_tanh": functools.partial(F.gelu, approximate="tanh"),
    "swiglu": F.silu,  # the gate's activation: SiLU(z) = z sigmoid(z)
    "geglu": functools.partial(F.gelu, approximate="tanh"),
}


class FeedForward(nn.Module):
    """FFN(x) = act(x W_1 + b_1) W_2 + b_2, applied to each position alone.

    ``[B, L, d_model] -> [B, L, d_ff] -> [B, L, d_model]``; act is ReLU (the paper), GELU
    (exact, BERT's) or "gelu_tanh" (GELU's tanh approximation, GPT-2's).

    Gated (``activation`` "swiglu", Llama's, or "geglu"): a second input projection W_gate
    decides, unit by unit, how much of x W_1 passes:

        FFN(x) = (SiLU(x W_gate) * x W_1) W_2          (SwiGLU; GeGLU puts GELU in SiLU's place)

    with SiLU(z) = z sigmoid(z) and * elementwise: three ``d_model x d_ff`` matrices where the
    ungated network has two. ``linear1`` is W_1 (Llama's ``up_proj``), ``gate`` W_gate
    (``gate_proj``), ``linear2`` W_2 (``down_proj``); ``gate`` is None when ungated.
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0, activation: str = "relu", bias: bool = True):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff, bias=bias)
        self.gate = nn.Linear(d_model, d_ff, bias=bias) if activation in GATED_ACTIVATIONS else None
        self.linear2 = nn.Linear(d_ff, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)
        self.activation = _ACTIVATIONS[activation]

    def hidden(self, x: torch.Tensor) -> torch.Tensor:
        """The activated hidden units ``[B, L, d_ff]``: act(x W_1 + b_1), or gated,
        act(x W_gate + b_gate) * (x W_1 + b_1)."""
        if self.gate is not None:
            return self.activation(self.gate(x)) * self.linear1(x)
        return self.activation(self.linear1(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear2(self.dropout(self.hidden(x)))


def _attention(config: TransformerConfig, positional: str) -> MultiHeadAttention:
    return MultiHeadAttention(
        config.d_model,
        config.num_heads,
        bias=config.bias,
        dropout=config.dropout,
        positional=positional,
        rope_base=config.pe_base,
        scale_scores=config.scale_scores,
        num_kv_heads=config.num_kv_heads,
        window=config.attention_window,
        head_dim=config.head_dim,
        qkv_bias=config.qkv_bias,
        qk_norm=make_norm(config, config.d_head) if config.qk_norm else None,
        rope_scaling=config.rope_scaling,
    )


def _feed_forward(config: TransformerConfig) -> FeedForward | None:
    """The layer's FFN, or None in an attention-only model (``feed_forward=False``)."""
    if not config.feed_forward:
        return None
    return FeedForward(config.d_model, config.d_ff, config.dropout, config.activation, config.bias)


def _layer_norm(config: TransformerConfig) -> nn.Module:
    return make_norm(config)


def _normed(norm: nn.Module, x: torch.Tensor, record: ForwardRecord | None, name: str) -> torch.Tensor:
    """LN(x) (or RMSNorm(x)), with its input and output captured as ``name.in`` and ``name.out``."""
    return capture(record, f"{name}.out", norm(capture(record, f"{name}.in", x)))


def _fed_forward(ffn: FeedForward, x: torch.Tensor, record: ForwardRecord | None, name: str) -> torch.Tensor:
    """FFN(x), with the activated hidden units ``name.hidden`` and the output ``name.out`` captured."""
    hidden = capture(record, f"{name}.hidden", ffn.hidden(x))
    return capture(record, f"{name}.out", ffn.linear2(ffn.dropout(hidden)))


def residual_step(
    x: torch.Tensor,
    sublayer: Callable[[torch.Tensor], torch.Tensor],
    norm: nn.Module,
    dropout: nn.Dropout,
    norm_first: bool,
    record: ForwardRecord | None,
    norm_name: str,
    after: str,
) -> torch.Tensor:
    """One sublayer with its residual connection and LayerNorm, ``[B, L, d] -> [B, L, d]``.

    Pre-LN: x + Dropout(Sublayer(LN(x))). Post-LN (the paper): LN(x + Dropout(Sublayer(x))).
    The LayerNorm's input and output are captured under ``norm_name``, the result under ``after``.
    """
    if norm_first:
        x = x + dropout(sublayer(_normed(norm, x, record, norm_name)))
    else:
        x = _normed(norm, x + dropout(sublayer(x)), record, norm_name)
    return capture(record, after, x)


class EncoderLayer(nn.Module):
    """Self-attention then feed-forward, each wrapped in a residual and LayerNorm.

    Post-LN (the paper, BERT): x = LN(x + Sublayer(x)). Pre-LN: x = x + Sublayer(LN(x)).
    ``x [B, L, d_model] -> [B, L, d_model]``; ``mask`` broadcasts to ``[B, H, L, L]``.
    With a record, the weights go under ``name.self_attn`` and the internals of
    ``ForwardRecord`` under ``name.*``. Attention-only (``config.feed_forward=False``):
    no feed-forward sublayer, ``norm2`` or ``dropout2`` (they are None); the layer's
    output is still recorded as ``name.after_feed_forward`` (= ``name.after_self_attn``).
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.norm_first = config.norm_first
        self.self_attn = _attention(config, config.positional)
        self.feed_forward = _feed_forward(config)
        self.norm1 = _layer_norm(config)
        self.norm2 = _layer_norm(config) if config.feed_forward else None
        self.dropout1 = nn.Dropout(config.dropout)
        self.dropout2 = nn.Dropout(config.dropout) if config.feed_forward else None

    def attend(self, x: torch.Tensor, mask, record, name) -> torch.Tensor:
        """The self-attention sublayer's output on its input ``x`` (already normalised when pre-LN)."""
        capture(record, f"{name}.self_attn.input", x)
        return self.self_attn(x, x, x, mask, record, f"{name}.self_attn", need_weights=False)[0]

    def forward(
        self,
        x: torch.Tensor,
        mask: torch.Tensor | None = None,
        record: ForwardRecord | None = None,
        name: str = "layer",
    ) -> torch.Tensor:
        capture(record, f"{name}.input", x)
        x = residual_step(
            x,
            lambda h: self.attend(h, mask, record, name),
            self.norm1,
            self.dropout1,
            self.norm_first,
            record,
            f"{name}.norm1",
            f"{name}.after_self_attn",
        )
        if self.feed_forward is None:
            return capture(record, f"{name}.after_feed_forward", x)
        return residual_step(
            x,
            lambda h: _fed_forward(self.feed_forward, h, record, f"{name}.feed_forward"),
            self.norm2,
            self.dropout2,
            self.norm_first,
            record,
            f"{name}.norm2",
            f"{name}.after_feed_forward",
        )


class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention over the encoder output, feed-forward.

    Each sublayer has a residual and a LayerNorm (post-LN or pre-LN, as in
    ``EncoderLayer``). ``x [B, Lt, d]``, ``memory [B, Ls, d]``; ``self_mask``
    broadcasts to ``[B, H, Lt, Lt]`` (usually causal) and ``memory_mask`` to
    ``[B, H, Lt, Ls]`` (source padding). Returns ``[B, Lt, d]``. Attention-only
    (``config.feed_forward=False``): no feed-forward, ``norm3`` or ``dropout3``; the output
    is still recorded as ``name.after_feed_forward`` (= ``name.after_cross_attn``).
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.norm_first = config.norm_first
        self.self_attn = _attention(config, config.positional)
        self.cross_attn = _attention(config, "none")
        self.feed_forward = _feed_forward(config)
        self.norm1 = _layer_norm(config)
        self.norm2 = _layer_norm(config)
        self.norm3 = _layer_norm(config) if config.feed_forward else None
        self.dropout1 = nn.Dropout(config.dropout)
        self.dropout2 = nn.Dropout(config.dropout)
        self.dropout3 = nn.Dropout(config.dropout) if config.feed_forward else None

    def self_block(self, x, mask, record, name) -> torch.Tensor:
        capture(record, f"{name}.self_attn.input", x)
        return self.self_attn(x, x, x, mask, record, f"{name}.self_attn", need_weights=False)[0]

    def cross_block(self, x, memory, mask, record, name) -> torch.Tensor:
        capture(record, f"{name}.cross_attn.input", x)
        return self.cross_attn(
            x, memory, memory, mask, record, f"{name}.cross_attn", need_weights=False, static_keys=True
        )[0]

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        self_mask: torch.Tensor | None = None,
        memory_mask: torch.Tensor | None = None,
        record: ForwardRecord | None = None,
        name: str = "layer",
    ) -> torch.Tensor:
        capture(record, f"{name}.input", x)
        x = residual_step(
            x,
            lambda h: self.self_block(h, self_mask, record, name),
            self.norm1,
            self.dropout1,
            self.norm_first,
            record,
            f"{name}.norm1",
            f"{name}.after_self_attn",
        )
        x = residual_step(
            x,
            lambda h: self.cross_block(h, memory, memory_mask, record, name),
            self.norm2,
            self.dropout2,
            self.norm_first,
            record,
            f"{name}.norm2",
            f"{name}.after_cross_attn",
        )
        if self.feed_forward is None:
            return capture(record, f"{name}.after_feed_forward", x)
        return residual_step(
            x,
            lambda h: _fed_forward(self.feed_forward, h, record, f"{name}.feed_forward"),
            self.norm3,
            self.dropout3,
            self.norm_first,
            record,
            f"{name}.norm3",
            f"{name}.after_feed_forward",
        )
