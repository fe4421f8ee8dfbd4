"""Encoder-decoder's sentences checked on what its figures draw: LayerNorm's output norm sqrt(d_model) on a random
model (post-LN and pre-LN, two widths), and the dropout section's counts and row sums (p = 0.3 and p = 0)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from tests.apptest_helpers import assert_no_exception, chart_by_title, decode_array, title_text
from tests.apptest_helpers import run_random_model as run_page

PAGE = "pages/encoder_decoder/page.py"


@pytest.mark.parametrize("query", [{}, {"norm": "pre-LN", "d_model": "32"}])
def test_a_random_models_layernorm_gives_every_token_the_norm_the_text_names(query):
    at = run_page(PAGE, {"section": "One layer", **query})
    assert_no_exception(at)
    d_model = int(query.get("d_model", 64))
    wiring = "**Pre-LN**" if query.get("norm") == "pre-LN" else "**Post-LN**"
    assert any(m.value.startswith(wiring) for m in at.markdown)
    text = next(m.value for m in at.markdown if m.value.startswith("**LayerNorm**"))
    assert f"mean of its {d_model} features" in text
    said = float(re.search(r"its norm is sqrt\(d_model\) = ([\d.]+): the flat points", text)[1])
    assert said == pytest.approx(math.sqrt(d_model), abs=0.005)
    spec = chart_by_title(at, "vector norm of each token after each step")
    stages = spec["layout"]["xaxis"]["ticktext"]
    normed = [i for i, name in enumerate(stages) if name.startswith("LayerNorm")]
    assert len(normed) == 2
    lines = [trace for trace in spec["data"] if trace["mode"] != "text"]  # the tokens' names at the lines' ends go
    assert len(lines) == len(spec["data"][-1]["text"])
    for trace in lines:  # every token, at both LayerNorms: the flat points
        norms = decode_array(trace["y"]).astype(np.float64)
        np.testing.assert_allclose(norms[normed], math.sqrt(d_model), rtol=2e-3)
    mean = np.mean([decode_array(t["y"]).astype(np.float64) for t in lines], axis=0)  # [S]: over tokens
    said = re.search(
        r": on average ([\d.]+) at “(.+)”, ([\d.]+) at “(.+)”, the most ([\d.]+) at “(.+)”$", title_text(spec)
    )
    assert (said[2], said[4], said[6]) == (stages[0], stages[-1], stages[int(np.argmax(mean))])
    assert [float(said[i]) for i in (1, 3, 5)] == pytest.approx([mean[0], mean[-1], mean.max()], abs=0.006)
    stats = chart_by_title(at, "mean and std of each token, before and after LayerNorm")
    drawn = {
        name: [decode_array(t["y"]).astype(np.float64) for t in stats["data"] if t["name"] == name]
        for name in ("std before", "std after", "mean after")
    }
    said = re.search(
        r": std ([\d.]+)–([\d.]+) before, ([\d.]+)–([\d.]+) after, means within ([\d.]+) of 0$", title_text(stats)
    )
    stds = [np.concatenate(drawn[name]) for name in ("std before", "std after")]
    expected = [
        stds[0].min(),
        stds[0].max(),
        stds[1].min(),
        stds[1].max(),
        np.abs(np.concatenate(drawn["mean after"])).max(),
    ]
    assert [float(said[i]) for i in range(1, 6)] == pytest.approx(expected, abs=0.006)
    for trace in stats["data"]:
        values = decode_array(trace["y"]).astype(np.float64)
        if trace["name"] == "std after":
            np.testing.assert_allclose(values, 1.0, atol=2e-3)
        if trace["name"] == "mean after":
            np.testing.assert_allclose(values, 0.0, atol=1e-5)


@pytest.mark.parametrize(("p", "seed"), [(0.3, 0), (0.0, 0), (0.1, 5)])
def test_the_dropout_captions_count_the_drawn_mask_and_sum_the_drawn_rows(p, seed):
    at = run_page(PAGE, {"section": "Dropout", "dropout": str(p), "drop_seed": str(seed)})
    assert_no_exception(at)
    spec = chart_by_title(at, "self-attention weights before and after dropout")
    layers = {t["name"]: t for t in spec["data"]}
    before = decode_array(layers["before"]["z"]).astype(np.float64)
    after = decode_array(layers["after"]["z"]).astype(np.float64)
    dropped = (after == 0) & (before != 0)
    np.testing.assert_allclose(after[~dropped], before[~dropped] / (1 - p), rtol=1e-4)
    note = next(c.value for c in at.caption if "weights dropped" in c.value)
    count, size = (int(n) for n in re.search(r"(\d+) of (\d+) weights dropped", note).groups())
    assert (count, size) == (int(dropped.sum()), before.size)
    assert float(re.search(r"1/\(1 − p\) = (\d+(?:\.\d+)?)", note)[1]) == pytest.approx(1 / (1 - p), rel=2e-3)
    sums = after.sum(-1)
    title = title_text(spec)  # it says what the caption counts
    if p:
        said = re.search(r": (\d+) of (\d+) dropped, rows now sum to ([\d.]+) … ([\d.]+)$", title)
        assert (int(said[1]), int(said[2])) == (count, size)
        assert (float(said[3]), float(said[4])) == pytest.approx((sums.min(), sums.max()), abs=0.006)
    else:
        assert title.endswith(": nothing dropped, every row sums to 1")
    if p == 0:
        assert count == 0 and "every row still sums to 1" in note and "instead of 1" not in note
        np.testing.assert_allclose(sums, 1.0, atol=1e-4)
    else:
        low, high = (float(v) for v in re.search(r"Rows now sum to ([\d.]+) … ([\d.]+) instead of 1", note).groups())
        assert (low, high) == pytest.approx((sums.min(), sums.max()), abs=0.006)
        assert not np.allclose(sums, 1.0, atol=1e-3)  # "instead of 1": no renormalisation
    output = chart_by_title(at, "output before the residual add")
    parts = {t["name"]: decode_array(t["z"]).astype(np.float64) for t in output["data"] if t.get("type") == "heatmap"}
    kept = ~((parts["after"] == 0) & (parts["before"] != 0))
    share = re.search(
        r"(\d+)% of the (\d+) entries kept \(expected (\d+)%\)",
        next(c.value for c in at.caption if "entries kept" in c.value),
    )
    assert (
        int(share[2]) == kept.size
        and int(share[1]) == round(100 * kept.mean())
        and int(share[3]) == round(100 * (1 - p))
    )
    assert title_text(output).endswith(f": {share[1]}% of {share[2]} entries kept (expected {share[3]}%)")
