"""The sizes the pages' random models start from, in one place: the controls take their defaults from here, and
Home describes them. Plain numbers, no torch: Home imports this and stays light."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Size:
    """A random model's default ``layers`` (per stack), ``d_model`` and ``heads``."""

    layers: int
    d_model: int
    heads: int


# The shared controls (ui.controls): Multi-head attention, Masks, Encoder-decoder (each stack), word order.
SHARED = Size(layers=2, d_model=64, heads=4)
# Self-attention starts smaller, so that every matrix of one head can be read cell by cell.
SELF_ATTENTION = Size(layers=1, d_model=16, heads=2)
# The Encoder-decoder page's feed-forward width (4 · d_model, as in the paper).
ENCODER_DECODER_D_FF = 256
