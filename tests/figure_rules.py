"""Rules of the figure standard that read a figure's spec, shared by the tests over every figure the app builds
(``tests.app_figures``) and the browser's figure standard, which reads the same from the figures as drawn.

- a title states its finding (``finding_of``);
- an attention weight is drawn on the one attention scale, viridis from 0 (``attention_scale_defect``);
- maps of one quantity in one view share one colour range (``ranges_apart``), so that two maps compared side by
  side (raw and scaled scores, a head with and without another) are compared on the same colours.
"""

from __future__ import annotations

import re

import plotly.colors

# titles written as one sentence, the finding first (each computed from the figure's numbers, and tested there)
SENTENCES = (
    r"^Layer \d+, head \d+ gives the first token [\d.]+ of its attention",  # Multi-head, attention sinks
    r"^Pre-LN's stream grows from [\d.]+ to [\d.]+; post-LN's stays at [\d.]+",  # Encoder-decoder, since 2017
    r"^Layer \d+ · head \d+ · the strongest “.+” head \([\d.]+\)",  # the pretrained page's head roles
    r"^On the held-out digits, layer \d+ · head \d+ looks the most locally",  # Vision, attention distance
)
VIRIDIS = tuple(colour.lower() for colour in plotly.colors.sequential.Viridis)
# "value" names the coordinates of different matrices (X and Q, K, V; Concat, W^O and the output): each matrix on
# its own symmetric range, so the one quantity whose maps may differ in range within a view
OWN_RANGES = frozenset({"value"})


def plain_title(text: str) -> str:
    """A title's words: markup removed, its lines joined."""
    return re.sub(r"<[^>]+>", "", (text or "").replace("<br>", " "))


def finding_of(title: str) -> str | None:
    """What a title (markup removed, lines joined) says past its variable, or None when it says nothing more."""
    if any(re.search(pattern, title) for pattern in SENTENCES):
        return title
    if ": " not in title:
        return None
    finding = title.split(": ", 1)[1]
    return finding if re.search(r"\d|“|map is|does not|do not", finding) else None


def is_attention_weight(quantity: str, hover: str) -> bool:
    """A map of attention weights: its colour bar says "weight", or its hover reads the cell as a weight."""
    return quantity.strip().lower() == "weight" or re.search(r"\bweight:? %\{z", hover or "") is not None


def attention_scale_defect(colours: list[str], low: float | None) -> str | None:
    """Why a weight's map is off the one attention scale (viridis, 0 at its dark end), or None."""
    if tuple(colour.lower() for colour in colours) != VIRIDIS:
        return f"colours {colours[:2]}… are not viridis"
    if low not in (None, 0):
        return f"starts at {low}, not 0"
    return None


def ranges_apart(maps: list[tuple[str, float | None, float | None]]) -> dict[str, set]:
    """Of a view's maps as (quantity, low, high), each quantity drawn on more than one range (to 3 significant
    digits), ``OWN_RANGES`` and unnamed maps aside: {quantity: its ranges}."""
    ranges: dict[str, set] = {}
    for quantity, low, high in maps:
        if quantity and quantity not in OWN_RANGES and low is not None and high is not None:
            ranges.setdefault(quantity, set()).add((float(f"{low:.3g}"), float(f"{high:.3g}")))
    return {quantity: found for quantity, found in ranges.items() if len(found) > 1}
