"""The Start here course and the lessons added with it (why attention, the layer, cross-attention): each new view's
'what to notice', checked on the numbers its page draws."""

from __future__ import annotations

import html
import math

import numpy as np
import pytest

from tests.apptest_helpers import chart_by_title, decode_array, run_page, tiles_of, title_text
from tests.lesson_views import lesson_of, link_query, open_view, sinusoid, trace, z_of

COURSE = lesson_of("start")


def test_text_becomes_tokens_and_no_merges_gives_a_token_a_letter_and_an_end_a_word():
    at = open_view("start", 0)
    spec = chart_by_title(at, "Your sentence as tokens, cut four ways (BPE after 200 merges)")
    labels = [html.unescape(t) for t in spec["layout"]["yaxis"]["ticktext"]]
    assert labels == ["characters · 17", "words · 6", "BPE · 9", "WordPiece · 6"]  # 17 letters, 6 words
    assert title_text(spec).endswith(": BPE needs 9 pieces, 8 fewer than the characters and 3 more than the words")
    bars = sorted(
        (int(y), float(b), html.unescape(text))
        for t in spec["data"]
        for y, b, text in zip(decode_array(t["y"]), decode_array(t["base"]), t["text"])
    )
    bpe = [text for y, _, text in bars if y == 2]  # the row of BPE pieces
    assert bpe == ["the</w>", "c", "at</w>", "s", "at</w>", "on</w>", "the</w>", "m", "at</w>"]
    growth = chart_by_title(at, "As the merges grow")
    pieces = decode_array(next(t for t in growth["data"] if t["name"] == "BPE")["y"])
    vocabulary = decode_array(next(t for t in growth["data"] if t["name"] == "vocabulary")["y"])
    assert COURSE.views[0].ask.value == pieces[0] == 17 + 6  # the question: no merges, a token a letter + a </w> a word
    assert pieces[200] == 9 and vocabulary[0] == 52 and vocabulary[200] == 52 + 200
    assert title_text(growth).endswith(": after 200, your sentence 23 → 9 tokens, the vocabulary 52 → 252 pieces")


def test_tokens_become_vectors_and_the_same_word_differs_only_by_its_position():
    x = z_of(chart_by_title(open_view("start", 1), "X: token vectors + PE · 6 × 16"))
    assert x.shape == (6, 16)
    np.testing.assert_allclose(x[0] - x[4], sinusoid(0, 16) - sinusoid(4, 16), atol=1e-4)  # 'the' at 0 and at 4
    at = run_page("pages/self_attention/page.py", {**link_query(COURSE, 1), "pe": "none"})
    plain = z_of(chart_by_title(at, "X: token vectors · 6 × 16"))
    np.testing.assert_allclose(plain[0], plain[4], atol=1e-6)


def test_queries_keys_and_values_are_three_different_t_by_d_k_matrices():
    at = open_view("start", 2)
    assert any("d_k = d_model / h = 16 / 2 = 8" in c.value for c in at.caption)
    q, k, v = tiles_of(chart_by_title(at, "Queries, keys and values · each 11 × 8"), 3, (11, 8))
    assert min(np.abs(q - k).max(), np.abs(k - v).max(), np.abs(q - v).max()) > 0.1


def test_scores_have_both_signs_and_the_softmax_rows_are_positive_and_sum_to_one():
    at = open_view("start", 3)
    raw, scaled = z_of(chart_by_title(at, "Raw scores Q Kᵀ · 11 × 11")), z_of(chart_by_title(at, "Scaled scores"))
    weights = z_of(chart_by_title(at, "Attention weights A"))
    assert raw.shape == (11, 11) and raw.min() < 0 < raw.max()
    np.testing.assert_allclose(scaled, raw / math.sqrt(8), rtol=1e-4, atol=1e-5)
    expected = np.exp(scaled - scaled.max(1, keepdims=True))
    np.testing.assert_allclose(weights, expected / expected.sum(1, keepdims=True), atol=1e-4)
    assert ((weights > 0) & (weights < 1)).all()


def test_the_output_of_it_is_the_weighted_sum_of_the_values():
    at = open_view("start", 4)
    bar = trace(chart_by_title(at, "Row 8 of A: how “it” attends"))
    weights = decode_array(bar["y"]).astype(np.float64)
    assert set(np.argsort(weights)[-2:]) == {4, 9}  # 'the' (position 5) and 'too'
    terms = z_of(chart_by_title(at, "out[it]"))
    np.testing.assert_allclose(terms[:-1].sum(0), terms[-1], atol=1e-4)
    np.testing.assert_allclose(terms[-1], z_of(chart_by_title(at, "Output A V · 11 × 8"))[7], atol=1e-4)


def measured(at, name: str) -> tuple[np.ndarray, np.ndarray]:
    spec = chart_by_title(at, "Connecting n tokens")
    line = next(t for t in spec["data"] if t["name"] == name)
    return decode_array(line["x"]).astype(np.float64), decode_array(line["y"]).astype(np.float64)


def test_why_attention_one_step_against_n_minus_one():
    at = open_view("why-attention", 0)
    n, steps = measured(at, "recurrence: n − 1 steps")
    np.testing.assert_array_equal(steps, n - 1)
    np.testing.assert_array_equal(measured(at, "self-attention: 1 step")[1], 1)


def test_why_attention_draws_both_layers_times_and_counts_the_scores_of_the_longest():
    """The view's measured times (their slopes, a timing, are measured by bench/attention_cost.py) are drawn for
    both layers at the same lengths, positive and finite, and the caption counts n² scores at the longest n."""
    at = open_view("why-attention", 1)
    lengths, attention = measured(at, "self-attention: measured")
    recurrence_lengths, recurrence = measured(at, "recurrence: measured")
    np.testing.assert_array_equal(lengths, recurrence_lengths)
    assert np.isfinite([*attention, *recurrence]).all() and (attention > 0).all() and (recurrence > 0).all()
    longest = int(lengths[-1])
    assert any(f"one head computes {longest * longest:,} scores" in c.value for c in at.caption)


def stage_norms(at) -> dict[str, np.ndarray]:
    """The norms figure as {stage name: norm of each token [T]}."""
    spec = chart_by_title(at, "vector norm of each token after each step")
    stages = spec["layout"]["xaxis"]["ticktext"]
    tokens = np.stack(
        [decode_array(t["y"]).astype(np.float64) for t in spec["data"] if t["mode"] != "text"], axis=1
    )  # [S, T]
    return dict(zip(stages, tokens))


def test_the_residual_add_is_longer_than_its_parts_and_layernorm_gives_one_norm():
    norms = stage_norms(open_view("layer", 0))
    stream, update = norms["input x"], norms["attention output"]
    assert (norms["x + attention"] > np.maximum(stream, update)).all()
    for name in ("LayerNorm 1", "LayerNorm 2 = output"):
        np.testing.assert_allclose(norms[name], math.sqrt(64), rtol=1e-3)  # mean 0, std 1 over 64 features


def test_about_half_of_the_256_feed_forward_units_fire_for_each_token():
    spec = chart_by_title(open_view("layer", 2), "ReLU: a token fires")
    fractions = decode_array(trace(spec)["y"]).astype(np.float64)
    assert title_text(spec).endswith(
        f"a token fires {fractions.mean():.0%} of the 256 feed-forward units on average "
        f"({fractions.min():.0%} to {fractions.max():.0%})"
    )
    top = spec["layout"]["yaxis"]["range"][1]  # the axis reaches past the tallest bar, by less than 10 %
    assert fractions.max() < top <= fractions.max() + 0.1 and top == pytest.approx(round(top, 1))
    np.testing.assert_allclose(fractions * 256, np.round(fractions * 256), atol=1e-3)  # counts of d_ff = 256 units
    assert ((fractions > 0.35) & (fractions < 0.65)).all(), fractions


def test_pre_ln_normalises_the_copies_and_the_stream_grows():
    norms = stage_norms(open_view("layer", 3))
    for name in ("LayerNorm 1", "LayerNorm 2"):
        np.testing.assert_allclose(norms[name], math.sqrt(64), rtol=1e-3)
    assert (norms["x + feed-forward = output"] > norms["input x"]).all()


def test_the_cross_attention_mask_is_target_by_source_and_hides_only_the_source_pads():
    spec = chart_by_title(open_view("cross-attention", 0), "Cross-attention mask: 2 target × 6 source")
    allowed = z_of(spec) > 0.5
    pads = np.array([label == "&lt;pad&gt;" for label in spec["layout"]["xaxis"]["ticktext"]])
    assert allowed.shape == (2, 6) and allowed.sum() == 6 and pads.sum() == 3
    assert (allowed == ~pads).all()  # the same in every row: every real source token, no pad


def cross_tiles(at, layer: int) -> tuple[list[str], list[str], list[np.ndarray]]:
    spec = chart_by_title(at, f"Layer {layer} · all 4 heads · encoder-decoder cross-attention")
    rows, cols = spec["layout"]["yaxis"]["ticktext"], spec["layout"]["xaxis"]["ticktext"]
    return rows, cols, tiles_of(spec, 4, (len(rows), len(cols)))


def test_a_longer_source_widens_the_maps_and_keeps_the_rows():
    rows, cols, tiles = cross_tiles(open_view("cross-attention", 2), 1)
    short_rows, short_cols, _ = cross_tiles(open_view("cross-attention", 1), 1)
    assert cols == "the black cat sat on the old mat".split() and len(short_cols) == 6
    assert rows == short_rows and len(rows) == 7 and rows[0] == "&lt;s&gt;"
    for tile in tiles:
        np.testing.assert_allclose(tile.sum(1), 1.0, atol=3e-3)


def test_every_decoder_layer_reads_the_same_source_through_its_own_weights():
    rows, cols, tiles = cross_tiles(open_view("cross-attention", 3), 2)
    first_rows, first_cols, first = cross_tiles(open_view("cross-attention", 1), 1)
    assert (rows, cols) == (first_rows, first_cols)
    assert max(np.abs(a - b).max() for a, b in zip(tiles, first)) > 0.01
