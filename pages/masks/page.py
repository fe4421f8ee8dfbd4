"""Masks: causal, padding, cross-attention shapes, their effect on the scores, the fully masked row.

The batch and the model are chosen at the top; only the open section is built (its label is
the URL's ``section``), so a change redraws only that section's charts. The model's settings,
the head shown, the sentence to follow and the sections are one fragment (``masks_view``): changing one of
them reruns and resends only that part of the page.
"""

import streamlit as st

from transformer.spec import ModelSpec
from analysis import masks as mask_math
from pages.masks import masked_scores, sections
from ui.controls import d_model_control, heads_control, layers_control, section_picker, seed_control, stops_slider
from ui.forward import stack_config
from ui.model_picker import load_or_stop, model_choice, trained_on_text
from ui.presentation import explanation
from ui.screen import settings, settings_popover, settings_row
from ui.routing import require_navigation
from ui.text import tokenize_text
from ui.formulas import formula

require_navigation()

st.title("Masks")
with explanation():
    st.markdown(
        "A mask says which keys each query may look at. Here, as in PyTorch's "
        "`F.scaled_dot_product_attention`, **True means may attend**. A forbidden score is replaced by "
        "$-\\infty$ before the softmax, so its weight becomes exactly 0 and every row renormalises over "
        "the keys that remain. A mask works the same whatever the weights, so the page opens on a small random "
        f"model; pick {trained_on_text()} in the model picker to see a trained model's heads under the mask you choose:"
    )
    formula(
        r"A = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right),\qquad "
        r"M_{ij} = \begin{cases}0 & \text{query } i \text{ may attend to key } j\\ -\infty & \text{otherwise}\end{cases}"
    )


SENTENCE_DEFAULTS = ("The cat sat", "The cat sat on the mat", "Dogs bark loudly")


def random_model(panel) -> ModelSpec:
    """The settings of a random model (d_model, heads, layers, seed) in ``panel``, one row, and its spec."""
    with panel:
        row = settings_row()
    d_model = d_model_control(container=row)
    heads = heads_control(d_model, container=row)
    layers = layers_control(container=row, max_value=4)
    seed = seed_control(container=row)
    return ModelSpec.random(stack_config(layers, d_model=d_model, num_heads=heads), seed, "encoder-only")


def padded_batch(texts: list[str], tokenizer, row_box) -> sections.Batch | None:
    """The typed sentences tokenised with the model's tokenizer and padded to one length, and the
    sentence to follow (picked in ``row_box``); None when every sentence is empty."""
    typed = [t for t in (tokenize_text(text, max_tokens=16, tokenizer=tokenizer) for text in texts) if t is not None]
    if not typed:
        return None
    row = row_box.selectbox(
        "sentence to follow",
        list(range(len(typed))),
        format_func=lambda i: f"sentence {i + 1}",
        key="row",
        bind="query-params",
    )
    tokens, ids, lengths = mask_math.pad_batch([t.tokens for t in typed], [t.ids for t in typed])
    return sections.Batch(
        tokens, ids, lengths, [f"sentence {i + 1} ({lengths[i]} tokens)" for i in range(len(typed))], row, typed[row]
    )


@st.fragment
def masks_view(choice: ModelSpec | None, texts: list[str], controls, row_box) -> None:
    """The model's settings and the head shown (drawn in ``controls``), the sentence to follow (in
    ``row_box``) and the open section. A change of any of them reruns this part only: neither the title,
    the formula, the model picker, the sentences nor the navigation are rerun or redrawn."""
    c = controls.columns(3, vertical_alignment="bottom")
    if choice is None:
        with c[0]:
            spec = random_model(settings_popover())
    else:
        spec = choice
    loaded = load_or_stop(spec)
    layers, heads = loaded.config.num_encoder_layers, loaded.config.num_heads
    if loaded.kind == "decoder-only":
        layers = loaded.config.num_decoder_layers
    layer = stops_slider("layer to show", range(1, layers + 1), "layer", container=c[1])
    head = stops_slider("head to show", range(1, heads + 1), "head", container=c[2])
    shown = sections.ShownHead(spec, layer, head - 1)
    batch = padded_batch(texts, loaded.tokenizer, row_box)
    controls.caption(
        f"The batch of sentences feeds every section but the first; the model ({loaded.label}: {layers} layers, "
        f"{heads} heads, d_model = {loaded.config.d_model}) feeds the last three."
    )
    open_section(batch, shown)


@st.fragment
def open_section(batch: sections.Batch | None, shown: sections.ShownHead) -> None:
    """The row of sections and the open one: another section reruns this part only, not the settings."""
    section = section_picker(sections.SECTIONS)
    if section == "Causal":
        sections.render_causal()
    for name, render in (
        ("Padding", sections.render_padding),
        ("Cross-attention", sections.render_cross),
        ("Scores", masked_scores.render_scores),
        ("Causal vs bidirectional", masked_scores.render_causal_vs_bidirectional),
        ("Fully masked row", masked_scores.render_fully_masked),
    ):
        if name != section:
            continue
        if batch is None:
            st.info("Type at least one sentence above to build a batch (they are all empty now).")
        elif name in ("Padding", "Cross-attention"):
            render(batch)
        else:
            render(batch, shown)


# The model picker and the sentences are drawn here, outside the fragment: changing them reruns the page.
with settings("Model, head and sentences"):
    model = model_choice(
        ("encoder-only", "decoder-only"),
        help="The last three sections run this model's "
        "self-attention with the mask you pick, whatever mask it was trained with.",
    )
    model_settings = st.container()
    sentence_row = st.columns(4)
    sentences = [
        sentence_row[i].text_input(
            f"sentence {i + 1}", SENTENCE_DEFAULTS[i], key=f"s{i + 1}", bind="query-params", max_chars=300
        )
        for i in range(3)
    ]
masks_view(model, sentences, model_settings, sentence_row[3])
