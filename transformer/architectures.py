"""Every architecture the package builds, saves and loads, by its ``kind``."""

from __future__ import annotations

from torch import nn

from .model import DecoderOnly, EncoderOnly, Transformer
from .vision import VisionTransformer

ARCHITECTURES: dict[str, type[nn.Module]] = {
    model.kind: model for model in (Transformer, DecoderOnly, EncoderOnly, VisionTransformer)
}
