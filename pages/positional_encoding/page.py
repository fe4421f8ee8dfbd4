"""Positional encoding: sinusoids, similarity, the shift map, the schemes side by side, word order.

The shared controls sit at the top; each section is one button of a row (its label is the URL's
``section``), and a change builds and redraws only the open section's few charts. The controls and the
sections are one fragment: a change reruns and redraws neither the title and formula above them nor
the navigation.
"""

import streamlit as st

from pages.positional_encoding.schemes import render_schemes
from pages.positional_encoding.curves import render_curves, render_shift, render_similarity, render_table
from ui.presentation import explanation
from ui.screen import settings
from ui.controls import section_picker
from ui.routing import require_navigation
from ui.formulas import formula
from pages.positional_encoding.word_order import render_word_order

require_navigation()

SECTIONS = ("Curves", "Table", "Similarity", "Offset map", "Schemes", "Word order")

st.title("Positional encoding")
with explanation():
    st.markdown(
        "Attention compares every token with every other one, but nothing in $QK^\\top$ knows where a "
        "token sits: without help (and without a causal mask, which tells places apart on its own), *The cat "
        "sat on the mat* and *The mat sat on the cat* look the same to it. The Transformer therefore **adds** a "
        "position vector to each token's embedding. The paper's choice is a fixed table of sines and cosines "
        "whose wavelengths form a geometric progression from $2\\pi$ up to "
        "$2\\pi \\cdot \\text{base}^{2\\lfloor (d-1)/2 \\rfloor/d}$ (the exponent is $(d-2)/d$ for an even "
        "$d$), nearly $2\\pi \\cdot \\text{base}$ for a large $d$ (the tutorials' $l = 10000$):"
    )
    formula(
        r"PE_{(pos,2i)} = \sin\!\left(\frac{pos}{\text{base}^{2i/d_{model}}}\right),\qquad "
        r"PE_{(pos,2i+1)} = \cos\!\left(\frac{pos}{\text{base}^{2i/d_{model}}}\right)"
    )


@st.fragment
def positional_view() -> None:
    """d_model, the number of positions and the base, then the open section."""
    c1, c2, c3 = settings("d_model, positions and base").columns(3)
    d_model = c1.slider(
        "d_model (dimensions)",
        2,
        256,
        64,
        key="d_model",
        bind="query-params",
        help="Odd values work: the last column is then a lone sine.",
    )
    positions = c2.slider("positions", 8, 256, 100, key="positions", bind="query-params")
    base = float(
        c3.number_input(
            "base (l)",
            1,
            1_000_000,
            10000,
            step=1,
            key="base",
            bind="query-params",
            help="10000 in the paper. Base 1 gives every pair the same wavelength 2π.",
        )
    )
    if d_model % 2:
        c1.caption(f"d_model = {d_model} is odd: dimension {d_model - 1} is a sine without a cosine partner.")
    open_section(positions, d_model, base)


@st.fragment
def open_section(positions: int, d_model: int, base: float) -> None:
    """The row of sections and the open one: another section reruns this part only, not the settings."""
    section = section_picker(SECTIONS)
    if section == "Curves":
        render_curves(positions, d_model, base)
    if section == "Table":
        render_table(positions, d_model, base)
    if section == "Similarity":
        render_similarity(positions, d_model, base)
    if section == "Offset map":
        render_shift(positions, d_model, base)
    if section == "Schemes":
        render_schemes(positions, d_model, base)
    if section == "Word order":
        st.caption("Uses the base above; the model has its own size controls.")
        render_word_order(base)


positional_view()
