"""The Self-attention page's "Output" and "Why scale" sections (steps 4 to 6: the output A V, one query up close,
why the scores are divided by sqrt(d_k)) and the table of the numbers behind the figures: one matrix of the head's
chain at a time."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from analysis.attention_steps import sentence_peakedness
from pages.self_attention.sections import HeadOnText, dimension_labels
from pages.self_attention.steps import softmax_peakedness
from ui.cache import cached_figure
from ui.charts import chart
from ui.formulas import formula
from ui.screen import figure_then_text
from viz.attention_steps import peakedness_figure, query_bar_figure, weighted_values_figure


def output_section(view: HeadOnText) -> None:
    """Step 4 and 5: the output A V [T, d_k], and one query's weights and weighted sum."""
    steps, tokens, n = view.steps, view.tokens, view.n
    left, right = figure_then_text("output")
    with right:
        st.markdown(
            "**4 · Output.** Each output row is the average of the value vectors, weighted by that query's row of A."
        )
        formula(r"\mathrm{out} = AV \in \mathbb{R}^{T\times d_k},", r"\mathrm{out}_i = \sum_j A_{ij}\, v_j")
    with left:
        chart(
            view.signed(
                steps.output,
                tokens,
                dimension_labels(view.d_k),
                f"Output A V · {n} × {view.d_k}: each row a weighted average of V's rows, so within their range "
                f"(largest |out| {np.nanmax(np.abs(steps.output)):.2f}, |V| {np.nanmax(np.abs(steps.v)):.2f})",
            ),
            key="output",
        )
    one_query(steps.weights, steps.mask, steps.v, tokens)


@st.fragment
def one_query(weights: np.ndarray, mask: np.ndarray, values: np.ndarray, tokens: list[str]) -> None:
    """Pick a query token: its attention over the keys [T] and its weighted sum of values [T, d_k]
    (picking reruns this part only)."""
    st.markdown(
        "**5 · One query up close.** Pick a query: its row of A, and its output as a weighted sum of the value vectors."
    )
    query = st.selectbox(
        "query token",
        range(len(tokens)),
        index=tokens.index("it") if "it" in tokens else min(7, len(tokens) - 1),
        format_func=lambda i: f"{i + 1}: {tokens[i]}",
        key="query",
        bind="query-params",
    )
    left, right = st.columns(2)
    with left:
        chart(cached_figure(query_bar_figure, weights, mask, tokens, query), key="bar")
    with right:
        chart(cached_figure(weighted_values_figure, weights, values, tokens, query), key="sum")


def scaling_section(view: HeadOnText) -> None:
    """Step 6: why the scores are divided by sqrt(d_k) (softmax peakedness vs d_k)."""
    left, right = figure_then_text("why_scale")
    with right:
        st.markdown(
            "For random queries and keys with unit-variance entries, $q\\cdot k$ is a sum of $d_k$ terms, so "
            "its variance is $d_k$. Without scaling, large $d_k$ gives huge scores and the softmax "
            "saturates: one weight near 1, the rest near 0, and tiny gradients. Dividing by $\\sqrt{d_k}$ "
            "brings the variance back to 1 for every $d_k$. The temperature $\\tau$ does the same by hand: "
            "low $\\tau$ sharpens, high $\\tau$ flattens."
        )
        formula(
            r"\mathrm{Var}(q\cdot k) = d_k \;\Rightarrow\; \mathrm{Var}\!\left(\frac{q\cdot k}{\sqrt{d_k}}\right) = 1"
        )
    with left:
        peaks = softmax_peakedness()
        chart(
            cached_figure(
                peakedness_figure,
                peaks.dims,
                peaks.entropy_scaled,
                peaks.entropy_unscaled,
                peaks.max_scaled,
                peaks.max_unscaled,
                peaks.keys,
                (view.d_k, *sentence_peakedness(view.steps)),
            ),
            key="peaks",
        )
        st.caption(gradient_note(peaks, view.d_k))


def gradient_note(peaks, d_k: int) -> str:
    """How much gradient reaches the scores, read from ``peaks`` (``Peakedness``): the mean size of the softmax's
    Jacobian, unscaled against scaled, at the largest d_k drawn and at the head's own d_k when it is drawn."""
    at = [len(peaks.dims) - 1]
    if d_k in peaks.dims and d_k != peaks.dims[-1]:
        at.insert(0, int(np.flatnonzero(peaks.dims == d_k)[0]))
    said = "; ".join(
        f"at d_k = {int(peaks.dims[i])}, {peaks.jacobian_unscaled[i]:.2f} unscaled against "
        f"{peaks.jacobian_scaled[i]:.2f} scaled"
        for i in at
    )
    return (
        "How much the weights move when the scores move, and so how much gradient reaches the scores: the "
        f"softmax's Jacobian J = diag(a) − a aᵀ, its size ‖J‖ averaged over the rows, {said}."
    )


def numbers_table(view: HeadOnText) -> None:
    """One chosen matrix of the chain as a table: rows are tokens, columns dimensions or keys."""
    steps, tokens = view.steps, view.tokens
    dims_model, dims_k = dimension_labels(view.d_model), dimension_labels(view.d_k)
    matrices = {
        "X (token vectors)": (steps.x, dims_model),
        "Q": (steps.q, dims_k),
        "K": (steps.k, dims_k),
        "V": (steps.v, dims_k),
        "raw scores QKᵀ": (steps.raw, tokens),
        "scaled scores": (steps.scaled, tokens),
        "attention weights A": (steps.weights, tokens),
        "output AV": (steps.output, dims_k),
    }
    choice = st.selectbox("matrix", list(matrices), key="numbers", bind="query-params")
    values, columns = matrices[choice]
    frame = pd.DataFrame(
        values,
        index=[f"{i}: {t}" for i, t in enumerate(tokens, start=1)],
        columns=[f"{j}: {c}" if columns is tokens else c for j, c in enumerate(columns, start=1)],
    )
    masked = choice == "attention weights A" and view.causal
    st.dataframe(frame.where(steps.mask).round(4) if masked else frame.round(4))
    if masked:
        st.caption("Empty cells are masked.")
