"""Encoder-decoder: a source and a target sentence through the whole Transformer."""

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from ui.controls import NUMBERING, section_picker, stops_slider
from analysis.decoder_tables import matrix_frame, numbered, shifted_right, teacher_forcing_table
from pages.encoder_decoder.controls import model_controls, three_decimals
from pages.encoder_decoder.figures import attention_figure, ffn_figure, layernorm_stats_figure, norms_figure
from ui.forward import run_model
from ui.model_picker import model_choice
from ui.models import load_model
from pages.encoder_decoder.layer_steps import layer_steps
from pages.encoder_decoder.dropout import dropout_section
from pages.encoder_decoder.output import output_section
from analysis.parameters import shape_table
from pages.encoder_decoder.tables import parameter_table
from ui.routing import require_navigation
from ui.text import TokenizedText, sentence_input
from transformer import TransformerConfig
from transformer.spec import ModelSpec
from ui.charts import chart
from ui.presentation import explanation
from ui.screen import compact, figure_on_top, figure_first, settings as screen_settings
from viz.architecture import ArchitectureSpec, architecture_dot

require_navigation()

KINDS = {"enc": "encoder self-attention", "dec": "decoder masked self-attention",
         "cross": "encoder-decoder cross-attention"}
# Section labels are the values of the URL's ``section`` parameter: short, and never renamed lightly.
SECTIONS = ("Attention", "Output", "One layer", "Feed-forward", "Dropout", "Architecture")

st.title("Encoder-decoder: the whole Transformer")
with explanation():
    st.markdown(
        "The Transformer of *Attention Is All You Need* has two stacks. The **encoder** reads the whole "
        "source sentence and turns each token into a context-aware vector (the *memory*). The **decoder** "
        "produces the target one token at a time: it attends to the target tokens so far (masked, so it "
        "cannot peek ahead) and, through **cross-attention**, to the encoder's memory. A final linear layer "
        "and a softmax turn each decoder vector into a distribution over the target vocabulary."
    )
    st.caption(NUMBERING)

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
    st.subheader("Three kinds of attention")
    intro = figure_first()
    # a small screen: the kind of attention above the layer and the head (two rows instead of three)
    c1, c2, c3 = (st.container(), *st.columns(2, wrap=False)) if compact() else st.columns(3)
    kind = c1.selectbox("attention", list(KINDS), format_func=KINDS.get, key="kind", bind="query-params")
    n_layers = config.num_encoder_layers if kind == "enc" else config.num_decoder_layers
    layer = stops_slider("layer", range(1, n_layers + 1), "layer", container=c2)
    head = c3.selectbox("head", ["all"] + list(range(1, config.num_heads + 1)),
                        format_func=lambda h: "all heads" if h == "all" else f"head {h}",
                        key="head", bind="query-params")
    stack, name = ("encoder", "self_attn") if kind == "enc" else ("decoder", "self_attn" if kind == "dec"
                                                                   else "cross_attn")
    weights = forward().weights[f"{stack}.layers.{layer - 1}.{name}"]
    rows = source.tokens if kind == "enc" else dec_tokens
    cols = dec_tokens if kind == "dec" else source.tokens
    what = {"enc": "Every source token attends to every source token (bidirectional): source x source.",
            "dec": "Each target position attends only to itself and earlier positions (the causal mask; "
                   "grey cells are masked): target x target.",
            "cross": "Queries come from the decoder, keys and values from the encoder's memory, so the "
                     "matrix is rectangular: target (rows) x source (columns)."}[kind]
    note = figure_first()  # what the kind is: above the figure, or below it on a small screen
    row_name = "target query" if kind != "enc" else "source query"
    col_name = "source key" if kind != "dec" else "target key"
    if head == "all":
        h, title = None, f"Layer {layer} · all {config.num_heads} heads · {KINDS[kind]}"
    else:
        h = min(int(head), config.num_heads) - 1
        title = f"Layer {layer} · head {h + 1} · {KINDS[kind]}"
    chart(attention_figure(weights, rows, cols, title, h, kind == "dec", row_name, col_name),
          width="stretch")
    note.text().caption(what + " Rows of the decoder kinds are the decoder's input tokens (the target shifted right).")
    with intro.text():
        st.markdown("Every attention sub-layer computes the same formula; what changes is where the queries, "
                    "keys and values come from, and the mask *M*.")
        st.latex(r"\mathrm{Attention}(Q,K,V)=\mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right)V,"
                 r"\qquad M_{ij} = \begin{cases}0 & \text{allowed}\\ -\infty & \text{masked}\end{cases}")
    numbers = st.expander("The numbers behind this figure", key="attn_numbers", bind="query-params")
    if numbers.open:  # built only when opened (an open one is in the URL), so a setting does not resend it
        with numbers:
            frame = (matrix_frame(weights[h], rows, cols) if h is not None else
                     pd.concat({f"head {i + 1}": matrix_frame(weights[i], rows, cols) for i in range(weights.shape[0])}))
            st.dataframe(frame, width="stretch", column_config=three_decimals(frame.columns))


def teacher_forcing_section(pair: SentencePair):
    """Why the decoder's input is the target shifted right, with the table of what it reads."""
    target, dec_tokens = pair.target, pair.dec_tokens
    st.subheader("Teacher forcing: the decoder reads the target shifted right")
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
        st.latex(r"P(y_1,\dots,y_T \mid x) = \prod_{t=1}^{T} P(y_t \mid y_{<t}, x)")
        st.latex(r"\text{decoder input} = [\langle s\rangle, y_1, \dots, y_{T-1}]")
    with tf_table:
        st.table(teacher_forcing_table(target.tokens, dec_tokens).set_index("position"))


def pick_encoder_layer(pair: SentencePair):
    """The encoder layer (1-based) the layer sections show, and its steps; both sections share the URL key
    ``enc_layer`` (a lesson link uses ``step``)."""
    config = pair.config
    layer = stops_slider("encoder layer", range(1, config.num_encoder_layers + 1), "enc_layer",
                         container=st.columns(3)[0])
    return layer, layer_steps(pair.forward(), layer - 1, config.norm_first)


@st.fragment
def layer_section(pair: SentencePair):
    """One encoder layer step by step: vector norms along the residual stream, LayerNorm statistics."""
    config, source, trained = pair.config, pair.source, pair.trained
    st.subheader("One layer, step by step")
    layer, steps = pick_encoder_layer(pair)
    if config.norm_first:
        st.markdown("**Pre-LN**: each sub-layer reads a normalised copy; the residual stream itself is "
                    "never normalised, so its norm can grow from layer to layer.")
        st.latex(r"x' = x + \mathrm{MHA}(\mathrm{LN}_1(x)),\qquad y = x' + \mathrm{FFN}(\mathrm{LN}_2(x'))")
    else:
        st.markdown("**Post-LN** (the paper): add the sub-layer's output to its input (the residual "
                    "connection), then normalise the sum.")
        st.latex(r"x' = \mathrm{LN}_1(x + \mathrm{MHA}(x)),\qquad y = \mathrm{LN}_2(x' + \mathrm{FFN}(x'))")
    names = [name for name, _ in steps.stages]
    norms = np.stack([np.linalg.norm(v, axis=-1) for _, v in steps.stages]).astype(np.float32)
    chart(norms_figure(tuple(names), norms, source.tokens,
                       f"Encoder layer {layer} · vector norm of each token after each step"),
          width="stretch")
    numbers = st.expander("The numbers behind this figure", key="norm_numbers", bind="query-params")
    if numbers.open:  # built only when opened
        with numbers:
            table = pd.DataFrame(norms.T, index=numbered(source.tokens), columns=names)
            st.dataframe(table, width="stretch", column_config=three_decimals(names))
    st.markdown("**LayerNorm** rescales each token's vector on its own: it subtracts the mean of its "
                f"{config.d_model} features and divides by their standard deviation, then applies a learned "
                + ("gain and bias (here 1 and 0, as initialised). After it, every token has mean 0 and std 1, "
                   f"so its norm is sqrt(d_model) = {config.d_model ** 0.5:.2f}: the flat points in the figure above."
                   if not trained else
                   "gain γ and bias β per feature (trained here), so after it the tokens' norms are set by γ and β "
                   "rather than fixed at sqrt(d_model)."))
    st.latex(r"\mathrm{LN}(x) = \gamma \odot \frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}} + \beta,\quad "
             r"\mu = \tfrac{1}{d}\textstyle\sum_i x_i,\ \sigma^2 = \tfrac{1}{d}\sum_i (x_i - \mu)^2")
    ln_names, before, after = zip(*steps.norms)
    chart(layernorm_stats_figure(ln_names, before, after, source.tokens,
                                 f"Encoder layer {layer} · mean and std of each token, before and "
                                 f"after LayerNorm"), width="stretch")


@st.fragment
def ffn_section(pair: SentencePair):
    """How many feed-forward hidden units fire for each token of one encoder layer."""
    config, source = pair.config, pair.source
    st.subheader("Feed-forward: units firing per token")
    if not config.feed_forward:
        st.info("This model is attention-only: its layers have no feed-forward network.")
        return
    layer, steps = pick_encoder_layer(pair)
    act = "ReLU" if config.activation == "relu" else "GELU"
    intro = figure_first()  # what a unit firing is: above the figure, or below it on a small screen
    chart(ffn_figure(steps.ffn_active, source.tokens, config.d_ff,
                     f"Encoder layer {layer} · feed-forward units > 0 per token ({act})"),
          width="stretch")
    with intro.text():
        st.markdown(f"The **feed-forward** network expands each token to d_ff = {config.d_ff} hidden units, "
                    f"applies {act} and projects back. A unit *fires* for a token when its activation is > 0"
                    + (" (ReLU sets every other unit to exactly 0)." if act == "ReLU" else
                       " (GELU lets small negative values through, so we count those > 0)."))
        st.latex(r"\mathrm{FFN}(x) = \mathrm{%s}(xW_1 + b_1)W_2 + b_2,\quad W_1 \in \mathbb{R}^{%d\times %d}"
                 % ("max(0,\\cdot)" if act == "ReLU" else "GELU", config.d_model, config.d_ff))


def architecture_section(pair: SentencePair):
    """The configured model as a diagram with shapes on its edges, the shapes table and the parameters."""
    config, src_len, tgt_len = pair.config, pair.src_len, pair.tgt_len
    st.subheader("The model you configured")
    diagram, shapes = st.columns([3, 2], gap="large")
    with diagram:
        st.caption(f"Read from the bottom up. Shapes for this {src_len}-token source and {tgt_len}-token "
                   f"target, d_model = {config.d_model}; the batch dimension is left out.")
        st.graphviz_chart(architecture_dot(ArchitectureSpec(
            config.num_encoder_layers, config.num_decoder_layers, config.d_model, config.num_heads,
            config.d_ff, config.positional, config.norm_first, config.tgt_vocab_size, src_len, tgt_len)),
            width="stretch")
    with shapes:
        st.markdown("**Activation shapes**")
        st.latex(r"d_k = d_{model}/h = %d / %d = %d" % (config.d_model, config.num_heads, config.d_head))
        shape_rows = shape_table(config, src_len, tgt_len)[["step", "shape"]]
        st.dataframe(shape_rows, hide_index=True, width="stretch", height=35 * (len(shape_rows) + 1) + 3)
    st.subheader("Parameters")
    st.markdown("Where the weights are. Each count is computed twice: from the formula in the "
                "hyperparameters and by summing `p.numel()` over the model's parameters; they agree.")
    generator = {"tied": r"V \text{ (tied: } W = \text{target embedding)}", "none": r"0"}.get(config.output_head, "dV + V")
    st.latex(r"\text{attention: } 4(d^2 + d),\quad \text{FFN: } 2\,d\,d_{ff} + d_{ff} + d,\quad \text{LayerNorm: } 2d,\quad "
             r"\text{generator: } " + generator)
    params = parameter_table(pair.spec)
    st.dataframe(params, hide_index=True, width="stretch", height=35 * (len(params) + 1) + 3,
                 column_config={"closed-form count": st.column_config.NumberColumn(format="localized"),
                                "counted in the model": st.column_config.NumberColumn(format="localized")})
    vocab_share = params.iloc[[0, 1, len(params) - 2], 3].sum() / params.iloc[-1, 3]
    st.caption(f"The embeddings and the generator, which grow with the {config.tgt_vocab_size:,}-id "
               f"vocabulary, hold {vocab_share:.0%} of the {int(params.iloc[-1, 3]):,} parameters.")


# What each section draws, in order, from the sentence pair.
SECTION_DRAWS = dict(zip(SECTIONS, ((attention_section,), (teacher_forcing_section, output_section),
                                    (layer_section,), (ffn_section,),
                                    (lambda p: dropout_section(p.forward, p.config, p.source.tokens, p.trained),),
                                    (architecture_section,))))


@st.fragment
def model_view() -> None:
    """The model picker, the random model's settings (when no other model is picked) or the picked model, the
    two sentences and the open section. A setting or another model reruns this part only, not the page's title,
    explanation and navigation."""
    with screen_settings("Model and sentences"):
        choice = model_choice(("encoder-decoder",))
        settings = st.container()  # always here, empty for a picked model: the figures below keep their place
        if choice is None:
            with settings.expander("Model settings", expanded=True):
                spec = model_controls()
        else:
            spec = choice
        try:
            loaded = load_model(spec) if spec is not None else None
        except ValueError as error:
            st.error(str(error))
            loaded = None
        left, right = st.columns(2)
        tokenizer = loaded.tokenizer if loaded else None
        with left:
            source = sentence_input("Source sentence (encoder input)", "the cat sat on the mat", key="src",
                                    tokenizer=tokenizer)
        with right:
            target = sentence_input("Target sentence (what the decoder should produce)",
                                    "le chat est assis sur le tapis", key="tgt", tokenizer=tokenizer)
    if source is None or target is None or loaded is None:
        return
    dec_tokens, dec_ids = shifted_right(target.tokens, target.ids)
    open_section(SentencePair(spec, loaded.config, source, target, dec_tokens, dec_ids))


@st.fragment
def open_section(pair: SentencePair) -> None:
    """The row of sections and the open one (only it is built and sent): another section reruns this part only,
    not the model and the sentences."""
    draws = SECTION_DRAWS[section_picker(SECTIONS)]
    if figure_on_top() and draws == (teacher_forcing_section, output_section):
        draws = draws[::-1]  # a small screen or a projector: the output's figure first, then the shifted target
    for draw in draws:
        draw(pair)


model_view()
