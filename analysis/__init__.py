"""Pure numpy/torch analysis: arrays and DataFrames in, arrays and DataFrames out (no Streamlit, no Plotly)."""
