"""In a real browser: the encoder-decoder page opens on its attention tab, redraws after a selectbox
change, opens another tab (bound to the URL) and redraws after a slider change there."""

from tests.e2e.conftest import assert_no_exception, nudge_slider, open_section, wait_for_chart, wait_idle


def chart_titles(page) -> list[str]:
    return page.locator(".js-plotly-plot .gtitle").all_text_contents()


def test_encoder_decoder_loads_and_redraws(page, server_url):
    page.goto(f"{server_url}/encoder_decoder")
    wait_idle(page)
    page.wait_for_selector(".js-plotly-plot", timeout=20_000)
    assert_no_exception(page)
    assert page.locator(".js-plotly-plot").count() == 1  # only the open tab's chart is built
    assert any("encoder self-attention" in t for t in chart_titles(page))

    page.locator("[data-testid=stSelectbox]", has_text="attention").first.locator("input").click()
    if page.get_by_role("option").count() == 0:  # the click only moved the focus
        page.keyboard.press("ArrowDown")
    page.get_by_role("option", name="encoder-decoder cross-attention").click()
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
