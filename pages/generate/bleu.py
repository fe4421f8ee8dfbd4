"""The Generate page's "BLEU" section, for a translation model: greedy decoding against the paper's beam search
on held-out sentences, scored by corpus BLEU and chrF against every reference."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ui.charts import chart
from ui.translation import SAMPLE_SIZE, sample_quality
from ui.formulas import formula
from viz.alignment import quality_bars
from viz.style import projector_fonts


def render_bleu(writer) -> None:
    """Both decodings of ``SAMPLE_SIZE`` held-out sentences: the scores as bars, the sentences as a table."""
    st.header("Greedy or beam search: BLEU on held-out sentences")
    greedy, beam = sample_quality(writer.spec, 1), sample_quality(writer.spec, 4)
    better = "beam search" if beam.quality.bleu >= greedy.quality.bleu else "greedy decoding"
    title = (
        f"On {SAMPLE_SIZE} held-out sentences {better} scores higher: BLEU {beam.quality.bleu:.1f} with 4 beams, "
        f"{greedy.quality.bleu:.1f} greedy"
    )
    figure = quality_bars(
        ("greedy", "beam search, 4 beams"),
        (greedy.quality.bleu, beam.quality.bleu),
        (greedy.quality.chrf, beam.quality.chrf),
        title,
    )
    chart(projector_fonts(figure), width="stretch")
    differ = sum(g != b for g, b in zip(greedy.translations, beam.translations))
    st.caption(
        f"The two decodings differ on {differ} of the {SAMPLE_SIZE} sentences. BLEU's n-gram precisions with 4 beams: "
        + ", ".join(f"{p:.0f} %" for p in beam.quality.precisions)
        + f" (1- to 4-grams); brevity penalty {beam.quality.brevity_penalty:.2f}."
        + whole_split_note(writer.loaded.metadata)
        + runaway_note(beam)
    )
    table = pd.DataFrame(
        {
            "English (held out)": beam.english,
            "greedy": greedy.translations,
            "beam search, 4 beams": beam.translations,
            "references": [" | ".join(refs) for refs in beam.references],
        }
    )
    st.dataframe(table, hide_index=True, width="stretch")
    st.markdown(
        "None of these English sentences was seen in training; each has every French translation in the data "
        "as its references. **BLEU** counts the translation's 1- to 4-word sequences found in a reference "
        "(clipped), takes the geometric mean of the four precisions and multiplies by a penalty for being "
        "shorter than the references; **chrF** does the same with characters, which forgives a wrong ending "
        "of a right word. Neither knows meaning: a correct translation worded unlike every reference scores low."
    )
    formula(r"\mathrm{BLEU} = 100 \cdot \mathrm{BP} \cdot \exp\Big(\tfrac14 \sum_{n=1}^{4} \log p_n\Big)")


def whole_split_note(metadata: dict) -> str:
    """The checkpoint's own scores on every held-out sentence, when its metadata has them (the shipped model's)."""
    if not all(key in metadata for key in ("bleu", "greedy_bleu", "held_out_sentences")):
        return ""
    return (
        f" On all {metadata['held_out_sentences']:,} held-out sentences (measured when the model was saved): BLEU "
        f"{metadata['bleu']:.1f} with 4 beams, {metadata['greedy_bleu']:.1f} greedy."
    )


def runaway_note(result) -> str:
    """A translation more than twice as long (in words) as its longest reference: it weighs on corpus BLEU."""
    runs = [
        (len(written.split()), max(len(ref.split()) for ref in refs))
        for written, refs in zip(result.translations, result.references)
    ]
    longest = max(range(len(runs)), key=lambda i: runs[i][0] - 2 * runs[i][1])
    words, reference = runs[longest]
    if words <= 2 * reference:
        return ""
    return (
        f" One translation runs on: {words} words with 4 beams where its longest reference has {reference}; every "
        "extra word counts against the precisions."
    )
