"""The one door to Streamlit's private parts: every use of a name Streamlit does not document is here.

Streamlit is pinned to one minor version (``streamlit~=1.67.0``). ``moved()`` says, one line each, which
of the internals below an installed Streamlit no longer has (``tests/test_streamlit_internals.py`` calls it,
and the app logs it once at start); each function falls back to the public way where one exists, rather
than break a page:

- ``in_script_run``, ``session_id``: the running script's context (``get_script_run_ctx``; without it, the caller's
  module name and an id kept in the session's state);
- ``fragment_run``: whether this run reruns fragments only (``ScriptRunContext.fragment_ids_this_run``);
- ``release_url_bindings``, ``seed_controls_from_url``: a session that opens a whole view lets its controls
  go of their URL keys first (``QueryParams._bindings_by_param``, ``unbind_widget``), then seeds them from
  the URL set in the same run (``set_initial_query_params_from_current``);
- ``bound_url_keys``: the URL keys an ``AppTest`` run's widgets are bound to (the URL schema's tooling);
- ``url_state_of_bound_controls``: the URL state a session's bound controls stand for, from their values
  (``QueryParams._bindings_by_widget``, the widgets' metadata: serializer, default, value type);
- ``watch_elements``: every element a run sends, with its content hash (``ScriptRunContext.enqueue``): what a
  teacher's page wrote, so that a student's page runs again where it changed (``ui.rooms.drawing``);
- ``session_alive``: whether a session's browser is still connected (``Runtime.is_active_session``);
- ``leave_pages_directory_mode``: the class-wide switch of the older file-based multipage mode
  (``PagesManager.uses_pages_directory``, docs/architecture.md "Routing").
"""

from __future__ import annotations

import contextlib
import logging

_LOG = logging.getLogger(__name__)


def _ctx():
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx
    except ImportError:  # moved: no script context known (``in_script_run`` and ``session_id`` fall back)
        return None
    return get_script_run_ctx(suppress_warning=True)


def _context_known() -> bool:
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx  # noqa: F401
    except ImportError:
        return False
    return True


def in_script_run(module_name: str = "__main__") -> bool:
    """True inside a run of the app's script (a session's, or AppTest's); False when imported by the web server.
    Where the script's context moved: whether the caller's module (``__name__``) is the script Streamlit runs,
    which it names ``__main__`` (the web server imports app.py under its own name)."""
    if not _context_known():
        return module_name == "__main__"
    return _ctx() is not None


FALLBACK_SESSION = "lab_session_id"  # session state: this session's id where the script's context moved


def session_id() -> str:
    """The running session's id; where the script's context moved, an id kept in the session's own state
    (``session_alive`` then takes it as connected)."""
    ctx = _ctx()
    if ctx is not None and isinstance(getattr(ctx, "session_id", None), str):
        return ctx.session_id
    import secrets

    import streamlit as st

    return st.session_state.setdefault(FALLBACK_SESSION, f"fallback-{secrets.token_hex(8)}")


def fragment_run() -> bool:
    """True when this run reruns only fragments (a fragment's own timer or control)."""
    return bool(getattr(_ctx(), "fragment_ids_this_run", None))


def user_keys_this_run() -> frozenset[str] | None:
    """The user keys of this run's elements so far (a fragment's run: its own), as Streamlit records them to
    refuse a second one; ``None`` where that record moved."""
    taken = getattr(getattr(_ctx(), "shared", None), "widget_user_keys_this_run", None)
    snapshot = getattr(taken, "snapshot", None)  # a lock-guarded set: a frozen copy of it
    try:
        return None if taken is None else frozenset(snapshot() if callable(snapshot) else taken)
    except TypeError:  # neither a copy nor a set to read
        return None


def key_taken_this_run(key: str) -> bool | None:
    """Whether an element of this run already has the user key ``key``; ``None`` where that record moved."""
    taken = user_keys_this_run()
    return None if taken is None else key in taken


def _query_params():
    """The session's URL state with its bindings, as a context manager; ``None`` inside where it moved."""
    reader = getattr(getattr(_ctx(), "session_state", None), "query_params", None)
    return reader() if callable(reader) else contextlib.nullcontext(None)


def release_url_bindings() -> None:
    """Let go of the URL keys this page's controls are bound to, so that the whole URL state may be set (a
    bound key is refused); the controls bind them again as the page runs. Without the internals: nothing."""
    with _query_params() as params:
        bindings = getattr(params, "_bindings_by_param", None) if params is not None else None
        if bindings is None or not hasattr(params, "unbind_widget"):
            return
        for binding in list(bindings.values()):
            params.unbind_widget(binding.widget_id)


def seed_controls_from_url() -> None:
    """Controls that have no value in this session take the URL's (set earlier in the same run)."""
    with _query_params() as params:
        seed = getattr(params, "set_initial_query_params_from_current", None) if params is not None else None
        if seed is not None:
            seed()


def bound_url_keys(app_test) -> set[str]:
    """The URL keys the widgets of an ``AppTest``'s last run are bound to (``scripts/url_schema.py``)."""
    params = app_test._session_state._state.query_params
    return set(getattr(params, "_bindings_by_param", {}))


def url_state_of_bound_controls() -> dict[str, list[str]]:
    """The URL state of this session's controls bound to the URL, from their values as they stand: a control
    whose value differs from its default gives its key, written as Streamlit writes it. A fragment's run (a
    timer's) can take an older address from the browser, without a key a control set a moment before; the
    controls' values still hold it. Without the internals: nothing."""
    try:
        from streamlit.runtime.state.query_params import _coerce_value_for_query_url
    except ImportError:
        return {}
    state = getattr(getattr(_ctx(), "session_state", None), "_state", None)
    bindings = getattr(getattr(state, "query_params", None), "_bindings_by_widget", None)
    metadata = getattr(getattr(state, "_new_widget_state", None), "widget_metadata", None)
    if bindings is None or metadata is None:
        return {}
    found = {}
    for widget_id, binding in list(bindings.items()):
        control = metadata.get(widget_id)
        if control is None or binding.param_key not in state:
            continue
        value = state[binding.param_key]
        if value == control.deserializer(None):
            continue
        written = _coerce_value_for_query_url(control.serializer(value), control.value_type)
        found[binding.param_key] = (written or [""]) if isinstance(written, list) else [written]
    return found


def watch_elements(on_element) -> bool:
    """Once a process: every element and block a run sends is shown to ``on_element(session_id, delta_path,
    delta, message_hash)`` after it is queued (``ScriptRunContext.enqueue``, which gives every message its
    content hash); ``delta`` is the message's ``Delta`` (``new_element`` or ``add_block``), not to be changed.
    False, and nothing watched, where that method moved."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext
    except ImportError:
        return False
    original = getattr(ScriptRunContext, "enqueue", None)
    if original is None:
        return False
    if getattr(original, "lab_watched", False):
        return True

    def enqueue(self, msg) -> None:
        original(self, msg)
        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") in ("new_element", "add_block"):
            on_element(self.session_id, tuple(msg.metadata.delta_path), msg.delta, msg.hash)

    enqueue.lab_watched = True
    ScriptRunContext.enqueue = enqueue
    return True


def session_alive(session: str) -> bool:
    """True while session ``session``'s browser is connected to this server (a fallback id: always)."""
    if session.startswith("fallback-"):
        return True
    try:
        from streamlit.runtime import Runtime
    except ImportError:
        return True
    return Runtime.exists() and Runtime.instance().is_active_session(session)


def leave_pages_directory_mode() -> bool:
    """Turn the older file-based multipage mode off; True if it was on (the page must then run again)."""
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:
        return False
    if getattr(PagesManager, "uses_pages_directory", False):
        PagesManager.uses_pages_directory = False
        return True
    return False


def _has(module: str, dotted: str) -> bool:
    """Whether ``module`` has ``dotted`` (``"Class.attribute"``: attributes, or a dataclass's field)."""
    import importlib

    try:
        found = importlib.import_module(module)
    except ImportError:
        return False
    for name in dotted.split("."):
        fields = getattr(found, "__dataclass_fields__", {})
        if not hasattr(found, name) and name not in fields:
            return False
        found = getattr(found, name, None)
    return True


def _session_state_holds_state() -> bool:
    """Whether a session's state wrapper holds the state itself as ``_state`` (set on each instance)."""
    try:
        from streamlit.runtime.state.safe_session_state import SafeSessionState
        from streamlit.runtime.state.session_state import SessionState
    except ImportError:
        return False
    return hasattr(SafeSessionState(SessionState(), lambda: None), "_state")


def _run_records_user_keys() -> bool:
    """Whether a script run's shared state records its elements' user keys (set on each instance)."""
    try:
        from streamlit.runtime.scriptrunner_utils.shared_run_state import SharedRunState
    except ImportError:
        return False
    return hasattr(SharedRunState(), "widget_user_keys_this_run")


_CONTEXT, _STATE, _URL = (
    "streamlit.runtime.scriptrunner_utils.script_run_context",
    "streamlit.runtime.state.session_state",
    "streamlit.runtime.state.query_params",
)
INTERNALS = {  # each private name this module reaches -> whether the installed Streamlit has it
    "get_script_run_ctx": lambda: _has("streamlit.runtime.scriptrunner", "get_script_run_ctx"),
    "ScriptRunContext.session_id": lambda: _has(_CONTEXT, "ScriptRunContext.session_id"),
    "ScriptRunContext.session_state": lambda: _has(_CONTEXT, "ScriptRunContext.session_state"),
    "ScriptRunContext.fragment_ids_this_run": lambda: _has(_CONTEXT, "ScriptRunContext.fragment_ids_this_run"),
    "ScriptRunContext.enqueue": lambda: _has(_CONTEXT, "ScriptRunContext.enqueue"),
    "ScriptRunContext.shared": lambda: _has(_CONTEXT, "ScriptRunContext.shared"),
    "SharedRunState.widget_user_keys_this_run": _run_records_user_keys,
    "SafeSessionState._state": _session_state_holds_state,
    "SafeSessionState.query_params": lambda: _has(
        "streamlit.runtime.state.safe_session_state", "SafeSessionState.query_params"
    ),
    "SessionState.query_params": lambda: _has(_STATE, "SessionState.query_params"),
    "SessionState._new_widget_state": lambda: _has(_STATE, "SessionState._new_widget_state"),
    "WStates.widget_metadata": lambda: _has(_STATE, "WStates.widget_metadata"),
    "QueryParams._bindings_by_param": lambda: _has(_URL, "QueryParams._bindings_by_param"),
    "QueryParams._bindings_by_widget": lambda: _has(_URL, "QueryParams._bindings_by_widget"),
    "QueryParams.unbind_widget": lambda: _has(_URL, "QueryParams.unbind_widget"),
    "QueryParams.set_initial_query_params_from_current": lambda: _has(
        _URL, "QueryParams.set_initial_query_params_from_current"
    ),
    "_coerce_value_for_query_url": lambda: _has(_URL, "_coerce_value_for_query_url"),
    "Runtime.is_active_session": lambda: _has("streamlit.runtime", "Runtime.is_active_session"),
    "PagesManager.uses_pages_directory": lambda: _has(
        "streamlit.runtime.pages_manager", "PagesManager.uses_pages_directory"
    ),
}


def moved() -> list[str]:
    """One line for each internal this module reaches that the installed Streamlit does not have, by name."""
    return [
        f"Streamlit internal {name} moved: see ui/streamlit_internals.py"
        for name, found in INTERNALS.items()
        if not found()
    ]


def log_moved() -> None:
    """Log, once a server, the internals that moved (nothing when none did)."""
    for line in moved():
        _LOG.warning(line)
