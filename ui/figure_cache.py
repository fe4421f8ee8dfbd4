"""Build a Plotly figure once per distinct input and share it, so a rerun only serialises it.

Building a ``go.Figure`` validates every property (about 10 ms each); a page with
a dozen figures would spend its whole rerun budget there. ``st.plotly_chart``
copies a figure with ``to_dict()`` before sending it, so a cached figure is
never modified and can be shared read-only by every session.
"""

from __future__ import annotations

from collections.abc import Callable

import plotly.graph_objects as go
import streamlit as st


@st.cache_resource(max_entries=256, show_spinner=False)
def _build(_builder: Callable[..., go.Figure], name: str, args: tuple, kwargs: tuple) -> go.Figure:
    return _builder(*args, **dict(kwargs))


def cached_figure(builder: Callable[..., go.Figure], *args, **kwargs) -> go.Figure:
    """``builder(*args, **kwargs)``, cached by the builder's name and the arguments' values
    (numpy arrays are hashed by content). Treat the result as read-only."""
    name = f"{builder.__module__}.{builder.__qualname__}"
    return _build(builder, name, args, tuple(sorted(kwargs.items())))
