"""In a real browser: the encoder-decoder page opens on its attention tab, redraws after a selectbox
change, opens another tab (bound to the URL) and redraws after a slider change there; the "Paper's sizes"
button runs the paper's base model and writes its settings into the URL."""

from urllib.parse import quote

from tests.e2e.conftest import (
    DRAWN_TITLES,
    unfold,
    assert_no_exception,
    choose,
    nudge_slider,
    open_section,
    wait_for_chart,
    wait_idle,
)

RANDOM = "?model=" + quote("random model (settings below)")  # the page opens on the translation model otherwise


def chart_titles(page) -> list[str]:
    return page.evaluate(DRAWN_TITLES)


def test_encoder_decoder_loads_and_redraws(page, server_url):
    page.goto(f"{server_url}/encoder_decoder{RANDOM}")
    wait_idle(page)
    page.wait_for_selector(".js-plotly-plot", timeout=20_000)
    assert_no_exception(page)
    assert page.locator(".js-plotly-plot").count() == 1  # only the open tab's chart is built
    assert any("encoder self-attention" in t for t in chart_titles(page))

    choose(
        page,
        page.locator("[data-testid=stSelectbox]", has_text="attention").first.locator("input"),
        "encoder-decoder cross-attention",
    )
    wait_for_chart(page, "encoder-decoder cross-attention", timeout=15_000)
    wait_idle(page)
    assert_no_exception(page)

    open_section(page, "Output")
    wait_for_chart(page, "top 10 of 4096", timeout=15_000)
    wait_idle(page)
    assert "section=Output" in page.url
    assert page.locator(".js-plotly-plot").count() == 1

    nudge_slider(page, "top k")
    wait_for_chart(page, "top 11 of 4096", timeout=15_000)
    wait_idle(page)
    assert_no_exception(page)


def test_the_papers_sizes_button_runs_the_base_model_and_writes_the_url(page, server_url):
    page.goto(f"{server_url}/encoder_decoder{RANDOM}")
    wait_idle(page)
    wait_for_chart(page, "all 4 heads · encoder self-attention", timeout=20_000)
    unfold(page.locator("button", has_text="Model settings").first)  # the page's settings, folded
    page.get_by_role("button", name="Model settings").click()
    page.get_by_role("button", name="Paper's sizes").click()
    wait_for_chart(page, "all 8 heads · encoder self-attention", timeout=30_000)
    wait_idle(page)
    assert_no_exception(page)
    summary = page.locator("[data-testid=stCaptionContainer]", has_text="Random model:").first.inner_text()
    assert "6 encoder and 6 decoder layers, d_model = 512, 8 heads, d_ff = 2048" in summary, summary
    for part in ("enc=6", "dec=6", "d_model=512", "heads=8", "d_ff=2048", "shared=true"):
        assert part in page.url, (part, page.url)
