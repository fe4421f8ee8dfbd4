"""The encoder-decoder's parameter table (``analysis.parameters``), kept in the computation cache."""

from __future__ import annotations

import pandas as pd

from ui import runtime  # noqa: F401  (torch threads are set before any torch work)

from analysis import parameters
from transformer.spec import ModelSpec
from ui.cache import computation
from ui.models import load_model


@computation
def parameter_table(spec: ModelSpec) -> pd.DataFrame:
    """Rows per component plus a total row: formula, closed-form count, count from the model."""
    return parameters.parameter_table(load_model(spec).module)
