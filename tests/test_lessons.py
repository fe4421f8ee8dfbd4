"""Every view of every lesson opens from its link, shows the lesson bar, and draws what its notes say.

The claims are checked on the drawn data (chart specs) against the formula or the property the
notes state, never against numbers from the code that drew them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.apptest_helpers import assert_no_exception, chart_by_title, chart_specs, decode_array, run_page, head_tiles
from ui.lesson_catalogue import LESSONS, Shipped
from ui.model_picker import shipped_label


def link_query(lesson, step: int) -> dict[str, str]:
    """The query string a lesson link carries (written out here, not taken from ui.lessons)."""
    view = lesson.views[step]
    query = {key: shipped_label(value.name) if isinstance(value, Shipped) else str(value)
             for key, value in view.settings.items()}
    return {**query, "lesson": lesson.id, "step": str(step + 1)}


def open_view(lesson_id: str, step: int):
    lesson = next(lesson for lesson in LESSONS if lesson.id == lesson_id)
    at = run_page(f"pages/{lesson.views[step].page}/page.py", link_query(lesson, step))
    assert_no_exception(at)
    return at


def trace(spec: dict, name: str | None = None, index: int = 0) -> dict:
    matching = [t for t in spec["data"] if name is None or t.get("name") == name]
    return matching[index]


def z_of(spec: dict, name: str | None = None, index: int = 0) -> np.ndarray:
    return decode_array(trace(spec, name, index)["z"]).astype(np.float64)


def y_of(spec: dict, name: str, index: int = 0) -> np.ndarray:
    return decode_array(trace(spec, name, index)["y"]).astype(np.float64)


def head_maps(spec: dict) -> list[np.ndarray]:
    return head_tiles(spec)


ALL_VIEWS = [(lesson.id, step) for lesson in LESSONS for step in range(len(lesson.views))]


@pytest.mark.parametrize(("lesson_id", "step"), ALL_VIEWS)
def test_every_view_opens_with_the_lesson_bar_and_finite_figures(lesson_id, step):
    lesson = next(lesson for lesson in LESSONS if lesson.id == lesson_id)
    at = open_view(lesson_id, step)
    bar = f"**Lesson: {lesson.title}** · step {step + 1} of {len(lesson.views)}"
    assert any(m.value.startswith(bar) for m in at.markdown)
    specs = chart_specs(at)
    assert specs, "every lesson view draws a figure"
    for spec in specs:
        for t in spec["data"]:
            for axis in ("z", "y"):
                if axis in t and t[axis] is not None and not isinstance(t[axis], str):
                    values = decode_array(t[axis])
                    if values.dtype.kind == "f":
                        assert np.isfinite(values[~np.isnan(values)]).all()


def test_scaling_unscaled_softmax_gets_peaked_with_d_k_and_scaled_stays():
    spec = chart_by_title(open_view("scaling", 0), "Softmax peakedness vs d_k")
    entropy = y_of(spec, "unscaled: q·k", 0), y_of(spec, "scaled: q·k / √d_k", 0)  # left panel
    top = y_of(spec, "unscaled: q·k", 1), y_of(spec, "scaled: q·k / √d_k", 1)  # right panel: the largest weight
    assert entropy[0][-1] < entropy[0][0] - 0.5 and top[0][-1] > top[0][0] + 0.2  # unscaled: ever more peaked
    assert np.ptp(entropy[1]) < 0.5 * (entropy[0][0] - entropy[0][-1])  # scaled: about the same at every d_k
    assert np.ptp(top[1]) < 0.5 * (top[0][-1] - top[0][0])


def test_scaling_off_makes_rows_more_peaked_than_scaling_on():
    peaked = z_of(chart_by_title(open_view("scaling", 1), "Attention weights A"))
    lesson = LESSONS[0]
    on = run_page("pages/self_attention/page.py", {**link_query(lesson, 1), "scale": "true"})
    soft = z_of(chart_by_title(on, "Attention weights A"))
    np.testing.assert_allclose(peaked.sum(1), 1.0, atol=2e-3)
    assert peaked.max(1).mean() > soft.max(1).mean() + 0.1


def test_one_head_then_eight_different_heads():
    one = head_maps(chart_by_title(open_view("heads", 0), "Layer 1 · 1 heads"))
    eight = head_maps(chart_by_title(open_view("heads", 1), "Layer 1 · 8 heads"))
    assert len(one) == 1 and len(eight) == 8
    for m in one + eight:
        np.testing.assert_allclose(m.sum(1), 1.0, atol=2e-3)
    assert max(np.abs(eight[0] - m).max() for m in eight[1:]) > 0.01


def test_without_positions_reordering_only_permutes_the_weights():
    at = open_view("word-order", 0)
    none = chart_by_title(at, "self-attention, none")
    sinusoidal = chart_by_title(at, "self-attention, sinusoidal")
    a, b = z_of(none, index=0), z_of(none, index=1)
    np.testing.assert_allclose(np.sort(a, axis=None), np.sort(b, axis=None), atol=2e-3)
    c, d = z_of(sinusoidal, index=0), z_of(sinusoidal, index=1)
    assert np.abs(np.sort(c, axis=None) - np.sort(d, axis=None)).max() > 0.01


def sinusoid(pos: int, d_model: int = 64, base: float = 10000.0) -> np.ndarray:
    i = np.arange(d_model // 2)
    angle = pos / base ** (2 * i / d_model)
    out = np.empty(d_model)
    out[0::2], out[1::2] = np.sin(angle), np.cos(angle)
    return out


def test_the_table_is_the_sinusoid_of_the_paper():
    table = z_of(chart_by_title(open_view("word-order", 1), "The whole table"))
    expected = np.stack([sinusoid(pos) for pos in range(100)])
    np.testing.assert_allclose(table, expected, atol=2e-3)


@pytest.mark.parametrize(("step", "k"), [(0, 5), (1, 1)])
def test_the_offset_map_moves_pe_10_to_pe_10_plus_k(step, k):
    spec = chart_by_title(open_view("offset", step), f"PE[10 + {k}] and M_{k} · PE[10]")
    np.testing.assert_allclose(y_of(spec, f"PE[{10 + k}]"), sinusoid(10 + k), atol=1e-4)
    np.testing.assert_allclose(y_of(spec, f"M_{k} · PE[10]"), sinusoid(10 + k), atol=1e-4)


def test_the_causal_mask_allows_the_lower_triangle():
    allowed = z_of(chart_by_title(open_view("causal", 0), "Causal mask for 8 tokens")) > 0.5
    np.testing.assert_array_equal(allowed, np.tril(np.ones((8, 8), dtype=bool)))
    assert allowed.sum() == 8 * 9 // 2


def test_causal_rows_stop_at_the_diagonal_and_the_first_row_is_one():
    at = open_view("causal", 1)
    causal = chart_by_title(at, "Causal (decoder")
    weights, masked = z_of(causal, index=0), z_of(causal, "masked")
    n = weights.shape[0]
    future = np.triu(np.ones((n, n), dtype=bool), 1)
    assert np.all(np.isnan(weights[future]) | (weights[future] == 0)) and np.all(~np.isnan(masked[future]))
    assert weights[0, 0] == pytest.approx(1.0, abs=1e-3)
    assert (z_of(chart_by_title(at, "Bidirectional")) > 0).all()


def test_padding_hides_the_pad_keys_of_shorter_sentences():
    mask = z_of(chart_by_title(open_view("padding", 0), "Key-padding mask of the batch")) > 0.5
    lengths = mask.sum(1)
    for row, length in zip(mask, lengths):
        assert row[:length].all() and not row[length:].any()  # real tokens first, then pads
    assert lengths.min() < mask.shape[1]


def test_the_fully_masked_row_is_all_zeros_not_nan():
    weights = z_of(chart_by_title(open_view("padding", 1), "row 0 fully masked"), index=0)
    first = np.nan_to_num(weights[0], nan=0.0)
    assert (first == 0).all()
    others = np.nan_to_num(weights[1:], nan=0.0)
    np.testing.assert_allclose(others.sum(1), 1.0, atol=2e-3)


def test_encoder_self_attention_rows_sum_to_one_in_every_head():
    z = z_of(chart_by_title(open_view("encoder-decoder", 0), "all 4 heads · encoder self-attention"), index=0)
    n = z.shape[0]
    for head in range(4):
        tile = np.nan_to_num(z[:, head * (n + 1): head * (n + 1) + n])
        np.testing.assert_allclose(tile.sum(1), 1.0, atol=3e-3)


def test_layer_norm_gives_mean_zero_and_std_one():
    spec = chart_by_title(open_view("encoder-decoder", 1), "mean and std of each token, before and after LayerNorm")
    for index in range(2):
        np.testing.assert_allclose(y_of(spec, "mean after", index), 0.0, atol=1e-3)
        np.testing.assert_allclose(y_of(spec, "std after", index), 1.0, atol=2e-2)


def test_untrained_output_distribution_is_flat_and_sorted():
    bar = trace(chart_by_title(open_view("encoder-decoder", 2), "next-token probabilities"))
    probabilities = decode_array(bar["x"] if bar.get("orientation") == "h" else bar["y"]).astype(np.float64)
    assert len(probabilities) == 10 and probabilities.sum() <= 1 + 1e-6
    assert (np.abs(np.diff(probabilities)) >= 0).all() and np.all(np.diff(np.sort(probabilities)) >= 0)
    assert sorted(probabilities, reverse=True) in (list(probabilities), list(probabilities[::-1]))
    assert probabilities.max() < 0.1  # untrained: nowhere near one token


PERIOD = 7  # "x q m v k z b" twice


def test_the_trained_model_has_a_previous_token_head_in_layer_1():
    maps = head_maps(chart_by_title(open_view("trained", 0), "Layer 1 · 2 heads"))
    best = max(np.nan_to_num(np.diagonal(m, offset=-1)).mean() for m in maps)
    assert best > 0.5, best


def test_the_trained_model_has_an_induction_head_in_layer_2():
    maps = head_maps(chart_by_title(open_view("trained", 1), "Layer 2 · 2 heads"))
    n = maps[0].shape[0]
    rows = range(PERIOD, n)  # the second copy: token t repeats token t - 7; the next one is t - 6
    best = max(np.mean([np.nan_to_num(m[t, t - PERIOD + 1]) for t in rows]) for m in maps)
    assert best > 0.5, best


def test_the_training_view_opens_on_induction_at_step_zero():
    at = open_view("trained", 2)
    assert at.selectbox(key="task").value == "induction" and at.get("progress")[0].proto.text.startswith("step 0 ")


def test_the_strongest_previous_token_head_of_minilm_looks_one_token_back():
    at = open_view("pretrained", 0)
    assert z_of(chart_by_title(at, "strongest role")).shape == (6, 12)
    spec = chart_by_title(at, "the strongest “previous token” head")
    score = float(spec["layout"]["title"]["text"].rsplit("(", 1)[1].rstrip(")"))
    weights = z_of(spec)
    measured = np.diagonal(weights, offset=-1)[1:-1].mean()  # queries after [CLS], before [SEP]
    assert score > 0.5 and math.isclose(measured, score, abs_tol=0.1), (measured, score)


def test_it_attends_somewhere_in_every_head_of_both_sentences():
    spec = chart_by_title(open_view("pretrained", 1), "what “it” attends to")
    for index in range(2):
        rows = z_of(spec, index=index)
        assert rows.shape[0] == 12
        np.testing.assert_allclose(rows.sum(1), 1.0, atol=3e-3)


def test_concat_is_the_heads_side_by_side_and_the_output_is_concat_times_w_o():
    at = open_view("heads", 2)
    heads = z_of(chart_by_title(at, "4 heads · head"))
    concat = z_of(chart_by_title(at, "Concat(head"))
    w_o, output = z_of(chart_by_title(at, "W<sup>O</sup> [")), z_of(chart_by_title(at, "output = Concat"))
    d_k = concat.shape[1] // 4
    tiles = np.concatenate([heads[:, h * (d_k + 1): h * (d_k + 1) + d_k] for h in range(4)], axis=1)
    np.testing.assert_allclose(tiles, concat, atol=1e-6)
    residual = output - concat @ w_o  # what is left is the bias b^O, the same in every row
    np.testing.assert_allclose(residual, np.broadcast_to(residual[0], residual.shape), atol=2e-3)


def test_dropout_zeroes_some_weights_and_scales_the_rest_by_one_over_one_minus_p():
    spec = chart_by_title(open_view("encoder-decoder", 3), "before and after dropout (p = 0.3")
    before, after = z_of(spec, "before"), z_of(spec, "after")
    dropped = after == 0
    assert dropped.any() and not dropped.all()
    np.testing.assert_allclose(after[~dropped], before[~dropped] / 0.7, rtol=2e-3, atol=2e-4)
