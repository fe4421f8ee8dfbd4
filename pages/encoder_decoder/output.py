"""The encoder-decoder page's "Output" section: the next-token distribution at one target position."""

from __future__ import annotations

import numpy as np
import streamlit as st

from analysis.decoder_tables import id_names, rank_of, top_k
from pages.encoder_decoder.figures import output_figure
from ui.charts import chart
from ui.formulas import formula
from viz.labels import tick_label


def target_finding(table, target: str, probability: float, rank: int) -> str:
    """Where the target token stands in a position's distribution, as a title's ending: the most probable token
    (``table``'s first row, from ``analysis.decoder_tables.top_k``) and the target's rank and probability."""
    first, first_p = tick_label(str(table["token"].iloc[0])), float(table["probability"].iloc[0])
    if rank == 1:
        return f"the target “{tick_label(target)}” first ({first_p:.2g})"
    return f"“{first}” first ({first_p:.2g}), the target “{tick_label(target)}” rank {rank} ({probability:.2g})"


@st.fragment
def output_section(pair) -> None:
    """The output distribution at one target position of ``pair`` (the page's SentencePair), as top-k bars."""
    source, target, tgt_len, trained, forward = pair.source, pair.target, pair.tgt_len, pair.trained, pair.forward
    st.header("The output: a distribution over the target vocabulary")
    c1, c2 = st.columns(2)
    pos = c1.selectbox(
        "target position",
        list(range(tgt_len)),
        key="pos",
        bind="query-params",
        format_func=lambda t: f"position {t + 1}",
    )
    k = c2.slider("top k", 1, 20, 10, key="k", bind="query-params")
    pos = min(int(pos or 0), tgt_len - 1)
    probabilities = forward().probabilities[pos]
    names = id_names((source.tokens, source.ids), (target.tokens, target.ids))
    # a vocabulary of pieces names every id, not only those the two sentences hold
    table = top_k(probabilities, k, names, getattr(pair.tokenizer, "id_to_piece", None))
    want = target.ids[pos]
    hits = np.flatnonzero(table["id"].to_numpy() == want)
    fig = output_figure(
        tuple(table["token"]),
        table["probability"].to_numpy(),
        f"Position {pos + 1} · top {len(table)} of {probabilities.shape[0]} next-token probabilities: "
        + target_finding(table, target.tokens[pos], probabilities[want], rank_of(probabilities, want)),
        int(hits[0]) if hits.size else None,
    )
    chart(fig, width="stretch")
    formula(
        r"P(y_t \mid y_{<t}, x) = \mathrm{softmax}(h_t W_{out} + b_{out}),\quad "
        r"W_{out} \in \mathbb{R}^{d_{model} \times V}"
    )
    if not trained:
        tied = (
            " The output layer is the target embedding matrix itself (tied), which spreads a random model's logits "
            "wider than an output matrix of its own does."
            if pair.config.output_head == "tied"
            else ""
        )
        st.info(
            f"The weights here are random and untrained: the most probable token has "
            f"{probabilities.max() * len(probabilities):.1f} × the uniform probability 1/{len(probabilities)}, and "
            f"which tokens lead is arbitrary.{tied} Training would push up the probability of the target token "
            "(orange bar when it is in the top k)."
        )
    st.text(
        f"Target token at position {pos + 1}: {target.tokens[pos]!r} (id {want}); "
        f"probability {probabilities[want]:.5f}, rank {rank_of(probabilities, want)} "
        f"of {probabilities.shape[0]}. Uniform would be {1 / probabilities.shape[0]:.5f}."
    )
    numbers = st.expander("The numbers behind this figure", key="output_numbers", bind="query-params")
    if numbers.open:  # built only when opened
        with numbers:
            st.dataframe(table, hide_index=True, width="stretch")
