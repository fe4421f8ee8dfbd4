"""In a real browser: the pretrained-model page opens its overview, and editing the text redraws it."""

from tests.e2e.conftest import unfold, assert_no_exception, requested_runs, wait_for_chart, wait_idle
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
    # the overview now tiles 5 tokens per head ([CLS] a short sentence [SEP]): 6 x 5 rows of cells, once the chart
    # has taken the figure of the run (the title is the same before and after)
    rows = "() => document.querySelector('.js-plotly-plot').data[0].y.length"
    page.wait_for_function(f"() => ({rows})() === 6 * 5", timeout=20_000)


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


# The head view as drawn: the query whose lines are drawn (one query: every line starts at its row) and the query
# names in bold; and where a query's name ends, in the page's px (its point, which the pointer's hover finds, is
# at the name's right end).
LIT = """() => { const plot = [...document.querySelectorAll('.js-plotly-plot')]
    .find(p => p.layout && p.layout.meta && p.layout.meta.links);
  const starts = new Set(plot.data.filter(t => t.mode === 'lines')
    .flatMap(t => Array.from(t.y || []).filter((_, i) => i % 3 === 0)));
  const names = plot.data[plot.layout.meta.links.names].text;
  return {starts: [...starts], bold: Array.from(names).filter(n => String(n).startsWith('<b>'))}; }"""
NAME_AT = """(name) => { const plot = [...document.querySelectorAll('.js-plotly-plot')]
    .find(p => p.layout && p.layout.meta && p.layout.meta.links);
  const boxes = [...plot.querySelectorAll('.textpoint')].filter(t => t.textContent === name)
    .map(t => t.getBoundingClientRect()).sort((a, b) => a.left - b.left);  // the queries' column is the left one
  return [boxes[0].right - 2, boxes[0].top + boxes[0].height / 2]; }"""


def test_the_head_view_lights_the_lines_of_the_query_under_the_pointer(page, server_url):
    """As BertViz does: a pointer on a query's name draws that query's lines (its name in bold), and leaving the
    names brings back the chosen query's; no rerun is asked for."""
    page.goto(f"{server_url}/pretrained?section=Head+view")
    wait_idle(page, timeout=60_000)
    wait_for_chart(page, "head view", timeout=60_000)
    chosen = page.evaluate(LIT)
    tokens = ["[CLS]", "the", "animal", "didn", "'", "t", "cross", "the", "street", "because", "it"]
    assert chosen["starts"] == [tokens.index("it")] and chosen["bold"] == ["<b>it</b>"], chosen
    runs = requested_runs(page)
    x, y = page.evaluate(NAME_AT, "animal")
    page.mouse.move(x, y)
    page.wait_for_function(f"() => ({LIT})().starts.join() === '{tokens.index('animal')}'", timeout=10_000)
    assert page.evaluate(LIT)["bold"] == ["<b>animal</b>"]
    page.mouse.move(5, 5)  # off the figure
    page.wait_for_function(f"() => ({LIT})().starts.join() === '{tokens.index('it')}'", timeout=10_000)
    assert requested_runs(page) == runs  # all in the browser
    assert_no_exception(page)
