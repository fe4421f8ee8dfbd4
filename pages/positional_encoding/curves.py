"""The sinusoidal sections of the Positional encoding page: the curves, the whole table, similarity between
positions, and the shift map M_k. Each draws one section's charts (1-2 figures), so that a setting above them
redraws at most two."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from viz import positional as viz

from pages.positional_encoding import numbers as pos_ui
from ui.cache import cached_figure
from ui.charts import chart
from ui.findings import diagonal_finding
from ui.formulas import formula


def render_curves(positions: int, d_model: int, base: float) -> None:
    """The curves PE[:, dim] for chosen dims, beside the wavelength of each pair."""
    pe = pos_ui.pe_table(positions, d_model, base)
    left, right = st.columns([3, 2], gap="large")
    with left:
        _curves(pe, d_model, base)
    with right:
        st.markdown(clock_text(pos_ui.wavelengths(d_model, base), positions, d_model))
        formula(r"\lambda_i = \frac{2\pi}{\omega_i} = 2\pi \cdot \text{base}^{2i/d_{model}}")
        lengths = pos_ui.wavelengths(d_model, base)
        chart(cached_figure(viz.wavelength_figure, lengths, positions, wavelength_finding(lengths)), width="stretch")
        if base == 1.0:
            st.caption(
                "With base 1 every pair has the same wavelength 2π: the pairs repeat each other, "
                "and positions 2π apart are nearly indistinguishable."
            )


def wavelength_finding(wavelengths: np.ndarray) -> str:
    """What the wavelengths ``2π · base^(2i/d_model)`` ``[d_model / 2]`` show, as a title's ending: each pair's is
    the one before's times ``base^(2/d_model)``, one ratio (a straight line on a log axis), from the first pair's to
    the last's."""
    first, last = float(wavelengths[0]), float(wavelengths[-1])
    if len(wavelengths) == 1:
        return f": one pair, repeating every {first:,.1f} positions"
    ratio = float(wavelengths[1] / wavelengths[0])
    if abs(ratio - 1.0) < 5e-4:
        return f": every pair repeats every {first:,.1f} positions"
    return f": each pair ×{ratio:.2f} the one before, from {first:,.1f} to {last:,.0f} positions"


def table_finding(lengths: np.ndarray, d_model: int, positions: int) -> str:
    """What the table shows, from its pairs' wavelengths ``lengths`` (2 pi base^(2i/d_model), one a pair of
    dimensions 2i, 2i + 1; the last pair of an odd d_model is one sine): the first pair's and the last pair's, and
    how many pairs turn fully within the ``positions`` drawn."""
    first = f"Dims 0–1 repeat every {lengths[0]:.1f} positions"
    if len(lengths) == 1:
        return first
    if np.isclose(lengths[0], lengths[-1]):
        return first + ", and so does every pair"
    last = len(lengths) - 1
    last_dims = f"{2 * last}–{2 * last + 1}" if 2 * last + 1 < d_model else f"{2 * last}"
    turning = int((lengths <= positions).sum())
    return f"{first}, dims {last_dims} every {lengths[-1]:,.0f}: {turning} of {len(lengths)} pairs turn fully in these {positions}"


def render_table(positions: int, d_model: int, base: float) -> None:
    """The whole table [P, d] as one heatmap, what its rows and columns show, and its first numbers on demand."""
    pe = pos_ui.pe_table(positions, d_model, base)
    left, right = st.columns([3, 2], gap="large")
    chart(
        cached_figure(viz.pe_matrix_figure, pe, table_finding(pos_ui.wavelengths(d_model, base), d_model, positions)),
        width="stretch",
        container=left,
    )
    with right:
        st.markdown(
            "Read a row for one position's vector. "
            + columns_text(len(pos_ui.wavelengths(d_model, base)), base)
            + " The values stay in $[-1, 1]$ "
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
    dims = st.multiselect(
        "dimensions to plot (even = sine, odd = cosine)",
        list(range(d_model)),
        default=default_dims,
        key="dims",
        bind="query-params",
    )
    if dims:
        wavelengths = pos_ui.wavelengths(d_model, base)
        chart(cached_figure(viz.pe_curves_figure, pe, sorted(dims), wavelengths), width="stretch")
    else:
        st.info("Pick at least one dimension to plot its curve.")


SAME = 1e-4  # float32 rounding of PE and M_k · PE stays far below this
OFFSET_ALONE = 1e-3  # a spread over p this small is float rounding: the offset alone sets the dot product


def profile_finding(offsets: np.ndarray, mean: np.ndarray, low: np.ndarray, high: np.ndarray) -> str:
    """The distance profile's title ending: whether the offset alone sets PE[p]·PE[p+k] (the band's widest spread
    over p) and where its mean starts and is lowest."""
    spread, lowest = float((high - low).max()), int(np.argmin(mean))
    alone = "the offset alone sets it" if spread < OFFSET_ALONE else f"it moves with p too, by up to {spread:.2f}"
    return (
        f": {alone}; {float(mean[0]):.1f} at k = {int(offsets[0])}, lowest "
        + f"{float(mean[lowest]):.1f}".replace("-", "−")
        + f" at k = {int(offsets[lowest])}"
    )


def render_similarity(positions: int, d_model: int, base: float) -> None:
    """PE[p]·PE[q] for all positions [P, P] and its profile against the offset k = q - p."""
    sim = pos_ui.similarity(positions, d_model, base)
    profile = pos_ui.distance_profile(positions, d_model, base)
    st.markdown(
        "For an even $d_{model}$ the dot product of two position vectors depends on the **offset** "
        "$p - q$ only: every diagonal of the matrix is constant. It is a sum of cosines, so it is "
        "**symmetric** in the sign of the offset ($k$ and $-k$ give the same value: the matrix is symmetric "
        "about its main diagonal). " + profile_text(profile.mean, d_model)
    )
    formula(r"PE_p \cdot PE_q = \sum_i \cos\big((p - q)\,\omega_i\big)")
    left, right = st.columns(2, gap="large")
    chart(
        cached_figure(viz.similarity_figure, sim, "PE[p]·PE[q] for all positions" + diagonal_finding(sim)),
        width="stretch",
        container=left,
    )
    with right:
        chart(
            cached_figure(
                viz.distance_profile_figure,
                profile.offsets,
                profile.mean,
                profile.low,
                profile.high,
                profile_finding(profile.offsets, profile.mean, profile.low, profile.high),
            ),
            width="stretch",
        )
        spread = float((profile.high - profile.low).max())
        st.caption(
            "The band is the spread over all p at each offset. "
            f"Largest spread along a diagonal: {spread:.2e}"
            + (
                " (float rounding: offset only)."
                if d_model % 2 == 0
                else " (the lone sine column of an odd d_model adds sin(p ω)·sin(q ω), which is not a "
                "function of p − q)."
            )
        )


@st.fragment
def render_shift(positions: int, d_model: int, base: float) -> None:
    """The relative-position property PE[pos + k] = M_k PE[pos], verified on screen
    (the offset and position sliders rerun this part only). On a small screen the explanation follows
    the figures."""
    c1, c2 = st.columns(2)
    offset = c1.slider("offset k", 0, positions - 1, min(5, positions - 1), key="k", bind="query-params")
    at = c2.slider(
        "position pos (the formula's, from 0)", 0, positions - 1, min(10, positions - 1), key="pos", bind="query-params"
    )
    check = pos_ui.shift_check(positions, d_model, base, offset)
    shown = min(d_model, 64)
    left, right = st.columns(2, gap="large")
    title = f"M_{offset}: PE[pos] → PE[pos + {offset}]"
    if shown < d_model:
        title += f" (first {shown} dimensions)"
    chart(
        cached_figure(
            viz.offset_matrix_figure,
            check.matrix[:shown, :shown],
            title,
            row_name="output dim",
            col_name="input dim",
            value_name="M_k",
            masked=check.no_value[:shown, :shown],
            first=None,
        ),
        width="stretch",
        container=left,
    )
    with right:
        table = pos_ui.pe_table(at + offset + 1, d_model, base)
        linear = check.linear_dims
        mapped = check.matrix[:linear, :linear] @ table[at, :linear]
        target = table[at + offset, :linear]
        gap = float(np.abs(target - mapped).max()) if linear else 0.0
        same = f": the same vector, {gap:.1e} apart at most" if gap < SAME else f": apart by up to {gap:.2f}"
        chart(
            cached_figure(viz.shift_vectors_figure, target, mapped.astype(np.float32), at, offset, same),
            width="stretch",
        )
        st.metric(
            f"max |PE[pos + {offset}] − M_{offset} PE[pos]| over all {check.pairs_checked} positions",
            f"{check.max_error:.1e}",
        )
        st.caption(
            "Zero up to float32 rounding: the same matrix works at every position. "
            + (
                f"With odd d_model the lone sine column {d_model - 1} has no cosine partner, so "
                "sin((pos + k)ω) is not a linear function of PE[pos] through that column: its "
                "cell of M_k is drawn grey and the check covers the other "
                f"{linear} dimensions."
                if linear < d_model
                else ""
            )
        )
    st.markdown(
        "The tutorials state that for any fixed offset $k$, $PE_{pos+k}$ is a linear function of "
        "$PE_{pos}$. The map is the same for every position: each (sin, cos) pair is **rotated** by "
        "the angle $k\\,\\omega_i$, so one matrix expresses *k words later* at every position (the paper's "
        "hope: that attention could then easily learn relative positions)."
    )
    formula(
        r"\begin{pmatrix}\sin((pos+k)\omega_i)\\ \cos((pos+k)\omega_i)\end{pmatrix} = "
        r"\begin{pmatrix}\cos k\omega_i & \sin k\omega_i\\ -\sin k\omega_i & \cos k\omega_i\end{pmatrix}"
        r"\begin{pmatrix}\sin(pos\,\omega_i)\\ \cos(pos\,\omega_i)\end{pmatrix}"
    )


def _number(value: float) -> str:
    """A positive number as the sentences write it: thousands separated above 100, three figures below."""
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def clock_text(waves: np.ndarray, positions: int, d_model: int) -> str:
    """What the wavelength figure shows, from its wavelengths ``[pairs]``: which pairs turn faster, and how far the
    slowest turns over the ``positions`` drawn."""
    text = (
        "Each pair of dimensions $(2i, 2i+1)$ is one clock hand turning at its own speed "
        "$\\omega_i = \\text{base}^{-2i/d_{model}}$"
    )
    if len(waves) == 1:
        return text + ": here there is only one pair, one hand turning once every $2\\pi \\approx 6.28$ positions."
    if waves[-1] <= waves[0] * (1 + 1e-6):
        return text + ": with base 1 they all turn at the same speed, once every $2\\pi$ positions."
    slowest, last = float(waves[-1]), len(waves) - 1
    turned = 360.0 * (positions - 1) / slowest
    dims = (
        f"dimensions {d_model - 2} and {d_model - 1}" if d_model % 2 == 0 else f"dimension {d_model - 1}, a lone sine"
    )
    return text + (
        f": the first pair turns fastest (wavelength $2\\pi \\approx 6.28$ positions), each later pair more "
        f"slowly. Here the slowest, pair i = {last} ({dims}), has a wavelength of {_number(slowest)} "
        f"positions, so from position 0 to {positions - 1} it turns by {_number(turned)}° "
        f"({turned / 360:.2g} of a full turn). Together the pairs give every position a distinct fingerprint."
    )


def columns_text(pairs: int, base: float) -> str:
    """How the table's columns change from row to row, for ``pairs`` clock hands turning at ``base``'s speeds."""
    if pairs == 1:
        return "With one pair there is one speed: both columns repeat every $2\\pi$ positions."
    if base == 1:
        return "With base 1 every pair of columns turns at the same speed: the pairs repeat each other."
    return (
        "Left columns flicker quickly from row to row; columns further right change more and more slowly, like "
        "the higher digits of a counter."
    )


def profile_text(mean: np.ndarray, d_model: int) -> str:
    """What the profile on the right shows, from its mean similarity per offset ``[K]`` (offsets 0 .. K-1): where it
    is largest, how often it rises again and how high it still comes over the far half of the offsets."""
    m = np.asarray(mean, dtype=np.float64)
    count, top = len(m), int(np.argmax(m))
    peak = m[top]
    said = f"It is largest at offset {top} ({peak:.4g}{' = $d_{model}/2$' if d_model % 2 == 0 else ''})"
    tol = 1e-6 * abs(peak)
    rises = sum(1 for k in range(1, count - 1) if m[k] < m[k - 1] - tol and m[k] < m[k + 1] - tol)
    if rises == 0:
        return said + f" and only falls over the {count} offsets drawn (the profile on the right)."
    half = count // 2
    far = half + int(np.argmax(m[half:]))
    return (
        said + f", but it does not fall **monotonically**: over the {count} offsets drawn it rises again "
        f"{'once' if rises == 1 else f'{rises} times'}, in ripples (the profile on the right), and at offsets "
        f"{half} to {count - 1} it still reaches {m[far] / peak:.2%} of its peak (offset {far})."
    )
