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
    layer, head = np.unravel_index(int(grid.argmax()), grid.shape)
    answer = LESSON.views[1].answer
    assert f"{100 * grid.max():.0f} %" in answer and f"layer {layer + 1}'s head {head + 1}" in answer
    assert f"{round(grid.max() * 38)} of the 38 linked" in answer  # 38 linked French words in the eight pairs
    others = np.delete(grid[layer], head)
    assert f"other heads of layer {layer + 1} agree on {100 * others.min():.0f}-{100 * others.max():.0f} %" in answer
    assert f"layer 1 on {100 * grid[0].min():.0f}-{100 * grid[0].max():.0f} %" in answer
    assert layer == grid.shape[0] - 1  # "sit in the last layer"


def test_the_word_rouge_reads_the_answers_english_word():
    at = open_view("translation", 2)
    spec = chart_by_title(at, "J'ai une voiture rouge.")
    z = decode_array(spec["data"][0]["z"]).astype(float)
    rows = spec["layout"]["yaxis"]["ticktext"]
    cols = spec["layout"]["xaxis"]["ticktext"]
    rouge, voiture = z[rows.index("rouge.")], z[rows.index("voiture")]
    assert cols[int(rouge.argmax())] == LESSON.views[2].ask.solution
    answer = LESSON.views[2].answer
    assert f"({rouge.max():.2f} of its weight)" in answer and f"“car.” ({voiture.max():.2f})" in answer
    assert cols[int(voiture.argmax())] == "car."


def test_the_higher_bleu_is_the_answers():
    at = open_view("translation", 3)
    title = chart_specs(at)[0]["layout"]["title"]["text"]
    beam, greedy = (float(v) for v in re.search(r"BLEU ([\d.]+) with 4 beams, ([\d.]+) greedy", title).groups())
    assert LESSON.views[3].ask.solution == ("Beam search, 4 beams" if beam >= greedy else "Greedy decoding")
    answer = LESSON.views[3].answer
    assert f"({greedy:.1f} against {beam:.1f})" in answer
    caption = " ".join(c.value for c in at.caption)
    whole = re.search(r"On all ([\d,]+) held-out sentences .*?BLEU ([\d.]+) with 4 beams, ([\d.]+) greedy", caption)
    assert (
        f"On all {whole[1]} held-out sentences it is the other way round, {whole[2]} with 4 beams against {whole[3]}"
        in answer
    )
    assert "One translation runs on" in caption
    table = at.dataframe[0].value
    row = table[table["English (held out)"] == "You are stupid."].iloc[0]
    assert row["beam search, 4 beams"] == "Tu es idiot." and "Tu es stupide." in row["references"]


def test_bleu_without_the_last_layers_cross_attention_is_the_answers():
    at = open_view("translation", 4)
    title = chart_specs(at)[0]["layout"]["title"]["text"]
    before, after = (float(v) for v in re.search(r"BLEU ([\d.]+) → ([\d.]+)", title).groups())
    expected = (
        "It falls by more than half" if after < before / 2 else "It barely moves" if abs(after - before) < 2 else None
    )
    assert LESSON.views[4].ask.solution == expected
