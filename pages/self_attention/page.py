"""Self-attention, step by step: one real head of the selected model on the user's own sentence.

Everything below the title and formula is one fragment, the model picker included, so a control reruns and
redraws neither the page's title and formula nor the navigation above them. Inside it, each row of controls
reruns only what depends on it: the layer and head skip the model's settings and the sentence, the
what-if controls (scaling and temperature) skip the layer and head too. The sections are in sections.py,
output_and_scaling.py, why_attention.py and tokens.py; this script picks the open one.
"""

import streamlit as st

from pages.self_attention.output_and_scaling import numbers_table, output_section, scaling_section
from pages.self_attention.sections import HeadOnText, scores_section, vectors_section
from pages.self_attention.steps import attention_steps
from pages.self_attention.tokens import tokens_numbers, tokens_section
from pages.self_attention.why_attention import why_attention_section
from transformer.spec import ModelSpec
from ui.numbering import COUNTED_FROM_1
from ui.controls import (
    causal_control,
    head_options,
    positional_name,
    positional_control,
    section_picker,
    seed_control,
    stops_slider,
)
from ui.forward import random_stack, stack_config
from ui.model_picker import load_or_stop, model_choice, trained_on_text
from ui.model_sizes import SELF_ATTENTION
from ui.models import LoadedModel
from ui.presentation import explanation
from ui.screen import settings, settings_popover, settings_row
from ui.routing import require_navigation
from ui.text import TokenizedText, sentence_input
from ui.formulas import formula

require_navigation()

DEFAULT_TEXT = "The animal didn't cross the street because it was too tired"
D_MODEL_OPTIONS = (4, 8, 16, 32, 64, 128)
FITS = ("encoder-only", "decoder-only", "encoder-decoder")
# The page's tabs; the open one is the URL's ``section`` (the first when it names none).
SECTIONS = ("Q, K, V", "Scores and softmax", "Output", "Why scale", "Why attention", "Tokens")
RENDER = dict(
    zip(
        SECTIONS,
        (vectors_section, scores_section, output_section, scaling_section, why_attention_section, tokens_section),
    )
)
# What "The numbers behind the figures" shows: the merges for Tokens, the head's matrices elsewhere.
NUMBERS = {"Tokens": tokens_numbers}

st.title("Self-attention, step by step")
with explanation():
    st.markdown(
        "Self-attention turns a sequence of token vectors into a new sequence of the same length: each "
        "position takes a weighted combination of the value vectors of the positions it may attend to (all of "
        "them, unless a mask hides some), and the weights say how much of each value vector is mixed in. How "
        "much one token then influences another also depends on the values themselves, on W^O and on the "
        "layers after this one. Below, one real head of a model runs on your sentence (pick the layer and the "
        "head), and every intermediate matrix is drawn with its shape. The page teaches these steps, so it opens on "
        f"a small random model (d_model = {SELF_ATTENTION.d_model}, {SELF_ATTENTION.heads} heads, so d_k = "
        f"{SELF_ATTENTION.d_model // SELF_ATTENTION.heads}) whose every matrix can be read cell by cell; the steps "
        f"are the same in any model. Pick {trained_on_text()} in the model picker to follow a head trained on text."
    )
    formula(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V")


def random_model() -> ModelSpec:
    """A random model's settings behind a button (d_model, heads, layers, seed, positions), its causal mask switch
    beside it, and its spec."""
    top = st.container(horizontal=True, vertical_alignment="center")
    with top:
        panel = settings_popover()
    causal = causal_control(container=top)
    with panel:
        row = settings_row()
    d_model = row.select_slider(
        "d_model (embedding size)",
        D_MODEL_OPTIONS,
        value=SELF_ATTENTION.d_model,
        key="d_model",
        bind="query-params",
        help="Width of each token vector x_i.",
    )
    heads_place = row.empty()  # filled once the positions are known: rotary needs an even head size
    n_layers = stops_slider("layers", [1, 2, 3, 4], "layers", SELF_ATTENTION.layers, container=row)
    seed = seed_control(container=row)
    positional = positional_control(container=row)
    options = head_options(d_model, positional)
    heads = stops_slider(
        "heads h",
        options,
        "heads",
        SELF_ATTENTION.heads,
        heads_place,
        help="Each head gets d_k = d_model / h dimensions for its queries, keys and values.",
    )
    return random_stack(
        stack_config(n_layers, d_model=d_model, num_heads=heads, d_ff=4 * d_model, dropout=0.0, positional=positional),
        seed,
        causal,
    )


@st.fragment
def head_view() -> None:
    """The model picker, the random model's settings (when no other model is picked) or the picked model,
    and the sentence; the row of the layer, head and what-if controls and the caption above the sentence
    are drawn by ``head_choice``. Picking a model reruns this part only, not the title and navigation."""
    with settings("Model, sentence, layer and head"):
        choice = model_choice(FITS)
        with st.container():  # always here, empty for a picked model: the figures below keep their place
            spec = random_model() if choice is None else choice
        loaded = load_or_stop(spec)
        row, caption = st.columns([1, 1, 1, 2]), st.container()
        sentence = sentence_input("Sentence", DEFAULT_TEXT, key="text", tokenizer=loaded.tokenizer)
    head_choice(loaded, sentence, row, caption)


@st.fragment
def head_choice(loaded: LoadedModel, sentence: TokenizedText | None, row, caption) -> None:
    """The layer and head (in the first two columns of ``row``) and the ``caption`` that names them, then the
    what-if controls and the open section. Picking a layer or head reruns this part only, not the model's
    settings nor the sentence."""
    config = loaded.config
    model_layers = config.num_decoder_layers if loaded.kind == "decoder-only" else config.num_encoder_layers
    layer = stops_slider("layer", range(1, model_layers + 1), "layer", container=row[0], help=COUNTED_FROM_1)
    head = stops_slider("head", range(1, config.num_heads + 1), "head", container=row[1])
    causal = loaded.kind == "decoder-only"
    stack = " of its encoder" if loaded.kind == "encoder-decoder" else ""
    caption.caption(
        f"Model: {loaded.label}; layer {layer} of {model_layers}{stack}, head {head} of {config.num_heads}, "
        f"d_k = d_model / h = {config.d_model} / {config.num_heads} = {config.d_head}; positional encoding "
        f"{positional_name(config.positional, loaded.spec.source == 'random')}. "
        + ("Causal: query i sees keys j ≤ i." if causal else "Bidirectional: every query sees every key.")
    )
    what_if(loaded, layer, head, sentence, row[2], row[3])


@st.fragment
def what_if(
    loaded: LoadedModel, layer: int, head: int, sentence: TokenizedText | None, scale_box, temperature_box
) -> None:
    """The scaling switch and the temperature (drawn in the row above), then the open section and the numbers:
    softmax(mask((Q K^T s + b) / τ)) V of head ``head`` in layer ``layer`` (both from 1) on ``sentence``."""
    scale = scale_box.toggle(
        "divide by √d_k",
        value=True,
        key="scale",
        bind="query-params",
        help="What if the scores were not scaled? The model itself always computes with its own setting.",
    )
    temperature = temperature_box.slider(
        "temperature τ (sharpness: low τ = peaked, high τ = flat)",
        0.1,
        5.0,
        1.0,
        0.1,
        key="temp",
        bind="query-params",
        help="A what-if on this head's softmax: the model computes with τ = 1.",
    )
    if sentence is None:
        return
    steps = attention_steps(loaded.spec, sentence.ids, layer - 1, head - 1, scale, temperature)
    typed = str(st.session_state.get("text", ""))  # the sentence as typed, for the Tokens section
    view = HeadOnText(
        loaded.config,
        loaded.spec.source == "random",
        layer,
        head,
        scale,
        temperature,
        loaded.kind == "decoder-only",
        list(sentence.tokens),
        steps,
        typed,
    )
    # Only the open section is built and sent, so a setting redraws that section's charts alone.
    section = section_picker(SECTIONS)
    RENDER[section](view)
    # Built only while open (an open table is in the URL as table=true), so a setting does not resend it.
    numbers = st.expander("The numbers behind the figures", key="table", bind="query-params")
    if numbers.open:
        with numbers:
            NUMBERS.get(section, numbers_table)(view)


head_view()
