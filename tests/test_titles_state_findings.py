"""The figure standard's "titles state the finding": every chart the app draws, on every page and section, plain
and presenting, says in its title what its numbers show, not only which variable it draws.

A title is "the variable: the finding", the finding holding a number or a quoted token, or a sentence that is the
finding itself (``tests.figure_rules.SENTENCES``: it names a head, a token or a trend with its numbers). Each finding is checked
against the drawn numbers in its page's tests; this one keeps any figure from going back to a bare name."""

from __future__ import annotations


from tests.figure_rules import finding_of, plain_title
from tests.app_figures import SHARES_EVERY_FIGURE

pytestmark = SHARES_EVERY_FIGURE


def test_every_chart_the_app_draws_states_its_finding_in_its_title():
    from tests.app_figures import every_figure_the_app_draws

    bare = set()
    checked = 0
    for page, section, _, spec in every_figure_the_app_draws():
        title = plain_title((spec["layout"].get("title") or {}).get("text") or "")
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
