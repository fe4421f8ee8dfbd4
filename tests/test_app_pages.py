"""Every page registered in the navigation runs without an exception."""

from pathlib import Path

import pytest

from tests.apptest_helpers import APP, TIMEOUT, assert_no_exception, chart_specs, run_page
from streamlit.testing.v1 import AppTest
from ui.pages_index import PAGES


def test_navigation_registers_exactly_the_index():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert_no_exception(at)
    registered = sorted(info["script_path"].split("/pages/")[-1] for info in at._registered_pages.values())
    assert registered == sorted(p.path.split("pages/")[-1] for p in PAGES)
    assert sorted(info["url_pathname"] for info in at._registered_pages.values()) == sorted(
        "" if p.is_home else p.url_path for p in PAGES
    )


@pytest.mark.parametrize("page", PAGES, ids=[p.title for p in PAGES])
def test_page_runs_without_exception(page):
    at = run_page(page.path)
    assert_no_exception(at)
    assert at.title or at.header or at.markdown, "the page shows nothing"


def test_home_links_every_other_page():
    at = run_page("pages/home/page.py")
    linked = [link.proto.page for link in at.get("page_link") if not link.proto.query_string]  # not the course's
    assert linked == [Path(p.path).parent.name for p in PAGES if not p.is_home]


def test_home_draws_the_architecture_map():
    at = run_page("pages/home/page.py")
    dot = at.get("graphviz_chart")[0].proto.spec
    assert "cluster_enc" in dot and "cross-attention" in dot


SECTIONED = {
    "pages/self_attention/page.py": ("Q, K, V", "Output"),
    "pages/multi_head/page.py": ("Heads of a layer", "Statistics"),
    "pages/positional_encoding/page.py": ("Curves", "Offset map"),
    "pages/masks/page.py": ("Causal", "Padding"),
    "pages/encoder_decoder/page.py": ("Translate", "Feed-forward"),  # it opens on the translation model
    "pages/pretrained/page.py": ("Tokens", "Head roles"),
    "pages/experiments/page.py": ("Knock out", "Logit lens"),
    "pages/generate/page.py": ("Next token", "Compare"),
}


def _picker(at):
    return next(control for control in at.get("button_group") if control.key == "section")


@pytest.mark.parametrize("path", SECTIONED)
def test_a_page_shows_one_section_chosen_by_its_link(path):
    first, other = SECTIONED[path]
    at = run_page(path)
    assert_no_exception(at)
    assert _picker(at).value == first  # no section in the URL: the first one
    linked = run_page(path, {"section": other})
    assert_no_exception(linked)
    assert _picker(linked).value == other
    titles = lambda run: {str(spec["layout"].get("title", {}).get("text")) for spec in chart_specs(run)}  # noqa: E731
    assert titles(linked) != titles(at)  # only the open section is drawn
    unknown = run_page(path, {"section": "No such section"})
    assert_no_exception(unknown)
    assert _picker(unknown).value == first
