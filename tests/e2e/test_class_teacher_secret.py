"""In real browsers, on a server behind a URL path with its classes in a real redis-server: the teacher's secret
never shows in the address a projector shows. The teacher's browser keeps it (an HttpOnly cookie for the
app's path), so a reload, a second tab and a restart of the server keep the teacher in charge, while anyone
who opens the address on the screen, or an older address that still held a secret, follows as a student."""

from __future__ import annotations

import pytest

from classroom.routes import TEACHER_COOKIE, read_teacher_cookie
from testing.installed import require
from testing.redis_server import redis_running
from testing.server import start
from tests.e2e.conftest import new_page, wait_idle
from tests.e2e.test_class import CHECK_TIMEOUT_MS, open_class, query

BASE_PATH = "lab"


@pytest.fixture(scope="module")
def redis_url():
    require("redis-server")
    with redis_running() as redis:
        yield redis.url


def serve(redis_url: str, port: int | None = None):
    return start("app.py", port=port, base_path=BASE_PATH, env={"ATTENTION_LAB_REDIS_URL": redis_url}).wait_healthy()


def kept_cookie(page) -> dict:
    """The teacher's cookie in the page's browser (set by the answer the test waited for)."""
    kept = [cookie for cookie in page.context.cookies() if cookie["name"] == TEACHER_COOKIE]
    assert len(kept) == 1, page.context.cookies()
    return kept[0]


def teaching(page) -> None:
    """The page is the class's teacher's: the class's live caption shows, and "Following the teacher" does not."""
    wait_idle(page)
    page.get_by_text("Teaching class").first.wait_for(timeout=CHECK_TIMEOUT_MS)
    assert page.get_by_text("Following the teacher").count() == 0
    assert "teach" not in query(page)


def following(page) -> None:
    wait_idle(page)
    page.get_by_text("Following the teacher").first.wait_for(timeout=CHECK_TIMEOUT_MS)
    assert page.get_by_text("Teaching class").count() == 0


def test_the_teacher_stays_in_charge_without_the_secret_in_any_address(browser, redis_url):
    server = serve(redis_url)
    teacher = new_page(browser)
    others = []
    try:
        with teacher.expect_response(lambda r: r.url.endswith("/_class/teacher"), timeout=CHECK_TIMEOUT_MS) as kept:
            code = open_class(teacher, server.url)  # the class's live part posts the secret once it is drawn
        assert kept.value.status == 204
        cookie = kept_cookie(teacher)
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == f"/{BASE_PATH}"
        kept_code, secret = read_teacher_cookie(cookie["value"])
        assert kept_code == code
        assert teacher.evaluate("() => document.cookie").find(TEACHER_COOKIE) < 0  # not for the page's scripts

        address = teacher.url  # what the projector shows
        teacher.reload()
        teaching(teacher)
        second_tab = teacher.context.new_page()
        others.append(second_tab)
        second_tab.goto(address)
        teaching(second_tab)

        student = new_page(browser)  # someone who read the address off the screen
        others.append(student)
        drawn = f"/{BASE_PATH}/_class/"  # the board's answers under the app's path (its routes are at the root)
        with student.expect_response(lambda r: drawn in r.url and r.status == 200, timeout=CHECK_TIMEOUT_MS):
            student.goto(address)  # the teacher's drawing, served to the follower
        following(student)
        old_link = new_page(browser)  # an address from before the secret left it
        others.append(old_link)
        old_link.goto(f"{address}&teach={secret}")
        following(old_link)
        old_link.get_by_text("A link no longer makes its holder the teacher").first.wait_for(timeout=CHECK_TIMEOUT_MS)

        server.stop()  # the server restarts; the class is in Redis, the secret in the teacher's browser
        server = serve(redis_url, port=server.port)
        teacher.goto(address)
        teaching(teacher)
    finally:
        for context in {page.context for page in [teacher, *others]}:
            context.close()
        server.stop()
