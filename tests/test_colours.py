"""One meaning per colour: what a figure singles out (the token drawn, the beam's text, a highlighted position or
bar, the run after a knock-out) is orange, never the red of the diverging scale's positive half."""

import numpy as np

from viz.encoder_decoder import top_k_bars
from viz.experiments import position_bars
from viz.generation import beam_tree, distribution_bars

ORANGE, RED = "#e69f00", "#d62728"


def test_the_token_drawn_is_orange_among_blue_and_grey_bars():
    probabilities = np.array([0.5, 0.3, 0.2], dtype=np.float32)
    figure = distribution_bars(["a", "b", "c"], probabilities, probabilities, np.array([True, True, False]), 1, "t")
    colours = list(figure.data[0].marker.color)
    assert colours.count(ORANGE) == 1 and RED not in colours


def test_the_beams_text_is_drawn_orange():
    figure = beam_tree([0, 0, 1], [-1, -1, 0], ["a", "b", "c"], [-0.1, -0.5, -0.3], {0, 2}, "tree")
    strong = [trace for trace in figure.data if trace.mode == "lines" and trace.line.color == ORANGE]
    assert strong and not [trace for trace in figure.data if trace.mode == "lines" and trace.line.color == RED]


def test_a_highlighted_bar_or_position_is_orange():
    bars = top_k_bars(["x", "y", "z"], np.array([0.6, 0.3, 0.1]), "top", highlight=1)
    assert list(bars.data[0].marker.color).count(ORANGE) == 1
    positions = position_bars(np.array([1.0, 2.0, 3.0]), ["a", "b", "c"], "p", "v", highlight=[2])
    assert list(positions.data[0].marker.color)[2] == ORANGE and RED not in positions.data[0].marker.color
