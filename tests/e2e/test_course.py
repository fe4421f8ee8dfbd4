"""In a real browser: the Start here course, opened from Home in presentation mode and walked from its first view
to its last with Next, with no exception on any page."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from tests.e2e.conftest import assert_no_exception, wait_idle
from lessons.catalogue import LESSONS

COURSE = next(lesson for lesson in LESSONS if lesson.id == "start")


def query_of(page) -> dict[str, str]:
    return {key: values[-1] for key, values in parse_qs(urlsplit(page.url).query).items()}


def test_the_start_here_course_runs_from_its_first_view_to_its_last_with_next(page, server_url):
    page.goto(f"{server_url}/?present=true")
    wait_idle(page)
    page.get_by_role("link", name=COURSE.title).click()  # Home's pointer for a first-time student
    total = len(COURSE.views)
    for step, view in enumerate(COURSE.views):
        counter = page.get_by_text(f"step {step + 1} of {total}")  # "step 1 of" never matches "step 10 of"
        counter.first.wait_for(timeout=30_000)
        wait_idle(page, timeout=60_000)
        assert_no_exception(page)
        query = query_of(page)
        assert urlsplit(page.url).path == f"/{view.page}", (step + 1, page.url)
        assert (query.get("lesson"), query.get("step"), query.get("present")) == ("start", str(step + 1), "true"), (
            step + 1,
            page.url,
        )
        assert page.get_by_role("button", name="Check", exact=True).count() == 1  # the question waits for an answer
        if step + 1 < total:
            page.get_by_role("link", name="Next", exact=True).click()
    assert page.get_by_role("link", name="All lessons").count() == 1  # the last view leads back to the lessons
    assert page.locator("[data-testid=stSidebar][data-collapsed=true]").count() == 1  # presentation mode
