"""A real pretrained model, Head roles: the sentence on the scales of the raw scores (the middle half of the heads'
entropy ratios, how many heads reach a previous-token weight of 0.3) and the count of heads with no clear role,
checked against scores computed here from MiniLM's own weights on the page's text, at the default text and another."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from tests.apptest_helpers import assert_no_exception, run_page
from transformer import load_pretrained

PAGE = "pages/pretrained/page.py"
DEFAULT = "The animal didn't cross the street because it was too tired"
OTHER = "Paris is the capital of France, and Berlin is the capital of Germany; both cities are large."


@pytest.fixture(scope="module")
def minilm():
    import ui.runtime  # noqa: F401  (one torch thread, as the pages run it)

    return load_pretrained()


def scores(minilm, text: str) -> dict[str, np.ndarray]:
    """Per head [72]: the previous-token weight, the row entropy over ln T and the largest z-score over the five
    roles (previous, next, sink, same word, broad), by hand from the model's attention on ``text``."""
    model, tokenizer = minilm
    pieces = tokenizer.with_max_tokens(128).encode_text(text)
    with torch.inference_mode():
        out = model(torch.tensor([pieces.ids]), return_attention=True)
    t = len(pieces.ids)
    a = out.attention.stacked("encoder")[:, 0].numpy().astype(np.float64).reshape(72, t, t)  # layer-major
    i = np.arange(1, t)
    previous, following = a[:, i, i - 1].mean(-1), a[:, i - 1, i].mean(-1)
    sink = a[:, :, np.asarray(pieces.special, dtype=bool)].sum(-1).mean(-1)
    broad = (-(a * np.log(np.where(a > 0, a, 1.0))).sum(-1) / np.log(t)).mean(-1)
    words = list(pieces.word_ids)
    same = np.array([[words[q] is not None and words[q] == words[k] and q != k for k in range(t)] for q in range(t)])
    rows = same.any(-1)
    same_word = (a[:, rows] * same[rows]).sum(-1).mean(-1) if rows.any() else np.zeros(72)
    table = np.stack([previous, following, sink, same_word, broad], axis=-1)
    spread = table.std(0)
    z = np.where(spread > 1e-9, (table - table.mean(0)) / np.where(spread > 1e-9, spread, 1.0), -np.inf)
    return {"previous": previous, "broad": broad, "standing": z.max(-1)}


@pytest.mark.parametrize("text", [DEFAULT, OTHER])
def test_the_scales_of_the_raw_scores_and_the_unclear_heads_are_counted_on_this_text(minilm, text):
    at = run_page(PAGE, {"section": "Head roles", **({} if text == DEFAULT else {"text": text})})
    assert_no_exception(at)
    expected = scores(minilm, text)
    note = next(m.value for m in at.markdown if m.value.startswith("The raw scores are not on one scale"))
    said = re.search(
        r"on this text the middle half of the heads have an entropy ratio between ([\d.]+) and ([\d.]+), "
        r"while (\d+) of the 72 heads reach a previous-token weight of 0\.3\)",
        note,
    )
    assert said, note
    low, high = np.percentile(expected["broad"], [25, 75])
    assert float(said[1]) == pytest.approx(low, abs=0.006) and float(said[2]) == pytest.approx(high, abs=0.006)
    assert int(said[3]) == int((expected["previous"] >= 0.3).sum())
    unclear = next(m.value for m in at.markdown if "no clear role" in m.value and "On this text" in m.value)
    assert int(re.search(r"On this text that is (\d+) of the 72 heads", unclear)[1]) == int(
        (expected["standing"] < 1.0).sum()
    )
    if text == DEFAULT:  # the Head roles lesson's answer, on its view: "0.6 is ordinary, 0.3 is rare"
        assert low < 0.6 < high and int(said[3]) <= 72 // 10
