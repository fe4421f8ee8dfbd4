"""Stacks and whole models: encoder-decoder (the paper), decoder-only (GPT), encoder-only (BERT).

The vision kind (a ViT) is in ``vision``; ``architectures.ARCHITECTURES`` names them all by kind.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F

from .config import TransformerConfig
from .layers import DecoderLayer, EncoderLayer
from .norms import make_norm
from .kv_cache import KVCache
from .positional_schemes import position_table
from .passes import pass_record, returned, self_attention_mask
from .record import ForwardRecord, capture
from .embedding import Embedding


class InputEmbedding(nn.Module):
    """x = E[tokens] * s + PE (+ T[token_types]), then LayerNorm if asked, then dropout.

    ``[B, L] ids -> [B, L, d_model]``. ``s = sqrt(d_model)`` (the paper) or 1
    (``embed_scale=False``, as in BERT). The positional term is the table of
    ``config.positional``'s scheme (sinusoidal, learned); rotary, ALiBi and "none" add nothing here. Token-type
    (segment) embeddings exist when ``type_vocab_size > 0``; missing type ids are 0.
    """

    def __init__(self, vocab_size: int, config: TransformerConfig):
        super().__init__()
        self.scale = math.sqrt(config.d_model) if config.embed_scale else 1.0
        self.max_len = config.max_len
        self.tokens = Embedding(vocab_size, config.d_model)
        self.position = position_table(config.positional, config.max_len, config.d_model, config.pe_base)
        self.token_types = Embedding(config.type_vocab_size, config.d_model) if config.type_vocab_size else None
        self.norm = make_norm(config) if config.embed_norm else None
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, tokens: torch.Tensor, token_types: torch.Tensor | None = None, start: int = 0) -> torch.Tensor:
        """``start``: the position of the first token (after those a KV cache holds)."""
        if start + tokens.shape[1] > self.max_len:
            raise ValueError(
                f"{start + tokens.shape[1]} tokens exceed max_len={self.max_len}; shorten the input or raise max_len."
            )
        x = self.tokens(tokens) * self.scale
        if self.position is not None:
            x = self.position(x, start)
        if self.token_types is not None:
            x = x + self.token_types(torch.zeros_like(tokens) if token_types is None else token_types)
        if self.norm is not None:
            x = self.norm(x)
        return self.dropout(x)


def _final_norm(config: TransformerConfig) -> nn.Module | None:
    """The LayerNorm (or RMSNorm) after the last layer of a pre-LN stack (post-LN layers end in one already)."""
    return make_norm(config) if config.norm_first else None


class SelfAttentionStack(nn.Module):
    """N self-attention layers (plus a final LayerNorm when pre-LN): ``[B, L, d] -> [B, L, d]``.

    The encoder of the encoder-decoder and of an encoder-only model; with a causal
    mask, the stack of a decoder-only model (decoder layers without cross-attention).
    """

    def __init__(self, config: TransformerConfig, num_layers: int):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(config) for _ in range(num_layers))
        self.norm = _final_norm(config)

    def forward(self, x, mask=None, record: ForwardRecord | None = None, name: str = "encoder"):
        capture(record, f"{name}.embed", x)
        for i, layer in enumerate(self.layers):
            x = layer(x, mask, record, f"{name}.layers.{i}")
        return x if self.norm is None else capture(record, f"{name}.norm.out", self.norm(x))


class Encoder(SelfAttentionStack):
    """The encoder: a bidirectional (unless masked) ``SelfAttentionStack``."""


class Decoder(nn.Module):
    """N decoder layers (plus a final LayerNorm when pre-LN): ``[B, Lt, d] -> [B, Lt, d]``."""

    def __init__(self, config: TransformerConfig, num_layers: int):
        super().__init__()
        self.layers = nn.ModuleList(DecoderLayer(config) for _ in range(num_layers))
        self.norm = _final_norm(config)

    def forward(
        self, x, memory, self_mask=None, memory_mask=None, record: ForwardRecord | None = None, name: str = "decoder"
    ):
        capture(record, f"{name}.embed", x)
        for i, layer in enumerate(self.layers):
            x = layer(x, memory, self_mask, memory_mask, record, f"{name}.layers.{i}")
        return x if self.norm is None else capture(record, f"{name}.norm.out", self.norm(x))


class OutputHead(nn.Module):
    """logits = h W^T + b ``[B, L, V]``: its own ``[V, d]`` matrix ("linear"), or the token
    embedding's, shared ("tied", as in BERT's masked-LM head and GPT-2); no b when ``bias=False`` or
    ``output_bias=False``."""

    def __init__(self, config: TransformerConfig, vocab_size: int, embedding: nn.Embedding):
        super().__init__()
        self.tied = config.output_head == "tied"
        self.embedding = [embedding]  # a plain list: the shared matrix stays registered once, on the embedding
        self.weight = None if self.tied else nn.Parameter(torch.empty(vocab_size, config.d_model))
        self.bias = nn.Parameter(torch.zeros(vocab_size)) if config.bias and config.output_bias else None

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        weight = self.embedding[0].weight if self.tied else self.weight
        return F.linear(hidden, weight, self.bias)


def _output_head(config: TransformerConfig, vocab_size: int, embedding: nn.Embedding) -> OutputHead | None:
    return None if config.output_head == "none" else OutputHead(config, vocab_size, embedding)


@dataclass
class ModelOutput:
    """Logits ``[B, L, vocab]`` (None for a model without an output head), the last
    hidden state ``[B, L, d_model]``, when asked for, the forward record, and the KV cache
    the call was given (now holding its tokens too)."""

    logits: torch.Tensor | None
    attention: ForwardRecord | None = None
    hidden: torch.Tensor | None = None
    cache: KVCache | None = None


def _logits(head: OutputHead | None, hidden: torch.Tensor) -> torch.Tensor | None:
    return None if head is None else head(hidden)


class Transformer(nn.Module):
    """The encoder-decoder of "Attention Is All You Need".

    ``src [B, Ls]`` and ``tgt [B, Lt]`` token ids -> logits ``[B, Lt, tgt_vocab]``.
    ``src_mask`` is a key-padding mask for the source (``[B, 1, 1, Ls]``, True =
    real token); the decoder's self-attention is always causal. Record names:
    ``encoder.layers.{i}.self_attn``, ``decoder.layers.{i}.self_attn|cross_attn``.
    """

    kind = "encoder-decoder"

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.config = config
        self.src_embed = InputEmbedding(config.src_vocab_size, config)
        self.tgt_embed = InputEmbedding(config.tgt_vocab_size, config)
        if config.share_embeddings:  # the paper: one token matrix for source, target (and a tied output layer)
            self.tgt_embed.tokens.weight = self.src_embed.tokens.weight
        self.encoder = Encoder(config, config.num_encoder_layers)
        self.decoder = Decoder(config, config.num_decoder_layers)
        self.generator = _output_head(config, config.tgt_vocab_size, self.tgt_embed.tokens)

    def encode(self, src, src_mask=None, record=None) -> torch.Tensor:
        return self.encoder(self.src_embed(src), src_mask, record)

    def decode(self, tgt, memory, src_mask=None, record=None) -> torch.Tensor:
        cache = None if record is None else record.cache
        self_mask = self_attention_mask(self, tgt.shape[1], "decoder", cache, tgt.device)
        start = 0 if cache is None else cache.positions
        return self.decoder(self.tgt_embed(tgt, start=start), memory, self_mask, src_mask, record)

    def forward(
        self,
        src: torch.Tensor,
        tgt: torch.Tensor,
        src_mask: torch.Tensor | None = None,
        return_attention: bool = False,
        return_scores: bool = False,
        return_internals: bool = False,
        interventions=(),
        cache: KVCache | None = None,
    ) -> ModelOutput:
        """With a ``cache``, ``tgt`` holds only the tokens after those already read; the source is encoded
        on the first call and kept in the cache."""
        record = pass_record(self, return_attention, return_scores, return_internals, interventions, cache)
        if cache is None or cache.memory is None:
            if record is not None:
                record.cache = None  # the encoder runs once: nothing of it goes into the cache
            memory = self.encode(src, src_mask, record)
            if record is not None:
                record.cache = cache
            if cache is not None:
                cache.memory = memory
        else:
            memory = cache.memory
        hidden = self.decode(tgt, memory, src_mask, record)
        if cache is not None:
            cache.positions += tgt.shape[1]
        return ModelOutput(_logits(self.generator, hidden), returned(record), hidden, cache)


class DecoderOnly(nn.Module):
    """A GPT-style decoder: causal self-attention layers and a language-model head.

    ``tokens [B, L] -> logits [B, L, tgt_vocab]``; uses ``num_decoder_layers`` and
    ``tgt_vocab_size``. Record names: ``decoder.layers.{i}.self_attn``.
    ``key_mask`` (``[B, 1, 1, L]``, True = real token) or ``attention_mask`` (``[B, L]``) hides padding. ``causal=False``
    lifts the look-ahead mask, to show what the mask does; the layers stay the same.
    """

    kind = "decoder-only"

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.config = config
        self.embed = InputEmbedding(config.tgt_vocab_size, config)
        self.decoder = SelfAttentionStack(config, config.num_decoder_layers)
        self.generator = _output_head(config, config.tgt_vocab_size, self.embed.tokens)

    def forward(
        self,
        tokens: torch.Tensor,
        key_mask: torch.Tensor | None = None,
        causal: bool = True,
        return_attention: bool = False,
        return_scores: bool = False,
        return_internals: bool = False,
        interventions=(),
        cache: KVCache | None = None,
        attention_mask: torch.Tensor | None = None,
    ) -> ModelOutput:
        """With a ``cache``, ``tokens`` are only those after the ones already read (causal, no padding).
        ``attention_mask [B, L]`` (True or 1 = real token, as transformers takes it) is ``key_mask`` in
        the tokenizer's shape."""
        if attention_mask is not None:
            padding = attention_mask.bool()[:, None, None, :]
            key_mask = padding if key_mask is None else key_mask & padding
        if cache is not None and (key_mask is not None or not causal):
            raise ValueError("a KV cache serves causal generation without padding; drop key_mask and causal=False.")
        record = pass_record(self, return_attention, return_scores, return_internals, interventions, cache)
        mask = self_attention_mask(self, tokens.shape[1], "decoder", cache, tokens.device) if causal else None
        if key_mask is not None:
            mask = key_mask if mask is None else mask & key_mask
        start = 0 if cache is None else cache.positions
        hidden = self.decoder(self.embed(tokens, start=start), mask, record, "decoder")
        if cache is not None:
            cache.positions += tokens.shape[1]
        return ModelOutput(_logits(self.generator, hidden), returned(record), hidden, cache)


class EncoderOnly(nn.Module):
    """A BERT-style encoder: bidirectional self-attention layers, an optional output head.

    ``input_ids [B, L]``, optional ``attention_mask [B, L]`` (True or 1 = real
    token) and ``token_type_ids [B, L]`` -> hidden ``[B, L, d_model]`` and logits
    ``[B, L, src_vocab]`` (None with ``output_head="none"``); uses
    ``num_encoder_layers`` and ``src_vocab_size``. Record names:
    ``encoder.layers.{i}.self_attn``. ``causal=True`` imposes a look-ahead mask, to
    show what the mask would do; the layers stay the same.
    """

    kind = "encoder-only"

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.config = config
        self.embed = InputEmbedding(config.src_vocab_size, config)
        self.encoder = Encoder(config, config.num_encoder_layers)
        self.generator = _output_head(config, config.src_vocab_size, self.embed.tokens)

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        causal: bool = False,
        return_attention: bool = False,
        return_scores: bool = False,
        return_internals: bool = False,
        interventions=(),
    ) -> ModelOutput:
        record = pass_record(self, return_attention, return_scores, return_internals, interventions)
        mask = None if attention_mask is None else attention_mask.bool()[:, None, None, :]
        if causal:
            look_ahead = self_attention_mask(self, input_ids.shape[1], "encoder", None, input_ids.device)
            mask = look_ahead if mask is None else mask & look_ahead
        hidden = self.encoder(self.embed(input_ids, token_type_ids), mask, record, "encoder")
        return ModelOutput(_logits(self.generator, hidden), returned(record), hidden)
