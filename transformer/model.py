"""Stacks and whole models: encoder, decoder, encoder-decoder Transformer, decoder-only LM."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn

from .config import TransformerConfig
from .layers import DecoderLayer, EncoderLayer
from .masks import causal_mask
from .positional import LearnedEncoding, SinusoidalEncoding
from .record import AttentionRecord


class InputEmbedding(nn.Module):
    """x = Embedding(tokens) * sqrt(d_model) + PE: ``[B, L] ids -> [B, L, d_model]``.

    The positional term is the sinusoidal or learned table; rotary, ALiBi and
    "none" add nothing here (rotary and ALiBi act inside attention).
    """

    def __init__(self, vocab_size: int, config: TransformerConfig):
        super().__init__()
        self.scale = math.sqrt(config.d_model)
        self.max_len = config.max_len
        self.tokens = nn.Embedding(vocab_size, config.d_model)
        self.position: nn.Module | None = None
        if config.positional == "sinusoidal":
            self.position = SinusoidalEncoding(config.max_len, config.d_model, config.pe_base)
        elif config.positional == "learned":
            self.position = LearnedEncoding(config.max_len, config.d_model)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        if tokens.shape[1] > self.max_len:
            raise ValueError(f"{tokens.shape[1]} tokens exceed max_len={self.max_len}; "
                             f"shorten the input or raise max_len.")
        x = self.tokens(tokens) * self.scale
        if self.position is not None:
            x = self.position(x)
        return self.dropout(x)


class Encoder(nn.Module):
    """N encoder layers (plus a final LayerNorm when pre-LN): ``[B, L, d] -> [B, L, d]``."""

    def __init__(self, config: TransformerConfig, num_layers: int):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(config) for _ in range(num_layers))
        self.norm = nn.LayerNorm(config.d_model, eps=config.layer_norm_eps) if config.norm_first else None

    def forward(self, x, mask=None, record: AttentionRecord | None = None, name: str = "encoder"):
        for i, layer in enumerate(self.layers):
            x = layer(x, mask, record, f"{name}.layers.{i}")
        return x if self.norm is None else self.norm(x)


class Decoder(nn.Module):
    """N decoder layers (plus a final LayerNorm when pre-LN): ``[B, Lt, d] -> [B, Lt, d]``."""

    def __init__(self, config: TransformerConfig, num_layers: int):
        super().__init__()
        self.layers = nn.ModuleList(DecoderLayer(config) for _ in range(num_layers))
        self.norm = nn.LayerNorm(config.d_model, eps=config.layer_norm_eps) if config.norm_first else None

    def forward(self, x, memory, self_mask=None, memory_mask=None,
                record: AttentionRecord | None = None, name: str = "decoder"):
        for i, layer in enumerate(self.layers):
            x = layer(x, memory, self_mask, memory_mask, record, f"{name}.layers.{i}")
        return x if self.norm is None else self.norm(x)


@dataclass
class ModelOutput:
    """Logits ``[B, L, vocab]`` and, when asked for, the attention record."""

    logits: torch.Tensor
    attention: AttentionRecord | None = None


def _new_record(return_attention: bool, return_scores: bool) -> AttentionRecord | None:
    return AttentionRecord(keep_scores=return_scores) if (return_attention or return_scores) else None


class Transformer(nn.Module):
    """The encoder-decoder of "Attention Is All You Need".

    ``src [B, Ls]`` and ``tgt [B, Lt]`` token ids -> logits ``[B, Lt, tgt_vocab]``.
    ``src_mask`` is a key-padding mask for the source (``[B, 1, 1, Ls]``, True =
    real token); the decoder's self-attention is always causal.
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.config = config
        self.src_embed = InputEmbedding(config.src_vocab_size, config)
        self.tgt_embed = InputEmbedding(config.tgt_vocab_size, config)
        self.encoder = Encoder(config, config.num_encoder_layers)
        self.decoder = Decoder(config, config.num_decoder_layers)
        self.generator = nn.Linear(config.d_model, config.tgt_vocab_size)

    def encode(self, src, src_mask=None, record=None) -> torch.Tensor:
        return self.encoder(self.src_embed(src), src_mask, record)

    def decode(self, tgt, memory, src_mask=None, record=None) -> torch.Tensor:
        self_mask = causal_mask(tgt.shape[1], tgt.device)
        return self.decoder(self.tgt_embed(tgt), memory, self_mask, src_mask, record)

    def forward(self, src: torch.Tensor, tgt: torch.Tensor, src_mask: torch.Tensor | None = None,
                return_attention: bool = False, return_scores: bool = False) -> ModelOutput:
        record = _new_record(return_attention, return_scores)
        memory = self.encode(src, src_mask, record)
        logits = self.generator(self.decode(tgt, memory, src_mask, record))
        return ModelOutput(logits, record)


class DecoderOnlyLM(nn.Module):
    """A stack of self-attention layers with a language-model head (GPT-style).

    ``tokens [B, L] -> logits [B, L, tgt_vocab]``. Causal by default; with
    ``causal=False`` the same weights act as a bidirectional encoder (BERT-style).
    Record names: ``decoder.layers.{i}.self_attn``.
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.config = config
        self.embed = InputEmbedding(config.tgt_vocab_size, config)
        self.decoder = Encoder(config, config.num_decoder_layers)
        self.generator = nn.Linear(config.d_model, config.tgt_vocab_size)

    def forward(self, tokens: torch.Tensor, key_mask: torch.Tensor | None = None, causal: bool = True,
                return_attention: bool = False, return_scores: bool = False) -> ModelOutput:
        record = _new_record(return_attention, return_scores)
        mask = causal_mask(tokens.shape[1], tokens.device) if causal else None
        if key_mask is not None:
            mask = key_mask if mask is None else mask & key_mask
        hidden = self.decoder(self.embed(tokens), mask, record, "decoder")
        return ModelOutput(self.generator(hidden), record)
