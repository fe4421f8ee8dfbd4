"""User text inside Markdown, shown as typed: no Streamlit and no torch, so any part of the app can use it."""

from __future__ import annotations


def as_typed(text: str) -> str:
    """Text shown as typed inside Markdown: its special characters escaped (never maths, links or bold)."""
    return "".join(f"\\{c}" if c in "\\`*_{}[]<>()#+-.!|~$" else c for c in text)
