"""Self-attention, step by step: softmax(QK^T / sqrt(d_k)) V on the user's own sentence."""

import pandas as pd
import streamlit as st

from pages.self_attention.steps import attention_steps, sentence_peakedness, softmax_peakedness
from ui.controls import seed_control
from ui.text import sentence_input
from ui.figure_cache import cached_figure
from viz.attention_steps import (attention_weights_figure, peakedness_figure, qkv_figure, query_bar_figure,
                                 signed_matrix_figure, weighted_values_figure)
from ui.routing import require_navigation

require_navigation()

DEFAULT_TEXT = "The animal didn't cross the street because it was too tired"
D_MODEL_OPTIONS = (4, 8, 16, 32, 64, 128)
D_K_OPTIONS = (1, 2, 4, 8, 16, 32, 64)

st.title("Self-attention, step by step")
st.markdown(
    "Self-attention turns a sequence of token vectors into a new sequence of the same length: each "
    "position takes a weighted combination of all positions, and the weights say how much each other "
    "token influences this one. Below, one attention head with seeded random weights runs on your "
    "sentence, and every intermediate matrix is drawn with its shape."
)
st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V")

sentence = sentence_input("Sentence", DEFAULT_TEXT, key="text")
c1, c2, c3, c4 = st.columns(4)
d_model = c1.select_slider("d_model (embedding size)", D_MODEL_OPTIONS, value=16, key="d_model",
                           bind="query-params", help="Width of each token vector x_i.")
d_k = c2.select_slider("d_k (query/key/value size)", D_K_OPTIONS, value=8, key="d_k", bind="query-params",
                       help="Columns of W_Q, W_K, W_V: the size of each query, key and value.")
with c3:
    seed = seed_control()
positional = c4.toggle("add positional encoding", value=True, key="pe", bind="query-params",
                       help="Add the sinusoidal table PE to the embeddings (off: the head cannot see order).")
c5, c6, c7 = st.columns([1, 1, 2])
scale = c5.toggle("divide by √d_k", value=True, key="scale", bind="query-params")
causal = c6.toggle("causal mask", value=False, key="causal", bind="query-params",
                   help="A decoder's look-ahead mask: query i may only attend to keys j ≤ i.")
temperature = c7.slider("temperature T (sharpness: low T = peaked, high T = flat)", 0.1, 5.0, 1.0, 0.1,
                        key="temp", bind="query-params")

if sentence is None:
    st.stop()
tokens, n = list(sentence.tokens), len(sentence.tokens)
steps = attention_steps(sentence.ids, d_model, d_k, seed, positional, scale, temperature, causal)
dims_model, dims_k = [str(i) for i in range(d_model)], [str(i) for i in range(d_k)]
matrix_height = int(min(620, max(300, 120 + 22 * n)))


def signed(values, rows, cols, title, col_name="dim", mask=None):
    """A signed matrix figure (cached: the same inputs reuse the built figure)."""
    return cached_figure(signed_matrix_figure, values, rows, cols, title, col_name, mask, matrix_height)


SECTIONS = ("Q, K, V", "Scores and softmax", "Output", "Why scale")
vectors_tab, scores_tab, output_tab, scaling_tab = st.tabs(list(SECTIONS), key="section", bind="query-params")
# Lazy tabs: only the open section is built and sent, so a setting redraws that section's charts alone.


def vectors_section():
    """Step 1 and 2: token vectors X [T, d_model] and their projections Q, K, V [T, d_k]."""
    left, right = st.columns([3, 2])
    with right:
        st.markdown("**1 · Token vectors.** Each token's embedding is scaled by $\\sqrt{d_{model}}$ and, if "
                    "switched on, the sinusoidal positional encoding is added, so that the same word at two "
                    "positions gets two different vectors.")
        st.latex(r"X = E_{\text{tokens}}\sqrt{d_{model}} + PE \in \mathbb{R}^{T \times d_{model}}")
        st.caption(f"Shape: T × d_model = {n} × {d_model}")
    with left:
        st.plotly_chart(signed(steps.x, tokens, dims_model, f"X: token vectors{' + PE' if positional else ''} "
                               f"· {n} × {d_model}"), key="x")
    st.markdown("**2 · Queries, keys and values.** Three learned matrices project every token vector: the "
                "**query** is what this token looks for, the **key** what it offers to be found by, the "
                "**value** what it passes on.")
    st.latex(r"Q = XW_Q,\quad K = XW_K,\quad V = XW_V,\qquad W_Q, W_K, W_V \in \mathbb{R}^{d_{model}\times d_k}")
    st.plotly_chart(cached_figure(qkv_figure, steps.q, steps.k, steps.v, tokens,
                                  f"Queries, keys and values · each {n} × {d_k}", matrix_height), key="qkv")


def scores_section():
    """Step 3: raw scores Q K^T, scaled, masked and softmaxed, all [T, T]."""
    st.markdown("**3 · Scores, scaling, mask and softmax.** Every query is compared with every key by a dot "
                "product; the scores are scaled, the mask hides forbidden keys, and a softmax turns each row "
                "into weights that sum to 1.")
    factor = "/ √d_k" if scale else ""
    left, right = st.columns(2)
    with left:
        st.latex(r"S = QK^\top \in \mathbb{R}^{T\times T},\quad S_{ij} = q_i \cdot k_j")
        st.plotly_chart(signed(steps.raw, tokens, tokens, f"Raw scores Q Kᵀ · {n} × {n}", col_name="key"),
                        key="raw")
    with right:
        st.latex(r"\tilde S = \frac{QK^\top}{\sqrt{d_k}\,T}" if scale else r"\tilde S = \frac{QK^\top}{T}")
        st.plotly_chart(signed(steps.scaled, tokens, tokens, f"Scaled scores Q Kᵀ {factor} / T "
                               f"(T = {temperature:g}) · {n} × {n}", col_name="key"), key="scaled")
    left, right = st.columns(2)
    with left:
        if causal:
            st.latex(r"\tilde S_{ij} \leftarrow -\infty \text{ for } j > i \quad(\text{grey: masked})")
            st.plotly_chart(signed(steps.scaled, tokens, tokens, f"Masked scores (causal) · {n} × {n}",
                                   col_name="key", mask=steps.mask), key="masked")
        else:
            st.latex(r"\text{mask: none}")
            st.caption("No mask: every query may attend to every key. Switch on the causal mask above to hide "
                       "the future (the keys to the right of the diagonal).")
    with right:
        st.latex(r"A = \mathrm{softmax}(\tilde S),\quad A_{ij} = \frac{e^{\tilde S_{ij}}}{\sum_{j'} e^{\tilde S_{ij'}}}")
        st.plotly_chart(cached_figure(attention_weights_figure, steps.weights, tokens,
                                      f"Attention weights A (each row sums to 1) · {n} × {n}",
                                      mask=steps.mask if causal else None, height=matrix_height), key="weights")


def output_section():
    """Step 4 and 5: the output A V [T, d_k], and one query's weights and weighted sum."""
    left, right = st.columns([3, 2])
    with right:
        st.markdown("**4 · Output.** Each output row is the average of the value vectors, weighted by that "
                    "query's row of A.")
        st.latex(r"\mathrm{out} = AV \in \mathbb{R}^{T\times d_k},\quad \mathrm{out}_i = \sum_j A_{ij}\, v_j")
    with left:
        st.plotly_chart(signed(steps.output, tokens, dims_k, f"Output A V · {n} × {d_k}"), key="output")
    one_query(steps.weights, steps.mask, steps.v, tokens)


@st.fragment
def one_query(weights, mask, values, tokens):
    """Pick a query token: its attention over the keys and its weighted sum of values."""
    st.markdown("**5 · One query up close.** Pick a query: its row of A, and its output as a weighted sum "
                "of the value vectors.")
    query = st.selectbox("query token", range(len(tokens)), index=min(7, len(tokens) - 1),
                         format_func=lambda i: f"{i}: {tokens[i]}", key="query", bind="query-params")
    left, right = st.columns(2)
    with left:
        st.plotly_chart(cached_figure(query_bar_figure, weights, mask, tokens, query), key="bar")
    with right:
        st.plotly_chart(cached_figure(weighted_values_figure, weights, values, tokens, query), key="sum")


def scaling_section():
    """Step 6: why the scores are divided by sqrt(d_k) (softmax peakedness vs d_k)."""
    left, right = st.columns([3, 2])
    with right:
        st.markdown(
            "For random queries and keys with unit-variance entries, $q\\cdot k$ is a sum of $d_k$ terms, so "
            "its variance is $d_k$. Without scaling, large $d_k$ gives huge scores and the softmax "
            "saturates: one weight near 1, the rest near 0, and tiny gradients. Dividing by $\\sqrt{d_k}$ "
            "brings the variance back to 1 for every $d_k$. The temperature $T$ does the same by hand: "
            "low $T$ sharpens, high $T$ flattens."
        )
        st.latex(r"\mathrm{Var}(q\cdot k) = d_k \;\Rightarrow\; \mathrm{Var}\!\left(\frac{q\cdot k}{\sqrt{d_k}}\right) = 1")
    with left:
        peaks = softmax_peakedness()
        st.plotly_chart(cached_figure(peakedness_figure, peaks.dims, peaks.entropy_scaled, peaks.entropy_unscaled,
                                      peaks.max_scaled, peaks.max_unscaled, peaks.keys,
                                      (d_k, *sentence_peakedness(steps))), key="peaks")


for tab, section in zip((vectors_tab, scores_tab, output_tab, scaling_tab),
                        (vectors_section, scores_section, output_section, scaling_section)):
    if tab.open:
        with tab:
            section()

def numbers_table():
    """One chosen matrix of the chain as a table: rows are tokens, columns dimensions or keys."""
    matrices = {"X (token vectors)": (steps.x, dims_model), "Q": (steps.q, dims_k), "K": (steps.k, dims_k),
                "V": (steps.v, dims_k), "raw scores QKᵀ": (steps.raw, tokens),
                "scaled scores": (steps.scaled, tokens), "attention weights A": (steps.weights, tokens),
                "output AV": (steps.output, dims_k)}
    choice = st.selectbox("matrix", list(matrices), key="numbers", bind="query-params")
    values, columns = matrices[choice]
    frame = pd.DataFrame(values, index=[f"{i}: {t}" for i, t in enumerate(tokens)],
                         columns=[f"{j}: {c}" if columns is tokens else c for j, c in enumerate(columns)])
    masked = choice == "attention weights A" and causal
    st.dataframe(frame.where(steps.mask).round(4) if masked else frame.round(4))
    if masked:
        st.caption("Empty cells are masked.")


# Built only while open (an open table is in the URL as table=true), so a setting does not resend it.
numbers = st.expander("The numbers behind the figures", key="table", bind="query-params")
if numbers.open:
    with numbers:
        numbers_table()
