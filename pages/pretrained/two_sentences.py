"""The Two sentences section: one query word's attention in every head of a layer for two sentences, their
embeddings' cosine, and a question about the pair on screen (where the two sentences' tokens differ)."""

from __future__ import annotations

import difflib

import streamlit as st

from analysis.head_roles import without_specials
from analysis.head_stats import strongest_link
from pages.pretrained import numbers
from ui.charts import chart
from ui.screen import settings
from ui.controls import stops_slider
from viz.labels import escape
from ui.markdown_text import as_typed
from ui.cache import cached_figure
from ui.formulas import formula
from viz.pretrained import query_rows_figure

FIRST_TEXT = "The animal didn't cross the street because it was too tired"
SECOND_TEXT = "The animal didn't cross the street because it was too wide"


def differences(first: list[str], second: list[str]) -> list[tuple[list[str], list[str], bool]]:
    """Where two token lists differ (``difflib``'s alignment): each changed span's tokens in the first list and
    in the second, and whether the span ends both lists."""
    matcher = difflib.SequenceMatcher(a=first, b=second, autojunk=False)
    return [
        (first[i1:i2], second[j1:j2], i2 == len(first) and j2 == len(second))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _span(tokens: list[str]) -> str:
    """Tokens in italics, as typed ("nothing" for none)."""
    return f"*{as_typed(' '.join(tokens))}*" if tokens else "nothing"


def pair_question(first: list[str], second: list[str], word: str, classic: bool) -> str:
    """The question over two sentences' ordinary tokens and the query ``word``: the Winograd question (which
    heads look at *animal* in one and *street* in the other) only for the ``classic`` pair and the word "it";
    otherwise where the sentences differ, computed from their tokens."""
    if classic:
        return (
            "The classic pair: only the last word differs, *tired* or *wide*, and with it what **it** refers "
            "to (the animal was too tired, the street too wide). In which heads does **it** look at *animal* "
            "in one and *street* in the other? And how close does the model find the two sentences?"
        )
    changes = differences(first, second)
    if not changes:
        return (
            "The two sentences are the same tokens: the model reads them alike, so every head's row is the "
            "same in both and the cosine of their embeddings is 1."
        )
    if len(changes) == 1:
        old, new, at_end = changes[0]
        said = (
            f"The sentences differ only {'at the end' if at_end else 'in one place'}: {_span(old)} in the "
            f"first, {_span(new)} in the second."
        )
    else:
        said = f"The sentences differ in {len(changes)} places."
    return (
        f"{said} In which heads does **{as_typed(word)}** look at different tokens in the two? And how close "
        "does the model find the two sentences?"
    )


@st.fragment
def two_sentences_section(cap: int, hide: bool) -> None:
    """One query word's attention in every head of a layer, for two sentences, and their embeddings' cosine."""

    def ask(question: str = "") -> None:
        st.markdown(
            question
            or "Two sentences and a word of both: what the word attends to in each, head by head, and how "
            "close the model finds the two sentences."
        )

    with settings("Sentences, query word and layer"):  # folded on a phone or a projector: the figure first
        c1, c2 = st.columns(2)
        first = c1.text_input("first sentence", FIRST_TEXT, key="first", bind="query-params", max_chars=500)
        second = c2.text_input("second sentence", SECOND_TEXT, key="second", bind="query-params", max_chars=500)
        c1, c2 = st.columns(2)
        word = c1.text_input("query word", "it", key="word", bind="query-params", max_chars=40).strip().lower()
        layer = stops_slider("layer", range(1, 7), "cmp_layer", 5, c2)
    a, b = numbers.wordpieces(first, cap), numbers.wordpieces(second, cap)
    if len(a) <= 2 or len(b) <= 2:
        st.info("Type both sentences to compare them.")
        ask()
        return
    ra, rb = numbers.reading(a.ids), numbers.reading(b.ids)
    rows, tokens, links = [], [], []
    for pieces, reading in ((a, ra), (b, rb)):
        keep = [not s for s in pieces.special] if hide else [True] * len(pieces)
        w = without_specials(reading.weights, pieces.special) if hide else reading.weights
        toks = [t for t, k in zip(pieces.tokens, keep) if k]
        where = toks.index(word) if word in toks else None
        if where is None:
            st.warning(
                f"“{as_typed(word)}” is not a token of: {as_typed(' '.join(toks))}. Pick a word from the sentence."
            )
            ask()
            return
        rows.append(w[int(layer) - 1, :, where, :])
        tokens.append(toks)
        plain = [j for j, special in enumerate(s for s, k in zip(pieces.special, keep) if k) if not special]
        links.append(strongest_link(w[int(layer) - 1], where, plain))  # past [CLS] and [SEP]
    chart(
        cached_figure(
            query_rows_figure,
            rows,
            tokens,
            ["first sentence", "second sentence"],
            f"Layer {layer} · what “{escape(word)}” attends to, head by head"
            + ("" if hide else ", past [CLS] and [SEP]")
            + ": "
            + ", ".join(
                f"in the {which} sentence “{escape(toks[key])}” the most (head {head + 1}, {weight:.2f})"
                for which, toks, (head, key, weight) in zip(("first", "second"), tokens, links)
            ),
        ),
        width="stretch",
        key="query_rows",
    )
    ordinary = [[t for t, special in zip(p.tokens, p.special) if not special] for p in (a, b)]
    classic = word == "it" and ordinary == [
        [t for t, special in zip(p.tokens, p.special) if not special]
        for p in (numbers.wordpieces(FIRST_TEXT, cap), numbers.wordpieces(SECOND_TEXT, cap))
    ]
    ask(pair_question(*ordinary, word, classic))
    similarity = numbers.cosine(ra.embedding, rb.embedding)
    st.metric("cosine similarity of the two sentence embeddings", f"{similarity:.3f}")
    formula(
        r"e = \frac{\bar h}{\lVert \bar h \rVert},\ \bar h = \tfrac1T\textstyle\sum_t h_t,\qquad "
        r"\cos(e_1, e_2) = e_1 \cdot e_2"
    )
    st.caption(
        "The sentence embedding is the mean of the last layer's token vectors, normalised; this is what "
        "the model was trained for (1 = same meaning, about 0 = unrelated)."
    )
