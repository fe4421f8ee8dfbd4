"""The word-order demo section of the Positional encoding page."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from ui import runtime  # noqa: F401  (torch threads are set before any torch work)
from viz.word_order import attention_pair_figure, word_rows_figure

from ui.controls import (
    POSITIONAL_LABELS,
    causal_control,
    d_model_control,
    heads_control,
    layers_control,
    seed_control,
    stops_slider,
)
from transformer import POSITIONAL_SCHEMES
from transformer.positional_schemes import NOWHERE
from ui.cache import cached_figure
from ui.forward import random_stack, self_attention_maps, stack_config
from ui.text import sentence_input
from ui.charts import chart
from ui.screen import FigureAboveControls, settings
from analysis.word_order import reorder_mapping
from pages.positional_encoding.word_order_numbers import word_order_attention

MAX_WORDS = 24
# every scheme that tells positions apart, each against "none"
COMPARED = tuple(scheme.name for scheme in POSITIONAL_SCHEMES if scheme.acts_in != NOWHERE)


EXPLAIN = {
    False: "The tutorials warn that without positional encoding the model would treat these two sentences "
    "identically. Here both go through the same randomly initialised model (bidirectional self-attention, "
    "same weights), once with **no** positional encoding and once with the scheme you pick. Without "
    "position, a word's attention row holds exactly the same numbers in both sentences, only in another "
    "order: $A_B = P\\,A_A\\,P^\\top$ for the permutation $P$ that reorders the words. With position, the "
    "numbers themselves can change: the table says whether they do for the scheme and the two sentences here. "
    "That holds without a mask only: switch on the causal mask.",
    True: "The causal mask is on: both sentences go through the same randomly initialised decoder (each word sees "
    "only itself and the words before it, same weights), once with **no** positional encoding and once "
    "with the scheme you pick. Even without position the mask tells places apart: the first word can only "
    "attend to itself, the last one sees every word, so a word moved to another place sees other words, and "
    "its weights and its output can change: $A_B \\ne P\\,A_A\\,P^\\top$ wherever a word sees other words "
    "than before (the table measures by how much).",
}
TOLERANCE = 1e-5  # float32 rounding: below this a difference is none


def permuted(result) -> bool:
    """True when undoing the permutation turns B's weights and outputs into A's (up to float32 rounding)."""
    return result.max_difference < TOLERANCE and result.output_difference < 10 * TOLERANCE


def reordered_finding(a: np.ndarray, b_in_a_order: np.ndarray) -> str:
    """Whether sentence B's map ``[T, T]``, put back in A's order, is A's map ``[T, T]``, as a title's ending: the
    largest difference of one weight, none below float32 rounding."""
    difference = float(np.abs(np.nan_to_num(a) - np.nan_to_num(b_in_a_order)).max())
    if difference < TOLERANCE:
        return ": B's map is A's, reordered"
    return f": B's map, reordered, differs from A's by up to {difference:.2f}"


def rows_finding(rows_a: list[np.ndarray], rows_b: list[np.ndarray], labels: list[str]) -> str:
    """How far one word's attention row ``[T]`` in sentence A lies from its row in sentence B (put in A's order), for
    each scheme ``labels[s]``, as a title's ending: the same below float32 rounding, else the largest gap."""
    gaps = [float(np.abs(np.nan_to_num(a) - np.nan_to_num(b)).max()) for a, b in zip(rows_a, rows_b)]
    said = [
        f"the same in both orders with {label}" if gap < TOLERANCE else f"up to {gap:.2f} apart with {label}"
        for gap, label in zip(gaps, labels)
    ]
    return ": " + ", ".join(said)


def table_note(none, causal: bool, scheme: str, with_scheme, moved: bool) -> str:
    """What the 'none' row and the scheme's row of the table say, from their numbers (``moved``: some word of
    sentence B is at another place than in sentence A)."""
    if not moved:
        return "Sentence B is sentence A, word for word: nothing is reordered, so every row is zero."
    return f"{none_note(none, causal)} {scheme_note(with_scheme, scheme)}"


def scheme_note(result, scheme: str) -> str:
    """Whether the scheme's row is a reordered copy, and why for ALiBi, whose bias keeps a reversal's distances."""
    name = POSITIONAL_LABELS[scheme]
    if not permuted(result):
        return f"With {name}, B's weights are up to {result.max_difference:.2f} away from a reordered copy of A's."
    why = (
        ": its bias −m|i − j| depends only on how far apart two words are, and this reordering keeps every "
        "pair's distance (a reversal does)"
        if scheme == "alibi"
        else ""
    )
    return f"With {name} too, B's weights and outputs are a reordered copy of A's{why}."


def none_note(none, causal: bool) -> str:
    """What the 'none' row of the table says, from its numbers."""
    if permuted(none):
        return (
            "Zero (up to float32 rounding) without positional encoding: undoing the word permutation turns "
            "sentence B's attention into sentence A's, in every layer and head, and B's outputs into A's."
        )
    return (
        f"Not zero even without positional encoding{' (the causal mask is on)' if causal else ''}: undoing the "
        f"word permutation leaves sentence B's attention up to {none.max_difference:.2f} and its outputs up to "
        f"{none.output_difference:.2f} away from sentence A's."
    )


@st.fragment
def render_word_order(base: float) -> None:
    """Two sentences with the same words through the same model, without and with position. On a small screen
    the sentences and the model's settings fold into a closed expander and the explanation follows the first
    figure, which then comes before the table."""
    st.header("The same words in another order")

    def explain() -> None:
        st.markdown(EXPLAIN[causal])

    box = settings("Sentences, model, layer and head")
    c1, c2 = box.columns(2)
    with c1:
        a = sentence_input("sentence A", "The cat sat on the mat", key="text_a", max_tokens=MAX_WORDS)
    with c2:
        b = sentence_input("sentence B", "The mat sat on the cat", key="text_b", max_tokens=MAX_WORDS)
    c1, c2, c3, c4, c5, c6 = box.columns(6)
    scheme = c1.selectbox(
        "compare 'none' with", COMPARED, format_func=POSITIONAL_LABELS.get, key="wo_pe", bind="query-params"
    )
    d_model = d_model_control(key="wo_d", container=c2)
    heads = heads_control(d_model, scheme, key="wo_heads", container=c3)
    layers = layers_control(key="wo_layers", max_value=4, container=c4)
    seed = seed_control(key="seed", container=c5)
    causal = causal_control(key="wo_causal", container=c6)
    if a is None or b is None:
        explain()
        return
    specs = {
        name: random_stack(
            stack_config(layers, d_model=d_model, num_heads=heads, positional=name, pe_base=base), seed, causal
        )
        for name in ("none", scheme)
    }
    c1, c2, c3 = box.columns(3)
    layer = stops_slider("layer to show", range(1, layers + 1), "wo_layer", container=c1)
    head = stops_slider("head to show", range(1, heads + 1), "wo_head", container=c2)
    h = head - 1  # heads and layers are numbered from 1 on screen
    perm = reorder_mapping(a.tokens, b.tokens)
    names = ("sentence A", "sentence B")
    if perm is None:
        st.warning(
            "Sentence B is not a reordering of sentence A's tokens (tokens are compared exactly, "
            "and the tokenizer is case-sensitive: 'The' and 'the' differ), so there is no "
            "permutation to undo. Both maps are shown without the check."
        )
        for name, spec in specs.items():
            maps = [self_attention_maps(spec, t.ids) for t in (a, b)]
            chart(
                cached_figure(
                    attention_pair_figure,
                    maps[0][layer - 1, h],
                    a.tokens,
                    maps[1][layer - 1, h],
                    b.tokens,
                    f"Layer {layer} · head {head} · {POSITIONAL_LABELS[name]}",
                    names,
                ),
                width="stretch",
            )
        explain()
        return
    word = c3.selectbox(
        "word to follow",
        list(range(len(a.tokens))),
        index=min(1, len(a.tokens) - 1),
        format_func=lambda i: f"{i + 1}: {a.tokens[i]}",  # positions numbered from 1, as on every page
        key="wo_word",
        bind="query-params",
    )
    results = {name: word_order_attention(spec, a.ids, b.ids, perm) for name, spec in specs.items()}
    table = pd.DataFrame(
        {
            "positional encoding": [POSITIONAL_LABELS[n] for n in results],
            "max |A − P⁻¹B| (weights)": [f"{r.max_difference:.1e}" for r in results.values()],
            "max |h_A − P⁻¹h_B| (outputs)": [f"{r.output_difference:.1e}" for r in results.values()],
            "permuted copy?": ["yes" if permuted(r) else "no" for r in results.values()],
        }
    )
    rows_a = [r.a[layer - 1, h, word] for r in results.values()]
    rows_b = [r.b_in_a_order[layer - 1, h, word] for r in results.values()]
    rows = cached_figure(
        word_rows_figure,
        rows_a,
        rows_b,
        a.tokens,
        a.tokens[word],
        [f"{POSITIONAL_LABELS[n]} · layer {layer} · head {head}" for n in results],
        names,
        rows_finding(rows_a, rows_b, [POSITIONAL_LABELS[n] for n in results]),
    )
    rows_place = FigureAboveControls()
    explain()
    left, right = st.columns([2, 3], gap="large")
    with left:
        st.dataframe(table, hide_index=True)
        st.caption(table_note(results["none"], causal, scheme, results[scheme], list(perm) != list(range(len(perm)))))
    mapping = right.expander(
        "How sentence B's words map onto sentence A's (token by position)", key="wo_map", bind="query-params"
    )
    if mapping.open:  # built only when opened
        mapping.dataframe(
            pd.DataFrame(
                {
                    "B position": range(1, len(b.tokens) + 1),
                    "token": b.tokens,
                    "A position": [int(j) + 1 for j in perm],
                }
            ),
            hide_index=True,
        )
    with rows_place.place():
        chart(rows, width="stretch")
    for name, result in results.items():
        chart(
            cached_figure(
                attention_pair_figure,
                result.a[layer - 1, h],
                a.tokens,
                result.b[layer - 1, h],
                b.tokens,
                f"Layer {layer} · head {head} · {'causal ' if causal else ''}self-attention, {POSITIONAL_LABELS[name]}"
                + reordered_finding(result.a[layer - 1, h], result.b_in_a_order[layer - 1, h]),
                names,
            ),
            width="stretch",
        )
