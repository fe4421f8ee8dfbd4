"""Self-attention, step by step: one real head of the selected model on the user's own sentence."""

import numpy as np
import pandas as pd
import streamlit as st

from pages.self_attention.steps import attention_steps, sentence_peakedness, softmax_peakedness
from ui.controls import head_options, positional_control, seed_control
from ui.figure_cache import cached_figure
from ui.forward import random_stack, stack_config
from ui.model_picker import load_or_stop, model_choice
from ui.routing import require_navigation
from ui.text import sentence_input
from viz.attention_steps import (attention_weights_figure, peakedness_figure, qkv_figure, query_bar_figure,
                                 signed_matrix_figure, weighted_values_figure)

require_navigation()

DEFAULT_TEXT = "The animal didn't cross the street because it was too tired"
D_MODEL_OPTIONS = (4, 8, 16, 32, 64, 128)
FITS = ("encoder-only", "decoder-only", "encoder-decoder")

st.title("Self-attention, step by step")
st.markdown(
    "Self-attention turns a sequence of token vectors into a new sequence of the same length: each "
    "position takes a weighted combination of all positions, and the weights say how much each other "
    "token influences this one. Below, one real head of a model runs on your sentence (pick the layer and "
    "the head), and every intermediate matrix is drawn with its shape."
)
st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V")

choice = model_choice(FITS)
if choice is None:
    c1, c2, c3, c4, c5, c6 = st.columns([1.3, 1, 1, 1, 1, 1])
    d_model = c1.select_slider("d_model (embedding size)", D_MODEL_OPTIONS, value=16, key="d_model",
                               bind="query-params", help="Width of each token vector x_i.")
    positional = positional_control(container=c5)
    options = head_options(d_model, positional)
    heads = c2.selectbox("heads h", options, index=min(1, len(options) - 1), key="heads", bind="query-params",
                         help="Each head gets d_k = d_model / h dimensions for its queries, keys and values.")
    n_layers = c3.selectbox("layers", [1, 2, 3, 4], key="layers", bind="query-params")
    with c4:
        seed = seed_control()
    causal = c6.toggle("causal mask", value=False, key="causal", bind="query-params",
                       help="A decoder's look-ahead mask: query i may only attend to keys j ≤ i. On: a decoder-only "
                            "(GPT-style) model; off: an encoder-only (BERT-style) one, with the same weights.")
    spec = random_stack(stack_config(int(n_layers or 1), d_model=d_model, num_heads=int(heads or 1),
                                     d_ff=4 * d_model, dropout=0.0,
                                     positional=positional), seed, causal)
else:
    spec = choice
loaded = load_or_stop(spec)
config = loaded.config
model_layers = config.num_decoder_layers if loaded.kind == "decoder-only" else config.num_encoder_layers
d_model, d_k = config.d_model, config.d_head
causal = loaded.kind == "decoder-only"

c1, c2, c3, c4 = st.columns([1, 1, 1, 2])
layer = c1.selectbox("layer", list(range(1, model_layers + 1)), key="layer", bind="query-params",
                     help="Layers and heads are numbered from 1.")
head = c2.selectbox("head", list(range(1, config.num_heads + 1)), key="head", bind="query-params")
layer, head = min(int(layer or 1), model_layers), min(int(head or 1), config.num_heads)
scale = c3.toggle("divide by √d_k", value=True, key="scale", bind="query-params",
                  help="What if the scores were not scaled? The model itself always computes with its own setting.")
temperature = c4.slider("temperature τ (sharpness: low τ = peaked, high τ = flat)", 0.1, 5.0, 1.0, 0.1,
                        key="temp", bind="query-params",
                        help="A what-if on this head's softmax: the model computes with τ = 1.")
what = "the encoder of " if loaded.kind == "encoder-decoder" else ""
st.caption(f"Model: {loaded.label}; {what}layer {layer} of {model_layers}, head {head} of {config.num_heads}, "
           f"d_k = d_model / h = {d_model} / {config.num_heads} = {d_k}. "
           + ("Causal: query i sees keys j ≤ i." if causal else "Bidirectional: every query sees every key."))

sentence = sentence_input("Sentence", DEFAULT_TEXT, key="text", tokenizer=loaded.tokenizer)
if sentence is None:
    st.stop()
tokens, n = list(sentence.tokens), len(sentence.tokens)
steps = attention_steps(spec, sentence.ids, layer - 1, head - 1, scale, temperature)
dims_model, dims_k = [str(i) for i in range(d_model)], [str(i) for i in range(d_k)]
matrix_height = int(min(620, max(300, 120 + 22 * n)))


def signed(values, rows, cols, title, col_name="dim", mask=None):
    """A signed matrix figure (cached: the same inputs reuse the built figure)."""
    return cached_figure(signed_matrix_figure, values, rows, cols, title, col_name, mask, matrix_height)


SECTIONS = ("Q, K, V", "Scores and softmax", "Output", "Why scale")
vectors_tab, scores_tab, output_tab, scaling_tab = st.tabs(list(SECTIONS), key="section", bind="query-params")
# Lazy tabs: only the open section is built and sent, so a setting redraws that section's charts alone.


def input_description() -> tuple[str, str, str]:
    """What X is for the chosen layer and model: markdown, its formula, a short name for the title."""
    pe = {"sinusoidal": " + PE", "learned": " + P_{\\text{learned}}"}.get(config.positional, "")
    scaled = "\\sqrt{d_{model}}" if config.embed_scale else ""
    types = " + E_{\\text{type}}" if config.type_vocab_size else ""
    embed = f"E_{{\\text{{tokens}}}}{scaled}{pe}{types}"
    embed = f"\\mathrm{{LN}}({embed})" if config.embed_norm else embed
    where = {"rotary": " Position enters inside attention instead: q and k are rotated by their position (RoPE).",
             "alibi": " Position enters inside attention instead: a distance penalty is added to the scores (ALiBi).",
             "none": " There is no positional encoding: the head cannot tell word order."}.get(config.positional, "")
    if layer == 1:
        text = ("**1 · Token vectors.** Each token's embedding"
                + (" is scaled by $\\sqrt{d_{model}}$ and" if config.embed_scale else "")
                + (" gets its position's vector added, so that the same word at two positions gets two "
                   "different vectors." if pe else " is looked up.") + where)
        parts = " + ".join(["token vectors"] + (["positions"] if pe else []) + (["types"] if types else []))
        name = f"LN({parts})" if config.embed_norm else ("token vectors + PE" if pe and not types else parts)
        formula = f"X = {embed}"
    else:
        text = (f"**1 · The layer's input.** Layer {layer} reads the output of layer {layer - 1}: each token's "
                "vector now mixes in the tokens it attended to before.")
        formula, name = f"X = \\text{{output of layer }} {layer - 1}", f"output of layer {layer - 1}"
    if config.norm_first:
        text += " This model is pre-LN, so W_Q, W_K and W_V read the vectors after LayerNorm 1."
        formula, name = f"\\mathrm{{LN}}_1({formula.split(' = ', 1)[1]})", f"LN₁({name})"
        formula = f"X = {formula}"
    return text, formula + " \\in \\mathbb{R}^{T \\times d_{model}}", name


def vectors_section():
    """Step 1 and 2: token vectors X [T, d_model] and their projections Q, K, V [T, d_k]."""
    left, right = st.columns([3, 2])
    text, formula, name = input_description()
    with right:
        st.markdown(text)
        st.latex(formula)
        st.caption(f"Shape: T × d_model = {n} × {d_model}")
    with left:
        st.plotly_chart(signed(steps.x, tokens, dims_model, f"X: {name} · {n} × {d_model}"), key="x")
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
        st.latex(r"\tilde S = \frac{QK^\top}{\sqrt{d_k}\,\tau}" if scale else r"\tilde S = \frac{QK^\top}{\tau}")
        st.plotly_chart(signed(steps.scaled, tokens, tokens, f"Scaled scores Q Kᵀ {factor} / τ "
                               f"(τ = {temperature:g}) · {n} × {n}", col_name="key"), key="scaled")
    left, right = st.columns(2)
    with left:
        if causal:
            st.latex(r"\tilde S_{ij} \leftarrow -\infty \text{ for } j > i \quad(\text{grey: masked})")
            st.plotly_chart(signed(steps.scaled, tokens, tokens, f"Masked scores (causal) · {n} × {n}",
                                   col_name="key", mask=steps.mask), key="masked")
        else:
            st.latex(r"\text{mask: none}")
            st.caption("No mask: every query may attend to every key."
                       + (" Switch on the causal mask above to hide the future (the keys to the right of the "
                          "diagonal)." if spec.source == "random" else " This model is bidirectional."))
    with right:
        st.latex(r"A = \mathrm{softmax}(\tilde S),\quad A_{ij} = \frac{e^{\tilde S_{ij}}}{\sum_{j'} e^{\tilde S_{ij'}}}")
        st.plotly_chart(cached_figure(attention_weights_figure, steps.weights, tokens,
                                      f"Attention weights A (each row sums to 1) · {n} × {n}",
                                      mask=steps.mask if causal else None, height=matrix_height), key="weights")
    difference = float(np.abs(steps.weights - steps.model_weights).max())
    if scale == config.scale_scores and temperature == 1.0:
        st.caption(f"These are the model's own weights for layer {layer}, head {head}: "
                   f"max |A − A_model| = {difference:.1e} (float rounding).")
    else:
        st.caption(f"A what-if: the model itself computes with{'' if config.scale_scores else 'out'} the "
                   f"√d_k scaling and τ = 1; its own weights differ from these by up to {difference:.2f}.")


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
    query = st.selectbox("query token", range(len(tokens)), index=tokens.index("it") if "it" in tokens else min(7, len(tokens) - 1),
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
            "brings the variance back to 1 for every $d_k$. The temperature $\\tau$ does the same by hand: "
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
