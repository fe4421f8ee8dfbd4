"""Charts are redrawn in place: a chart keeps its element (named by the line that draws it) while
the figure it sends changes, and it sends Plotly's config with the figure."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
from streamlit.testing.v1 import AppTest

import ui.charts
import ui.cache
import ui.plotly_in_place
from tests.apptest_helpers import (
    assert_no_exception,
    chart_elements,
    chart_json,
    chart_name,
    chart_specs,
    decode_array,
    run_page,
)
from ui.cache import SharedFigure, cached_figure
from ui.plotly_in_place import APP_STATIC, PLOTLY_FOLDER, STATIC_NAME, copy_to_static, figure_json, serve_plotly_library
from ui.screen import COMPACT_BELOW_PX
from viz.compact import BROWSER_PX
from viz.style import TITLE_BELOW_TOOLBAR, presentation_spec


def test_a_slider_change_keeps_every_chart_element_and_sends_the_new_figures():
    at = run_page("pages/positional_encoding/page.py")
    before = chart_elements(at)
    ids, sent = [el.proto.id for el in before], [el.proto.bytes for el in before]
    at.slider(key="d_model").set_value(32).run()
    assert_no_exception(at)
    after = chart_elements(at)
    assert [el.proto.id for el in after] == ids and len(set(ids)) == len(ids) == 2  # the curves, the wavelengths
    assert all(old != new.proto.bytes for old, new in zip(sent, after))  # every figure is a new one
    # the curves' title names pair 12's wavelength 2π · 10000^(24 / d_model), 2π · 1,000 at d_model 32
    assert "pair 12 every 6,283.2" in json.dumps(chart_specs(at)[0]["layout"]["title"])


def test_every_chart_of_a_page_has_its_own_key():
    at = run_page("pages/multi_head/page.py", {"section": "Mean and rollout"})
    ids = [el.proto.id for el in chart_elements(at)]
    assert len(ids) == 2 and len(set(ids)) == 2


def test_the_toolbar_image_format_travels_with_every_figure():
    at = run_page("pages/multi_head/page.py")
    at.radio(key="img").set_value("svg").run()
    assert_no_exception(at)
    specs = chart_specs(at)
    assert specs and all(spec["config"]["toImageButtonOptions"] == {"format": "svg", "scale": 2} for spec in specs)


def test_figure_json_is_plotlys_own_json_with_the_config():
    z = np.array([[0.25, -1.5], [2.0, 0.0]], dtype=np.float32)
    sent = json.loads(figure_json(go.Figure(go.Heatmap(z=z)), {"displayModeBar": False}))
    assert np.array_equal(decode_array(sent["data"][0]["z"]), z)
    assert sent["config"] == {"displayModeBar": False} and "layout" in sent
    assert "config" not in json.loads(figure_json({"data": [], "layout": {}}))


def test_plotly_js_is_the_installed_packages_copy_served_from_the_apps_static_folder():
    assert serve_plotly_library() == f"app/static/{STATIC_NAME}" == f"app/static/plotly-{plotly_js_version()}.min.js"
    served, installed = APP_STATIC / STATIC_NAME, PLOTLY_FOLDER / "plotly.min.js"
    assert served.read_bytes() == installed.read_bytes() and installed.stat().st_size > 1_000_000


def test_a_copy_with_other_bytes_of_the_same_size_is_replaced(tmp_path):
    installed = (PLOTLY_FOLDER / "plotly.min.js").read_bytes()
    (tmp_path / STATIC_NAME).write_bytes(installed[:-1] + b"!" if installed[-1:] != b"!" else installed[:-1] + b"?")
    assert copy_to_static(tmp_path) and (tmp_path / STATIC_NAME).read_bytes() == installed


def test_a_touched_copy_keeps_its_bytes_and_gets_the_installed_files_time_back(tmp_path):
    """The route's Last-Modified is the copy's time: it must not change when the file is touched."""
    assert copy_to_static(tmp_path)
    copy, installed = tmp_path / STATIC_NAME, PLOTLY_FOLDER / "plotly.min.js"
    inode, later = copy.stat().st_ino, installed.stat().st_mtime_ns + 3_600 * 10**9
    os.utime(copy, ns=(later, later))
    assert copy.stat().st_mtime_ns == later
    assert copy_to_static(tmp_path) and copy.stat().st_ino == inode  # not copied again
    assert copy.stat().st_mtime_ns == installed.stat().st_mtime_ns


def test_plotly_js_is_copied_once_and_not_where_the_folder_cannot_be_written(tmp_path):
    assert copy_to_static(tmp_path) and (tmp_path / STATIC_NAME).stat().st_size > 1_000_000
    before = (tmp_path / STATIC_NAME).stat().st_ino
    assert copy_to_static(tmp_path) and (tmp_path / STATIC_NAME).stat().st_ino == before  # not copied again
    assert [path.name for path in tmp_path.iterdir()] == [STATIC_NAME]  # no partial copy left
    blocked = tmp_path / "a file"
    blocked.write_text("")
    assert not copy_to_static(blocked / "static")  # the app then serves it from a component route


def test_an_upgrade_replaces_the_copy_of_the_previous_plotly_js(tmp_path):
    previous, unrelated = tmp_path / "plotly-0.9.0.min.js", tmp_path / "notes.txt"
    previous.write_text("an older plotly.js")
    unrelated.write_text("not plotly.js")
    assert copy_to_static(tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted([STATIC_NAME, "notes.txt"])
    previous.write_text("left by a server that had the current copy already")
    assert copy_to_static(tmp_path) and not previous.exists()


def test_an_old_copy_that_cannot_be_removed_does_not_stop_the_static_route(tmp_path, monkeypatch):
    (tmp_path / "plotly-0.9.0.min.js").write_text("an older plotly.js")

    def read_only(self, missing_ok=False):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(ui.plotly_in_place.Path, "unlink", read_only)
    assert copy_to_static(tmp_path) and (tmp_path / STATIC_NAME).stat().st_size > 1_000_000


def test_a_copy_that_fails_halfway_leaves_nothing_behind(tmp_path, monkeypatch):
    def disk_full(source, target):
        Path(target).write_bytes(b"half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ui.plotly_in_place.shutil, "copy2", disk_full)
    assert not copy_to_static(tmp_path) and list(tmp_path.iterdir()) == []


def plotly_js_version() -> str:
    """plotly.js's version, from the banner at the top of the installed file."""
    banner = (PLOTLY_FOLDER / "plotly.min.js").read_text(encoding="utf-8")[:200]
    return re.search(r"plotly\.js v(\d+\.\d+\.\d+)", banner).group(1)


def _three_charts_from_one_line():
    import numpy as np
    import plotly.graph_objects as go
    import streamlit as st

    from ui.plotly_in_place import plotly_in_place

    shift = st.slider("shift", 0, 5, 0, key="shift")
    for i in range(3):
        plotly_in_place(go.Figure(go.Heatmap(z=np.full((2, 2), i + shift, dtype=np.float32))), "loop.py:1")


def test_charts_drawn_by_one_line_are_numbered_and_keep_their_elements():
    at = AppTest.from_function(_three_charts_from_one_line).run()
    ids = [el.proto.id for el in chart_elements(at)]
    assert len(set(ids)) == 3 and ids[0].endswith("chart:loop.py:1") and ids[2].endswith("chart:loop.py:1 #3")
    at.slider(key="shift").set_value(2).run()
    assert [el.proto.id for el in chart_elements(at)] == ids
    assert [decode_array(spec["data"][0]["z"])[0, 0] for spec in chart_specs(at)] == [2, 3, 4]


def test_where_the_runs_record_of_keys_moved_charts_are_numbered_all_the_same(monkeypatch):
    """Without Streamlit's record of the run's keys, a place's second and third charts take the names Streamlit does
    not refuse: the same names, the same elements from run to run."""
    monkeypatch.setattr("ui.streamlit_internals.key_taken_this_run", lambda key: None)
    at = AppTest.from_function(_three_charts_from_one_line).run()
    assert_no_exception(at)
    names = [chart_name(element) for element in chart_elements(at)]
    assert names == ["chart:loop.py:1", "chart:loop.py:1 #2", "chart:loop.py:1 #3"]
    ids = [el.proto.id for el in chart_elements(at)]
    at.slider(key="shift").set_value(2).run()
    assert [el.proto.id for el in chart_elements(at)] == ids


def _charts_from_two_lines_of_one_function():
    import inspect

    import plotly.graph_objects as go

    from ui.plotly_in_place import call_site, plotly_in_place

    def draw_both():
        plotly_in_place(go.Figure(), call_site(inspect.currentframe()))
        plotly_in_place(go.Figure(), call_site(inspect.currentframe()))

    draw_both()


def test_a_chart_is_named_by_the_function_that_draws_it_not_its_line():
    """A line added above a chart does not rename it: two versions of a page behind one class (a rolling deploy)
    name their charts alike. The function's second chart is its #2."""
    at = AppTest.from_function(_charts_from_two_lines_of_one_function).run()
    assert_no_exception(at)
    names = [chart_name(element) for element in chart_elements(at)]
    assert [name.split(":", 2)[-1] for name in names] == [
        "_charts_from_two_lines_of_one_function.<locals>.draw_both",
        "_charts_from_two_lines_of_one_function.<locals>.draw_both #2",
    ]


def test_a_cached_figure_is_serialised_once_per_way_it_is_sent(monkeypatch):
    serialisations = []

    def counted(figure, config=None):
        serialisations.append(figure)
        return figure_json(figure, config)

    monkeypatch.setattr(ui.charts, "figure_json", counted)
    ui.cache.clear_figures()  # no figure serialised by an earlier test
    at = run_page("pages/positional_encoding/page.py")
    first = [el.proto.bytes for el in chart_elements(at)]
    assert len(first) == len(serialisations) == 2
    at.run()  # the same figures again, from the figure cache
    assert [el.proto.bytes for el in chart_elements(at)] == first and len(serialisations) == 2
    at.toggle(key="present").set_value(True).run()  # presentation mode: sent another way, serialised once
    presented = [el.proto.bytes for el in chart_elements(at)]
    assert len(serialisations) == 4
    for plain, shown in zip(first, presented):  # each is the plain figure's presentation spec
        spec = json.loads(plain.split(b"\n", 1)[1])
        assert json.loads(shown.split(b"\n", 1)[1]) == json.loads(json.dumps(presentation_spec(spec)))
    at.toggle(key="present").set_value(False).run()
    assert [el.proto.bytes for el in chart_elements(at)] == first and len(serialisations) == 4


def _heatmap(value: float) -> go.Figure:
    return go.Figure(go.Heatmap(z=np.full((2, 2), value, dtype=np.float32)))


def test_only_a_shared_figure_keeps_its_json(monkeypatch):
    made = []

    def serialise(figure):
        made.append(1)
        return figure_json(figure)

    ui.cache.clear_figures()
    shared = cached_figure(_heatmap, 1.5)
    assert isinstance(shared, SharedFigure) and cached_figure(_heatmap, 1.5) is shared
    assert shared.json("plain", serialise) == shared.json("plain", serialise)
    assert len(made) == 1
    shared.json("other", serialise)
    assert len(made) == 2
    assert cached_figure(_heatmap, 2.5) is not shared  # other arguments, another figure
    monkeypatch.setattr(ui.charts, "figure_json", lambda figure, config=None: serialise(figure))
    at = AppTest.from_function(_a_figure_built_in_the_run).run()  # drawn without the cache: serialised each run
    first = chart_specs(at)
    at.run()
    assert chart_specs(at) == first and decode_array(first[0]["data"][0]["z"])[0, 0] == 1.5
    assert len(made) == 4


def _a_figure_built_in_the_run():
    import numpy as np
    import plotly.graph_objects as go

    from ui.charts import chart

    chart(go.Figure(go.Heatmap(z=np.full((2, 2), 1.5, dtype=np.float32))))


def _charts_drawn_from_a_folder_whose_name_holds_two_underscores():
    import numpy as np
    import plotly.graph_objects as go

    from ui.plotly_in_place import plotly_in_place

    figure = go.Figure(go.Heatmap(z=np.zeros((2, 2), dtype=np.float32)))
    plotly_in_place(figure, "tmpk00__sag/page.py:7")  # a temporary folder's random name, as AppTest writes it
    plotly_in_place(figure, "tmpk00__sag/page.py:7")
    plotly_in_place(figure, "page.py:9", key="road__kv")


def test_a_chart_is_drawn_whatever_its_place_or_key_holds():
    """Streamlit refuses a component key holding "__": a chart drawn from such a folder, or given such a key, is
    drawn all the same, under a name without it (the same on every run, as a class needs)."""
    at = AppTest.from_function(_charts_drawn_from_a_folder_whose_name_holds_two_underscores).run()
    assert_no_exception(at)
    names = [chart_name(element) for element in chart_elements(at)]
    assert names == ["chart:tmpk00_~sag/page.py:7", "chart:tmpk00_~sag/page.py:7 #2", "chart:road_~kv"]


def test_charts_can_be_switched_back_to_st_plotly_chart(monkeypatch):
    """With ATTENTION_LAB_CHARTS=plotly_chart every chart is a plain st.plotly_chart of the same figure."""
    drawn_in_place = [
        json.loads(chart_json(el)) for el in chart_elements(run_page("pages/positional_encoding/page.py"))
    ]
    monkeypatch.setenv(ui.plotly_in_place.CHARTS_ENV, "plotly_chart")
    at = run_page("pages/positional_encoding/page.py")
    assert not chart_elements(at)
    plain = [json.loads(el.proto.spec) for el in at.get("plotly_chart")]
    assert len(plain) == len(drawn_in_place) == 2
    for spec, in_place in zip(plain, drawn_in_place):
        assert spec["layout"]["title"] == in_place["layout"]["title"]
        assert [t["type"] for t in spec["data"]] == [t["type"] for t in in_place["data"]]
        for trace, same in zip(spec["data"], in_place["data"]):
            values = "z" if "z" in same else "y"
            np.testing.assert_array_equal(decode_array(trace[values]), decode_array(same[values]))


def test_the_browsers_fitting_takes_its_px_from_the_server():
    """The fitting's script holds each of viz.compact's px once written in (no placeholder left), and the few
    sizes that are the figures' own are theirs: a title's first line where the template starts it, a figure
    built for a window that is not compact."""
    script = ui.plotly_in_place.fit_script()
    assert "__BROWSER_PX__" not in script
    written = json.loads(re.search(r"= (\{[^}]*\});", script).group(1))
    assert written == BROWSER_PX
    assert written["TITLE_TOP_PX"] == TITLE_BELOW_TOOLBAR["pad"]["t"]
    assert written["WIDE_COLUMN_PX"] == COMPACT_BELOW_PX
    body = script.replace(json.dumps(BROWSER_PX), "")
    for name in BROWSER_PX:  # every px is used past where it is taken, and none is said again in a script
        assert len(re.findall(rf"\b{name}\b", body)) >= 2, name  # taken, then used
        assert not re.search(rf"const {name} =", body), name
