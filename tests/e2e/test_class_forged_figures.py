"""In a real browser: a drawing the board serves whose figure the app could never have drawn (an image from
outside the app) is refused by the student's browser itself (ui/rooms/figure_check.js), whatever the server let
through: nothing is fetched from outside, the page keeps the teacher's last view and says so."""

from __future__ import annotations

from tests.e2e.conftest import new_page
from tests.e2e.test_class import CHECK_TIMEOUT_MS, forging_once, join, open_class

OUTSIDE = "outside.example"


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
