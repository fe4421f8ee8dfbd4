"""Reproducible initialisation from a local generator (sessions share the global RNG)."""

from __future__ import annotations

import math

import torch
from torch import nn

from .config import TransformerConfig
from .architectures import ARCHITECTURES
from .model import OutputHead


@torch.no_grad()
def init_parameters(module: nn.Module, seed: int) -> nn.Module:
    """Re-draw every parameter from ``torch.Generator().manual_seed(seed)``, in name order.

    Linear weights (and an untied output head): Xavier-uniform, U(-a, a) with a = sqrt(6 / (fan_in + fan_out)).
    Embeddings: N(0, 1 / d) so that after the sqrt(d) scaling each entry has unit
    variance, like the positional encoding it is added to. Biases 0, LayerNorm
    gain 1. The global RNG is never touched, so concurrent sessions cannot
    change each other's models.
    """
    generator = torch.Generator().manual_seed(int(seed))
    for _name, sub in module.named_modules():
        if isinstance(sub, nn.Linear):
            bound = math.sqrt(6.0 / (sub.in_features + sub.out_features))
            sub.weight.uniform_(-bound, bound, generator=generator)
            if sub.bias is not None:
                sub.bias.zero_()
        elif isinstance(sub, OutputHead):
            if sub.weight is not None:
                bound = math.sqrt(6.0 / sum(sub.weight.shape))
                sub.weight.uniform_(-bound, bound, generator=generator)
            if sub.bias is not None:
                sub.bias.zero_()
        elif isinstance(sub, nn.Embedding):
            sub.weight.normal_(0.0, 1.0 / math.sqrt(sub.embedding_dim), generator=generator)
        elif isinstance(sub, nn.LayerNorm):
            if sub.weight is not None:
                sub.weight.fill_(1.0)
            if sub.bias is not None:
                sub.bias.zero_()
    return module


def build_model(config: TransformerConfig, seed: int = 0, kind: str = "encoder-decoder") -> nn.Module:
    """A freshly initialised model in eval mode: "encoder-decoder", "decoder-only", "encoder-only"
    or "vision" (a ViT, ``vision.VisionTransformer``: its patch embedding and head are linear
    layers, its [CLS] vector and learned positions embeddings, drawn as above).

    Decoder-only and encoder-only models have the same modules in the same order,
    so with the same layer count, vocabulary and seed they get the same weights:
    the pages use that to show one set of weights with and without the causal mask.
    """
    if kind not in ARCHITECTURES:
        raise ValueError(f"kind={kind!r} is unknown; use one of {sorted(ARCHITECTURES)}.")
    return init_parameters(ARCHITECTURES[kind](config), seed).eval()
