"""The lesson on writing text ("Writing one token at a time"): what its notes and answers claim, checked on the
drawn data of each view (and of the setting its question asks about) against the property they state."""

from __future__ import annotations

import re

import numpy as np

from tests.apptest_helpers import chart_by_title, decode_array, run_page
from tests.lesson_views import lesson_of, link_query, open_view

CUT = "#c8c8c8"


def bars_of(at) -> tuple[np.ndarray, list[str], np.ndarray]:
    """The distribution's bar lengths, colours and black marks (the renormalised probabilities) as drawn (the bars
    are horizontal: a probability is a length across)."""
    spec = chart_by_title(at, "softmax(z / τ)")
    bars, marks = spec["data"][0], spec["data"][1]
    return (
        decode_array(bars["x"]).astype(float),
        list(bars["marker"]["color"]),
        decode_array(marks["x"]).astype(float),
    )


def with_setting(step: int, **settings):
    lesson = lesson_of("writing")
    return run_page(f"pages/{lesson.views[step].page}/page.py", {**link_query(lesson, step), **settings})


def test_a_lower_temperature_makes_the_tallest_bar_taller():
    at_one, _, _ = bars_of(open_view("writing", 0))
    at_half, _, _ = bars_of(with_setting(0, t="0.5"))
    assert at_half[0] > at_one[0]
    assert at_one[:-1].tolist() == sorted(at_one[:-1], reverse=True)  # most probable first


def test_top_k_keeps_three_tokens_whose_marks_add_up_to_one():
    heights, colours, marks = bars_of(open_view("writing", 1))
    kept = [i for i, colour in enumerate(colours[:-1]) if colour != CUT]
    assert len(kept) == 3
    np.testing.assert_allclose(marks[kept].sum(), 1.0, atol=1e-4)
    assert np.allclose(marks[[i for i in range(len(marks)) if i not in kept]], 0.0)


def test_top_p_keeps_a_number_of_tokens_that_changes_from_step_to_step():
    counts = []
    for token in range(1, 13):
        title = chart_by_title(with_setting(2, token=str(token)), "softmax(z / τ)")["layout"]["title"]["text"]
        kept, total = map(int, re.search(r"(\d+) of\s*(\d+) tokens kept", title).groups())
        counts.append(kept)
        heights, colours, _ = bars_of(with_setting(2, token=str(token)))
        kept_mass = heights[[i for i, colour in enumerate(colours[:-1]) if colour != CUT]].sum()
        assert kept_mass >= 0.5 - 1e-6  # at least p
    assert len(set(counts)) > 1, counts


def test_the_beam_tree_keeps_at_most_three_texts_a_token_and_three_somewhere():
    spec = chart_by_title(open_view("writing", 3), "The beam search's tree")
    ranks = np.concatenate(
        [
            decode_array(trace["y"]).astype(float)
            for trace in spec["data"]
            if trace.get("mode") in ("markers", "markers+text")
        ]
    )
    assert ranks.max() == 3 and ranks.min() == 1


def test_the_cache_grows_linearly_with_the_tokens():
    spec = chart_by_title(open_view("writing", 4), "The cache grows by one K and V per token")
    kib = decode_array(spec["data"][0]["y"]).astype(float)
    steps = np.diff(kib)
    np.testing.assert_allclose(steps, steps[0], rtol=1e-6)  # a straight line: the same step for every token
    assert steps[0] > 0
