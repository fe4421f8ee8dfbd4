"""The shared sentence input: cap with a visible note, prompt when empty, exact tokens."""

from streamlit.testing.v1 import AppTest

from ui.text import tokenize_text


def _script():
    import streamlit as st

    from ui.text import sentence_input

    result = sentence_input("Sentence", "one two three", key="text", max_tokens=2)
    if result is not None:
        st.dataframe({"token": list(result.tokens)})


def test_long_text_is_cut_with_a_note():
    at = AppTest.from_function(_script).run()
    assert not at.exception
    assert "3 tokens; only the first 2" in at.warning[0].value
    assert list(at.dataframe[0].value["token"]) == ["one", "two"]


def test_empty_text_gets_a_prompt_not_an_error():
    at = AppTest.from_function(_script).run()
    at.text_input(key="text").input("   ").run()
    assert not at.exception and not at.dataframe
    assert "Type a sentence" in at.info[0].value


def test_url_restores_the_text():
    at = AppTest.from_function(_script)
    at.query_params["text"] = "<b>hi</b>"
    at.run()
    assert at.text_input(key="text").value == "<b>hi</b>"
    assert list(at.dataframe[0].value["token"]) == ["<", "b"]


def test_tokenize_text_normalises_and_keeps_repeats():
    result = tokenize_text("the cafe\u0301 the", max_tokens=10)
    assert result.tokens == ("the", "caf\u00e9", "the") and result.ids[0] == result.ids[2]
    assert result.cut_from is None
    assert tokenize_text(" \n ") is None
