"""What a user sees when a page fails (ui/errors.py): with the shipped config, one short message that says what
to do and no traceback on the screen, the traceback in the server's log; with the details on (the tests'
setting), the error as Streamlit shows it."""

from __future__ import annotations

import logging
import tomllib

import pytest
from streamlit import config
from streamlit.testing.v1 import AppTest

from tests.apptest_helpers import APP, TIMEOUT
from tests.conftest import ROOT
from ui.errors import MESSAGE, REDACTED

LEAK = "/secret/path/of/the/server.py"


def failing_architecture(*args, **kwargs):
    raise RuntimeError(f"a failure whose message names {LEAK}")


@pytest.fixture
def details(request):
    """client.showErrorDetails set to the parameter for the test, the tests' own setting after it."""
    config.set_option("client.showErrorDetails", request.param)
    yield request.param
    config.set_option("client.showErrorDetails", "full")


def test_the_shipped_config_keeps_the_details_off_the_screen():
    shipped = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert shipped["client"]["showErrorDetails"] in REDACTED


@pytest.mark.parametrize("details", ["none"], indirect=True)
def test_a_failing_page_says_what_to_do_and_the_log_keeps_the_traceback(details, monkeypatch, caplog):
    monkeypatch.setattr("viz.architecture.architecture_dot", failing_architecture)
    caplog.set_level(logging.ERROR, logger="attention_lab.pages")
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception
    assert [error.value for error in at.error] == [MESSAGE]
    assert "Reset this page" in MESSAGE and at.button(key="reset_page") is not None
    shown = " ".join(str(element.value) for element in [*at.markdown, *at.caption, *at.error, *at.warning])
    assert LEAK not in shown and "Traceback" not in shown
    logged = [record for record in caplog.records if "failed" in record.getMessage()]
    assert len(logged) == 1 and logged[0].exc_info is not None and LEAK in str(logged[0].exc_info[1])


@pytest.mark.parametrize("details", ["full"], indirect=True)
def test_with_the_details_on_the_error_is_seen_as_it_is(details, monkeypatch):
    monkeypatch.setattr("viz.architecture.architecture_dot", failing_architecture)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert [exception.message for exception in at.exception] == [f"a failure whose message names {LEAK}"]
    assert not at.error
