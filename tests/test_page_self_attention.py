"""AppTest: the self-attention walk-through draws the real chain of one head, one lazy tab at a time."""

import re

import numpy as np
import pytest
import torch

from tests.apptest_helpers import (
    assert_no_exception,
    chart_by_title,
    chart_specs,
    decode_array,
    run_page,
    tiles_of,
    title_text,
)
from transformer import HashTokenizer, TransformerConfig, build_model

PAGE = "pages/self_attention/page.py"
VECTORS, SCORES, OUTPUT, SCALING = "Q, K, V", "Scores and softmax", "Output", "Why scale"


def z(spec, trace=0):
    return decode_array(spec["data"][trace]["z"]).astype(np.float64)


def softmax(scores):
    e = np.exp(scores - scores.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def titles(at):
    return [s["layout"]["title"]["text"] for s in chart_specs(at)]


def section(name, params=None):
    at = run_page(PAGE, {**(params or {}), "section": name})
    assert_no_exception(at)
    return at


def test_default_view_draws_the_chain_consistently():
    at = run_page(PAGE)  # the first tab opens by default, and only its charts are sent
    assert_no_exception(at)
    assert len(titles(at)) == 2 and not at.dataframe  # the numbers table is built only when opened
    assert any("X: token vectors + PE · 11 × 16" in t for t in titles(at))
    qkv = chart_by_title(at, "Queries, keys and values · each 11 × 8")
    assert [a["text"] for a in qkv["layout"]["annotations"]][:3] == [f"{m} = X W<sub>{m}</sub>" for m in "QKV"]
    q, k, v = tiles_of(qkv, 3, (11, 8))  # Q, K and V tiled left to right in one trace
    limit = np.abs(np.stack([q, k, v])).max()  # one colour scale, symmetric around 0, for the three tiles
    np.testing.assert_allclose([qkv["data"][0]["zmin"], qkv["data"][0]["zmax"]], [-limit, limit], rtol=1e-5)
    scores = section(SCORES)
    assert not any("Masked scores" in t for t in titles(scores)) and len(titles(scores)) == 3
    raw, scaled = z(chart_by_title(scores, "Raw scores")), z(chart_by_title(scores, "Scaled scores"))
    weights = z(chart_by_title(scores, "Attention weights A"))
    np.testing.assert_allclose(raw, q @ k.T, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(scaled, raw / np.sqrt(8), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(weights, softmax(scaled), atol=1e-5)
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-5)
    output = section(OUTPUT)
    assert any("Output A V · 11 × 8" in t for t in titles(output)) and len(titles(output)) == 3
    np.testing.assert_allclose(z(chart_by_title(output, "Output A V")), weights @ v, rtol=1e-4, atol=1e-3)
    bar = chart_by_title(output, "Row 8 of A")
    np.testing.assert_allclose(decode_array(bar["data"][0]["y"]), weights[7], atol=1e-6)
    keys = bar["layout"]["xaxis"]["ticktext"]
    assert title_text(bar) == (
        f"Row 8 of A: how “it” attends, the most to “{keys[int(weights[7].argmax())]}” ({weights[7].max():.2f})"
    )
    terms = z(chart_by_title(output, "out["))
    np.testing.assert_allclose(terms[-1], (weights @ v)[7], rtol=1e-4, atol=1e-3)
    lengths = np.linalg.norm(weights[7][:, None] * v, axis=1)  # each term a_8j v_j, by hand
    said = re.search(
        r": the term of “(.+)” the longest \(‖a v‖ ([\d.]+), ‖out‖ ([\d.]+)\)$",
        title_text(chart_by_title(output, "out[")),
    )
    assert said[1] == keys[int(lengths.argmax())]
    assert [float(said[2]), float(said[3])] == pytest.approx(
        [lengths.max(), np.linalg.norm((weights @ v)[7])], abs=0.006
    )
    # the titles' findings, from the drawn matrices: queries that score their own key highest; the output's
    # largest magnitude within V's (a weighted average of V's rows cannot leave their range)
    own = int(((q @ k.T).argmax(-1) == np.arange(11)).sum())
    assert title_text(qkv).endswith(f": {own} of 11 queries score their own token's key highest")
    found = re.search(
        r"largest \|out\| (\d+\.\d\d), \|V\| (\d+\.\d\d)\)",
        title_text(chart_by_title(output, "Output A V")),
    )
    assert float(found[1]) == pytest.approx(np.abs(weights @ v).max(), abs=0.006)
    assert float(found[2]) == pytest.approx(np.abs(v).max(), abs=0.006) and float(found[1]) <= float(found[2])
    scaling = section(SCALING)
    peaks = chart_by_title(scaling, "Softmax peakedness")
    star = [t for t in peaks["data"] if t.get("legendgroup") == "current"]
    assert len(titles(scaling)) == 1 and star and star[0]["x"] == [8]


def test_extremes_small_unscaled_cold_causal():
    params = {
        "d_model": "4",
        "heads": "4",
        "scale": "false",
        "temp": "0.1",
        "causal": "true",
        "pe": "none",
        "seed": "9999",
    }
    at = section(SCORES, params)
    raw, scaled = z(chart_by_title(at, "Raw scores")), z(chart_by_title(at, "Scaled scores"))
    np.testing.assert_allclose(scaled, raw / 0.1, rtol=1e-4, atol=1e-3)
    spec = chart_by_title(at, "Attention weights A")
    weights, overlay = z(spec), z(spec, 1)
    upper = np.triu(np.ones_like(weights, dtype=bool), 1)
    assert (overlay[upper] == 1).all() and (overlay[~upper] == 0).all()  # the future is drawn masked
    assert (weights[upper] == 0).all() and np.isfinite(weights).all()
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-5)
    assert "Masked scores (causal)" in chart_by_title(at, "Masked scores")["layout"]["title"]["text"]
    for name in (VECTORS, SCORES, OUTPUT, SCALING):
        for spec in chart_specs(section(name, params) if name != SCORES else at):
            for trace in spec["data"]:
                if "z" in trace:
                    assert np.isfinite(decode_array(trace["z"]).astype(float)).all()


def test_extremes_large_and_hot():
    at = run_page(PAGE, {"d_model": "128", "heads": "2", "temp": "5.0", "seed": "0"})
    assert_no_exception(at)
    assert "11 × 128" in chart_by_title(at, "X: token vectors")["layout"]["title"]["text"]
    weights = z(chart_by_title(section(SCORES, {"d_model": "128", "heads": "2", "temp": "5.0"}), "Attention weights A"))
    assert weights.shape == (11, 11) and weights.max() < 0.9  # T = 5 flattens the rows


def test_shared_link_restores_tab_widgets_and_drawn_data():
    # a selectbox's URL value is its label, as the browser writes it into the address bar
    params = {
        "text": "a b a <b>",
        "d_model": "8",
        "heads": "4",
        "causal": "true",
        "query": "3: a",
        "temp": "0.5",
        "pe": "none",
        "table": "true",
        "numbers": "attention weights A",
    }
    at = section(OUTPUT, params)
    assert at.text_input(key="text").value == "a b a <b>"
    assert at.toggle(key="causal").value and at.selectbox(key="pe").value == "none"
    assert at.select_slider(key="heads").value == 4 and at.slider(key="temp").value == 0.5
    assert at.selectbox(key="query").value == 2 and at.selectbox(key="numbers").value == "attention weights A"
    assert at.session_state["section"] == OUTPUT and not any("Raw scores" in t for t in titles(at))
    weights = at.dataframe[0].value.to_numpy(dtype=np.float64)  # the numbers table, masked cells empty
    assert weights.shape == (6, 6) and np.isnan(weights[np.triu_indices(6, 1)]).all()
    bar = chart_by_title(at, "Row 3 of A")
    np.testing.assert_allclose(decode_array(bar["data"][0]["y"]), np.nan_to_num(weights[2]), atol=1e-4)
    x_ticks = chart_by_title(at, "Row 3 of A")["layout"]["xaxis"]["ticktext"]
    assert x_ticks == ["a", "b", "a", "&lt;", "b", "&gt;"]  # repeats stay apart, markup shown as typed


def test_empty_and_long_text():
    at = run_page(PAGE, {"text": "   "})
    assert_no_exception(at)
    assert not chart_specs(at) and at.info
    at = section(SCORES, {"text": " ".join(f"w{i}" for i in range(80))})
    assert at.warning and z(chart_by_title(at, "Attention weights A")).shape == (64, 64)


def test_every_tab_is_readable_on_a_projector():
    """Tick labels >= 13 px and dark on every axis of every chart, titles 18 px, colour-bar ticks >= 13 px."""
    for name in (VECTORS, SCORES, OUTPUT, SCALING):
        for spec in chart_specs(section(name, {"causal": "true"})):
            layout = spec["layout"]
            assert layout["title"]["font"]["size"] == 18
            axes = [value for key, value in layout.items() if key.startswith(("xaxis", "yaxis"))]
            assert axes and all(
                axis["tickfont"]["size"] >= 13 and axis["tickfont"]["color"] == "#222222" for axis in axes
            ), layout["title"]["text"]
            bars = [t["colorbar"] for t in spec["data"] if "colorbar" in t]
            bars += [layout["coloraxis"]["colorbar"]] if "coloraxis" in layout else []
            assert all(bar["tickfont"]["size"] >= 13 for bar in bars)


def package_weights(text, layers, layer, head, d_model=16, heads=2, causal=False, positional="sinusoidal", seed=0):
    """One head's weights ``[T, T]`` from the package's own forward pass (not the app's cache)."""
    config = TransformerConfig(
        d_model=d_model,
        num_heads=heads,
        num_encoder_layers=layers,
        num_decoder_layers=layers,
        d_ff=4 * d_model,
        dropout=0.0,
        positional=positional,
    )
    kind, stack = ("decoder-only", "decoder") if causal else ("encoder-only", "encoder")
    tokenizer = HashTokenizer()
    with torch.inference_mode():
        record = build_model(config, seed, kind)(
            torch.tensor([tokenizer.encode(tokenizer.tokenize(text))]), return_attention=True
        ).attention
    return record.weights[f"{stack}.layers.{layer}.self_attn"][0, head].numpy()


@pytest.mark.parametrize("causal", [False, True])
def test_the_drawn_head_is_the_models_own(causal):
    """Layer 2, head 2 of a 3-layer model: the page's weights equal the package's forward pass for that head."""
    params = {"layers": "3", "layer": "2", "head": "2", "causal": str(causal).lower(), "seed": "7"}
    at = section(SCORES, params)
    drawn = z(chart_by_title(at, "Attention weights A"))
    expected = package_weights(
        "The animal didn't cross the street because it was too tired", 3, 1, 1, causal=causal, seed=7
    )
    np.testing.assert_allclose(drawn, expected, atol=1e-5)
    assert not np.allclose(
        drawn,
        package_weights("The animal didn't cross the street because it was too tired", 3, 0, 1, causal=causal, seed=7),
        atol=1e-3,
    )  # not layer 1
    assert any("model's own weights for layer 2, head 2" in c.value for c in at.caption)
    vectors = section(VECTORS, params)
    assert "X: output of layer 1" in chart_by_title(vectors, "X: ")["layout"]["title"]["text"]


def test_why_attention_draws_the_steps_and_a_fit_through_the_measured_times_and_measures_again():
    at = section("Why attention")
    spec = chart_by_title(at, "Connecting n tokens")
    traces = {t["name"]: t for t in spec["data"]}
    n = decode_array(traces["recurrence: n − 1 steps"]["x"]).astype(np.float64)
    np.testing.assert_array_equal(decode_array(traces["recurrence: n − 1 steps"]["y"]), n - 1)
    np.testing.assert_array_equal(decode_array(traces["self-attention: 1 step"]["y"]), np.ones_like(n))
    # the steps' lines are named on the plot at their first point, and the legend names only the times' lines
    for name in ("recurrence: n − 1 steps", "self-attention: 1 step"):
        assert traces[name]["text"][0] == name and not any(traces[name]["text"][1:])
        assert traces[name]["showlegend"] is False and "text" in traces[name]["mode"]
    slopes = []
    for name in ("self-attention", "recurrence"):
        ms = decode_array(traces[f"{name}: measured"]["y"]).astype(np.float64)
        slope, intercept = np.polyfit(np.log(n), np.log(ms), 1)  # the fit, computed here from the drawn points
        slopes.append(slope)
        fit = next(t for key, t in traces.items() if key.startswith(f"{name}: fit t ∝ n^"))
        assert fit["name"] == f"{name}: fit t ∝ n^{slope:.2f}"
        x, y = (decode_array(fit[axis]).astype(np.float64) for axis in ("x", "y"))
        np.testing.assert_allclose(y, np.exp(intercept) * x**slope, rtol=1e-4)
    assert spec["layout"]["title"]["text"] == (
        "Connecting n tokens, measured on this server: self-attention's time grows as "
        f"n<sup>{slopes[0]:.2f}</sup>, a recurrence's as n<sup>{slopes[1]:.2f}</sup>"
    )
    table = at.dataframe[0].value
    assert list(table["steps one after another"]) == ["O(1)", "O(n)"]
    at.button(key="measure_again").click().run()
    assert_no_exception(at)
    assert chart_by_title(at, "Connecting n tokens")


def test_why_attention_states_which_layer_is_dearer_only_where_every_round_agrees():
    """The table's exponents and the caption's verdict, recomputed from the rounds the page measured (the page's
    own cached measurement): a length counts for a layer only when every round puts it 5 % clear of the other."""
    from pages.self_attention.why_attention import measured

    at = section("Why attention")
    cost = measured()
    table = at.dataframe[0].value
    for row, layer in enumerate(("attention", "recurrence")):
        slopes = [np.polyfit(np.log(cost.lengths), np.log(times), 1)[0] for times in getattr(cost, f"{layer}_rounds")]
        assert f"(rounds: {min(slopes):.2f} to {max(slopes):.2f})" in table["fitted exponent p here"][row]
    ratios = cost.attention_rounds / cost.recurrence_rounds
    dearer = (ratios >= 1.05).all(axis=0)
    cheaper = (ratios <= 0.95).all(axis=0)
    caption = next(c.value for c in at.caption if c.value.startswith("The first three columns"))
    names = [f"{int(n):,}" for n in cost.lengths]
    if not (dearer | cheaper).all():
        unclear = ", ".join(n for n, d, c in zip(names, dearer, cheaper) if not d and not c)
        assert f"the rounds do not agree which layer is faster at n = {unclear}, so no length is named" in caption
    elif not dearer.any():
        assert "in every round and at every length, attention's n² scores still cost less" in caption
    else:
        assert "in every round" in caption and names[int(dearer.argmax())] in caption


def test_the_caption_names_the_positional_encoding_behind_the_settings_button():
    """The random model's settings are behind a button (the causal switch stays beside it); the caption names
    the model's positional encoding, at the default and after it moves."""
    at = run_page(PAGE)
    assert_no_exception(at)
    assert any("positional encoding sinusoidal (paper). Bidirectional" in c.value for c in at.caption)
    at.selectbox(key="pe").set_value("rotary")
    at.toggle(key="causal").set_value(True)
    at.run()
    assert_no_exception(at)
    assert any("positional encoding rotary (RoPE). Causal" in c.value for c in at.caption)
