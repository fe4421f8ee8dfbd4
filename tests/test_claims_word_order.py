"""The word-order demo's sentences, checked on what it draws: without positions and without a mask the weights
and outputs are a reordered copy; with the causal mask (a URL switch of its own) they are not."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.apptest_helpers import assert_no_exception, chart_by_title, run_page, title_text
from tests.lesson_views import open_view, z_of

PAGE = "pages/positional_encoding/page.py"
PERMUTATION = [0, 5, 2, 3, 4, 1]  # "The mat sat on the cat": B's token j is A's token PERMUTATION[j]


def none_row(at) -> dict:
    table = next(df.value for df in at.dataframe if "positional encoding" in df.value.columns)
    return table[table["positional encoding"] == "none"].iloc[0].to_dict()


def drawn_gap(at, title: str) -> float:
    """max |A − P⁻¹B| of the drawn pair of maps (one layer and head)."""
    spec = chart_by_title(at, title)
    a, b = np.nan_to_num(z_of(spec, index=0)), np.nan_to_num(z_of(spec, index=1))
    assert [spec["layout"]["yaxis"]["ticktext"][i] for i in PERMUTATION] == spec["layout"]["yaxis2"]["ticktext"]
    inverse = np.argsort(PERMUTATION)
    return float(np.abs(a - b[np.ix_(inverse, inverse)]).max())


def test_bidirectional_without_positions_is_a_reordered_copy_weights_and_outputs():
    at = open_view("word-order", 0)
    row = none_row(at)
    assert row["permuted copy?"] == "yes"
    assert float(row["max |A − P⁻¹B| (weights)"]) < 1e-5 and float(row["max |h_A − P⁻¹h_B| (outputs)"]) < 1e-4
    assert drawn_gap(at, "self-attention, none") < 2e-3
    assert title_text(chart_by_title(at, "self-attention, none")).endswith(": B's map is A's, reordered")
    assert any(c.value.startswith("Zero (up to float32 rounding)") for c in at.caption)
    assert any("That holds without a mask only" in m.value for m in at.markdown)


@pytest.mark.parametrize("query", [{}, {"wo_layer": "2", "wo_head": "3", "wo_pe": "rotary"}])
def test_a_causal_mask_without_positions_changes_weights_and_outputs(query):
    at = (
        open_view("word-order", 1)
        if not query
        else run_page("pages/positional_encoding/page.py", {"section": "Word order", "wo_causal": "true", **query})
    )
    assert_no_exception(at)
    assert at.toggle(key="wo_causal").value is True
    spec = chart_by_title(at, "causal self-attention, none")
    for index in (0, 1):  # the mask: nothing above the diagonal, the first word all on itself
        weights = np.nan_to_num(z_of(spec, index=index))
        assert np.allclose(np.triu(weights, 1), 0.0) and weights[0, 0] == pytest.approx(1.0, abs=1e-3)
    gap = drawn_gap(at, "causal self-attention, none")
    said = re.search(r": B's map, reordered, differs from A's by up to ([\d.]+)$", title_text(spec))
    assert said and float(said[1]) == pytest.approx(gap, abs=0.006)  # the drawn weights are rounded to 1/1000
    row = none_row(at)
    weights, outputs = float(row["max |A − P⁻¹B| (weights)"]), float(row["max |h_A − P⁻¹h_B| (outputs)"])
    assert row["permuted copy?"] == "no" and gap > 0.05 and outputs > 0.05
    assert weights >= float(f"{gap:.1e}")  # the table's maximum is over every layer and head, the drawn one too
    note = next(c.value for c in at.caption if c.value.startswith("Not zero even without positional encoding"))
    said = [float(n) for n in re.findall(r"up to (\d+\.\d+)", note.split(" With ")[0])]  # the 'none' row's
    assert said == pytest.approx([weights, outputs], rel=0.06, abs=0.006)  # the table shows two digits
    assert any("The causal mask is on" in m.value for m in at.markdown)


@pytest.mark.parametrize("word, in_url", [(0, "1: The"), (4, "5: the")])
def test_positions_are_numbered_from_one_in_the_word_picker_and_the_mapping(word, in_url):
    at = run_page("pages/positional_encoding/page.py", {"section": "Word order", "wo_map": "true", "wo_word": in_url})
    assert_no_exception(at)
    picker = at.selectbox(key="wo_word")
    a_tokens = [option.split(": ", 1)[1] for option in picker.options]
    assert [option.split(": ")[0] for option in picker.options] == [str(n) for n in range(1, len(a_tokens) + 1)]
    assert picker.value == word and a_tokens[word] == in_url.split(": ")[1]  # the link's word, the default's A
    mapping = next(df.value for df in at.dataframe if "B position" in df.value.columns)
    assert list(mapping["B position"]) == list(range(1, len(PERMUTATION) + 1))
    assert list(mapping["A position"]) == [j + 1 for j in PERMUTATION]
    # each of B's tokens is the token A has at the position the table names
    assert [a_tokens[j - 1] for j in mapping["A position"]] == list(mapping["token"])


def scheme_row(at, label: str) -> dict:
    table = next(df.value for df in at.dataframe if "positional encoding" in df.value.columns)
    return table[table["positional encoding"] == label].iloc[0].to_dict()


def test_alibi_cannot_tell_a_sentence_from_its_reversal_and_the_page_says_so():
    reversed_words = "mat the on sat cat The"
    at = run_page(PAGE, {"section": "Word order", "wo_pe": "ALiBi", "text_b": reversed_words})
    assert_no_exception(at)
    row = scheme_row(at, "ALiBi")
    assert row["permuted copy?"] == "yes" and float(row["max |A − P⁻¹B| (weights)"]) < 1e-5
    note = next(c.value for c in at.caption if c.value.startswith("Zero (up to float32 rounding)"))
    assert "With ALiBi too, B's weights and outputs are a reordered copy of A's" in note
    assert "the numbers themselves can change: the table says whether they do" in " ".join(m.value for m in at.markdown)
    # the default reordering (cat and mat swapped) moves distances: ALiBi tells it apart, and the note says by how much
    at = run_page(PAGE, {"section": "Word order", "wo_pe": "ALiBi"})
    row = scheme_row(at, "ALiBi")
    note = next(c.value for c in at.caption if c.value.startswith("Zero (up to float32 rounding)"))
    assert row["permuted copy?"] == "no"
    said = float(re.search(r"With ALiBi, B's weights are up to (\d+\.\d+) away", note)[1])
    assert said == pytest.approx(float(row["max |A − P⁻¹B| (weights)"]), rel=0.06, abs=0.006)


@pytest.mark.parametrize("causal", [False, True])
def test_the_same_sentence_twice_is_said_to_be_reordered_by_nothing(causal):
    query = {"section": "Word order", "text_b": "The cat sat on the mat", **({"wo_causal": "true"} if causal else {})}
    at = run_page(PAGE, query)
    assert_no_exception(at)
    for label in ("none", "sinusoidal (paper)"):
        assert float(scheme_row(at, label)["max |A − P⁻¹B| (weights)"]) == 0.0
    assert any(c.value.startswith("Sentence B is sentence A, word for word") for c in at.caption)
