"""Generate writes the temperature as τ (every other page's T is the sequence length): the slider, the captions,
the figures' titles and traces, at the default temperature and at others; the value named is the one drawn with."""

from __future__ import annotations

import re

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


@pytest.mark.parametrize(("section", "temperature"),
                         [("Next token", None), ("Next token", "0.5"), ("Next token", "0.0"), ("Compare", "1.5")])
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
