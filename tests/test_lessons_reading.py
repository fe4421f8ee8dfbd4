"""The lesson on reading a trained model ("Read a trained model from inside"): what its notes and answers claim,
checked on the drawn data against the property they state."""

from __future__ import annotations

import numpy as np

from tests.apptest_helpers import chart_by_title, decode_array
from tests.lesson_views import open_view


def test_in_the_repeat_only_the_stage_after_layer_2_guesses_the_next_token():
    spec = chart_by_title(open_view("reading", 0), "Logit lens")
    tokens, stages = spec["layout"]["xaxis"]["ticktext"], spec["layout"]["yaxis"]["ticktext"]
    guesses = spec["data"][0]["text"]  # [stage][position]
    assert stages == ["embeddings", "layer 1", "layer 2"]
    # positions whose token came before: the right guess is the token after its last earlier occurrence
    targets = {
        i: tokens[max(j for j in range(i) if tokens[j] == tokens[i]) + 1]
        for i in range(len(tokens))
        if tokens[i] in tokens[:i]
    }
    assert len(targets) >= 16
    right = [sum(guesses[stage][i] == target for i, target in targets.items()) for stage in range(3)]
    assert right[2] == len(targets)  # after layer 2: every one
    assert right[0] <= len(targets) // 4 and right[1] <= len(targets) // 4  # before it: hardly any


def test_layer_2_heads_write_most_of_the_logit_directly_and_the_previous_token_head_works_through_them():
    at = open_view("reading", 1)
    table = next(df.value for df in at.dataframe if "patching restores" in df.value.columns)
    previous = table[table["head"] == "layer 1 · head 2"].iloc[0]
    logit = table["direct share of the logit"].abs().sum()
    assert previous["direct share of the logit"] < 0.05 * logit and previous["patching restores"] > 0.5
    spec = chart_by_title(at, "direct share of the logit")
    shares = decode_array(spec["data"][0]["z"]).astype(float)  # [layers, heads]
    assert shares.shape[0] == 2
    assert shares[1].sum() > shares[0].sum() and shares[1].sum() > 0.5 * np.abs(shares).sum()


def test_a_head_with_no_sharpness_spreads_each_row_evenly_over_the_keys_it_may_see():
    spec = chart_by_title(open_view("reading", 2), "The head you built")
    weights = decode_array(spec["data"][0]["z"]).astype(float)
    size = weights.shape[0]
    for i in range(size):
        np.testing.assert_allclose(weights[i, : i + 1], 1.0 / (i + 1), atol=1e-6)
        assert np.allclose(np.nan_to_num(weights[i, i + 1 :]), 0.0)
