"""The two normalisations of a Transformer's layers: the paper's LayerNorm and today's RMSNorm."""

from __future__ import annotations

from torch import nn

from .config import TransformerConfig


class RMSNorm(nn.RMSNorm):
    """RMSNorm(x) = x / sqrt(mean(x^2) + eps) * g, over the last dimension, ``[..., d] -> [..., d]``.

    LayerNorm(x) = (x - mean(x)) / sqrt(var(x) + eps) * g + b also centres x and adds a bias;
    RMSNorm only rescales x to a root mean square of 1, then gains each dimension by g. It is
    cheaper and trains as well, which is why Llama, Mistral and Qwen use it. PyTorch's
    ``nn.RMSNorm`` computes it; the class is here to say what it is.
    """


def make_norm(config: TransformerConfig, size: int | None = None) -> nn.Module:
    """The config's normalisation (``config.norm``) over ``size`` features (default ``d_model``)."""
    size = config.d_model if size is None else size
    if config.norm == "rmsnorm":
        return RMSNorm(size, eps=config.layer_norm_eps)
    return nn.LayerNorm(size, eps=config.layer_norm_eps, bias=config.bias)
