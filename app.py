"""Attention Lab: the router. Page config and navigation; the pages live in pages/."""

import streamlit as st

from ui.pages_index import PAGES

st.set_page_config(page_title="Attention Lab", page_icon=":material/visibility:", layout="wide")

sections: dict[str, list] = {}
for page in PAGES:
    sections.setdefault(page.section, []).append(
        st.Page(page.path, title=page.title, icon=page.icon, url_path=page.url_path, default=page.is_home))

st.navigation(sections).run()
