"""The figure standard's "titles state the finding": every chart the app draws, on every page and section, plain
and presenting, says in its title what its numbers show, not only which variable it draws.

A title is "the variable: the finding", the finding holding a number or a quoted token, or a sentence that is the
finding itself (``SENTENCES``: it names a head, a token or a trend with its numbers). Each finding is checked
against the drawn numbers in its page's tests; this one keeps any figure from going back to a bare name."""

from __future__ import annotations

import re

# titles written as one sentence, the finding first (each computed from the figure's numbers, and tested there)
SENTENCES = (
    r"^Layer \d+, head \d+ gives the first token [\d.]+ of its attention",  # Multi-head, attention sinks
    r"^Pre-LN's stream grows from [\d.]+ to [\d.]+; post-LN's stays at [\d.]+",  # Encoder-decoder, since 2017
    r"^Layer \d+ · head \d+ · the strongest “.+” head \([\d.]+\)",  # the pretrained page's head roles
    r"^On the held-out digits, layer \d+ · head \d+ looks the most locally",  # Vision, attention distance
)


def finding_of(title: str) -> str | None:
    """What a title (markup removed, lines joined) says past its variable, or None when it says nothing more."""
    if any(re.search(pattern, title) for pattern in SENTENCES):
        return title
    if ": " not in title:
        return None
    finding = title.split(": ", 1)[1]
    return finding if re.search(r"\d|“|map is|does not|do not", finding) else None


def test_every_chart_the_app_draws_states_its_finding_in_its_title():
    from tests.app_figures import every_figure_the_app_draws

    bare = set()
    checked = 0
    for page, section, _, spec in every_figure_the_app_draws():
        title = re.sub(r"<[^>]+>", "", ((spec["layout"].get("title") or {}).get("text") or "").replace("<br>", " "))
        checked += 1
        if finding_of(title) is None:
            bare.add((page, section, title))
    assert checked >= 200 and not bare, sorted(bare)


def test_a_bare_name_is_told_from_a_finding():
    assert finding_of("W_Q, the matrix you set") is None
    assert finding_of("Key-padding mask of the batch: 6 of 18 positions are padding") is not None
    assert finding_of("Layer 1 · 12 heads · head_i = A_i V_i, each [15 × 32]") is None  # shapes, not a finding
    assert finding_of("Layer 1 · head 1 · self-attention, none: B's map is A's, reordered") is not None
    assert finding_of("Layer 5, head 6 gives the first token 0.90 of its attention") is not None
