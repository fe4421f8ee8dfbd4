"""Multi-head attention's head view: its caption ("lines for weights below 0.01 are not drawn; opacity is the weight
rounded up to a tenth") checked line by line against the model's own weights, at the defaults (every head, every
query) and at a second setting (a causal stack of 3 layers, head 2, the query 'it')."""

from __future__ import annotations

import numpy as np
import pytest

from tests.apptest_helpers import assert_no_exception, chart_by_title, decode_array, run_page, title_text
from tests.test_page_multi_head import RANDOM_STACK, TEXT, model_weights
from transformer import HashTokenizer

PAGE = "pages/multi_head/page.py"
SECOND = {"layers": "3", "layer": "3", "causal": "true", "hv_head": "head 2", "hv_query": "8: it"}


def drawn_lines(spec: dict) -> dict[tuple[int, int, int], float]:
    """(head, query, key) -> opacity of every line the figure draws (one trace per head and opacity level)."""
    lines = {}
    for trace in spec["data"]:
        if trace.get("mode") != "lines" or trace.get("showlegend") is not False:
            continue
        head = int(trace["name"].split()[-1]) - 1
        ys = trace["y"]
        for start in range(0, len(ys), 3):  # query, key, None
            lines[(head, int(ys[start]), int(ys[start + 1]))] = float(trace["opacity"])
    return lines


@pytest.mark.parametrize("query", [{}, SECOND])
def test_the_head_view_draws_each_weight_as_its_caption_says(query):
    at = run_page(PAGE, {**RANDOM_STACK, **query, "section": "Head view"})
    assert_no_exception(at)
    causal = query.get("causal") == "true"
    layer = int(query.get("layer", 1))
    weights = model_weights(int(query.get("layers", 2)), 64, 4, causal)[layer - 1]  # [H, T, T]
    heads = [1] if query else range(weights.shape[0])
    queries = [7] if query else range(weights.shape[1])
    title = f"Layer {layer} · {'head 2' if query else 'all heads'} · head view"
    lines = drawn_lines(chart_by_title(at, title))
    strongest = max((weights[h, i, j], h, i, j) for h in heads for i in queries for j in range(weights.shape[2]))
    tokens = HashTokenizer().tokenize(TEXT)
    named = f"“{tokens[strongest[2]]}” → “{tokens[strongest[3]]}”" + ("" if query else f" in head {strongest[1] + 1}")
    assert title_text(chart_by_title(at, title)) == f"{title}: the strongest line {named} ({strongest[0]:.2f})"
    expected = {
        (h, i, j): np.ceil(10 * weights[h, i, j]) / 10
        for h in heads
        for i in queries
        for j in range(weights.shape[2])
        if weights[h, i, j] >= 0.01
    }
    assert lines.keys() == expected.keys()
    for key, opacity in lines.items():
        assert opacity == pytest.approx(expected[key])
    hidden = [
        weights[h, i, j] for h in heads for i in queries for j in range(weights.shape[2]) if (h, i, j) not in lines
    ]
    assert all(w < 0.01 for w in hidden) and hidden  # some weights are too small to draw, at both settings
    if causal:  # the mask: no line to a later key
        assert all(j <= i for _, i, j in lines)
    assert any(
        c.value == "Lines for weights below 0.01 are not drawn; opacity is the weight rounded up to a tenth."
        for c in at.caption
    )


@pytest.mark.parametrize("query", [{}, {"causal": "true", "heads": "8"}], ids=["default", "causal-8-heads"])
def test_the_grid_title_names_the_most_focused_and_the_broadest_head_as_drawn(query):
    """The heads of a layer: the title's most focused head is the one whose drawn rows put the most on their
    strongest key on average, the broadest the one that puts the least, with those averages."""
    import re

    from tests.apptest_helpers import head_tiles

    at = run_page("pages/multi_head/page.py", {**RANDOM_STACK, **query})
    assert_no_exception(at)
    spec = chart_by_title(at, "Layer 1 · ")
    strongest = np.array([np.nanmax(np.nan_to_num(tile), -1).mean() for tile in head_tiles(spec)])
    found = re.search(
        r"head (\d+) the most focused \(a row's largest weight (\d\.\d\d) on average\), head (\d+) the broadest "
        r"\((\d\.\d\d)\)",
        spec["layout"]["title"]["text"],
    )
    assert found, spec["layout"]["title"]["text"]
    assert int(found[1]) == strongest.argmax() + 1 and float(found[2]) == pytest.approx(strongest.max(), abs=0.0051)
    assert int(found[3]) == strongest.argmin() + 1 and float(found[4]) == pytest.approx(strongest.min(), abs=0.0051)


def test_the_grid_title_names_no_head_where_every_head_is_as_focused():
    """Four heads that each spread every row evenly over 4 keys: each row's largest weight is 1/4 in every head,
    so the title names none as the most focused."""
    from ui.findings import focus_finding

    assert focus_finding(np.full((4, 4, 4), 0.25)) == ": every head as focused (a row's largest weight 0.25 on average)"
    assert focus_finding(np.full((1, 4, 4), 0.25)) == ""


def test_the_overviews_title_names_the_heads_on_the_previous_and_the_first_token():
    """All layers: the title's heads are, by the definition on the package's own weights, the one whose queries put
    the most on the token before them and the one that puts the most on the first token."""
    from tests.test_page_pretrained_views import standouts

    at = run_page(PAGE, {**RANDOM_STACK, "section": "All layers"})
    assert_no_exception(at)
    (pl, ph, pv), (fl, fh, fv) = standouts(model_weights(2, 64, 4, causal=False))
    plain = title_text(chart_by_title(at, "2 layers × 4 heads"))
    assert f"layer {pl} · head {ph} the most on the previous token ({pv:.2f})" in plain, plain
    assert f"layer {fl} · head {fh} the most on “The” ({fv:.2f})" in plain, plain


def test_compares_title_names_where_the_two_heads_differ_the_most_as_drawn():
    at = run_page(PAGE, {**RANDOM_STACK, "section": "Compare"})
    assert_no_exception(at)
    spec = chart_by_title(at, "Compare")
    maps = [np.nan_to_num(decode_array(t["z"]).astype(np.float64)) for t in spec["data"] if t["type"] == "heatmap"]
    first, second = maps[0], maps[1]
    query, key = np.unravel_index(np.abs(first - second).argmax(), first.shape)
    tokens = spec["data"][0]["x"]  # the keys, as the panels name them
    assert title_text(spec).endswith(
        f": most apart at query “{tokens[query]}”, key “{tokens[key]}” ({first[query, key]:.2f} against "
        f"{second[query, key]:.2f})"
    )
