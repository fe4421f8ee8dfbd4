"""Sentences that count things, checked against counts made here:

- Vision Transformer, Patches: the number of patches, grid, pixels a patch and tokens, in words that fit the count
  (one patch, one number, "an 8 × 8 grid"), at patch sizes 1, 2 (the shipped model's) and 8, and the drawn
  sequence holds as many tiles as the sentence says tokens;
- Multi-head attention, Statistics: "under a causal mask row i, counted from 1, sees i keys", checked against the
  model's weights by hand; and with a one-token text, a note says why the columns that need two keys or a
  previous token have no value.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.apptest_helpers import assert_no_exception, chart_by_title, run_page, run_random_model
from tests.test_page_multi_head import model_weights

VISION = "pages/vision/page.py"
MULTI_HEAD = "pages/multi_head/page.py"

# patch size -> the words the sentence should use, counted by hand for an 8 x 8 image: p x p pixels a patch,
# (8 / p)^2 patches, p^2 numbers a patch, one token more with [CLS]
PATCH_WORDS = {
    1: (
        "Patches of 1 × 1 pixel: an 8 × 8 grid, **N = 64 patches**, each flattened to a vector of 1 number",
        "**65 tokens**: [CLS], then patch 1, 2, … in row-major order",
        65,
    ),
    2: (
        "Patches of 2 × 2 pixels: a 4 × 4 grid, **N = 16 patches**, each flattened to a vector of 4 numbers",
        "**17 tokens**: [CLS], then patch 1, 2, … in row-major order",
        17,
    ),
    8: (
        "A patch of 8 × 8 pixels is the whole image: **N = 1 patch**, flattened to a vector of 64 numbers",
        "**2 tokens**: [CLS], then that patch.",
        2,
    ),
}


@pytest.mark.parametrize("size", [1, 2, 8])
def test_the_patch_counts_are_said_in_words_that_fit_them(size):
    at = run_page(VISION, {"section": "Patches", **({} if size == 2 else {"patch": str(size)})})
    assert_no_exception(at)
    assert at.select_slider(key="patch").value == size  # 2 is where the page opens: the shipped model's size
    grid, tokens, count = PATCH_WORDS[size]
    text = next(m.value for m in at.markdown if "d_model" in m.value and "tokens**" in m.value)
    assert grid in text and tokens in text, text
    for wrong in ("N = 1 patches", "a 8 ×", "vector of 1 numbers", "1 × 1 pixels"):
        assert wrong not in text, text
    sequence = chart_by_title(at, "The sequence the encoder reads")
    tiles = [note["text"] for note in sequence["layout"]["annotations"]]  # one title a drawn token
    assert len(tiles) == count and tiles[0] == "CLS" and tiles[1:] == [str(i) for i in range(1, count)]
    title = sequence["layout"]["title"]["text"]
    assert title.endswith("then the one patch" if count == 2 else f"then patches 1 to {count - 1}"), title


def test_a_causal_row_i_counted_from_1_sees_i_keys():
    at = run_random_model(MULTI_HEAD, {"section": "Statistics", "causal": "true"})
    assert_no_exception(at)
    text = " ".join(m.value for m in at.markdown)
    assert "under a causal mask row i, counted from 1, sees i keys, so its most even spread is ln i, not ln T" in text
    assert "i + 1" not in text
    weights = model_weights(2, 64, 4, True).astype(np.float64)  # [L, H, T, T], the page's default stack
    rows = np.arange(1, weights.shape[-1] + 1)  # row i, from 1, may attend to keys 1..i: i keys
    entropy = -(weights * np.log(np.where(weights > 0, weights, 1.0))).sum(-1)  # [L, H, T]
    expected = (entropy[..., rows >= 2] / np.log(rows[rows >= 2])).mean(-1).ravel()  # rows with one key left out
    table = at.dataframe[0].value
    np.testing.assert_allclose(table["entropy / ln(keys)"].to_numpy(dtype=float), expected, atol=0.0006)
    assert not at.info


@pytest.mark.parametrize("text", ["Hello", "Hello world"])
def test_a_one_token_text_says_why_two_columns_have_no_value(text):
    at = run_random_model(MULTI_HEAD, {"section": "Statistics", "text": text})
    assert_no_exception(at)
    table = at.dataframe[0].value
    blank = [name for name in ("entropy / ln(keys)", "on previous token") if table[name].isna().all()]
    notes = " ".join(i.value for i in at.info)
    if text == "Hello":  # one token: one key a row (no spread to normalise) and no previous token
        assert blank == ["entropy / ln(keys)", "on previous token"]
        assert notes.startswith("The text is 1 token: no row has two or more keys"), notes
        assert "no token has a previous token" in notes
        assert "The columns “entropy / ln(keys)” and “on previous token” have no value in any head" in notes
    else:
        assert not blank and not table.drop(columns=["layer", "head"]).isna().any().any()
        assert "no value" not in notes


@pytest.mark.parametrize("heads", [1, 4])
def test_concat_is_said_in_words_that_fit_the_number_of_heads(heads):
    at = run_random_model(MULTI_HEAD, {"section": "Concat × W^O", "heads": str(heads), "d_model": "64"})
    assert_no_exception(at)
    text = next(m.value for m in at.markdown if "**Concat**" in m.value)
    if heads == 1:
        assert "With one head, **Concat** is that head's" in text and "the 1 heads" not in text
    else:
        assert f"**Concat** lays the {heads} heads side by side" in text


@pytest.mark.parametrize("n", [1, 5])
def test_the_causal_mask_counts_its_cells_in_words_that_fit(n):
    at = run_page("pages/masks/page.py", {"section": "Causal", "n": str(n)})
    assert_no_exception(at)
    text = " ".join(m.value for m in at.markdown)
    if n == 1:
        assert "One token: its one cell is allowed" in text and "1 cells" not in text
    else:
        assert f"Of the {n * n} cells, {n * (n + 1) // 2} are allowed." in text
