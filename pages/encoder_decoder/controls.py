"""The encoder-decoder page's model controls (its tables' data come from ``analysis.decoder_tables``)."""

from __future__ import annotations

import streamlit as st

from ui import runtime  # noqa: F401  (torch threads are set before any torch work)
from transformer import TransformerConfig
from transformer.spec import ModelSpec

from ui.controls import (
    POSITIONAL_LABELS,
    d_model_control,
    heads_control,
    layers_control,
    positional_control,
    seed_control,
)
from ui.model_sizes import ENCODER_DECODER_D_FF
from ui.screen import settings_row

D_FF_OPTIONS = (16, 32, 64, 128, 256, 512, 1024, 2048)
ACTIVATION_LABELS = {"relu": "ReLU (paper)", "gelu": "GELU"}
NORM_LABELS = {"post": "post-LN (paper)", "pre": "pre-LN"}
# The base model of the paper (its Table 3), as the panel's widget values (URL keys).
PAPER_SIZES = {
    "enc": 6,
    "dec": 6,
    "d_model": 512,
    "heads": 8,
    "d_ff": 2048,
    "dropout": 0.1,
    "pe": "sinusoidal",
    "norm": "post",
    "act": "relu",
    "shared": True,
}


def _paper_sizes() -> None:
    """on_click of "Paper's sizes": every control of the panel to the paper's base model."""
    st.session_state.update(PAPER_SIZES)


def model_controls() -> ModelSpec | None:
    """The hyperparameter panel, every widget bound to the URL; None (after st.error) if invalid."""
    top = settings_row()
    top.button(
        "Paper's sizes",
        key="paper",
        on_click=_paper_sizes,
        icon=":material/description:",
        help="The base model of Attention Is All You Need: 6 + 6 layers, d_model = 512, 8 heads, "
        "d_ff = 2048, dropout 0.1, one shared embedding matrix.",
    )
    shared = top.toggle(
        "one embedding matrix for source, target and output (paper)",
        value=False,
        key="shared",
        bind="query-params",
        help="The paper shares one matrix between the two embeddings and the pre-softmax "
        "linear layer (one vocabulary for both languages).",
    )
    st.caption(
        "The paper's base model: N = 6, d_model = 512, h = 8, d_ff = 2048, shared embeddings and "
        "pre-softmax weights; the paper reports about 65 M parameters with its 37,000-token vocabulary, "
        "here 46.2 M with 4,096 ids (see Architecture)."
    )
    row1 = settings_row()
    enc = layers_control("encoder layers", key="enc", container=row1)
    dec = layers_control("decoder layers", key="dec", container=row1)
    d_model = d_model_control(container=row1)
    pe = positional_control(container=row1)
    heads = heads_control(d_model, pe, container=row1)
    row2 = settings_row()
    d_ff = row2.select_slider(
        "d_ff (feed-forward width)",
        list(D_FF_OPTIONS),
        value=ENCODER_DECODER_D_FF,
        key="d_ff",
        bind="query-params",
        help="Hidden units of each position-wise feed-forward net.",
    )
    dropout = row2.slider(
        "dropout",
        0.0,
        0.5,
        0.1,
        0.05,
        key="dropout",
        bind="query-params",
        help="Dropout only acts while training. The figures here run the model in "
        "evaluation mode, where dropout does nothing; the Dropout section shows what "
        "it would do in training.",
    )
    norm = row2.selectbox(
        "add & norm",
        list(NORM_LABELS),
        format_func=NORM_LABELS.get,
        key="norm",
        bind="query-params",
        help="Post-LN: LN(x + sublayer(x)), as in the paper. Pre-LN: x + sublayer(LN(x)), as in most newer models.",
    )
    activation = row2.selectbox(
        "feed-forward activation",
        ["relu", "gelu"],
        format_func=ACTIVATION_LABELS.get,
        key="act",
        bind="query-params",
    )
    seed = seed_control(container=row2)
    try:
        config = TransformerConfig(
            d_model=d_model,
            num_heads=heads,
            num_encoder_layers=enc,
            num_decoder_layers=dec,
            d_ff=d_ff,
            dropout=float(dropout),
            positional=pe,
            norm_first=norm == "pre",
            activation=activation,
            share_embeddings=shared,
            output_head="tied" if shared else "linear",
        )
    except ValueError as error:
        st.error(f"These settings do not make a model: {error}")
        return None
    return ModelSpec.random(config, seed, "encoder-decoder")


def settings_summary(config: TransformerConfig, seed: int) -> str:
    """The random model's settings in one line, read from the model they make (its panel is closed)."""
    norm = NORM_LABELS["pre" if config.norm_first else "post"]
    embeddings = "one shared embedding matrix" if config.share_embeddings else "separate embeddings"
    return (
        f"Random model: {config.num_encoder_layers} encoder and {config.num_decoder_layers} decoder layers, "
        f"d_model = {config.d_model}, {config.num_heads} heads, d_ff = {config.d_ff}, positional encoding "
        f"{POSITIONAL_LABELS[config.positional]}, {norm}, {ACTIVATION_LABELS[config.activation]}, dropout "
        f"{config.dropout:g}, {embeddings}, seed {seed}. Change them in Model settings."
    )


def three_decimals(columns) -> dict:
    """Column formats that show every number of these columns to 3 decimals."""
    return {c: st.column_config.NumberColumn(format="%.3f") for c in columns}
