"""In a real browser, at a desktop's, a phone's and a projector's size: the Encoder-decoder page opens on the
translation model, translates what is typed (the French and its alignment redrawn), switches the alignment to
subword pieces, and opens the Alignment section; no exception anywhere."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import assert_no_exception, new_page, open_section, requested_runs, wait_for_chart, wait_idle

SIZES = {"desktop": ((1280, 800), ""), "phone": ((390, 844), ""), "projector": ((1280, 720), "?present=true")}
MAP = "Cross-attention"  # the title's start: a narrow screen wraps the rest onto more lines


@pytest.mark.parametrize("size", SIZES)
def test_typing_english_translates_and_redraws_the_alignment(browser, server_url, size):
    (width, height), query = SIZES[size]
    phone = size == "phone"
    page = new_page(browser, viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone)
    try:
        page.goto(f"{server_url}/encoder_decoder{query}")
        wait_idle(page)
        wait_for_chart(page, MAP, timeout=30_000)
        assert_no_exception(page)
        french = page.locator("[data-testid=stMarkdownContainer]", has_text="beam search (4 beams):").first
        before = french.inner_text()
        rows_before = page.locator(".js-plotly-plot .yaxislayer-above .ytick").count()
        box = page.get_by_label("English sentence (the encoder reads it)")
        if not box.is_visible():  # folded in presentation mode or on a small screen
            page.locator("[data-testid=stExpander] summary", has_text="Model and sentences").first.click()
        box.fill("The black dog is sleeping.")
        box.press("Enter")
        page.wait_for_function(
            "(old) => [...document.querySelectorAll('[data-testid=stMarkdownContainer]')]"
            ".some((e) => e.innerText.includes('beam search (4 beams):') && e.innerText !== old)",
            arg=before,
            timeout=30_000,
        )
        wait_idle(page)
        assert_no_exception(page)
        page.wait_for_function("() => /src=The(\\+|%20)black(\\+|%20)dog/.test(location.search)", timeout=15_000)
        before_runs = requested_runs(page)
        page.get_by_text("subword pieces").first.click()
        expect(page.get_by_role("switch", name="subword pieces")).to_be_checked()  # the click took
        wait_idle(page, after=before_runs)
        page.wait_for_function("() => location.search.includes('tr_pieces=true')", timeout=15_000)
        wait_for_chart(page, MAP, timeout=15_000)
        assert_no_exception(page)
        assert rows_before > 0
        open_section(page, "Alignment")
        wait_for_chart(page, "agrees most", timeout=30_000)
        assert_no_exception(page)
    finally:
        page.context.close()
