"""The pages of the dashboard, in navigation order: app.py routes them, Home links them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageInfo:
    section: str
    path: str
    title: str
    icon: str
    summary: str


PAGES: tuple[PageInfo, ...] = (
    PageInfo("Start", "pages/home.py", "Home", ":material/home:",
             "What the dashboard teaches and a map of the Transformer."),
)
