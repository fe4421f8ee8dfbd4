"""A slider with a stop per option: the URL holds the option as shown, one option is switched off, and a
value the options do not hold falls back to the default; and the numbering note on every page that numbers heads."""

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


PAPERS_NUMBERING = "count from 0, so layer 1 · head 2 here is L0H1 in a paper's figure"


def test_home_says_once_how_papers_number_heads_and_the_pages_layer_controls_say_it_in_their_help():
    from tests.apptest_helpers import assert_no_exception, run_page

    home = run_page("pages/home/page.py")
    assert_no_exception(home)
    assert sum(PAPERS_NUMBERING in c.value for c in home.caption) == 1
    for page in ("self_attention", "multi_head", "encoder_decoder", "pretrained"):
        at = run_page(f"pages/{page}/page.py")
        assert_no_exception(at)
        assert not any(PAPERS_NUMBERING in c.value for c in at.caption), f"{page} repeats the note"
        layer = next(c for c in [*at.select_slider, *at.selectbox] if c.key.endswith("layer"))
        assert "L0H1" in layer.help, page
