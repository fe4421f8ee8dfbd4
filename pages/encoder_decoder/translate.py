"""The encoder-decoder page's sections for a translation model: what it writes (beam against greedy) with its
cross-attention as an alignment, how far each head agrees with hand-made word links, and the probability of
each piece of a reference translation under teacher forcing."""

from __future__ import annotations

import numpy as np
import streamlit as st

from analysis.alignment import (
    ALIGNED_PAIRS,
    agreement,
    argmax_links,
    pair_alignment,
    to_words,
    word_groups,
    word_labels,
    written_pieces,
)
from transformer import BOS_ID, EOS_ID
from ui.cache import computation
from ui.charts import chart
from ui.forward import run_model
from ui.models import load_model
from ui.numbering import COUNTED_FROM_1
from ui.screen import FigureAboveControls, one_then_pair
from ui.markdown_text import as_typed
from ui.translation import languages, translation
from ui.formulas import formula
from viz.alignment import agreement_figure, alignment_figure
from viz.encoder_decoder import top_k_bars
from viz.style import projector_fonts

MEAN = "mean"


def cross_attention(spec, source_ids: tuple[int, ...], written_ids: tuple[int, ...]) -> np.ndarray:
    """Every layer's cross-attention ``[L, H, T, S]`` while the decoder writes ``written_ids`` (teacher-forced:
    it reads ``<s>`` and the ids before each one), so row t is the step that writes ``written_ids[t]``."""
    decoder_input = (BOS_ID, *written_ids[:-1])
    return run_model(spec, tuple(source_ids), decoder_input).stacked("decoder", "cross_attn")


def scope_picker(layers: int, heads: int, key: str, default_layer=MEAN, default_head=MEAN, pieces=True) -> tuple:
    """Layer and head selectors (each with the mean of all as an option) and, with ``pieces``, the switch between
    words and subword pieces, in one row; (layer, head, pieces shown)."""
    c1, c2, c3 = one_then_pair()
    layer_options, head_options = [MEAN, *range(1, layers + 1)], [MEAN, *range(1, heads + 1)]
    layer = c1.selectbox(
        "layer",
        layer_options,
        index=layer_options.index(default_layer),
        format_func=lambda v: "mean of all layers" if v == MEAN else f"layer {v}",
        key=f"{key}_layer",
        bind="query-params",
        help=COUNTED_FROM_1,
    )
    head = c2.selectbox(
        "head",
        head_options,
        index=head_options.index(default_head),
        format_func=lambda v: "mean of all heads" if v == MEAN else f"head {v}",
        key=f"{key}_head",
        bind="query-params",
    )
    if not pieces:
        return layer, head, False
    shown = c3.toggle(
        "subword pieces",
        value=False,
        key=f"{key}_pieces",
        bind="query-params",
        help="Off: pieces joined into the words as typed (a word's columns summed, its rows averaged). "
        "On: one row and column per piece the model reads.",
    )
    return layer, head, shown


def pick(maps: np.ndarray, layer, head) -> np.ndarray:
    """``maps [L, H, T, S]`` -> ``[T, S]``: one layer and head, or the mean over the ones marked ``MEAN``."""
    chosen = maps.mean(axis=0) if layer == MEAN else maps[int(layer) - 1]
    return chosen.mean(axis=0) if head == MEAN else chosen[int(head) - 1]


def scope_name(layer, head) -> str:
    layer_name = "all layers" if layer == MEAN else f"layer {layer}"
    return f"{layer_name}, mean of heads" if head == MEAN else f"{layer_name}, head {head}"


@st.fragment
def translate_section(pair) -> None:
    """The source translated by beam search (the paper's) and greedily, and the cross-attention of the beam's
    translation as an alignment: French words down, English words across."""
    loaded = load_model(pair.spec)
    tokenizer, source_language, target_language = loaded.tokenizer, *languages(loaded)
    st.header(f"{source_language} to {target_language}: what the model writes, and what it reads")
    beam = translation(pair.spec, pair.source.ids, 4)
    greedy = translation(pair.spec, pair.source.ids, 1)
    beam_text, greedy_text = tokenizer.decode(beam), tokenizer.decode(greedy)
    st.markdown(f"**{target_language}, beam search (4 beams):** {as_typed(beam_text) or '(nothing)'}")
    same = "the same words" if beam_text == greedy_text else as_typed(greedy_text) or "(nothing)"
    st.markdown(f"**Greedy (one beam):** {same}")
    maps = cross_attention(pair.spec, pair.source.ids, beam)
    layers, heads = maps.shape[:2]
    # the map first, its controls under it (the map is drawn once they are read)
    figure_place = FigureAboveControls()
    layer, head, pieces = scope_picker(layers, heads, "tr")
    weights = pick(maps, layer, head)
    rows, cols = written_pieces(tokenizer, beam), tuple(pair.source.tokens)
    if not pieces:
        row_groups, col_groups = word_groups(rows), word_groups(cols)
        weights = to_words(weights, row_groups, col_groups)
        rows, cols = word_labels(rows, row_groups), word_labels(cols, col_groups)
    best = argmax_links(weights)
    strength = weights[np.arange(len(rows)), best]
    unit = "piece" if pieces else "word"
    title = (
        f"Cross-attention ({scope_name(layer, head)}): each {target_language} {unit} reads its strongest "
        f"{source_language} {unit} with {strength.mean():.0%} of its weight on average"
    )
    with figure_place.place():
        chart(projector_fonts(alignment_figure(weights, rows, cols, title)), width="stretch")
    links = " · ".join(f"{as_typed(rows[i])} ← {as_typed(cols[int(best[i])])}" for i in range(len(rows)))
    st.caption(f"The strongest link of each row: {links}")
    st.markdown(
        "The model reads the English sentence once (the encoder) and writes French one piece at a time. "
        "Each step's **cross-attention** is a distribution over the English pieces: drawn row by row, it "
        "is the *alignment* picture of neural translation, the step that writes a French word (down) "
        "against the English words it reads (across). Beam search keeps the 4 best partial translations "
        r"and scores a finished one by $\log P(Y \mid X) / \mathrm{lp}(Y)$, with the paper's length "
        r"penalty $\mathrm{lp}(Y) = ((5 + |Y|) / 6)^{0.6}$."
    )


@computation
def hand_alignments(spec) -> tuple[np.ndarray, ...]:
    """Each prepared pair's word maps ``[L, H, Tw, Sw]``, the model teacher-forced on its French."""
    loaded = load_model(spec)
    return tuple(
        pair_alignment(loaded.module, loaded.tokenizer, aligned.english, aligned.french) for aligned in ALIGNED_PAIRS
    )


def agreement_grid(word_maps, layers: int, heads: int) -> tuple[np.ndarray, int]:
    """``[L, H]`` share of linked French words (over every prepared pair) whose strongest English word is a
    hand-made link, and the number of linked words."""
    hits, total = np.zeros((layers, heads)), 0
    for maps, aligned in zip(word_maps, ALIGNED_PAIRS):
        for layer in range(layers):
            for head in range(heads):
                hits[layer, head] += agreement(maps[layer, head], aligned.links)[0]
        total += sum(1 for link in aligned.links if link)
    return hits / total, total


@st.fragment
def alignment_section(pair) -> None:
    """Each head's agreement with hand-made word links over the prepared pairs, and one pair's map with its
    links outlined: where the heads follow the adjective's move and where they do not."""
    loaded = load_model(pair.spec)
    tokenizer, source_language, target_language = loaded.tokenizer, *languages(loaded)
    st.header("Do the heads align words? Against an alignment made by hand")
    word_maps = hand_alignments(pair.spec)
    layers, heads = word_maps[0].shape[:2]
    grid, total = agreement_grid(word_maps, layers, heads)
    best_layer, best_head = np.unravel_index(int(grid.argmax()), grid.shape)
    title = (
        f"Layer {best_layer + 1}, head {best_head + 1} agrees most: its strongest {source_language} word is the "
        f"hand-made link for {grid.max():.0%} of {total} {target_language} words"
    )
    chart(projector_fonts(agreement_figure(grid, title)), width="stretch")
    names = [aligned.english for aligned in ALIGNED_PAIRS]
    chosen = st.selectbox("sentence pair", names, key="al_pair", bind="query-params")
    index = names.index(chosen) if chosen in names else 0
    aligned, maps = ALIGNED_PAIRS[index], word_maps[index]
    layer, head, _ = scope_picker(layers, heads, "al", int(best_layer) + 1, int(best_head) + 1, pieces=False)
    weights = pick(maps, layer, head)
    written = written_pieces(tokenizer, (*tokenizer.encode(tokenizer.tokenize(aligned.french)), EOS_ID))
    english = tokenizer.tokenize(aligned.english)
    rows, cols = word_labels(written, word_groups(written)), word_labels(english, word_groups(english))
    links = [(i, j) for i, link in enumerate(aligned.links) for j in sorted(link)]
    hits, linked = agreement(weights, aligned.links)
    title = (
        f"{aligned.french} ({scope_name(layer, head)}): the strongest {source_language} word is the hand-made "
        f"link for {hits} of {linked} words"
    )
    chart(projector_fonts(alignment_figure(weights, rows, cols, title, links)), width="stretch")
    st.caption(swap_note(weights, aligned, rows, cols))
    st.markdown(
        f"Each prepared pair has its words linked by hand. A head *agrees* on a {target_language} word when "
        f"the {source_language} word it reads most is one of that word's links. In every pair an adjective "
        "follows its noun in French and comes before it in English, so the links cross: a head that reads "
        "by meaning follows the swap, one that reads by position does not. Outlined cells are the links."
    )


def swap_note(weights: np.ndarray, aligned, rows, cols) -> str:
    """What the map does where the links cross (the noun and adjective): computed from its strongest links."""
    best = argmax_links(weights)
    crossing = [
        word
        for i, link in enumerate(aligned.links)
        for k, other in enumerate(aligned.links)
        if link and other and k > i and min(other) < min(link)
        for word in (i, k)
    ]
    parts = []
    for i in sorted(set(crossing)):
        read = int(best[i])
        verdict = "follows the swap" if read in aligned.links[i] else "does not follow it"
        parts.append(
            f"“{as_typed(rows[i])}” reads “{as_typed(cols[read])}” most "
            f"({weights[i, read]:.2f}; its link is “{as_typed(cols[min(aligned.links[i])])}”): {verdict}"
        )
    return "Where the links cross: " + "; ".join(parts) + "." if parts else "No links cross in this pair."


@st.fragment
def reference_section(pair) -> None:
    """Teacher forcing on a reference translation (the page's target sentence): the probability the model gives
    each of its pieces, given the source and the reference's pieces before it."""
    loaded = load_model(pair.spec)
    target_language = languages(loaded)[1]
    st.header("A reference translation, piece by piece: how likely the model finds it")
    probabilities = pair.forward().probabilities
    chosen = probabilities[np.arange(pair.tgt_len), np.asarray(pair.target.ids)]
    log_total = float(np.log(np.maximum(chosen, 1e-30)).sum())
    weakest = int(chosen.argmin())
    title = (
        f"Each piece of the reference given those before it: the least likely is "
        f"“{pair.target.tokens[weakest]}” (p = {chosen[weakest]:.3f})"
    )
    chart(projector_fonts(top_k_bars(pair.target.tokens, chosen, title, weakest)), width="stretch")
    st.caption(
        f"The whole reference has log P = {log_total:.2f} (the sum of the pieces' log-probabilities), a "
        f"perplexity of {np.exp(-log_total / pair.tgt_len):.2f} per piece. The orange bar is the least likely piece."
    )
    st.markdown(
        f"Type a {target_language} translation as the target sentence. In **teacher forcing** the decoder reads "
        "the reference shifted right and gives, at each step, a probability to every piece of its vocabulary; "
        "the bars are the probabilities of the reference's own pieces (“▁” marks a space before a piece). "
        "Training raised exactly these numbers on the training pairs."
    )
    formula(r"\log P(Y \mid X) = \sum_{t=1}^{T} \log P(y_t \mid y_{<t}, X)")
