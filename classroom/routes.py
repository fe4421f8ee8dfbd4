"""The web route that hands a class's drawn view to its students' browsers (``classroom.board``).

``GET /_class/{token}?after=N&mode=plain|present|compact`` answers with the class's drawing (JSON, its sequence number
in the ``X-Class-Sequence`` header) as soon as the board has one numbered past N: at once, or when the teacher
next changes something, or with 204 after ``WAIT_SECONDS`` (the browser asks again). An unknown token is 404
at once (the browser asks again a moment later). The token is the class's view token (``ui.rooms.membership``): 128 bits that only a server holding
the class gives to the class's students, so the address reveals nothing a join link does not.
"""

from __future__ import annotations

import asyncio
import re

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .board import BOARD, MODES, Board

WAIT_SECONDS = 20.0
PATH = "/_class/{token}"
TOKEN = re.compile(r"[0-9a-f]{32}")
SEQUENCE = re.compile(r"[0-9]{1,12}")  # ASCII digits only: str.isdigit also takes "²", which int() refuses
NO_STORE = {"Cache-Control": "no-store"}


def class_view_endpoint(board: Board = BOARD, wait_seconds: float = WAIT_SECONDS):
    """The route's handler, on ``board``."""

    async def class_view(request: Request) -> Response:
        token = request.path_params["token"]
        mode = request.query_params.get("mode", "plain")
        after = request.query_params.get("after", "0")
        if not TOKEN.fullmatch(token) or mode not in MODES or not SEQUENCE.fullmatch(after):
            return Response(status_code=400, headers=NO_STORE)
        board.bind_loop(asyncio.get_running_loop())
        if board.latest(token, mode) is None:  # no drawing of this class here (yet)
            return Response(status_code=404, headers=NO_STORE)
        found = await board.wait_after(token, int(after), mode, wait_seconds)
        if found is None:
            return Response(status_code=204, headers=NO_STORE)
        sequence, text = found
        return Response(text, media_type="application/json", headers={**NO_STORE, "X-Class-Sequence": str(sequence)})

    return class_view


def class_routes(board: Board = BOARD) -> list[Route]:
    return [Route(PATH, class_view_endpoint(board), methods=["GET"])]
