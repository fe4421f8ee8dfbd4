"""The Self-attention page's "Tokens" section: the sentence cut into characters, words, byte-pair pieces learned
from a text the student can read and edit, and MiniLM's WordPiece pieces; the merges drawn in order; how the
sentence's tokens and the vocabulary move with the number of merges."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ui import runtime  # noqa: F401  (torch threads are set before any torch work)

from analysis.tokens import Layout, Way, bpe_way, character_way, layout, word_way, wordpiece_way
from transformer import normalize
from transformer.bpe_training import LearnedBPE, token_counts, train_bpe
from transformer.pretrained import pretrained_tokenizer
from transformer.text_corpus import CORPUS_PATH
from ui.cache import cached_figure, computation, resource
from ui.charts import chart
from ui.screen import compact, presenting
from ui.formulas import formula
from viz.tokens import growth_figure, merges_figure, segmentation_figure

MAX_TRAINING_CHARS = 60_000  # the built-in text (about 55,000) fits whole
MAX_MERGES, DEFAULT_MERGES = 1000, 200
MAX_SENTENCE_CHARS = 300
SHOWN_MERGES = 20  # the merges figure shows the latest this many up to the chosen count
PAPER_VOCABULARY = 37_000  # Vaswani et al. (2017): shared source-target BPE vocabulary, English-German


@computation
def built_in_text() -> str:
    """The project's own explanatory text (transformer/corpus.txt), as the default training text."""
    return CORPUS_PATH.read_text(encoding="utf-8")


@computation
def learned_bpe(text: str, cap: int) -> LearnedBPE:
    """At most ``cap`` merges learned from ``text``: trained once a text, every merge count reads a prefix."""
    return train_bpe(text, cap)


@computation
def sentence_counts(sentence: str, text: str, cap: int) -> tuple[int, ...]:
    """The sentence's BPE tokens after 0 .. K merges of ``learned_bpe(text, cap)`` [K + 1]."""
    return tuple(token_counts(sentence, learned_bpe(text, cap).merges))


@resource(max_entries=1)
def minilm_wordpiece():
    """all-MiniLM-L6-v2's WordPiece tokenizer alone (no weights), long enough for the capped sentence."""
    return pretrained_tokenizer("all-MiniLM-L6-v2", max_tokens=512)


@computation
def cut_ways(sentence: str, text: str, cap: int, merges: int) -> tuple[Layout, tuple[Way, ...]]:
    """The sentence laid out and cut four ways: characters, words, BPE after ``merges``, WordPiece (left out
    when the pretrained model's files are not installed)."""
    place, bpe = layout(sentence), learned_bpe(text, cap)
    ways = [character_way(place), word_way(place), bpe_way(place, bpe.merges[:merges], bpe.alphabet)]
    try:
        ways.append(wordpiece_way(place, minilm_wordpiece().encode_text(place.text)))
    except ValueError:
        pass
    return place, tuple(ways)


def training_text() -> str | None:
    """The training text control (the built-in text by default), of at most ``MAX_TRAINING_CHARS`` (the box
    takes no more, and a link's longer value is cut to them); None after a prompt when it is empty."""
    typed = st.text_area(
        "Training text: BPE learns its merges from this text (read it, edit it, or paste your own)",
        value=built_in_text(),
        key="bpe_text",
        bind="query-params",
        height=150,
        max_chars=MAX_TRAINING_CHARS,
    )
    text = normalize(typed)
    if not text.strip():
        st.info("The training text is empty: type or paste some text above to learn merges from.")
        return None
    return text[:MAX_TRAINING_CHARS]  # the box takes no more (its counter shows it); normalising may lengthen it


def tokens_section(view) -> None:
    """The sentence (the page's text control) cut four ways, the merges, and how counts move with them."""
    sentence = normalize(view.text)
    if len(sentence) > MAX_SENTENCE_CHARS:
        st.caption(f"The sentence has {len(sentence):,} characters; this section cuts the first {MAX_SENTENCE_CHARS}.")
        sentence = sentence[:MAX_SENTENCE_CHARS]
    asked = st.slider(
        "merges: BPE joins the most frequent adjacent pair this many times",
        0,
        MAX_MERGES,
        DEFAULT_MERGES,
        10,
        key="merges",
        bind="query-params",
    )
    figure_place, below = st.container(), st.container()
    with below:
        text = training_text()
    if text is None:
        return
    bpe = learned_bpe(text, MAX_MERGES)
    merges = min(asked, len(bpe.merges))
    if merges < asked:
        st.caption(f"This text allows only {len(bpe.merges)} merges: after them every word is one piece.")
    place, ways = cut_ways(sentence, text, MAX_MERGES, merges)
    with figure_place:
        draw_ways(place, ways, merges)
        explain(ways, bpe, merges)
        left, right = st.columns(2, gap="large")
        with left:
            draw_merges(bpe, merges)
        with right:
            counts = sentence_counts(sentence, text, MAX_MERGES)
            chart(
                cached_figure(
                    growth_figure,
                    tuple(range(len(counts))),
                    counts,
                    tuple(bpe.vocabulary_sizes()),
                    merges,
                    tuple((w.name, len(w)) for w in ways if w.name != "BPE"),
                ),
                key="tok_growth",
            )


def against(count: int, other: int, name: str) -> str:
    """``count`` said against ``other`` ``name``: "8 fewer than the characters", "as many as the words"."""
    if count == other:
        return f"as many as the {name}"
    return f"{abs(count - other)} {'fewer' if count < other else 'more'} than the {name}"


def ways_finding(ways: tuple[Way, ...]) -> str:
    """The cuts' title ending: how many pieces BPE needs, against the characters and the words."""
    by_name = {w.name: len(w) for w in ways}
    pieces = by_name["BPE"]
    return (
        f": BPE needs {pieces} pieces, {against(pieces, by_name['characters'], 'characters')} and "
        f"{against(pieces, by_name['words'], 'words')}"
    )


def draw_ways(place: Layout, ways: tuple[Way, ...], merges: int) -> None:
    """The main figure: every way lined up under the sentence's characters."""
    line_units = 16 if compact() else 40 if presenting() else 44  # 16 px or more a character (22 px presenting)
    chart(
        cached_figure(
            segmentation_figure,
            tuple((w.name, w.labels, w.starts, w.ends, w.kinds) for w in ways),
            place.breaks,
            place.width,
            line_units,
            f"Your sentence as tokens, cut four ways (BPE after {merges} merges)" + ways_finding(ways),
            14 if presenting() else 10,
        ),
        key="tok_ways",
    )
    st.caption(
        "Spaces are not tokens here: a word ends where the next begins. In BPE, “</w>” ends a word "
        "(“the</w>” is the whole word, “the” would start a longer one). In WordPiece, “##” marks a "
        "piece that continues a word, and [UNK] a word it cannot spell; MiniLM lower-cases the text first and "
        "adds [CLS] and [SEP] around it (not counted). Hover a box for its token."
    )


def explain(ways: tuple[Way, ...], bpe: LearnedBPE, merges: int) -> None:
    """The rule as a formula, and what the figure shows, with its numbers."""
    by_name = {w.name: w for w in ways}
    chars, words, pieces = len(by_name["characters"]), len(by_name["words"]), len(by_name["BPE"])
    sizes = bpe.vocabulary_sizes()
    alphabet, vocabulary = sizes[0], sizes[merges]
    unknown = sum(kind == 2 for kind in by_name["BPE"].kinds)
    st.markdown(
        "**Byte-pair encoding** (Sennrich et al., 2016) starts from characters, each word ended by “</w>”, and "
        "learns merges from a training text: each merge joins the adjacent pair of pieces that occurs most often "
        "(counting each word as often as it occurs) into one new piece. Ties go to the pair first in alphabetical "
        "(code-point) order. Pieces never cross a space. To cut a sentence, the merges are applied to its words in "
        "the order they were learned."
    )
    formula(
        r"(a, b) = \operatorname*{arg\,max}_{(x,\,y)\ \text{adjacent}} \operatorname{count}(x, y),\qquad "
        r"x\;y \to xy,\qquad |V_k| = |V_0| + k"
    )
    shorter = "fewer than" if pieces < chars else "as many as" if pieces == chars else "more than"
    growth = (
        "one piece a merge"
        if vocabulary == alphabet + merges
        else f"{vocabulary - alphabet} new pieces from {merges} merges (a few made a piece already there)"
    )
    st.markdown(
        f"Here: the training text's {alphabet} symbols (its characters and “</w>”) plus {merges} merges make a "
        f"vocabulary of **{vocabulary:,}** pieces ({growth}). Your sentence is **{pieces}** BPE tokens: {shorter} "
        f"its {chars} characters, and {'more than' if pieces > words else 'as many as'} its {words} words. "
        + (
            f"{unknown} of its characters never occur in the training text, so no merge can reach them: they stay "
            "unknown. "
            if unknown
            else "Every word is spelled from pieces in the vocabulary, so none is unknown. "
        )
        + "That is why models use subwords: a word never seen is still spelled from smaller pieces (no unknown "
        "words, given the characters), and a sentence takes far fewer tokens than it has characters. The paper "
        f"(Vaswani et al., 2017) used byte-pair encoding with one vocabulary of about {PAPER_VOCABULARY:,} pieces "
        "shared by English and German; MiniLM uses WordPiece, a close relative with "
        f"{minilm_size():,} pieces."
    )


def minilm_size() -> int:
    try:
        return minilm_wordpiece().vocab_size
    except ValueError:
        return 30_522


def draw_merges(bpe: LearnedBPE, merges: int) -> None:
    """The latest ``SHOWN_MERGES`` merges up to the chosen count, in order, each with its pair's count."""
    if merges == 0:
        st.info("No merges yet: BPE is the characters of each word and “</w>”. Move the slider to learn merges.")
        return
    first = max(0, merges - SHOWN_MERGES)
    shown = bpe.merges[first:merges]
    title = (
        f"The {merges} merges learned, in order" if first == 0 else f"Merges {first + 1}–{merges} of {merges}, in order"
    ) + (  # each merge joins the most frequent pair left: the counts can only stay or fall
        f": the pairs seen {shown[0].count} times down to {shown[-1].count}"
        if shown[0].count != shown[-1].count
        else f": every pair seen {shown[0].count} times"
    )
    chart(
        cached_figure(
            merges_figure,
            tuple(m.left for m in shown),
            tuple(m.right for m in shown),
            tuple(m.count for m in shown),
            first + 1,
            merges,
            title,
        ),
        key="tok_merges",
    )
    st.caption(
        "Each row: the pair joined → the new piece, and how often the pair occurred when it was merged. "
        "“</w>” ends a word. All the merges are in the numbers below."
    )


def tokens_numbers(view) -> None:
    """Every merge up to the chosen count as a table: number, pair, new piece, count."""
    text = normalize(st.session_state.get("bpe_text") or built_in_text())[:MAX_TRAINING_CHARS]
    if not text.strip():
        st.caption("No training text, so no merges.")
        return
    bpe = learned_bpe(text, MAX_MERGES)
    merges = min(int(st.session_state.get("merges", DEFAULT_MERGES)), len(bpe.merges))
    st.dataframe(
        pd.DataFrame(
            {
                "merge": range(1, merges + 1),
                "left": [m.left for m in bpe.merges[:merges]],
                "right": [m.right for m in bpe.merges[:merges]],
                "new piece": [m.piece for m in bpe.merges[:merges]],
                "pair count": [m.count for m in bpe.merges[:merges]],
            }
        ),
        hide_index=True,
    )
