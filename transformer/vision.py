"""A Vision Transformer (ViT): an image cut into patches, read by the encoder stack, sorted by its [CLS] token.

Dosovitskiy et al., "An Image is Worth 16x16 Words" (2020), eq. 1-4, at classroom sizes:

    z_0 = [x_cls; x_1 E; x_2 E; ...; x_N E] + E_pos        x_i: patch i flattened, E [C p^2, d]
    z_L = Encoder(z_0)                                      the package's encoder stack, L layers
    y   = z_L[0] W_head + b_head                            logits [num_classes]

An image ``[C, H, W]`` with ``H = W = image_size`` gives ``N = (H / p) (W / p)`` patches of
``p x p`` pixels; the encoder reads ``1 + N`` tokens: token 0 is [CLS], token ``1 + i`` is patch
``i`` in row-major order (row ``i // (W / p)``, column ``i % (W / p)``).
"""

from __future__ import annotations

import torch
from torch import nn

from .config import TransformerConfig
from .model import Encoder, ModelOutput
from .passes import pass_record, returned
from .positional_schemes import position_table
from .record import ForwardRecord, capture
from .embedding import Embedding


def patches(images: torch.Tensor, patch_size: int) -> torch.Tensor:
    """Non-overlapping ``p x p`` patches, flattened: ``images [B, C, H, W] -> [B, N, C p p]``.

    Patches are numbered in row-major order: patch ``i`` covers rows ``r p .. r p + p - 1`` and
    columns ``s p .. s p + p - 1`` with ``r = i // (W / p)``, ``s = i % (W / p)``; ``N = (H / p) (W / p)``.
    Inside a patch the vector is channel-major, then row, then column: entry ``c p^2 + a p + b``
    is pixel ``(c, r p + a, s p + b)`` (the order of ``torch.nn.functional.unfold``).
    """
    if images.dim() != 4:
        raise ValueError(f"images must be [batch, channels, height, width], got shape {list(images.shape)}.")
    batch, channels, height, width = images.shape
    if height % patch_size or width % patch_size:
        raise ValueError(f"patch_size {patch_size} must divide the image's height {height} and width {width}.")
    rows, columns = height // patch_size, width // patch_size
    grid = images.reshape(batch, channels, rows, patch_size, columns, patch_size)
    return grid.permute(0, 2, 4, 1, 3, 5).reshape(batch, rows * columns, channels * patch_size * patch_size)


def patch_count(config: TransformerConfig) -> int:
    """N = (image_size / patch_size)^2, the number of patch tokens (the encoder reads 1 + N)."""
    return (config.image_size // config.patch_size) ** 2


class PatchEmbedding(nn.Module):
    """z_0 = [x_cls; x_1 E + b; ...; x_N E + b] + E_pos, then LayerNorm if asked, then dropout.

    ``images [B, C, H, W] -> [B, 1 + N, d_model]``. ``projection`` is the linear patch embedding
    ``E`` (``[C p^2] -> [d_model]``), ``cls`` the learned [CLS] vector (an ``[1, d_model]`` table),
    ``position`` the table added to all ``1 + N`` tokens ([CLS] at position 0): learned (the
    paper), sinusoidal, or nothing for "none" (and for rotary and ALiBi, which act inside
    attention on the token order). No sqrt(d_model) scaling: the patches are not looked up.
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.config = config
        tokens = 1 + patch_count(config)
        self.projection = nn.Linear(config.channels * config.patch_size**2, config.d_model, bias=config.bias)
        self.cls = Embedding(1, config.d_model)
        self.position = position_table(config.positional, tokens, config.d_model, config.pe_base)
        self.norm = (
            nn.LayerNorm(config.d_model, eps=config.layer_norm_eps, bias=config.bias) if config.embed_norm else None
        )
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, images: torch.Tensor, record: ForwardRecord | None = None) -> torch.Tensor:
        _check_images(images, self.config)
        embedded = capture(record, "encoder.patches", self.projection(patches(images, self.config.patch_size)))
        cls = self.cls.weight.expand(images.shape[0], 1, -1)
        x = torch.cat([cls, embedded], dim=1)
        if self.position is not None:
            x = self.position(x)
        if self.norm is not None:
            x = self.norm(x)
        return self.dropout(x)


def _check_images(images: torch.Tensor, config: TransformerConfig) -> None:
    """A floating-point batch ``[B, channels, image_size, image_size]``, else a ValueError saying what to change."""
    expected = [config.channels, config.image_size, config.image_size]
    if images.dim() != 4 or list(images.shape[1:]) != expected:
        raise ValueError(
            f"the model reads images of shape [batch, {', '.join(map(str, expected))}], got "
            f"{list(images.shape)}; resize the images or build the model with their size."
        )
    if not images.is_floating_point():
        raise ValueError(f"images must be floating point (e.g. pixels scaled to 0..1), got {images.dtype}.")


class VisionTransformer(nn.Module):
    """A ViT classifier: patches -> ``PatchEmbedding`` -> ``Encoder`` -> linear head on [CLS].

    ``images [B, channels, image_size, image_size]`` (float) -> logits ``[B, num_classes]`` and
    hidden ``[B, 1 + N, d_model]`` (the encoder's output, after its final LayerNorm when pre-LN);
    the head reads ``hidden[:, 0]``. Uses ``num_encoder_layers``; record names
    ``encoder.layers.{i}.self_attn`` with weights ``[B, H, 1 + N, 1 + N]`` (token 0 = [CLS],
    token 1 + i = patch i, row-major). With ``return_internals`` the record also holds
    ``encoder.patches`` (the projected patches x_i E + b, ``[B, N, d_model]``), ``encoder.embed``
    (z_0) and every layer's internals, as for the encoder-only kind; ``interventions`` act on the
    heads the same way. Self-attention is bidirectional: every token sees every token.
    """

    kind = "vision"

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.config = config
        self.embed = PatchEmbedding(config)
        self.encoder = Encoder(config, config.num_encoder_layers)
        self.head = nn.Linear(config.d_model, config.num_classes, bias=config.bias)

    def forward(
        self,
        images: torch.Tensor,
        return_attention: bool = False,
        return_scores: bool = False,
        return_internals: bool = False,
        interventions=(),
    ) -> ModelOutput:
        record = pass_record(self, return_attention, return_scores, return_internals, interventions)
        hidden = self.encoder(self.embed(images, record), None, record, "encoder")
        return ModelOutput(self.head(hidden[:, 0]), returned(record), hidden)
