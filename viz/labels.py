"""Token labels that Plotly shows exactly as typed."""

from __future__ import annotations

import html
from collections.abc import Sequence


def escape(text: str) -> str:
    """Escape Plotly's HTML-like markup (<b>, <br>, &...) so text shows literally."""
    return html.escape(text, quote=False)


def token_labels(tokens: Sequence[str]) -> list[str]:
    """Escaped tick labels; a repeated token stays its own tick (ticks are positions)."""
    return [escape(t) for t in tokens]


def position_axis(tokens: Sequence[str], **extra) -> dict:
    """An axis of integer positions labelled with tokens, so repeats and digits stay separate."""
    return dict(tickmode="array", tickvals=list(range(len(tokens))), ticktext=token_labels(tokens),
                showgrid=False, zeroline=False, **extra)
