"""Every view of every lesson opens from its link, shows the lesson bar, and draws what its notes say.

What each view's notes claim is checked in test_lessons_attention.py and test_lessons_models.py, on the
drawn data (chart specs) against the formula or the property the notes state, never against numbers
from the code that drew them.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.apptest_helpers import chart_specs, decode_array
from tests.lesson_views import lesson_of, link_query, open_view
from lessons.catalogue import LESSONS

WIDGET_TYPES = (
    "selectbox",
    "select_slider",
    "slider",
    "toggle",
    "checkbox",
    "number_input",
    "text_input",
    "text_area",
    "button_group",
    "multiselect",
    "radio",
)


def widgets_by_key(at) -> dict:
    return {w.key: w for kind in WIDGET_TYPES for w in at.get(kind) if getattr(w, "key", None)}


def shown(widget):
    """What a control shows, as a link writes it: a choice as its label, a switch as true/false."""
    value = widget.value
    if type(widget).__name__ in ("Selectbox", "SelectSlider", "Radio"):
        return str(widget.format_func(value))
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return value


def distinct_views() -> list[tuple[str, int]]:
    """Every view once: a view the Start here course borrows from a topic lesson is opened as that lesson's."""
    seen, views = set(), []
    for lesson in sorted(LESSONS, key=lambda lesson: lesson.id == "start"):  # the course last
        for step, view in enumerate(lesson.views):
            if id(view) not in seen:
                seen.add(id(view))
                views.append((lesson.id, step))
    return views


ALL_VIEWS = distinct_views()


@pytest.mark.parametrize(("lesson_id", "step"), ALL_VIEWS)
def test_every_view_opens_with_the_lesson_bar_finite_figures_and_every_setting_offered_and_shown(lesson_id, step):
    """The lesson bar and finite figures; and a lesson link never carries a value its page cannot show: each
    setting's control is on the page, offers the value, and shows it after the link is opened (a value the page
    does not offer would be replaced)."""
    lesson = lesson_of(lesson_id)
    at = open_view(lesson_id, step)
    bar = f"**Lesson: {lesson.title}** · step {step + 1} of {len(lesson.views)}"
    assert any(m.value.startswith(bar) for m in at.markdown)
    specs = chart_specs(at)
    assert specs, "every lesson view draws a figure"
    for spec in specs:
        for t in spec["data"]:
            for axis in ("z", "y"):
                if axis in t and t[axis] is not None and not isinstance(t[axis], str):
                    values = decode_array(t[axis])
                    if values.dtype.kind == "f":
                        assert np.isfinite(values[~np.isnan(values)]).all()
    controls = widgets_by_key(at)
    assert not {"lesson", "step"} & set(controls), "a control bound to the lesson's own URL keys would take them over"
    assert at.query_params["step"] == str(step + 1)
    for key, value in link_query(lesson, step).items():
        if key in ("lesson", "step"):
            continue
        assert key in controls, f"{lesson_id} step {step + 1}: no control {key!r} on the page"
        control = controls[key]
        options = [str(o) for o in getattr(control, "options", None) or []]
        for one in [value] if isinstance(value, str) else value:
            assert not options or one in options, (lesson_id, step + 1, key, one, options)
        if type(control).__name__ in ("Slider", "NumberInput"):
            assert control.min <= float(value) <= control.max and control.value == pytest.approx(float(value))
        else:
            assert shown(control) == value, (lesson_id, step + 1, key, shown(control), value)


def test_every_view_of_the_course_is_checked_once():
    course = lesson_of("start")
    checked = {id(lesson_of(lesson_id).views[step]) for lesson_id, step in ALL_VIEWS}
    assert all(id(view) in checked for view in course.views)
    assert len(ALL_VIEWS) == len({id(view) for lesson in LESSONS for view in lesson.views})
