"""Cached, read-only models keyed by (config, seed, kind)."""

from __future__ import annotations

from dataclasses import astuple

import streamlit as st
from . import runtime  # noqa: F401  (torch threads are set before any torch work)
import torch

from transformer import TransformerConfig, build_model


@st.cache_resource(max_entries=12, show_spinner=False)
def _cached_model(config_values: tuple, seed: int, kind: str) -> torch.nn.Module:
    config = TransformerConfig(*config_values)
    model = build_model(config, seed, kind)
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    return model


def get_model(config: TransformerConfig, seed: int, kind: str = "encoder-decoder") -> torch.nn.Module:
    """The model for these settings, built once per process and shared by every session.

    Shared models are read-only: callers run them under ``torch.inference_mode()``
    and never call ``.train()`` or store anything on them.
    """
    return _cached_model(astuple(config), int(seed), kind)
