"""What a redraw costs by parts: the floor's slider, then (from the URL) a page's controls and changed charts.

    streamlit run bench/anatomy_page.py        then open ?controls=1&charts=2

``bench/anatomy.py`` serves it beside the floor page. No model runs here: every chart is a
12 x 16 signed heatmap that moves with the slider, drawn the app's way (``ui.plotly_in_place``, the
app's template and margins by ``viz.style.base_layout``), ``panels=1`` puts them side by side in one
figure instead, and ``controls=1`` adds the Self-attention page's rows of controls (unchanged by the slider), so the
redraw time is Streamlit's and Plotly's own share of a page like that one.
"""

import sys
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from ui.plotly_in_place import plotly_in_place
from viz.style import base_layout


def self_attention_controls() -> None:
    """The Self-attention page's controls and text around its charts, in its layout (values unused)."""
    st.selectbox("model", ["a random model", "a checkpoint"], key="model")
    settings = st.columns([1.3, 1, 1, 1, 1, 1])
    for i, column in enumerate(settings[:5]):
        column.selectbox(f"setting {i + 1}", [1, 2, 4], key=f"setting{i}")
    settings[5].toggle("causal mask", key="causal")
    row = st.columns([1, 1, 1, 2])
    row[0].selectbox("layer", [1, 2], key="layer")
    row[1].selectbox("head", [1, 2], key="head")
    row[2].toggle("divide by √d_k", True, key="scale")
    row[3].slider("temperature τ", 0.1, 5.0, 1.0, key="temperature")
    st.caption("Model: a random model; layer 1 of 2, head 1 of 2, d_k = d_model / h = 16 / 2 = 8.")
    st.text_input("Sentence", "The animal didn't cross the street because it was too tired", key="text")
    st.segmented_control("section", ["Vectors", "Scores", "Weights", "Output"], default="Vectors", key="section")
    st.markdown("Each token's vector **x** is multiplied by W_Q, W_K and W_V.")


def changed_heatmap(chart: int, value: int) -> go.Heatmap:
    """z[i, j] = sin((i + (chart + 1) j) / 3 + value / 10): every nudge changes every cell; the colours
    and colour bar are the figure's diverging colour axis."""
    z = np.sin(np.add.outer(np.arange(12), np.arange(16) * (chart + 1)) / 3.0 + value / 10.0)
    return go.Heatmap(z=z.astype(np.float32), coloraxis="coloraxis")


def styled(figure: go.Figure, title: str) -> go.Figure:
    """The app's template and margins, and one diverging colour axis centred on 0."""
    return base_layout(figure, title, 360).update_layout(coloraxis=dict(colorscale="RdBu_r", cmid=0.0))


value = st.slider("floor", 0, 100, 50, key="floor")
if st.query_params.get("controls") == "1":
    self_attention_controls()
charts = int(st.query_params.get("charts", "0"))
if st.query_params.get("panels") == "1" and charts:
    figure = make_subplots(rows=1, cols=charts)
    for chart in range(charts):
        figure.add_trace(changed_heatmap(chart, value), row=1, col=chart + 1)
    plotly_in_place(styled(figure, f"{charts} changed panels"), "anatomy:panels")
else:
    for chart in range(charts):
        plotly_in_place(
            styled(go.Figure(changed_heatmap(chart, value)), f"changed chart {chart + 1}"), f"anatomy:{chart}"
        )
