"""The lesson "A Transformer that translates": each step's question and answer against what its view draws."""

from __future__ import annotations

import re

import numpy as np

from tests.apptest_helpers import chart_by_title, chart_specs, decode_array
from tests.lesson_views import lesson_of, open_view
from transformer import translation_split

LESSON = lesson_of("translation")


def test_the_summary_counts_the_training_pairs():
    pairs = len(translation_split().train)
    assert 70_500 <= pairs < 71_500 and "71,000 English-French sentence pairs" in LESSON.summary


def test_each_row_of_the_alignment_is_a_distribution_over_the_english_words():
    view = LESSON.views[0]
    assert view.ask.solution.startswith("The English words")
    at = open_view("translation", 0)
    spec = chart_by_title(at, "Cross-attention (all layers, mean of heads)")
    z = decode_array(spec["data"][0]["z"]).astype(float)
    np.testing.assert_allclose(z.sum(axis=1), 1.0, atol=1e-5)
    english = [t.replace("&#x27;", "'") for t in spec["layout"]["xaxis"]["ticktext"]]
    assert english == view.settings["src"].split()


def test_the_best_heads_share_is_the_answer():
    at = open_view("translation", 1)
    grid = decode_array(chart_specs(at)[0]["data"][0]["z"]).astype(float)
    assert abs(100 * grid.max() - LESSON.views[1].ask.value) <= LESSON.views[1].ask.tolerance
    assert f"{grid.max():.0%}" in LESSON.views[1].answer


def test_the_word_rouge_reads_the_answers_english_word():
    at = open_view("translation", 2)
    spec = chart_by_title(at, "J'ai une voiture rouge.")
    z = decode_array(spec["data"][0]["z"]).astype(float)
    rows = spec["layout"]["yaxis"]["ticktext"]
    cols = spec["layout"]["xaxis"]["ticktext"]
    read = cols[int(z[rows.index("rouge.")].argmax())]
    assert read == LESSON.views[2].ask.solution


def test_the_higher_bleu_is_the_answers():
    at = open_view("translation", 3)
    title = chart_specs(at)[0]["layout"]["title"]["text"]
    beam, greedy = (float(v) for v in re.search(r"BLEU ([\d.]+) with 4 beams, ([\d.]+) greedy", title).groups())
    assert LESSON.views[3].ask.solution == ("Beam search, 4 beams" if beam >= greedy else "Greedy decoding")


def test_bleu_without_the_last_layers_cross_attention_is_the_answers():
    at = open_view("translation", 4)
    title = chart_specs(at)[0]["layout"]["title"]["text"]
    before, after = (float(v) for v in re.search(r"BLEU ([\d.]+) → ([\d.]+)", title).groups())
    expected = (
        "It falls by more than half" if after < before / 2 else "It barely moves" if abs(after - before) < 2 else None
    )
    assert LESSON.views[4].ask.solution == expected
