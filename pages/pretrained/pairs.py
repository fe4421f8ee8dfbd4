"""Sentence pairs: the contrastive objective MiniLM was fine-tuned on, read on pairs the user types."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from analysis.contrastive import contrastive_loss, in_batch_probabilities
from pages.pretrained import numbers
from ui.charts import chart
from ui.screen import settings
from ui.formulas import formula
from viz.heatmap import matrix_heatmap

PAIRS = (
    "A man is playing a guitar. | Someone plays an instrument.\n"
    "A man is fixing a guitar. | Someone repairs an instrument.\n"
    "The cat sleeps on the sofa. | A kitten is napping on the couch.\n"
    "It is raining in the city. | Rain is falling on the town.\n"
    "The stock market fell today. | Share prices dropped this afternoon."
)
SCALES = (1, 5, 10, 20, 50)
MAX_PAIRS = 12


def read_pairs(text: str) -> list[tuple[str, str]] | None:
    """The typed lines "first | second" as pairs; None when a line has no "|" or an empty side."""
    pairs = []
    for line in (line for line in text.splitlines() if line.strip()):
        first, bar, second = line.partition("|")
        if not bar or not first.strip() or not second.strip():
            return None
        pairs.append((first.strip(), second.strip()))
    return pairs


def short(index: int, sentence: str) -> str:
    words = sentence.split()
    return f"{index + 1}. {' '.join(words[:4])}{'…' if len(words) > 4 else ''}"


def explain() -> None:
    st.markdown(
        "After its pre-training, MiniLM was fine-tuned on about a billion pairs of sentences that belong "
        "together (a question and its answer, a caption and another caption of the same picture). In each "
        "batch every first sentence must pick its own second sentence out of all the batch's second "
        "sentences: the other pairs are the wrong answers. Type pairs, one a line, the two sides split by "
        "“|”."
    )
    formula(
        r"p_{ij} = \mathrm{softmax}_j\big(s \cdot \cos(e(a_i), e(b_j))\big),\qquad "
        r"\mathcal{L} = -\frac{1}{N}\sum_{i=1}^{N} \log p_{ii}"
    )


def pair_controls(left, right) -> tuple[str, int]:
    text = left.text_area(
        "pairs (first | second), one a line", PAIRS, key="pairs", bind="query-params", max_chars=3000, height=140
    )
    scale = right.select_slider(
        "scale s",
        SCALES,
        20,
        key="scale",
        bind="query-params",
        help="Multiplies the cosines before the softmax: 20 in sentence-transformers' loss.",
    )
    return text, int(scale)


def pairs_section(cap: int) -> None:
    """The explanation (below the figure on a phone or a projector), the pairs and the scale (folded there), the
    map of each first sentence's choice, and the loss."""
    with settings("Sentence pairs and the scale s"):
        c1, c2 = st.columns([4, 1])
        text, scale = pair_controls(c1, c2)
    pairs = read_pairs(text)
    if pairs is None or len(pairs) < 2:
        st.info(
            "Write each line as two sentences split by “|”, e.g. “A dog runs. | A puppy is running.”"
            if pairs is None
            else "Type at least two pairs: each first sentence is matched against every second one."
        )
        explain()
        return
    if len(pairs) > MAX_PAIRS:
        st.caption(f"The first {MAX_PAIRS} of {len(pairs)} pairs are read.")
        pairs = pairs[:MAX_PAIRS]
    first = np.stack([numbers.reading(numbers.wordpieces(a, cap).ids).embedding for a, _ in pairs])
    second = np.stack([numbers.reading(numbers.wordpieces(b, cap).ids).embedding for _, b in pairs])
    p = in_batch_probabilities(first, second, float(scale))
    own = np.diag(p)
    right = int((p.argmax(axis=1) == np.arange(len(pairs))).sum())
    figure = matrix_heatmap(
        p.astype(np.float32),
        [short(i, a) for i, (a, _) in enumerate(pairs)],
        [str(i + 1) for i in range(len(pairs))],  # the second sentences by their pair's number
        f"Which second sentence each first one picks: {right} of {len(pairs)} pick their own pair "
        f"(softmax of {scale} · cosine)",
        row_name="first",
        col_name="second",
        value_name="p",
    )
    chart(figure.update_xaxes(title_text="second sentence of pair n").update_yaxes(title_text="first sentence"))
    explain()
    st.caption(
        f"{right} of {len(pairs)} first sentences give their own pair the largest share (the diagonal); the "
        f"smallest share of an own pair is {own.min():.3f} (pair {int(own.argmin()) + 1}). The loss, the "
        f"mean of -log p over the diagonal, is {contrastive_loss(p):.3g}; it would be log {len(pairs)} = "
        f"{np.log(len(pairs)):.3f} if the model could not tell the pairs apart."
    )
    cosines = first.astype(np.float64) @ second.astype(np.float64).T
    others = np.where(np.eye(len(pairs), dtype=bool), -np.inf, cosines).max(axis=1)
    with st.expander("The numbers"):
        st.table(
            pd.DataFrame(
                {
                    "first": [a for a, _ in pairs],
                    "second": [b for _, b in pairs],
                    "cos with its own pair": np.diag(cosines),
                    "highest cos with another pair": others,
                    "p of its own pair": own,
                },
                index=pd.RangeIndex(1, len(pairs) + 1, name="pair"),
            ).round(3)
        )
