"""The multi-head page's "Compare" section: two heads, or one head on two sentences, side by side with their
difference, each picked with its own controls."""

import numpy as np
import streamlit as st

from ui.controls import stops_slider
from ui.cache import cached_figure
from ui.forward import self_attention_maps
from ui.text import sentence_input
from viz.heads import compare_figure
from viz.labels import tick_label
from ui.charts import chart
from ui.screen import settings

SECOND_TEXT = "The animal didn't cross the street because it was too wide"
ONE_BASED = dict(format_func=lambda i: str(i + 1))


@st.fragment
def largest_difference(first: np.ndarray, second: np.ndarray, tokens: list[str] | None) -> str:
    """Where two maps ``[T, T]`` differ the most (the largest |first - second|, masked cells as 0), as a title's
    ending: the query and the key (named by ``tokens``, by position where the maps are of two sentences, None),
    with both weights; nothing for maps of different sizes."""
    if first.shape != second.shape:
        return ""
    a, b = np.nan_to_num(np.asarray(first, np.float64)), np.nan_to_num(np.asarray(second, np.float64))
    query, key = np.unravel_index(np.abs(a - b).argmax(), a.shape)
    name = (lambda i: f"“{tick_label(tokens[i])}”") if tokens is not None else (lambda i: f"position {i + 1}")
    return f": most apart at query {name(query)}, key {name(key)} ({a[query, key]:.2f} against {b[query, key]:.2f})"


def compare(weights, tokens, spec, tokenizer, causal, options):
    """Two heads, or one head on two sentences, side by side with their difference. On a small screen the
    heads (and the second sentence) fold into a closed expander, and the explanation follows the figure. ``options``
    go to the chart."""

    def explain() -> None:
        st.markdown(
            "Two heads side by side, or one head on two sentences, and their difference "
            "$A_1 - A_2$ (red: more weight in the first, blue: in the second)."
        )

    mode = st.segmented_control(
        "compare",
        ["two heads", "one head, two sentences"],
        default="two heads",
        required=True,
        key="cmp",
        bind="query-params",
    )
    layers, heads = weights.shape[:2]
    box = settings("Heads compared")
    cols = box.columns(4)
    if mode == "two heads":
        la = stops_slider("first: layer", range(layers), "a_layer", container=cols[0], **ONE_BASED)
        ha = stops_slider("first: head", range(heads), "a_head", container=cols[1], **ONE_BASED)
        lb = stops_slider("second: layer", range(layers), "b_layer", container=cols[2], **ONE_BASED)
        hb = stops_slider("second: head", range(heads), "b_head", min(1, heads - 1), cols[3], **ONE_BASED)
        first, second, tokens_b = weights[la, ha], weights[lb, hb], tokens
        names = (f"layer {la + 1} · head {ha + 1}", f"layer {lb + 1} · head {hb + 1}")
    else:
        other = sentence_input("Second sentence", SECOND_TEXT, key="text2", container=box, tokenizer=tokenizer)
        lc = stops_slider("layer", range(layers), "c_layer", container=cols[0], **ONE_BASED)
        hc = stops_slider("head", range(heads), "c_head", container=cols[1], **ONE_BASED)
        if other is None:
            explain()
            return
        second_weights = self_attention_maps(spec, other.ids)
        first, second, tokens_b = weights[lc, hc], second_weights[lc, hc], list(other.tokens)
        names = (
            f"layer {lc + 1} · head {hc + 1} · first sentence",
            f"layer {lc + 1} · head {hc + 1} · second sentence",
        )
        if first.shape != second.shape:
            st.info(
                f"The sentences have {first.shape[0]} and {second.shape[0]} tokens: the difference needs "
                "the same number of tokens, so only the two maps are shown."
            )
    chart(
        cached_figure(
            compare_figure,
            first,
            second,
            tokens,
            tokens_b,
            *names,
            f"Compare · {names[0]} vs {names[1]}"
            + largest_difference(first, second, tokens if mode == "two heads" else None),
            causal=causal,
        ),
        key="compare",
        **options,
    )
    explain()
