"""The class route's caps on waiting requests (classroom/routes.py ``WaitLimits``): past the cap for one client
address, or for one class, a request is refused at once (429, ``Retry-After``) instead of waiting, while other
addresses and other classes still wait; a request that ends, however it ends, frees its place."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
import time

from starlette.applications import Starlette
from starlette.routing import Route

from classroom.board import Board
from classroom.routes import RETRY_AFTER_SECONDS, WAITS_PER_ADDRESS, WaitLimits, class_view_endpoint

TOKENS = ("0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210")
WAIT = 1.0


def in_own_loop(coroutine):
    """Run ``coroutine`` on an event loop of its own thread: the suite's browser (Playwright's sync API) keeps a
    loop running in the main thread, where ``asyncio.run`` refuses to start another."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def app(board: Board, limits: WaitLimits) -> Starlette:
    return Starlette(routes=[Route("/_class/{token}", class_view_endpoint(board, WAIT, limits))])


def board_with_both_classes() -> Board:
    board = Board()
    for token in TOKENS:
        board.put(token, {"plain": b'{"version": 1}'}, 1, "L")
    return board


async def ask(application, address: str, token: str) -> tuple[int, float, dict]:
    """One GET from ``address`` for class ``token``, after the board's latest, straight through ASGI:
    (status, seconds, headers)."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": f"/_class/{token}",
        "raw_path": f"/_class/{token}".encode(),
        "query_string": b"after=1&mode=plain",
        "root_path": "",
        "headers": [(b"host", b"lab")],
        "client": (address, 40000),
        "server": ("lab", 80),
    }
    started = {}

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            started.update(message)

    began = time.monotonic()
    await application(scope, receive, send)
    headers = {name.decode().lower(): value.decode() for name, value in started.get("headers", [])}
    return started["status"], time.monotonic() - began, headers


def test_one_address_past_its_cap_is_refused_at_once_and_others_still_wait():
    limits = WaitLimits(per_address=3, per_class=100)
    application = app(board_with_both_classes(), limits)

    async def scenario():
        asked = [ask(application, "10.0.0.1", TOKENS[0]) for _ in range(5)] + [ask(application, "10.0.0.2", TOKENS[0])]
        return await asyncio.gather(*asked)

    answers = in_own_loop(scenario())
    one = sorted(answers[:5], key=lambda a: a[0])
    assert [status for status, *_ in one] == [204, 204, 204, 429, 429]
    assert all(seconds < WAIT / 2 for status, seconds, _ in one if status == 429)  # refused at once
    assert all(headers["retry-after"] == str(RETRY_AFTER_SECONDS) for status, _, headers in one if status == 429)
    assert answers[5][0] == 204 and answers[5][1] >= WAIT * 0.9  # another address waited its time
    assert limits.waiting() == 0  # every place freed


def test_one_class_past_its_cap_is_refused_and_another_class_still_waits():
    limits = WaitLimits(per_address=100, per_class=4)
    application = app(board_with_both_classes(), limits)

    async def scenario():
        asked = [ask(application, f"10.0.1.{i}", TOKENS[0]) for i in range(6)]
        asked.append(ask(application, "10.0.1.99", TOKENS[1]))
        return await asyncio.gather(*asked)

    answers = in_own_loop(scenario())
    assert sorted(status for status, *_ in answers[:6]) == [204] * 4 + [429] * 2
    assert answers[6][0] == 204
    assert limits.waiting() == 0


def test_a_place_is_freed_when_its_request_is_answered_early():
    limits, board = WaitLimits(per_address=1, per_class=10), board_with_both_classes()
    application = app(board, limits)

    async def scenario():
        waiting = asyncio.create_task(ask(application, "10.0.2.1", TOKENS[0]))
        await asyncio.sleep(0.2)
        assert limits.waiting(address="10.0.2.1") == 1
        board.put(TOKENS[0], {"plain": b'{"version": 2}'}, 2, "L")  # the teacher changes something
        first = await waiting
        second = await ask(application, "10.0.2.1", TOKENS[1])
        return first, second

    first, second = in_own_loop(scenario())
    assert first[0] == 200 and first[1] < WAIT and second[0] == 204


def test_the_servers_caps_hold_the_budgets_class_behind_one_address():
    """200 students on one server (docs/performance.md), all behind one NAT address, all wait."""
    assert WaitLimits().per_address >= 200 and WAITS_PER_ADDRESS >= 200
    assert WaitLimits().per_class >= 600


def test_a_stopping_server_answers_every_wait_at_once_and_no_request_waits_after():
    """``Board.stop`` (a SIGTERM or SIGINT, ``routes.answer_waits_on_stop``): the waiting requests are answered 204
    at once, not after the wait, and a request asked later (a browser's next, on a connection still open) does
    not wait; one that something newer awaits still gets it."""
    board = board_with_both_classes()
    application = Starlette(routes=[Route("/_class/{token}", class_view_endpoint(board, 30.0, WaitLimits()))])

    async def scenario():
        waiting = [asyncio.create_task(ask(application, "10.0.3.1", token)) for token in TOKENS]
        await asyncio.sleep(0.2)
        assert not any(task.done() for task in waiting)
        board.stop()
        answered = [await task for task in waiting]
        later = await ask(application, "10.0.3.1", TOKENS[0])
        board.put(TOKENS[1], {"plain": b'{"version": 2}'}, 2, "L")
        newer = await ask(application, "10.0.3.1", TOKENS[1])
        return answered, later, newer

    answered, later, newer = in_own_loop(scenario())
    assert [(status, seconds < 1) for status, seconds, _ in answered] == [(204, True)] * len(TOKENS)
    assert later[0] == 204 and later[1] < 1
    assert newer[0] == 200
