"""The Self-attention page's "Why attention" section: one step between any two tokens, all positions at once,
and the price, n^2 scores, timed on this server against a recurrent layer."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis.attention_cost import CostMeasurement, measure_cost, sequential_steps
from ui import runtime  # noqa: F401  (torch threads are set before any torch work)
from ui.charts import chart
from ui.formulas import formula
from ui.screen import figure_then_text
from viz.attention_cost import attention_cost_figure


@st.cache_data(max_entries=1, show_spinner="Timing one attention layer and one recurrent layer at four lengths…")
def measured() -> CostMeasurement:
    """One measurement per server (``Measure again`` clears it): about a second on two cores."""
    return measure_cost()


def why_attention_section(_view=None) -> None:
    """Steps to connect two tokens, the measured time of one layer against n, and the paper's Table 1."""
    left, right = figure_then_text("why_attention", gap="large")
    with right:
        st.markdown(
            "A **recurrent network** reads the tokens one after another: its state after token t is computed from "
            "its state after token t − 1. What token 1 says reaches token n only through n − 1 steps, one after "
            "another, and none can start before the previous one has finished. **Self-attention** lets every "
            "query read every key directly: one step between any two tokens, and all n positions are computed at "
            "once, in a few matrix products. The price: every head computes a score for every pair, n² of them."
        )
        formula(
            r"\text{RNN: } h_t = \tanh(x_t W + h_{t-1} U + b)",
            r"\text{attention: } \mathrm{out}_i = \textstyle\sum_j a_{ij}\, v_j",
        )
        st.button(
            "Measure again",
            key="measure_again",
            on_click=measured.clear,
            icon=":material/timer:",
            help="Time both layers again on this server (the result is shared by every session).",
        )
    cost = measured()
    attention_fit, recurrence_fit = cost.attention_fit, cost.recurrence_fit
    rnn_steps, attention_steps = sequential_steps(cost.lengths)
    with left:
        chart(
            attention_cost_figure(
                cost.lengths,
                rnn_steps,
                attention_steps,
                cost.attention * 1e3,
                cost.recurrence * 1e3,
                (attention_fit.exponent, attention_fit.coefficient * 1e3),
                (recurrence_fit.exponent, recurrence_fit.coefficient * 1e3),
                "Connecting n tokens, measured on this server: self-attention's time grows as "
                f"n<sup>{attention_fit.exponent:.2f}</sup>, a recurrence's as n<sup>{recurrence_fit.exponent:.2f}</sup>",
            ),
            key="cost",
        )
    longest = int(cost.lengths[-1])
    st.caption(
        f"Measured on this server in CPU time, on one thread (the time other programs hold the core is left "
        f"out): one self-attention layer (d_model = {cost.d_model}, one head: "
        f"Q, K, V, the scores, softmax, the weighted sum and W^O) and one recurrent layer (tanh, the same "
        f"width) on a sequence of each length, the best of {cost.repeats} runs. A straight line on these "
        f"log-log axes is a power law t ∝ n^p; its slope p is fitted by least squares. At n = {longest:,} "
        f"one head computes {longest**2:,} scores."
    )
    st.dataframe(
        pd.DataFrame(
            {
                "layer": ["self-attention", "recurrent"],
                "work per layer": ["O(n² · d)", "O(n · d²)"],
                "steps one after another": ["O(1)", "O(n)"],
                "longest path between two tokens": ["O(1)", "O(n)"],
                "fitted exponent p here": [
                    exponent_cell(attention_fit.exponent, cost.exponent_range("attention")),
                    exponent_cell(recurrence_fit.exponent, cost.exponent_range("recurrence")),
                ],
            }
        ),
        hide_index=True,
        width="stretch",
    )
    st.caption(
        f"The first three columns are the paper's Table 1 (Vaswani et al., 2017); the fourth is the slope "
        f"through the best times, with the slopes of single rounds in brackets. Here, {crossing(cost)}; as n "
        "grows the n² term wins, which is why long contexts call for cheaper kinds of attention."
    )


def exponent_cell(best: float, rounds: tuple[float, float]) -> str:
    low, high = rounds
    return f"{best:.2f} (rounds: {low:.2f} to {high:.2f})"


def crossing(cost: CostMeasurement) -> str:
    """Where attention costs more than the recurrence, stated only at lengths where every round agrees."""
    dearer, lengths = cost.attention_dearer(), [f"{int(n):,}" for n in cost.lengths]
    unclear = [n for n, side in zip(lengths, dearer) if side is None]
    if unclear:
        return (
            f"the rounds do not agree which layer is faster at n = {', '.join(unclear)}, so no length is named "
            "where attention's n² scores start to cost more than the recurrence's n steps"
        )
    if not any(dearer):
        return "in every round and at every length, attention's n² scores still cost less than the recurrence's n steps"
    first = dearer.index(True)
    if all(dearer[first:]):
        return f"in every round, from n = {lengths[first]} on, attention's n² scores cost more than the recurrence's n steps"
    more = [n for n, side in zip(lengths, dearer) if side]
    return f"in every round, attention's n² scores cost more than the recurrence's n steps at n = {', '.join(more)}"
