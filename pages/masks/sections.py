"""The Masks page's tabs, the batch and the head the sections are given, and the sections on a mask's shape:
the causal mask, padding in a batch, cross-attention (the sections on masked scores are in masked_scores.py).
Each draws at most three charts; controls that only change a section rerun it alone."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from ui import runtime  # noqa: F401  (torch threads are set before any torch work)
from transformer.spec import ModelSpec
from viz.labels import position_numbers
from viz.masks import mask_panels_figure

from analysis import masks as mask_math
from ui.cache import cached_figure
from ui.text import TokenizedText, sentence_input
from ui.charts import chart
from ui.formulas import formula

# The page's tabs; the open one is the URL's ``section``.
SECTIONS = ("Causal", "Padding", "Cross-attention", "Scores", "Causal vs bidirectional", "Fully masked row")


@dataclass(frozen=True)
class Batch:
    """The padded batch: ``tokens`` and ``ids`` [B][L] with ``<pad>``, real ``lengths`` [B],
    row ``names`` [B], and the followed sentence ``row`` with its unpadded text ``real``."""

    tokens: list[list[str]]
    ids: list[list[int]]
    lengths: list[int]
    names: list[str]
    row: int
    real: TokenizedText

    @property
    def length(self) -> int:
        """L, the padded length."""
        return len(self.tokens[0])


@dataclass(frozen=True)
class ShownHead:
    """The model and the layer (1-based) and head (0-based index, shown 1-based) drawn."""

    spec: ModelSpec
    layer: int
    head: int

    @property
    def where(self) -> str:
        return f"layer {self.layer} · head {self.head + 1}"


def cells_allowed(mask: np.ndarray) -> str:
    """How many cells of a boolean mask (True = allowed) are allowed, as "a of n cells"."""
    return f"{int(np.count_nonzero(mask))} of {mask.size} cell{'s' * (mask.size > 1)}"


@st.fragment
def render_causal() -> None:
    """The look-ahead mask [n, n]: allowed iff key j <= query i (the n slider reruns this only)."""
    left, right = st.columns([2, 3], gap="large")
    with left:
        n = st.slider("tokens n", 1, 32, 8, key="n", bind="query-params")
        st.markdown(
            "The decoder predicts token $i+1$ from tokens $1..i$, so during training query $i$ "
            "must not see any key $j > i$: the mask is lower-triangular."
        )
        formula(r"M_{ij} \text{ allowed} \iff j \le i")
        allowed = n * (n + 1) // 2
        st.markdown(
            f"Of the {n * n} cell{'s' * (n > 1)}, {allowed} {'are' if allowed > 1 else 'is'} allowed."
            if n > 1
            else "One token: its one cell is allowed, the token on itself."
        )
    positions = position_numbers(n)  # "1" .. "n", as every position on screen
    chart(
        cached_figure(
            mask_panels_figure,
            [mask_math.query_key_masks(n, n)["causal"]],
            ["causal"],
            positions,
            positions,
            f"Causal mask for {n} token{'s' * (n > 1)}: key j ≤ query i, "
            f"{cells_allowed(mask_math.query_key_masks(n, n)['causal'])} allowed",
        ),
        width="stretch",
        container=right,
    )


def padding_finding(padding: np.ndarray) -> str:
    """What the batch's key-padding mask ``[B, L]`` (True = real token) holds: how many of its positions are
    padding and in how many sentences."""
    pads, padded = int(np.count_nonzero(~padding)), int(np.count_nonzero((~padding).any(1)))
    sentences = f"sentence{'s' * (len(padding) > 1)}"
    if pads == 0:
        return f"no padding in its {len(padding)} {sentences} of {padding.shape[1]}"
    return f"{pads} of {padding.size} positions are padding, in {padded} of {len(padding)} {sentences}"


def render_padding(batch: Batch) -> None:
    """The key-padding mask of the batch [B, L] and, for the followed sentence, padding,
    causal and their AND as [L, L] query × key masks."""
    st.markdown(
        "Sentences in a batch are padded to the longest one with a `<pad>` token. No query should "
        "attend to a pad key, so the key-padding mask of sentence $b$ allows key $j$ (counted from 1) iff "
        "$j \\le \\text{length}_b$; it broadcasts over all queries."
    )
    padding = mask_math.batch_padding_mask(batch.lengths)  # [B, L]
    chart(
        cached_figure(
            mask_panels_figure,
            [padding],
            ["key-padding mask"],
            [f"sentence {b + 1}" for b in range(len(batch.lengths))],  # the blue cells count its tokens
            position_numbers(batch.length),
            f"Key-padding mask of the batch: {padding_finding(padding)}",
            "sentence",
            "position",
            np.array(batch.tokens, dtype=object),
        ),
        width="stretch",
    )
    padded = st.expander("The padded batch, token by token", key="padded", bind="query-params")
    if padded.open:  # built only when opened
        padded.dataframe(pd.DataFrame(batch.tokens, index=batch.names, columns=position_numbers(batch.length)))
    kinds = mask_math.query_key_masks(batch.length, batch.lengths[batch.row])
    tokens = batch.tokens[batch.row]
    formula(r"M = M_{\text{padding}} \land M_{\text{causal}}")
    chart(
        cached_figure(
            mask_panels_figure,
            [kinds["padding"], kinds["causal"], kinds["causal + padding"]],
            ["padding (keys)", "causal", "combined: padding AND causal"],
            tokens,
            tokens,
            f"Masks combined for {batch.names[batch.row]}, padded to {batch.length}: padding allows "
            f"{np.count_nonzero(kinds['padding'])}, causal {np.count_nonzero(kinds['causal'])}, both "
            f"{cells_allowed(kinds['causal + padding'])}",
        ),
        width="stretch",
    )
    st.caption("Masks combine with a logical AND (`combine_masks`): a key is allowed only if every mask allows it.")


@st.fragment
def render_cross(batch: Batch) -> None:
    """The cross-attention mask [target, source]: only the source's padding is masked
    (the target sentence reruns this only)."""
    left, right = st.columns([2, 3], gap="large")
    with left:
        target = sentence_input("target sentence (decoder side)", "Le chat", key="tgt", max_tokens=16)
        st.markdown(
            "In encoder-decoder attention the queries come from the target and the keys from the "
            "source (the followed sentence, padded), so the mask is rectangular, target length × "
            "source length. Only the source's padding is masked; the decoder may read the whole "
            "source."
        )
    if target is None:
        return
    padding = mask_math.query_key_masks(batch.length, batch.lengths[batch.row])["padding"]
    cross = np.broadcast_to(padding[:1], (len(target.tokens), batch.length))
    chart(
        cached_figure(
            mask_panels_figure,
            [cross],
            ["source padding"],
            target.tokens,
            batch.tokens[batch.row],
            f"Cross-attention mask: {len(target.tokens)} target × {batch.length} source positions, every query "
            f"reads the same {batch.lengths[batch.row]} real source keys",
            "target query",
            "source key",
        ),
        width="stretch",
        container=right,
    )
