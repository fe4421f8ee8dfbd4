"""The Masks page's sections where a mask meets a model's scores: masked scores and their softmax, causal against
bidirectional on the same weights, and the fully masked row (NaN, zeros or a uniform spread).
Each draws at most three charts; controls that only change a section rerun it alone."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from ui import runtime  # noqa: F401  (torch threads are set before any torch work)
from analysis import masks as mask_math
from pages.masks import numbers as mask_ui
from pages.masks.sections import Batch, ShownHead
from ui.cache import cached_figure
from ui.charts import chart
from ui.forward import self_attention_maps
from ui.screen import compact
from ui.formulas import formula
from viz.masks import readable_heatmap


@st.fragment
def render_scores(batch: Batch, shown: ShownHead) -> None:
    """Scores S [L, L] before masking, S + M, and softmax(S + M) whose rows sum to 1 over the
    allowed keys (the mask radio reruns this only)."""
    formula(r"A = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right)")
    kind = st.radio("mask", mask_ui.MASK_KINDS, index=2, horizontal=True, key="mask", bind="query-params")
    tokens = batch.tokens[batch.row]
    maps = mask_ui.masked_forward(shown.spec, batch.ids[batch.row], kind)
    scores, weights = maps.scores[shown.layer - 1, shown.head], maps.weights[shown.layer - 1, shown.head]
    # three maps side by side: on a compact screen one under the other, each as wide as the page (three columns of
    # a tablet's page are too narrow for a map and its colour bar)
    c1, c2, c3 = [st.container()] * 3 if compact() else st.columns(3, gap="medium")
    limit = float(np.abs(scores).max()) or 1.0  # one colour range for 1 and 2: masking changes no value
    chart(
        cached_figure(
            readable_heatmap,
            scores,
            tokens,
            tokens,
            f"1 · Scores before masking<br>{shown.where}: {signed_range(scores)}",
            signed=True,
            zrange=(-limit, limit),
            value_name="score",
        ),
        width="stretch",
        container=c1,
    )
    chart(
        cached_figure(
            readable_heatmap,
            scores,
            tokens,
            tokens,
            f"2 · Masked scores<br>mask: {kind}, {int((~maps.mask).sum())} of {maps.mask.size} cells set to −∞",
            signed=True,
            zrange=(-limit, limit),
            mask=maps.mask,
            value_name="score",
        ),
        width="stretch",
        container=c2,
    )
    chart(
        cached_figure(
            readable_heatmap,
            weights,
            tokens,
            tokens,
            f"3 · Weights after softmax<br>{shown.where}: {row_sums_finding(weights, maps.mask)}",
            mask=maps.mask,
        ),
        width="stretch",
        container=c3,
    )
    st.caption(
        "Masked cells are grey in 2 and 3: they hold $-\\infty$ before the softmax and exactly 0 after "
        "it. Each row of 3 sums to 1 over its allowed keys."
    )
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
    st.markdown(
        "The same sentence through the same weights, once with the causal mask (a decoder, "
        "GPT-style) and once without (an encoder, BERT-style)."
    )
    real = batch.real
    side = {
        causal: self_attention_maps(shown.spec, real.ids, causal=causal)[shown.layer - 1, shown.head]
        for causal in (True, False)
    }
    causal_mask = mask_math.query_key_masks(len(real.tokens), len(real.tokens))["causal"]
    count = mask_math.kept_weights(side[True], side[False], causal_mask)
    c1, c2 = st.columns(2, gap="large")
    chart(
        cached_figure(
            readable_heatmap,
            side[True],
            real.tokens,
            real.tokens,
            f"Causal (decoder, GPT-style)<br>{shown.where}: {count.larger} of its {count.kept} weights larger than "
            "without the mask",
            mask=causal_mask,
        ),
        width="stretch",
        container=c1,
    )
    chart(
        cached_figure(
            readable_heatmap,
            side[False],
            real.tokens,
            real.tokens,
            f"Bidirectional (encoder, BERT-style)<br>{shown.where}: token 1 puts {side[False][0, 0]:.2f} on itself "
            f"({side[True][0, 0]:.2f} under the mask)",
        ),
        width="stretch",
        container=c2,
    )
    st.caption(causal_note(side[True], side[False], causal_mask, shown.layer))


def signed_range(values: np.ndarray) -> str:
    """ "from −3.21 to 4.05": the smallest and largest of ``values``, written with the colour bar's minus sign."""
    return f"from {values.min():.2f} to {values.max():.2f}".replace("-", "−")


def row_sums_finding(weights: np.ndarray, allowed: np.ndarray) -> str:
    """What the rows of the weights ``[L, L]`` sum to: 1 over their allowed keys, and 0 where a row allows none."""
    sums, open_rows = weights.sum(axis=1), allowed.any(axis=1)
    if not open_rows.any():
        return "every row fully masked, its weights 0"
    said = f"each row sums to {sums[open_rows].min():.2f}" + (
        f"–{sums[open_rows].max():.2f}" if f"{sums[open_rows].max():.2f}" != f"{sums[open_rows].min():.2f}" else ""
    )
    closed = int((~open_rows).sum())
    return said + (f" over its allowed keys, {closed} fully masked row{'s' * (closed > 1)} 0" if closed else "")


def causal_note(causal: np.ndarray, bidirectional: np.ndarray, allowed: np.ndarray, layer: int) -> str:
    """What the two maps on screen show: the first token's weight on itself, and how many of the weights the
    causal mask keeps are larger, the same or smaller than without it (and why, for the layer shown)."""
    count = mask_math.kept_weights(causal, bidirectional, allowed)
    why = (
        "In layer 1 both read the same token vectors, so each row has the same scores and only spreads its "
        "weight over fewer keys: no kept weight can shrink, and the last row, which sees every key either way, "
        "keeps its weights."
        if layer == 1
        else f"In layer {layer} the two read different inputs (the layers below ran with the mask in one and without "
        "it in the other), so a kept weight can also shrink."
    )
    return (
        f"Under the causal mask the first token can only attend to itself (weight {causal[0, 0]:.2f}). Of the "
        f"{count.kept} weights the mask keeps, {count.larger} are larger here than without the mask, "
        f"{count.same} the same and {count.smaller} smaller. {why}"
    )


def fully_masked_finding(compare: mask_math.SoftmaxComparison) -> str:
    """What the weights ``[L, L]`` do on the rows whose mask allows no key: masked_softmax's weights there (all 0)
    against a plain softmax's (NaN), as computed."""
    rows = np.flatnonzero(~np.asarray(compare.mask).any(axis=1))
    if len(rows) == 0:
        return "no row is fully masked"
    named = f"row{'s' * (len(rows) > 1)} {', '.join(str(r + 1) for r in rows)} fully masked"
    zeros = bool((compare.safe[rows] == 0).all())
    nan = bool(np.isnan(compare.plain[rows]).all())
    weights = "its weights 0" if zeros else f"its weights sum to {compare.safe[rows].sum(axis=1).max():.2f}"
    return f"{named}, {weights}" + (" (a plain softmax: NaN)" if nan else "")


def render_fully_masked(batch: Batch, shown: ShownHead) -> None:
    """A left pad under causal + padding: the first query has no allowed key. torch.softmax gives a NaN
    row [L+1]; masked_softmax gives zeros."""
    real = batch.real
    left_ids = (0,) + tuple(real.ids)
    left_tokens = [mask_math.PAD] + list(real.tokens)
    live = mask_ui.masked_forward(shown.spec, left_ids, "causal + padding")
    compare = mask_math.softmax_comparison(live.scores[shown.layer - 1, shown.head], live.mask)
    figure = cached_figure(
        readable_heatmap,
        compare.safe,
        left_tokens,
        left_tokens,
        f"masked_softmax with a left pad: {fully_masked_finding(compare)}",
        mask=compare.mask,
    )
    chart(figure, width="stretch")
    st.markdown(
        "With **left** padding and a causal mask, the first query is a pad that may only look at key 1, "
        "which is a pad too: its row has no allowed key. A plain softmax then computes "
        "$e^{-\\infty} / \\sum e^{-\\infty} = 0/0$, which is **NaN**, and the NaN spreads through the "
        "weighted sum of values into every later layer (even a masked key's weight of 0 times NaN is NaN). "
        "The package's `masked_softmax` returns an all-zero row instead (and so an all-zero output for that "
        "query): that is this package's choice. Many implementations fill masked scores with a finite −1e9 "
        "rather than −∞, which gives that row a **uniform** spread, 1/n on every key. Both are harmless for a "
        "pad: no real query attends to it and the loss skips it; only NaN must not happen."
    )
    with st.container():
        rows = min(3, len(left_tokens))
        st.dataframe(
            pd.DataFrame(
                [
                    [f"{method}", f"{i + 1}: {left_tokens[i]}"] + values
                    for method, result in (
                        ("torch.softmax on -inf", compare.plain),
                        ("masked_softmax", compare.safe),
                        ("torch.softmax on a -1e9 fill", compare.finite),
                    )
                    for i, values in enumerate(mask_math.as_text(result[:rows]))
                ],
                columns=["method", "query"] + [f"{j}: {t}" for j, t in enumerate(left_tokens, start=1)],
            ),
            hide_index=True,
        )
        nan_rows = int(np.isnan(compare.plain).any(axis=1).sum())
        st.caption(
            f"Live, {shown.where}: the plain softmax gives {nan_rows} row(s) of NaN; masked_softmax "
            f"gives zeros there (row sum {compare.safe[0].sum():.0f}) and rows summing to 1 elsewhere; the "
            f"−1e9 fill gives 1/{len(left_tokens)} = {1 / len(left_tokens):.3f} on every key of that row."
        )
