"""The Start here course and the lessons added with it (why attention, the layer, cross-attention): the course's
order and terms, Home's pointer to it, and predict-then-reveal: a question is answered, judged right or wrong, and
only then explained; the answers stay out of the URL. Each view's 'what to notice': test_course_views.py.
"""

from __future__ import annotations


import pytest

from tests.apptest_helpers import assert_no_exception, run_page
from tests.lesson_views import lesson_of, link_query, open_view
from lessons.catalogue import LESSONS, Choice, Number
from ui.quiz import ANSWERS
from ui.screen import COMPACT

COURSE = lesson_of("start")
# The course's topics in the order a first-time student meets them; the first five steps are the course's own.
TOPICS = (
    "start",
    "why-attention",
    "scaling",
    "heads",
    "word-order",
    "causal",
    "layer",
    "encoder-decoder",
    "trained",
    "pretrained",
    "circuit",
)
SAME_TOPIC = {"cross-attention": "encoder-decoder"}


def topic_of(view) -> str:
    owners = [lesson.id for lesson in LESSONS if lesson.id != "start" and any(v is view for v in lesson.views)]
    return SAME_TOPIC.get(owners[0], owners[0]) if owners else "start"


def text_of(view) -> str:
    options = view.ask.options if isinstance(view.ask, Choice) else ()
    return " ".join((view.notice, view.question, view.answer, *options))


def test_the_course_is_the_first_lesson_and_runs_through_the_topics_in_order():
    assert LESSONS[0] is COURSE and len({lesson.id for lesson in LESSONS}) == len(LESSONS)
    order = [TOPICS.index(topic_of(view)) for view in COURSE.views]
    assert order == sorted(order) and set(order) == set(range(len(TOPICS))), order
    assert [topic_of(view) for view in COURSE.views[:5]] == ["start"] * 5
    assert COURSE.views[-1].page == "experiments"


@pytest.mark.parametrize("term", ["residual stream", "prefix matching", "phase change"])
def test_each_term_is_defined_where_the_course_first_uses_it(term):
    first = next(view for view in COURSE.views if term in text_of(view).lower())
    assert f"**{term}**" in first.notice.lower(), (term, first.title)


def test_every_question_is_answered_by_a_choice_or_a_number():
    for lesson in LESSONS:
        for view in lesson.views:
            assert isinstance(view.ask, (Choice, Number)), (lesson.id, view.title)
            assert view.question.endswith("?"), (lesson.id, view.title)
            if isinstance(view.ask, Choice):
                assert len(set(view.ask.options)) == len(view.ask.options) >= 2


def test_a_choice_and_a_number_judge_answers():
    choice = Choice(("a", "b", "c"), 2)
    assert choice.is_right(2) and not choice.is_right(0) and choice.solution == "c"
    with pytest.raises(ValueError):
        Choice(("a", "b"), 2)
    near = Number(0.25, tolerance=0.005)
    assert near.is_right(0.25) and near.is_right(0.2549) and near.is_right(0.2451)
    assert not near.is_right(0.26) and not near.is_right(None) and not near.whole
    exact = Number(5050, unit="cells")
    assert exact.whole and exact.is_right(5050) and not exact.is_right(5049)
    assert exact.solution == "5,050 cells" and near.solution == "0.25 (± 0.005)"


def test_home_points_a_first_time_student_to_the_course():
    at = run_page("pages/home/page.py")
    assert_no_exception(at)
    link = next(link.proto for link in at.get("page_link") if "Start here" in link.proto.label)
    assert link.page == "self_attention"
    assert link.query_string == "section=Tokens&text=the+cat+sat+on+the+mat&merges=200&lesson=start&step=1"


def test_the_lessons_page_opens_on_the_course():
    at = run_page("pages/lessons/page.py")
    assert_no_exception(at)
    assert at.selectbox(key="topic").value == COURSE.title
    steps = at.radio(key="at_step")
    assert steps.options == [f"Step {n + 1}: {v.title}" for n, v in enumerate(COURSE.views)]
    assert step_shown(at, 0)
    assert [e.label for e in at.expander] == ["Your answer"]
    assert not [b for b in at.button if b.label == "Check"]  # an answer's input is built when its step's is opened


def step_shown(at, step: int) -> bool:
    """The Lessons page shows ``step`` of the course: its link, what to notice and its question."""
    view = COURSE.views[step]
    link = next(link.proto for link in at.get("page_link"))
    notice = [m.value for m in at.markdown if m.value.startswith("**Notice:")]
    return (
        link.label == f"**Step {step + 1}: {view.title}**"
        and link.query_string.endswith(f"step={step + 1}")
        and notice == [f"**Notice:** {view.notice}\n\n**Ask the class:** {view.question}"]
    )


def test_a_step_picked_in_the_list_shows_its_link_notice_and_question():
    at = run_page("pages/lessons/page.py")
    at.radio(key="at_step").set_value(4).run()
    assert_no_exception(at)
    assert step_shown(at, 4)


def test_on_a_phone_the_chosen_step_comes_first_and_a_link_restores_it():
    at = run_page("pages/lessons/page.py", {"at_step": f"Step 31: {COURSE.views[30].title}"})
    assert_no_exception(at)
    assert at.radio(key="at_step").value == 30 and step_shown(at, 30)  # a shared link opens on its step
    at.session_state[COMPACT] = True
    at.run()
    assert_no_exception(at)
    assert step_shown(at, 30) and at.radio(key="at_step").value == 30  # the same control and step on a phone


def test_a_question_answered_in_the_list_is_judged_there_and_on_the_steps_page():
    at = run_page("pages/lessons/page.py")
    at.radio(key="at_step").set_value(1)  # the second step: its question is a choice
    at.session_state["answer_start/1"] = True  # its "Your answer", opened
    at.run()
    assert len([b for b in at.button if b.label == "Check"]) == 1
    at.radio(key="quiz_list_start/1").set_value(1)
    check(at)
    at.session_state["answer_start/1"] = True  # open (a browser keeps it open; the test client reports closed)
    at.run()
    assert at.success[0].value == "Right: No: each adds the vector of its own position."
    assert at.session_state[ANSWERS] == {"start/1": 1}  # the step's page judges the same answer


# Predict, then reveal.


def bar_answer(at) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith("**Answer:")]


def check(at):
    next(button for button in at.button if button.label == "Check").click().run()
    assert_no_exception(at)
    return at


def test_a_choice_is_judged_wrong_then_right_and_explained_only_after_an_answer():
    at = open_view("start", 1)
    assert not bar_answer(at) and not at.error and not at.success  # the answer is not sent before an answer
    check(at)
    assert not bar_answer(at) and not at.error and not at.success  # Check with nothing picked answers nothing
    at.radio(key="quiz_bar_start/1").set_value(0)
    check(at)
    assert at.error[0].value == "Not quite: you answered Yes: the same word has the same embedding."
    assert bar_answer(at)[0].startswith("**Answer: No: each adds the vector of its own position.**")
    assert set(at.query_params) <= {"section", "text", "lesson", "step"}  # the URL carries no answer
    at.button(key="quiz_again_bar_start/1").click().run()
    assert not bar_answer(at) and at.radio(key="quiz_bar_start/1").value is None
    at.radio(key="quiz_bar_start/1").set_value(1)
    check(at)
    assert at.success[0].value == "Right: No: each adds the vector of its own position." and not at.error
    assert at.session_state[ANSWERS] == {"start/1": 1}


def test_a_number_is_judged_within_its_tolerance():
    at = open_view("start", 3)  # 0.25 ± 0.005
    at.number_input(key="quiz_bar_start/3").set_value(0.26)
    check(at)
    assert at.error[0].value == "Not quite: you answered 0.26." and bar_answer(at)[0].startswith(
        "**Answer: 0.25 (± 0.005).**"
    )
    at.button(key="quiz_again_bar_start/3").click().run()
    at.number_input(key="quiz_bar_start/3").set_value(0.254)
    check(at)
    assert at.success[0].value == "Right: 0.254."
    at = open_view("start", 2)  # 128, a whole number
    at.number_input(key="quiz_bar_start/2").set_value(127)
    check(at)
    assert at.error[0].value == "Not quite: you answered 127 weights."


def test_an_answer_stays_in_the_session_when_the_student_moves_on_and_comes_back():
    at = open_view("start", 3)
    at.number_input(key="quiz_bar_start/3").set_value(0.25)
    check(at)
    for step in (5, 4):  # the next step (arriving forgets the controls), then back
        at.query_params.clear()
        for key, value in link_query(COURSE, step - 1).items():
            at.query_params[key] = value
        at.run()
        assert_no_exception(at)
    assert at.success[0].value == "Right: 0.25." and bar_answer(at)
