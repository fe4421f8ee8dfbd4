"""The lesson on what models are trained to do: each view's note and answer checked on the data it draws."""

from __future__ import annotations

import re

import numpy as np

from tests.apptest_helpers import chart_by_title, decode_array, run_page
from tests.lesson_views import lesson_of, link_query, open_view


def test_the_first_letter_of_a_word_costs_more_than_the_letters_inside_it():
    at = open_view("objectives", 0)
    prompt = lesson_of("objectives").views[0].settings["prompt"]
    losses = decode_array(chart_by_title(at, "−log p of each token")["data"][0]["y"]).astype(float)
    assert len(losses) == len(prompt) - 1  # one token a character; bar i scores character i + 1
    first = [losses[i - 1] for i in range(1, len(prompt)) if prompt[i - 1] == " " and prompt[i] != " "]
    inside = [losses[i - 1] for i in range(1, len(prompt)) if prompt[i - 1] != " " and prompt[i] != " "]
    spaces = [losses[i - 1] for i in range(1, len(prompt)) if prompt[i] == " "]
    assert len(first) >= 5 and np.mean(first) > 3 * np.mean(inside)  # "more than three times as much"
    assert np.argmax(losses) not in [i - 1 for i in range(1, len(prompt)) if prompt[i - 1] == " "]  # the tallest bar
    caption = " ".join(c.value for c in at.caption)
    stated = re.search(
        r"On average a bar is ([\d.]+) at first letters of words, ([\d.]+) at letters inside words "
        r"and ([\d.]+) at spaces\.",
        caption,
    )
    assert stated, caption
    assert [float(v) for v in stated.groups()] == [round(float(np.mean(m)), 2) for m in (first, inside, spaces)]
    # BERT's recipe (Devlin et al. 2019): 15 % of the tokens chosen, 80 % of those put behind [MASK]
    assert "about 15% of the tokens are chosen, and 80% of those (about 12% of all) are put behind [MASK]" in caption
    assert "puts 80 % of those (about 12 % of all) behind [MASK]" in lesson_of("objectives").views[0].answer


def test_the_hidden_first_letter_of_a_word_is_far_more_probable_read_from_both_sides():
    at = open_view("objectives", 1)
    view = lesson_of("objectives").views[1]
    prompt, position = view.settings["prompt"], int(view.settings["blank"])
    assert prompt[position - 2 : position + 2] == " one"[:4] and prompt[position - 1] == "o"
    guesses = chart_by_title(at, "which character is hidden?")
    assert "the text _ne token" in guesses["layout"]["title"]["text"]
    bars = {trace["name"]: dict(zip(trace["x"], decode_array(trace["y"]).astype(float))) for trace in guesses["data"]}
    both, left = bars["both sides (masked model)"]["o (hidden)"], bars["left only (next-token model)"]["o (hidden)"]
    assert round(both, 2) == 0.98 and round(left, 2) == 0.09  # the answer's numbers
    losses = chart_by_title(at, "Each token hidden in turn")
    both_loss, left_loss = (decode_array(trace["y"]).astype(float) for trace in losses["data"])
    gaps = left_loss - both_loss[1:]  # token i + 2's gap, for i = 0 .. L - 2
    assert (gaps > 0).mean() > 0.5  # "at most positions"
    starts = [i for i in range(len(gaps)) if prompt[i] == " " and prompt[i + 1] != " "]
    inside = [i for i in range(len(gaps)) if prompt[i] != " " and prompt[i + 1] != " "]
    assert np.mean(gaps[starts]) > 2 * np.mean(gaps[inside])  # "largest at the first letters of words"


def in_batch_loss(at) -> tuple[float, int]:
    p = decode_array(chart_by_title(at, "Which second sentence each first one picks")["data"][0]["z"]).astype(float)
    return float(-np.log(np.diag(p)).mean()), len(p)


def test_a_scale_of_one_raises_the_contrastive_loss_towards_log_n():
    lesson = lesson_of("objectives")
    at_default, pairs = in_batch_loss(open_view("objectives", 2))
    at_one, _ = in_batch_loss(run_page("pages/pretrained/page.py", {**link_query(lesson, 2), "scale": "1"}))
    assert at_default < at_one < np.log(pairs)
    assert at_one > 0.5 * np.log(pairs)


def test_the_papers_rate_peaks_at_the_end_of_the_warm_up():
    spec = chart_by_title(open_view("objectives", 3), "The learning rate at each step")
    paper = next(trace for trace in spec["data"] if trace["name"] == "the paper's schedule")
    steps, rates = decode_array(paper["x"]).astype(float), decode_array(paper["y"]).astype(float)
    assert steps[np.argmax(rates)] == 50
    assert np.isclose(rates.max(), 1 / np.sqrt(64) / np.sqrt(50), rtol=1e-6)  # d_model^-0.5 · warmup^-0.5
    assert round(rates.max(), 3) == 0.018 and round(512**-0.5 * 4000**-0.5, 4) == 0.0007
