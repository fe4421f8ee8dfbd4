"""The sinusoidal sections of the Positional encoding page: the curves and the table, similarity
between positions, and the shift map M_k. Each draws one section's charts (2-3 figures)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from viz import positional as viz

from pages.positional_encoding import numbers as pos_ui
from ui.cache import cached_figure
from ui.charts import chart
from ui.screen import figure_first


def render_curves(positions: int, d_model: int, base: float) -> None:
    """The curves PE[:, dim] for chosen dims, the wavelength per pair and the whole table [P, d]."""
    pe = pos_ui.pe_table(positions, d_model, base)
    left, right = st.columns([3, 2], gap="large")
    with left:
        _curves(pe, d_model, base)
    with right:
        st.markdown(
            "Each pair of dimensions $(2i, 2i+1)$ is one clock hand turning at its own speed "
            "$\\omega_i = \\text{base}^{-2i/d_{model}}$: the first pairs turn fast (wavelength $2\\pi$ "
            "positions), the last ones so slowly that they barely move over a sentence. "
            "Together they give every position a distinct fingerprint."
        )
        st.latex(r"\lambda_i = \frac{2\pi}{\omega_i} = 2\pi \cdot \text{base}^{2i/d_{model}}")
        chart(cached_figure(viz.wavelength_figure, pos_ui.wavelengths(d_model, base), positions),
              width="stretch")
        if base == 1.0:
            st.caption("With base 1 every pair has the same wavelength 2π: the pairs repeat each other, "
                       "and positions 2π apart are nearly indistinguishable.")
    left, right = st.columns([3, 2], gap="large")
    chart(cached_figure(viz.pe_matrix_figure, pe,
                        f"The whole table: {positions} positions × {d_model} dimensions"),
          width="stretch", container=left)
    with right:
        st.markdown(
            "Read a row for one position's vector. Left columns flicker quickly from row to row; right "
            "columns change slowly, like the high digits of a counter. The values stay in $[-1, 1]$ "
            "whatever the length, so every position has a vector, even one past the longest training "
            "sentence. That does not make a model extrapolate: the paper only hoped the sinusoids would let it "
            "handle longer sequences, and when Press et al. (2021) measured it, a sinusoidal model's "
            "perplexity degraded quickly beyond its training length (the reason they proposed ALiBi)."
        )
        numbers = st.expander("The numbers (first 16 positions)", key="pe_numbers", bind="query-params")
        if numbers.open:  # built only when opened
            with numbers:
                st.dataframe(pd.DataFrame(pe[:16], columns=[f"dim {d}" for d in range(d_model)]), height=300)


@st.fragment
def _curves(pe: np.ndarray, d_model: int, base: float) -> None:
    """The dimension picker and its curves (picking reruns this part only)."""
    default_dims = [d for d in (2, 3, 10, 11, 24, 25) if d < d_model] or [0]
    dims = st.multiselect("dimensions to plot (even = sine, odd = cosine)", list(range(d_model)),
                          default=default_dims, key="dims", bind="query-params")
    if dims:
        chart(cached_figure(viz.pe_curves_figure, pe, sorted(dims), d_model, base), width="stretch")
    else:
        st.info("Pick at least one dimension to plot its curve.")


def render_similarity(positions: int, d_model: int, base: float) -> None:
    """PE[p]·PE[q] for all positions [P, P] and its profile against the offset k = q - p."""
    st.markdown(
        "For an even $d_{model}$ the dot product of two position vectors depends on the **offset** "
        "$p - q$ only: every diagonal of the matrix is constant. It is a sum of cosines, so it is "
        "**symmetric** in the sign of the offset ($k$ and $-k$ give the same value: the matrix is symmetric "
        "about its main diagonal). It is largest "
        "($d_{model}/2$) at offset 0 and falls off on the whole as positions move apart, but **not "
        "monotonically**: it rises again, many times, in ripples (the profile on the right)."
    )
    st.latex(r"PE_p \cdot PE_q = \sum_i \cos\big((p - q)\,\omega_i\big)")
    left, right = st.columns(2, gap="large")
    sim = pos_ui.similarity(positions, d_model, base)
    profile = pos_ui.distance_profile(positions, d_model, base)
    chart(cached_figure(viz.similarity_figure, sim, "PE[p]·PE[q] for all positions"), width="stretch", container=left)
    with right:
        chart(cached_figure(viz.distance_profile_figure, profile.offsets, profile.mean, profile.low,
                            profile.high), width="stretch")
        spread = float((profile.high - profile.low).max())
        st.caption("The band is the spread over all p at each offset. "
                   f"Largest spread along a diagonal: {spread:.2e}"
                   + (" (float rounding: offset only)." if d_model % 2 == 0 else
                      " (the lone sine column of an odd d_model adds sin(p ω)·sin(q ω), which is not a "
                      "function of p − q)."))


@st.fragment
def render_shift(positions: int, d_model: int, base: float) -> None:
    """The relative-position property PE[pos + k] = M_k PE[pos], verified on screen
    (the offset and position sliders rerun this part only). On a small screen the explanation follows
    the figures."""
    intro = figure_first()
    c1, c2 = st.columns(2)
    offset = c1.slider("offset k", 0, positions - 1, min(5, positions - 1), key="k", bind="query-params")
    at = c2.slider("position pos (the formula's, from 0)", 0, positions - 1, min(10, positions - 1),
                   key="pos", bind="query-params")
    check = pos_ui.shift_check(positions, d_model, base, offset)
    shown = min(d_model, 64)
    left, right = st.columns(2, gap="large")
    title = f"M_{offset}: PE[pos] → PE[pos + {offset}]"
    if shown < d_model:
        title += f" (first {shown} dimensions)"
    chart(cached_figure(viz.offset_matrix_figure, check.matrix[:shown, :shown], title,
                        row_name="output dim", col_name="input dim", value_name="M_k",
                        masked=check.no_value[:shown, :shown], first=None), width="stretch", container=left)
    with right:
        table = pos_ui.pe_table(at + offset + 1, d_model, base)
        linear = check.linear_dims
        mapped = check.matrix[:linear, :linear] @ table[at, :linear]
        target = table[at + offset, :linear]
        chart(cached_figure(viz.shift_vectors_figure, target, mapped.astype(np.float32), at, offset),
              width="stretch")
        st.metric(f"max |PE[pos + {offset}] − M_{offset} PE[pos]| over all {check.pairs_checked} positions",
                  f"{check.max_error:.1e}")
        st.caption("Zero up to float32 rounding: the same matrix works at every position. "
                   + (f"With odd d_model the lone sine column {d_model - 1} has no cosine partner, so "
                      "sin((pos + k)ω) is not a linear function of PE[pos] through that column: its "
                      "cell of M_k is drawn grey and the check covers the other "
                      f"{linear} dimensions." if linear < d_model else ""))
    with intro.text():
        st.markdown(
            "The tutorials state that for any fixed offset $k$, $PE_{pos+k}$ is a linear function of "
            "$PE_{pos}$. The map is the same for every position: each (sin, cos) pair is **rotated** by "
            "the angle $k\\,\\omega_i$, so one matrix expresses *k words later* at every position (the paper's "
            "hope: that attention could then easily learn relative positions)."
        )
        st.latex(r"\begin{pmatrix}\sin((pos+k)\omega_i)\\ \cos((pos+k)\omega_i)\end{pmatrix} = "
                 r"\begin{pmatrix}\cos k\omega_i & \sin k\omega_i\\ -\sin k\omega_i & \cos k\omega_i\end{pmatrix}"
                 r"\begin{pmatrix}\sin(pos\,\omega_i)\\ \cos(pos\,\omega_i)\end{pmatrix}")
