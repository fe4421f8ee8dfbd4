"""The web route that hands a class's drawn view to its students' browsers (``classroom.board``).

``GET /_class/{token}?after=N&mode=plain|present|compact`` answers with the class's drawing (JSON, its sequence number
in the ``X-Class-Sequence`` header) as soon as the board has one numbered past N: at once, or when the teacher
next changes something, or with 204 after ``WAIT_SECONDS`` (the browser asks again). An unknown token is 404
at once (the browser asks again a moment later); a request past the waiting caps (``WaitLimits``: per client
address, per class) is 429 with ``Retry-After``. The token is the class's view token (``ui.rooms.membership``): 128 bits that only a server holding
the class gives to the class's students, so the address reveals nothing a join link does not.

``POST /_class/teacher`` with ``{"code": ..., "secret": ...}`` (JSON) keeps the teacher's secret in the teacher's
browser, not in the address a projector shows: once the store confirms it, the answer sets the cookie
``TEACHER_COOKIE`` (HttpOnly, SameSite=Strict, for the app's path, Secure over HTTPS), which a reload, a second
tab or a reconnection after a server restart sends with the app's connection (``ui.rooms.follow``). A page of
another site cannot send JSON here without the app's say (a cross-origin preflight), nor read the cookie.

``POST /_class/student`` with ``{"code": ..., "student": ...}`` keeps a student's id in the class the same way
(``STUDENT_COOKIE``, for a student the class's store has seen in it): a reload or a reconnection is the same student, back at their own step of a
lesson taken at the class's own pace, with their answers and name (``ui.rooms.pace``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
import threading
from collections import Counter
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .board import BOARD, MODES, Board
from .store import RoomsUnavailable, normal_code

WAIT_SECONDS = 20.0
PATH = "/_class/{token}"
TOKEN = re.compile(r"[0-9a-f]{32}")
SEQUENCE = re.compile(r"[0-9]{1,12}")  # ASCII digits only: str.isdigit also takes "²", which int() refuses
NO_STORE = {"Cache-Control": "no-store"}
WAITS_PER_ADDRESS = 256  # a lecture hall of 200 behind one NAT address (the budget's class), with room to spare
WAITS_PER_CLASS = 1_000  # one class on one server (the budget: 200 students on a server, 600 on three)
RETRY_AFTER_SECONDS = 5
TEACHER_PATH = "/_class/teacher"
TEACHER_COOKIE = "attention_lab_teacher"  # "CODE.SECRET": the class this browser teaches, and its secret
COOKIE_SECONDS = 12 * 3600  # longer than a day's teaching; a class ended or idle is refused anyway
STUDENT_PATH = "/_class/student"
STUDENT_COOKIE = "attention_lab_student"  # "CODE.ID": the class this browser is a student of, and its id there
STUDENT_ID = re.compile(r"[0-9a-f]{16}")  # ui.rooms.membership.student_id: 64 random bits, as hex
SECRET = re.compile(r"[A-Za-z0-9_-]{16,64}")  # classroom.store.new_secret: URL-safe base64


class WaitLimits:
    """How many requests wait at once, by client address and by class: a request past either cap is refused (429)
    instead of waiting, so one client cannot hold up the server's answers to every other page.

    The address is the request's client as the web server reads it: behind a proxy the server trusts
    (uvicorn's ``FORWARDED_ALLOW_IPS``, 127.0.0.1 by default), the browser's, from ``X-Forwarded-For``. A lecture
    hall behind one NAT address is one address: ``per_address`` leaves room for the largest class a server
    holds (each following page waits with one request at a time)."""

    def __init__(self, per_address: int = WAITS_PER_ADDRESS, per_class: int = WAITS_PER_CLASS):
        self.per_address, self.per_class = per_address, per_class
        self._by_address: Counter[str] = Counter()
        self._by_class: Counter[str] = Counter()

    def enter(self, address: str, token: str) -> bool:
        """Whether a request from ``address`` for class ``token`` may wait; if so it is counted until ``leave``."""
        if self._by_address[address] >= self.per_address or self._by_class[token] >= self.per_class:
            return False
        self._by_address[address] += 1
        self._by_class[token] += 1
        return True

    def leave(self, address: str, token: str) -> None:
        for counts, key in ((self._by_address, address), (self._by_class, token)):
            counts[key] -= 1
            if counts[key] <= 0:
                del counts[key]

    def waiting(self, address: str | None = None, token: str | None = None) -> int:
        """Requests waiting now: from ``address``, for class ``token``, or all."""
        if address is not None:
            return self._by_address[address]
        return self._by_class[token] if token is not None else sum(self._by_class.values())


def class_view_endpoint(board: Board = BOARD, wait_seconds: float = WAIT_SECONDS, limits: WaitLimits | None = None):
    """The route's handler, on ``board``; requests wait within ``limits`` (counted on the server's event loop)."""
    limits = limits or WaitLimits()

    async def class_view(request: Request) -> Response:
        token = request.path_params["token"]
        mode = request.query_params.get("mode", "plain")
        after = request.query_params.get("after", "0")
        if not TOKEN.fullmatch(token) or mode not in MODES or not SEQUENCE.fullmatch(after):
            return Response(status_code=400, headers=NO_STORE)
        board.bind_loop(asyncio.get_running_loop())
        answer_waits_on_stop(board)
        if board.latest(token, mode) is None:  # no drawing of this class here (yet)
            return Response(status_code=404, headers=NO_STORE)
        address = request.client.host if request.client else ""
        if not limits.enter(address, token):
            return Response(status_code=429, headers={**NO_STORE, "Retry-After": str(RETRY_AFTER_SECONDS)})
        try:
            found = await board.wait_after(token, int(after), mode, wait_seconds)
        finally:
            limits.leave(address, token)
        if found is None:
            return Response(status_code=204, headers=NO_STORE)
        sequence, text = found
        return Response(text, media_type="application/json", headers={**NO_STORE, "X-Class-Sequence": str(sequence)})

    return class_view


_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
_answered_on_stop: set[int] = set()  # the boards (by id) whose waits a stop signal answers, once each


def answer_waits_on_stop(board: Board) -> None:
    """From the server's event loop in its main thread, once per board: a SIGTERM or SIGINT first answers every
    request waiting on ``board`` (``Board.stop``: and none waits from then on), then runs the server's own handler. The server's graceful
    stop waits for the answers in flight, and a class's students each hold one for up to ``WAIT_SECONDS``: without
    this, a restart or a deploy waited that long (or its process manager's limit, then killed it)."""
    if id(board) in _answered_on_stop or threading.current_thread() is not threading.main_thread():
        return
    _answered_on_stop.add(id(board))
    loop = asyncio.get_running_loop()
    for number in _STOP_SIGNALS:
        server_handler = signal.getsignal(number)
        if not callable(server_handler) or server_handler is signal.default_int_handler:  # no server's: keep it
            continue

        def answer_then_stop(signum, frame, server_handler=server_handler):
            with contextlib.suppress(RuntimeError):  # the loop already closed: nothing waits on it
                loop.call_soon_threadsafe(board.stop)
            server_handler(signum, frame)

        signal.signal(number, answer_then_stop)


def teacher_cookie(code: str, secret: str) -> str:
    return f"{code}.{secret}"


def read_teacher_cookie(value: str | None) -> tuple[str, str] | None:
    """(code, secret) from the cookie's value, or None when it holds no such pair."""
    code, _, secret = (value or "").partition(".")
    return (code, secret) if normal_code(code) == code and SECRET.fullmatch(secret) else None


def read_student_cookie(value: str | None) -> tuple[str, str] | None:
    """(code, the student's id) from the student's cookie's value, or None when it holds no such pair."""
    code, _, student = (value or "").partition(".")
    return (code, student) if normal_code(code) == code and STUDENT_ID.fullmatch(student) else None


def _keep_pair_endpoint(
    cookie: str, path: str, field: str, read_pair: Callable[[str], tuple[str, str] | None], confirm: Callable
):
    """A route's handler that sets ``cookie`` to "CODE.VALUE" from a JSON body ``{"code": ..., field: ...}``, once
    ``read_pair`` reads the pair and ``confirm(code, value)`` (the class's store) says yes."""

    async def keep(request: Request) -> Response:
        if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            return Response(status_code=415, headers=NO_STORE)
        body = await request.body()
        try:
            sent = json.loads(body) if len(body) <= 256 else None
            pair = read_pair(f"{sent['code']}.{sent[field]}")
        except (ValueError, TypeError, KeyError):
            pair = None
        if pair is None:
            return Response(status_code=400, headers=NO_STORE)
        try:
            confirmed = await asyncio.to_thread(confirm, *pair)
        except RoomsUnavailable:
            return Response(status_code=503, headers=NO_STORE)
        if not confirmed:
            return Response(status_code=403, headers=NO_STORE)
        answer = Response(status_code=204, headers=NO_STORE)
        secure = request.url.scheme == "https" or request.headers.get("x-forwarded-proto", "") == "https"
        answer.set_cookie(
            cookie,
            ".".join(pair),
            max_age=COOKIE_SECONDS,
            path=request.url.path.removesuffix(path) or "/",
            secure=secure,
            httponly=True,
            samesite="strict",
        )
        return answer

    return keep


def keep_teacher_endpoint(is_teacher: Callable[[str, str], bool]):
    """The route's handler that sets the teacher's cookie; ``is_teacher(code, secret)`` asks the class's store."""
    return _keep_pair_endpoint(TEACHER_COOKIE, TEACHER_PATH, "secret", read_teacher_cookie, is_teacher)


def keep_student_endpoint(is_student: Callable[[str, str], bool]):
    """The route's handler that sets the student's cookie; ``is_student(code, student)`` asks the class's store
    (a student in the class now: a guessed code or id is refused, and says nothing of which codes are open)."""
    return _keep_pair_endpoint(STUDENT_COOKIE, STUDENT_PATH, "student", read_student_cookie, is_student)


def class_routes(
    board: Board = BOARD,
    is_teacher: Callable[[str, str], bool] | None = None,
    base_path: str = "",
    is_student: Callable[[str, str], bool] | None = None,
) -> list[Route]:
    """The class's routes under the app's URL path ``base_path`` (Streamlit's ``server.baseUrlPath``: the app's
    own routes are mounted at the server's root): the drawn view, with ``is_teacher`` (the store's check)
    the teacher's cookie and with ``is_student`` (whether that student is in that class) the student's."""
    prefix = "/" + base_path.strip("/") if base_path.strip("/") else ""
    routes = [Route(prefix + PATH, class_view_endpoint(board), methods=["GET"])]
    if is_student is not None:
        routes.insert(0, Route(prefix + STUDENT_PATH, keep_student_endpoint(is_student), methods=["POST"]))
    if is_teacher is not None:
        routes.insert(0, Route(prefix + TEACHER_PATH, keep_teacher_endpoint(is_teacher), methods=["POST"]))
    return routes
