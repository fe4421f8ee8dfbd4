"""The encoder-decoder page's sections on one encoder layer, the one picked by the ``enc_layer`` slider both
share: "One layer" (the vector norms along the residual stream and LayerNorm's statistics, step by step) and
"Feed-forward" (how many hidden units fire for each token)."""

import numpy as np
import pandas as pd
import streamlit as st

from ui.controls import stops_slider
from analysis.decoder_tables import numbered
from pages.encoder_decoder.controls import three_decimals
from pages.encoder_decoder.figures import ffn_figure, layernorm_stats_figure, norms_figure
from pages.encoder_decoder.layer_steps import layer_steps
from pages.encoder_decoder.sections import SentencePair
from ui.charts import chart
from ui.formulas import formula


def pick_encoder_layer(pair: SentencePair):
    """The encoder layer (1-based) the layer sections show, and its steps; both sections share the URL key
    ``enc_layer`` (a lesson link uses ``step``)."""
    config = pair.config
    layer = stops_slider(
        "encoder layer", range(1, config.num_encoder_layers + 1), "enc_layer", container=st.columns(3)[0]
    )
    return layer, layer_steps(pair.forward(), layer - 1, config.norm_first)


def add_and_norm_rule(norm_first: bool) -> None:
    """Where LayerNorm sits, in words and as the layer's two lines."""
    if norm_first:
        st.markdown(
            "**Pre-LN**: each sub-layer reads a normalised copy; the residual stream itself is "
            "never normalised, so its norm can grow from layer to layer."
        )
        formula(r"x' = x + \mathrm{MHA}(\mathrm{LN}_1(x)),\qquad y = x' + \mathrm{FFN}(\mathrm{LN}_2(x'))")
    else:
        st.markdown(
            "**Post-LN** (the paper): add the sub-layer's output to its input (the residual "
            "connection), then normalise the sum."
        )
        formula(r"x' = \mathrm{LN}_1(x + \mathrm{MHA}(x)),\qquad y = \mathrm{LN}_2(x' + \mathrm{FFN}(x'))")


def norms_finding(names: list[str], norms: np.ndarray) -> str:
    """The norms' title ending: the tokens' mean norm ``norms [S, L]`` at the first and last step, and its largest."""
    mean = norms.mean(-1)
    big = int(np.argmax(mean))
    return (
        f": on average {mean[0]:.2f} at “{names[0]}”, {mean[-1]:.2f} at “{names[-1]}”, "
        f"the most {mean[big]:.2f} at “{names[big]}”"
    )


def layernorm_finding(before: tuple[np.ndarray, ...], after: tuple[np.ndarray, ...]) -> str:
    """The LayerNorm statistics' title ending: the tokens' stds (over features) before and after every LayerNorm,
    and how far their means are from 0 after it (``before``, ``after``: ``[L, d]`` a LayerNorm)."""
    spread = [np.concatenate([x.std(-1) for x in xs]) for xs in (before, after)]
    off = float(np.abs(np.concatenate([x.mean(-1) for x in after])).max())
    return (
        f": std {spread[0].min():.2f}–{spread[0].max():.2f} before, {spread[1].min():.2f}–{spread[1].max():.2f} "
        f"after, means within {off:.2f} of 0"
    )


@st.fragment
def layer_section(pair: SentencePair):
    """One encoder layer step by step: vector norms along the residual stream, LayerNorm statistics."""
    config, source, trained = pair.config, pair.source, pair.trained
    st.header("One layer, step by step")
    layer, steps = pick_encoder_layer(pair)
    names = [name for name, _ in steps.stages]
    norms = np.stack([np.linalg.norm(v, axis=-1) for _, v in steps.stages]).astype(np.float32)
    chart(
        norms_figure(
            tuple(names),
            norms,
            source.tokens,
            f"Encoder layer {layer} · vector norm of each token after each step" + norms_finding(names, norms),
        ),
        width="stretch",
    )
    add_and_norm_rule(config.norm_first)
    numbers = st.expander("The numbers behind this figure", key="norm_numbers", bind="query-params")
    if numbers.open:  # built only when opened
        with numbers:
            table = pd.DataFrame(norms.T, index=numbered(source.tokens), columns=names)
            st.dataframe(table, width="stretch", column_config=three_decimals(names))
    st.markdown(
        "**LayerNorm** rescales each token's vector on its own: it subtracts the mean of its "
        f"{config.d_model} features and divides by their standard deviation, then applies a learned "
        + (
            "gain and bias (here 1 and 0, as initialised). After it, every token has mean 0 and std 1, "
            f"so its norm is sqrt(d_model) = {config.d_model**0.5:.2f}: the flat points in the figure above."
            if not trained
            else "gain γ and bias β per feature (trained here), so after it the tokens' norms are set by γ and β "
            "rather than fixed at sqrt(d_model)."
        )
    )
    formula(
        r"\mathrm{LN}(x) = \gamma \odot \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}} + \beta,\quad "
        r"\mu = \tfrac{1}{d}\textstyle\sum_i x_i,\ \sigma^2 = \tfrac{1}{d}\sum_i (x_i - \mu)^2"
    )
    ln_names, before, after = zip(*steps.norms)
    chart(
        layernorm_stats_figure(
            ln_names,
            before,
            after,
            source.tokens,
            f"Encoder layer {layer} · mean and std of each token, before and after LayerNorm"
            + layernorm_finding(before, after),
        ),
        width="stretch",
    )


@st.fragment
def ffn_section(pair: SentencePair):
    """How many feed-forward hidden units fire for each token of one encoder layer."""
    config, source = pair.config, pair.source
    st.header("Feed-forward: units firing per token")
    if not config.feed_forward:
        st.info("This model is attention-only: its layers have no feed-forward network.")
        return
    layer, steps = pick_encoder_layer(pair)
    act = "ReLU" if config.activation == "relu" else "GELU"
    active = np.asarray(steps.ffn_active, np.float64)
    chart(
        ffn_figure(
            steps.ffn_active,
            source.tokens,
            config.d_ff,
            f"Encoder layer {layer} · {act}: a token fires {active.mean():.0%} of the {config.d_ff} feed-forward "
            f"units on average ({active.min():.0%} to {active.max():.0%})",
        ),
        width="stretch",
    )
    st.markdown(
        f"The **feed-forward** network expands each token to d_ff = {config.d_ff} hidden units, "
        f"applies {act} and projects back. A unit *fires* for a token when its activation is > 0"
        + (
            " (ReLU sets every other unit to exactly 0)."
            if act == "ReLU"
            else " (GELU lets small negative values through, so we count those > 0)."
        )
    )
    formula(
        r"\mathrm{FFN}(x) = \mathrm{%s}(xW_1 + b_1)W_2 + b_2,\quad W_1 \in \mathbb{R}^{%d\times %d}"
        % ("max(0,\\cdot)" if act == "ReLU" else "GELU", config.d_model, config.d_ff)
    )
