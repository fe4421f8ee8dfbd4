"""testing.server, the launcher the browser tests and the benchmarks share: a server that cannot start is an
error that shows what the server printed, and leaves no process or output file behind."""

import pytest

from testing.server import free_port, start


def test_a_server_that_cannot_start_says_why_and_leaves_nothing_behind():
    server = start("no_such_script.py")
    why = (
        r"(?s)exited .code [1-9]\d*. while waiting for streamlit on port \d+ to answer its health check.*"
        r"File does not exist: no_such_script.py"
    )
    with pytest.raises(RuntimeError, match=why):
        server.wait_healthy(seconds=60)
    assert server.process.poll() is not None and not server.log.exists()
    assert server.url == f"http://127.0.0.1:{server.port}" and server.stream.endswith(f":{server.port}/_stcore/stream")


def test_a_free_port_is_free():
    import socket

    port = free_port()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))  # nothing else holds it
