"""The head view's hover (ui/head_view_hover.js): the lines it draws for a query under the pointer are the lines
the server draws for that query as the chosen one (viz/head_view.py), trace for trace, in every head drawn; the
figure carries the opacity levels and the names it needs."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from viz.head_view import LEVELS, head_view_figure

ROOT = Path(__file__).resolve().parent.parent
TOKENS = ["The", "cat", "<b>sat</b>", "on", "the", "mat", "today"]


def browser_lines(links: dict, query: int) -> dict:
    """What ui/head_view_hover.js computes for ``query``: the line traces' x and y, and the query names."""
    node = shutil.which("node")
    assert node, "Node.js runs the browser's own code (scripts/test.sh installs it)"
    script = (
        f"const hover = require({json.dumps(str(ROOT / 'ui' / 'head_view_hover.js'))});"
        "const links = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        f"const lines = hover.segments(links, {query});"
        f"console.log(JSON.stringify({{lines, names: hover.names(links, {query})}}));"
    )
    done = subprocess.run([node, "-e", script], input=json.dumps(links), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def weights(heads: int, length: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    logits = rng.normal(scale=2.0, size=(heads, length, length))
    w = np.exp(logits - logits.max(-1, keepdims=True))
    return w / w.sum(-1, keepdims=True)


@pytest.mark.parametrize("heads", [[2], [0, 1, 2, 3]])
def test_the_lines_lit_under_the_pointer_are_the_lines_drawn_for_that_query(heads):
    w = weights(4, len(TOKENS), seed=len(heads))
    chosen = 3
    figure = head_view_figure(w, TOKENS, heads, chosen, "hv").to_plotly_json()
    links = figure["layout"]["meta"]["links"]
    lines = [t for t in figure["data"] if t.get("mode") == "lines"]
    assert len(lines) == LEVELS * len(heads)  # every level of every head, empty or not: replaced in place
    assert figure["data"][links["names"]]["name"] == "queries"
    for query in range(len(TOKENS)):
        drawn = head_view_figure(w, TOKENS, heads, query, "hv").to_plotly_json()
        expected = [(list(t["x"]), list(t["y"])) for t in drawn["data"] if t.get("mode") == "lines"]
        lit = browser_lines(links, query)
        assert [(line["x"], line["y"]) for line in lit["lines"]] == expected
        assert lit["names"] == list(drawn["data"][drawn["layout"]["meta"]["links"]["names"]]["text"])
    assert "<b>&lt;b&gt;sat&lt;/b&gt;</b>" in browser_lines(links, 2)["names"]  # a token is text, bold as a name


def test_a_view_of_every_query_lights_one_query_under_the_pointer_too():
    """Multi-head's head view draws every query's lines at first: a query under the pointer gets only its own."""
    w = weights(2, 5, seed=0)
    every = head_view_figure(w, TOKENS[:5], [0, 1], None, "hv").to_plotly_json()
    starts = {y for t in every["data"] if t.get("mode") == "lines" for y in list(t["y"])[0::3]}
    assert starts == set(range(5))
    one = head_view_figure(w, TOKENS[:5], [0, 1], 4, "hv").to_plotly_json()
    expected = [(list(t["x"]), list(t["y"])) for t in one["data"] if t.get("mode") == "lines"]
    lit = browser_lines(every["layout"]["meta"]["links"], 4)
    assert [(line["x"], line["y"]) for line in lit["lines"]] == expected


def test_a_view_too_large_to_send_its_levels_is_drawn_without_the_hover():
    from viz.head_view import HOVER_MAX_LEVELS

    length = 65
    assert 12 * length * length > HOVER_MAX_LEVELS >= 12 * 64 * 64
    large = head_view_figure(weights(12, length, seed=1), ["x"] * length, list(range(12)), 0, "hv").to_plotly_json()
    assert "meta" not in large["layout"]
