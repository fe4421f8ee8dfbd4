"""Masks, causal against bidirectional: the caption's count of kept weights that grow under the mask, recomputed
from the two drawn maps, in layer 1 (none shrinks) and in layer 2 (some may)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.apptest_helpers import assert_no_exception, chart_by_title, decode_array, run_page, title_text

PAGE = "pages/masks/page.py"


@pytest.mark.parametrize("layer", [1, 2])
def test_the_kept_weights_that_grow_are_counted_on_the_drawn_maps(layer):
    at = run_page(PAGE, {"section": "Causal vs bidirectional", **({"layer": str(layer)} if layer > 1 else {})})
    assert_no_exception(at)
    causal = np.nan_to_num(decode_array(chart_by_title(at, "Causal (decoder")["data"][0]["z"]).astype(np.float64))
    both = np.nan_to_num(decode_array(chart_by_title(at, "Bidirectional")["data"][0]["z"]).astype(np.float64))
    n = causal.shape[0]
    kept = np.tril(np.ones((n, n), dtype=bool))
    change = (causal - both)[kept]
    larger, smaller = int((change > 1e-5).sum()), int((change < -1e-5).sum())
    note = next(c.value for c in at.caption if c.value.startswith("Under the causal mask"))
    said = re.search(
        r"weight (\d\.\d\d)\)\. Of the (\d+) weights the mask keeps, (\d+) are larger here than without "
        r"the mask, (\d+) the same and (\d+) smaller\.",
        note,
    )
    assert said, note
    assert float(said[1]) == pytest.approx(causal[0, 0], abs=0.005) and causal[0, 0] == pytest.approx(1.0, abs=1e-3)
    assert [int(said[k]) for k in (2, 3, 4, 5)] == [n * (n + 1) // 2, larger, kept.sum() - larger - smaller, smaller]
    title = title_text(chart_by_title(at, "Causal (decoder"))
    assert title.endswith(f": {larger} of its {n * (n + 1) // 2} weights larger than without the mask")
    if layer == 1:  # the same inputs: a row over fewer keys only grows; the last row sees every key either way
        assert smaller == 0 and larger >= n * (n + 1) // 2 - n
        np.testing.assert_allclose(causal[-1], both[-1], atol=1e-5)
        assert "no kept weight can shrink" in note
    else:
        assert "a kept weight can also shrink" in note and "no kept weight can shrink" not in note
        assert smaller > 0  # and at the default sentence some do: the note's "can" is seen on the maps drawn
