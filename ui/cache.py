"""The app's one caching policy: what is kept between runs and sessions, and how.

Three kinds of things are cached, each in one way; everything here is shared by every session
of the server process and is read-only for its callers:

1. **Resources** (``resource``): models, keyed by their ``ModelSpec``, and the few objects a
   server holds once (a queue, the chart component, the list of model folders). ``st.cache_resource``
   with a bound on entries: the object itself is handed out, never a copy.
2. **Computations** (``computation``): forward passes and the numbers pages derive from a model
   or from their settings (arrays, tables, tokens). One LRU for every page and model, bounded by
   the bytes its entries hold (``COMPUTATION_BYTES``), keyed by the function and its arguments.
   An entry's numpy arrays are made read-only, so a caller that would change one gets a
   ``ValueError`` instead of changing it for everyone; its pandas tables (which have no read-only
   flag) are handed to each caller as a copy of its own, which pandas' copy-on-write makes without
   copying the data until the caller writes to it.
3. **Figures** (``cached_figure``, ``shared_figure``): a Plotly figure built from a builder in
   ``viz/`` and its arguments, kept with its JSON for each way it is sent (``SharedFigure``), so
   a rerun that draws it again neither builds nor serialises it.

A session's own objects (its uploads, its trainer, its answers) live in ``st.session_state``,
not in a cache. The package (``transformer/``) memoises a few small pure lookups of its own
(tokenizer engines, a corpus) with ``functools``; it knows nothing of Streamlit.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections.abc import Callable, Hashable
from typing import TypeVar

import cachetools
import numpy as np
import plotly.graph_objects as go
import streamlit as st

T = TypeVar("T")

# Every computation of every page and model together. One 512-token reading of a 6-layer, 12-head
# model holds 75 MB of attention weights; a page's default input holds well under 1 MB.
COMPUTATION_BYTES = 160 * 2**20
SMALL_OBJECT_BYTES = 256  # what a scalar, a string or a small object counts for
FIGURE_ENTRIES = 256


def resource(max_entries: int | None = None, ttl: float | None = None, spinner: bool | str = False):
    """Decorator: one object per distinct arguments, built once for the whole server and shared by every
    session (``st.cache_resource``). For models, keyed by their spec, and for objects a server holds once."""
    return st.cache_resource(max_entries=max_entries, ttl=ttl, show_spinner=spinner)


def size_in_bytes(value) -> int:
    """The bytes an entry holds: its numpy arrays, tables, bytes and text (a character a byte), through tuples,
    lists, dicts and dataclasses; anything else counts as a small object."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (bytes, bytearray, str)):
        return len(value)
    if hasattr(value, "memory_usage"):  # a pandas table (pandas itself is not imported here: Home needs none)
        return int(np.sum(value.memory_usage(deep=True)))
    if isinstance(value, dict):
        return SMALL_OBJECT_BYTES + sum(size_in_bytes(v) for v in value.values())
    if isinstance(value, (tuple, list)):
        return SMALL_OBJECT_BYTES + sum(size_in_bytes(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return SMALL_OBJECT_BYTES + sum(size_in_bytes(getattr(value, f.name)) for f in dataclasses.fields(value))
    return SMALL_OBJECT_BYTES


def read_only(value: T) -> T:
    """``value`` with every numpy array it holds (through tuples, lists, dicts and dataclasses) made read-only."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, dict):
        for item in value.values():
            read_only(item)
    elif isinstance(value, (tuple, list)):
        for item in value:
            read_only(item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            read_only(getattr(value, f.name))
    return value


def _is_pandas(value) -> bool:
    return type(value).__module__.split(".")[0] == "pandas" and hasattr(value, "copy")


def handed_out(value: T) -> T:
    """``value`` as one caller gets it: each pandas table or series in it (at the top, or in a tuple, list or
    dict) a shallow copy of its own, so a caller that adds a column or sets a cell changes only its copy."""
    if _is_pandas(value):
        return value.copy(deep=False)
    if isinstance(value, dict):
        return {key: handed_out(item) for key, item in value.items()} if any(map(_is_pandas, value.values())) else value
    if isinstance(value, (tuple, list)) and any(map(_is_pandas, value)):
        return type(value)(handed_out(item) for item in value)
    return value


COMPUTATIONS: cachetools.LRUCache = cachetools.LRUCache(maxsize=COMPUTATION_BYTES, getsizeof=size_in_bytes)
_COMPUTATIONS_LOCK = threading.Lock()


def computation(function: Callable[..., T]) -> Callable[..., T]:
    """Decorator: ``function``'s result kept in the one computation cache, by the function's name and its
    (hashable) arguments; returned to every caller with its arrays read-only and its tables as copies of
    their own (``handed_out``). A result larger than the whole bound is returned and not kept."""
    name = f"{function.__module__}.{function.__qualname__}"

    @functools.wraps(function)
    def cached(*args, **kwargs):
        key = (name, args, tuple(sorted(kwargs.items())))
        with _COMPUTATIONS_LOCK:
            found = COMPUTATIONS.get(key, COMPUTATIONS)
        if found is not COMPUTATIONS:
            return handed_out(found)
        value = read_only(function(*args, **kwargs))  # two sessions may both compute it: the same value
        with _COMPUTATIONS_LOCK:
            try:
                COMPUTATIONS[key] = value
            except ValueError:  # larger than the whole cache
                pass
        return handed_out(value)

    cached.uncached = function
    return cached


@dataclasses.dataclass(eq=False)
class SharedFigure:
    """A figure from the figure cache, shared by every session and never modified, with its JSON for each
    way it has been sent (``json``)."""

    figure: go.Figure
    _sent: dict = dataclasses.field(default_factory=dict, repr=False)
    _lock: threading.Lock = dataclasses.field(default_factory=threading.Lock, repr=False)

    def json(self, how: Hashable, serialise: Callable[[go.Figure], bytes]) -> bytes:
        """``serialise(figure)``, made once for each way ``how`` the figure is sent."""
        with self._lock:
            sent = self._sent.get(how)
        if sent is None:
            sent = serialise(self.figure)
            with self._lock:
                self._sent.setdefault(how, sent)
        return sent


@st.cache_resource(max_entries=FIGURE_ENTRIES, show_spinner=False)
def _figure(_builder: Callable[..., go.Figure], name: str, args: tuple, kwargs: tuple) -> SharedFigure:
    return SharedFigure(_builder(*args, **dict(kwargs)))


def cached_figure(builder: Callable[..., go.Figure], *args, **kwargs) -> SharedFigure:
    """``builder(*args, **kwargs)``, built once per builder and argument values (numpy arrays are compared by
    content) and shared; ``ui.charts.chart`` draws it."""
    return _figure(builder, f"{builder.__module__}.{builder.__qualname__}", args, tuple(sorted(kwargs.items())))


def shared_figure(builder: Callable[..., go.Figure]) -> Callable[..., SharedFigure]:
    """Decorator: ``builder`` called through ``cached_figure``."""

    @functools.wraps(builder)
    def shared(*args, **kwargs) -> SharedFigure:
        return cached_figure(builder, *args, **kwargs)

    return shared


def clear_figures() -> None:
    """Forget every cached figure (their JSON with them)."""
    _figure.clear()
