"""The floor of a browser redraw: a bare Streamlit page with one slider and one small heatmap.

    streamlit run bench/floor_page.py

``bench/browser.py`` serves it beside the app and nudges its slider between the app's own
control changes: no page can redraw faster than this, so each control's redraw time is
reported as a multiple of this page's. A second, empty page ("elsewhere") lets the bench
time a navigation to the floor page from the sidebar, as it times one to each of the app's.
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st


def floor() -> None:
    value = st.slider("floor", 0, 100, 50, key="floor")
    # An 8 x 8 signed pattern that moves with the slider: z[i, j] = sin((i + j + value) / 3).
    cells = np.add.outer(np.arange(8), np.arange(8)) + value
    st.plotly_chart(go.Figure(go.Heatmap(z=np.sin(cells / 3.0).astype(np.float32), colorscale="RdBu_r", zmid=0.0)))


def elsewhere() -> None:
    st.write("Another page.")


st.navigation([st.Page(floor, title="floor", default=True), st.Page(elsewhere, title="elsewhere")]).run()
