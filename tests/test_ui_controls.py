"""A slider with a stop per option: the URL holds the option as shown, one option is switched off, and a
value the options do not hold falls back to the default; and the numbering note on every page that numbers heads."""

import pytest
from streamlit.testing.v1 import AppTest


def _script():
    import streamlit as st

    from ui.controls import stops_slider

    count = int(st.session_state.get("count", 3))
    head = stops_slider("head", range(count), "head", 1, format_func=lambda h: f"head {h + 1}")
    cap = stops_slider("cap", (32, 64, 128), "cap", 99)  # 99 is not offered: the first option
    st.write(f"head={head} cap={cap}")


def shown(at) -> str:
    return at.markdown[0].value


def test_the_url_holds_the_option_as_a_drop_down_did():
    at = AppTest.from_function(_script)
    at.query_params["head"] = "head 3"
    at.query_params["cap"] = "128"
    at.run()
    assert not at.exception and shown(at) == "head=2 cap=128"
    assert not at.select_slider(key="head").disabled


def test_defaults_and_an_unknown_url_value_fall_back():
    at = AppTest.from_function(_script).run()
    assert shown(at) == "head=1 cap=32"
    at = AppTest.from_function(_script)
    at.query_params["head"] = "head 9"
    at.run()
    assert not at.exception and shown(at) == "head=1 cap=32"


def test_a_single_option_is_shown_switched_off():
    at = AppTest.from_function(_script)
    at.session_state["count"] = 1
    at.run()
    assert not at.exception and shown(at) == "head=0 cap=32"
    assert at.select_slider(key="head").disabled and not at.select_slider(key="cap").disabled


@pytest.mark.parametrize("page", ["multi_head", "encoder_decoder", "train", "pretrained", "vision", "experiments"])
def test_every_page_that_numbers_heads_says_how_papers_number_them(page):
    from tests.apptest_helpers import assert_no_exception, run_page

    at = run_page(f"pages/{page}/page.py")
    assert_no_exception(at)
    assert any("count from 0, so layer 1 · head 2 here is L0H1 in a paper's figure" in c.value for c in at.caption)
