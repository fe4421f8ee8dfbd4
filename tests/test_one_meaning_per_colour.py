"""One meaning per colour: a head's colour means that head. A series that is not a head (a loss, a token's norm, a
cost, a decoder's scores, a role) takes no head's colour: the neutral grey told apart by dash, marker, pattern or its
name, the accent and grey for "this one" and "the other one", or, for the heads' roles, light tints of its own."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.test_colours import _closest
from viz.labels import spread_apart
from viz.style import ACCENT, HEAD_COLORS, HEAD_TEXT_COLORS, MASKED_COLOR, NEUTRAL, OTHER_COLOR
from tests.app_figures import SHARES_EVERY_FIGURE

pytestmark = SHARES_EVERY_FIGURE

HEADS = {colour.lower() for colour in HEAD_COLORS}
HEADS_TEXT = HEADS | {colour.lower() for colour in HEAD_TEXT_COLORS}
NAMES_A_HEAD = re.compile(r"\bhead \d+")


def _colours(colour) -> set[str]:
    return {c.lower() for c in (colour if isinstance(colour, list) else [colour]) if isinstance(c, str)}


def _colours_drawn(trace: dict, default: str) -> set[str]:
    """The colours a trace draws its marks in: its marker's, its marker's outline, its line's, its fill's and its
    text's; a scatter or bar with neither a marker nor a line colour takes the colour cycle's ``default``."""
    marker, line = trace.get("marker") or {}, trace.get("line") or {}
    found = _colours(marker.get("color")) | _colours(line.get("color"))
    if not found and trace.get("type", "scatter") in ("scatter", "bar") and trace.get("mode") != "text":
        found.add(default.lower())
    found |= _colours((marker.get("line") or {}).get("color")) | _colours(trace.get("fillcolor"))
    return found | _colours((trace.get("textfont") or {}).get("color"))


def test_every_chart_the_app_draws_gives_a_head_colour_to_heads_only():
    from tests.app_figures import every_figure_the_app_draws

    misused, checked = set(), 0
    for page, section, _, spec in every_figure_the_app_draws():
        cycle = spec["layout"].get("template", {}).get("layout", {}).get("colorway") or ["#000000"]
        for index, trace in enumerate(spec["data"]):
            checked += 1
            said = f"{trace.get('name') or ''} {trace.get('hovertemplate') or ''} {trace.get('legendgroup') or ''}"
            if _colours_drawn(trace, cycle[index % len(cycle)]) & HEADS and not NAMES_A_HEAD.search(said):
                misused.add((page, section, trace.get("type"), trace.get("name")))
            scale = trace.get("colorscale")  # a scale of its own: no head's colour among its stops
            if isinstance(scale, list) and {str(c).lower() for _, c in scale} & HEADS:
                misused.add((page, section, "colour scale", trace.get("name")))
        for note in spec["layout"].get("annotations", []):  # text in a head's colour names that head
            if _colours((note.get("font") or {}).get("color")) & HEADS_TEXT and not NAMES_A_HEAD.search(note["text"]):
                misused.add((page, section, "annotation", note["text"][:30]))
    assert checked > 500 and not misused, sorted(misused)


def test_the_role_fills_stay_apart_from_each_other_and_from_every_colour_that_means_something_else():
    from viz.pretrained import NO_ROLE_COLOR, ROLE_FILLS

    from analysis.head_roles import ROLES

    assert len(ROLE_FILLS) == len(ROLES)
    assert _closest(ROLE_FILLS) >= 15
    from tests.test_colours import _linear
    from viz.pretrained import role_grid_figure

    def luminance(colour: str) -> float:
        return float(np.dot([0.2126, 0.7152, 0.0722], _linear(colour)))

    grid = role_grid_figure(
        np.zeros((2, 3, 5)), np.array([[0, 1, 2], [3, 4, 5]]), (*ROLES, "none"), "t: 2", np.zeros((2, 3))
    )
    lines = grid.layout.plot_bgcolor  # between the cells: each fill stands 3:1 against it (WCAG 1.4.11)
    assert grid.data[0].xgap >= 2 and grid.data[0].ygap >= 2
    assert all((luminance(fill) + 0.05) / (luminance(lines) + 0.05) >= 3 for fill in (*ROLE_FILLS, NO_ROLE_COLOR))
    assert _closest(ROLE_FILLS, (*HEAD_COLORS, ACCENT, NEUTRAL, OTHER_COLOR, NO_ROLE_COLOR, MASKED_COLOR)) >= 10


def test_two_series_that_are_not_heads_are_told_apart_by_dash_marker_and_pattern():
    from viz.alignment import quality_bars
    from viz.generation import lines

    drawn = lines(np.arange(3), {"with": np.ones(3), "without": np.arange(3.0)}, "t: 2", "x", "y")
    assert {trace.line.color for trace in drawn.data} == {NEUTRAL}
    assert (
        len({trace.line.dash for trace in drawn.data}) == 2 and len({trace.marker.symbol for trace in drawn.data}) == 2
    )
    bars = quality_bars(["greedy", "beam 4"], [20.0, 22.0], [40.0, 41.0], "t: 2")
    assert {trace.marker.color for trace in bars.data} == {NEUTRAL}
    assert [trace.marker.pattern.shape for trace in bars.data] == ["", "/"]


def test_labels_move_apart_the_least_that_keeps_them_a_gap_apart_in_order():
    assert np.allclose(spread_apart([0.0, 0.0], 1.0), [-0.5, 0.5])
    assert np.allclose(spread_apart([3.0, 0.0, 0.0, 0.0], 1.0), [3.0, -1.0, 0.0, 1.0])
    assert np.allclose(spread_apart([0.0, 0.1, 5.0], 1.0), [-0.45, 0.55, 5.0])  # the pair pools, 5 stays
    assert np.allclose(spread_apart([1.0, 4.0, 2.0], 0.5), [1.0, 4.0, 2.0])  # already apart: unmoved
    rng = np.random.default_rng(0)
    values = rng.normal(size=40)
    places = spread_apart(values, 0.2)
    order = np.argsort(values, kind="stable")
    assert np.all(np.diff(places[order]) >= 0.2 - 1e-9)
    # the least squares: no pool of neighbours can move together to come closer to its values
    assert abs(float(np.sum(places - values))) < 1e-9  # a shift of all of them would otherwise help
    bounded = spread_apart([0.0, 0.0, 0.0, 9.9], 1.0, low=0.5, high=10.0)  # held within the axis
    assert np.allclose(bounded, [0.5, 1.5, 2.5, 9.9])
    assert np.allclose(spread_apart([10.0, 10.0, 10.0], 1.0, low=0.0, high=10.0), [8.0, 9.0, 10.0])


def test_one_layers_lines_are_grey_and_each_names_its_token_where_the_tokens_differ_most():
    from viz.layer_steps import LABEL_GAP_PX, TITLE_AND_STEPS_PX, residual_norms_figure

    tokens = ["the", "cat", "sat", "on", "a", "mat"]
    norms = np.array([[1.0] * 6, [2.0, 2.01, 2.02, 2.0, 5.0, 2.03], [1.0] * 6], np.float32)
    figure = residual_norms_figure(["input", "after attention", "LayerNorm"], norms, tokens, "t: 2")
    lines, names = figure.data[:-1], figure.data[-1]
    assert {trace.line.color for trace in lines} == {NEUTRAL} and not any(trace.showlegend for trace in lines)
    assert list(names.text) == tokens and np.allclose(names.x, 1.1)  # step 2, where they differ
    low, high = figure.layout.yaxis.range
    px_per_unit = (figure.layout.height - TITLE_AND_STEPS_PX) / (high - low)
    ends = {token: float(norms[1, i]) for i, token in enumerate(tokens)}
    places = dict(zip(names.text, names.y))
    assert abs(places["a"] - ends["a"]) < 1e-6  # a name far from the others sits at its point
    steps = np.diff(np.sort(np.array(list(places.values())))) * px_per_unit
    assert np.all(steps >= LABEL_GAP_PX - 1e-3)
    assert figure.layout.margin.r == 10  # the names sit inside the plot
    last = residual_norms_figure(["input", "after attention"], norms[:2], tokens, "t: 2")
    assert np.allclose(last.data[-1].x, 1.1) and last.layout.margin.r >= 24 + 0.6 * 14 * 3  # right of the plot


def test_a_models_scores_before_and_after_its_heads_are_knocked_out_are_grey_and_the_accent():
    from viz.alignment import quality_bars

    bars = quality_bars(["intact", "knocked out"], [30.0, 20.0], [50.0, 40.0], "t: 2", before_after=True)
    assert [trace.marker.color for trace in bars.data] == [OTHER_COLOR, ACCENT]


@pytest.mark.parametrize("crowded", ["all zero", "all at the top"])
def test_one_layers_token_names_stay_apart_and_on_the_axis_where_the_lines_bunch(crowded):
    from viz.layer_steps import LABEL_GAP_PX, TITLE_AND_STEPS_PX, residual_norms_figure

    tokens = [f"t{i}" for i in range(20)]
    norms = np.zeros((2, 20), np.float32) if crowded == "all zero" else np.array([[1.0] * 20, [9.0] * 19 + [2.0]])
    figure = residual_norms_figure(["input", "output"], norms, tokens, "t: 2")
    low, high = figure.layout.yaxis.range
    places = np.sort(np.asarray(figure.data[-1].y, np.float64))
    px_per_unit = (figure.layout.height - TITLE_AND_STEPS_PX) / (high - low)
    assert np.all(np.diff(places) * px_per_unit >= LABEL_GAP_PX - 1e-3)
    assert low <= places[0] and places[-1] <= high
