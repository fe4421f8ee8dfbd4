"""In a real browser: the pretrained-model page opens its overview, and editing the text redraws it."""

from tests.e2e.conftest import unfold, assert_no_exception, wait_for_chart, wait_idle
from tests.e2e.test_charts_in_place import MARK, MARKS


def test_pretrained_overview_redraws_after_a_text_edit(page, server_url):
    page.goto(f"{server_url}/pretrained?section=All+heads")
    wait_idle(page, timeout=60_000)
    wait_for_chart(page, "6 layers × 12 heads", timeout=60_000)
    assert_no_exception(page)
    box = page.locator("[data-testid=stTextArea] textarea").first
    unfold(box)  # the page's settings, folded
    box.fill("A short sentence")
    box.press("Control+Enter")  # a text area applies its value on Ctrl+Enter (or when it loses focus)
    page.wait_for_url("**text=A+short+sentence**", timeout=20_000)
    wait_idle(page)
    wait_for_chart(page, "6 layers × 12 heads")
    assert_no_exception(page)
    # the overview now tiles 5 tokens per head ([CLS] a short sentence [SEP]): 6 x 5 rows of cells
    rows = page.evaluate("() => document.querySelector('.js-plotly-plot').data[0].y.length")
    assert rows == 6 * 5


def test_hiding_cls_and_sep_redraws_the_open_section_in_place(page, server_url):
    """The note that [CLS] and [SEP] are hidden takes a place of its own above the sections: the open section's
    figure stays the same plot, updated, instead of a new one drawn each time the switch moves."""
    page.goto(f"{server_url}/pretrained?section=One+layer")
    wait_idle(page, timeout=60_000)
    wait_for_chart(page, "Layer", timeout=60_000)
    unfold(page.locator("[data-testid=stCheckbox]", has_text="hide [CLS] and [SEP]").first)  # the folded settings
    page.evaluate(MARK)
    marks = page.evaluate(MARKS)
    assert marks and all(marks)
    page.locator("[data-testid=stCheckbox]", has_text="hide [CLS] and [SEP]").locator("label").click()
    page.wait_for_url("**hide=true**", timeout=20_000)
    wait_idle(page)
    assert "[CLS] and [SEP] hidden" in page.locator("[data-testid=stMain]").inner_text()
    assert page.evaluate(MARKS) == marks
    assert_no_exception(page)
