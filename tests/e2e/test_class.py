"""In real browsers: a teacher opens a class and students on their own devices follow it.

On one server (rooms in its memory): a student who opens the join link follows the teacher's settings and
page, explores on their own and follows again; a lesson's question is answered by the student, counted on
the teacher's chart and revealed by the teacher. On two servers sharing one Redis: a student on the other
server follows, and a Redis that goes away mid-class and comes back is survived.
"""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlparse

import pytest

from testing.installed import require
from testing.redis_server import redis_running
from testing.server import start
from tests.e2e.accessibility_check import accessibility_violations
from tests.e2e.conftest import (
    DRAWN_TITLES,
    RANDOM_MULTI_HEAD,
    assert_no_exception,
    new_page,
    nudge_slider,
    requested_runs,
    wait_for_chart,
    wait_idle,
)

# A teacher's change on a student's screen: the budget is 1.5 s at p95 (bench/classroom.py measures it on
# a quiet machine); a test asserts it arrives, within a bound that a loaded test machine also keeps.
FOLLOW_SECONDS = 10.0
CHECK_TIMEOUT_MS = 45_000  # what a test waits before it fails (a loaded machine is slower than the budget)
LESSON = "heads"  # "One sentence, many heads": step 1 is on Multi-head attention
FOCUSED = "t => document.activeElement?.tagName === 'BUTTON' && document.activeElement.innerText.includes(t)"


def query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def open_class(page, url: str, path: str = RANDOM_MULTI_HEAD, chart: str = "Layer 1 · 4 heads") -> str:
    """Open ``path`` and "Teach this class"; returns the class's code (from the teacher's URL, which holds no
    secret: the teacher's browser keeps it as a cookie)."""
    page.goto(f"{url}/{path}")
    wait_idle(page)
    wait_for_chart(page, chart, timeout=30_000)
    page.get_by_role("button", name="Teach this class").click()
    page.wait_for_function("() => new URLSearchParams(location.search).has('room')", timeout=CHECK_TIMEOUT_MS)
    page.get_by_text("Teaching class").first.wait_for(timeout=CHECK_TIMEOUT_MS)
    assert "teach" not in query(page)
    return query(page)["room"][0]


def join(page, url: str, code: str, path: str) -> None:
    """Open the join link (the app's address with ?room=CODE) and wait to be on the teacher's page."""
    page.goto(f"{url}/?room={code}")
    page.wait_for_function("p => location.pathname.endsWith('/' + p)", arg=path, timeout=30_000)
    page.get_by_text("Following the teacher").first.wait_for(timeout=CHECK_TIMEOUT_MS)
    page.wait_for_selector(".js-plotly-plot .gtitle", timeout=CHECK_TIMEOUT_MS)  # the teacher's figure is drawn


def seconds_until(page, condition: str, arg=None) -> float:
    """Seconds until the JavaScript ``condition`` holds on ``page`` (fails after CHECK_TIMEOUT_MS)."""
    began = time.monotonic()
    page.wait_for_function(condition, arg=arg, timeout=CHECK_TIMEOUT_MS, polling=50)
    return time.monotonic() - began


def chart_title(title: str) -> str:
    return (f"t => ({DRAWN_TITLES})().some((text) => text.includes(t))", title)


def teach_lesson_step(teacher, student, url: str) -> str:
    """The teacher opens a class, the student joins, and a link opened in the teacher's browser (it keeps the
    secret) opens the lesson's first step and keeps the class; the student follows to it. Returns the code."""
    code = open_class(teacher, url)
    join(student, url, code, "multi_head")
    teacher.goto(f"{url}/multi_head?lesson={LESSON}&step=1&room={code}")
    wait_idle(teacher)
    teacher.get_by_text("Teaching class").first.wait_for(timeout=CHECK_TIMEOUT_MS)
    seconds_until(
        student,
        "() => new URLSearchParams(location.search).get('step') === '1' && "
        "new URLSearchParams(location.search).get('lesson') === 'heads'",
    )
    return code


def answer_first_choice(page) -> None:
    """Answer a lesson's question (a choice) with its first option, and "Check"."""
    option = page.locator("[data-testid=stRadio]").filter(has_text="Your answer").locator("[data-testid=stRadioOption]")
    option.first.wait_for(timeout=CHECK_TIMEOUT_MS)
    option.first.click()
    page.locator("[data-testid=stBaseButton-secondaryFormSubmit]", has_text="Check").click()


def follows_heads_then_page(teacher, student) -> list[float]:
    """The teacher changes the heads slider, then goes to Masks; the student's view follows. Returns seconds.
    The heads arrive in place and the Masks page as the copy of the teacher's page with the teacher's figures
    in it (no run of the student's page either time), the teacher's settings beside them, the page's own
    controls hidden while following and the bars' buttons shown."""
    wait_idle(student)
    runs = requested_runs(student)
    heads = student.locator("[data-testid=stMain] .st-key-heads")
    assert heads.count() == 1 and heads.is_hidden()
    explore = student.get_by_role("button", name="Explore on my own")
    assert explore.is_visible()
    explore.focus()  # where a keyboard user stands: the class's live updates leave the focus there (WCAG 2.2 AA)
    nudge_slider(teacher, "heads")  # 4 -> 8
    took = [seconds_until(student, *chart_title("Layer 1 · 8 heads"))]
    assert student.evaluate(FOCUSED, "Explore on my own")
    assert query(student)["heads"] == ["8"]  # the address bar holds the teacher's settings too
    student.get_by_text("The teacher's settings: heads = 8").first.wait_for(timeout=CHECK_TIMEOUT_MS)
    assert requested_runs(student) == runs  # taken in place: the student's page did not run
    teacher.get_by_role("link", name="Masks").first.click()
    copy = student.locator("div.lab-teacher-screen")
    took.append(
        seconds_until(student, "() => document.querySelector('div.lab-teacher-screen h1')?.textContent === 'Masks'")
    )
    wait_for_chart(student, "Causal mask for", timeout=CHECK_TIMEOUT_MS)
    assert copy.get_by_text("The teacher's screen: masks.").is_visible()
    sentence = "The decoder predicts token"  # one of the page's sentences, beside its chart
    # the teacher's browser may still be drawing what the server has sent (and the student has copied): wait for it
    teacher.locator("[data-testid=stMain]").get_by_text(sentence).first.wait_for(timeout=CHECK_TIMEOUT_MS)
    assert copy.get_by_text(sentence).is_visible()
    assert copy.locator("math").count() > 0  # the page's formulas, drawn by the browser
    assert accessibility_violations(student) == [] and accessibility_violations(teacher) == []  # WCAG A and AA
    assert student.locator("[data-testid=stMain] .st-key-heads").is_hidden()  # the old page is hidden
    assert student.get_by_role("button", name="Reset this page").is_visible()
    assert requested_runs(student) == runs  # the copy: still no run of the student's page
    assert student.evaluate(FOCUSED, "Explore on my own")  # a whole page copied in: the focus stays
    copy.locator("details.lab-numbers > summary").first.click()  # the copy's charts give their numbers too
    assert copy.locator("details.lab-numbers table caption").first.inner_text(timeout=CHECK_TIMEOUT_MS)
    return took


def test_a_student_follows_the_teacher_explores_and_follows_again(browser, server_url):
    teacher, student = new_page(browser), new_page(browser)
    try:
        code = open_class(teacher, server_url)
        join(student, server_url, code, "multi_head")
        assert "teach" not in query(student)  # the secret is the teacher's alone
        took = follows_heads_then_page(teacher, student)
        print(f"a teacher's change on the student's screen after {took} s")
        assert max(took) < FOLLOW_SECONDS, took
        assert student.get_by_text("Teaching class").count() == 0
        seconds_until(teacher, "() => document.body.innerText.includes('1 student follows')")
        # explore on my own: the teacher's next change does not move the student
        student.get_by_role("button", name="Explore on my own").click()
        student.get_by_role("button", name="Follow again").wait_for(timeout=CHECK_TIMEOUT_MS)
        teacher.get_by_role("link", name="Positional encoding").first.click()
        wait_idle(teacher, after=0)
        # four more of the teacher's live runs answered: 2 s, in which the server looked at the room 20 times
        wait_idle(teacher, after=requested_runs(teacher) + 4)
        wait_idle(student)
        assert urlparse(student.url).path.endswith("/masks")
        # follow again: the student is taken to the teacher's view
        student.get_by_role("button", name="Follow again").click()
        seconds_until(student, "() => location.pathname.endsWith('/positional_encoding')")
        assert_no_exception(student)
        assert_no_exception(teacher)
    finally:
        teacher.context.close()
        student.context.close()


def test_the_class_answers_a_lesson_question_and_the_teacher_reveals_it(browser, server_url):
    teacher, student = new_page(browser), new_page(browser)
    try:
        teach_lesson_step(teacher, student, server_url)
        answer_first_choice(student)
        student.get_by_text("The answer shows when the teacher reveals it").wait_for(timeout=CHECK_TIMEOUT_MS)
        assert student.get_by_text("Answer:").count() == 0  # not before the reveal
        seconds_until(teacher, *chart_title("The class's answers: 1 of 1"))
        teacher.get_by_role("button", name="Reveal the answer to the class").click()
        seconds_until(student, "() => document.body.innerText.includes('Answer:')")
        assert (
            student.locator("[data-testid=stAlert]").filter(has_text="Right").count()
            + student.locator("[data-testid=stAlert]").filter(has_text="Not quite").count()
            == 1
        )
        assert_no_exception(student)
        assert_no_exception(teacher)
    finally:
        teacher.context.close()
        student.context.close()


def test_a_student_follows_a_section_as_the_copy_and_presentation_mode_on_and_off(browser, server_url):
    """Another section reaches the student as the copy of the teacher's page (no run); the teacher's presentation
    mode, turned on and then off and another page after it, is the student's too (a run each time, on a desktop),
    and the copy's text is presentation mode's size while it is on."""
    teacher, student = new_page(browser), new_page(browser)
    presenting = "() => document.body.classList.contains('lab-presenting')"
    try:
        code = open_class(teacher, server_url)
        join(student, server_url, code, "multi_head")
        wait_idle(student)
        runs = requested_runs(student)
        teacher.locator("[data-testid=stButtonGroup] button", has_text="Mean and rollout").click()
        seconds_until(student, *chart_title("Layer 1 · mean over 4 heads"))
        copy = student.locator("div.lab-teacher-screen")
        assert copy.get_by_text("The teacher's screen: multi head · Mean and rollout.").is_visible()
        assert requested_runs(student) == runs and query(student)["section"] == ["Mean and rollout"]

        teacher.get_by_text("Presentation mode").first.click()
        seconds_until(student, presenting)
        seconds_until(student, *chart_title("Layer 1 · mean over 4 heads"))
        assert requested_runs(student) > runs  # presentation mode changes the whole page: the student's page ran
        teacher.get_by_role("link", name="Masks").first.click()
        seconds_until(student, "() => document.querySelector('div.lab-teacher-screen h1')?.textContent === 'Masks'")
        size = student.evaluate("() => getComputedStyle(document.querySelector('div.lab-teacher-screen p')).fontSize")
        assert size == "20.8px", size  # 1.3 rem, as the page's own text in presentation mode
        assert student.locator("[data-testid=stMain] [data-testid=stButtonGroup]").first.is_hidden()  # the old page
        top = student.locator("div.lab-teacher-screen h1").bounding_box()["y"]
        assert 0 <= top < student.viewport_size["height"], top  # the copy's top in view, not the old scroll's place

        teacher.get_by_text("Presentation mode").first.click()  # off: the student leaves it too, then another page
        seconds_until(student, f"() => !({presenting})()")
        teacher.get_by_role("link", name="Positional encoding").first.click()
        seconds_until(student, f"() => !({presenting})() && location.pathname.endsWith('/positional_encoding')")
        seconds_until(student, *chart_title("PE against position"))
        assert "present" not in query(student)
        assert_no_exception(student)
    finally:
        teacher.context.close()
        student.context.close()


def test_an_unknown_class_says_so_and_leaves_the_student_on_the_app(page, server_url):
    page.goto(f"{server_url}/?room=ABCD-EFGH")
    wait_idle(page)
    page.locator("[data-testid=stAlert]", has_text="There is no class ABCDEFGH now").wait_for(timeout=CHECK_TIMEOUT_MS)
    assert "room" not in query(page)
    page.get_by_role("button", name="Teach this class").wait_for(timeout=CHECK_TIMEOUT_MS)


@pytest.fixture(scope="module")
def two_servers_one_redis():
    """(redis, [url of server A, url of server B]): two `streamlit run app.py` given one Redis."""
    require("redis-server")
    with redis_running() as redis:
        servers = [start("app.py", env={"ATTENTION_LAB_REDIS_URL": redis.url}) for _ in range(2)]
        try:
            for server in servers:
                server.wait_healthy()
            yield redis, [server.url for server in servers]
        finally:
            for server in servers:
                server.stop()


def warm(browser, url: str) -> None:
    """Run Multi-head attention once on a fresh server (its first run builds the model and imports torch)."""
    page = new_page(browser)
    try:
        page.goto(f"{url}/{RANDOM_MULTI_HEAD}&heads=8")
        wait_for_chart(page, "Layer 1 · 8 heads", timeout=60_000)
    finally:
        page.context.close()


def test_a_student_on_another_server_follows_and_a_lost_redis_is_survived(browser, two_servers_one_redis):
    redis, (server_a, server_b) = two_servers_one_redis
    for url in (server_a, server_b):
        warm(browser, url)
    teacher, student = new_page(browser), new_page(browser)
    try:
        code = open_class(teacher, server_a)
        join(student, server_b, code, "multi_head")
        took = follows_heads_then_page(teacher, student)
        print(f"across two servers, a teacher's change on the student's screen after {took} s")
        assert max(took) < FOLLOW_SECONDS, took
        redis.kill()  # Redis goes away mid-class
        for page in (teacher, student):
            seconds_until(page, "() => document.body.innerText.includes('cannot be reached')")
        # each page keeps working on its own
        nudge_slider(teacher, "tokens n")
        wait_idle(teacher, after=0)
        assert_no_exception(teacher)
        redis.start()  # back, empty: the teacher's session fills the class in again
        seconds_until(teacher, "() => !document.body.innerText.includes('cannot be reached')")
        seconds_until(student, "() => !document.body.innerText.includes('cannot be reached')")
        teacher.get_by_role("link", name="Multi-head attention").first.click()
        seconds_until(student, "() => location.pathname.endsWith('/multi_head')")
        assert_no_exception(student)
        assert_no_exception(teacher)
    finally:
        teacher.context.close()
        student.context.close()
