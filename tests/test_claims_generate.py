"""Generate writes the temperature as τ (every other page's T is the sequence length): the slider, the captions,
the figures' titles and traces, at the default temperature and at others; the value named is the one drawn with."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.apptest_helpers import assert_no_exception, chart_specs, run_page

PAGE = "pages/generate/page.py"
TEMPERATURE_AS_T = re.compile(r"z / T\b|\bT = \d|\$T\$|\bT<|\bT>|temperature T\b|/ T\)")


def everything_written(at) -> list[str]:
    texts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [x.value for x in at.latex]
    texts += [w.label for kind in ("slider", "select_slider", "number_input") for w in at.get(kind)]
    for spec in chart_specs(at):
        texts.append(spec["layout"]["title"]["text"])
        texts += [t.get(field) or "" for t in spec["data"] for field in ("name", "hovertemplate")]
    return texts


@pytest.mark.parametrize(
    ("section", "temperature"), [("Next token", None), ("Next token", "0.5"), ("Next token", "0.0"), ("Compare", "1.5")]
)
def test_the_temperature_is_tau_and_the_value_named_is_the_slider_s(section, temperature):
    at = run_page(PAGE, {"section": section, **({"t": temperature} if temperature else {})})
    assert_no_exception(at)
    shown = at.slider(key="t")
    assert shown.label.startswith("temperature τ")
    written = everything_written(at)
    assert not [text for text in written if TEMPERATURE_AS_T.search(text)]
    value = f"{float(shown.value):g}"
    if section == "Next token":
        titles = [spec["layout"]["title"]["text"] for spec in chart_specs(at)]
        title = next(text for text in titles if text.startswith("Token 1"))
        assert f"softmax(z / τ) with τ = {value};" in title
        if float(shown.value) == 0:
            assert any(c.value.startswith("τ = 0 is greedy") for c in at.caption)
    else:
        assert any(f"sampled (τ = {value}, seed 0)" in m.value for m in at.markdown)
    assert any(r"\exp(z_i / \tau)" in x.value for x in at.latex)


def test_what_sharing_keys_and_values_and_a_window_save_is_read_from_the_table():
    """The Generate summary: cache memory is saved, parameters by sharing keys and values, time per token does not
    halve at these sizes; the caption says the same from the table's numbers."""
    from ui.pages_index import PAGES

    summary = next(page.summary for page in PAGES if page.path == PAGE)
    assert (
        "cache memory (sharing keys and values also saves parameters); their time per token, timed beside it, "
        "does not halve at these sizes" in summary
    )
    at = run_page(PAGE, {"section": "KV cache"})
    assert_no_exception(at)
    table = next(df.value for df in at.dataframe if "parameters" in df.value.columns)
    full, others = table.iloc[0], table.iloc[1:]
    shared = others[others["K/V heads"] < full["K/V heads"]]
    window = others[others["variant"].str.startswith("sliding window")]
    assert len(shared) and len(window)
    assert (others["cache (bytes)"] < full["cache (bytes)"]).all()  # every variant saves cache memory
    assert (shared["parameters"] < full["parameters"]).all() and (window["parameters"] == full["parameters"]).all()
    assert (others["ms per token"] > 0.5 * full["ms per token"]).all()  # no variant halves the time per token
    note = next(c.value for c in at.caption if c.value.startswith("Random models of this model's sizes"))
    fewer = int((others["parameters"] < full["parameters"]).sum())
    assert f"{fewer} of the {len(others)} {'has' if fewer == 1 else 'have'} fewer parameters" in note
    smallest = others.loc[others["cache (bytes)"].idxmin()]  # the first of the smallest, as the table lists them
    assert (
        f"(the smallest cache, {smallest['variant']}'s, holds {smallest['cache (bytes)']:,} bytes, against "
        f"{full['cache (bytes)']:,})" in note
    )
    assert "at the least" not in note
    rounds = np.array([[float(ms) for ms in row.split(" · ")] for row in table["each round (ms)"]])
    np.testing.assert_allclose(rounds.min(axis=1), table["ms per token"], atol=0.006)  # the best round is shown
    ratios = rounds[1:] / rounds[0]  # each variant over multi-head, round by round (3 decimals: clear cases only)
    if (ratios <= 0.75).all(axis=1).all():
        assert f"took under 0.8 of its time per token in each of {rounds.shape[1]} rounds" in note
    elif (ratios >= 0.85).all():
        assert "none took under 0.8 of its time per token (" in note
        assert f"in any of {rounds.shape[1]} rounds: here they save memory, not time" in note
    mixed = [(r <= 0.76).any() and (r >= 0.84).any() for r in ratios]  # rounds on both sides of 0.8: no verdict
    if any(mixed):
        assert "the rounds do not agree whether they take under 0.8" in note and "took under 0.8" not in note
