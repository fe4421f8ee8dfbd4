"""What one forward pass carries: its record, its interventions, its KV cache, and its causal mask."""

from __future__ import annotations

import torch
from torch import nn

from .interventions import check_names
from .kv_cache import KVCache
from .masks import window_mask
from .record import ForwardRecord


def attention_names(model: nn.Module) -> list[str]:
    """The record names of every attention sublayer of a model, in the order a forward pass meets them."""
    names = []
    for stack in ("encoder", "decoder"):
        for i, layer in enumerate(getattr(getattr(model, stack, None), "layers", ())):
            names += [f"{stack}.layers.{i}.{kind}" for kind in ("self_attn", "cross_attn") if hasattr(layer, kind)]
    return names


def new_record(
    return_attention: bool,
    return_scores: bool = False,
    return_internals: bool = False,
    interventions: tuple = (),
    cache: KVCache | None = None,
) -> ForwardRecord | None:
    """A fresh record when anything is asked for or there are interventions or a cache to carry, else None
    (and attention may run fused)."""
    asked = return_attention or return_scores or return_internals
    if not (asked or interventions or cache is not None):
        return None
    return ForwardRecord(
        keep_scores=return_scores,
        keep_internals=return_internals,
        interventions=tuple(interventions),
        asked=asked,
        cache=cache,
    )


def pass_record(
    model: nn.Module,
    return_attention: bool,
    return_scores: bool,
    return_internals: bool,
    interventions,
    cache: KVCache | None = None,
) -> ForwardRecord | None:
    """The record of one forward pass of ``model``: what it is asked to keep, the interventions it carries
    (their names checked against the model's attention sublayers) and the KV cache, or None."""
    if cache is not None and not isinstance(cache, KVCache):
        raise ValueError(f"cache must be a KVCache (or None), got {type(cache).__name__}.")
    interventions = check_names(interventions, attention_names(model)) if interventions else ()
    return new_record(return_attention, return_scores, return_internals, interventions, cache)


def self_attention_mask(
    model: nn.Module, length: int, stack: str, cache: KVCache | None, device: torch.device | None = None
) -> torch.Tensor:
    """The causal (and, with ``attention_window``, sliding-window) mask ``[Lq, Lk]`` of a stack's
    self-attention for ``length`` new tokens: after a cache's ``positions`` tokens, over the keys it keeps."""
    if cache is None:
        return window_mask(length, length, model.config.attention_window, device=device)
    stored = cache.stored(f"{stack}.layers.0.self_attn")
    return window_mask(
        length, stored + length, model.config.attention_window, cache.positions, cache.positions - stored, device
    )


def returned(record: ForwardRecord | None) -> ForwardRecord | None:
    """The record a model returns: None when it only carried interventions or a cache."""
    return record if record is not None and record.asked else None
