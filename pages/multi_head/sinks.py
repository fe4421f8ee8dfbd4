"""The multi-head page's "Attention sinks" section: how much each head of each layer gives the first token."""

from __future__ import annotations

import numpy as np
import streamlit as st

from analysis.attention_sinks import SINK_SHARE, Sinks, attention_sinks
from ui.charts import chart
from ui.cache import cached_figure
from ui.formulas import formula
from ui.markdown_text import as_typed
from viz.heatmap import matrix_heatmap


def first_token_name(view) -> str:
    """“the”, or “<s>” (a special token the tokenizer puts first) with what it is."""
    token = as_typed(view.tokens[0])  # the text's own word, in Markdown: never formatting
    tokenizer = view.loaded.tokenizer
    if hasattr(tokenizer, "is_special") and tokenizer.is_special(view.ids[0]):
        return f"“{token}”, a special token the tokenizer puts before every text"
    return f"“{token}”, the text's first word or piece"


def sinks_title(sinks: Sinks) -> str:
    """The figure's finding: the strongest sink, or that there is none."""
    layer, head, share = sinks.strongest
    if sinks.sink_heads:
        return f"Layer {layer}, head {head} gives the first token {share:.2f} of its attention"
    return f"No head gives the first token over {SINK_SHARE:.1f} of its attention (most: layer {layer}, head {head})"


def sinks_reading(sinks: Sinks, heads_total: int) -> str:
    """What the view shows, from its numbers."""
    layer, head, share = sinks.strongest
    found = sinks.sink_heads
    by_layer = sinks.by_layer()
    top = int(np.argmax(by_layer)) + 1
    verdict = (
        f"**{len(found)} of the {heads_total} heads** give the first token more than half of their attention "
        f"and at least twice the even share: "
        + ", ".join(f"layer {li} head {hi}" for li, hi in found[:8])
        + (f" and {len(found) - 8} more" if len(found) > 8 else "")
        + "."
        if found
        else f"**No head** gives the first token more than half of its attention and twice the even share; "
        f"the most is layer {layer}, head {head}, with {share:.2f}."
    )
    return (
        f"{verdict} The heads' mean share on the first token is {float(sinks.shares.mean()):.2f}, against "
        f"{sinks.even:.2f} if every query spread its weight evenly over the keys it sees. Layer {top} leans on "
        f"it most (mean {by_layer[top - 1]:.2f})."
    )


def sinks_section(view) -> None:
    """Each head's mean weight on the first token [L, H], against an even spread; a one-token text has none. The
    figure comes first on a phone and on a projector, its explanation after it."""
    if len(view.tokens) < 2:
        st.info("The text is one token: no later query can attend to the first. Type a longer text.")
        return
    sinks = attention_sinks(view.weights, view.causal)
    layers, heads = sinks.shares.shape
    figure = cached_figure(
        matrix_heatmap,
        sinks.shares.astype(np.float32),
        [f"layer {i}" for i in range(1, layers + 1)],
        [f"head {i}" for i in range(1, heads + 1)],
        sinks_title(sinks),
        row_name="layer",
        col_name="head",
        value_name="share on the first token",
        height=min(720, 200 + 40 * layers),
    )
    chart(figure, key="sinks", **view.chart_options)
    st.markdown(sinks_reading(sinks, layers * heads))
    st.markdown(
        "A softmax must put each query's weight somewhere. In large trained models (Llama 2, Falcon, Pythia and "
        "MPT in Xiao et al., 2023), many heads past the first layers park the weight they do not need on the "
        "first token, which every query can see: an **attention sink**. It takes much of the attention and "
        "passes on little, and keeping it in the KV cache is what lets such models read past their window. "
        "Models trained on short windows, like this lab's small ones, and random models need no sink: compare "
        "each head's share with what an even spread would give."
    )
    formula(r"s_{\ell,h} = \operatorname{mean}_{t=2..T} A^{(\ell,h)}_{t,1}")
    st.markdown(f"The first token here is {first_token_name(view)}.")
