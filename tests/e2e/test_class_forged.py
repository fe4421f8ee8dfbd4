"""In a real browser: a drawing the board serves that the app could never have drawn reaches no student as it is.
A figure with an image from outside the app is refused by the student's browser itself (ui/rooms/figure_check.js),
whatever the server let through: nothing is fetched from outside, the page keeps the teacher's last view and says
so. A copy of the teacher's page carrying markup is cut to the copy's allow-list: its text only."""

from __future__ import annotations

import json

from tests.e2e.conftest import new_page
from tests.e2e.test_class import CHECK_TIMEOUT_MS, join, open_class

OUTSIDE = "outside.example"


def forging_once(edit):
    """(a route handler for the board's answers, the versions it forged): the first drawing served is made a
    version newer and changed by ``edit(drawing)``; every other answer goes through as it is."""
    forged = []

    def forge(route):
        response = route.fetch()
        body = response.text()
        if response.status != 200 or forged:
            return route.fulfill(response=response, body=body)
        served = json.loads(body)
        served["drawing"]["version"] += 1
        edit(served["drawing"])
        forged.append(served["drawing"]["version"])
        route.fulfill(response=response, body=json.dumps(served))

    return forge, forged


FORGED_COPY = (
    '<p id="forged">Forged <img src="x" onerror="window.__labForged = 1"> copy</p>'
    "<script>window.__labForged = 2</script>"
    '<div style="position: fixed; inset: 0">over the page</div>'
    '<a href="javascript:window.__labForged = 3">a link</a>'
    '<math><mtext><b style="color: red">inside a formula</b></mtext></math>'
)


def test_a_forged_copy_of_the_teachers_page_reaches_the_student_as_text_only(browser, server_url):
    """A drawing the board serves (or the store holds) whose copy carries markup is cut to the copy's allow-list
    in the student's browser: its text is shown, and no script, handler, image, style or script link is."""
    teacher, student = new_page(browser), new_page(browser)
    forge, _ = forging_once(lambda drawing: drawing.update(layout="forged|forged", whole=True, copy=FORGED_COPY))

    try:
        code = open_class(teacher, server_url)
        student.route("**/_class/**", forge)
        student.goto(f"{server_url}/?room={code}")
        copy = student.locator("div.lab-teacher-screen")
        copy.get_by_text("over the page").wait_for(timeout=CHECK_TIMEOUT_MS)
        assert "Forged" in copy.inner_text() and "a link" in copy.inner_text()
        assert copy.locator("img, script, [style], [onerror], [id]").count() == 0
        assert copy.locator("a").get_attribute("href") is None
        assert copy.locator("math").count() == 1 and copy.locator("math b").count() == 0  # MathML only in a formula
        assert student.evaluate("() => window.__labForged") is None
    finally:
        student.unroute_all(behavior="ignoreErrors")  # the long poll in flight ends with the context
        teacher.context.close()
        student.context.close()


def test_a_forged_figure_is_refused_in_the_students_browser(browser, server_url):
    teacher, student = new_page(browser), new_page(browser)
    fetched_outside = []

    def outside_images(drawing):  # a newer view of the same page: its figures would be taken in place
        for spec in drawing["charts"].values():
            spec["layout"]["images"] = [{"source": f"https://{OUTSIDE}/tile.png", "x": 0, "y": 1, "sizex": 1}]

    forge, forged = forging_once(outside_images)
    try:
        code = open_class(teacher, server_url)
        student.context.route(
            f"**://{OUTSIDE}/**", lambda route: fetched_outside.append(route.request.url) or route.abort()
        )
        student.route("**/_class/**", forge)  # the board's first answer: the teacher's view, a version newer
        join(student, server_url, code, "multi_head")
        student.get_by_text("The teacher's latest view could not be read").first.wait_for(timeout=CHECK_TIMEOUT_MS)
        assert forged and fetched_outside == []
        assert student.locator(f'.js-plotly-plot image[href*="{OUTSIDE}"]').count() == 0  # heatmaps are images too
    finally:
        student.unroute_all(behavior="ignoreErrors")
        teacher.context.close()
        student.context.close()
