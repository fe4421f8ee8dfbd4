"""``viz.generation.lines``: a marker at each measured point while the points are few, a plain line past that."""

import numpy as np

from viz.generation import MARKED_POINTS, lines


def _modes(points: int) -> list[str]:
    x = np.arange(1, points + 1)
    fig = lines(x, {"a": x * 0.5, "b": x * 2.0}, "title", "x", "y")
    return [trace.mode for trace in fig.data]


def test_a_few_measured_points_each_carry_a_marker():
    assert _modes(8) == ["lines+markers", "lines+markers"]
    assert _modes(MARKED_POINTS) == ["lines+markers", "lines+markers"]


def test_a_thousand_steps_are_drawn_as_a_line_without_a_marker_per_step():
    assert _modes(MARKED_POINTS + 1) == ["lines", "lines"]
    assert _modes(1000) == ["lines", "lines"]
