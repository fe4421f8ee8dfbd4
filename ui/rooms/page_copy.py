"""The teacher's page as HTML: what a following student's browser shows in place of its own page, with the
teacher's figures put in by name, so that no page of a following student runs when the teacher's page changes.

``page_copy(elements, chart_component)`` turns what a teacher's page wrote (``ui.rooms.page_text``: delta path ->
kind and message) into ``(html, whole)``. The page's text-like elements become HTML: Markdown (with ``$...$`` and
``$$...$$`` formulas as MathML, which browsers draw themselves), headings, captions, formulas, alerts, code,
metrics, tables, progress bars; its blocks become rows of weighted columns, stacks and open or closed
expanders; each chart becomes an empty ``<div data-chart="NAME">`` the browser draws the teacher's figure into.
Controls are left out (a following student sees the teacher's settings above the page), and so is what a
popover or dialog holds. ``whole`` is False when the page shows something else (an image, a graph, tabs, an
error) or holds a form for the student to fill in (a lesson's question): the student's page then runs to show it.

Every element's HTML is cleaned by an allow-list (``nh3``), and a formula is kept only when the converter's
output is MathML through and through (it copies ``\\text{...}`` out unescaped): user text is never HTML, and no
script, event handler or style but a column's width can reach a student's page. An element's HTML is kept by
its message's hash (in ``ui.cache``'s computation cache), so a teacher's run converts only what changed.
"""

from __future__ import annotations

import html
import logging
import json
import math
import re
from dataclasses import dataclass, field
from xml.etree import ElementTree

import nh3
import pyarrow as pa
from latex2mathml.converter import convert as latex_to_mathml
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from ui.cache import computation

CONTROLS = frozenset(
    "audio_input balloons button button_group camera_input chat_input checkbox color_picker date_input "
    "date_time_input download_button empty favicon feedback file_uploader help_info link_button menu_button "
    "multiselect number_input page_link pagination radio selectbox skeleton slider snow space spinner text_area "
    "text_input time_input toast".split()
)  # not the page's content: left out of the copy
COPIED = frozenset(
    "markdown heading alert code text json metric progress dataframe table bidi_component".split()
)  # what the copy holds (a component: the app's charts only)
NOT_COPIED = frozenset(
    "imgs graphviz_chart html exception iframe video audio deck_gl_json_chart plotly_chart vega_lite_chart "
    "echarts_chart component_instance".split()
)  # known, and not held by the copy: a page that shows one runs for the student instead
LEFT_OUT_COMPONENTS = frozenset(
    {
        "attention_lab_screen",
        "attention_lab_show_section",
        "attention_lab_drawing",
        "attention_lab_follower",
        "attention_lab_class_key",
    }
)  # the app's components that draw nothing of the page (ui/screen.py, the class's parts) or take input, as a
# control does (the Vision page's canvas)
HIDDEN_BLOCKS = frozenset({"block:popover", "block:dialog"})  # shown only on a click: left out with what they hold
CONTAINERS = frozenset({"block:vertical", "block:transparent", "block:chat_message", "block:horizontal"})
LAYOUT_BLOCKS = CONTAINERS | {"block:flex_container", "block:column"}  # left out when they hold nothing shown
NOT_COPIED_BLOCKS = frozenset({"block:tab_container", "block:tab", "block:form", "block:grid_container"})
# A form (a lesson's question) is for the student to fill in: a page that holds one runs for the student itself.
MAX_TABLE_ROWS = 200

MATHML_TAGS = set(
    "math semantics annotation mrow mi mn mo ms mtext mspace msub msup msubsup mfrac msqrt mroot mstyle mtable "
    "mtr mtd munder mover munderover mpadded mphantom menclose merror".split()
)
HTML_TAGS = set(
    "p div span a em strong b i code pre ul ol li blockquote h1 h2 h3 h4 h5 h6 hr br table thead tbody tr th td "
    "details summary del s progress".split()
)
ATTRIBUTES = {
    "*": {"class"},
    "a": {"href", "title"},
    "div": {"data-chart", "style"},
    "th": {"style"},
    "td": {"style"},
    "ol": {"start"},
    "progress": {"value", "max"},
    "details": {"open"},
    "math": {"display"},
    "mi": {"mathvariant"},
    "mn": {"mathvariant"},
    "mtext": {"mathvariant"},
    "mo": {"stretchy", "fence", "separator", "lspace", "rspace", "form", "largeop", "movablelimits", "minsize"},
    "mstyle": {"displaystyle", "scriptlevel", "mathsize"},
    "mfrac": {"linethickness"},
    "mspace": {"width"},
    "mpadded": {"width", "height", "depth", "lspace", "voffset"},
    "mtable": {"columnalign", "rowspacing", "columnspacing"},
    "mtd": {"columnalign"},
    "menclose": {"notation"},
}
STYLES = {"flex", "text-align"}
# The same tags and attributes, for the student's browser to check a drawing's copy again (``ui.rooms.follower``).
BROWSER_ALLOW_LIST = {"tags": sorted(HTML_TAGS | MATHML_TAGS), "attributes": sorted(set().union(*ATTRIBUTES.values()))}
MATHML = "{http://www.w3.org/1998/Math/MathML}"


def _formula(content: str, options: dict) -> str:
    """A formula as MathML (block or inline), kept only when it is MathML through and through (its text may come
    from a user: ``\\text{...}`` is copied out as it is); otherwise, or where the converter cannot read it, its
    source as escaped text."""
    try:
        mathml = latex_to_mathml(content, display="block" if options.get("display_mode") else "inline")
        if all(
            element.tag.startswith(MATHML) and element.tag[len(MATHML) :] in MATHML_TAGS
            for element in ElementTree.fromstring(mathml).iter()
        ):
            return mathml
    except Exception:  # a formula the converter does not know, or output that is not MathML: its source
        pass
    return f"<code>{html.escape(content)}</code>"


def _markdown_parser() -> MarkdownIt:
    """CommonMark with tables and strikethrough, raw HTML escaped, ``$`` and ``$$`` formulas."""
    parser = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    dollarmath_plugin(parser, double_inline=True, renderer=_formula)
    return parser


MARKDOWN = _markdown_parser()


def clean(markup: str) -> str:
    """``markup`` through the allow-list: the tags and attributes above, no script, no handler."""
    return nh3.clean(
        markup,
        tags=HTML_TAGS | MATHML_TAGS,
        attributes=ATTRIBUTES,
        filter_style_properties=STYLES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
        strip_comments=True,
    )


def markdown(text: str, inline: bool = False) -> str:
    """Streamlit's Markdown as HTML (``:material/...:`` icons left out); not yet cleaned."""
    text = re.sub(r":material/[a-z0-9_]+:", "", text)
    return MARKDOWN.renderInline(text) if inline else MARKDOWN.render(text)


def number(value) -> str:
    """A table's cell as Streamlit shows it by default: floats to at most 4 decimals, NaN and None empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".")
    return str(value)


def table(arrow_bytes: bytes, hide_index: bool) -> str:
    """An Arrow table (Streamlit's dataframe and table data) as an HTML table, its first MAX_TABLE_ROWS rows."""
    frame = pa.ipc.open_stream(arrow_bytes).read_all().to_pandas()
    head = "".join(f"<th>{html.escape(str(name))}</th>" for name in frame.columns)
    rows = []
    for index, row in zip(frame.index[:MAX_TABLE_ROWS], frame.itertuples(index=False), strict=False):
        cells = "".join(f"<td>{html.escape(number(value))}</td>" for value in row)
        label = "" if hide_index else f"<th>{html.escape(number(index))}</th>"
        rows.append(f"<tr>{label}{cells}</tr>")
    corner = "" if hide_index else "<th></th>"
    more = len(frame) - MAX_TABLE_ROWS
    note = f'<p class="lab-copy-caption">and {more} more rows</p>' if more > 0 else ""
    return f'<div class="lab-copy-table"><table><thead><tr>{corner}{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>{note}'


def _hides_index(columns_json: str) -> bool:
    """Whether a dataframe's column configuration hides its index (``hide_index=True``)."""
    try:
        config = json.loads(columns_json or "{}")
    except ValueError:
        return False
    index = config.get("_index") if isinstance(config, dict) else None
    return isinstance(index, dict) and index.get("hidden") is True


def element_html(kind: str, element) -> str | None:
    """One element's HTML (not cleaned), ``""`` for what the copy leaves out, None for what it cannot show."""
    if kind in CONTROLS:
        return ""
    if kind == "markdown":
        body, kind_of = element.markdown.body, type(element.markdown).Type.Name(element.markdown.element_type)
        if element.markdown.allow_html:
            return None
        if kind_of == "DIVIDER":
            return "<hr>"
        if kind_of == "CAPTION":
            return f'<div class="lab-copy-caption">{markdown(body)}</div>'
        return markdown(body)
    if kind == "heading":
        tag = element.heading.tag if element.heading.tag in {"h1", "h2", "h3", "h4", "h5", "h6"} else "h2"
        rule = "<hr>" if element.heading.divider else ""
        return f"<{tag}>{markdown(element.heading.body, inline=True)}</{tag}>{rule}"
    if kind == "alert":
        tone = type(element.alert).Format.Name(element.alert.format).lower()
        return f'<div class="lab-copy-alert lab-copy-{tone}">{markdown(element.alert.body)}</div>'
    if kind == "code":
        return f"<pre><code>{html.escape(element.code.code_text)}</code></pre>"
    if kind in ("text", "json"):
        return f"<pre>{html.escape(getattr(element, kind).body)}</pre>"
    if kind == "metric":
        metric = element.metric
        delta = f'<div class="lab-copy-delta">{html.escape(metric.delta)}</div>' if metric.delta else ""
        return (
            f'<div class="lab-copy-metric"><div class="lab-copy-caption">{markdown(metric.label, inline=True)}</div>'
            f'<div class="lab-copy-value">{html.escape(metric.body)}</div>{delta}</div>'
        )
    if kind == "progress":
        text = markdown(element.progress.text, inline=True) if element.progress.text else ""
        return f'<div class="lab-copy-progress"><progress max="100" value="{int(element.progress.value)}"></progress> {text}</div>'
    if kind == "dataframe":
        frame = element.dataframe
        return table(frame.arrow_data.data, _hides_index(frame.columns))
    if kind == "table":
        return table(element.table.arrow_data.data, element.table.hide_index)
    return None


@dataclass(frozen=True)
class Message:
    """An element's message, equal to another by its hash alone (what the computation cache keys on)."""

    digest: str
    element: object = field(compare=False, hash=False)


@computation
def _cleaned(kind: str, message: Message) -> str | None:
    try:
        raw = element_html(kind, message.element)
    except Exception:  # data the copy cannot read (a table's Arrow bytes, say): the student's page runs instead
        return None
    return raw if not raw else clean(raw)


def cleaned_element(kind: str, digest: str, element) -> str | None:
    """``element_html`` through ``clean``, kept by the message's hash in the app's computation cache
    (``ui.cache``, bounded by size)."""
    message = Message(digest, element)
    return _cleaned(kind, message) if digest else _cleaned.uncached(kind, message)


_LOG = logging.getLogger(__name__)
_REPORTED: set[str] = set()  # element types the copy did not know, logged once a process each


def known(kind: str) -> bool:
    """Whether the copy knows an element type (a block's as ``block:<type>``): it holds it, leaves it out, or
    knows it cannot hold it."""
    if kind.startswith("block:"):
        return kind in LAYOUT_BLOCKS | HIDDEN_BLOCKS | NOT_COPIED_BLOCKS | {"block:expandable"}
    return kind in CONTROLS | COPIED | NOT_COPIED


def _unknown(kind: str) -> None:
    if kind not in _REPORTED:
        _REPORTED.add(kind)
        _LOG.warning(
            "the page copy does not know the element type %r: a page that shows one runs for the student", kind
        )


def page_copy(elements: dict, chart_component: str) -> tuple[str, bool]:
    """The page below its main area's root as HTML, and whether it holds everything the page shows.
    ``elements``: delta path -> ``Written`` (``kind``, ``digest``, ``delta``), as ``ui.rooms.page_text`` keeps."""
    children: dict[tuple[int, ...], list[int]] = {}
    for path in elements:
        children.setdefault(path[:-1], []).append(path[-1])
    whole = True

    def draw(path: tuple[int, ...]) -> str:
        nonlocal whole
        written = elements[path]
        kind = written.kind
        if not known(kind):
            _unknown(kind)
            whole = False
            return ""
        if kind in HIDDEN_BLOCKS:
            return ""
        inner = "".join(draw(path + (index,)) for index in sorted(children.get(path, [])))
        if kind.startswith("block:"):
            block = written.delta.add_block
            if not inner and kind in LAYOUT_BLOCKS:  # it held controls only: the text beside it takes its room
                return ""
            if kind == "block:flex_container":
                row = type(block.flex_container).Direction.Name(block.flex_container.direction) == "HORIZONTAL"
                return f'<div class="lab-copy-{"row" if row else "stack"}">{inner}</div>'
            if kind == "block:column":
                weight = block.column.weight if block.column.weight > 0 else 1.0
                return f'<div class="lab-copy-column" style="flex: {weight:.4g} 1 0">{inner}</div>'
            if kind == "block:expandable":
                if not inner:  # controls only, or built only when opened: nothing to show here
                    return ""
                label = clean(markdown(block.expandable.label, inline=True))
                opened = " open" if block.expandable.expanded else ""
                return f"<details{opened}><summary>{label}</summary>{inner}</details>"
            if kind in CONTAINERS:
                return f'<div class="lab-copy-stack">{inner}</div>'
            whole = False  # tabs, grids, a form: the student's page runs to show them
            return ""
        element = written.delta.new_element
        if kind == "bidi_component":
            component = element.bidi_component
            if component.component_name in LEFT_OUT_COMPONENTS:
                return ""
            if component.component_name != chart_component:  # another component's view: the copy cannot hold it
                _unknown(f"bidi_component:{component.component_name}")
                whole = False
                return ""
            name = component.bytes.split(b"\n", 1)[0].decode("utf-8", "replace")
            return f'<div class="lab-copy-chart" data-chart="{html.escape(name)}"></div>'
        made = cleaned_element(kind, written.digest, element)
        if made is None:
            whole = False
            return ""
        return made

    roots = sorted(index for index in children.get((0,), []) if (0, index) in elements)
    body = "".join(draw((0, index)) for index in roots)
    return body, whole and bool(roots)  # nothing recorded: not a page to show
