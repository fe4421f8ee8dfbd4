"""Every chart the app draws, collected once a test session: every page and section, plain and in presentation
mode, the heaviest view (Multi-head, 16 heads of 64 tokens) and the pretrained head view's twelve heads. Tests of figures in general read these."""

from __future__ import annotations

import functools

import pytest

from tests.apptest_helpers import assert_no_exception, chart_specs, run_page
from lessons.model_labels import RANDOM
from ui.pages_index import PAGES
from ui.screen import PRESENT


def _drawn():
    for page in PAGES:
        at = run_page(page.path)
        group = next((g for g in at.get("button_group") if g.key == "section"), None)
        for section in list(group.options) if group else [None]:
            if section is not None:
                next(g for g in at.get("button_group") if g.key == "section").set_value(section)
            for present in (False, True):
                at.session_state[PRESENT] = present
                at.run()
                assert_no_exception(at)
                yield from ((page.title, section, present, spec) for spec in chart_specs(at))
            at.session_state[PRESENT] = False
    heaviest = run_page(
        "pages/multi_head/page.py",
        {"model": RANDOM, "heads": "16", "text": " ".join(["the cat sat on the mat"] * 12)},
    )
    yield from (("Multi-head, 16 heads of 64 tokens", None, False, spec) for spec in chart_specs(heaviest))
    # the pretrained head view opens on one head: all twelve, each in its colour, are one choice away
    all_heads = run_page("pages/pretrained/page.py", {"section": "Head view", "hv_head": "all heads"})
    yield from (("A real pretrained model, all heads", "Head view", False, spec) for spec in chart_specs(all_heads))


# The test files that read these: one xdist group (tests/conftest.py), so one worker collects them once.
SHARES_EVERY_FIGURE = pytest.mark.xdist_group("every figure the app draws")


@functools.cache
def every_figure_the_app_draws() -> tuple[tuple[str, str | None, bool, dict], ...]:
    """(page title, section or None, presentation mode, the figure's spec) for every chart drawn."""
    return tuple(_drawn())
