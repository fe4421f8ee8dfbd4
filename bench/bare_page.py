"""The least a Streamlit run can be: ``TEXTS`` text elements with a formula each, no navigation, no model.

    streamlit run bench/bare_page.py

``bench/run_cost.py`` runs it beside the app: the server's CPU for one run of it is the floor of what any
session's run costs, whatever the page draws.
"""

import streamlit as st

TEXTS = 40  # about as many text elements as one of the app's pages writes

for number in range(TEXTS):
    st.markdown(f"Paragraph {number}: the weights of row $i$ sum to $1$.")
