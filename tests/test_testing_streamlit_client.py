"""testing.streamlit_client, the websocket client of Streamlit's protocol that the benchmarks and the tests of
several app servers share: the rerun requests it builds say what the frontend's would, and reading a run
stops at the run's end, not at a run cut short for a rerun."""

import asyncio
from concurrent.futures import ThreadPoolExecutor

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from testing.streamlit_client import new_element, read_run, read_run_blocking, received, rerun_message, widget_state


def parsed(data: bytes):
    message = BackMsg()
    message.ParseFromString(data)
    assert message.WhichOneof("type") == "rerun_script"
    return message.rerun_script


def test_a_rerun_request_carries_its_page_and_query_string_and_nothing_else():
    rerun = parsed(rerun_message("multi_head", "model=a+b&heads=4"))
    assert (rerun.page_name, rerun.query_string) == ("multi_head", "model=a+b&heads=4")
    assert (rerun.page_script_hash, rerun.fragment_id, rerun.is_auto_rerun) == ("", "", False)
    assert not rerun.HasField("widget_states")


def test_a_rerun_of_the_default_page_with_nothing_set_is_still_a_rerun_request():
    rerun = parsed(rerun_message())
    assert (rerun.page_name, rerun.query_string, rerun.page_script_hash) == ("", "", "")


def test_a_rerun_request_carries_the_widget_values_a_tab_reports():
    pressed, moved = widget_state("train-button", trigger_value=True), widget_state("heads", string_array_value=["4"])
    rerun = parsed(rerun_message(page_hash="abc123", widgets=[pressed, moved]))
    assert rerun.page_script_hash == "abc123" and rerun.page_name == ""
    first, second = rerun.widget_states.widgets
    assert (first.id, first.WhichOneof("value"), first.trigger_value) == ("train-button", "trigger_value", True)
    assert (second.id, list(second.string_array_value.data)) == ("heads", ["4"])


def test_a_fragment_rerun_is_a_timer_tick_unless_told_otherwise():
    tick = parsed(rerun_message("train", fragment="f1"))
    assert (tick.fragment_id, tick.is_auto_rerun) == ("f1", True)
    clicked = parsed(rerun_message("train", fragment="f1", auto=False))
    assert (clicked.fragment_id, clicked.is_auto_rerun) == ("f1", False)
    assert not parsed(rerun_message("train", auto=True)).is_auto_rerun  # no fragment: a full run


# --- reading a run ------------------------------------------------------------------------------------------


def markdown(body: str) -> bytes:
    message = ForwardMsg()
    message.delta.new_element.markdown.body = body
    return message.SerializeToString()


def finished(status: int) -> bytes:
    message = ForwardMsg()
    message.script_finished = status
    return message.SerializeToString()


def query_changed(query: str) -> bytes:
    message = ForwardMsg()
    message.page_info_changed.query_string = query
    return message.SerializeToString()


# a run cut short for a rerun, the rerun, and a frame of the next run
FRAMES = [
    markdown("first"),
    finished(ForwardMsg.FINISHED_EARLY_FOR_RERUN),
    query_changed("heads=4"),
    markdown("second"),
    finished(ForwardMsg.FINISHED_SUCCESSFULLY),
    markdown("next run"),
]


class BlockingSocket:
    def __init__(self, frames):
        self.frames = list(frames)

    def recv(self, timeout=None):
        assert timeout is not None and timeout > 0
        return self.frames.pop(0)


class AsyncSocket(BlockingSocket):
    async def recv(self):
        return self.frames.pop(0)


def test_reading_a_run_waits_past_a_run_cut_short_and_stops_at_the_end_of_the_rerun():
    socket, seen = BlockingSocket(FRAMES), []
    status = read_run_blocking(socket, lambda element: seen.append(element.markdown.body))
    assert status == ForwardMsg.FINISHED_SUCCESSFULLY
    assert seen == ["first", "second"] and socket.frames == [markdown("next run")]


def run_apart(coroutine):
    """``coroutine``'s result, run on an event loop of its own in another thread: the browser tests' Playwright
    keeps a loop running in this one."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def test_reading_a_run_over_an_async_session_sees_the_same():
    socket, seen = AsyncSocket(FRAMES), []
    status = run_apart(read_run(socket, lambda element: seen.append(element.markdown.body)))
    assert status == ForwardMsg.FINISHED_SUCCESSFULLY
    assert seen == ["first", "second"] and socket.frames == [markdown("next run")]


def test_received_messages_are_parsed_and_only_deltas_that_add_one_give_an_element():
    async def first_three():
        stream = received(AsyncSocket(FRAMES))
        return [await anext(stream) for _ in range(3)]

    messages = run_apart(first_three())
    assert [message.WhichOneof("type") for message in messages] == ["delta", "script_finished", "page_info_changed"]
    assert new_element(messages[0]).markdown.body == "first"
    assert new_element(messages[1]) is None and new_element(messages[2]) is None
