"""Sharing a view: its address (``view_link``) and a QR code of it (``qr_png``), shown in the "Share this view"
popover (``share_view``), and used for a class's join link too (``ui.rooms.teaching``).

A view is a page and its URL state: the same settings and seed give the same figures in every session, so the
link shows the students exactly the screen it was taken from. A class's own keys (``ui.rooms.schema.CLASS_KEYS``)
are left out: a shared view joins no class.
"""

from __future__ import annotations

import io
from urllib.parse import urlencode, urlsplit

import segno
import streamlit as st

from ui.cache import computation
from ui.rooms.schema import CLASS_KEYS

LOCAL_ADDRESS = "http://localhost:8501"  # the address when the browser's is not known (a test's run)


def view_link(url_path: str, query: dict[str, str | list[str]]) -> str:
    """The address of a view: the server the browser used, the page's path and its URL state (a list is
    a repeated key, as a multi-choice control keeps it)."""
    browser_url = getattr(st.context, "url", None) or LOCAL_ADDRESS
    parts = urlsplit(browser_url)
    base = f"{parts.scheme or 'http'}://{parts.netloc or 'localhost:8501'}"
    path = "/" + url_path.strip("/")
    return base + path + (f"?{urlencode(query, doseq=True)}" if query else "")


@computation
def qr_png(link: str, scale: int = 8) -> bytes:
    """A QR code of ``link`` as PNG bytes (error correction M, a 4-module quiet zone)."""
    code = segno.make(link, error="m", micro=False)
    out = io.BytesIO()
    code.save(out, kind="png", scale=scale, border=4)
    return out.getvalue()


def share_popover(container):
    """The "Share this view" popover in ``container``, or None while it is closed. It is filled after the page
    has run (``share_view``), so that the link holds the URL state of every control the page has drawn."""
    share = container.popover(
        "Share this view", icon=":material/qr_code_2:", width="stretch", key="share", on_change="rerun"
    )
    return share if share.open else None


def share_view(share, url_path: str) -> None:
    """The current view's link and its QR code, in the open share popover (None: closed, nothing to do)."""
    if share is None:
        return
    link = view_link(url_path, {key: st.query_params.get_all(key) for key in st.query_params if key not in CLASS_KEYS})
    with share:
        st.caption("Students scan the code or open the link, and see exactly this view.")
        st.image(  # lossless: JPEG would blur the modules
            qr_png(link), width=260, output_format="PNG", alt="QR code of the link to this view, written out below"
        )
        st.code(link, language=None, wrap_lines=True)
