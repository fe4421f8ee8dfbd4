"""Build a Plotly figure once per distinct input and share it, and serialise it once per way it is sent.

Building a ``go.Figure`` validates every property (about 10 ms each); a page with
a dozen figures would spend its whole rerun budget there. Turning one into JSON
(``to_dict()`` copies it, then every array is encoded) costs another 0.5-3 ms a
figure on every rerun, more for a large one, and a redraw in the browser is not over
before the rerun's script is. So a cached figure keeps its JSON too, one per way it is sent
(with or without presentation mode, per plot configuration), which about doubles the
memory it holds. A cached figure is never modified and is shared read-only by every
session.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable

import plotly.graph_objects as go
import streamlit as st


_SENT = "_sent_json"  # on a shared figure: {how it is sent: its JSON}, filled by ``serialised``


@st.cache_resource(max_entries=256, show_spinner=False)
def _build(_builder: Callable[..., go.Figure], name: str, args: tuple, kwargs: tuple) -> go.Figure:
    figure = _builder(*args, **dict(kwargs))
    setattr(figure, _SENT, {})  # marks it shared, hence never modified
    return figure


def cached_figure(builder: Callable[..., go.Figure], *args, **kwargs) -> go.Figure:
    """``builder(*args, **kwargs)``, cached by the builder's name and the arguments' values
    (numpy arrays are hashed by content). Treat the result as read-only."""
    name = f"{builder.__module__}.{builder.__qualname__}"
    return _build(builder, name, args, tuple(sorted(kwargs.items())))


def shared_figure(builder: Callable[..., go.Figure]) -> Callable[..., go.Figure]:
    """Decorator: ``builder`` called through ``cached_figure``, so the same arguments return the same
    shared, read-only figure."""
    @functools.wraps(builder)
    def shared(*args, **kwargs) -> go.Figure:
        return cached_figure(builder, *args, **kwargs)
    return shared


def serialised(figure: go.Figure, how: Hashable, serialise: Callable[[], bytes]) -> bytes:
    """``serialise()``, the JSON of ``figure`` sent in the way ``how`` names. A figure from
    ``cached_figure`` keeps it, so every later run and session reuses it; any other figure may have
    changed since the last run and is serialised every time."""
    sent = getattr(figure, _SENT, None)
    if sent is None:
        return serialise()
    if how not in sent:  # two sessions may both fill it at once, with the same bytes
        sent[how] = serialise()
    return sent[how]
