"""The "schemes side by side" section of the Positional encoding page: sinusoidal, learned,
rotary (RoPE), ALiBi and none, each with its formula and figure."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from analysis.positional import diagonal_spread
from transformer import POSITIONAL_SCHEMES
from viz import position_schemes as schemes_viz, positional as viz

from pages.positional_encoding import numbers as pos_ui
from ui.cache import cached_figure
from ui.charts import chart
from ui.controls import section_picker
from ui.screen import compact, presenting
from ui.findings import diagonal_finding
from ui.formulas import formula

# The page's other sections teach the paper's sinusoids; one button opens each other scheme of the registry, by its
# title (the URL's ``scheme``).
OWN = "sinusoidal"
PICKED = tuple(scheme for scheme in POSITIONAL_SCHEMES if scheme.name != OWN)
SCHEMES = tuple(scheme.title for scheme in PICKED)
COUNTS = {4: "Four", 5: "Five", 6: "Six", 7: "Seven"}

# Each scheme's panel in the comparison: its name, a note under it and the score its positions alone give a query
# at m and a key at n (Plotly's HTML).
PANELS = {
    "sinusoidal": ("sinusoidal", "", "PE<sub>m</sub>·PE<sub>n</sub>"),
    "learned": ("learned", "(untrained)", "P<sub>m</sub>·P<sub>n</sub>"),
    "rotary": ("rotary", "", "R(m)q·R(n)k"),
    "alibi": ("ALiBi", "(1 head)", "−slope·|m−n|"),
    "none": ("none", "", "0"),
}


OFFSET_ONLY = 1e-4  # a diagonal's spread, over the panel's largest |value|, this small is float rounding


def offset_finding(panels, names: list[str]) -> str:
    """The schemes' title ending: which position terms ``[T, T]`` depend on the offset n − m alone (every diagonal
    constant), which do not, and which add nothing."""
    alone, not_alone, nothing = [], [], []
    for panel, name in zip(panels, names):
        panel = np.asarray(panel, dtype=np.float64)
        peak = float(np.abs(panel).max())
        if peak == 0:
            nothing.append(name)
            continue
        spread = max(np.ptp(np.diagonal(panel, offset=k)) for k in range(1 - len(panel), len(panel[0])))
        (alone if spread <= OFFSET_ONLY * peak else not_alone).append(name)
    said = [f"{', '.join(alone)} depend{'s' * (len(alone) == 1)} on n − m alone (to 0.01 %)"] if alone else []
    said += [f"{', '.join(not_alone)} do{'es' * (len(not_alone) == 1)} not"] if not_alone else []
    said += [f"{', '.join(nothing)} add{'s' * (len(nothing) == 1)} 0"] if nothing else []
    return ": " + "; ".join(said)


@st.fragment
def render_schemes(positions: int, d_model: int, base: float) -> None:
    """Draw the comparison figure and the open scheme (controls rerun this part only)."""
    st.header(f"{COUNTS.get(len(POSITIONAL_SCHEMES), len(POSITIONAL_SCHEMES))} ways to give attention a sense of order")
    length = min(positions, 32)
    panels = pos_ui.scheme_panels(length, d_model, base, 0)
    panel_px = schemes_viz.PROJECTED_PANEL_PX if presenting() else schemes_viz.SCHEME_PANEL_PX
    finding = offset_finding(panels.values(), [PANELS[name][0] for name in panels])
    chart(
        cached_figure(schemes_viz.schemes_figure, tuple(panels.values()), panel_names(panels), panel_px, finding),
        width="stretch",
    )
    st.caption(
        f"First {length} positions; d_model = {d_model}, base = {base:g}"
        + (f"; rotary uses {d_model + 1} dimensions, as it rotates pairs." if d_model % 2 else ".")
    )
    st.markdown(
        "Each scheme leaves its mark on the score between a query at position $m$ and a key at "
        "position $n$. The figure shows the part that comes from the positions alone, side by side (each panel "
        "scaled to ±1 so the patterns compare). For an even d_model the raw sinusoids' "
        "$PE_m \\cdot PE_n$ depends only on $n - m$ (constant along diagonals; with an odd one, the last sine "
        "has no cosine partner and the diagonals vary), but a model never scores them raw: the encoding is added to "
        "the token vectors and both are projected, so its score $(x_m + PE_m)W^Q (W^K)^\\top (x_n + PE_n)^\\top$ "
        "mixes content with absolute positions and is **not** a function of the offset alone. Making the "
        "*projected* $q \\cdot k$ depend on the positions only through $n - m$ is exactly what rotary "
        "encoding adds, and the reason it exists. ALiBi penalises distance, an untrained learned table is "
        "noise, and *none* gives every pair the same nothing."
    )
    title = section_picker(SCHEMES, key="scheme", label="scheme")
    DETAILS[next(scheme.name for scheme in PICKED if scheme.title == title)](positions, d_model, base)


def panel_names(panels: dict) -> list[str]:
    """Each panel's name, at most three short lines: the five panels fit side by side in a laptop's column; on a
    phone the panels stack, each as wide as the screen, and every name takes two lines (a third would reach the
    panel above), its note beside it."""
    names = []
    for name in panels:
        short, note, score = PANELS[name]
        heading = short if not note else f"{short} {note}" if compact() else f"{short}<br>{note}"
        names.append(f"{heading}<br>{score}")
    return names


def _none(positions: int, d_model: int, base: float) -> None:
    st.markdown(
        "With no positional information, self-attention is **permutation-equivariant**: shuffle "
        "the words and every output is shuffled the same way, nothing else changes. Decoder-only "
        "models with a causal mask get a little order from the mask itself, but a bidirectional "
        "encoder gets none. The Word order section shows it on a real model."
    )


def _learned(positions: int, d_model: int, base: float) -> None:
    st.markdown(
        "A learned encoding is a trainable table $P \\in \\mathbb{R}^{L_{max} \\times d_{model}}$ whose "
        "row $pos$ is added to the embedding: $x_{pos} + P_{pos}$. Before training it is random noise "
        "(here $\\mathcal{N}(0, 1/d_{model})$), so different positions are unrelated. Training shapes it "
        "into whatever helps the task (trained tables often end up wave-like, much like the sinusoids), "
        "but it has no row for positions beyond $L_{max}$, so it cannot extrapolate."
    )
    seed = int(st.number_input("seed of the untrained table", 0, 9999, 0, key="lseed", bind="query-params"))
    table = pos_ui.learned_table(positions, d_model, seed)
    left, right = st.columns(2, gap="large")
    chart(
        cached_figure(
            viz.pe_matrix_figure, table, f"Untrained learned table: {positions} × {d_model}", value_name="P", first=1
        ),
        width="stretch",
        container=left,
    )
    similarity = pos_ui.learned_similarity(positions, d_model, seed)
    chart(
        cached_figure(
            viz.similarity_figure,
            similarity,
            "P[p]·P[q] between positions" + diagonal_finding(similarity),
            "P·P",
            first=1,
        ),
        width="stretch",
        container=right,
    )


def _rotary(positions: int, d_model: int, base: float) -> None:
    st.markdown(
        "Rotary encoding (RoPE) adds nothing to the embeddings. Inside attention it **rotates** each "
        "pair of query and key dimensions by an angle proportional to the position, "
        "$\\theta_{pos,i} = pos \\cdot \\text{base}^{-2i/d}$. The transpose of a rotation by $m$ "
        "times a rotation by $n$ is a rotation by $n - m$, so the score depends on the "
        "positions only through their **offset**:"
    )
    formula(r"(R_m q)^\top (R_n k) = q^\top R_m^\top R_n\, k = q^\top R_{n-m}\, k")
    c1, c2 = st.columns(2)
    d_head = c1.slider("head size d (even: pairs are rotated)", 2, 128, 16, step=2, key="rope_d", bind="query-params")
    seed = int(c2.number_input("seed of q and k", 0, 9999, 0, key="rope_seed", bind="query-params"))
    length = min(positions, 48)
    scores = pos_ui.rope_scores(length, d_head, base, seed)
    left, right = st.columns([3, 2], gap="large")
    chart(
        cached_figure(
            viz.offset_matrix_figure,
            scores,
            f"Same q and k at every position, after RoPE: score R(m)q·R(n)k (d = {d_head})",
        ),
        width="stretch",
        container=left,
    )
    with right:
        st.markdown(
            "One fixed query vector $q$ sits at every position $m$ and one fixed key $k$ at every "
            "position $n$; only the rotations differ. Every diagonal ($n - m$ constant) has a "
            "single colour."
        )
        st.metric("largest spread along a diagonal n − m = const", f"{diagonal_spread(scores):.1e}")
        st.caption("Zero up to float rounding: after RoPE, q·k depends only on n − m.")


def _alibi(positions: int, d_model: int, base: float) -> None:
    st.markdown(
        "ALiBi (Attention with Linear Biases) adds nothing to the embeddings either. It adds a "
        "penalty to each head's scores that grows linearly with the distance, with a different "
        "slope per head (a geometric sequence), so some heads look locally and others far:"
    )
    formula(
        r"\text{score}_h(i, j) = \frac{q_i \cdot k_j}{\sqrt{d_k}} - m_h\,|i - j|,\qquad "
        r"m_h = 2^{-8h/H},\ h = 1..H"
    )
    st.caption(
        "ALiBi was introduced for causal language models (Press et al., 2021), with the bias "
        "−m_h (i − j) on the keys j ≤ i a query may see, and designed so that a model trained on short "
        "inputs still works on longer ones. The symmetric −m_h |i − j| drawn here is a variant for "
        "bidirectional encoders; under a causal mask the two agree on every allowed cell. Depending on the "
        "distance alone, the symmetric bias cannot tell a sentence from its reversal (the Word order section "
        "shows it); the causal mask can."
    )
    heads = st.slider("heads H", 1, 16, 8, key="alibi_h", bind="query-params")
    length = min(positions, 12)
    slopes, bias = pos_ui.alibi(heads, length)
    left, right = st.columns([3, 2], gap="large")
    chart(
        cached_figure(schemes_viz.tiled_heads_figure, bias, f"ALiBi bias per head, {length} positions, {heads} heads"),
        width="stretch",
        container=left,
    )
    with right:
        chart(cached_figure(schemes_viz.slopes_figure, slopes), width="stretch")
        slopes_table = st.expander("The slopes", key="slopes", bind="query-params")
        if slopes_table.open:  # built only when opened
            slopes_table.dataframe(
                pd.DataFrame({"head": np.arange(1, heads + 1), "slope m_h": slopes}), hide_index=True
            )
        if heads & (heads - 1):
            st.caption(
                f"{heads} is not a power of two: the slopes of the nearest lower power of two "
                "come first, then every other slope of the next power of two."
            )


# What the section shows of each scheme it offers, by the scheme's name (every scheme but the page's own).
DETAILS = {"learned": _learned, "rotary": _rotary, "alibi": _alibi, "none": _none}
