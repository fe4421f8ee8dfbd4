"""The encoder-decoder page's sentence pair (``SentencePair``, what every section draws from) and its sections on
the whole model: the three kinds of attention, teacher forcing (the decoder reads the target shifted right) and
the configured architecture with its parameters. The sections on one encoder layer are in encoder_layer.py."""

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from ui.numbering import COUNTED_FROM_1
from ui.controls import stops_slider
from analysis.decoder_tables import matrix_frame, teacher_forcing_table
from pages.encoder_decoder.controls import three_decimals
from pages.encoder_decoder.figures import attention_figure
from ui.forward import run_model
from analysis.parameters import shape_table
from pages.encoder_decoder.tables import parameter_table
from ui.text import TokenizedText
from transformer import TransformerConfig, positional_scheme
from transformer.spec import ModelSpec
from ui.charts import chart
from ui.screen import one_then_pair
from ui.findings import focus_finding
from ui.formulas import formula
from viz.architecture import ArchitectureSpec, architecture_dot

KINDS = {
    "enc": "encoder self-attention",
    "dec": "decoder masked self-attention",
    "cross": "encoder-decoder cross-attention",
}


@dataclass(frozen=True)
class SentencePair:
    """What the sections draw: the model ``spec`` with its ``config``, the ``source`` and ``target``
    sentences, and the decoder's input: the target shifted right (``dec_tokens`` [T], ``dec_ids`` [T])."""

    spec: ModelSpec
    config: TransformerConfig
    source: TokenizedText
    target: TokenizedText
    dec_tokens: list[str]
    dec_ids: list[int]
    tokenizer: object | None = None  # the model's own (a trained model's spells every id of its vocabulary)

    @property
    def trained(self) -> bool:
        """True for a checkpoint or the pretrained model, False for a random one."""
        return self.spec.source != "random"

    @property
    def src_len(self) -> int:
        return len(self.source.ids)

    @property
    def tgt_len(self) -> int:
        return len(self.dec_ids)

    def forward(self):
        """The whole model on (source, shifted target), with its internals (cached)."""
        return run_model(self.spec, self.source.ids, self.dec_ids, internals=True, tokens=self.source.tokens)


@st.fragment
def attention_section(pair: SentencePair):
    """Pick a kind of attention, a layer and a head (or all heads) and draw it."""
    config, source, dec_tokens, forward = pair.config, pair.source, pair.dec_tokens, pair.forward
    st.header("Three kinds of attention")
    # a small screen: the kind of attention above the layer and the head (two rows instead of three)
    c1, c2, c3 = one_then_pair()
    kind = c1.selectbox("attention", list(KINDS), format_func=KINDS.get, key="kind", bind="query-params")
    n_layers = config.num_encoder_layers if kind == "enc" else config.num_decoder_layers
    layer = stops_slider("layer", range(1, n_layers + 1), "layer", container=c2, help=COUNTED_FROM_1)
    head = c3.selectbox(
        "head",
        ["all"] + list(range(1, config.num_heads + 1)),
        format_func=lambda h: "all heads" if h == "all" else f"head {h}",
        key="head",
        bind="query-params",
    )
    stack, name = (
        ("encoder", "self_attn") if kind == "enc" else ("decoder", "self_attn" if kind == "dec" else "cross_attn")
    )
    weights = forward().weights[f"{stack}.layers.{layer - 1}.{name}"]
    rows = source.tokens if kind == "enc" else dec_tokens
    cols = dec_tokens if kind == "dec" else source.tokens
    what = {
        "enc": "Every source token attends to every source token (bidirectional): source x source.",
        "dec": "Each target position attends only to itself and earlier positions (the causal mask; "
        "grey cells are masked): target x target.",
        "cross": "Queries come from the decoder, keys and values from the encoder's memory, so the "
        "matrix is rectangular: target (rows) x source (columns).",
    }[kind]
    row_name = "target query" if kind != "enc" else "source query"
    col_name = "source key" if kind != "dec" else "target key"
    if head == "all":
        h, title = None, f"Layer {layer} · all {config.num_heads} heads · {KINDS[kind]}" + focus_finding(weights)
    else:
        h = min(int(head), config.num_heads) - 1
        title = f"Layer {layer} · head {h + 1} · {KINDS[kind]}"
    chart(attention_figure(weights, rows, cols, title, h, kind == "dec", row_name, col_name), width="stretch")
    st.caption(what + " Rows of the decoder kinds are the decoder's input tokens (the target shifted right).")
    st.markdown(
        "Every attention sub-layer computes the same formula; what changes is where the queries, "
        "keys and values come from, and the mask *M*."
    )
    formula(
        r"\mathrm{Attention}(Q,K,V)=\mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right)V,"
        r"\qquad M_{ij} = \begin{cases}0 & \text{allowed}\\ -\infty & \text{masked}\end{cases}"
    )
    numbers = st.expander("The numbers behind this figure", key="attn_numbers", bind="query-params")
    if numbers.open:  # built only when opened (an open one is in the URL), so a setting does not resend it
        with numbers:
            frame = (
                matrix_frame(weights[h], rows, cols)
                if h is not None
                else pd.concat({f"head {i + 1}": matrix_frame(weights[i], rows, cols) for i in range(weights.shape[0])})
            )
            st.dataframe(frame, width="stretch", column_config=three_decimals(frame.columns))


def teacher_forcing_section(pair: SentencePair):
    """Why the decoder's input is the target shifted right, with the table of what it reads."""
    target, dec_tokens = pair.target, pair.dec_tokens
    st.header("Teacher forcing: the decoder reads the target shifted right")
    tf_text, tf_table = st.columns([3, 2], gap="large")
    with tf_text:
        st.markdown(
            "In training, the decoder is given the correct target so far and asked for the next token. "
            "Its input is the target **shifted right** by one, starting with the start token `<s>`; at "
            "position $t$ it reads tokens $< t$ and must predict token $t$. Thanks to the causal mask, all "
            "positions are trained **at once**, in one forward pass, without any position seeing its answer. "
            "Generation has no target to read: it starts from `<s>`, predicts one token, appends it and runs "
            "again, one token at a time."
        )
        formula(r"P(y_1,\dots,y_T \mid x) = \prod_{t=1}^{T} P(y_t \mid y_{<t}, x)")
        formula(r"\text{decoder input} = [\langle s\rangle, y_1, \dots, y_{T-1}]")
    with tf_table:
        st.table(teacher_forcing_table(target.tokens, dec_tokens).set_index("position"))


def architecture_section(pair: SentencePair):
    """The configured model as a diagram with shapes on its edges, the shapes table and the parameters."""
    config, src_len, tgt_len = pair.config, pair.src_len, pair.tgt_len
    st.header("The model you configured")
    diagram, shapes = st.columns([3, 2], gap="large")
    with diagram:
        st.caption(
            f"Read from the bottom up. Shapes for this {src_len}-token source and {tgt_len}-token "
            f"target, d_model = {config.d_model}; the batch dimension is left out."
        )
        st.graphviz_chart(
            architecture_dot(
                ArchitectureSpec(
                    config.num_encoder_layers,
                    config.num_decoder_layers,
                    config.d_model,
                    config.num_heads,
                    config.d_ff,
                    positional_scheme(config.positional).diagram,
                    config.norm_first,
                    config.tgt_vocab_size,
                    src_len,
                    tgt_len,
                )
            ),
            width="stretch",
        )
    with shapes:
        st.markdown("**Activation shapes**")
        formula(r"d_k = d_{model}/h = %d / %d = %d" % (config.d_model, config.num_heads, config.d_head))
        shape_rows = shape_table(config, src_len, tgt_len)[["step", "shape"]]
        st.dataframe(shape_rows, hide_index=True, width="stretch", height=35 * (len(shape_rows) + 1) + 3)
    st.header("Parameters")
    st.markdown(
        "Where the weights are. Each count is computed twice: from the formula in the "
        "hyperparameters and by summing `p.numel()` over the model's parameters; they agree."
    )
    generator = {"tied": r"V \text{ (tied: } W = \text{target embedding)}", "none": r"0"}.get(
        config.output_head, "dV + V"
    )
    formula(
        r"\text{attention: } 4(d^2 + d),\quad \text{FFN: } 2\,d\,d_{ff} + d_{ff} + d,",
        r"\text{LayerNorm: } 2d,\quad \text{generator: } " + generator,
    )
    params = parameter_table(pair.spec)
    st.dataframe(
        params,
        hide_index=True,
        width="stretch",
        height=35 * (len(params) + 1) + 3,
        column_config={
            "closed-form count": st.column_config.NumberColumn(format="localized"),
            "counted in the model": st.column_config.NumberColumn(format="localized"),
        },
    )
    vocab_share = params.iloc[[0, 1, len(params) - 2], 3].sum() / params.iloc[-1, 3]
    st.caption(
        f"The embeddings and the generator, which grow with the {config.tgt_vocab_size:,}-id "
        f"vocabulary, hold {vocab_share:.0%} of the {int(params.iloc[-1, 3]):,} parameters."
    )
