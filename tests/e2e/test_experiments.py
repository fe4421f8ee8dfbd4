"""In a real browser: the Experiments page knocks a head out and redraws what the model can still do."""

from tests.e2e.conftest import assert_no_exception, open_section, wait_for_chart, wait_idle
from tests.e2e.test_charts_in_place import MARK, MARKS


def accuracy_bars(page) -> list[str]:
    """The printed values on the accuracy chart's bars (before, after)."""
    chart = page.locator(".js-plotly-plot", has=page.locator(".gtitle", has_text="Accuracy"))
    return chart.locator(".bartext").evaluate_all("texts => texts.map(t => t.textContent)")


def test_toggling_heads_redraws_the_result_and_the_link_keeps_them(page, server_url):
    page.goto(f"{server_url}/experiments")
    wait_idle(page)
    wait_for_chart(page, "with every head", timeout=60_000)
    assert accuracy_bars(page) == ["1.000", "1.000"]
    page.evaluate(MARK)

    page.locator(".st-key-ko_decoder1_self_attn button", has_text="head 1").click()
    wait_for_chart(page, "1 head knocked out", timeout=20_000)
    wait_idle(page)
    assert page.evaluate(MARKS) == [1, 2]  # the note above them went, the two plots stayed and were updated
    page.locator(".st-key-ko_decoder1_self_attn button", has_text="head 2").click()
    wait_for_chart(page, "2 heads knocked out", timeout=20_000)
    wait_idle(page)
    before, after = accuracy_bars(page)
    assert before == "1.000" and float(after) < 0.05  # both induction heads gone: near chance (1/26)
    assert page.url.count("ko_decoder1_self_attn=") == 2
    assert_no_exception(page)
    link = page.url

    open_section(page, "Patching")
    wait_for_chart(page, "Fraction of the logit difference restored", timeout=20_000)
    wait_idle(page)
    assert_no_exception(page)
    page.goto(link)
    wait_idle(page)
    wait_for_chart(page, "2 heads knocked out", timeout=30_000)  # the link restores the knocked-out heads
    assert_no_exception(page)
