"""analysis.dropout: a seeded Bernoulli keep-mask applied as training-mode dropout, against the formula and nn.Dropout."""

import numpy as np
import pytest
import torch

from analysis.dropout import apply_dropout, dropout_view, keep_mask, row_sums

RATES = [round(0.05 * i, 2) for i in range(11)]  # the page's slider: 0 .. 0.5


def sample(shape=(6, 64), seed=0):
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


@pytest.mark.parametrize("p", RATES)
def test_zeros_where_dropped_and_survivors_are_x_over_one_minus_p(p):
    x = sample()
    view = dropout_view(x, p, seed=3)
    assert view.after.dtype == np.float32 and view.after.shape == x.shape
    assert np.isfinite(view.after).all()
    assert (view.after[~view.keep] == 0).all()
    np.testing.assert_allclose(view.after[view.keep], x[view.keep].astype(np.float64) / (1 - p), rtol=2e-7)
    np.testing.assert_array_equal(view.before, x)


def test_p_zero_changes_nothing():
    x = sample((4, 5, 7))
    view = dropout_view(x, 0.0, seed=11)
    assert view.keep.all() and view.kept_fraction == 1.0
    np.testing.assert_array_equal(view.after, x)


def test_same_seed_same_mask_and_other_seeds_or_streams_another():
    first, again = keep_mask((50, 50), 0.3, seed=5), keep_mask((50, 50), 0.3, seed=5)
    np.testing.assert_array_equal(first, again)
    assert (first != keep_mask((50, 50), 0.3, seed=6)).any()
    assert (first != keep_mask((50, 50), 0.3, seed=5, stream=1)).any()


@pytest.mark.parametrize("p", [0.1, 0.3, 0.5])
def test_kept_fraction_is_near_one_minus_p(p):
    n = 1_000_000
    kept = keep_mask((n,), p, seed=0).mean()
    assert abs(kept - (1 - p)) < 5 * np.sqrt(p * (1 - p) / n)  # five standard deviations


@pytest.mark.parametrize("p", [0.1, 0.25, 0.5])
def test_same_distribution_as_torch_dropout_in_training_mode(p):
    """On a tensor of ones nn.Dropout (training) outputs only 0 and 1/(1-p), about a share p of zeros, mean about 1."""
    n = 200_000
    torch.manual_seed(0)
    reference = torch.nn.Dropout(p).train()(torch.ones(n)).numpy()
    ours = dropout_view(np.ones(n, np.float32), p, seed=0).after
    for values in (reference, ours):
        levels = np.unique(values)
        assert len(levels) == 2 and levels[0] == 0.0
        np.testing.assert_allclose(levels[1], 1 / (1 - p), rtol=1e-6)
        assert abs((values == 0).mean() - p) < 5 * np.sqrt(p * (1 - p) / n)
        assert abs(values.mean() - 1.0) < 0.01
    np.testing.assert_allclose(np.unique(ours), np.unique(reference), rtol=1e-6)


def test_attention_rows_no_longer_sum_to_one():
    logits = sample((8, 8))
    weights = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    np.testing.assert_allclose(row_sums(weights), 1.0, atol=1e-6)
    after = dropout_view(weights, 0.5, seed=1).after
    sums = row_sums(after)
    expected = (weights * keep_mask(weights.shape, 0.5, 1)).sum(-1) / 0.5
    np.testing.assert_allclose(sums, expected, rtol=1e-6)
    assert not np.allclose(sums, 1.0)


@pytest.mark.parametrize("p", [-0.1, 1.0, 1.5])
def test_rates_outside_zero_to_one_are_refused(p):
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        keep_mask((3,), p, 0)
    with pytest.raises(ValueError):
        apply_dropout(np.ones(3, np.float32), np.ones(3, bool), p)


def test_the_dropout_maps_and_the_masks_leave_their_words_level_where_they_fit():
    """An axis of short words carries no angle: the browser writes them level where they fit, turns them where they
    do not; the masks' and dropout's keys were turned at -45 and -60 degrees however wide the panel."""
    from viz.dropout import dropout_weights_figure
    from viz.masks import mask_panels_figure

    words = ["the", "cat", "sat", "on", "the", "mat"]
    weights = np.full((6, 6), 1 / 6, np.float32)
    fig = dropout_weights_figure(weights, weights, np.ones((6, 6), bool), words, words, 0.1, "dropout")
    assert fig.layout.xaxis.tickangle is None and fig.layout.xaxis2.tickangle is None
    masks = mask_panels_figure([np.tril(np.ones((6, 6), bool))], ["causal"], words, words, "masks")
    assert masks.layout.xaxis.tickangle is None and list(masks.layout.xaxis.ticktext) == words
    letters = mask_panels_figure([np.ones((3, 3), bool)], ["all"], list("abc"), list("abc"), "masks")
    assert letters.layout.xaxis.tickangle == 0  # letters: level, always
