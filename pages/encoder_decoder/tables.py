"""The encoder-decoder's parameter table: per component, counted in the model and in closed form."""

from __future__ import annotations

import pandas as pd
import streamlit as st
from ui import runtime  # noqa: F401  (torch threads are set before any torch work)

from analysis.parameters import closed_form_parameters, counted_parameters, formulas
from transformer.spec import ModelSpec
from ui.models import load_model


@st.cache_data(max_entries=32, show_spinner=False)
def parameter_table(spec: ModelSpec) -> pd.DataFrame:
    """Rows per component plus a total row: formula, closed-form count, count from the model."""
    model = load_model(spec).module
    config = model.config
    counted = counted_parameters(model)
    closed = closed_form_parameters(config)
    text = formulas(config)
    rows = [(name, text[name], closed[name], counted.get(name, 0)) for name in closed]
    rows.append(("total", "sum of the rows", sum(closed.values()), sum(p.numel() for p in model.parameters())))
    return pd.DataFrame(rows, columns=["component", "closed form", "closed-form count", "counted in the model"])
