"""Multi-head attention: every head of every layer of a configurable stack on the user's sentence.

This script draws the title, the model, the sentence and the layer, and the open section; the sections are in
sections.py, compare.py and concat.py."""

import streamlit as st

from transformer import causal_mask
from ui.numbering import COUNTED_FROM_1
from ui.controls import (
    causal_control,
    d_model_control,
    heads_control,
    layers_control,
    positional_control,
    section_picker,
    seed_control,
    stops_slider,
)
from ui.forward import random_stack, self_attention_maps, stack_config
from ui.model_picker import load_or_stop, model_choice, pretrained_available, pretrained_label, trained_on_text
from transformer.spec import ModelSpec
from ui.text import sentence_input
from ui.routing import require_navigation
from ui.presentation import explanation
from ui.screen import settings
from ui.formulas import formula
from pages.multi_head.compare import compare
from pages.multi_head.concat import concat_section
from pages.multi_head.sinks import sinks_section
from pages.multi_head.sections import (
    HeadsOnText,
    download,
    grid_section,
    head_view,
    overview_section,
    rollout_section,
    stats_section,
)

require_navigation()

DEFAULT_TEXT = "The animal didn't cross the street because it was too tired"
FITS = ("encoder-only", "decoder-only", "encoder-decoder")  # any model with a self-attention stack
PRETRAINED = "all-MiniLM-L6-v2"

st.title("Multi-head attention")
with explanation():
    st.markdown(
        "Instead of one attention function, the Transformer runs several **heads** in parallel. Each head "
        "projects the queries, keys and values into its own subspace of $d_k = d_{model}/h$ dimensions, so "
        "different heads can attend to different relations. Their outputs are concatenated and projected "
        "again. "
        + (
            "The page opens on a pretrained model (all-MiniLM-L6-v2, 6 layers of 12 heads), whose heads learned "
            "what they do from text; the random model in the picker shows the mechanics with seeded weights and "
            "lets you change the layers, d_model and the number of heads."
            if pretrained_available(PRETRAINED)
            else "The page opens on a random model: seeded weights whose heads show the mechanics, not what heads "
            "learn, with the layers, d_model and the number of heads yours to change. Pick "
            f"{trained_on_text()} in the model picker for heads that learned from text."
        )
    )
    st.caption(
        "A caveat for every map here: attention weights show where information may flow, not why the model "
        "decided what it did (Jain & Wallace, 2019). A head's output is its weights times its values, then "
        "W^O, and later layers may use it or not. To test what a head is needed for, take it away: the "
        "Experiments page knocks heads out and patches them."
    )
    formula(
        r"\mathrm{MultiHead}(Q,K,V) = \allowbreak \mathrm{Concat}(\mathrm{head}_1,\dots,\mathrm{head}_h)\,W^O,",
        r"\mathrm{head}_i = \mathrm{Attention}(QW_i^Q, KW_i^K, VW_i^V)",
    )

image_format = st.sidebar.radio(
    "save figures as",
    ["png", "svg"],
    key="img",
    bind="query-params",
    horizontal=True,
    help="The format of the camera button in each chart's toolbar.",
)
CHART = dict(config={"toImageButtonOptions": {"format": image_format, "scale": 2}})
SECTIONS = (
    "Heads of a layer",
    "All layers",
    "Head view",
    "Mean and rollout",
    "Statistics",
    "Attention sinks",
    "Compare",
    "Concat × W^O",
)


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
    causal = causal_control(container=c6)
    try:
        return random_stack(
            stack_config(
                layers, d_model=d_model, num_heads=heads, d_ff=4 * d_model, dropout=0.0, positional=positional
            ),
            seed,
            causal,
        )
    except ValueError as error:
        st.error(str(error))
        st.stop()


def opening_model() -> str | None:
    """The picker's label of the model the page opens on: the pretrained MiniLM, whose heads learned something
    to look at, where the server has it (else the random stack)."""
    return pretrained_label(PRETRAINED) if pretrained_available(PRETRAINED) else None


SECTION_VIEWS = {
    "Heads of a layer": grid_section,
    "All layers": overview_section,
    "Head view": lambda v: head_view(v.weights[v.li], v.tokens, v.li + 1, v.weights.shape[1], v.chart_options),
    "Mean and rollout": rollout_section,
    "Statistics": stats_section,
    "Attention sinks": sinks_section,
    "Compare": lambda v: compare(v.weights, v.tokens, v.loaded.spec, v.loaded.tokenizer, v.causal, v.chart_options),
    "Concat × W^O": lambda v: concat_section(v.loaded, v.ids, v.tokens, v.li + 1, v.chart_options),
}


@st.fragment
def heads_view() -> None:
    """The model picker, the random stack's settings (when no other model is picked) or the picked model, the
    sentence, the layer and the open section. A setting or another model reruns this part only, not the page's
    title, explanation and navigation."""
    with settings("Model, sentence and layer"):
        choice = model_choice(FITS, default=opening_model())
        loaded = load_or_stop(random_model() if choice is None else choice)
        causal = loaded.kind == "decoder-only"
        st.caption(
            f"Model: {loaded.label}. "
            + (
                "Its decoder is causal: token i sees only tokens j ≤ i."
                if causal
                else "Bidirectional: every token sees every token."
            )
        )
        sentence = sentence_input("Sentence", DEFAULT_TEXT, key="text", tokenizer=loaded.tokenizer)
        if sentence is None:
            return
        tokens, n = list(sentence.tokens), len(sentence.tokens)
        weights = self_attention_maps(loaded.spec, sentence.ids)  # [L, H, T, T]
        layers = weights.shape[0]
        layer = stops_slider(
            "layer (for the heads, head view and mean)", range(1, layers + 1), "layer", help=COUNTED_FROM_1
        )
    # layers and heads are numbered from 1 on screen, indexed from 0 here
    view = HeadsOnText(
        loaded, tuple(sentence.ids), tokens, weights, causal_mask(n).numpy() if causal else None, layer - 1, CHART
    )
    open_section(view)


@st.fragment
def open_section(view: HeadsOnText) -> None:
    """The row of sections and the open one (only it is built and sent), then the download: another section
    reruns this part only, not the model, the sentence and the layer."""
    SECTION_VIEWS[section_picker(SECTIONS)](view)
    download(view)


heads_view()
