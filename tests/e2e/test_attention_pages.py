"""In a real browser: the attention pages redraw when a control changes, without an exception; the heads'
formula fits a laptop's column."""

from urllib.parse import urlencode

import pytest

from tests.e2e.figure_standard import CUT_FORMULAS
from tests.e2e.conftest import (
    DRAWN_TITLES,
    unfold,
    RANDOM_MULTI_HEAD,
    assert_no_exception,
    new_page,
    nudge_slider,
    open_section,
    wait_for_chart,
    wait_idle,
)

TITLE = ".js-plotly-plot .gtitle"
# every display formula of the page: the LaTeX it was written in
FORMULAS = """() => [...document.querySelectorAll('[data-testid=stMain] .katex-display')]
  .map((box) => ({text: (box.querySelector('annotation') || box).textContent}))"""


def chart_titles(page) -> list[str]:
    return page.evaluate(DRAWN_TITLES)


def test_multi_head_grid_redraws_when_heads_change(page, server_url):
    page.goto(f"{server_url}/{RANDOM_MULTI_HEAD}")
    wait_idle(page)
    page.wait_for_selector(TITLE, timeout=20_000)
    assert any("Layer 1 · 4 heads" in t for t in chart_titles(page))
    nudge_slider(page, "heads")  # 4 -> 8: the next of the divisors of d_model = 64
    wait_idle(page)
    wait_for_chart(page, "Layer 1 · 8 heads", timeout=20_000)
    assert_no_exception(page)
    assert "heads=8" in page.url


def test_self_attention_redraws_when_d_model_changes(page, server_url):
    page.goto(f"{server_url}/self_attention")
    wait_idle(page)
    page.wait_for_selector(TITLE, timeout=20_000)
    assert any("each 11 × 8" in t for t in chart_titles(page))  # d_k = 16 / 2 heads
    d_model = page.locator("[data-testid=stSlider]", has_text="d_model")
    assert d_model.count() == 0  # the model's settings are behind their button until it is pressed
    unfold(page.locator("button", has_text="Model settings").first)  # the page's settings, folded
    page.get_by_role("button", name="Model settings").click()
    slider = d_model.locator("input[type=range], [role=slider]").first
    slider.focus()
    slider.press("ArrowRight")
    wait_idle(page)
    wait_for_chart(page, "each 11 × 16", timeout=20_000)
    assert slider.is_visible()  # the panel stays open through the rerun: the next setting is one move away
    assert "d_model=32" in page.url
    assert_no_exception(page)


def test_multi_head_link_opens_its_tab_and_redraws_when_layer_changes(page, server_url):
    page.goto(f"{server_url}/{RANDOM_MULTI_HEAD}&section=Mean+and+rollout")
    wait_idle(page)
    page.wait_for_selector(TITLE, timeout=20_000)
    titles = chart_titles(page)
    assert any("Layer 1 · mean over 4 heads" in t for t in titles) and not any("head view" in t for t in titles)
    slider = page.locator("[data-testid=stSlider]", has_text="layer (").locator("input[type=range], [role=slider]")
    unfold(slider.first)  # the page's settings, folded
    slider.first.focus()
    slider.first.press("ArrowRight")
    wait_idle(page)
    wait_for_chart(page, "Layer 2 · mean over 4 heads", timeout=20_000)
    assert_no_exception(page)
    assert "section=Mean" in page.url and "layer=2" in page.url


def test_self_attention_tab_click_opens_its_charts_and_temperature_redraws_them(page, server_url):
    page.goto(f"{server_url}/self_attention")
    wait_idle(page)
    wait_for_chart(page, "Queries, keys and values", timeout=20_000)
    open_section(page, "Scores and softmax")
    wait_idle(page)
    wait_for_chart(page, "Raw scores")
    assert "section=Scores" in page.url and not any("Queries, keys" in t for t in chart_titles(page))
    nudge_slider(page, "temperature")
    wait_idle(page)
    wait_for_chart(page, "(τ = 1.1)")
    assert_no_exception(page)
    assert "temp=1.1" in page.url


@pytest.mark.parametrize("scheme", ["ALiBi", "rotary (RoPE)"])
def test_the_head_formula_with_its_where_list_fits_a_laptops_column(browser, server_url, scheme):
    """The heads' formula names what ALiBi's bias and RoPE's rotation are; on a laptop (1280 x 800) it is set on two
    lines (the equations, then that list) and no line runs past the page's column."""
    page = new_page(browser, viewport={"width": 1280, "height": 800})
    try:
        page.goto(f"{server_url}/{RANDOM_MULTI_HEAD}&{urlencode({'pe': scheme})}")
        wait_idle(page)
        page.wait_for_selector(TITLE, timeout=20_000)
        assert_no_exception(page)
        heads = [f for f in page.evaluate(FORMULAS) if "softmax" in f["text"] and "Q_i" in f["text"]]
        assert len(heads) == 1 and scheme.split(" ")[0] in heads[0]["text"], heads
        assert heads[0]["text"].strip().startswith(r"\begin{gathered}"), heads  # two lines: equations, then the list
        assert page.evaluate(CUT_FORMULAS) == []
    finally:
        page.context.close()
