"""The teacher's secret kept in the teacher's browser, not in the address (classroom/routes.py): the route sets
the cookie only for a secret the class's store confirms, HttpOnly, SameSite=Strict, for the app's own path, and
Secure over HTTPS; anything else is refused and sets nothing."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.testclient import TestClient

from classroom.routes import (
    COOKIE_SECONDS,
    STUDENT_COOKIE,
    TEACHER_COOKIE,
    class_routes,
    read_student_cookie,
    read_teacher_cookie,
)
from classroom.memory_store import MemoryRooms
from classroom.store import RoomsUnavailable


@pytest.fixture
def rooms() -> MemoryRooms:
    return MemoryRooms()


def client(is_teacher, base_url: str = "http://testserver", prefix: str = "") -> TestClient:
    routes = class_routes(is_teacher=is_teacher)
    app = Starlette(routes=[Mount(prefix, routes=routes)] if prefix else routes)
    return TestClient(app, base_url=base_url)


def cookie_attributes(answer) -> dict[str, str]:
    parts = [part.strip() for part in answer.headers["set-cookie"].split(";")]
    name, _, value = parts[0].partition("=")
    assert name == TEACHER_COOKIE
    attributes = {key.lower(): val for key, _, val in (part.partition("=") for part in parts[1:])}
    return {"value": value, **attributes}


def test_a_confirmed_secret_is_kept_httponly_strict_for_the_apps_path(rooms):
    code, secret = rooms.open("multi_head", {})
    with client(rooms.is_teacher) as http:
        answer = http.post("/_class/teacher", json={"code": code, "secret": secret})
    assert answer.status_code == 204 and answer.headers["cache-control"] == "no-store"
    kept = cookie_attributes(answer)
    assert read_teacher_cookie(kept["value"]) == (code, secret)
    assert kept["path"] == "/" and kept["samesite"].lower() == "strict" and "httponly" in kept
    assert int(kept["max-age"]) == COOKIE_SECONDS and "secure" not in kept  # plain HTTP: a local server


def test_behind_a_path_and_over_https_the_cookie_is_for_that_path_and_secure(rooms):
    code, secret = rooms.open("multi_head", {})
    with client(rooms.is_teacher, base_url="https://testserver", prefix="/lab") as http:
        answer = http.post("/lab/_class/teacher", json={"code": code, "secret": secret})
    kept = cookie_attributes(answer)
    assert answer.status_code == 204 and kept["path"] == "/lab" and "secure" in kept


@pytest.mark.parametrize(
    "body, content_type, status",
    [
        ('{"code": "CODE", "secret": "SECRET"}', "text/plain", 415),  # a form of another site cannot send JSON
        ("not json", "application/json", 400),
        ('{"code": "ABCDEFGH"}', "application/json", 400),
        ('{"code": 1, "secret": 2}', "application/json", 400),
        ('["ABCDEFGH", "x"]', "application/json", 400),
        ('{"code": "ABCDEFGH", "secret": "' + "a" * 300 + '"}', "application/json", 400),
        ('{"code": "ABCDEFGH", "secret": "bad;secret;value"}', "application/json", 400),
    ],
)
def test_a_request_that_is_not_a_code_and_secret_in_json_sets_nothing(rooms, body, content_type, status):
    code, secret = rooms.open("multi_head", {})
    body = body.replace("CODE", code).replace("SECRET", secret)
    with client(rooms.is_teacher) as http:
        answer = http.post("/_class/teacher", content=body, headers={"Content-Type": content_type})
    assert answer.status_code == status and "set-cookie" not in answer.headers


def test_a_secret_the_store_does_not_confirm_is_forbidden_and_an_unreachable_store_is_503(rooms):
    code, secret = rooms.open("multi_head", {})
    _, other_secret = rooms.open("multi_head", {})
    with client(rooms.is_teacher) as http:
        refused = http.post("/_class/teacher", json={"code": code, "secret": other_secret})
    assert refused.status_code == 403 and "set-cookie" not in refused.headers
    assert rooms.close(code, secret)
    with client(rooms.is_teacher) as http:  # an ended class keeps no teacher
        assert http.post("/_class/teacher", json={"code": code, "secret": secret}).status_code == 403

    def unreachable(code, secret):
        raise RoomsUnavailable("down")

    with client(unreachable) as http:
        answer = http.post("/_class/teacher", json={"code": code, "secret": secret})
    assert answer.status_code == 503 and "set-cookie" not in answer.headers


def test_the_cookies_value_reads_back_only_as_a_code_and_a_secret():
    assert read_teacher_cookie("ABCDEFGH.abcdefghijklmnop_-AB") == ("ABCDEFGH", "abcdefghijklmnop_-AB")
    for value in (
        None,
        "",
        "ABCDEFGH",
        "ABCDEFGH.",
        "abcdefgh.abcdefghijklmnopqrst",
        "ABCDEFG0.abcdefghijklmnopqrst",
        "ABCDEFGH.short",
        "ABCDEFGH.abcdefghijklmnop.q",
    ):
        assert read_teacher_cookie(value) is None, value


# --- the student's id, kept the same way ---------------------------------------------------------------------


def test_the_id_of_a_student_in_the_class_is_kept_and_anything_else_sets_nothing(rooms):
    code, _ = rooms.open("multi_head", {})
    other, _ = rooms.open("multi_head", {})
    student, stranger = "0123456789abcdef", "fedcba9876543210"
    rooms.seen(code, student)
    routes = class_routes(is_student=rooms.is_student)
    with TestClient(Starlette(routes=routes)) as http:
        kept = http.post("/_class/student", json={"code": code, "student": student})
        closed = http.post("/_class/student", json={"code": "ABCDEFGH", "student": student})
        guessed = http.post("/_class/student", json={"code": code, "student": stranger})
        elsewhere = http.post("/_class/student", json={"code": other, "student": student})
        bad = [
            http.post("/_class/student", json={"code": code, "student": other})
            for other in ("0123", "0123456789ABCDEF", "0123456789abcdeg", "0123456789abcdef.x", 12)
        ]
        teacher = http.post("/_class/teacher", json={"code": code, "secret": "a" * 22})  # no store's check given
    assert kept.status_code == 204
    name, _, value = kept.headers["set-cookie"].split(";")[0].partition("=")
    assert name == STUDENT_COOKIE and read_student_cookie(value) == (code, student)
    assert "httponly" in kept.headers["set-cookie"].lower() and "samesite=strict" in kept.headers["set-cookie"].lower()
    # no such class, an id never seen in it, a class the student is not in: refused alike (no oracle of open codes)
    assert [answer.status_code for answer in (closed, guessed, elsewhere)] == [403] * 3
    assert all("set-cookie" not in answer.headers for answer in (closed, guessed, elsewhere))
    assert [answer.status_code for answer in bad] == [400] * 5
    assert teacher.status_code in (404, 405)  # the teacher's route is there only with the store's check
