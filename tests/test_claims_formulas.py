"""The formulas and sentences beside a figure say what that figure computed: ALiBi's distance penalty and RoPE's
rotation in the score formulas, the scaling only when it is on, a logit lens read through the LayerNorm the model
has, top-p's "at least p", a window's cache and the sinusoids' longest wavelength."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.apptest_helpers import (
    assert_no_exception,
    chart_by_title,
    chart_specs,
    decode_array,
    run_page,
    run_random_model,
)
from transformer.positional import alibi_slopes

SELF_ATTENTION = "pages/self_attention/page.py"


def latex(at) -> str:
    return "\n".join(element.value for element in at.latex)


def drawn(at, title: str) -> np.ndarray:
    return decode_array(chart_by_title(at, title)["data"][0]["z"]).astype(np.float64)


@pytest.mark.parametrize("head", [1, 2])
def test_alibis_penalty_is_in_the_formula_and_in_the_drawn_scores(head):
    at = run_page(SELF_ATTENTION, {"section": "Scores and softmax", "pe": "ALiBi", "head": str(head)})
    assert_no_exception(at)
    assert r"- m\,|i - j|" in latex(at)
    raw, scaled = drawn(at, "Raw scores Q Kᵀ"), drawn(at, "Scaled scores")
    d_model, heads = (int(at.session_state[key]) for key in ("d_model", "heads"))  # the page's random model
    d_k = d_model // heads
    distance = np.abs(np.subtract.outer(np.arange(len(raw)), np.arange(len(raw))))
    slope = float(alibi_slopes(heads)[head - 1])
    np.testing.assert_allclose(scaled, raw / math.sqrt(d_k) - slope * distance, atol=2e-3)


def test_without_alibi_the_formula_has_no_penalty_and_rope_rotates_q_and_k():
    plain = run_page(SELF_ATTENTION, {"section": "Scores and softmax"})
    assert "m\\," not in latex(plain) and r"\sqrt{d_k}" in latex(plain)
    rotary = run_page(SELF_ATTENTION, {"section": "Q, K, V", "pe": "rotary (RoPE)"})
    assert_no_exception(rotary)
    assert r"q_i = R_i" in latex(rotary) and r"k_j = R_j" in latex(rotary)


def test_the_scaling_is_named_only_when_it_is_on():
    on = run_page(SELF_ATTENTION, {"section": "Scores and softmax"})
    off = run_page(SELF_ATTENTION, {"section": "Scores and softmax", "scale": "false"})
    assert_no_exception(off)
    text = lambda at: " ".join(m.value for m in at.markdown)  # noqa: E731
    assert "scaled by 1/√d_k" in text(on) and "left unscaled" in text(off)
    assert r"\sqrt{d_k}" not in latex(off).split(r"\tilde S")[1].split("\n")[0]
    np.testing.assert_allclose(drawn(off, "Scaled scores"), drawn(off, "Raw scores Q Kᵀ"), atol=2e-3)


@pytest.mark.parametrize(
    "pe,expected",
    [
        ("ALiBi", r"\right),\quad Q_i = XW_i^Q + b_i^Q"),  # the bias goes in the softmax, the rows unturned
        ("ALiBi", r"}} + B_i\right)"),
        ("ALiBi", r"(B_i)_{ts} = -m_{i}\,|t - s|\text{, ALiBi}"),
        ("rotary (RoPE)", r"{\sqrt{d_k}}\right),\quad Q_i = R(XW_i^Q + b_i^Q),\quad K_i = R(XW_i^K"),  # no bias
        ("rotary (RoPE)", r"R: \text{each row turned by its position, rotary (RoPE)}"),
    ],
)
def test_the_multi_head_formula_follows_the_positional_scheme(pe, expected):
    at = run_random_model("pages/multi_head/page.py", {"pe": pe})
    assert_no_exception(at)
    assert expected in latex(at)


def test_top_p_keeps_the_fewest_tokens_whose_probabilities_reach_at_least_p():
    import torch

    from transformer.sampling import next_distribution

    at = run_page("pages/generate/page.py")
    assert "add up to at least $p$" in " ".join(m.value for m in at.markdown)
    probabilities = torch.tensor([0.5, 0.3, 0.15, 0.05])
    kept = next_distribution(probabilities.log(), top_p=0.6).probabilities > 0
    assert kept.tolist() == [True, True, False, False]  # 0.5 alone falls short of 0.6; 0.5 + 0.3 reaches it


@pytest.mark.parametrize("d, base", [(64, 10000.0), (3, 2.0), (7, 100.0)])
def test_the_sinusoids_longest_wavelength_is_the_one_the_text_names(d, base):
    query = {} if d == 64 else {"d_model": str(d), "base": f"{base:g}"}
    at = run_page("pages/positional_encoding/page.py", query)
    assert_no_exception(at)
    text = " ".join(m.value for m in at.markdown)
    assert r"\text{base}^{2\lfloor (d-1)/2 \rfloor/d}$ (the exponent is $(d-2)/d$ for an even $d$)" in text
    spec = next(s for s in chart_specs(at) if s["data"][0].get("name") == "wavelength")
    wavelengths = decode_array(spec["data"][0]["y"]).astype(np.float64)
    # the slowest pair: the largest even dimension index 2i <= d - 1 sets base^(2i/d)
    slowest = max(2 * i for i in range(d) if 2 * i <= d - 1)
    assert wavelengths[0] == pytest.approx(2 * math.pi, rel=1e-5)
    assert wavelengths[-1] == pytest.approx(2 * math.pi * base ** (slowest / d), rel=1e-5)
    assert slowest == 2 * ((d - 1) // 2) and (d % 2 or slowest == d - 2)  # the text's exponent, and the even case
    if d == 64:
        assert wavelengths[-1] < 0.8 * 2 * math.pi * base  # short of 2π · base, as the text says


@pytest.mark.parametrize("d", [6, 5])
def test_the_raw_sinusoids_depend_on_the_offset_alone_only_for_an_even_d_model(d):
    at = run_page("pages/positional_encoding/page.py", {"section": "Schemes", "d_model": str(d), "base": "10"})
    assert_no_exception(at)
    assert "For an even d_model the raw sinusoids'" in " ".join(m.value for m in at.markdown)
    spec = next(s for s in chart_specs(at) if s["data"][0]["name"].startswith("sinusoidal"))
    z = decode_array(spec["data"][0]["z"]).astype(np.float64)
    spread = max(np.ptp(np.diagonal(z, offset)) for offset in range(-(len(z) - 2), len(z) - 1))
    assert (spread < 1e-5) if d % 2 == 0 else (spread > 0.1)  # constant along every diagonal, or not
