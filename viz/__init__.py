"""Pure Plotly figure builders: numpy/pandas in, go.Figure out. No streamlit, no torch."""
