"""The lesson on positional schemes ("Rotary and ALiBi"): what its notes and answers claim, checked on the drawn
data against the property they state."""

from __future__ import annotations

import numpy as np

from tests.apptest_helpers import chart_by_title, decode_array
from tests.lesson_views import open_view


def diagonal_spreads(matrix: np.ndarray) -> list[float]:
    """For each diagonal n - m = const of a square matrix, the spread of its values."""
    size = matrix.shape[0]
    return [float(np.ptp(np.diagonal(matrix, offset))) for offset in range(-(size - 1), size)]


def test_only_the_untrained_learned_panel_varies_along_its_diagonals():
    spec = chart_by_title(open_view("schemes", 0), "Position term between query m and key n")
    # a panel's name: its lines but the last (the formula), e.g. "learned<br>(untrained)<br>P..." -> "learned (untrained)"
    panels = {
        " ".join(trace["name"].split("<br>")[:-1]): decode_array(trace["z"]).astype(float) for trace in spec["data"]
    }
    assert set(panels) == {"sinusoidal", "learned (untrained)", "rotary", "ALiBi (1 head)", "none"}
    for name, panel in panels.items():
        widest = max(diagonal_spreads(panel))
        if name == "learned (untrained)":
            assert widest > 0.5, widest  # noise: far from one value a diagonal (panels scaled to ±1)
        else:
            assert widest < 1e-3, (name, widest)


def test_after_rope_each_diagonal_holds_one_score():
    at = open_view("schemes", 1)
    scores = decode_array(chart_by_title(at, "after RoPE")["data"][0]["z"]).astype(float)
    assert max(diagonal_spreads(scores)) < 1e-4
    assert np.ptp(scores) > 0.1  # different offsets: different scores


def test_alibi_head_1_has_slope_one_half_the_largest_and_head_8_the_smallest():
    spec = chart_by_title(open_view("schemes", 2), "ALiBi bias against distance")
    slopes = []
    for trace in spec["data"]:
        distance, bias = decode_array(trace["x"]).astype(float), decode_array(trace["y"]).astype(float)
        slopes.append(-bias[-1] / distance[-1])
    assert len(slopes) == 8
    np.testing.assert_allclose(slopes, [2 ** (-8 * h / 8) for h in range(1, 9)], rtol=1e-4)
    assert slopes[0] == max(slopes) and np.isclose(slopes[0], 0.5)
