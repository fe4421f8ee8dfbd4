"""The Positional encoding page's Schemes section: which position terms depend on n − m alone (the title, from the
drawn panels), RoPE's constant diagonals, ALiBi's slopes and heads, and the panels' sizes on a laptop, a phone and a
projector."""

import numpy as np
import pytest

from tests.apptest_helpers import assert_no_exception, chart_by_title, decode_array, title_text
from tests.test_page_positional_encoding import section
from ui.screen import COMPACT


@pytest.mark.parametrize(
    ("settings", "finding"),
    [  # the sinusoids' dot product is a sum of cos((n − m) ω) for an even d_model; an odd one adds sin(m ω) sin(n ω),
        # which at base 2 (ω = 2^(−64/65), about 0.5) is far from 0
        ({}, ": sinusoidal, rotary, ALiBi depend on n − m alone (to 0.01 %); learned does not; none adds 0"),
        (
            {"d_model": "65", "base": "2"},
            ": rotary, ALiBi depend on n − m alone (to 0.01 %); sinusoidal, learned do not; none adds 0",
        ),
    ],
)
def test_the_schemes_title_says_which_terms_depend_on_the_offset_alone(settings, finding):
    at = section("Schemes", **settings)
    assert title_text(chart_by_title(at, "per scheme")).endswith(finding)


def test_rope_scores_are_constant_along_diagonals():
    default_page = section("Schemes", scheme="Rotary (RoPE)")
    assert chart_by_title(default_page, "per scheme")
    scores = decode_array(chart_by_title(default_page, "after RoPE")["data"][0]["z"])
    for c in range(-scores.shape[0] + 1, scores.shape[0]):
        assert np.ptp(np.diagonal(scores, offset=c)) < 1e-4


def test_alibi_slopes_and_biases():
    default_page = section("Schemes", scheme="ALiBi")
    lines = chart_by_title(default_page, "ALiBi bias against distance")["data"]
    assert len(lines) == 8
    for h, trace in enumerate(lines):
        slope = 2.0 ** (-8.0 * (h + 1) / 8)
        assert np.allclose(decode_array(trace["y"]), -slope * decode_array(trace["x"]), atol=1e-6)
    tiled = decode_array(chart_by_title(default_page, "ALiBi bias per head")["data"][0]["z"])
    head0 = tiled[:12, :12]
    assert np.allclose(head0, -0.5 * np.abs(np.arange(12)[:, None] - np.arange(12)[None, :]), atol=1e-6)


def test_alibis_heads_are_square_maps_under_their_names_and_the_figure_grows_with_their_rows():
    from viz.position_schemes import tiled_heads_figure

    def drawn(heads: int):
        return tiled_heads_figure(np.zeros((heads, 12, 12), np.float32), f"ALiBi bias per head, 12 positions, {heads}")

    eight, sixteen = drawn(8), drawn(16)
    # 4 maps a row, 4 cells between them: 2 rows are 2 * (12 + 4) - 4 = 28 cells, 4 rows 60; 8.5 px a cell,
    # 90 px above (the title, then the heads' names) and 10 below
    assert eight.layout.height == 90 + 10 + round(28 * 8.5) == 338
    assert sixteen.layout.height == 90 + 10 + round(60 * 8.5) == 610
    assert eight.layout.margin.t == 90  # the names of the top row have their own strip under the title
    assert eight.layout.yaxis.scaleanchor == "x" and eight.layout.yaxis.scaleratio == 1  # square cells
    # the browser wraps the grid to fewer maps a row where one would be narrower than 90 px
    assert eight.layout.meta["tiles"]["min_px"] == 90 and eight.layout.meta["tiles"]["gap"] == 4


def test_the_schemes_are_square_panels_side_by_side_under_names_of_up_to_three_lines():
    spec = chart_by_title(section("Schemes"), "Position term between query m and key n")
    layout = spec["layout"]
    assert layout["height"] == 130 + 48 + 130 and layout["margin"]["t"] == 130
    for suffix in ["", "2", "3", "4", "5"]:
        assert layout[f"yaxis{suffix}"]["scaleanchor"] == f"x{suffix}"  # each panel square
        assert layout[f"yaxis{suffix}"]["constraintoward"] == "top"  # under its name
    assert max(note["text"].count("<br>") for note in layout["annotations"]) == 2


def test_on_a_phone_the_stacked_schemes_have_names_of_two_lines():
    """A phone stacks the panels, each as wide as the screen: a third line of a name would reach the panel above."""
    at = section("Schemes")
    at.session_state[COMPACT] = True
    at.run()
    assert_no_exception(at)
    layout = chart_by_title(at, "Position term between query m and key n")["layout"]
    names = [note["text"] for note in layout["annotations"]]
    assert "learned (untrained)<br>P<sub>m</sub>·P<sub>n</sub>" in names
    assert max(name.count("<br>") for name in names) == 1


def test_on_a_projector_the_schemes_panels_are_drawn_larger():
    """Five square panels side by side: in the page's width on a projector each is 180 px tall, not a laptop
    column's 130 (about 95 px after the projector's larger fonts took their room)."""
    from ui.screen import PRESENT

    def plot_px(at) -> int:
        layout = chart_by_title(at, "Position term between query m and key n")["layout"]
        return layout["height"] - layout["margin"]["t"] - layout["margin"]["b"]

    at = section("Schemes")
    laptop = plot_px(at)
    at.session_state[PRESENT] = True
    at.run()
    assert_no_exception(at)
    assert (laptop, plot_px(at)) == (130, 180)


def test_the_learned_tables_similarity_title_reads_its_drawn_diagonals():
    """An untrained table's rows are random: the title names what its diagonals hold, nothing about distance."""
    spec = chart_by_title(section("Schemes", scheme="Learned"), "P[p]·P[q] between positions")
    sim = decode_array(spec["data"][0]["z"]).astype(np.float64)
    means = [np.mean([sim[p, p + k] for p in range(len(sim) - k)]) for k in range(len(sim))]
    lowest = 1 + min(range(len(sim) - 1), key=lambda k: means[1 + k])
    assert title_text(spec) == (
        f"P[p]·P[q] between positions: {means[0]:.1f} where p = q, {means[1]:.1f} one apart, lowest "
        f"{means[lowest]:.1f} at {lowest} apart (means along the diagonals)"
    )
