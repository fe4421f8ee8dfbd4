"""Encoder-decoder: a source and a target sentence through the whole Transformer.

This script draws the title, the model and the sentences, and the open section; the sections are in sections.py
(the whole model), encoder_layer.py (one encoder layer), output.py and dropout.py."""

import streamlit as st

from ui.controls import section_picker
from analysis.decoder_tables import shifted_right
from pages.encoder_decoder.controls import model_controls, settings_summary
from ui.model_picker import model_choice, shipped_label
from ui.models import load_model
from ui.translation import is_translation
from pages.encoder_decoder.dropout import dropout_section
from pages.encoder_decoder.encoder_layer import ffn_section, layer_section
from pages.encoder_decoder.output import output_section
from pages.encoder_decoder.since_2017 import since_2017_section
from pages.encoder_decoder.translate import alignment_section, reference_section, translate_section
from pages.encoder_decoder.sections import (
    SentencePair,
    architecture_section,
    attention_section,
    teacher_forcing_section,
)
from ui.routing import require_navigation
from ui.text import sentence_input
from ui.presentation import explanation
from ui.screen import parts_in_order, settings as screen_settings, settings_popover

require_navigation()

# Section labels are the values of the URL's ``section`` parameter: short, and never renamed lightly.
SECTIONS = ("Attention", "Output", "One layer", "Feed-forward", "Dropout", "Architecture", "Since 2017")
TRANSLATION_SECTIONS = ("Translate", "Alignment", "Reference")  # first, for a model that translates
SENTENCES = ("the cat sat on the mat", "le chat est assis sur le tapis")
TRANSLATION_SENTENCES = ("My sister has a red car.", "Ma sœur a une voiture rouge.")

st.title("Encoder-decoder: the whole Transformer")
with explanation():
    st.markdown(
        "The Transformer of *Attention Is All You Need* has two stacks. The **encoder** reads the whole "
        "source sentence and turns each token into a context-aware vector (the *memory*). The **decoder** "
        "produces the target one token at a time: it attends to the target tokens so far (masked, so it "
        "cannot peek ahead) and, through **cross-attention**, to the encoder's memory. A final linear layer "
        "and a softmax turn each decoder vector into a distribution over the target vocabulary."
    )


# What each section draws, in order, from the sentence pair.
SECTION_DRAWS = dict(
    zip(
        SECTIONS,
        (
            (attention_section,),
            (teacher_forcing_section, output_section),
            (layer_section,),
            (ffn_section,),
            (lambda p: dropout_section(p.forward, p.config, p.source.tokens, p.trained),),
            (architecture_section,),
            (since_2017_section,),
        ),
    ),
    Translate=(translate_section,),
    Alignment=(alignment_section,),
    Reference=(reference_section,),
)


def translation_default() -> str | None:
    """The shipped translation model's picker label (the page opens on it), or None when the server has none."""
    try:
        return shipped_label("translation")
    except KeyError:
        return None


@st.fragment
def model_view() -> None:
    """The model picker, the random model's settings (when no other model is picked) or the picked model, the
    two sentences and the open section. A setting or another model reruns this part only, not the page's title,
    explanation and navigation."""
    with screen_settings("Model and sentences"):
        choice = model_choice(
            ("encoder-decoder",),
            default=translation_default(),
            help="The translation model (English to French, trained on the Tatoeba sentence pairs) shows what trained "
            "heads do; a random model shows the mechanics with seeded weights and the settings below.",
        )
        settings = st.container()  # always here, empty for a picked model: the figures below keep their place
        if choice is None:
            with settings:
                with settings_popover():
                    spec = model_controls()
                if spec is not None:
                    st.caption(settings_summary(spec.config, spec.seed))
        else:
            spec = choice
        try:
            loaded = load_model(spec) if spec is not None else None
        except ValueError as error:
            st.error(str(error))
            loaded = None
        left, right = st.columns(2)
        tokenizer = loaded.tokenizer if loaded else None
        translates = is_translation(loaded)
        source_default, target_default = TRANSLATION_SENTENCES if translates else SENTENCES
        with left:
            source = sentence_input(
                "English sentence (the encoder reads it)" if translates else "Source sentence (encoder input)",
                source_default,
                key="src",
                tokenizer=tokenizer,
            )
        with right:
            target = sentence_input(
                "A French translation of it (the decoder reads it, teacher-forced)"
                if translates
                else "Target sentence (what the decoder should produce)",
                target_default,
                key="tgt",
                tokenizer=tokenizer,
            )
    if source is None or target is None or loaded is None:
        return
    dec_tokens, dec_ids = shifted_right(target.tokens, target.ids)
    sections = (*TRANSLATION_SECTIONS, *SECTIONS) if is_translation(loaded) else SECTIONS
    open_section(SentencePair(spec, loaded.config, source, target, dec_tokens, dec_ids, tokenizer), sections)


@st.fragment
def open_section(pair: SentencePair, sections: tuple[str, ...]) -> None:
    """The row of sections and the open one (only it is built and sent): another section reruns this part only,
    not the model and the sentences."""
    draws = SECTION_DRAWS[section_picker(sections)]
    # the output's figure first, then the shifted target
    with parts_in_order("output", draws == (teacher_forcing_section, output_section)):
        for draw in draws:
            with st.container():  # each part in one block: the order of the parts changes, not of their elements
                draw(pair)


model_view()
