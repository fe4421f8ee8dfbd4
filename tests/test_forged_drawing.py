"""A drawing read from the store (a real redis-server) whose figure the app could never have drawn is not served:
the server's watcher leaves it off the board, logs it once with the class's code, does not read it again, and
serves the teacher's next drawing (classroom/watcher.py, classroom/figure_check.py)."""

from __future__ import annotations

import json
import logging

import pytest

from classroom.board import Board
from classroom.redis_store import RedisRooms
from classroom.watcher import RoomWatcher
from testing.processes import NotReady, wait_until
from tests.test_rooms import PAGE, QUERY

OUTSIDE = "https://outside.example/tile.png"


def drawing(version: int, layout: dict) -> str:
    chart = {"data": [{"type": "heatmap", "z": [[0.5]]}], "layout": layout}
    return json.dumps({"version": version, "layout": "L|T", "charts": {"chart:grid": chart}, "settings": []})


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

    def refusals() -> list[str]:
        return [r.getMessage() for r in caplog.records if code in r.getMessage()]

    wait_until(lambda: refusals(), 5, "the watcher to refuse the forged drawing")
    assert board.drawn(token)[0] == 0  # not served
    assert len(refusals()) == 1 and "not served" in refusals()[0] and "layout or config key" in refusals()[0]
    with pytest.raises(NotReady):  # ten passes of the watcher: the refused drawing is not read again
        wait_until(lambda: len(fetched) > 1, 1.0, "a second read of the refused drawing")

    good = rooms.publish(code, secret, "home", {"present": ["false"]})
    assert rooms.publish_drawing(code, secret, good, {"plain": drawing(good, {"height": 400})})
    wait_until(lambda: board.drawn(token)[0] == good, 5, "the next drawing on the board")
    assert good > forged and len(refusals()) == 1  # the view changed before its drawing came: not refused again
