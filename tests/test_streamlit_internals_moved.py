"""When a Streamlit internal the app reaches moves (``ui/streamlit_internals.py``, the one door): each is named
alone by ``moved()``, and without the script's context or the URL bindings the app still runs, a session keeps one
id and opening a teacher's view lets go of nothing."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest


@pytest.mark.parametrize(
    "module, name, internal",
    [
        ("streamlit.runtime.state.query_params.QueryParams", "unbind_widget", "QueryParams.unbind_widget"),
        ("streamlit.runtime.state.query_params", "_coerce_value_for_query_url", "_coerce_value_for_query_url"),
        ("streamlit.runtime.Runtime", "is_active_session", "Runtime.is_active_session"),
        (
            "streamlit.runtime.scriptrunner_utils.script_run_context.ScriptRunContext",
            "enqueue",
            "ScriptRunContext.enqueue",
        ),
    ],
)
def test_each_internal_that_moved_is_named_alone(monkeypatch, module, name, internal):
    from ui import streamlit_internals

    monkeypatch.delattr(f"{module}.{name}")
    assert streamlit_internals.moved() == [f"Streamlit internal {internal} moved: see ui/streamlit_internals.py"]


def test_a_moved_dataclass_field_and_a_moved_module_are_named(monkeypatch):
    import sys

    from streamlit.runtime.state.query_params import QueryParams

    from ui import streamlit_internals

    fields = {k: v for k, v in QueryParams.__dataclass_fields__.items() if k != "_bindings_by_widget"}
    monkeypatch.setattr(QueryParams, "__dataclass_fields__", fields)
    monkeypatch.delattr(QueryParams, "_bindings_by_widget", raising=False)
    monkeypatch.setitem(sys.modules, "streamlit.runtime.pages_manager", None)  # the module itself moved
    named = streamlit_internals.moved()
    assert [line.split()[2] for line in named] == [
        "QueryParams._bindings_by_widget",
        "PagesManager.uses_pages_directory",
    ]


def test_without_the_script_context_the_app_still_runs_its_script_and_the_server_still_serves(monkeypatch):
    """``in_script_run`` falls back to the module's name (Streamlit runs the script as ``__main__``; the web
    server imports app.py under its own): app.py never takes the server's branch in a run."""
    import sys

    from ui import streamlit_internals

    monkeypatch.setitem(sys.modules, "streamlit.runtime.scriptrunner", None)
    assert streamlit_internals.moved()[0].startswith("Streamlit internal get_script_run_ctx moved")
    assert streamlit_internals.in_script_run("__main__") is True
    assert streamlit_internals.in_script_run("app") is False


def _session_id_script():
    import streamlit as st

    from ui.streamlit_internals import session_alive, session_id

    st.session_state.setdefault("ids", []).append(session_id())
    st.session_state["alive"] = session_alive(session_id())


def test_without_the_script_context_a_session_keeps_one_id_of_its_own(monkeypatch):
    monkeypatch.setattr("ui.streamlit_internals._ctx", lambda: None)
    at = AppTest.from_function(_session_id_script).run()
    at.run()
    ids = at.session_state["ids"]
    assert len(ids) == 2 and ids[0] == ids[1] and ids[0].startswith("fallback-") and at.session_state["alive"]
    other = AppTest.from_function(_session_id_script).run()
    assert other.session_state["ids"][0] != ids[0]


def test_without_the_url_bindings_opening_a_view_lets_go_of_nothing_and_seeds_nothing(monkeypatch):
    monkeypatch.setattr("ui.streamlit_internals._ctx", lambda: None)
    from ui import streamlit_internals

    assert streamlit_internals.release_url_bindings() is None
    assert streamlit_internals.seed_controls_from_url() is None
    assert streamlit_internals.url_state_of_bound_controls() == {}
