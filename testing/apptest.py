"""An AppTest of the app opened at a page's own address, as a browser opening that page's link does.

``AppTest.switch_page`` finds a page of ``st.navigation`` only after a first run (a run of the home page, thrown
away); ``opened_at`` asks for the page on the first run. ``st.Page`` knows a page by the hash of its URL path, and
a run asks for a page by that hash (``AppTest._page_hash``, the one private name here; tests/test_apptest_open.py
checks that every page opened this way runs as the page ``switch_page`` reaches)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest
from streamlit.util import calc_hash


def opened_at(script: str, url_path: str, timeout: float) -> AppTest:
    """An AppTest of ``script`` whose first run opens the page ``st.Page`` registers at ``url_path`` (the default
    page too, by its own ``url_path``)."""
    at = AppTest.from_file(script, default_timeout=timeout)
    at._page_hash = calc_hash(url_path)
    return at
