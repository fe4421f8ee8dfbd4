"""A real pretrained model: all-MiniLM-L6-v2's 72 heads on the user's text, run by the package's own encoder."""

import streamlit as st

from analysis.head_roles import block_mean, without_specials
from pages.pretrained import numbers, pairs, sections, two_sentences
from ui.presentation import explanation
from ui.screen import settings
from ui.numbering import COUNTED_FROM_1
from ui.controls import section_picker, stops_slider
from ui.routing import require_navigation
from ui.formulas import formula

require_navigation()

DEFAULT_TEXT = "The animal didn't cross the street because it was too tired"
SECTIONS = (
    "Tokens",
    "All heads",
    "One layer",
    "Head view",
    "Mean and rollout",
    "Head roles",
    "Two sentences",
    "Sentence pairs",
)

st.title("A real pretrained model: all-MiniLM-L6-v2")
with explanation():
    st.markdown(
        "The other pages start from random weights to show the mechanics, or from small checkpoints trained "
        "on toy tasks. This one runs a network trained on real text: **all-MiniLM-L6-v2**, a BERT-style "
        "encoder (6 layers × 12 heads of 32 dimensions, d_model = 384, a WordPiece vocabulary of 30,522). It was "
        "first pre-trained on general text: it starts from MiniLM, a small model distilled from a larger "
        "BERT-style one. It was then fine-tuned contrastively on about a billion sentence pairs to map "
        "sentences with similar meaning to nearby vectors. Its weights are loaded into this dashboard's own `EncoderOnly` model, "
        "and a test checks every layer's and head's attention against Hugging Face's `BertModel` to 1e-5."
    )
    formula(
        r"x_0 = \mathrm{LN}(E_{\text{token}} + P_{\text{position}} + T_{\text{type}}),",
        r"x_{\ell} = \mathrm{LN}(x' + \mathrm{FFN}(x')),\quad x' = \mathrm{LN}(x_{\ell-1} + \mathrm{MultiHead}(x_{\ell-1}))",
    )


@st.fragment
def pretrained_view() -> None:
    """The text, the token cap, the layer, the [CLS]/[SEP] switch and the open section. A change reruns this
    part only, not the page's title, explanation and navigation."""
    with settings("Text, token cap and layer"):
        text = st.text_area("Text", DEFAULT_TEXT, key="text", bind="query-params", max_chars=5000, height=80)
        c1, c2, c3 = st.columns([1, 1, 2])
        cap = stops_slider(
            "at most (tokens)",
            numbers.CAPS,
            "cap",
            numbers.CAPS[2],
            c1,
            help="The model reads at most 512 tokens. Longer inputs are cut, with a note.",
        )
        layer = stops_slider(
            "layer",
            range(1, 7),
            "layer",
            container=c2,
            help="For the one-layer, head view and mean sections. " + COUNTED_FROM_1,
        )
        hide = c3.toggle(
            "hide [CLS] and [SEP] and renormalise each row",
            value=False,
            key="hide",
            bind="query-params",
            help="On short inputs many heads park most of their weight on [CLS] or [SEP], a 'no-op' "
            "the model learned; hiding them shows how the rest of each row is shared.",
        )

    pieces = numbers.wordpieces(text, cap)
    if len(pieces) <= 2:
        st.info("Type some text above to see the model's attention (it is empty now).")
        return
    if pieces.cut_from is not None:
        st.warning(
            f"The text has {pieces.cut_from} tokens; only the first {cap} are used (raise the limit above, "
            f"up to the model's 512)."
        )
    reading = numbers.reading(pieces.ids)
    tokens = list(pieces.tokens)
    weights, shown_tokens = reading.weights, tokens
    hidden_note = st.empty()  # one place, filled or not: the section below keeps its own and is redrawn in place
    if hide:
        weights, shown_tokens = (
            without_specials(reading.weights, pieces.special),
            [t for t, s in zip(tokens, pieces.special) if not s],
        )
        hidden_note.caption(
            "[CLS] and [SEP] hidden: each row is renormalised over the other tokens, "
            "A'_ij = A_ij / Σ_k A_ik (k ordinary), so a row that was all on them is blank."
        )
    open_section(pieces, reading, weights, shown_tokens, layer - 1, cap, hide)


@st.fragment
def open_section(
    pieces, reading: numbers.Reading, weights, shown_tokens: list[str], li: int, cap: int, hide: bool
) -> None:
    """The row of sections and the open one, then the CSV of layer ``li``: another section reruns this part
    only, not the text and its settings."""
    section = section_picker(SECTIONS)
    if section == "Tokens":
        sections.tokens_section(pieces, numbers.piece_kinds(pieces))
    if section == "All heads":
        pooled, labels, k = block_mean(weights, shown_tokens, max_cells=48)
        sections.overview_section(pooled, labels, k, hide)
    if section == "One layer":
        pooled, labels, k = block_mean(weights[li], shown_tokens, max_cells=96)
        sections.layer_section(pooled, labels, k, li)
    if section == "Head view":
        ordinary = [True] * len(shown_tokens) if hide else [not s for s in pieces.special]
        sections.head_view_section(weights[li], shown_tokens, ordinary, li)
    if section == "Mean and rollout":
        sections.rollout_section(weights, shown_tokens, li)
    if section == "Head roles":
        sections.roles_section(reading.weights, pieces)
    if section == "Two sentences":
        two_sentences.two_sentences_section(cap, hide)
    if section == "Sentence pairs":
        pairs.pairs_section(cap)

    st.download_button(
        f"Layer {li + 1}'s attention as CSV (long form)",
        key="csv",
        on_click="ignore",
        data=lambda: sections.layer_csv(weights[li : li + 1], shown_tokens, li),
        file_name=f"minilm_layer{li + 1}_attention.csv",
        mime="text/csv",
        help="One row per head, query and key of the chosen layer. Each figure's toolbar saves it as an image.",
    )


pretrained_view()
