"""Shared hyperparameter controls, each bound to the URL so a link restores the view.

Only valid combinations are offered: head counts are divisors of d_model (and,
for rotary encoding, leave an even number of dimensions per head).
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from . import runtime  # noqa: F401  (torch threads are set before any torch work)
from transformer import POSITIONAL_ENCODINGS, POSITIONAL_SCHEMES, divisors, positional_scheme

from .model_sizes import SHARED
from .screen import show_section

D_MODEL_OPTIONS = (8, 16, 24, 32, 48, 64, 96, 128, 256, 512)
MAX_HEADS = 16
POSITIONAL_LABELS = {scheme.name: scheme.label for scheme in POSITIONAL_SCHEMES}


def positional_name(positional: str, random: bool) -> str:
    """A model's positional encoding as pages name it: a random model's learned table is untrained, a trained or
    pretrained model's is learned with the rest of its weights."""
    if positional == "learned" and not random:
        return "learned (trained with the model)"
    return POSITIONAL_LABELS.get(positional, positional)


def head_options(d_model: int, positional: str = "sinusoidal") -> list[int]:
    """Head counts that split d_model evenly (an even head size where the scheme turns pairs: rotary), at most
    MAX_HEADS."""
    even = positional_scheme(positional).even_head
    return [h for h in divisors(d_model) if h <= MAX_HEADS and not (even and (d_model // h) % 2)]


def d_model_control(
    key: str = "d_model", default: int = SHARED.d_model, options=D_MODEL_OPTIONS, container=st, help: str | None = None
) -> int:
    return container.select_slider(
        "d_model (embedding size)",
        options=list(options),
        value=default,
        key=key,
        bind="query-params",
        help=help or "Width of every token vector in the model.",
    )


def stops_slider(
    label: str,
    options: Sequence,
    key: str,
    value=None,
    container=st,
    help: str | None = None,
    disabled: bool = False,
    format_func=str,
):
    """One of a few ordered numbers (a layer, a head, a head count, a token cap) as a slider that stops at
    each option (``st.select_slider``), bound to the URL's ``key``. The URL holds the option as shown
    (``format_func``), as a drop-down's does: ``heads=4``, ``drop_head=head 2``. ``value`` is the default (the
    first option when None or not offered); a single option is shown switched off.

    A slider rather than a drop-down: a drop-down closes before the page reruns, which delays every change
    in the browser (measured in docs/performance.md).
    """
    options = list(options)
    return container.select_slider(
        label,
        options,
        value=value if value in options else options[0],
        key=key,
        bind="query-params",
        help=help,
        disabled=disabled or len(options) == 1,
        format_func=format_func,
    )


def heads_control(
    d_model: int, positional: str = "sinusoidal", key: str = "heads", default: int = SHARED.heads, container=st
) -> int:
    options = head_options(d_model, positional)
    value = default if default in options else options[len(options) // 2]
    return stops_slider(
        "heads",
        options,
        key,
        value,
        container,
        help=f"Only divisors of d_model = {d_model} are offered: each head gets d_model / heads dimensions.",
    )


def layers_control(
    label: str = "layers", key: str = "layers", default: int = SHARED.layers, max_value: int = 6, container=st
) -> int:
    return container.slider(label, 1, max_value, default, key=key, bind="query-params")


def positional_control(key: str = "pe", default: str = "sinusoidal", container=st, options=POSITIONAL_ENCODINGS) -> str:
    return container.selectbox(
        "positional encoding",
        list(options),
        index=list(options).index(default),
        format_func=POSITIONAL_LABELS.get,
        key=key,
        bind="query-params",
    )


def seed_control(key: str = "seed", default: int = 0, container=st) -> int:
    return int(
        container.number_input(
            "seed",
            0,
            9999,
            default,
            step=1,
            key=key,
            bind="query-params",
            help="Same seed and settings give the same weights, in every session.",
        )
    )


def causal_control(key: str = "causal", container=st) -> bool:
    """The look-ahead mask on a random model, bound to the URL's ``key``: on, query i attends to keys j <= i only
    (a decoder); off, every query attends to every key (an encoder). The weights are the same either way."""
    return container.toggle(
        "causal mask",
        value=False,
        key=key,
        bind="query-params",
        help="Off: an encoder (BERT-style), every token sees every token. On: a decoder (GPT-style), token i sees "
        "only tokens j ≤ i. Same weights either way.",
    )


def section_picker(sections: Sequence[str], key: str = "section", label: str = "section") -> str:
    """A page's sections as one row of buttons (a segmented control) bound to the URL's ``key``; returns the
    open section, the first one when the URL names none or an unknown one. Only the open section is built
    and drawn, below the row.

    A segmented control rather than ``st.tabs``: the browser lays a tab bar out again on every rerun of its
    part of the page, while a row of buttons costs next to nothing (docs/performance.md).
    """
    sections = list(sections)
    chosen = st.segmented_control(
        label, sections, default=sections[0], required=True, key=key, bind="query-params", label_visibility="collapsed"
    )
    chosen = chosen if chosen in sections else sections[0]
    if key == "section":  # a page's own sections (not a row inside one): on a projector, the open one in view
        show_section(chosen)
    return chosen
