"""A class in AppTest sessions of the real app: the teacher's run publishes what it drew (every chart as its own
page sent it), a student's run hands its browser what it needs to take the next drawing in place; the three
findings of a lecture hall: presentation mode switched off and another page in quick succession reaches every
one of ten followers, the teacher's count tells followers from explorers, and no key another page's control
left behind reaches the teacher's address or the published view."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from classroom.board import BOARD
from tests.apptest_helpers import (
    APP,
    RANDOM_MODEL,
    TIMEOUT,
    assert_no_exception,
    chart_elements,
    chart_json,
    chart_name,
    chart_specs,
)
from ui.rooms.membership import room_store
from ui.rooms.schema import LESSON_KEYS, PAGE_KEYS
from ui.model_picker import pretrained_label
from ui.pages_index import PAGES
from ui.screen import COMPACT
from viz.compact import colour_bar_owners

PAGE_SCRIPTS = {page.url_path: page.path for page in PAGES}


def session(query: dict[str, str] | None = None, page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    if page is not None:
        at.switch_page(PAGE_SCRIPTS[page]).run()
    return at


def teacher_on_the_random_stack() -> AppTest:
    """A teacher on Multi-head with the random stack picked: the page's settings (heads, causal) are its controls."""
    return session({"model": RANDOM_MODEL}, page="multi_head")


def teach(at: AppTest) -> tuple[str, str]:
    """Press "Teach this class": the class's code and the teacher's secret."""
    at.button(key="teach_class").click().run()
    assert_no_exception(at)
    assert "teach" not in at.query_params  # the secret stays in the session (and the browser's cookie)
    return first(at, "room"), at.session_state["class_room"].secret


def first(at: AppTest, key: str) -> str:
    value = at.query_params[key]
    return value if isinstance(value, str) else value[0]


def follower_data(at: AppTest) -> dict:
    found = [el for el in at.get("bidi_component") if el.proto.component_name == "attention_lab_follower"]
    assert len(found) == 1
    return json.loads(found[0].proto.json)


def query_of(at: AppTest) -> dict[str, list[str]]:
    values = {key: at.query_params[key] for key in at.query_params}
    return {key: [value] if isinstance(value, str) else list(value) for key, value in values.items()}


def test_the_teachers_drawing_holds_every_chart_as_the_page_sent_it_and_the_board_serves_it():
    teacher = session(page="multi_head")
    code, secret = teach(teacher)
    sent = {chart_name(el): json.loads(chart_json(el)) for el in chart_elements(teacher)}
    version, drawings = room_store().drawing(code)
    drawing = json.loads(drawings["plain"])
    assert drawing["version"] == version == room_store().view(code).version
    assert drawing["page"] == "multi_head" and drawing["query"] == {}
    assert {name: spec for name, spec in drawing["charts"].items()} == sent
    token = room_store().view_token(code)
    assert BOARD.drawn(token) == (version, drawing["layout"])
    served = json.loads(BOARD.latest(token, "plain")[1])
    assert served["drawing"] == drawing


def test_a_drawing_too_large_to_send_is_left_out_and_the_teacher_page_goes_on(monkeypatch):
    """Figures over the store's limit are not sent (the students' pages then draw the view themselves after
    their wait); the view itself goes out, and the teacher's page shows no error."""
    import ui.rooms.drawing as drawing_module

    teacher = teacher_on_the_random_stack()
    code, _ = teach(teacher)
    drawn_version = room_store().drawing(code)[0]
    import classroom.store as store_module

    for module in (store_module, drawing_module):  # the store refuses, and the page knows it would
        monkeypatch.setattr(module, "MAX_DRAWING_CHARS", 100, raising=False)  # smaller than any page's figures
    teacher.select_slider(key="heads").set_value(2).run()
    assert_no_exception(teacher)
    assert room_store().view(code).version > drawn_version  # the view went out
    assert room_store().drawing(code)[0] == drawn_version  # its figures did not


def test_a_students_run_tells_its_browser_what_it_drew_and_which_controls_to_hide():
    teacher = teacher_on_the_random_stack()
    code, _ = teach(teacher)
    student = session({"room": code})
    assert_no_exception(student)
    data = follower_data(student)
    view = room_store().view(code)
    assert data["url"] == f"_class/{room_store().view_token(code)}" and data["code"] == code
    assert data["version"] == view.version and data["following"] is True
    assert data["layout"] == json.loads(room_store().drawing(code)[1]["plain"])["layout"]
    assert "heads" in data["controls"] and "section" not in data["controls"]
    assert set(data["controls"]) <= PAGE_KEYS["multi_head"]
    # the teacher moves the heads: the new drawing has the same layout, so the student's page takes it in place
    teacher.query_params["heads"] = "8"  # as the browser writes a bound control's value into the URL
    teacher.select_slider(key="heads").set_value(8).run()
    drawing = json.loads(room_store().drawing(code)[1]["plain"])
    assert drawing["layout"] == data["layout"] and drawing["version"] > data["version"]
    assert "8 heads" in drawing["charts"]["chart:grid"]["layout"]["title"]["text"]
    assert drawing["query"] == {"model": [RANDOM_MODEL], "heads": ["8"]} and ["heads", "8"] in drawing["settings"]


def colour_bars(spec: dict) -> list[str | None]:
    """The orientation of each colour bar a figure draws (None: Plotly's own, upright beside the plot)."""
    return [(spec[where][key].get("colorbar") or {}).get("orientation") for where, key in colour_bar_owners(spec)]


def test_a_compact_window_gets_its_colour_bars_under_the_plots_from_its_own_run_and_from_the_teacher():
    teacher = session(page="multi_head")
    code, _ = teach(teacher)
    drawings = room_store().drawing(code)[1]
    assert set(drawings) == {"plain", "compact"}
    plain, small = (json.loads(drawings[mode])["charts"] for mode in ("plain", "compact"))
    assert plain.keys() == small.keys() and any(colour_bars(spec) for spec in plain.values())
    assert all(set(colour_bars(spec)) <= {None} for spec in plain.values())
    assert all(set(colour_bars(spec)) <= {"h"} for spec in small.values())
    student = AppTest.from_file(APP, default_timeout=TIMEOUT)
    student.session_state[COMPACT] = True  # as the screen component reports a phone
    student.query_params["room"] = code
    student.run()
    assert_no_exception(student)
    assert follower_data(student)["mode"] == "compact"
    specs = chart_specs(student)
    assert specs and any(colour_bars(spec) for spec in specs)
    assert all(set(colour_bars(spec)) <= {"h"} for spec in specs)


def test_ten_followers_leave_presentation_mode_with_the_teacher_and_a_quick_change_of_page():
    teacher = session({"present": "true"}, page="multi_head")
    code, secret = teach(teacher)
    students = [session({"room": code}) for _ in range(10)]
    assert all(student.toggle(key="present").value for student in students)
    del teacher.query_params["present"]  # as the browser drops a bound control's value at its default
    teacher.toggle(key="present").set_value(False).run()  # presentation off, then at once another page
    teacher.switch_page(PAGE_SCRIPTS["masks"]).run()
    assert "present" not in teacher.query_params
    for student in students:
        student.run()  # the run its browser starts: the page must change
        assert_no_exception(student)
        assert not student.toggle(key="present").value
        assert "present" not in student.query_params and query_of(student).get("room") == [code]


def test_the_teachers_count_tells_students_following_from_students_exploring():
    teacher = session(page="multi_head")
    code, _ = teach(teacher)
    room_store().seen(code, "student-a", exploring=("student-b",))
    teacher.run()
    captions = " ".join(caption.value for caption in teacher.caption)
    assert "1 student follows this screen · 1 explores on their own." in captions
    join = [image.proto.imgs[0] for image in teacher.get("image")]
    assert [i.alt for i in join] == ["QR code of the class's join link, written out below"]  # for a screen reader


@pytest.mark.parametrize("last", ["self_attention", "generate", "positional_encoding", "experiments", "masks"])
def test_no_key_of_another_pages_control_reaches_the_teachers_address_or_view(last):
    teacher = teacher_on_the_random_stack()
    code, _ = teach(teacher)
    for path, settings in (
        ("self_attention", {"section": "Q, K, V"}),
        ("generate", {"temp": "0.5", "k": "5"}),
        ("positional_encoding", {"k": "20"}),
        ("masks", {"heads": "2", "section": "Padding"}),
    ):
        teacher.switch_page(PAGE_SCRIPTS[path])
        for key, value in settings.items():
            teacher.query_params[key] = value
        teacher.run()
        if path == last:
            break
    teacher.switch_page(PAGE_SCRIPTS["multi_head"]).run()
    assert_no_exception(teacher)
    here = query_of(teacher)
    assert set(here) <= {"room", "present"}, here
    # the random model was the other pages' own default, so none named it: Multi-head opens on its own default
    assert teacher.selectbox(key="model").value == pretrained_label("all-MiniLM-L6-v2")
    assert room_store().view(code).query == {}
    teacher.query_params["model"] = RANDOM_MODEL  # as the browser writes the picked model into the URL
    teacher.selectbox(key="model").set_value(RANDOM_MODEL).run()
    view = room_store().view(code)
    # Masks' heads were not taken to a page that opened without a heads control: the random stack starts at 4
    assert teacher.select_slider(key="heads").value == 4
    assert view.page == "multi_head" and view.query == {"model": [RANDOM_MODEL]}, view
    assert set(view.query) <= PAGE_KEYS["multi_head"] | LESSON_KEYS


def test_a_change_that_changes_what_the_page_writes_changes_the_drawings_text_not_its_parts():
    teacher = teacher_on_the_random_stack()
    code, _ = teach(teacher)
    before = json.loads(room_store().drawing(code)[1]["plain"])["layout"]
    teacher.query_params["causal"] = "true"  # the explanation above the heads says that grey cells are masked
    teacher.toggle(key="causal").set_value(True).run()
    after = json.loads(room_store().drawing(code)[1]["plain"])["layout"]
    assert before.split("|")[0] == after.split("|")[0]  # the same charts: the figures are taken in place
    assert before.split("|")[1] != after.split("|")[1]  # other sentences: the student's page runs again
    assert any("grey cells are masked" in md.value for md in teacher.markdown)


def test_a_view_too_large_for_the_class_is_said_once_on_the_teachers_page_and_the_class_keeps_the_last():
    """A long pasted training text makes the view larger than a room carries: no exception on the teacher's
    page (its live part runs every half second), one notice there, and the students keep the last view."""
    from classroom.store import MAX_VIEW_BYTES

    teacher = session(page="self_attention")
    code, _ = teach(teacher)
    teacher.button_group(key="section").set_value("Tokens").run()
    before = room_store().view(code)
    teacher.text_area(key="bpe_text").set_value("the cat sat on the mat. " * (MAX_VIEW_BYTES // 20)).run()
    assert_no_exception(teacher)
    for _ in range(3):  # the live part's runs
        teacher.run()
        assert_no_exception(teacher)
    notices = [w.value for w in teacher.warning if "too large to share with the class" in w.value]
    assert len(notices) == 1 and f"larger than the {MAX_VIEW_BYTES} a room carries" in notices[0]
    assert room_store().view(code).version == before.version  # the students keep the last view
    teacher.text_area(key="bpe_text").set_value("a short text about attention and tokens").run()
    assert_no_exception(teacher)
    assert not [w for w in teacher.warning if "too large to share" in w.value]
    assert room_store().view(code).version > before.version
