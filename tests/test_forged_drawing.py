"""A drawing read from the store (a real redis-server) whose figure the app could never have drawn is not served:
the server's watcher leaves it off the board, logs it once with the class's code, does not read it again, and
serves the teacher's next drawing (classroom/watcher.py, classroom/figure_check.py)."""

from __future__ import annotations

import json
import logging
import time

from classroom.board import Board
from classroom.redis_store import RedisRooms
from classroom.watcher import RoomWatcher
from tests.test_rooms import PAGE, QUERY

OUTSIDE = "https://outside.example/tile.png"


def drawing(version: int, layout: dict) -> str:
    chart = {"data": [{"type": "heatmap", "z": [[0.5]]}], "layout": layout}
    return json.dumps({"version": version, "layout": "L|T", "charts": {"chart:grid": chart}, "settings": []})


def board_version(board: Board, token: str, seconds: float = 3.0, until: int | None = None) -> int:
    """The version of the board's drawing for ``token``, once it is ``until`` (or after ``seconds``)."""
    began = time.monotonic()
    while time.monotonic() - began < seconds:
        if until is not None and board.drawn(token)[0] == until:
            break
        time.sleep(0.05)
    return board.drawn(token)[0]


def test_a_forged_figure_in_the_store_is_not_served_and_the_next_drawing_is(running_redis, caplog):
    rooms, board = RedisRooms(running_redis.url), Board()
    code, secret = rooms.open(PAGE, QUERY)
    token = rooms.view_token(code)
    watcher = RoomWatcher(rooms, board, lambda session: True)
    watcher.listen("s1", code, token, "student-1", True)
    caplog.set_level(logging.WARNING)
    fetched = []
    reading = rooms.drawing
    rooms.drawing = lambda code: fetched.append(code) or reading(code)
    watcher.start()

    forged = rooms.publish(code, secret, "home", {"present": ["true"]})
    assert rooms.publish_drawing(code, secret, forged, {"plain": drawing(forged, {"images": [{"source": OUTSIDE}]})})
    assert board_version(board, token, seconds=1.5) == 0  # not served
    logged = [r.getMessage() for r in caplog.records if code in r.getMessage()]
    assert len(logged) == 1 and "not served" in logged[0] and "layout or config key" in logged[0], logged
    assert len(fetched) == 1  # read once, not on every pass

    good = rooms.publish(code, secret, "home", {"present": ["false"]})
    assert rooms.publish_drawing(code, secret, good, {"plain": drawing(good, {"height": 400})})
    assert good > forged and board_version(board, token, until=good) == good
