"""Attention Lab: the router. Page config and navigation; the pages live in pages/."""

from pathlib import Path

import streamlit as st

from ui.pages_index import PAGES

ICON = Path(__file__).resolve().parent / "docs" / "icon.png"  # a local file: the browser fetches nothing from outside
st.set_page_config(page_title="Attention Lab", page_icon=str(ICON), layout="wide")

sections: dict[str, list] = {}
for page in PAGES:
    sections.setdefault(page.section, []).append(
        st.Page(page.path, title=page.title, icon=page.icon, url_path=page.url_path, default=page.is_home))

st.navigation(sections).run()
