"""A lesson step's notice is about the step's own view: once a control moves, the bar says the notice holds at
the step's settings, and "Back to this step's view" opens the view again with the step's values."""

from __future__ import annotations

from tests.apptest_helpers import assert_no_exception
from tests.lesson_views import open_view

MOVED = "**Notice, at this step's settings** (a control has moved since):"


def notices(at) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith("**Notice")]


def test_the_notice_says_it_holds_at_the_steps_settings_once_a_control_moves_and_the_view_comes_back():
    at = open_view("scaling", 1)  # "most rows put more than 90 % on a single key": at seed 0
    notice = notices(at)
    assert len(notice) == 1 and notice[0].startswith("**Notice:** With d_model = 128")
    assert not [b for b in at.button if b.key == "lesson_step_back"]
    at.run()  # a run with nothing moved (a timer, another session's class): still the step's view
    assert notices(at)[0].startswith("**Notice:** With d_model = 128")
    assert at.number_input(key="seed").value == 0
    at.number_input(key="seed").set_value(1).run()
    assert_no_exception(at)
    assert notices(at)[0].startswith(MOVED + " With d_model = 128")
    at.toggle(key="present").set_value(True).run()  # presentation mode shows the same view
    assert notices(at)[0].startswith(MOVED)
    at.button(key="lesson_step_back").click().run()
    assert_no_exception(at)
    assert at.number_input(key="seed").value == 0
    assert at.query_params["step"] in ("2", ["2"]) and at.query_params["lesson"] in ("scaling", ["scaling"])
    assert notices(at)[0].startswith("**Notice:** With d_model = 128")
