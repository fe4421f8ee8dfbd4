"""In a real browser: the Generate page steps generation one token at a time and follows the temperature."""

from tests.e2e.conftest import assert_no_exception, nudge_slider, open_section, wait_for_chart, wait_idle


def test_stepping_writes_one_token_at_a_time(page, server_url):
    page.goto(f"{server_url}/generate")
    wait_idle(page)
    wait_for_chart(page, "Token 1: softmax(z / τ) with τ = 1", timeout=60_000)
    written = page.locator("[data-testid=stCode]").first.inner_text()

    page.locator(".st-key-step_next button").click()
    wait_for_chart(page, "Token 2: softmax(z / τ)", timeout=20_000)
    wait_idle(page)
    after = page.locator("[data-testid=stCode]").first.inner_text()
    assert after != written and "token=2" in page.url

    page.locator(".st-key-step_all button").click()
    page.wait_for_selector("[data-testid=stAlert]:has-text('Finished after')", timeout=20_000)
    wait_idle(page)
    assert_no_exception(page)

    page.get_by_text("Sampling: strategy, temperature, top-k and top-p").click()  # the settings, folded
    nudge_slider(page, "temperature τ", "Home")  # τ = 0: greedy, said so
    page.wait_for_selector("text=τ = 0 is greedy", timeout=20_000)
    wait_idle(page)
    assert_no_exception(page)

    open_section(page, "Compare")
    wait_for_chart(page, "beam(s), the chosen text orange", timeout=30_000)
    wait_idle(page)
    assert_no_exception(page)
