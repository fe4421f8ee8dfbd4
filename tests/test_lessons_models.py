"""The lessons on whole models (the encoder-decoder, a trained model, the pretrained MiniLM): what their notes
claim, checked on the drawn data against the formula or the property the notes state."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.apptest_helpers import chart_by_title, decode_array, tiles_of
from tests.lesson_views import head_maps, open_view, trace, y_of, z_of


def tiles(spec: dict, count: int, shape: tuple[int, int]) -> list[np.ndarray]:
    return tiles_of(spec, count, shape)


def test_encoder_self_attention_rows_sum_to_one_in_every_head():
    spec = chart_by_title(open_view("encoder-decoder", 0), "all 4 heads · encoder self-attention")
    n = len(spec["layout"]["yaxis"]["ticktext"])
    for tile in tiles(spec, 4, (n, n)):
        assert np.isfinite(tile).all()  # nothing masked
        np.testing.assert_allclose(tile.sum(1), 1.0, atol=3e-3)


def test_masked_decoder_rows_stop_at_their_position_and_the_first_is_one_on_the_start_token():
    spec = chart_by_title(open_view("encoder-decoder", 1), "all 4 heads · decoder masked self-attention")
    labels = spec["layout"]["yaxis"]["ticktext"]
    n = len(labels)
    assert labels[0] == "&lt;s&gt;"
    future = np.triu(np.ones((n, n), dtype=bool), 1)
    masked = tiles_of(spec, 4, (n, n), trace=1)
    for tile, grey in zip(tiles(spec, 4, (n, n)), masked):
        assert (np.nan_to_num(tile[future]) == 0).all() and (grey[future] > 0).all() and (grey[~future] == 0).all()
        np.testing.assert_allclose(np.nan_to_num(tile).sum(1), 1.0, atol=3e-3)
        assert tile[0, 0] == pytest.approx(1.0, abs=1e-3)


def test_cross_attention_is_target_by_source_unmasked_and_sums_to_one_over_the_source():
    spec = chart_by_title(open_view("encoder-decoder", 2), "all 4 heads · encoder-decoder cross-attention")
    rows, cols = spec["layout"]["yaxis"]["ticktext"], spec["layout"]["xaxis"]["ticktext"]
    assert rows[0] == "&lt;s&gt;" and cols == ["the", "cat", "sat", "on", "the", "mat"]
    for tile in tiles(spec, 4, (len(rows), len(cols))):
        assert np.isfinite(tile).all() and (tile > 0).all()
        np.testing.assert_allclose(tile.sum(1), 1.0, atol=3e-3)


def test_layer_norm_gives_mean_zero_and_std_one():
    spec = chart_by_title(open_view("encoder-decoder", 3), "mean and std of each token, before and after LayerNorm")
    for index in range(2):
        np.testing.assert_allclose(y_of(spec, "mean after", index), 0.0, atol=1e-3)
        np.testing.assert_allclose(y_of(spec, "std after", index), 1.0, atol=2e-2)


def test_untrained_output_distribution_is_flat_and_sorted():
    bar = trace(chart_by_title(open_view("encoder-decoder", 4), "top 10 of 4096 next-token probabilities"))
    probabilities = decode_array(bar["x"] if bar.get("orientation") == "h" else bar["y"]).astype(np.float64)
    assert len(probabilities) == 10 and probabilities.sum() <= 1 + 1e-6
    assert sorted(probabilities, reverse=True) in (list(probabilities), list(probabilities[::-1]))
    assert probabilities.max() < 20 / 4096  # untrained: even the most likely of 4096 ids is near uniform


def test_dropout_zeroes_some_weights_and_scales_the_rest_by_one_over_one_minus_p():
    spec = chart_by_title(open_view("encoder-decoder", 5), "before and after dropout (p = 0.3")
    before, after = z_of(spec, "before"), z_of(spec, "after")
    dropped = after == 0
    assert dropped.any() and not dropped.all()
    np.testing.assert_allclose(after[~dropped], before[~dropped] / 0.7, rtol=2e-3, atol=2e-4)


PERIOD = 7  # "x q m v k z b" twice


def test_the_trained_model_has_a_previous_token_head_in_layer_1():
    maps = head_maps(chart_by_title(open_view("trained", 0), "Layer 1 · 2 heads"))
    best = max(np.nan_to_num(np.diagonal(m, offset=-1)).mean() for m in maps)
    assert best > 0.5, best


def test_the_trained_model_has_an_induction_head_in_layer_2_six_tokens_back():
    maps = head_maps(chart_by_title(open_view("trained", 1), "Layer 2 · 2 heads"))
    n = maps[0].shape[0]
    rows = range(PERIOD, n)  # the second copy: token t repeats token t - 7; the next one is t - 6

    def stripe(m, back):
        return np.mean([np.nan_to_num(m[t, t - back]) for t in rows])

    best = max(maps, key=lambda m: stripe(m, PERIOD - 1))
    assert stripe(best, PERIOD - 1) > 0.5, stripe(best, PERIOD - 1)
    assert stripe(best, PERIOD - 1) > 5 * max(stripe(best, PERIOD), stripe(best, PERIOD + 1))  # not 7 or 8 back


def test_the_training_view_opens_on_induction_at_step_zero():
    at = open_view("trained", 2)
    assert at.selectbox(key="task").value == "induction" and at.get("progress")[0].proto.text.startswith("step 0 ")


def test_training_the_induction_task_falls_slowly_then_plunges():
    at = open_view("trained", 2)
    for _ in range(100):  # ten steps a press, until the run reaches its target
        at.button(key="step").click().run()
        if at.session_state["trainer"].done:
            break
    spec = chart_by_title(at, "induction")
    steps, loss = decode_array(trace(spec, "held-out loss")["x"]), y_of(spec, "held-out loss")
    accuracy = y_of(spec, "held-out accuracy")
    drops = -np.diff(loss)
    plunge = int(drops.argmax())  # the largest fall between two evaluations
    assert steps[-1] <= 1000 and accuracy[-1] >= 0.99
    assert plunge >= 3 and steps[plunge] - steps[1] >= 100  # after the first drop, a hundred-odd steps ...
    assert (drops[1:plunge] > -0.05).all() and loss[1] - loss[plunge] > 0.5  # ... of falling ...
    assert drops[1:plunge].max() < drops[plunge] / 3  # ... slowly, then the plunge
    assert accuracy[plunge] < 0.5  # before the plunge, and nearly 1 a few dozen steps later
    reached = int(np.argmax(accuracy >= 0.99))
    assert steps[reached] - steps[plunge] <= 60, (steps[plunge], steps[reached])


def test_many_minilm_heads_park_their_weight_on_cls_and_none_on_sep():
    spec = chart_by_title(open_view("pretrained", 0), "6 layers × 12 heads")
    codes = z_of(spec) / 1000  # weights stored as thousandths
    t = codes.shape[0] // 6
    heads = [codes[l * t : (l + 1) * t, h * t : (h + 1) * t] for l in range(6) for h in range(12)]
    on_cls = np.array([m[:, 0].mean() for m in heads])
    on_sep = np.array([m[:, -1].mean() for m in heads])
    assert 25 <= (on_cls > 0.5).sum() <= 35, (on_cls > 0.5).sum()  # "about 30 of the 72"
    assert on_sep.max() < 0.25


def test_the_strongest_previous_token_head_of_minilm_looks_one_token_back():
    at = open_view("pretrained", 1)
    roles = np.floor(z_of(chart_by_title(at, "strongest role")) * 6).astype(int)  # 5 roles, then "no clear role"
    counts = np.bincount(roles.ravel(), minlength=6)
    assert roles.shape == (6, 12) and counts[:5].max() < 36  # no named role takes half
    assert 30 <= counts[5] <= 42, counts  # "no clear role: about half of the heads on this sentence"
    spec = chart_by_title(at, "the strongest “previous token” head")
    score = float(spec["layout"]["title"]["text"].rsplit("(", 1)[1].rstrip(")"))
    weights = z_of(spec)
    measured = np.diagonal(weights, offset=-1)[1:-1].mean()  # queries after [CLS], before [SEP]
    assert score > 0.5 and math.isclose(measured, score, abs_tol=0.1), (measured, score)


def it_rows(at, layer: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """What “it” attends to in every head of ``layer``: [12, T] for the 'tired' and the 'wide' sentence."""
    if layer != 5:
        at.select_slider(key="cmp_layer").set_value(layer).run()
    spec = chart_by_title(at, "what “it” attends to")
    return z_of(spec, index=0), z_of(spec, index=1), list(trace(spec)["x"])


def test_the_shift_of_it_towards_street_is_relative_and_depends_on_the_layer():
    at = open_view("pretrained", 2)
    tired, wide, keys = it_rows(at, 5)
    assert tired.shape[0] == 12
    for rows in (tired, wide):
        np.testing.assert_allclose(rows.sum(1), 1.0, atol=3e-3)
    animal, street = keys.index("animal"), keys.index("street")
    lead_tired, lead_wide = tired[:, animal] - tired[:, street], wide[:, animal] - wide[:, street]
    assert (lead_wide < lead_tired).sum() >= 9  # 'wide' moves weight towards 'street' in most heads
    assert (lead_wide > 0).sum() >= 7  # ... yet most heads still favour 'animal'
    change = {5: np.abs(tired - wide).sum(1).mean()}  # the mean L1 change of a head's row, per layer
    for layer in (1, 2):
        tired, wide, _ = it_rows(at, layer)
        assert np.abs(tired[:, [animal, street]] - wide[:, [animal, street]]).max() < 0.05
        change[layer] = np.abs(tired - wide).sum(1).mean()
    assert max(change[1], change[2]) < 0.5 * change[5], change  # "far less there than in layer 5"
