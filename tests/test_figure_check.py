"""A drawing's figures are checked as strictly as its HTML (classroom/figure_check.py on the server,
ui/rooms/figure_check.js in the browser, one set of rules): every figure the app draws passes, on every page and
section, plain and in presentation mode, and so does its heaviest (Multi-head, 16 heads of 64 tokens); a figure
with a part the app never draws (an outside image, a map, a link, far too many points) is refused, by both."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from classroom.figure_check import FIGURE_RULES, MAX_POINTS, MAX_VALUES, figure_problem
from tests.app_figures import SHARES_EVERY_FIGURE, every_figure_the_app_draws
from tests.conftest import ROOT

pytestmark = SHARES_EVERY_FIGURE

PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
HEATMAP = {"type": "heatmap", "z": [[0.1, 0.9], [0.5, 0.5]], "hovertemplate": "%{z:.2f}<br>weight<extra></extra>"}
LAYOUT = {"title": {"text": "<b>Layer 1</b>"}, "xaxis": {"title": {"text": "key"}}, "height": 400}


def figure(data=None, layout=None, **more) -> dict:
    return {"data": data if data is not None else [HEATMAP], "layout": {**LAYOUT, **(layout or {})}, **more}


def points(count: int) -> dict:
    return {"type": "scatter", "mode": "markers", "x": list(range(count)), "y": [0] * count}


ACCEPTED = {
    "a heatmap": figure(),
    "a typed array": figure([{"type": "heatmap", "z": {"dtype": "f4", "bdata": "AACAPw==", "shape": "1, 1"}}]),
    "shapes and the toolbar's options": figure(layout={"shapes": []}, config={"toImageButtonOptions": {}}),
    "a data: image in an image's source": figure(layout={"template": {"layout": {"images": [{"source": PNG}]}}}),
    "numbered axes": figure(layout={"xaxis8": {}, "yaxis8": {}, "coloraxis2": {}}),
}
REFUSED = {
    "an outside image": figure(layout={"images": [{"source": "https://outside.example/a.png"}]}),
    "an image in the template": figure(
        layout={"template": {"layout": {"images": [{"source": "http://outside.example/a.png"}]}}}
    ),
    "a map of the world": figure([{"type": "scattergeo", "lon": [0], "lat": [0]}]),
    "map tiles": figure(layout={"mapbox": {"style": "open-street-map"}}),
    "a map's config": figure(config={"topojsonURL": "https://outside.example/"}),
    "a link in a title": figure(layout={"title": {"text": '<a href="https://outside.example">click</a>'}}),
    "a style that loads": figure(layout={"title": {"text": '<span style="background:url(x.png)">t</span>'}}),
    "a javascript link": figure([{**HEATMAP, "hovertemplate": "javascript:alert(1)"}]),
    "an svg image": figure(
        layout={"template": {"layout": {"images": [{"source": "data:image/svg+xml;base64,PHN2Zz4="}]}}}
    ),
    "400,000 scatter points": figure([points(400_000)]),
    "too many heatmap cells": figure(
        [{"type": "heatmap", "z": {"dtype": "f4", "bdata": "AAAA", "shape": f"{MAX_VALUES // 1000 + 1}, 1000"}}]
    ),
    "frames": {**figure(), "frames": [{"data": []}]},
    "a trace that is not an object": figure(["heatmap"]),
}


@pytest.mark.parametrize("spec", ACCEPTED.values(), ids=ACCEPTED)
def test_what_the_app_draws_is_accepted(spec):
    assert figure_problem(spec) is None


@pytest.mark.parametrize("spec", REFUSED.values(), ids=REFUSED)
def test_what_the_app_never_draws_is_refused(spec):
    assert figure_problem(spec) is not None


def test_the_caps_stand_where_they_say():
    assert figure_problem(figure([points(MAX_POINTS)])) is None
    assert "scatter points" in figure_problem(figure([points(MAX_POINTS + 1)]))


def test_every_figure_the_app_draws_passes_in_python_and_in_the_browsers_check(tmp_path):
    drawn = list(every_figure_the_app_draws())
    assert len(drawn) > 150
    refused = [(page, section, present, figure_problem(spec)) for page, section, present, spec in drawn]
    assert [r for r in refused if r[3]] == []
    sizes = [len(json.dumps(spec)) for *_, spec in drawn]
    largest = drawn[sizes.index(max(sizes))][3]
    cases = [{"name": name, "spec": spec, "refused": False} for name, spec in ACCEPTED.items()]
    cases += [{"name": name, "spec": spec, "refused": True} for name, spec in REFUSED.items()]
    cases.append({"name": "the app's largest figure", "spec": largest, "refused": False})
    cases += [{"name": f"app figure {i}", "spec": spec, "refused": False} for i, (*_, spec) in enumerate(drawn[::7])]
    run_node_check(tmp_path, cases)


def run_node_check(tmp_path, cases: list[dict]) -> None:
    """tests/js/figure_check.test.js: the browser's check, under Node's own test runner, on ``cases``."""
    node = shutil.which("node")
    assert node, "Node.js runs the browser's checks (scripts/test.sh installs it)"
    (tmp_path / "cases.json").write_text(json.dumps({"rules": FIGURE_RULES, "cases": cases}))
    done = subprocess.run(
        [node, "--test", str(ROOT / "tests" / "js" / "figure_check.test.js")],
        env={"FIGURE_CASES": str(tmp_path / "cases.json")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_the_browsers_check_refuses_and_accepts_as_the_servers(tmp_path):
    cases = [{"name": name, "spec": spec, "refused": False} for name, spec in ACCEPTED.items()]
    cases += [{"name": name, "spec": spec, "refused": True} for name, spec in REFUSED.items()]
    run_node_check(tmp_path, cases)
