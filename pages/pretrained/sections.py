"""The sections of the pretrained-model page, one section each."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from analysis.export import weights_long_frame
from analysis.head_roles import CLEAR_ROLE, NO_CLEAR_ROLE, ROLE, ROLES, STANDING, head_role_scores
from analysis.head_stats import attention_rollout, strongest_link
from transformer import WordPieces
from ui import runtime  # noqa: F401  (torch threads are set before any torch work)
from ui.charts import chart
from ui.cache import cached_figure
from ui.findings import focus_finding, most_read_key, standout_heads, strongest_line
from ui.formulas import formula
from viz.attention_steps import attention_weights_figure
from viz.head_view import head_view_figure, lights_on_hover, query_heads_figure
from viz.heads import head_grid_figure
from viz.labels import tick_label
from viz.overview import overview_figure
from viz.pretrained import PIECE_KINDS, role_grid_figure, wordpiece_figure

RARE_PREVIOUS = 0.3  # a previous-token score that few heads reach: the roles' scales differ


def tokens_section(pieces: WordPieces, kinds: list[int]) -> None:
    """The text as WordPiece tokens: specials, continuation pieces and unknown words marked."""
    st.markdown(
        "The model does not read words but **WordPiece** tokens: frequent words are one piece, rare words "
        "split into a start and continuation pieces marked `##`, and anything outside the 30,522-piece "
        "vocabulary (most emoji) becomes `[UNK]`. `[CLS]` opens the input and `[SEP]` closes it. Text is "
        "lower-cased and accents are removed first."
    )
    characters = [pieces.piece_text(i) for i in range(len(pieces))]
    chart(
        cached_figure(wordpiece_figure, pieces.tokens, pieces.ids, tuple(characters), tuple(kinds)),
        width="stretch",
        key="pieces",
    )
    table = st.expander("The tokens as a table", key="pieces_table", bind="query-params")
    if table.open:
        table.dataframe(
            pd.DataFrame(
                {
                    "piece": pieces.tokens,
                    "id": pieces.ids,
                    "characters": characters,
                    "kind": [PIECE_KINDS[k] for k in kinds],
                }
            ),
            width="stretch",
        )


def _pooled_note(pooled: np.ndarray, k: int) -> None:
    """What a cell of a pooled figure is, and how many of its rows sum to 1 (all, unless [CLS] and [SEP] are
    hidden and some rows were all on them)."""
    if k > 1:
        sums = pooled.sum(-1)
        whole = int((np.abs(sums - 1) < 1e-3).sum())
        rest = (
            ""
            if whole == sums.size
            else (
                f" ({whole} of the {sums.size} rows here; the others hold queries whose "
                "rows are blank with [CLS] and [SEP] hidden)"
            )
        )
        st.caption(
            f"Long input: each cell is the weight a block of {k} queries puts on a block of {k} keys, summed "
            f"over the keys and averaged over the queries, so each row still sums to 1{rest} and the figure "
            "stays light; the hover names each block's positions and first token."
        )


def overview_section(weights: np.ndarray, labels: list[str], k: int, hide: bool = False) -> None:
    """All 6 x 12 heads in one figure; ``hide``: [CLS] and [SEP] are not among the tiles' tokens, so the
    patterns to look for leave out the column of weight parked on [CLS]."""
    patterns = (
        "a diagonal just below the main one (the previous token), a broad haze (averaging). [CLS] and [SEP] "
        "are hidden here, so weight parked on them is not drawn"
        if hide
        else "a bright first column (attention parked on `[CLS]`), a diagonal just below the main one "
        "(the previous token), a broad haze (averaging)"
    )
    st.markdown(
        "All 72 heads at once: one tile per (layer, head), queries down, keys across. Patterns to look "
        f"for: {patterns}."
    )
    chart(
        cached_figure(
            overview_figure,
            weights,
            labels,
            "6 layers × 12 heads"
            + (standout_heads(weights, None if hide else labels[0]) if k == 1 else " · all-MiniLM-L6-v2"),
        ),
        width="stretch",
        key="overview",
    )
    _pooled_note(weights, k)


def layer_section(weights: np.ndarray, labels: list[str], k: int, li: int) -> None:
    """One layer's 12 heads."""
    formula(r"A^{(\ell, i)} = \mathrm{softmax}\!\left(\frac{(X_{\ell-1}W_i^Q)(X_{\ell-1}W_i^K)^\top}{\sqrt{32}}\right)")
    chart(
        cached_figure(head_grid_figure, weights, labels, labels, f"Layer {li + 1} · 12 heads" + focus_finding(weights)),
        width="stretch",
        key="grid",
    )
    _pooled_note(weights, k)


@st.fragment
def head_view_section(weights: np.ndarray, tokens: list[str], ordinary: list[bool], li: int) -> None:
    """One head large (lines from the chosen query to every key, opacity the weight), and beside it where that
    query looks in each of the 12 heads, so the head that links it to a key is the bright cell in that key's row.
    It opens on *it* and, when *animal* is a token too, on the head that links *it* to *animal* the most. A query's
    strongest link is named among the ``ordinary`` keys: heads park weight on [CLS] and [SEP]."""
    both = "it" in tokens and "animal" in tokens
    c1, c2 = st.columns(2)
    query = c1.selectbox(
        "query token",
        range(len(tokens)),
        index=tokens.index("it") if "it" in tokens else 0,
        key="hv_query",
        bind="query-params",
        format_func=lambda i: f"{i + 1}: {tokens[i]}",
    )
    query = min(query, len(tokens) - 1)
    ordinary_keys = [j for j, plain in enumerate(ordinary) if plain]
    if both and tokens[query] == "it":
        head, key, weight = strongest_link(weights, query, [tokens.index("animal")])
        finding = f"“it” → “animal”: head {head + 1} the most, {weight:.2f}"
    else:
        head, key, weight = strongest_link(weights, query, ordinary_keys)
        finding = (
            f"“{tick_label(tokens[query])}” looks most at “{tick_label(tokens[key])}”: head {head + 1}, {weight:.2f}"
        )
    picked = c2.selectbox(
        "head",
        range(-1, 12),
        index=head + 1,
        key="hv_head",
        bind="query-params",
        format_func=lambda h: "all heads" if h < 0 else f"head {h + 1}",
    )
    heads = list(range(12)) if picked < 0 else [picked]
    left, right = st.columns(2)
    chart(
        cached_figure(
            head_view_figure,
            weights,
            tokens,
            heads,
            query,
            f"Layer {li + 1} · {'all heads' if picked < 0 else f'head {picked + 1}'} · head view"
            + strongest_line(weights, tokens, heads, query),
        ),
        width="stretch",
        key="head_view",
        container=left,
    )
    chart(
        cached_figure(query_heads_figure, weights, tokens, query, finding),
        width="stretch",
        key="query_heads",
        container=right,
    )
    hover = (
        " Point at a query's name to light its lines instead (tap it on a touch screen)."
        if lights_on_hover(len(heads), len(tokens))
        else ""
    )
    question = (
        "Which heads link *it* to *animal*? The bright cell in *animal*'s row, on the right, names it."
        if both
        else "Pick a query and a head (or all heads) to see where that query's weight goes."
    )
    st.markdown(
        f"Left, one head: queries on the left, keys on the right; a line's opacity is the weight.{hover} Right, the "
        f"same query in all 12 heads of layer {li + 1}, one column a head. {question}"
    )


def rollout_section(weights: np.ndarray, tokens: list[str], li: int) -> None:
    """The chosen layer's mean over heads and the rollout through all six layers."""
    formula(
        r"\bar A_\ell = \tfrac{1}{12}\textstyle\sum_i A_\ell^{(i)},\qquad "
        r"\tilde A = \hat A_6 \cdots \hat A_1,\ \hat A_\ell = \mathrm{rownorm}(\tfrac12 \bar A_\ell + \tfrac12 I)"
    )
    left, right = st.columns(2)
    mean, rollout = weights[li].mean(0), attention_rollout(weights)
    chart(
        cached_figure(
            attention_weights_figure, mean, tokens, f"Layer {li + 1} · mean over 12 heads" + most_read_key(mean, tokens)
        ),
        width="stretch",
        key="mean",
        container=left,
    )
    chart(
        cached_figure(
            attention_weights_figure,
            rollout,
            tokens,
            "Attention rollout over 6 layers" + most_read_key(rollout, tokens),
        ),
        width="stretch",
        key="rollout",
        container=right,
    )
    st.caption(
        "Rollout (Abnar & Zuidema, 2020) is a heuristic: the ½·I for the residual path is an assumption, "
        "and the values, W^O, the feed-forward networks and LayerNorm are ignored."
    )


def roles_section(weights: np.ndarray, pieces: WordPieces) -> None:
    """Scores per head for the named patterns, the 72 heads coloured by their strongest, and one head drawn."""
    frame = head_role_scores(weights, pieces.special, pieces.word_ids)
    scores = frame[list(ROLES)].to_numpy().reshape(6, 12, len(ROLES))
    bands = (*ROLES, NO_CLEAR_ROLE)
    shown = np.array([bands.index(role) for role in frame[ROLE]]).reshape(6, 12)
    unclear = int((frame[ROLE] == NO_CLEAR_ROLE).sum())
    chart(
        cached_figure(
            role_grid_figure,
            scores,
            shown,
            bands,
            f"Each head's strongest role, against the 72 heads (number: its z-score; grey: below "
            f"{CLEAR_ROLE:g}, no clear role)",
            frame[STANDING].to_numpy().reshape(6, 12),
        ),
        width="stretch",
        key="roles",
    )
    st.markdown(
        "How much each head behaves like a pattern people name, from its weights on this text "
        "(each score is between 0 and 1):"
    )
    formula(
        r"\text{previous} = \tfrac{1}{T-1}\textstyle\sum_{i\ge1} A_{i,i-1},\quad "
        r"\text{sink} = \tfrac1T\sum_i \sum_{j\in\{\text{CLS},\text{SEP}\}} A_{ij},\quad "
        r"\text{broad} = \tfrac1T\sum_i \frac{H(A_i)}{\ln T}"
    )
    st.caption(
        "Next token mirrors previous; same word is the weight a piece puts on the other pieces of its "
        "word (0 when no word is split). Roles are scored on the full rows, [CLS] and [SEP] included."
    )
    low, high = np.percentile(frame["broad"], [25, 75])
    reach = int((frame["previous token"] >= RARE_PREVIOUS).sum())
    st.markdown(
        "The raw scores are not on one scale (on this text the middle half of the heads have an entropy "
        f"ratio between {low:.2f} and {high:.2f}, while {reach} of the 72 heads reach a previous-token "
        f"weight of {RARE_PREVIOUS:g}), so a head is coloured by the role in which it **stands out most "
        "among the 72 heads**: each score becomes a z-score against that role's scores over all 72 heads, "
        "and the largest wins. A role with the same score in every head (same word, when no word is split) "
        "is never chosen."
    )
    formula(
        r"z_{h,r} = \frac{s_{h,r} - \operatorname{mean}_{h'} s_{h',r}}{\operatorname{std}_{h'} s_{h',r}},"
        r"\qquad \text{role}(h) = \arg\max_r z_{h,r}\ \text{ if } \max_r z_{h,r} \ge "
        f"{CLEAR_ROLE:g}"
        r",\ \text{else none}"
    )
    st.markdown(
        f"A head whose largest z-score is below **{CLEAR_ROLE:g}** stands out by less than one standard "
        f"deviation in every role: it is grey, **{NO_CLEAR_ROLE}**. On this text that is {unclear} of the "
        f"72 heads; the table keeps each head's strongest role and its z-score all the same."
    )
    role = st.segmented_control(
        "show the strongest head for", ROLES, default=ROLES[0], required=True, key="role", bind="query-params"
    )
    if (frame[role] > 0).any():
        best = frame.sort_values(role, ascending=False).iloc[0]
        l, h = int(best["layer"]), int(best["head"])
        chart(
            cached_figure(
                attention_weights_figure,
                weights[l - 1, h - 1],
                list(pieces.tokens),
                f"Layer {l} · head {h} · the strongest “{role}” head ({best[role]:.2f})",
            ),
            width="stretch",
            key="best_head",
        )
    else:
        words = [w for w in pieces.word_ids if w is not None]
        unsplit = role == "same word" and len(words) == len(set(words))
        st.info(
            f"All 72 heads score 0 on “{role}”"
            + (" (no word of this text is split into pieces)" if unsplit else "")
            + ": no head is the strongest, so none is drawn."
            + (
                " A text with a word split into pieces (Tokens marks them) scores above 0 in every head."
                if unsplit
                else ""
            )
        )
    st.dataframe(frame.round(3), hide_index=True, width="stretch", key="roles_table")
    st.download_button(
        "Head roles as CSV",
        frame.to_csv(index=False, float_format="%.4f"),
        "minilm_head_roles.csv",
        "text/csv",
        key="roles_csv",
        on_click="ignore",
    )


def layer_csv(weights: np.ndarray, tokens: list[str], li: int) -> str:
    """One layer's weights ``[1, 12, T, T]`` in long form, its layer numbered as on screen."""
    frame = weights_long_frame(weights, tokens)
    frame["layer"] += li
    return frame.to_csv(index=False, float_format="%.6f")
