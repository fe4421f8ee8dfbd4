"""In a real browser: the Vision Transformer page's sections (with the default held-out digit each opens, draws its
charts and raises nothing), and a class whose teacher draws a digit: each student's page shows the same image and
prediction, and a student who explores starts from it on the canvas."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from tests.e2e.conftest import assert_no_exception, new_page, open_section, requested_runs, wait_for_chart, wait_idle
from tests.e2e.test_vision import (
    CANVAS,
    CANVAS_INK,
    CHART_TIMEOUT,
    CHARTS_DRAWN,
    DRAWN_TITLES,
    PREDICTION,
    PREDICTION_BARS,
    RUN_TIMEOUT,
    SECTIONS,
    SEEN,
    SEEN_PIXELS,
    VERTICAL_ONE,
    mouse_stroke,
    prediction,
)


def test_every_section_draws_for_a_held_out_digit(page, server_url):
    page.goto(f"{server_url}/vision")
    wait_idle(page, timeout=RUN_TIMEOUT)
    for section, (title, count) in SECTIONS.items():
        before = requested_runs(page)
        if section != "Draw a digit":  # the page opens on it
            open_section(page, section)
            wait_idle(page, timeout=RUN_TIMEOUT, after=before)
            page.wait_for_function(
                "(name) => new URLSearchParams(location.search).get('section') === name",
                arg=section,
                timeout=CHART_TIMEOUT,
            )
        wait_for_chart(page, title, timeout=CHART_TIMEOUT)
        page.wait_for_function(
            f"() => ({CHARTS_DRAWN})() && document.querySelectorAll('div.lab-chart').length === {count}",
            timeout=CHART_TIMEOUT,
        )
        titles = page.evaluate(DRAWN_TITLES)
        assert len(titles) == count and any(title in t for t in titles), (section, titles)
        assert page.locator(CANVAS).count() == 0, section  # a held-out digit: no canvas
        assert_no_exception(page)


def test_a_class_sees_the_digit_its_teacher_draws(browser, server_url):
    """The teacher draws; each student's page shows the same 8 x 8 image and prediction (the drawing travels as
    its image code in the teacher's view), and a student who then explores starts from that image, on its canvas."""
    from tests.e2e.test_class import CHECK_TIMEOUT_MS, join, open_class

    teacher, student = new_page(browser), new_page(browser)
    try:
        code = open_class(teacher, server_url, "vision?section=Draw+a+digit", "Prediction for held-out digit 8")
        join(student, server_url, code, "vision")
        before = requested_runs(teacher)
        teacher.locator(".st-key-source button", has_text="draw").click()
        wait_idle(teacher, timeout=RUN_TIMEOUT, after=before)
        teacher.locator(CANVAS).wait_for(timeout=CHART_TIMEOUT)
        mouse_stroke(teacher, VERTICAL_ONE)
        bars, seen = prediction(teacher), teacher.evaluate(SEEN_PIXELS, SEEN)
        same_bars = (
            "([read, start, want]) => { const bars = (eval(read))(start); "
            "return bars && JSON.stringify(bars.y) === JSON.stringify(want); }"
        )
        same_pixels = "([read, start, want]) => JSON.stringify((eval(read))(start)) === JSON.stringify(want)"
        try:
            student.wait_for_function(same_bars, arg=[PREDICTION_BARS, PREDICTION, bars["y"]], timeout=CHECK_TIMEOUT_MS)
        except Exception as error:  # say what the student shows instead
            shown = student.evaluate(
                "() => [...document.querySelectorAll('div.lab-chart')].map((p) => p.layout?.title?.text)"
            )
            raise AssertionError(
                f"the student shows {shown} at {student.url}, alerts "
                f"{student.locator('[data-testid=stAlert]').all_inner_texts()}"
            ) from error
        teacher_code = parse_qs(urlparse(teacher.url).query)["pixels"][0]
        student.wait_for_function(
            "(code) => new URL(location.href).searchParams.get('pixels') === code",
            arg=teacher_code,
            timeout=CHECK_TIMEOUT_MS,
        )
        # No page-change run is still to start (follower.js waits 0.3-1 s before one): nothing may undo the view.
        student.wait_for_function(
            "() => window.__attentionLabClass && !window.__attentionLabClass.opening", timeout=CHECK_TIMEOUT_MS
        )
        wait_idle(student, timeout=RUN_TIMEOUT)
        student.wait_for_function(same_pixels, arg=[SEEN_PIXELS, SEEN, seen], timeout=CHECK_TIMEOUT_MS)

        before = requested_runs(student)  # exploring: the student's own page, from the teacher's view
        student.get_by_role("button", name="Explore on my own").click()
        wait_idle(student, timeout=RUN_TIMEOUT, after=before)
        student.wait_for_function(same_bars, arg=[PREDICTION_BARS, PREDICTION, bars["y"]], timeout=CHECK_TIMEOUT_MS)
        student.wait_for_function(same_pixels, arg=[SEEN_PIXELS, SEEN, seen], timeout=CHECK_TIMEOUT_MS)
        student.wait_for_function(
            f"() => document.querySelector('{CANVAS}') && ({CANVAS_INK})() > 500", timeout=CHECK_TIMEOUT_MS
        )
        assert_no_exception(student)
    finally:
        teacher.context.close()
        student.context.close()
