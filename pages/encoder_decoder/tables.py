"""The encoder-decoder's parameter table: per component, counted in the model and in closed form."""

from __future__ import annotations

from dataclasses import astuple

import pandas as pd
import streamlit as st
from ui import runtime  # noqa: F401  (torch threads are set before any torch work)
import torch

from transformer import TransformerConfig

from analysis.parameters import FORMULAS, closed_form_parameters, counted_parameters
from ui.models import get_model


@st.cache_data(max_entries=32, show_spinner=False)
def _parameter_table(config_values: tuple, seed: int) -> pd.DataFrame:
    config = TransformerConfig(*config_values)
    counted = counted_parameters(get_model(config, seed, "encoder-decoder"))
    closed = closed_form_parameters(config)
    rows = [(name, FORMULAS[name], closed[name], counted.get(name, 0)) for name in closed]
    total = sum(p.numel() for p in get_model(config, seed, "encoder-decoder").parameters())
    rows.append(("total", "sum of the rows", sum(closed.values()), total))
    return pd.DataFrame(rows, columns=["component", "closed form", "closed-form count", "counted in the model"])


def parameter_table(config: TransformerConfig, seed: int) -> pd.DataFrame:
    """Rows per component plus a total row: formula, closed-form count, count from the model."""
    return _parameter_table(astuple(config), int(seed)).copy()

