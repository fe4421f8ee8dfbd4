"""In a real browser: a lesson walked with Next in presentation mode, and a shared view's QR code."""

from __future__ import annotations

import io
from urllib.parse import parse_qs, urlsplit

import zxingcpp
from PIL import Image

from tests.e2e.conftest import RANDOM_MULTI_HEAD, assert_no_exception, nudge_slider, wait_for_chart, wait_idle

# The "One head or many heads" lesson, step by step: the URL state each step must show, and a chart title.
STEPS = [
    ({"heads": "1", "step": "1"}, "Layer 1 · 1 heads"),
    ({"heads": "8", "step": "2"}, "Layer 1 · 8 heads"),
    ({"step": "3", "section": "Concat × W^O"}, "4 heads · head"),  # 4 is the default: not in the URL
]


def query_of(page) -> dict[str, str]:
    return {key: values[-1] for key, values in parse_qs(urlsplit(page.url).query).items()}


def test_a_lesson_walked_with_next_in_presentation_mode(page, server_url):
    page.goto(f"{server_url}/lessons?present=true&topic=One+head+or+many+heads")
    wait_idle(page)
    assert page.locator("[data-testid=stSidebar][data-collapsed=true]").count() == 1  # closed for the projector
    page.get_by_role("link", name="Step 1: One head").click()
    for number, (expected, title) in enumerate(STEPS):
        wait_idle(page)
        wait_for_chart(page, title, timeout=20_000)
        query = query_of(page)
        assert query["lesson"] == "heads" and query["present"] == "true", page.url
        assert all(query.get(key) == value for key, value in expected.items()), (number, page.url)
        assert page.get_by_text(f"step {number + 1} of {len(STEPS)}").count() >= 1
        assert_no_exception(page)
        if number + 1 < len(STEPS):
            page.get_by_role("link", name="Next").click()
    page.get_by_role("link", name="Previous").click()
    wait_idle(page)
    wait_for_chart(page, STEPS[1][1], timeout=20_000)
    assert query_of(page)["step"] == "2"


def test_the_share_code_decodes_to_the_address_of_the_view(page, server_url):
    page.goto(f"{server_url}/{RANDOM_MULTI_HEAD}&section=Mean+and+rollout")
    wait_idle(page)
    nudge_slider(page, "layers")
    wait_idle(page)
    page.wait_for_function("() => location.search.includes('layers=3')", timeout=10_000)
    page.get_by_role("button", name="Share this view").click()
    wait_idle(page)
    image = page.locator("[data-testid=stPopoverBody] img, [data-testid=stPopover] img").first
    image.wait_for(timeout=10_000)
    png = page.request.get(
        image.get_attribute("src")
        if image.get_attribute("src").startswith("http")
        else server_url + image.get_attribute("src")
    ).body()
    decoded = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))
    assert len(decoded) == 1
    link = decoded[0].text
    assert urlsplit(link).path == urlsplit(page.url).path == "/multi_head"
    assert query_of(page) == {key: values[-1] for key, values in parse_qs(urlsplit(link).query).items()}
    assert query_of(page)["layers"] == "3"  # the slider's new value is in both
