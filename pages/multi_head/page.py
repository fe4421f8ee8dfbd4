"""Multi-head attention: every head of every layer of a configurable stack on the user's sentence."""

from dataclasses import dataclass

import numpy as np
import streamlit as st

from transformer import causal_mask
from ui.controls import (NUMBERING, d_model_control, heads_control, layers_control, positional_control, section_picker,
                         seed_control, stops_slider)
from ui.cache import cached_figure
from ui.forward import random_stack, self_attention_maps, stack_config
from ui.model_picker import load_or_stop, model_choice
from ui.models import LoadedModel
from transformer.spec import ModelSpec
from ui.text import sentence_input
from viz.attention_steps import attention_weights_figure
from viz.head_view import head_view_figure
from viz.heads import compare_figure, head_grid_figure
from viz.overview import overview_figure
from analysis.export import weights_csv
from analysis.head_stats import attention_rollout, head_stats
from ui.routing import require_navigation
from ui.charts import chart
from ui.presentation import explanation
from ui.screen import figure_first, settings
from pages.multi_head.concat import concat_section

require_navigation()

DEFAULT_TEXT = "The animal didn't cross the street because it was too tired"
SECOND_TEXT = "The animal didn't cross the street because it was too wide"
FITS = ("encoder-only", "decoder-only", "encoder-decoder")  # any model with a self-attention stack

st.title("Multi-head attention")
with explanation():
    st.markdown(
        "Instead of one attention function, the Transformer runs several **heads** in parallel. Each head "
        "projects the queries, keys and values into its own subspace of $d_k = d_{model}/h$ dimensions, so "
        "different heads can attend to different relations. Their outputs are concatenated and projected "
        "again. A random model (the default) shows the mechanics, not learned linguistics; pick a trained "
        "or pretrained model to see what heads learn."
    )
    st.caption("A caveat for every map here: attention weights show where information may flow, not why the model "
               "decided what it did (Jain & Wallace, 2019). A head's output is its weights times its values, then "
               "W^O, and later layers may use it or not. To test what a head is needed for, take it away: the "
               "Experiments page knocks heads out and patches them.")
    st.latex(r"\mathrm{MultiHead}(Q,K,V) = \mathrm{Concat}(\mathrm{head}_1,\dots,\mathrm{head}_h)\,W^O,\quad "
             r"\mathrm{head}_i = \mathrm{Attention}(QW_i^Q, KW_i^K, VW_i^V)")
    st.caption(NUMBERING)

image_format = st.sidebar.radio("save figures as", ["png", "svg"], key="img", bind="query-params",
                                horizontal=True, help="The format of the camera button in each chart's toolbar.")
CHART = dict(config={"toImageButtonOptions": {"format": image_format, "scale": 2}})
ONE_BASED = dict(format_func=lambda i: str(i + 1))
SECTIONS = ("Heads of a layer", "All layers", "Head view", "Mean and rollout", "Statistics", "Compare",
            "Concat × W^O")


@dataclass(frozen=True)
class HeadsOnText:
    """What the sections draw: the ``loaded`` model's self-attention ``weights`` [L, H, T, T] on the
    sentence's ``tokens`` [T] (``ids`` [T]), its causal ``mask`` [T, T] or None, and the layer chosen
    for the heads, head view and mean (``li``, from 0)."""

    loaded: LoadedModel
    ids: tuple[int, ...]
    tokens: list[str]
    weights: np.ndarray
    mask: np.ndarray | None
    li: int

    @property
    def causal(self) -> bool:
        return self.mask is not None

    @property
    def kind(self) -> str:
        return "decoder (causal) self-attention" if self.causal else "encoder self-attention"


def random_model() -> ModelSpec:
    """The settings row of a random stack (layers, d_model, heads, positions, seed, causal) and its spec."""
    c1, c2, c3, c4, c5, c6 = st.columns([1, 1.3, 1, 1.3, 1, 1.1])
    with c1:
        layers = layers_control()
    with c2:
        d_model = d_model_control()
    with c4:
        positional = positional_control()
    with c3:
        heads = heads_control(d_model, positional)
    with c5:
        seed = seed_control()
    causal = c6.toggle("causal mask", value=False, key="causal", bind="query-params",
                       help="Off: a bidirectional encoder (every token sees every token). "
                            "On: a decoder's causal mask (token i sees only tokens j ≤ i). Same weights either way.")
    try:
        return random_stack(stack_config(layers, d_model=d_model, num_heads=heads, d_ff=4 * d_model, dropout=0.0,
                                         positional=positional), seed, causal)
    except ValueError as error:
        st.error(str(error))
        st.stop()


def head_formula(config) -> str:
    """Head i's weights as ``config``'s model computes them: projections with or without biases, RoPE's rotation
    R of queries and keys by position, ALiBi's penalty -m_i |t - s| on the scores."""
    bias = config.bias
    def projection(name: str) -> str:
        plain = f"XW_i^{name}" + (f" + b_i^{name}" if bias else "")
        return f"R({plain})" if config.positional == "rotary" else plain
    q, k = f"Q_i = {projection('Q')}", f"K_i = {projection('K')}"
    penalty = r" - m_i D" if config.positional == "alibi" else ""
    where = {"rotary": r",\quad R: \text{each row turned by its position (RoPE)}",
             "alibi": r",\quad D_{ts} = |t - s| \text{ (ALiBi)}"}.get(config.positional, "")
    return (r"A^{(i)} = \mathrm{softmax}\!\left(\frac{Q_i K_i^\top}{\sqrt{d_k}}" + penalty + r"\right),\quad "
            + q + r",\quad " + k + r",\quad d_k = d_{model}/h" + where)


def grid_section(view: HeadsOnText) -> None:
    """Every head of the chosen layer, weights[li] [H, T, T], as one tiled figure."""
    li, heads = view.li, view.weights.shape[1]
    st.markdown("Each head has its own $W_i^Q, W_i^K$, so it scores the tokens its own way. Rows are queries "
                "(first token at the top), columns are keys; each row sums to 1"
                + ("; grey cells are masked (the future)." if view.causal else "."))
    st.latex(head_formula(view.loaded.config))
    chart(cached_figure(head_grid_figure, view.weights[li], view.tokens, view.tokens,
                        f"Layer {li + 1} · {heads} heads · {view.kind}", view.mask), key="grid", **CHART)


def overview_section(view: HeadsOnText) -> None:
    """All layers x all heads, weights [L, H, T, T], in one heatmap."""
    layers, heads = view.weights.shape[:2]
    st.markdown("The whole stack at a glance: one tile per (layer, head); layer ℓ's heads read the output of "
                "layer ℓ − 1. Hover a cell for its query, key and weight.")
    st.latex(r"A_\ell^{(i)} \in \mathbb{R}^{T\times T},\quad \ell = 1..L,\; i = 1..h")
    chart(cached_figure(overview_figure, view.weights, view.tokens,
                        f"{layers} layers × {heads} heads · {view.kind}", view.mask), key="overview", **CHART)


@st.fragment
def head_view(layer_weights, tokens, layer, heads):
    """Lines from each query to each key, opacity = weight; one head or all heads."""
    st.markdown("Queries on the left, keys on the right; a line's opacity is the attention weight "
                "$A_{ij}^{(h)}$. Pick one head, or all heads in their colours, and one query token or all of them.")
    left, right = st.columns(2)
    head = left.selectbox("head", range(-1, heads), key="hv_head", bind="query-params",
                          format_func=lambda h: "all heads" if h < 0 else f"head {h + 1}")
    query = right.selectbox("query token", range(-1, len(tokens)), index=0, key="hv_query", bind="query-params",
                            format_func=lambda i: "all tokens" if i < 0 else f"{i + 1}: {tokens[i]}")
    shown = list(range(heads)) if head < 0 else [head]
    title = f"Layer {layer} · {'all heads' if head < 0 else f'head {head + 1}'} · head view"
    chart(cached_figure(head_view_figure, layer_weights, tokens, shown,
                        None if query < 0 else query, title), key="head_view", **CHART)
    st.caption("Lines for weights below 0.01 are not drawn; opacity is the weight rounded up to a tenth.")


def rollout_section(view: HeadsOnText) -> None:
    """The chosen layer's mean over heads [T, T] and the attention rollout through the stack [T, T]."""
    weights, tokens, mask, li = view.weights, view.tokens, view.mask, view.li
    layers, heads = weights.shape[:2]
    st.markdown(
        "Averaging the heads of a layer gives one map per layer. **Attention rollout** (Abnar & Zuidema, 2020) "
        "is a heuristic that follows attention through the stack. It *assumes* that each layer mixes the tokens "
        "by its heads' mean attention and that the residual connection carries half of each token straight "
        "through (the ½·I is their assumption, not a measured share), and multiplies the layers' maps:"
    )
    st.latex(r"\hat A_\ell = \mathrm{rownorm}\!\left(\tfrac12\,\tfrac1h\textstyle\sum_i A_\ell^{(i)} + \tfrac12 I\right),"
             r"\qquad \tilde A = \hat A_L \cdots \hat A_2\,\hat A_1")
    left, right = st.columns(2)
    with left:
        chart(cached_figure(attention_weights_figure, weights[li].mean(0), tokens,
                            f"Layer {li + 1} · mean over {heads} heads", mask=mask), key="mean", **CHART)
    with right:
        chart(cached_figure(attention_weights_figure, attention_rollout(weights), tokens,
                            f"Attention rollout over {layers} layer{'s' * (layers > 1)}", mask=mask),
              key="rollout", **CHART)
    st.caption("Rollout ignores the values, W^O, the feed-forward networks and LayerNorm, so it is a rough map of "
               "where attention could route information, not a measurement of how much of token j reaches output i.")


def stats_section(view: HeadsOnText) -> None:
    """Per-head statistics of weights [L, H, T, T]: one table row per (layer, head)."""
    st.markdown("Averaged over the queries of each head: the entropy of its rows, in nats and divided by ln of the "
                "number of keys the row may attend to (1 = spread evenly over them, 0 = one key: under a causal mask "
                "row i sees i + 1 keys, so its most even spread is ln(i + 1), not ln T; rows with one key are left "
                "out), the weight on the previous token, on the first token and on itself, and the mean distance "
                "|i − j| it looks across. Click a column header to sort.")
    st.latex(r"H_i = -\textstyle\sum_j A_{ij}\ln A_{ij},\quad \hat H = \operatorname{mean}_{i:\,n_i \ge 2} "
             r"\frac{H_i}{\ln n_i},\quad \bar d = \tfrac1T\sum_i\sum_j A_{ij}\,|i-j|")
    st.dataframe(head_stats(view.weights, view.mask).round(3), hide_index=True, key="stats")


@st.fragment
def compare(weights, tokens, spec, tokenizer, causal):
    """Two heads, or one head on two sentences, side by side with their difference. On a small screen the
    heads (and the second sentence) fold into a closed expander, and the explanation follows the figure."""
    intro = figure_first()

    def explain() -> None:
        intro.text().markdown("Two heads side by side, or one head on two sentences, and their difference "
                              "$A_1 - A_2$ (red: more weight in the first, blue: in the second).")

    mode = st.segmented_control("compare", ["two heads", "one head, two sentences"], default="two heads",
                                required=True, key="cmp", bind="query-params")
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
        names = (f"layer {lc + 1} · head {hc + 1} · first sentence", f"layer {lc + 1} · head {hc + 1} · second sentence")
        if first.shape != second.shape:
            st.info(f"The sentences have {first.shape[0]} and {second.shape[0]} tokens: the difference needs "
                    "the same number of tokens, so only the two maps are shown.")
    chart(cached_figure(compare_figure, first, second, tokens, tokens_b, *names,
                        f"Compare · {names[0]} vs {names[1]}", causal=causal), key="compare", **CHART)
    explain()


SECTION_VIEWS = {
    "Heads of a layer": grid_section, "All layers": overview_section,
    "Head view": lambda v: head_view(v.weights[v.li], v.tokens, v.li + 1, v.weights.shape[1]),
    "Mean and rollout": rollout_section, "Statistics": stats_section,
    "Compare": lambda v: compare(v.weights, v.tokens, v.loaded.spec, v.loaded.tokenizer, v.causal),
    "Concat × W^O": lambda v: concat_section(v.loaded, v.ids, v.tokens, v.li + 1, CHART)}


def download(view: HeadsOnText) -> None:
    """Every weight of the stack as a long CSV."""
    layers, heads, n = *view.weights.shape[:2], len(view.tokens)
    weights, tokens = view.weights, view.tokens  # the file is made later: it holds these, not the model
    st.header("Download")
    st.download_button("Attention weights as CSV (long form)", data=lambda: weights_csv(weights, tokens),
                       file_name="attention_weights.csv", mime="text/csv", on_click="ignore", key="csv",
                       help=f"One row per layer, head, query and key ({layers * heads * n * n:,} rows): layer, head, "
                            "query position, query token, key position, key token, weight.")
    st.caption("One row per layer, head, query and key. Each figure's toolbar saves it as an image (camera icon; "
               "PNG or SVG, chosen in the sidebar).")


@st.fragment
def heads_view() -> None:
    """The model picker, the random stack's settings (when no other model is picked) or the picked model, the
    sentence, the layer and the open section. A setting or another model reruns this part only, not the page's
    title, explanation and navigation."""
    with settings("Model, sentence and layer"):
        choice = model_choice(FITS)
        loaded = load_or_stop(random_model() if choice is None else choice)
        causal = loaded.kind == "decoder-only"
        st.caption(f"Model: {loaded.label}. " + ("Its decoder is causal: token i sees only tokens j ≤ i."
                                                if causal else "Bidirectional: every token sees every token."))
        sentence = sentence_input("Sentence", DEFAULT_TEXT, key="text", tokenizer=loaded.tokenizer)
        if sentence is None:
            return
        tokens, n = list(sentence.tokens), len(sentence.tokens)
        weights = self_attention_maps(loaded.spec, sentence.ids)  # [L, H, T, T]
        layers = weights.shape[0]
        layer = stops_slider("layer (for the heads, head view and mean)", range(1, layers + 1), "layer")
    # layers and heads are numbered from 1 on screen, indexed from 0 here
    view = HeadsOnText(loaded, tuple(sentence.ids), tokens, weights, causal_mask(n).numpy() if causal else None,
                       layer - 1)
    open_section(view)


@st.fragment
def open_section(view: HeadsOnText) -> None:
    """The row of sections and the open one (only it is built and sent), then the download: another section
    reruns this part only, not the model, the sentence and the layer."""
    SECTION_VIEWS[section_picker(SECTIONS)](view)
    download(view)


heads_view()
