"""Experiments on a translation model: knock out cross-attention heads (or a layer's whole cross-attention) and
read what the model writes, and its BLEU on held-out sentences, with and without them. The token sections that
read a single stack's next-token prediction say what they read instead."""

from __future__ import annotations

import streamlit as st

from ui.charts import chart
from ui.controls import section_picker
from ui.models import LoadedModel
from ui.markdown_text import as_typed
from ui.text import tokenize_text
from ui.translation import SAMPLE_SIZE, languages, sample_quality, translation
from viz.alignment import quality_bars
from viz.style import projector_fonts

ENGLISH = "My sister has a red car."


def knocked_heads(layers: int, heads: int) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """One row of head buttons per decoder layer's cross-attention (each a URL key); the heads chosen, from 0."""
    knocked = []
    for layer in range(layers):
        chosen = st.segmented_control(
            f"layer {layer + 1}: cross-attention heads knocked out",
            [f"head {h + 1}" for h in range(heads)],
            selection_mode="multi",
            key=f"xk{layer + 1}",
            bind="query-params",
            help="Pick every head of a layer to knock out the layer's whole cross-attention.",
        )
        picked = tuple(sorted(int(name.split()[1]) - 1 for name in chosen or ()))
        if picked:
            knocked.append((f"decoder.layers.{layer}.cross_attn", picked))
    return tuple(knocked)


def knocked_name(knocked, heads_per_layer: int) -> str:
    """The knock-out in words, heads counted from 1."""
    parts = []
    for name, heads in knocked:
        layer = int(name.split(".")[2]) + 1
        if len(heads) == heads_per_layer:
            parts.append(f"layer {layer}'s whole cross-attention")
        else:
            numbers = ", ".join(str(h + 1) for h in heads)
            parts.append(f"layer {layer} head{'s' if len(heads) > 1 else ''} {numbers}")
    return "; ".join(parts)


@st.fragment
def translation_experiment(loaded: LoadedModel, sections: tuple[str, ...]) -> None:
    """The page's row of sections for a translation model: Knock out works on it; the others say why not."""
    section = section_picker(sections)
    if section != "Knock out":
        st.info(
            f"{section} reads a single stack's next-token prediction or a toy task's answer; {loaded.label} "
            "translates. For it this page has **Knock out**: cross-attention heads, the translation and BLEU."
        )
        return
    source_language, target_language = languages(loaded)
    st.header("Knock out cross-attention: what the model writes without it")
    text = st.text_input(f"{source_language} sentence", ENGLISH, key="en", bind="query-params", max_chars=300)
    typed = tokenize_text(text, loaded.config.max_len, tokenizer=loaded.tokenizer)
    config = loaded.config
    knocked = knocked_heads(config.num_decoder_layers, config.num_heads)
    intact, without = sample_quality(loaded.spec, 4), sample_quality(loaded.spec, 4, knocked)
    what = knocked_name(knocked, config.num_heads) if knocked else "nothing"
    change = without.quality.bleu - intact.quality.bleu
    title = (
        f"Knocking out {what}: BLEU {intact.quality.bleu:.1f} → {without.quality.bleu:.1f} on {SAMPLE_SIZE} "
        f"held-out sentences ({change:+.1f})"
        if knocked
        else f"Nothing knocked out yet: BLEU {intact.quality.bleu:.1f} on {SAMPLE_SIZE} held-out sentences"
    )
    bars = quality_bars(
        ("intact", "knocked out"),
        (intact.quality.bleu, without.quality.bleu),
        (intact.quality.chrf, without.quality.chrf),
        title,
        before_after=True,
    )
    chart(projector_fonts(bars), width="stretch")
    if typed is None:
        st.info(f"Type an {source_language} sentence to read its translation with and without the heads.")
    else:
        tokenizer = loaded.tokenizer
        before = tokenizer.decode(translation(loaded.spec, typed.ids, 4))
        after = tokenizer.decode(translation(loaded.spec, typed.ids, 4, knocked))
        st.markdown(f"**{target_language}, intact:** {as_typed(before) or '(nothing)'}")
        if knocked:
            st.markdown(
                f"**{target_language}, {as_typed(what)} knocked out:** "
                + ("the same words" if before == after else as_typed(after) or "(nothing)")
            )
    st.markdown(
        "Cross-attention is the decoder's only road to the English sentence. A head knocked out writes zeros "
        "in its slice of the concatenation, at every step of the beam search; knock out all of a layer's heads "
        "and that layer reads nothing of the source. BLEU is measured with 4 beams and the paper's length "
        "penalty against every reference."
    )
