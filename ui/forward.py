"""Forward passes of any model by spec, as float32 numpy views of the forward record, kept in the one
computation cache (``ui.cache.computation``): shared by every session and page, read-only."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from . import runtime  # noqa: F401  (torch threads are set before any torch work)
import torch

from transformer import PAD_ID, TransformerConfig
from transformer.record import select_names
from transformer.spec import ModelSpec

from .cache import computation
from .models import load_model


def stack_config(layers: int, **fields) -> TransformerConfig:
    """A config for a self-attention stack of ``layers`` layers, read the same by encoder-only and
    decoder-only models (so, with one seed, both kinds have the same weights)."""
    return TransformerConfig(num_encoder_layers=layers, num_decoder_layers=layers, **fields)


def random_stack(config: TransformerConfig, seed: int, causal: bool) -> ModelSpec:
    """A random self-attention stack: decoder-only (GPT-style) when causal, else encoder-only (BERT-style)."""
    return ModelSpec.random(config, seed, "decoder-only" if causal else "encoder-only")


def stack_of(kind: str) -> str:
    """The record prefix of a model's self-attention stack (the encoder's, for an encoder-decoder)."""
    return "decoder" if kind == "decoder-only" else "encoder"


@dataclass(frozen=True)
class ForwardView:
    """One forward pass on one input (batch element 0), float32 numpy, by record name.

    ``weights`` and ``scores`` ``[H, Lq, Lk]`` (scores before the mask), ``masks``
    ``[Lq, Lk]`` bool (True = may attend) per self-attention name, ``internals`` as in
    ``ForwardRecord`` without the batch axis (empty unless asked for),
    ``probabilities`` ``[L, V]`` (None for a model without an output head); ``model`` and
    ``tokens`` (the input's, as shown) label the figures, as the record does; ``hidden``
    ``[L, d_model]`` is the model's last hidden state (for an encoder-decoder the memory
    is not kept: this is the decoder's output).
    """

    weights: dict[str, np.ndarray]
    scores: dict[str, np.ndarray]
    masks: dict[str, np.ndarray]
    internals: dict[str, np.ndarray]
    probabilities: np.ndarray | None
    model: str
    tokens: tuple[str, ...] = ()
    hidden: np.ndarray | None = None

    def names(self, stack: str, kind: str = "self_attn") -> list[str]:
        """The names of one stack's maps of one kind, in layer order."""
        return select_names(self.weights, stack, kind)

    def stacked(self, stack: str, kind: str = "self_attn", scores: bool = False) -> np.ndarray:
        """All layers of one stack and kind, ``[layers, H, Lq, Lk]``."""
        source = self.scores if scores else self.weights
        return np.stack([source[n] for n in self.names(stack, kind)])


def _numpy(tensors: dict[str, torch.Tensor]) -> dict[str, np.ndarray]:
    return {name: t[0].float().numpy() for name, t in tensors.items()}


def _self_mask(length: int, causal: bool, real: np.ndarray) -> np.ndarray:
    """``[L, L]`` bool: key j is real and, when causal, j <= i."""
    mask = np.broadcast_to(real[None, :], (length, length))
    return mask & np.tri(length, dtype=bool) if causal else mask.copy()


@computation
def run_model(
    spec: ModelSpec,
    ids: tuple[int, ...],
    target: tuple[int, ...] = (),
    causal: bool | None = None,
    pad_keys: bool = False,
    internals: bool = False,
    tokens: tuple[str, ...] = (),
) -> ForwardView:
    """The model ``spec`` names on token ``ids`` (and ``target`` ids for an encoder-decoder).

    ``causal`` None keeps the model's own mask (causal for decoder-only); True or False
    puts the look-ahead mask on or off a single-stack model. ``pad_keys`` hides keys
    whose id is the padding id (0). An encoder-decoder's decoder is always causal.
    The view is shared: its arrays are read-only.
    """
    loaded = load_model(spec)
    model, kind = loaded.module, loaded.kind
    id_tensor = torch.tensor([ids])
    real = (id_tensor[0] != PAD_ID).numpy() if pad_keys else np.ones(len(ids), dtype=bool)
    key_mask = torch.from_numpy(real)[None, None, None, :] if pad_keys else None
    asks = dict(return_scores=True, return_internals=internals)
    with torch.inference_mode():
        if kind == "encoder-decoder":
            out = model(id_tensor, torch.tensor([target or (1,)]), src_mask=key_mask, **asks)
            causal = False
        elif kind == "decoder-only":
            causal = True if causal is None else causal
            out = model(id_tensor, key_mask=key_mask, causal=causal, **asks)
        else:
            causal = bool(causal)
            out = model(
                id_tensor, attention_mask=torch.from_numpy(real)[None] if pad_keys else None, causal=causal, **asks
            )
    record = out.attention
    record.model, record.tokens = loaded.label, tuple(tokens)
    stack = stack_of(kind)
    masks = {name: _self_mask(len(ids), causal, real) for name in record.names(stack, "self_attn")}
    probabilities = None if out.logits is None else torch.softmax(out.logits[0], -1).float().numpy()
    return ForwardView(
        _numpy(record.weights),
        _numpy(record.scores),
        masks,
        _numpy(record.internals),
        probabilities,
        record.model,
        record.tokens,
        out.hidden[0].float().numpy(),
    )


def self_attention_maps(
    spec: ModelSpec, ids: tuple[int, ...], causal: bool | None = None, pad_keys: bool = False
) -> np.ndarray:
    """Every layer's self-attention weights ``[L, H, T, T]`` of the model's (first) stack on one sentence."""
    view = run_model(spec, tuple(ids), causal=causal, pad_keys=pad_keys)
    return view.stacked(stack_of(load_model(spec).kind))


@dataclass(frozen=True)
class EncoderReading:
    """An encoder-only model on one input, read-only float32: ``weights`` ``[layers, H, T, T]`` (every
    self-attention map) and ``hidden`` ``[T, d_model]`` (the last hidden state)."""

    weights: np.ndarray
    hidden: np.ndarray


@computation
def encoder_reading(spec: ModelSpec, ids: tuple[int, ...]) -> EncoderReading:
    """The encoder-only model ``spec`` names on ``ids`` (bidirectional, no padding): attention maps and
    hidden state, without the scores ``run_model`` also keeps. Shared: its arrays are read-only."""
    loaded = load_model(spec)
    if loaded.kind != "encoder-only":
        raise ValueError(f"{loaded.label} is {loaded.kind}; encoder_reading reads encoder-only models")
    with torch.inference_mode():
        out = loaded.module(torch.tensor([ids]), return_attention=True)
    weights = out.attention.stacked("encoder")[:, 0].float().numpy()
    return EncoderReading(weights, out.hidden[0].float().numpy().copy())
