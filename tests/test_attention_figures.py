"""Pure builders of the attention pages: statistics, rollout, CSV, quantised overview, head view."""

import json
import math

import numpy as np
import pytest
import torch

from tests.apptest_helpers import decode_array
from transformer import causal_mask, scaled_dot_product_attention
from analysis.softmax import peakedness_against_dk as softmax_peakedness
from pages.self_attention.steps import attention_steps
from transformer import TransformerConfig, build_model
from transformer.spec import ModelSpec
from viz.style import head_color
from viz.head_view import LEVELS, head_view_figure
from viz.heads import compare_figure, head_grid_figure, unique_labels
from viz.overview import overview_figure, quantise, tile
from analysis.export import weights_csv, weights_long_frame
from analysis.head_stats import attention_rollout, head_stats

A = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.2, 0.3, 0.5]], dtype=np.float32)


def random_weights(layers, heads, length, seed=0):
    rng = np.random.default_rng(seed)
    return rng.dirichlet(np.ones(length), size=(layers, heads, length)).astype(np.float32)


def test_head_stats_match_hand_computation():
    stats = head_stats(A[None, None]).iloc[0]
    entropy = (0 + 2 * 0.5 * math.log(2) - (0.2 * math.log(0.2) + 0.3 * math.log(0.3) + 0.5 * math.log(0.5))) / 3
    assert stats["entropy (nats)"] == pytest.approx(entropy)
    assert stats["on previous token"] == pytest.approx((0.5 + 0.3) / 2)
    assert stats["on first token"] == pytest.approx((1 + 0.5 + 0.2) / 3)
    assert stats["on itself"] == pytest.approx((1 + 0.5 + 0.5) / 3)
    assert stats["mean distance"] == pytest.approx((0 + 0.5 + (0.2 * 2 + 0.3 * 1)) / 3)


def test_normalised_entropy_divides_each_row_by_ln_of_the_keys_it_may_see():
    h2 = -(0.2 * math.log(0.2) + 0.3 * math.log(0.3) + 0.5 * math.log(0.5))
    causal = np.tril(np.ones((3, 3), dtype=bool))
    stats = head_stats(A[None, None], causal).iloc[0]
    assert stats["entropy / ln(keys)"] == pytest.approx(
        (math.log(2) / math.log(2) + h2 / math.log(3)) / 2
    )  # row 0: one key
    plain = head_stats(A[None, None]).iloc[0]  # no mask: every row may see 3 keys
    assert plain["entropy / ln(keys)"] == pytest.approx((0 + math.log(2) / math.log(3) + h2 / math.log(3)) / 3)
    even = np.tril(np.ones((5, 5))) / np.arange(1, 6)[:, None]  # causal rows spread evenly over their keys
    assert head_stats(even[None, None], np.tril(np.ones((5, 5), dtype=bool)))["entropy / ln(keys)"][0] == pytest.approx(
        1.0
    )
    assert np.isnan(head_stats(np.ones((1, 1, 1, 1)))["entropy / ln(keys)"][0])  # no row with a choice


def test_head_stats_has_one_row_per_layer_and_head():
    frame = head_stats(random_weights(3, 4, 5))
    assert len(frame) == 12 and list(frame["layer"]) == [l for l in range(1, 4) for _ in range(4)]  # from 1
    assert list(frame["head"]) == list(range(1, 5)) * 3
    assert np.isnan(head_stats(np.ones((1, 1, 1, 1)))["on previous token"][0])  # no previous token


def test_rollout_is_the_product_of_residual_mixed_layers():
    w = random_weights(2, 3, 4)
    mixed = [0.5 * layer.mean(0) + 0.5 * np.eye(4) for layer in w.astype(np.float64)]
    expected = mixed[1] @ mixed[0]
    np.testing.assert_allclose(attention_rollout(w), expected, atol=1e-6)
    np.testing.assert_allclose(attention_rollout(w).sum(-1), 1.0, atol=1e-6)
    np.testing.assert_allclose(attention_rollout(w[:1]), mixed[0], atol=1e-6)


def test_csv_has_layers_heads_tokens_squared_rows_in_long_form():
    w = random_weights(2, 3, 4)
    tokens = ["a", "b", "a", "7"]
    frame = weights_long_frame(w, tokens)
    assert list(frame.columns) == [
        "layer",
        "head",
        "query position",
        "query token",
        "key position",
        "key token",
        "weight",
    ]
    assert len(frame) == 2 * 3 * 4**2
    row = frame[
        (frame["layer"] == 2)
        & (frame["head"] == 3)
        & (frame["query position"] == 3)  # numbered from 1
        & (frame["key position"] == 2)
    ].iloc[0]
    assert row["query token"] == "7" and row["key token"] == "a" and row["weight"] == pytest.approx(w[1, 2, 3, 2])
    lines = weights_csv(w, tokens).strip().splitlines()
    assert len(lines) == 1 + 2 * 3 * 16 and lines[0].startswith("layer,head,query position")


def test_quantised_overview_is_within_budget_at_6_layers_8_heads_64_tokens():
    w = random_weights(6, 8, 64)
    tokens = [f"token{i}" for i in range(64)]
    for mask in (None, causal_mask(64).numpy()):
        fig = overview_figure(w, tokens, "overview", mask)
        spec = fig.to_json()
        assert len(spec.encode()) <= 1_000_000, len(spec)
        z = decode_array(json.loads(spec)["data"][0]["z"])
        assert z.dtype == np.uint16 and z.shape == (6 * 64, 8 * 64)
        np.testing.assert_allclose(z / 1000.0, tile(w), atol=0.0005 + 1e-7)
        assert z[2 * 64 + 5, 3 * 64 + 7] == round(1000 * float(w[2, 3, 5, 7]))
    assert len(json.loads(spec)["data"]) == 2  # weights plus the masked overlay, nothing more
    assert quantise(np.array([0.0, 0.0004, 0.9996, 1.0])).tolist() == [0, 0, 1000, 1000]


def test_unique_labels_keep_repeats_apart_and_escape_markup():
    labels = unique_labels(["the", "<b>", "the", "the"])
    assert len(set(labels)) == 4 and labels[1] == "&lt;b&gt;"
    assert [label.replace("\u200b", "") for label in labels] == ["the", "&lt;b&gt;", "the", "the"]


def test_head_grid_tiles_every_head_into_one_trace_with_the_masked_overlay():
    w = random_weights(1, 4, 5)[0]
    allowed = causal_mask(5).numpy()
    fig = head_grid_figure(w, list("abcde"), list("abcde"), "grid", allowed)
    assert len(fig.data) == 2  # the values, then the grey overlay of the masked cells
    z, overlay = np.asarray(fig.data[0].z), np.asarray(fig.data[1].z)
    for h in range(4):  # one row of four tiles, one blank column between them
        np.testing.assert_allclose(z[:, h * 6 : h * 6 + 5], np.where(allowed, w[h], 0.0), atol=1e-7)
        np.testing.assert_array_equal(overlay[:, h * 6 : h * 6 + 5], np.triu(np.ones((5, 5)), 1))
    assert np.asarray(fig.data[0].text)[1, 6 + 1].startswith("head 2<br>query 2: b<br>key 2: b")  # positions from 1


def test_compare_draws_the_difference_only_for_equal_shapes():
    w = random_weights(1, 2, 4)[0]
    fig = compare_figure(w[0], w[1], list("abcd"), list("abcd"), "A", "B", "t")
    assert len(fig.data) == 3
    np.testing.assert_allclose(fig.data[2].z, w[0] - w[1], atol=1e-7)
    assert fig.layout.coloraxis2.cmin == -fig.layout.coloraxis2.cmax
    assert len(compare_figure(w[0], w[0][:3, :3], list("abcd"), list("abc"), "A", "B", "t").data) == 2


def test_head_view_groups_lines_by_head_and_opacity():
    w = random_weights(1, 3, 6)[0]
    fig = head_view_figure(w, list("abcdef"), [0, 1, 2], None, "hv")
    lines = [t for t in fig.data if t.mode == "lines" and t.showlegend is False]
    assert len(lines) <= 3 * LEVELS
    segments = sum(t.x.count(None) for t in lines)
    assert segments == int((w >= 0.01).sum())
    one = head_view_figure(w, list("abcdef"), [1], 2, "hv")
    ys = [y for t in one.data if t.mode == "lines" and t.showlegend is False for y in t.y[0::3]]
    assert set(ys) == {2}


def test_several_heads_are_drawn_side_by_side_each_in_its_own_panel_and_colour():
    """Head k's lines run from x = k·1.4 (queries) to k·1.4 + 1 (keys), all in head k's colour, so no two
    heads' lines cross or blend; each panel is named over its middle, queries left and keys right."""
    w = random_weights(1, 3, 6)[0]
    fig = head_view_figure(w, list("abcdef"), [0, 2], None, "hv")
    lines = [t for t in fig.data if t.mode == "lines"]
    for k, head in enumerate((0, 2)):
        mine = [t for t in lines if t.name == f"head {head + 1}"]
        assert {t.line.color for t in mine} == {head_color(head)}
        xs = {x for t in mine for x in t.x if x is not None}
        assert xs == {k * 1.4, k * 1.4 + 1.0}
        segments = sum(t.x.count(None) for t in mine)
        assert segments == int((w[head] >= 0.01).sum())
    names = {a.text: a.x for a in fig.layout.annotations}
    assert names["head 1"] == 0.5 and names["head 3"] == 1.9
    assert names["queries"] == 0.0 and names["keys"] == 2.4


def test_the_head_views_token_labels_lie_in_margins_as_wide_as_the_longest_label():
    """The labels are drawn past the plot's edge (not clipped there) into margins sized in px, so that a phone's
    narrow plot cuts none: 0.6 em a character at 15 px, "attentively" 11 characters, and a 12 px gap."""
    w = random_weights(1, 4, 3)[0]
    fig = head_view_figure(w, ["a", "attentively", "b"], [0, 1, 2, 3], None, "hv")
    assert fig.layout.margin.l == fig.layout.margin.r == round(0.6 * 15 * 11) + 12 == 111
    texts = [t for t in fig.data if t.mode == "text"]
    assert len(texts) == 2 and all(t.cliponaxis is False for t in texts)
    assert tuple(fig.layout.xaxis.range) == (-0.03, 3 * 1.4 + 1 + 0.03)  # the panels fill the plot
    short = head_view_figure(w, ["a", "b", "c"], [0], None, "hv")  # short tokens: room for "queries" over them
    assert short.layout.margin.l == round(0.6 * 15 * len("queries")) + 12 == 75


@pytest.mark.parametrize("positional", ["sinusoidal", "alibi", "rotary"])
def test_attention_steps_match_the_package(positional):
    """One head's chain, read from the record, against scaled_dot_product_attention on its own q, k, v and
    against the model's weights; a what-if (no scaling, T = 0.5, causal) recomputes only the softmax."""
    config = TransformerConfig(
        d_model=16, num_heads=4, num_encoder_layers=2, num_decoder_layers=2, d_ff=32, dropout=0.0, positional=positional
    )
    ids = (5, 6, 7, 5)
    with torch.inference_mode():
        record = build_model(config, 3, "encoder-only")(torch.tensor([ids]), return_attention=True).attention
    steps = attention_steps(ModelSpec.random(config, 3, "encoder-only"), ids, 1, 2)
    np.testing.assert_allclose(steps.weights, record.weights["encoder.layers.1.self_attn"][0, 2].numpy(), atol=1e-6)
    np.testing.assert_allclose(steps.model_weights, steps.weights, atol=1e-6)
    if positional != "alibi":  # ALiBi adds a distance penalty that plain attention does not have
        out, weights = scaled_dot_product_attention(torch.tensor(steps.q), torch.tensor(steps.k), torch.tensor(steps.v))
        np.testing.assert_allclose(steps.weights, weights.numpy(), atol=1e-6)
        np.testing.assert_allclose(steps.output, out.numpy(), atol=1e-5)
        np.testing.assert_allclose(steps.scaled, steps.raw / 2.0, atol=1e-5)
    hot = attention_steps(ModelSpec.random(config, 3, "decoder-only"), ids, 0, 0, False, 0.5)
    assert (hot.weights[np.triu_indices(4, 1)] == 0).all()
    np.testing.assert_allclose(hot.weights.sum(-1), 1.0, atol=1e-6)
    if positional != "alibi":
        np.testing.assert_allclose(hot.scaled, hot.raw / 0.5, atol=1e-4)


def test_unscaled_softmax_saturates_as_d_k_grows_and_scaled_does_not():
    peaks = softmax_peakedness()
    assert peaks.max_unscaled[-1] > 0.9 and peaks.entropy_unscaled[-1] < 0.3
    assert np.ptp(peaks.max_scaled) < 0.1 and np.all(np.isfinite(peaks.entropy_scaled))


def test_the_jacobian_size_is_autograd_s_and_falls_only_when_unscaled():
    from analysis.softmax import jacobian_norm

    scores = torch.randn(3, 7, generator=torch.Generator().manual_seed(0), dtype=torch.float64) * 3
    for row in scores:
        full = torch.autograd.functional.jacobian(lambda s: torch.softmax(s, -1), row)  # d a_i / d s_j [7, 7]
        assert float(jacobian_norm(torch.softmax(row, -1))) == pytest.approx(float(full.norm()), rel=1e-9)
    one_hot, flat = torch.tensor([1.0, 0.0, 0.0]), torch.full((4,), 0.25)
    assert float(jacobian_norm(one_hot)) == 0.0  # saturated: no gradient reaches the scores
    # flat over 4: J = I / 4 - 1 / 16 everywhere; 4 diagonal entries (3/16)^2 and 12 off it (1/16)^2
    assert float(jacobian_norm(flat)) == pytest.approx((4 * 9 / 256 + 12 / 256) ** 0.5, rel=1e-6)
    peaks = softmax_peakedness()
    assert peaks.jacobian_unscaled[-1] < 0.25 * peaks.jacobian_scaled[-1]  # d_k = 512
    assert np.ptp(peaks.jacobian_scaled) < 0.05


def test_qkv_figure_tiles_q_k_v_in_one_trace_on_one_signed_scale():
    from viz.attention_steps import qkv_figure

    rng = np.random.default_rng(1)
    q, k, v = (rng.normal(size=(5, 64)).astype(np.float32) for _ in range(3))
    v[0, 0] = np.nan  # never reaches the figure as NaN
    spec = json.loads(qkv_figure(q, k, v, ["a", "<b>", "a", "c", "d"], "t").to_json())
    assert len(spec["data"]) == 1
    z = decode_array(spec["data"][0]["z"]).astype(float)
    assert np.isfinite(z).all() and z.shape == (5, 3 * 64 + 2)
    for start, matrix in zip((0, 65, 130), (q, k, np.nan_to_num(v))):  # one blank column between tiles
        np.testing.assert_allclose(z[:, start : start + 64], matrix, atol=1e-6)
    limit = np.abs(np.nan_to_num(np.stack([q, k, v]))).max()
    assert spec["data"][0]["zmin"] == pytest.approx(-limit) and spec["data"][0]["zmax"] == pytest.approx(limit)
    assert (
        spec["data"][0]["text"][1][130 + 5] == "V<br>token 2: &lt;b&gt;<br>dim 5"
    )  # the second token, dimension 5 (from 0)
    assert spec["layout"]["yaxis"]["ticktext"] == ["a", "&lt;b&gt;", "a", "c", "d"]
    assert spec["layout"]["xaxis"]["tickvals"] == [0, 63, 65, 128, 130, 193]  # first and last dimension of each
    assert spec["layout"]["xaxis"]["ticktext"] == ["0", "63"] * 3 and spec["layout"]["xaxis"]["tickangle"] == 0
    assert [a["text"][0] for a in spec["layout"]["annotations"]] == ["Q", "K", "V"]


def test_positions_in_hovers_count_from_1():
    from viz.experiments import position_bars

    bars = position_bars(np.array([0.1, 0.2, 0.3]), ["a", "b", "a"], "t", "v")
    assert [row[0] for row in bars.data[0].customdata] == [1, 2, 3] and "%{customdata[0]}" in bars.data[0].hovertemplate
    view = head_view_figure(random_weights(1, 2, 3)[0], list("abc"), [0], None, "hv")
    texts = [t for t in view.data if t.mode == "text"]
    assert all([row[0] for row in t.customdata] == [1, 2, 3] for t in texts)


def test_a_long_token_is_cut_on_its_axis_and_named_whole_in_its_hover():
    """A token of 24 characters is written as its first 15 and "…" under a map (a turned label would take the
    figure's height), and the hover names it whole, escaped; a token of 16 characters is written whole."""
    from viz.heatmap import matrix_heatmap

    tokens = ["a", "<internationalisation>", "sixteen_chars_ok"]
    spec = json.loads(matrix_heatmap(np.full((3, 3), 1 / 3), tokens, tokens, "t").to_json())
    assert spec["layout"]["xaxis"]["ticktext"] == ["a", "&lt;internationali…", "sixteen_chars_ok"]
    assert spec["data"][0]["text"][0][1] == "query 1: a<br>key 2: &lt;internationalisation&gt;"
