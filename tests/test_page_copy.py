"""The teacher's page as HTML (``ui.rooms.page_copy``), from element and block messages as Streamlit sends them:
text, formulas and tables drawn, blocks nested in order, controls and popovers left out, charts named, what it
cannot hold reported, and no user text ever reaching a student's page as HTML."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pandas as pd
import pyarrow as pa
from streamlit.proto.Delta_pb2 import Delta

from ui.rooms.page_copy import page_copy
from ui.rooms.page_text import PageText, Written

CHARTS = "attention_lab_chart"


def element(kind: str, **fields) -> Delta:
    delta = Delta()
    message = getattr(delta.new_element, kind)
    message.SetInParent()
    for name, value in fields.items():
        setattr(message, name, value)
    return delta


def markdown(body: str, element_type: str = "NATIVE", allow_html: bool = False) -> Delta:
    delta = Delta()
    delta.new_element.markdown.body = body
    delta.new_element.markdown.element_type = type(delta.new_element.markdown).Type.Value(element_type)
    delta.new_element.markdown.allow_html = allow_html
    return delta


def block(kind: str) -> Delta:
    delta = Delta()
    getattr(delta.add_block, kind).SetInParent()
    return delta


def columns(*weights: float) -> list[Delta]:
    row = block("flex_container")
    row.add_block.flex_container.direction = type(row.add_block.flex_container).Direction.Value("HORIZONTAL")
    made = [row]
    for weight in weights:
        column = block("column")
        column.add_block.column.weight = weight
        made.append(column)
    return made


def written(messages: dict[tuple[int, ...], Delta]) -> dict:
    """Delta path -> ``Written``, as ``ui.rooms.page_text`` keeps a page (each with a hash of its own)."""
    record = {}
    for path, delta in messages.items():
        if delta.WhichOneof("type") == "add_block":
            kind = "block:" + delta.add_block.WhichOneof("type")
        else:
            kind = delta.new_element.WhichOneof("type")
        record[path] = Written(kind, f"{kind}-{path}-{hash(delta.SerializeToString())}", delta)
    return record


def copy_of(messages: dict[tuple[int, ...], Delta]) -> tuple[str, bool]:
    return page_copy(written(messages), CHARTS)


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text."""

    def __init__(self, markup: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.feed(markup)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def test_markdown_formulas_headings_captions_and_alerts_are_drawn_in_the_pages_order():
    messages = {
        (0, 2): markdown("Second: $d_k = d_{model} / h$"),
        (0, 0): element("heading", tag="h1", body="Masks"),
        (0, 1): markdown("A **mask** says which keys each query may look at."),
        (0, 3): markdown("$$\nA = \\mathrm{softmax}(QK^\\top)\n$$", "LATEX"),
        (0, 4): markdown("Of the 64 cells, 36 are allowed.", "CAPTION"),
        (0, 5): element("alert", body="Pick a trained model.", format=3),
        (0, 6): markdown("", "DIVIDER"),
    }
    copy, whole = copy_of(messages)
    assert whole
    tags = [tag for tag, _ in Tags(copy).tags]
    assert tags[:3] == ["h1", "p", "strong"]
    assert copy.index("Masks") < copy.index("mask</strong>") < copy.index("Second") < copy.index('display="block"')
    inline = re.search(r"<math display=\"inline\">.*?</math>", copy)
    assert inline and "<msub><mi>d</mi><mi>k</mi></msub>" in inline.group(0)
    assert '<math display="block">' in copy  # st.latex: a formula of its own line
    assert '<div class="lab-copy-caption"><p>Of the 64 cells, 36 are allowed.</p>' in copy
    assert '<div class="lab-copy-alert lab-copy-info"><p>Pick a trained model.</p>' in copy
    assert copy.endswith("<hr>")


def test_user_text_never_becomes_html_in_text_formulas_links_or_tables():
    attack = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    frame = pd.DataFrame({"token": [attack], "weight": [0.5]})
    sink = pa.BufferOutputStream()
    table = pa.Table.from_pandas(frame)
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    dataframe = Delta()
    dataframe.new_element.dataframe.arrow_data.data = sink.getvalue().to_pybytes()
    messages = {
        (0, 0): markdown(f"The sentence: {attack}"),
        (0, 1): markdown(f"$\\text{{{attack}}} + x$"),
        (0, 6): markdown("$\\text{<a/href=https://x.co>go</a>}$ and $\\text{</mtext></math><h1>out</h1>}$"),
        (0, 2): markdown("[a link](javascript:alert(3)) and [another](https://example.org)"),
        (0, 3): element("heading", tag="h2", body=attack),
        (0, 4): dataframe,
        (0, 5): element("code", code_text=attack),
    }
    copy, whole = copy_of(messages)
    assert whole
    parsed = Tags(copy)
    assert {tag for tag, _ in parsed.tags} <= {
        "p",
        "h2",
        "span",
        "math",
        "mrow",
        "mtext",
        "mo",
        "mi",
        "a",
        "div",
        "table",
    } | {
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "pre",
        "code",
    }
    assert not any(name.startswith("on") or name == "src" for _, attrs in parsed.tags for name in attrs)
    assert [attrs.get("href") for tag, attrs in parsed.tags if tag == "a"] == ["https://example.org"]
    assert "<h1>" not in copy  # a formula's text (\\text{...}) stays text: shown as the formula's source
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in copy  # shown as the text it is
    assert "<script" not in copy and "<img" not in copy


def test_columns_expanders_and_containers_nest_as_on_the_page_and_popovers_and_controls_are_left_out():
    row, wide, narrow = columns(2.0, 1.0)
    closed, opened = block("expandable"), block("expandable")
    closed.add_block.expandable.label = "The whole table"
    opened.add_block.expandable.label = "How it is computed"
    opened.add_block.expandable.expanded = True
    messages = {
        (0, 0): row,
        (0, 0, 1): narrow,
        (0, 0, 0): wide,
        (0, 0, 1, 0): markdown("right"),
        (0, 0, 0, 0): markdown("left"),
        (0, 0, 0, 1): element("slider", label="heads"),
        (0, 1): closed,
        (0, 1, 0): markdown("inside closed"),
        (0, 2): opened,
        (0, 2, 0): markdown("inside open"),
        (0, 3): block("popover"),
        (0, 3, 0): markdown("only on a click"),
        (0, 4): block("vertical"),
        (0, 4, 0): element("button_group"),
        (0, 4, 1): markdown("after the controls"),
        (0, 5): columns(1.0, 1.0)[0],
        (0, 5, 0): columns(1.0)[1],
        (0, 5, 0, 0): element("slider", label="seed"),
        (0, 5, 1): columns(3.0)[1],
        (0, 5, 1, 0): markdown("beside the seed"),
    }
    copy, whole = copy_of(messages)
    assert whole
    assert copy.startswith(
        '<div class="lab-copy-row"><div class="lab-copy-column" style="flex: 2 1 0"><p>left</p>\n</div>'
        '<div class="lab-copy-column" style="flex: 1 1 0"><p>right</p>\n</div></div>'
    )
    assert "<details><summary>The whole table</summary><p>inside closed</p>" in copy
    assert "<details open><summary>How it is computed</summary><p>inside open</p>" in copy
    assert "only on a click" not in copy and "heads" not in copy
    assert '<div class="lab-copy-stack"><p>after the controls</p>\n</div>' in copy
    # a column of controls only is left out: the text beside it has the row to itself
    assert copy.endswith(
        '<div class="lab-copy-row"><div class="lab-copy-column" style="flex: 3 1 0"><p>beside the seed</p>\n</div></div>'
    )


def test_a_chart_is_a_named_empty_place_and_other_components_are_left_out():
    chart, other = Delta(), Delta()
    chart.new_element.bidi_component.component_name = CHARTS
    chart.new_element.bidi_component.bytes = b'chart:heads"<x>\n{"data": []}'
    other.new_element.bidi_component.component_name = "attention_lab_follower"
    copy, whole = copy_of({(0, 0): chart, (0, 1): other, (0, 2): markdown("below")})
    assert whole
    assert copy == '<div class="lab-copy-chart" data-chart="chart:heads&quot;&lt;x&gt;"></div><p>below</p>\n'


def test_a_table_shows_its_index_unless_hidden_and_numbers_as_streamlit_does():
    frame = pd.DataFrame({"weight": [0.123456, float("nan"), 2.0]}, index=["the", "cat", "sat"])
    sink = pa.BufferOutputStream()
    table = pa.Table.from_pandas(frame)
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    data = sink.getvalue().to_pybytes()
    shown, hidden = Delta(), Delta()
    shown.new_element.table.arrow_data.data = data
    hidden.new_element.dataframe.arrow_data.data = data
    hidden.new_element.dataframe.columns = '{"_index": {"hidden": true}}'
    copy, _ = copy_of({(0, 0): shown})
    rows = re.findall(r"<tr>(.*?)</tr>", copy)
    assert rows == [
        "<th></th><th>weight</th>",
        "<th>the</th><td>0.1235</td>",
        "<th>cat</th><td></td>",
        "<th>sat</th><td>2</td>",
    ]
    copy, _ = copy_of({(0, 0): hidden})
    assert re.findall(r"<tr>(.*?)</tr>", copy)[:2] == ["<th>weight</th>", "<td>0.1235</td>"]


def test_what_the_copy_cannot_hold_makes_it_not_whole():
    for unheld in (
        {(0, 0): element("graphviz_chart", spec="digraph { a -> b }")},
        {(0, 0): element("imgs")},
        {(0, 0): markdown("<b>raw</b>", allow_html=True)},
        {(0, 0): block("tab_container"), (0, 0, 0): block("tab")},
        {(0, 0): block("form"), (0, 0, 0): element("radio", label="Your answer")},  # the student answers
        {(0, 0): element("exception", message="boom")},
    ):
        copy, whole = copy_of({**unheld, (0, 9): markdown("text")})
        assert not whole, unheld
        assert copy.endswith("<p>text</p>\n")


def test_the_record_keeps_the_page_only_and_a_fragments_rerun_replaces_what_it_wrote():
    """What the bars write before the page (and their fragment's later runs) is not kept; a block written again
    (a fragment's rerun) forgets what was below it; a chart is kept by its name only."""
    record = PageText()
    record.start("s")
    record.seen("s", (0, 0), block("vertical"), "bar")  # the class bar, before the page writes
    record.begin_page("s")
    record.seen("s", (0, 2), element("heading", tag="h1", body="Masks"), "h")
    record.seen("s", (0, 3), block("vertical"), "fragment")
    record.seen("s", (0, 3, 0), markdown("before"), "m1")
    record.seen("s", (0, 3, 1), markdown("left behind"), "m2")
    chart = Delta()
    chart.new_element.bidi_component.component_name = CHARTS
    chart.new_element.bidi_component.bytes = b"chart:x\n" + b"{}" * 10_000
    record.seen("s", (0, 4), chart, "c")
    record.seen("s", (0, 1), block("vertical"), "live")  # the teacher's live part, above the page, runs again
    record.seen("s", (0, 3), block("vertical"), "fragment")  # the page's fragment runs again
    record.seen("s", (0, 3, 0), markdown("after"), "m3")
    kept = record.elements("s")
    assert sorted(kept) == [(0, 2), (0, 3), (0, 3, 0), (0, 4)]
    assert kept[(0, 3, 0)].delta.new_element.markdown.body == "after"
    assert kept[(0, 4)].delta.new_element.bidi_component.bytes == b"chart:x"
    copy, whole = page_copy(kept, CHARTS)
    assert whole and "left behind" not in copy and 'data-chart="chart:x"' in copy
    assert page_copy({}, CHARTS) == ("", False)  # nothing recorded: no page to show
