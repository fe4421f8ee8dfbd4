"""The multi-head page's view of the heads (``HeadsOnText``, what every section draws from) and its sections:
the heads of a layer, all layers, the head view, the mean and the rollout, per-head statistics, and the download
of every weight. The "Compare" and "Concat × W^O" sections are in compare.py and concat.py."""

from dataclasses import dataclass

import numpy as np
import streamlit as st

from transformer import positional_scheme
from ui.cache import cached_figure
from ui.models import LoadedModel
from viz.attention_steps import attention_weights_figure
from viz.head_view import head_view_figure
from viz.heads import head_grid_figure
from viz.overview import overview_figure
from analysis.export import weights_csv
from analysis.head_stats import attention_rollout, head_stats
from ui.charts import chart
from ui.findings import focus_finding, most_read_key, standout_heads, strongest_line
from ui.formulas import formula


@dataclass(frozen=True)
class HeadsOnText:
    """What the sections draw: the ``loaded`` model's self-attention ``weights`` [L, H, T, T] on the
    sentence's ``tokens`` [T] (``ids`` [T]), its causal ``mask`` [T, T] or None, and the layer chosen
    for the heads, head view and mean (``li``, from 0); ``chart_options`` go to every chart (the toolbar's
    image format, picked in the sidebar)."""

    loaded: LoadedModel
    ids: tuple[int, ...]
    tokens: list[str]
    weights: np.ndarray
    mask: np.ndarray | None
    li: int
    chart_options: dict

    @property
    def causal(self) -> bool:
        return self.mask is not None

    @property
    def kind(self) -> str:
        return "decoder (causal) self-attention" if self.causal else "encoder self-attention"


def head_formula(config) -> tuple[str, ...]:
    """Head i's weights as ``config``'s model computes them, as the lines of the formula: the equations, then
    (where there is one) what their symbols stand for, on a line of its own so that the formula fits a laptop's
    column. Projections with or without biases, the positional scheme's rotation R of queries and keys by
    position (RoPE) or its bias B_i on the scores (ALiBi's -m_i |t - s|), Qwen3's RMSNorm N of each head's queries
    and keys, grouped-query attention's shared keys W_{g(i)}^K, and d_k when set on its own."""
    bias = config.qkv_bias if config.qkv_bias is not None else config.bias
    scheme = positional_scheme(config.positional)
    grouped = config.kv_heads < config.num_heads

    def projection(name: str, head: str) -> str:
        head = head if len(head) == 1 else f"{{{head}}}"
        plain = f"XW_{head}^{name}" + (f" + b_{head}^{name}" if bias else "")
        plain = rf"N({plain})" if config.qk_norm else plain
        return f"R({plain})" if scheme.rotate else plain

    q, k = f"Q_i = {projection('Q', 'i')}", f"K_i = {projection('K', 'g(i)' if grouped else 'i')}"
    penalty = " + B_i" if scheme.bias_term else ""
    where = [rf"R: \text{{each row turned by its position, {scheme.label}}}"] if scheme.rotate else []
    if scheme.bias_term:
        where.append(rf"(B_i)_{{ts}} = {scheme.bias_term('i', 't', 's')}\text{{, {scheme.label}}}")
    if config.qk_norm:
        where.append(r"N: \text{RMSNorm of each head's rows}")
    if grouped:
        where.append(rf"g(i): \text{{the key-value head of i's group of {config.num_heads // config.kv_heads}}}")
    d_k = rf"d_k = {config.d_head}" if config.head_dim is not None else r"d_k = d_{model}/h"
    equations = (
        r"A^{(i)} = \mathrm{softmax}\!\left(\frac{Q_i K_i^\top}{\sqrt{d_k}}"
        + penalty
        + r"\right),\quad "
        + q
        + r",\quad "
        + k
        + r",\quad "
        + d_k
    )
    return (equations, r",\quad ".join(where)) if where else (equations,)


def grid_section(view: HeadsOnText) -> None:
    """Every head of the chosen layer, weights[li] [H, T, T], as one tiled figure."""
    li, heads = view.li, view.weights.shape[1]
    chart(
        cached_figure(
            head_grid_figure,
            view.weights[li],
            view.tokens,
            view.tokens,
            f"Layer {li + 1} · {heads} heads · {view.kind}" + focus_finding(view.weights[li]),
            view.mask,
        ),
        key="grid",
        **view.chart_options,
    )
    st.markdown(
        "Each head has its own $W_i^Q, W_i^K$, so it scores the tokens its own way. Rows are queries "
        "(first token at the top), columns are keys; each row sums to 1"
        + ("; grey cells are masked (the future)." if view.causal else ".")
    )
    formula(*head_formula(view.loaded.config))


def overview_section(view: HeadsOnText) -> None:
    """All layers x all heads, weights [L, H, T, T], in one heatmap."""
    layers, heads = view.weights.shape[:2]
    chart(
        cached_figure(
            overview_figure,
            view.weights,
            view.tokens,
            f"{layers} layers × {heads} heads · {view.kind}" + standout_heads(view.weights, view.tokens[0]),
            view.mask,
        ),
        key="overview",
        **view.chart_options,
    )
    st.markdown(
        "The whole stack at a glance: one tile per (layer, head); layer ℓ's heads read the output of "
        "layer ℓ − 1. Hover a cell for its query, key and weight."
    )
    formula(r"A_\ell^{(i)} \in \mathbb{R}^{T\times T},\quad \ell = 1..L,\; i = 1..h")


@st.fragment
def head_view(layer_weights, tokens, layer, heads, options):
    """Lines from each query to each key, opacity = weight; one head or all heads. ``options`` go to the chart."""
    left, right = st.columns(2)
    head = left.selectbox(
        "head",
        range(-1, heads),
        key="hv_head",
        bind="query-params",
        format_func=lambda h: "all heads" if h < 0 else f"head {h + 1}",
    )
    query = right.selectbox(
        "query token",
        range(-1, len(tokens)),
        index=0,
        key="hv_query",
        bind="query-params",
        format_func=lambda i: "all tokens" if i < 0 else f"{i + 1}: {tokens[i]}",
    )
    shown = list(range(heads)) if head < 0 else [head]
    title = f"Layer {layer} · {'all heads' if head < 0 else f'head {head + 1}'} · head view" + strongest_line(
        layer_weights, tokens, shown, None if query < 0 else query
    )
    chart(
        cached_figure(head_view_figure, layer_weights, tokens, shown, None if query < 0 else query, title),
        key="head_view",
        **options,
    )
    st.markdown(
        "Queries on the left, keys on the right; a line's opacity is the attention weight "
        "$A_{ij}^{(h)}$. Pick one head, or all heads in their colours, and one query token or all of them."
    )
    st.caption("Lines for weights below 0.01 are not drawn; opacity is the weight rounded up to a tenth.")


def rollout_section(view: HeadsOnText) -> None:
    """The chosen layer's mean over heads [T, T] and the attention rollout through the stack [T, T]."""
    weights, tokens, mask, li = view.weights, view.tokens, view.mask, view.li
    layers, heads = weights.shape[:2]
    mean, rollout = weights[li].mean(0), attention_rollout(weights)
    left, right = st.columns(2)
    with left:
        chart(
            cached_figure(
                attention_weights_figure,
                mean,
                tokens,
                f"Layer {li + 1} · mean over {heads} heads" + most_read_key(mean, tokens),
                mask=mask,
            ),
            key="mean",
            **view.chart_options,
        )
    with right:
        chart(
            cached_figure(
                attention_weights_figure,
                rollout,
                tokens,
                f"Attention rollout over {layers} layer{'s' * (layers > 1)}" + most_read_key(rollout, tokens),
                mask=mask,
            ),
            key="rollout",
            **view.chart_options,
        )
    st.markdown(
        "Averaging the heads of a layer gives one map per layer. **Attention rollout** (Abnar & Zuidema, 2020) "
        "is a heuristic that follows attention through the stack. It *assumes* that each layer mixes the tokens "
        "by its heads' mean attention and that the residual connection carries half of each token straight "
        "through (the ½·I is their assumption, not a measured share), and multiplies the layers' maps:"
    )
    formula(
        r"\hat A_\ell = \mathrm{rownorm}\!\left(\tfrac12\,\tfrac1h\textstyle\sum_i A_\ell^{(i)} + \tfrac12 I\right),"
        r"\qquad \tilde A = \hat A_L \cdots \hat A_2\,\hat A_1"
    )
    st.caption(
        "Rollout ignores the values, W^O, the feed-forward networks and LayerNorm, so it is a rough map of "
        "where attention could route information, not a measurement of how much of token j reaches output i."
    )


def stats_section(view: HeadsOnText) -> None:
    """Per-head statistics of weights [L, H, T, T]: one table row per (layer, head), and a note on the columns
    that have no value when the text is one token."""
    st.markdown(
        "Averaged over the queries of each head: the entropy of its rows, in nats and divided by ln of the "
        "number of keys the row may attend to (1 = spread evenly over them, 0 = one key: under a causal mask "
        "row i, counted from 1, sees i keys, so its most even spread is ln i, not ln T; rows with one key are "
        "left out), the weight on the previous token, on the first token and on itself, and the mean distance "
        "|i − j| it looks across. Click a column header to sort."
    )
    formula(
        r"H_i = -\textstyle\sum_j A_{ij}\ln A_{ij},\quad \hat H = \operatorname{mean}_{i:\,n_i \ge 2} "
        r"\frac{H_i}{\ln n_i},\quad \bar d = \tfrac1T\sum_i\sum_j A_{ij}\,|i-j|"
    )
    stats = head_stats(view.weights, view.mask)
    blank = [name for name in ("entropy / ln(keys)", "on previous token") if stats[name].isna().all()]
    if blank:
        st.info(
            f"The text is {len(view.tokens)} token{'s' * (len(view.tokens) != 1)}: "
            + "; ".join(
                "no row has two or more keys, so there is no spread to divide by ln(keys)"
                if name == "entropy / ln(keys)"
                else "no token has a previous token"
                for name in blank
            )
            + f". The column{'s' * (len(blank) > 1)} "
            + " and ".join(f"“{name}”" for name in blank)
            + f" {'have' if len(blank) > 1 else 'has'} no value in any head. Type a longer text to fill "
            + ("them." if len(blank) > 1 else "it.")
        )
    st.dataframe(stats.round(3), hide_index=True, key="stats")


def download(view: HeadsOnText) -> None:
    """Every weight of the stack as a long CSV."""
    layers, heads, n = *view.weights.shape[:2], len(view.tokens)
    weights, tokens = view.weights, view.tokens  # the file is made later: it holds these, not the model
    st.header("Download")
    st.download_button(
        "Attention weights as CSV (long form)",
        data=lambda: weights_csv(weights, tokens),
        file_name="attention_weights.csv",
        mime="text/csv",
        on_click="ignore",
        key="csv",
        help=f"One row per layer, head, query and key ({layers * heads * n * n:,} rows): layer, head, "
        "query position, query token, key position, key token, weight.",
    )
    st.caption(
        "One row per layer, head, query and key. Each figure's toolbar saves it as an image (camera icon; "
        "PNG or SVG, chosen in the sidebar)."
    )
