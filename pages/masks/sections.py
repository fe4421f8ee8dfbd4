"""The sections of the Masks page, one section each: the causal mask, padding in a batch,
cross-attention, masked scores, causal against bidirectional, the fully masked row.
Each draws at most three charts; controls that only change a section rerun it alone."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from ui import runtime  # noqa: F401  (torch threads are set before any torch work)
from transformer.spec import ModelSpec
from viz.labels import position_numbers
from viz.masks import mask_panels_figure, readable_heatmap

from analysis import masks as mask_math
from pages.masks import numbers as mask_ui
from ui.cache import cached_figure
from ui.forward import self_attention_maps
from ui.text import TokenizedText, sentence_input
from ui.charts import chart
from ui.screen import figure_on_top, figure_first

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


@st.fragment
def render_causal() -> None:
    """The look-ahead mask [n, n]: allowed iff key j <= query i (the n slider reruns this only)."""
    left, right = st.columns([2, 3], gap="large")
    with left:
        n = st.slider("tokens n", 1, 32, 8, key="n", bind="query-params")
        st.markdown("The decoder predicts token $i+1$ from tokens $1..i$, so during training query $i$ "
                    "must not see any key $j > i$: the mask is lower-triangular.")
        st.latex(r"M_{ij} \text{ allowed} \iff j \le i")
        st.markdown(f"Of the {n * n} cells, {n * (n + 1) // 2} are allowed.")
    positions = position_numbers(n)  # "1" .. "n", as every position on screen
    chart(cached_figure(mask_panels_figure, [mask_math.query_key_masks(n, n)["causal"]], ["causal"],
                        positions, positions, f"Causal mask for {n} tokens (grey = masked)"),
          width="stretch", container=right)


def render_padding(batch: Batch) -> None:
    """The key-padding mask of the batch [B, L] and, for the followed sentence, padding,
    causal and their AND as [L, L] query × key masks."""
    st.markdown("Sentences in a batch are padded to the longest one with a `<pad>` token. No query should "
                "attend to a pad key, so the key-padding mask of sentence $b$ allows key $j$ (counted from 1) iff "
                "$j \\le \\text{length}_b$; it broadcasts over all queries.")
    chart(cached_figure(mask_panels_figure, [mask_math.batch_padding_mask(batch.lengths)],
                        ["key-padding mask"], batch.names, position_numbers(batch.length),
                        f"Key-padding mask of the batch: {len(batch.names)} sentences × "
                        f"{batch.length} positions", "sentence", "position",
                        np.array(batch.tokens, dtype=object)), width="stretch")
    padded = st.expander("The padded batch, token by token", key="padded", bind="query-params")
    if padded.open:  # built only when opened
        padded.dataframe(pd.DataFrame(batch.tokens, index=batch.names, columns=position_numbers(batch.length)))
    kinds = mask_math.query_key_masks(batch.length, batch.lengths[batch.row])
    tokens = batch.tokens[batch.row]
    st.latex(r"M = M_{\text{padding}} \land M_{\text{causal}}")
    chart(cached_figure(mask_panels_figure, [kinds["padding"], kinds["causal"], kinds["causal + padding"]],
                        ["padding (keys)", "causal", "combined: padding AND causal"], tokens, tokens,
                        f"Masks combined for {batch.names[batch.row]}, padded to {batch.length}"),
          width="stretch")
    st.caption("Masks combine with a logical AND (`combine_masks`): a key is allowed only if every mask "
               "allows it.")


@st.fragment
def render_cross(batch: Batch) -> None:
    """The cross-attention mask [target, source]: only the source's padding is masked
    (the target sentence reruns this only)."""
    left, right = st.columns([2, 3], gap="large")
    with left:
        target = sentence_input("target sentence (decoder side)", "Le chat", key="tgt", max_tokens=16)
        st.markdown("In encoder-decoder attention the queries come from the target and the keys from the "
                    "source (the followed sentence, padded), so the mask is rectangular, target length × "
                    "source length. Only the source's padding is masked; the decoder may read the whole "
                    "source.")
    if target is None:
        return
    padding = mask_math.query_key_masks(batch.length, batch.lengths[batch.row])["padding"]
    cross = np.broadcast_to(padding[:1], (len(target.tokens), batch.length))
    chart(cached_figure(mask_panels_figure, [cross], ["source padding"], target.tokens,
                        batch.tokens[batch.row], f"Cross-attention mask: {len(target.tokens)} "
                        f"target × {batch.length} source positions", "target query", "source key"),
          width="stretch", container=right)


@st.fragment
def render_scores(batch: Batch, shown: ShownHead) -> None:
    """Scores S [L, L] before masking, S + M, and softmax(S + M) whose rows sum to 1 over the
    allowed keys (the mask radio reruns this only)."""
    st.latex(r"A = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right)")
    kind = st.radio("mask", mask_ui.MASK_KINDS, index=2, horizontal=True, key="mask", bind="query-params")
    tokens = batch.tokens[batch.row]
    maps = mask_ui.masked_forward(shown.spec, batch.ids[batch.row], kind)
    scores, weights = maps.scores[shown.layer - 1, shown.head], maps.weights[shown.layer - 1, shown.head]
    c1, c2, c3 = st.columns(3, gap="medium")
    limit = float(np.abs(scores).max()) or 1.0  # one colour range for 1 and 2: masking changes no value
    chart(cached_figure(readable_heatmap, scores, tokens, tokens, f"1 · Scores before masking<br>{shown.where}",
                        signed=True, zrange=(-limit, limit), value_name="score"), width="stretch", container=c1)
    chart(cached_figure(readable_heatmap, scores, tokens, tokens, f"2 · Masked scores<br>mask: {kind}",
                        signed=True, zrange=(-limit, limit), mask=maps.mask, value_name="score"),
          width="stretch", container=c2)
    chart(cached_figure(readable_heatmap, weights, tokens, tokens, f"3 · Weights after softmax<br>{shown.where}",
                        mask=maps.mask), width="stretch", container=c3)
    st.caption("Masked cells are grey in 2 and 3: they hold $-\\infty$ before the softmax and exactly 0 after "
               "it. Each row of 3 sums to 1 over its allowed keys.")
    numbers = st.expander("The numbers: weights and row sums", key="numbers", bind="query-params")
    if not numbers.open:  # built only when opened
        return
    with numbers:
        labels = [f"{j}: {t}" for j, t in enumerate(tokens, start=1)]
        table = pd.DataFrame(weights, index=labels, columns=labels).round(3)
        table["row sum"] = weights.sum(axis=1).round(3)
        st.dataframe(table)


def render_causal_vs_bidirectional(batch: Batch, shown: ShownHead) -> None:
    """The same model's weights [T, T] on the followed sentence, with and without the causal mask."""
    st.markdown("The same sentence through the same weights, once with the causal mask (a decoder, "
                "GPT-style) and once without (an encoder, BERT-style).")
    real = batch.real
    side = {causal: self_attention_maps(shown.spec, real.ids, causal=causal)
            [shown.layer - 1, shown.head] for causal in (True, False)}
    causal_mask = mask_math.query_key_masks(len(real.tokens), len(real.tokens))["causal"]
    c1, c2 = st.columns(2, gap="large")
    chart(cached_figure(readable_heatmap, side[True], real.tokens, real.tokens,
                        f"Causal (decoder, GPT-style)<br>{shown.where}", mask=causal_mask), width="stretch", container=c1)
    chart(cached_figure(readable_heatmap, side[False], real.tokens, real.tokens,
                        f"Bidirectional (encoder, BERT-style)<br>{shown.where}"), width="stretch", container=c2)
    st.caption(causal_note(side[True], side[False], causal_mask, shown.layer))


def causal_note(causal: np.ndarray, bidirectional: np.ndarray, allowed: np.ndarray, layer: int) -> str:
    """What the two maps on screen show: the first token's weight on itself, and how many of the weights the
    causal mask keeps are larger, the same or smaller than without it (and why, for the layer shown)."""
    count = mask_math.kept_weights(causal, bidirectional, allowed)
    why = ("In layer 1 both read the same token vectors, so each row has the same scores and only spreads its "
           "weight over fewer keys: no kept weight can shrink, and the last row, which sees every key either way, "
           "keeps its weights." if layer == 1 else
           f"In layer {layer} the two read different inputs (the layers below ran with the mask in one and without "
           "it in the other), so a kept weight can also shrink.")
    return (f"Under the causal mask the first token can only attend to itself (weight {causal[0, 0]:.2f}). Of the "
            f"{count.kept} weights the mask keeps, {count.larger} are larger here than without the mask, "
            f"{count.same} the same and {count.smaller} smaller. {why}")


def render_fully_masked(batch: Batch, shown: ShownHead) -> None:
    """A left pad under causal + padding: the first query has no allowed key. torch.softmax gives a NaN
    row [L+1]; masked_softmax gives zeros."""
    intro = figure_first()  # the explanation: above, or on a small screen under the figure
    real = batch.real
    left_ids = (0,) + tuple(real.ids)
    left_tokens = [mask_math.PAD] + list(real.tokens)
    live = mask_ui.masked_forward(shown.spec, left_ids, "causal + padding")
    compare = mask_math.softmax_comparison(live.scores[shown.layer - 1, shown.head], live.mask)
    figure = cached_figure(readable_heatmap, compare.safe, left_tokens, left_tokens,
                           "masked_softmax, left pad:<br>row 1 fully masked", mask=compare.mask)
    if figure_on_top():
        chart(figure, width="stretch")
    intro.text().markdown(
        "With **left** padding and a causal mask, the first query is a pad that may only look at key 1, "
        "which is a pad too: its row has no allowed key. A plain softmax then computes "
        "$e^{-\\infty} / \\sum e^{-\\infty} = 0/0$, which is **NaN**, and the NaN spreads through the "
        "weighted sum of values into every later layer (even a masked key's weight of 0 times NaN is NaN). "
        "The package's `masked_softmax` returns an all-zero row instead (and so an all-zero output for that "
        "query): that is this package's choice. Many implementations fill masked scores with a finite −1e9 "
        "rather than −∞, which gives that row a **uniform** spread, 1/n on every key. Both are harmless for a "
        "pad: no real query attends to it and the loss skips it; only NaN must not happen."
    )
    c1, c2 = (st.container(), None) if figure_on_top() else st.columns([3, 2], gap="large")
    with c1:
        rows = min(3, len(left_tokens))
        st.dataframe(pd.DataFrame(
            [[f"{method}", f"{i + 1}: {left_tokens[i]}"] + values
             for method, result in (("torch.softmax on -inf", compare.plain), ("masked_softmax", compare.safe),
                                    ("torch.softmax on a -1e9 fill", compare.finite))
             for i, values in enumerate(mask_math.as_text(result[:rows]))],
            columns=["method", "query"] + [f"{j}: {t}" for j, t in enumerate(left_tokens, start=1)]), hide_index=True)
        nan_rows = int(np.isnan(compare.plain).any(axis=1).sum())
        st.caption(f"Live, {shown.where}: the plain softmax gives {nan_rows} row(s) of NaN; masked_softmax "
                   f"gives zeros there (row sum {compare.safe[0].sum():.0f}) and rows summing to 1 elsewhere; the "
                   f"−1e9 fill gives 1/{len(left_tokens)} = {1 / len(left_tokens):.3f} on every key of that row.")
    if c2 is not None:
        chart(figure, width="stretch", container=c2)
