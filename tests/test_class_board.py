"""A class's drawn view on this server (classroom/board.py) and the web route that serves it
(classroom/routes.py): a waiting request is answered when something newer comes, at once when it is there,
with nothing after its time; unknown tokens and bad requests are refused at once; the turns students' runs
take (classroom/turns.py) go one at a time."""

from __future__ import annotations

import json
import threading
import time

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from classroom.board import MAX_DRAWING_BYTES, Board
from classroom.routes import class_routes, class_view_endpoint
from classroom.turns import Turns
from starlette.routing import Route

TOKEN = "0123456789abcdef0123456789abcdef"


def client(board: Board, wait: float = 0.3) -> TestClient:
    return TestClient(Starlette(routes=[Route("/_class/{token}", class_view_endpoint(board, wait))]))


def test_the_route_answers_at_once_with_what_is_newer_and_with_nothing_after_its_time():
    board = Board()
    board.put(TOKEN, {"plain": b'{"version": 1}'}, 1, "L")
    with client(board) as http:
        first = http.get(f"/_class/{TOKEN}?after=0&mode=plain")
        assert first.status_code == 200 and first.headers["cache-control"] == "no-store"
        assert json.loads(first.text) == {"status": None, "drawing": {"version": 1}}
        sequence = int(first.headers["X-Class-Sequence"])
        began = time.monotonic()
        assert http.get(f"/_class/{TOKEN}?after={sequence}&mode=plain").status_code == 204
        assert time.monotonic() - began >= 0.25
        # the presentation mode's drawing is missing: the plain one is served
        assert http.get(f"/_class/{TOKEN}?after=0&mode=present").status_code == 200


def test_a_waiting_request_is_answered_when_the_teacher_changes_something():
    board = Board()
    board.put(TOKEN, {"plain": b'{"version": 1}'}, 1, "L")
    with client(board, wait=10) as http:
        later = threading.Timer(0.3, lambda: board.put(TOKEN, {"plain": b'{"version": 2}'}, 2, "L"))
        later.start()
        began = time.monotonic()
        answer = http.get(f"/_class/{TOKEN}?after={board.sequence(TOKEN)}&mode=plain")
        waited = time.monotonic() - began
        assert answer.status_code == 200 and json.loads(answer.text)["drawing"] == {"version": 2}
        assert 0.25 <= waited < 5


@pytest.mark.parametrize(
    "path",
    [
        "/_class/NOTHEX0123456789abcdef012345678?after=0",
        f"/_class/{TOKEN}?after=-1",
        f"/_class/{TOKEN}?after=0&mode=other",
        f"/_class/{TOKEN}?after=1e9",
        f"/_class/{TOKEN}?after=1234567890123",
    ],
)
def test_bad_requests_are_refused(path):
    with client(Board()) as http:
        assert http.get(path).status_code in (400, 404)


@pytest.mark.parametrize("after", ["%C2%B2", "%D9%A3", "%EF%BC%91"])  # "²", an Arabic-Indic 3, a full-width 1
def test_a_sequence_in_other_digits_than_ascii_is_a_bad_request_for_a_class_that_exists(after):
    """str.isdigit takes these, int() does not: the route answers 400, not a server error."""
    board = Board()
    board.put(TOKEN, {"plain": b'{"version": 1}'}, 1, "L")
    with client(board) as http:
        assert http.get(f"/_class/{TOKEN}?after={after}&mode=plain").status_code == 400


def test_an_unknown_class_is_not_found_at_once():
    with client(Board(), wait=10) as http:
        began = time.monotonic()
        assert http.get(f"/_class/{TOKEN}?after=0").status_code == 404
        assert time.monotonic() - began < 2


def test_the_board_refuses_an_oversized_drawing_and_an_unknown_mode():
    board = Board()
    with pytest.raises(ValueError):
        board.put(TOKEN, {"plain": b"x" * (MAX_DRAWING_BYTES + 1)}, 1, "L")
    with pytest.raises(ValueError):
        board.put(TOKEN, {"other": b"{}"}, 1, "L")
    assert board.latest(TOKEN, "plain") is None


def test_the_served_body_holds_the_status_and_the_drawing_as_json():
    board = Board()
    board.set_status(TOKEN, b'{"kind": "view"}')
    assert board.latest(TOKEN, "plain") is None  # no drawing yet: nothing served
    board.put(TOKEN, {"plain": b'{"charts": {}}'}, 1, "L")
    sequence, body = board.latest(TOKEN, "plain")
    assert sequence == 2 and json.loads(body) == {"status": {"kind": "view"}, "drawing": {"charts": {}}}


def test_a_mode_the_drawing_lacks_is_served_the_plain_drawing_whatever_order_the_modes_came_in():
    """A student in presentation mode whose teacher is not presenting gets the plain figures, not a phone's."""
    for drawings in (
        {"compact": b'{"v": "compact"}', "plain": b'{"v": "plain"}'},
        {"plain": b'{"v": "plain"}', "compact": b'{"v": "compact"}'},
    ):
        board = Board()
        board.put(TOKEN, drawings, 1, "L")
        assert json.loads(board.latest(TOKEN, "present")[1])["drawing"] == {"v": "plain"}
    board = Board()
    board.put(TOKEN, {"compact": b'{"v": "compact"}'}, 1, "L")
    assert json.loads(board.latest(TOKEN, "plain")[1])["drawing"] == {"v": "compact"}  # the only one there is


def test_the_app_declares_the_route():
    assert [route.path for route in class_routes()] == ["/_class/{token}"]


def test_turns_go_one_at_a_time():
    turns, order, inside, most = Turns(), [], [0], [0]
    lock = threading.Lock()

    def run(who: str):
        assert turns.take(who)
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
            order.append(who)
        sum(range(20_000))  # a run's work, inside its turn
        with lock:
            inside[0] -= 1
        turns.give_back(who)

    threads = []
    for index in range(8):
        thread = threading.Thread(target=run, args=(f"s{index}",))
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    assert most[0] == 1 and len(order) == 8


def test_a_turn_not_given_back_is_taken_after_its_time_and_a_holder_takes_it_again_at_once():
    turns = Turns(hold_seconds=0.2)
    assert turns.take("a")
    assert turns.take("a", wait_seconds=0.01)  # the same run, again (after a switch of page)
    began = time.monotonic()
    assert turns.take("b", wait_seconds=5)
    assert 0.15 <= time.monotonic() - began < 2
    assert not turns.take("c", wait_seconds=0.05)


def test_the_board_remembers_the_layout_of_the_latest_views():
    board = Board()
    for version, layout in ((1, "A"), (2, "B"), (3, "B")):
        board.put(TOKEN, {"plain": b"{}"}, version, layout)
    assert [board.layout_at(TOKEN, v) for v in (1, 2, 3, 4)] == ["A", "B", "B", None]
    for version in range(4, 60):
        board.put(TOKEN, {"plain": b"{}"}, version, "C")
    assert board.layout_at(TOKEN, 1) is None and board.layout_at(TOKEN, 59) == "C"


def test_under_the_apps_url_path_the_route_answers_there():
    """Streamlit mounts an app's own routes at the server's root, so they carry its ``server.baseUrlPath``."""
    board = Board()
    board.put(TOKEN, {"plain": b'{"version": 1}'}, 1, "L")
    with TestClient(Starlette(routes=class_routes(board, base_path="/lab/"))) as http:
        assert http.get(f"/lab/_class/{TOKEN}?after=0&mode=plain").status_code == 200
        assert http.get(f"/_class/{TOKEN}?after=0&mode=plain").status_code == 404
