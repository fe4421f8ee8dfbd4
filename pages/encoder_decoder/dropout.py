"""The encoder-decoder page's "Dropout" section: what training-mode dropout would do to one encoder layer.

The model is never put in training mode (it is shared, read-only, between sessions): the
section takes the evaluation-mode arrays of the forward record (one head's attention weights,
one sub-layer's output before its residual add) and applies a seeded Bernoulli keep-mask
to them with ``analysis.dropout``, exactly as ``nn.Dropout`` does in training.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from analysis.dropout import dropout_view, row_sums
from transformer.positional_schemes import EMBEDDING, positional_scheme
from ui.charts import chart
from ui.controls import stops_slider
from ui.cache import shared_figure
from ui.screen import settings
from ui.formulas import formula
from viz.dropout import MAX_COLUMNS, dropout_activations_figure, dropout_weights_figure

SUBLAYERS = {"attn": "self-attention", "ffn": "feed-forward"}
STREAMS = {"weights": 0, "attn": 1, "ffn": 2}  # one mask per place, all from the same seed


@shared_figure
def _weights_figure(before, after, keep, tokens, p, title):
    return dropout_weights_figure(before, after, keep, tokens, tokens, p, title)


@shared_figure
def _activations_figure(before, after, keep, tokens, p, title):
    return dropout_activations_figure(before, after, keep, tokens, p, title)


def _explain(config) -> None:
    """What dropout is, the formula, and where this package's model (``config``) applies it."""
    embedded = (
        r"E[\text{token}]"
        + (r"\sqrt{d_{model}}" if config.embed_scale else "")
        + (" + PE" if positional_scheme(config.positional).acts_in == EMBEDDING else "")
    )
    embedded = rf"\mathrm{{LN}}({embedded})" if config.embed_norm else embedded
    st.markdown(
        "**Dropout** is a regulariser used only while **training**: at every training step each entry of "
        "a tensor is set to 0 with probability $p$, and the survivors are scaled by $1/(1-p)$ so that the "
        "expected value stays the same. **Evaluation** (every other figure of this dashboard, and the "
        "model at inference) turns it off: $\\mathrm{dropout}(x) = x$. Here the evaluation-mode numbers "
        "of the forward pass go through one such random mask, drawn from the mask seed; training draws "
        "a new mask at every step."
    )
    formula(
        r"\mathrm{dropout}(x)_i = \frac{m_i\,x_i}{1-p},\qquad m_i \sim \mathrm{Bernoulli}(1-p),"
        r"\qquad \mathbb{E}[\mathrm{dropout}(x)_i] = x_i"
    )
    inside = (
        "3. inside the feed-forward, on the hidden units: "
        "$\\mathrm{dropout}(\\mathrm{act}(xW_1 + b_1))\\,W_2 + b_2$;\n4. "
        if config.feed_forward
        else "3. "
    )
    residual = (
        r"x' = x + \mathrm{dropout}(\mathrm{Sublayer}(\mathrm{LN}(x)))"
        if config.norm_first
        else r"x' = \mathrm{LN}(x + \mathrm{dropout}(\mathrm{Sublayer}(x)))"
    )
    st.markdown(
        "**Where this model applies it** (one rate $p$ everywhere):\n"
        "1. on the input: $\\mathrm{dropout}(%s)$, for the source and the target;\n"
        "2. on the attention weights, after the softmax and before the values: "
        "$\\mathrm{head}_i = \\mathrm{dropout}(A_i)\\,V_i$, in every self- and cross-attention (the weights "
        "drawn in the other sections are $A_i$, before dropout);\n"
        "%s"
        "on each sub-layer's output, before the residual add: $%s$.\n\n"
        "Not on the LayerNorms, the residual stream itself or the output softmax. The paper names only the "
        "first and the last of these (on the sums of embeddings and positional encodings, and on each "
        "sub-layer's output); dropout on the attention weights%s comes from the reference implementations "
        "(tensor2tensor, and the Annotated Transformer after it)."
        % (embedded, inside, residual, " and inside the feed-forward" if config.feed_forward else "")
    )


def _controls(config, trained: bool) -> tuple[int, int, str, int, float]:
    """Encoder layer (1-based, URL key ``enc_layer`` shared with the layer sections), head (1-based),
    sub-layer, mask seed and rate p (the page's dropout setting; a checkpoint gets its own slider)."""
    cols = st.columns(5 if trained else 4)
    layer = stops_slider("encoder layer", range(1, config.num_encoder_layers + 1), "enc_layer", container=cols[0])
    head = stops_slider(
        "head", range(1, config.num_heads + 1), "drop_head", container=cols[1], format_func=lambda h: f"head {h}"
    )
    sublayers = SUBLAYERS if config.feed_forward else {"attn": SUBLAYERS["attn"]}
    sublayer = cols[2].selectbox(
        "sub-layer output", list(sublayers), format_func=sublayers.get, key="drop_sub", bind="query-params"
    )
    seed = cols[3].number_input(
        "mask seed",
        0,
        9999,
        0,
        step=1,
        key="drop_seed",
        bind="query-params",
        help="The random keep-mask m: the same seed draws the same mask.",
    )
    p = float(config.dropout)
    if trained:
        p = cols[4].slider(
            "p (dropout rate)",
            0.0,
            0.5,
            0.1,
            0.05,
            key="drop_p",
            bind="query-params",
            help=f"This checkpoint was trained with p = {config.dropout:g}.",
        )
    return layer, head, sublayer if sublayer in sublayers else "attn", int(seed or 0), p


@st.fragment
def dropout_section(forward: Callable, config, tokens: tuple[str, ...], trained: bool) -> None:
    """Dropout on the chosen encoder layer of the model ``forward()`` ran (evaluation mode): one head's
    weights ``[L, L]`` and one sub-layer's output ``[L, d_model]``, before and after a seeded dropout mask."""
    st.header("Dropout: on in training, off in evaluation")
    with settings("Layer, head, sub-layer and mask seed"):
        layer, head, sublayer, seed, p = _controls(config, trained)
        if not trained:
            st.caption(f"p = {p:g}: the dropout setting of the model above.")
    view, prefix = forward(), f"encoder.layers.{layer - 1}"
    # one mask over the layer's [H, L, L] weights, as training draws it; one head shown
    weights = dropout_view(view.weights[f"{prefix}.self_attn"], p, seed, STREAMS["weights"]).part(head - 1)
    where = f"Encoder layer {layer} · head {head} · self-attention weights"
    sums, dropped = row_sums(weights.after), int((~weights.keep).sum())
    weights_finding = (
        f": {dropped} of {weights.keep.size} dropped, rows now sum to {sums.min():.2f} … {sums.max():.2f}"
        if p > 0
        else ": nothing dropped, every row sums to 1"
    )
    chart(
        _weights_figure(
            weights.before,
            weights.after,
            weights.keep,
            tuple(tokens),
            p,
            f"{where} before and after dropout (p = {p:g}, seed {seed})" + weights_finding,
        ),
        width="stretch",
    )
    st.caption(
        f"{dropped} of {weights.keep.size} weights dropped (×); the survivors are multiplied "
        f"by 1/(1 − p) = {1 / (1 - p):.3g}. "
        + (
            f"Rows now sum to {sums.min():.2f} … {sums.max():.2f} instead of 1: dropout does not renormalise, it "
            "only keeps the *expected* sum at 1."
            if p > 0
            else "With p = 0 every row still sums to 1."
        )
    )
    name = "self_attn.out" if sublayer == "attn" else "feed_forward.out"
    output = dropout_view(view.internals[f"{prefix}.{name}"], p, seed, STREAMS[sublayer])
    width = output.before.shape[1]
    shown = "" if width <= MAX_COLUMNS else f", dimensions 0–{MAX_COLUMNS - 1} of {width}"
    chart(
        _activations_figure(
            output.before,
            output.after,
            output.keep,
            tuple(tokens),
            p,
            f"Encoder layer {layer} · {SUBLAYERS[sublayer]} output before the residual "
            f"add{shown}, before and after dropout: {output.kept_fraction:.0%} of {output.keep.size} entries kept "
            f"(expected {1 - p:.0%})",
        ),
        width="stretch",
    )
    st.caption(
        f"{output.kept_fraction:.0%} of the {output.keep.size} entries kept (expected {1 - p:.0%}). "
        "Dropped entries (black) are 0; every other entry is its evaluation value × 1/(1 − p). "
        + ("With p = 0 nothing is dropped and both sides are the same." if p == 0 else "")
    )
    _explain(config)
