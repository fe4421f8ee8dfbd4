"""The Streamlit internals the app relies on, checked one by one: Streamlit is pinned to one minor version
(``streamlit~=1.67.0``), and an upgrade that moves any of these fails here, by name, before a page breaks.

- ui/routing.py (through ui/streamlit_internals.py): ``PagesManager.uses_pages_directory``, the class-wide
  switch of the older file-based multipage mode; Streamlit sets it from the main script's folder,
  ``st.navigation`` turns it off and the script runner reads it to resolve a first request.
- ui/plotly_in_place.py: ``st.components.v2.component(name, js=, css=, isolate_styles=)``, its renderer's
  ``data``, ``key``, ``width`` and ``height``, and ``StreamlitDuplicateElementKey`` for a repeated key.
- tests/e2e and bench/: the page's ``[data-testid=stApp][data-test-script-state=notRunning]`` and the
  protocol's ``ForwardMsg.script_finished`` and ``BackMsg.rerun_script``.
- ui/streamlit_internals.py: every other private name (the script's context, fragment runs, the URL bindings
  a student lets go of to open the teacher's view, whether a session is connected, the file-based multipage
  switch); its ``moved()`` names any that an upgrade moved, and no other module reaches one.
- app.py: ``st.App`` with a route of its own, which ``streamlit run app.py`` finds (public since 1.5x).
- .streamlit/config.toml: every option it sets exists; every widget the app binds to the URL takes ``bind``.
"""

from __future__ import annotations

import ast
import inspect
import tomllib
from pathlib import Path

import pytest
import streamlit as st
from packaging.requirements import Requirement
from packaging.version import Version
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
STREAMLIT = Path(st.__file__).parent


def test_streamlit_is_pinned_to_the_minor_version_whose_internals_are_checked_here():
    lines = [line.split("#")[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    pins = [Requirement(line) for line in lines if line.startswith("streamlit")]
    assert [str(pin.specifier) for pin in pins] == ["~=1.67.0"]
    assert Version(st.__version__) in pins[0].specifier, f"installed streamlit {st.__version__} is not the pinned one"


def test_the_pages_directory_switch_that_routing_turns_off(tmp_path, monkeypatch):
    """Streamlit sets the class-wide switch from the main script's folder (a ``pages/`` beside it turns the older
    file-based mode on); ``leave_pages_directory_mode`` turns it off once and says so, as ``require_navigation``
    needs."""
    from streamlit.runtime.pages_manager import PagesManager

    from ui.streamlit_internals import leave_pages_directory_mode

    (tmp_path / "pages").mkdir()
    (tmp_path / "app.py").write_text("")
    monkeypatch.setattr(PagesManager, "uses_pages_directory", None)
    PagesManager(str(tmp_path / "app.py"))
    assert PagesManager.uses_pages_directory is True  # set from the folder, as on a server's first request
    assert leave_pages_directory_mode() is True
    assert PagesManager.uses_pages_directory is False
    assert leave_pages_directory_mode() is False  # already off: no second rerun
    PagesManager(str(tmp_path / "app.py"))
    assert PagesManager.uses_pages_directory is False  # a later session does not switch it back on


def test_navigation_turns_the_pages_directory_switch_off(monkeypatch):
    """``st.navigation`` turns the older mode off (so a session that has run app.py resolves every link)."""
    from streamlit.runtime.pages_manager import PagesManager

    monkeypatch.setattr(PagesManager, "uses_pages_directory", True)
    at = AppTest.from_function(_navigation_script).run()
    assert not at.exception and [element.value for element in at.markdown] == ["one page"]
    assert PagesManager.uses_pages_directory is False


def _navigation_script():
    import streamlit as st

    st.navigation([st.Page(lambda: st.write("one page"), title="one", url_path="one")]).run()


def test_the_url_bindings_a_student_lets_go_of_to_open_the_teachers_view():
    from streamlit.errors import StreamlitAPIException
    from streamlit.runtime.state.query_params import QueryParams
    from streamlit.runtime.state.safe_session_state import SafeSessionState

    params = QueryParams()
    params.bind_widget("heads", "widget-1", "int_value", "page-hash")
    assert params._bindings_by_param["heads"].widget_id == "widget-1"
    with pytest.raises(StreamlitAPIException):
        params.from_dict({"heads": "8"})  # refused while bound
    params.unbind_widget("widget-1")
    params.set_with_no_forward_msg("heads", "8")
    assert params.get_all("heads") == ["8"] and not params._bindings_by_param
    assert inspect.isgeneratorfunction(inspect.unwrap(SafeSessionState.query_params))


def test_the_bidirectional_component_api_the_charts_use():
    parameters = inspect.signature(st.components.v2.component).parameters
    assert list(parameters)[:1] == ["name"] and {"js", "css", "isolate_styles"} <= set(parameters)
    renderer = st.components.v2.component("internals_probe", js="export default function () {}")
    assert {"data", "key", "width", "height"} <= set(inspect.signature(renderer).parameters)


def _draw_one_key_twice():
    import streamlit as st
    from streamlit.errors import StreamlitDuplicateElementKey

    draw = st.components.v2.component("internals_probe_twice", js="export default function () {}")
    draw(data=b"first", key="chart:same")
    try:
        draw(data=b"second", key="chart:same")
    except StreamlitDuplicateElementKey:
        st.write("the second element with that key was refused")


def test_a_repeated_component_key_raises_the_error_the_charts_catch():
    at = AppTest.from_function(_draw_one_key_twice).run()
    assert not at.exception
    assert [element.value for element in at.markdown] == ["the second element with that key was refused"]


def _record_one_key():
    import streamlit as st

    from ui.streamlit_internals import key_taken_this_run

    draw = st.components.v2.component("internals_probe_record", js="export default function () {}")
    before = key_taken_this_run("chart:kept")
    draw(data=b"first", key="chart:kept")
    st.write(f"{before} {key_taken_this_run('chart:kept')} {key_taken_this_run('chart:other')}")


def test_a_run_records_the_keys_its_elements_took_as_the_charts_read_them():
    """The charts number their names by the run's record of element keys: a key is free before its element is
    drawn, taken after, and a key no element took stays free; each run starts a new record."""
    at = AppTest.from_function(_record_one_key).run()
    assert [element.value for element in at.markdown] == ["False True False"]
    assert [element.value for element in at.run().markdown] == ["False True False"]


def test_a_run_without_its_record_of_keys_is_named_and_the_charts_say_they_cannot_read_it(monkeypatch):
    from streamlit.runtime.scriptrunner_utils.shared_run_state import SharedRunState

    from ui import streamlit_internals

    built = SharedRunState.__init__

    def without_the_record(self):
        built(self)
        del self.widget_user_keys_this_run

    monkeypatch.setattr(SharedRunState, "__init__", without_the_record)
    assert streamlit_internals.moved() == [
        "Streamlit internal SharedRunState.widget_user_keys_this_run moved: see ui/streamlit_internals.py"
    ]
    assert streamlit_internals.key_taken_this_run("chart:any") is None  # outside a run, as where it moved
    assert streamlit_internals.user_keys_this_run() is None


def test_without_the_record_of_keys_a_page_runs_and_reset_knows_its_url_keys_only(monkeypatch):
    """``ui.page_url.page_run`` reads the run's record of element keys: where it moved, the page still draws,
    no key is recorded as the page's, and "Reset this page" clears what the URL schema names."""
    from tests.apptest_helpers import run_page
    from ui.page_url import DRAWN

    monkeypatch.setattr("ui.streamlit_internals.user_keys_this_run", lambda: None)
    at = run_page("pages/masks/page.py", {"layers": "3"})
    assert not at.exception and DRAWN not in at.session_state
    at.button(key="reset_page").click()
    at.run()
    assert not at.exception and at.slider(key="layers").value == 2


def test_the_page_marks_its_script_state_as_the_browser_tests_wait_for():
    bundle = "".join(
        path.read_text(encoding="utf-8")
        for path in (STREAMLIT / "static" / "static" / "js").glob("*.js")
        if "data-test-script-state" in path.read_text(encoding="utf-8")
    )
    assert "`stApp`" in bundle and "NOT_RUNNING=`notRunning`" in bundle


def test_the_protocol_messages_the_browser_tests_and_benchmarks_read():
    from google.protobuf.descriptor import FieldDescriptor
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    finished = ForwardMsg.DESCRIPTOR.fields_by_name["script_finished"]
    assert finished.type == FieldDescriptor.TYPE_ENUM
    assert {"FINISHED_SUCCESSFULLY", "FINISHED_EARLY_FOR_RERUN", "FINISHED_FRAGMENT_RUN_SUCCESSFULLY"} <= set(
        finished.enum_type.values_by_name
    )
    assert BackMsg.DESCRIPTOR.fields_by_name["rerun_script"].type == FieldDescriptor.TYPE_MESSAGE


def test_every_option_the_config_file_sets_exists_and_widgets_bind_to_the_url():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    for section, options in config.items():
        for option in options:
            st.get_option(f"{section}.{option}")  # an unknown option raises
    bound = set()
    for path in [*(ROOT / "ui").rglob("*.py"), *(ROOT / "pages").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and any(keyword.arg == "bind" for keyword in node.keywords)
            ):
                bound.add(node.func.attr)
    assert {"slider", "selectbox", "toggle"} <= bound
    for name in sorted(bound):
        assert "bind" in inspect.signature(getattr(st, name)).parameters, f"st.{name} no longer takes bind="


PRIVATE = (
    "streamlit.runtime",
    "_client_state",
    "_bindings_by_param",
    "_get_async_objs",
    "uses_pages_directory",
    "fragment_ids_this_run",
    "unbind_widget",
    "set_initial_query_params",
)


def test_the_app_reaches_streamlits_private_names_through_one_door_only():
    reaching = sorted(
        str(path.relative_to(ROOT))
        for folder in ("ui", "pages", "classroom", "viz", "analysis")
        for path in (ROOT / folder).rglob("*.py")
        if any(name in path.read_text(encoding="utf-8") for name in PRIVATE)
    )
    assert reaching == ["ui/streamlit_internals.py"]
    assert not any(name in (ROOT / "app.py").read_text(encoding="utf-8") for name in PRIVATE)


def test_every_internal_behind_the_door_is_where_it_was():
    from ui import streamlit_internals

    assert streamlit_internals.moved() == []


def test_the_door_falls_back_outside_a_run():
    from ui import streamlit_internals

    assert not streamlit_internals.in_script_run()  # what the web server sees when it imports app.py
    assert streamlit_internals.session_alive("no such session") is False


def test_the_door_seeds_controls_from_a_url_set_in_the_same_run():
    from streamlit.runtime.state.query_params import QueryParams

    params = QueryParams()
    params.set_with_no_forward_msg("heads", "8")
    params.set_initial_query_params_from_current()
    assert params.get_initial_value("heads") == "8"


def _bound_controls_script():
    import streamlit as st

    from ui.streamlit_internals import url_state_of_bound_controls

    st.selectbox("Image", ["held-out digit", "draw"], key="source", bind="query-params")
    st.slider("Heads", 1, 10, 3, key="heads", bind="query-params")
    st.checkbox("Causal", key="causal", bind="query-params")
    st.multiselect("Knocked out", ["a", "b", "c"], key="off", bind="query-params")
    st.session_state["written"] = url_state_of_bound_controls()


def test_the_url_state_written_from_the_controls_values_opens_the_same_controls():
    """What a teacher's view says when a timer's run took an older address: every control away from its
    default, written as Streamlit reads it back (a fresh session opened with it shows the same values)."""
    teacher = AppTest.from_function(_bound_controls_script).run()
    assert teacher.session_state["written"] == {}  # defaults are not written
    teacher.selectbox(key="source").select("draw").run()
    teacher.slider(key="heads").set_value(7).run()
    teacher.checkbox(key="causal").check().run()
    teacher.multiselect(key="off").select("b").select("c").run()
    written = teacher.session_state["written"]
    assert set(written) == {"source", "heads", "causal", "off"}
    student = AppTest.from_function(_bound_controls_script)
    student.query_params.update(written)
    student.run()
    assert student.selectbox(key="source").value == "draw"
    assert student.slider(key="heads").value == 7
    assert student.checkbox(key="causal").value is True
    assert student.multiselect(key="off").value == ["b", "c"]


def test_streamlit_run_finds_the_app_and_its_route_in_app_py():
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "app.py")
    assert found.is_asgi_app and found.app_name == "app"
