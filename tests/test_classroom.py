"""Presentation mode, "share this view" and "reset this page"."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots
import pytest
import zxingcpp
from PIL import Image

from tests.apptest_helpers import (
    RANDOM_MODEL,
    assert_no_exception,
    chart_elements,
    chart_json,
    chart_specs,
    run_page,
    run_random_model,
)
from ui.model_picker import pretrained_label
from ui.sharing import qr_png
from ui.page_url import control_keys
from ui.pages_index import PAGES
from viz.style import FONT, GRID_COLOR, NEUTRAL, base_layout, presentation_spec


def font_sizes(node, path="") -> dict[str, float]:
    """Every font size in a figure dict, by where it is."""
    found = {}
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "template":
                continue
            if key.endswith("font") and isinstance(value, dict) and "size" in value:
                found[f"{path}.{key}"] = value["size"]
            found.update(font_sizes(value, f"{path}.{key}"))
    elif isinstance(node, list):
        for i, item in enumerate(node):
            found.update(font_sizes(item, f"{path}[{i}]"))
    return found


def without_fonts(node):
    """The figure without its fonts, height and margins, and its colour bars' place (under the plot on the
    projector, ``viz.compact.sent_spec``) but their titles: what must not change."""
    if isinstance(node, dict):
        return {
            k: {"title": (v.get("title") or {}).get("text")} if k == "colorbar" else without_fonts(v)
            for k, v in node.items()
            if not k.endswith("font") and k not in ("height", "template", "margin")
        }
    if isinstance(node, list):
        return [without_fonts(v) for v in node]
    return node


def test_presentation_spec_scales_every_font_and_nothing_else():
    fig = go.Figure(go.Heatmap(z=np.arange(6, dtype=np.float32).reshape(2, 3), colorbar=dict(tickfont=dict(size=14))))
    fig.update_layout(
        title=dict(text="t", font=dict(size=18)), height=400, font=dict(size=15), xaxis=dict(tickfont=dict(size=14))
    )
    before = fig.to_dict()
    after = presentation_spec(before)
    sizes_before, sizes_after = font_sizes(before), font_sizes(after)
    assert sizes_before.keys() == sizes_after.keys() and len(sizes_before) == 4
    for where, size in sizes_before.items():
        assert sizes_after[where] == 1.5 * size, where
    assert after["layout"]["height"] == 500 and before["layout"]["height"] == 400  # the input is not changed
    assert without_fonts(after) == without_fonts(before)


def title_bottom_px(layout: dict) -> float:
    """Where the title's text ends, in px from the figure's top: it hangs from the top edge (the template's
    ``pad.t``), one line of its font tall (1.3 x the font size, a generous line height)."""
    title = {**layout["template"]["layout"]["title"], **layout["title"]}
    assert (title["yref"], title["y"], title["yanchor"]) == ("container", 1, "top")
    return title["pad"]["t"] + 1.3 * title["font"]["size"]


def test_title_fits_between_the_toolbar_strip_and_the_plot_plain_and_presented():
    fig = base_layout(go.Figure(go.Scatter(x=[0, 1], y=[1, 2])), "a title", 300)
    plain = fig.to_dict()
    presented = presentation_spec(plain)
    assert presented["layout"]["margin"] == {"l": 15, "r": 15, "t": 90, "b": 15}  # every side times 1.5
    assert plain["layout"]["margin"]["t"] == 60  # the input is not changed
    for layout in (plain["layout"], presented["layout"]):
        assert 26 <= layout["template"]["layout"]["title"]["pad"]["t"]  # below the toolbar's 26 px of icons
        assert title_bottom_px(layout) <= layout["margin"]["t"], layout["margin"]


def test_a_figure_of_panels_keeps_a_row_for_their_names_under_the_title():
    panels = make_subplots(rows=1, cols=2, subplot_titles=("left panel", "right panel"))
    panels.add_trace(go.Scatter(x=[0, 1], y=[1, 2]), row=1, col=1)
    single = base_layout(go.Figure(go.Scatter(x=[0, 1], y=[1, 2])), "one plot", 300).to_dict()["layout"]
    both = base_layout(panels, "two panels", 300).to_dict()["layout"]
    assert both["margin"]["t"] == single["margin"]["t"] + 30
    for layout in (both, presentation_spec({"data": [], "layout": both})["layout"]):
        names_top = layout["margin"]["t"] - 1.3 * layout["annotations"][0]["font"]["size"]
        assert title_bottom_px(layout) <= names_top


@pytest.mark.parametrize("path", [page.path for page in PAGES if page.url_path not in ("home", "lessons")])
def test_presentation_mode_grows_the_fonts_of_every_page_and_keeps_its_numbers(path):
    shown = run_page(path)
    plain = chart_specs(shown)
    shown.toggle(key="present").set_value(True).run()
    assert_no_exception(shown)
    presented = chart_specs(shown)
    assert len(plain) == len(presented) and plain
    for a, b in zip(plain, presented):
        assert (
            json.dumps(a["data"], sort_keys=True) == json.dumps(without_fonts(b)["data"], sort_keys=True)
            or without_fonts(a)["data"] == without_fonts(b)["data"]
        )
        sizes_a, sizes_b = font_sizes(a["layout"]), font_sizes(b["layout"])
        assert sizes_b and all(sizes_b[k] > sizes_a.get(k, 0) for k in sizes_b if k in sizes_a)
        assert b["layout"]["font"]["size"] > a["layout"]["font"]["size"]
    assert not any(e.label == "What this page shows" and e.proto.expanded for e in shown.expander)


@pytest.mark.parametrize("path", [page.path for page in PAGES if page.url_path not in ("home", "lessons")])
def test_every_chart_is_drawn_as_sent_with_the_projects_own_template(path):
    at = run_page(path)
    charts = chart_elements(at)
    assert charts and not at.get("plotly_chart")  # every chart goes through ui.plotly_in_place
    for element in charts:
        sent = chart_json(element).decode()
        spec = json.loads(sent)
        template = spec["layout"]["template"]["layout"]
        assert template["font"]["family"] == FONT["family"] and template["plot_bgcolor"] == "white"
        assert template["xaxis"]["gridcolor"] == GRID_COLOR and template["colorway"] == [NEUTRAL]
        # Streamlit's own template marks its colours "#000001".."#000040" for its theme to fill in:
        # drawn without that theme, any left in a figure would come out black.
        assert not re.search(r"#0000[0-4][0-9]\b", sent), path


def decode_qr(png: bytes) -> str:
    results = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))
    assert len(results) == 1
    return results[0].text


def test_share_shows_the_views_link_and_a_qr_code_of_it():
    at = run_page("pages/masks/page.py", {"section": "Padding", "n": "6"})
    at.session_state["share"] = True  # the popover is open
    at.run()
    assert_no_exception(at)
    link = at.code[0].value
    assert link.startswith("http://localhost:8501/masks?")
    assert "section=Padding" in link and "n=6" in link
    assert at.get("image")[0].value[0].endswith(".png")  # lossless, so the modules stay sharp
    assert at.get("image")[0].proto.imgs[0].alt == "QR code of the link to this view, written out below"
    assert decode_qr(qr_png(link)) == link


def test_reset_returns_every_control_to_its_default_and_keeps_presentation_mode():
    at = run_random_model("pages/multi_head/page.py", {"layers": "3", "heads": "2"})
    at.toggle(key="present").set_value(True).run()
    assert at.slider(key="layers").value == 3 and at.select_slider(key="heads").value == 2
    at.button(key="reset_page").click()
    at.run()
    assert_no_exception(at)
    assert at.selectbox(key="model").value == pretrained_label("all-MiniLM-L6-v2")  # the page's own model
    assert at.toggle(key="present").value
    at.selectbox(key="model").set_value(RANDOM_MODEL).run()  # the random stack starts at its defaults again
    assert at.slider(key="layers").value == 2 and at.select_slider(key="heads").value == 4


def test_reset_clears_the_pages_controls_and_keeps_every_other_session_key():
    at = run_page("pages/masks/page.py", {"layers": "3"})
    at.session_state["unrelated"] = "kept"  # as a model, an upload, a training run or a class would be
    at.session_state["temp"] = 0.5  # another page's control (Self-attention's temperature): not this page's
    at.run()
    assert at.slider(key="layers").value == 3
    at.button(key="reset_page").click()
    at.run()
    assert_no_exception(at)
    assert at.slider(key="layers").value == 2 and "layers" not in at.query_params
    assert at.session_state["unrelated"] == "kept" and at.session_state["temp"] == 0.5


def test_a_pages_controls_are_its_url_keys_and_the_keys_it_drew_never_the_bars():
    state = [
        "s1",
        "s12",
        "heads",
        "model",
        "present",
        "share",
        "model_upload",
        "uploaded_checkpoints",
        "trainer",
        "class_room",
        "lesson_answers",
        "temp",
        "canvas",
    ]
    assert control_keys("masks", state) == ["s1", "s12", "heads", "model"]  # its URL keys, each number as #
    assert control_keys("masks", state, drawn={"canvas", "model"}) == ["s1", "s12", "heads", "model", "canvas"]
    assert control_keys("no_such_page", state) == []


@pytest.mark.parametrize(
    "path, query, outside_the_url",
    [
        ("pages/train/page.py", {}, {"try"}),  # the input to try the trained model on
        ("pages/vision/page.py", {"source": "draw"}, {"canvas"}),  # the drawing
        ("pages/lessons/page.py", {"lesson": "start", "step": "1"}, {"answer_start/0"}),  # a step's answer
    ],
)
def test_the_controls_a_page_draws_outside_the_url_are_its_own_but_the_bars_and_a_models_upload(
    path, query, outside_the_url
):
    """``page_run`` records the keys the page's script drew, with no list kept by hand."""
    from ui.page_url import DRAWN
    from ui.rooms.schema import PAGE_KEYS, general_key

    at = run_page(path, query)
    assert_no_exception(at)
    page = path.split("/")[1]
    drawn = at.session_state[DRAWN][page]
    assert outside_the_url <= drawn and not {general_key(key) for key in outside_the_url} & PAGE_KEYS[page]
    assert not drawn & {"present", "share", "reset_page", "model_upload", "resume_upload", "room"}


def test_reset_clears_a_control_outside_the_url_and_keeps_the_sessions():
    at = run_page("pages/train/page.py")
    at.text_input(key="try").input("abcab").run()
    at.session_state["unrelated"] = "kept"
    assert at.text_input(key="try").value == "abcab"
    at.button(key="reset_page").click()
    at.run()
    assert_no_exception(at)
    assert at.text_input(key="try").value != "abcab" and at.session_state["unrelated"] == "kept"


def test_reset_clears_a_control_shown_only_under_another_controls_value():
    """Multi-head's second sentence is drawn only in Compare's "one head, two sentences": reset clears it too."""
    at = run_page("pages/multi_head/page.py", {"section": "Compare", "cmp": "one head, two sentences"})
    at.text_input(key="text2").input("the dog ran").run()
    assert at.session_state["text2"] == "the dog ran"
    at.button(key="reset_page").click()
    at.run()
    assert_no_exception(at)
    assert "text2" not in at.session_state or at.session_state["text2"] != "the dog ran"


def test_a_key_another_page_left_in_the_session_does_not_reach_a_control_of_the_same_name():
    """Self-attention's numbers table (its matrix select, key "numbers", a string) open, then Masks' Scores, whose
    expander has the same key: Masks opens with its own expander, no error."""
    at = run_page("pages/self_attention/page.py", {"table": "true"})
    assert at.selectbox(key="numbers").value  # the matrix drawn in the open table: a string under "numbers"
    at.switch_page("pages/masks/page.py")
    at.query_params.clear()
    at.run()
    next(group for group in at.get("button_group") if group.key == "section").set_value("Scores").run()
    assert_no_exception(at)
    assert any("Masked scores" in spec["layout"]["title"]["text"] for spec in chart_specs(at))
