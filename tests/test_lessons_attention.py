"""The lessons on attention itself (scaling, heads, word order, offsets, causal and padding masks): what their
notes claim, checked on the drawn data against the formula or the property the notes state."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.apptest_helpers import chart_by_title, run_page
from tests.lesson_views import head_maps, lesson_of, link_query, open_view, sinusoid, y_of, z_of


def test_scaling_unscaled_softmax_gets_peaked_with_d_k_and_scaled_stays():
    spec = chart_by_title(open_view("scaling", 0), "Softmax peakedness vs d_k")
    entropy = y_of(spec, "unscaled: q·k", 0), y_of(spec, "scaled: q·k / √d_k", 0)  # left panel
    top = y_of(spec, "unscaled: q·k", 1), y_of(spec, "scaled: q·k / √d_k", 1)  # right panel: the largest weight
    assert entropy[0][-1] < entropy[0][0] - 0.5 and top[0][-1] > top[0][0] + 0.2  # unscaled: ever more peaked
    assert np.ptp(entropy[1]) < 0.5 * (entropy[0][0] - entropy[0][-1])  # scaled: about the same at every d_k
    assert np.ptp(top[1]) < 0.5 * (top[0][-1] - top[0][0])


def test_unscaled_rows_of_a_wide_head_are_nearly_one_hot_and_scaled_ones_are_not():
    at = open_view("scaling", 1)
    assert any("d_k = d_model / h = 128 / 2 = 64" in c.value for c in at.caption)
    peaked = z_of(chart_by_title(at, "Attention weights A"))
    unscaled = z_of(chart_by_title(at, "Scaled scores"))
    on = run_page("pages/self_attention/page.py", {**link_query(lesson_of("scaling"), 1), "scale": "true"})
    soft, scaled = z_of(chart_by_title(on, "Attention weights A")), z_of(chart_by_title(on, "Scaled scores"))
    assert unscaled.std() / scaled.std() == pytest.approx(math.sqrt(64), rel=1e-3)  # √d_k times larger
    np.testing.assert_allclose(peaked.sum(1), 1.0, atol=2e-3)
    assert (peaked.max(1) > 0.9).mean() > 0.5  # most rows: over 90 % on one key
    assert (soft.max(1) <= 0.9).all()  # scaled: no row does


def test_one_head_then_eight_different_heads():
    at = open_view("heads", 0)
    assert at.select_slider(key="d_model").value == 64  # one head of all 64 dimensions
    one = head_maps(chart_by_title(at, "Layer 1 · 1 heads"))
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


def table_at_the_step(lesson_id: str, step: int) -> np.ndarray:
    """The whole table drawn at a step's settings, in the page's Table section (beside the step's Curves)."""
    query = {**link_query(lesson_of(lesson_id), step), "section": "Table"}
    return z_of(chart_by_title(run_page("pages/positional_encoding/page.py", query), "Dims 0–1 repeat every"))


def test_the_table_is_the_sinusoid_of_the_paper():
    table = table_at_the_step("word-order", 2)
    expected = np.stack([sinusoid(pos) for pos in range(100)])
    np.testing.assert_allclose(table, expected, atol=2e-3)


def test_the_frequencies_fall_geometrically_and_every_position_is_distinct():
    at = open_view("word-order", 2)
    wavelengths = y_of(chart_by_title(at, "Wavelength per pair"), "wavelength")
    np.testing.assert_allclose(wavelengths[1:] / wavelengths[:-1], 10000.0 ** (2 / 64), rtol=1e-4)
    table = table_at_the_step("word-order", 2)
    distances = np.linalg.norm(table[:, None, :] - table[None, :, :], axis=-1)
    assert distances[~np.eye(len(table), dtype=bool)].min() > 0.1


def test_one_step_turns_each_pair_by_its_own_angle_and_the_slow_pairs_barely_move():
    m = z_of(chart_by_title(open_view("offset", 1), "M_1: PE[pos] → PE[pos + 1]"))
    for i in range(32):
        omega = 10000.0 ** (-2 * i / 64)
        np.testing.assert_allclose(
            m[2 * i : 2 * i + 2, 2 * i : 2 * i + 2],
            [[math.cos(omega), math.sin(omega)], [-math.sin(omega), math.cos(omega)]],
            atol=1e-5,
        )
    np.testing.assert_allclose(m[-8:, -8:], np.eye(8), atol=2e-3)  # the four slowest pairs: nearly the identity


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


def test_the_fully_masked_row_is_all_zeros_here_and_uniform_with_a_finite_fill():
    at = open_view("padding", 1)
    weights = z_of(chart_by_title(at, "row 1 fully masked"), index=0)
    first = np.nan_to_num(weights[0], nan=0.0)
    assert (first == 0).all()
    others = np.nan_to_num(weights[1:], nan=0.0)
    np.testing.assert_allclose(others.sum(1), 1.0, atol=2e-3)
    table = next(df.value for df in at.dataframe if "method" in df.value.columns)
    keys = table.shape[1] - 2  # the method, the query, then one column per key

    def row(method):  # query 1, the pad
        return table[table["method"] == method].iloc[0, 2:].tolist()

    assert row("torch.softmax on -inf") == ["NaN"] * keys
    assert [float(v) for v in row("masked_softmax")] == [0.0] * keys
    np.testing.assert_allclose([float(v) for v in row("torch.softmax on a -1e9 fill")], 1 / keys, atol=5e-4)


def test_concat_is_the_heads_side_by_side_and_the_output_is_concat_times_w_o():
    at = open_view("heads", 2)
    heads = z_of(chart_by_title(at, "4 heads · head"))
    concat = z_of(chart_by_title(at, "Concat(head"))
    w_o, output = z_of(chart_by_title(at, "W<sup>O</sup> [")), z_of(chart_by_title(at, "output = Concat"))
    d_k = concat.shape[1] // 4
    tiles = np.concatenate([heads[:, h * (d_k + 1) : h * (d_k + 1) + d_k] for h in range(4)], axis=1)
    np.testing.assert_allclose(tiles, concat, atol=1e-6)
    residual = output - concat @ w_o  # what is left is the bias b^O, the same in every row
    np.testing.assert_allclose(residual, np.broadcast_to(residual[0], residual.shape), atol=2e-3)
