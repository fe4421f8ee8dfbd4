"""testing.processes.wait_until, how the app server, Redis, nginx and a log line are waited for: it returns as
soon as the condition holds, and otherwise says what it waited for, after the time given or as soon as the
process that should have brought it about has exited."""

import subprocess
import sys
import time

import pytest

from testing.processes import NotReady, wait_until


def test_returns_as_soon_as_the_condition_holds():
    calls = []

    def third_time() -> bool:
        calls.append(time.monotonic())
        return len(calls) == 3

    began = time.monotonic()
    wait_until(third_time, 10, "the third call", interval=0.01)
    assert len(calls) == 3 and time.monotonic() - began < 5


def test_says_what_did_not_come_once_the_time_is_up():
    began = time.monotonic()
    with pytest.raises(NotReady, match=r"^timed out after 0.2 s waiting for the moon to rise$"):
        wait_until(lambda: False, 0.2, "the moon to rise", interval=0.01)
    assert 0.2 <= time.monotonic() - began < 5


def test_stops_waiting_as_soon_as_the_process_has_exited():
    process = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    process.wait()
    began = time.monotonic()
    with pytest.raises(RuntimeError, match=r"exited \(code 3\) while waiting for a server to answer"):
        wait_until(lambda: True, 60, "a server to answer", process=process)  # a stranger answering is not it
    assert time.monotonic() - began < 5


def test_a_running_process_does_not_stop_the_wait():
    # a process that runs until its input closes: alive for as long as the test holds its stdin open
    with subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE) as process:
        try:
            wait_until(lambda: True, 5, "a condition that holds", process=process)
            assert process.poll() is None
        finally:
            process.stdin.close()
            process.wait(timeout=10)
