"""The encoder-decoder page at its controls' extremes, on texts of one token, none and past the cap, from a shared
link (its widgets, tab and drawn data restored) and when a view's options shrink under it."""

import numpy as np
import pytest

from tests.apptest_helpers import (
    assert_no_exception,
    chart_by_title,
    chart_specs,
    decode_array,
    run_random_model as run_page,
)
from tests.test_page_encoder_decoder import PAGE, all_section_specs, heatmap_z, open_section, reference
from transformer import TransformerConfig


@pytest.mark.parametrize(
    "params,title",
    [
        (
            {
                "enc": "1",
                "dec": "1",
                "d_model": "8",
                "heads": "8",
                "d_ff": "16",
                "dropout": "0.0",
                "seed": "0",
                "k": "1",
                "pe": "none",
                "act": "GELU",
            },
            "Layer 1 · all 8 heads · encoder self-attention",
        ),
        (
            {
                "enc": "6",
                "dec": "6",
                "d_model": "512",
                "heads": "16",
                "d_ff": "2048",
                "dropout": "0.5",
                "seed": "9999",
                "k": "20",
                "pe": "learned (untrained)",
                "norm": "pre-LN",
                "kind": "encoder-decoder cross-attention",
                "layer": "6",
                "enc_layer": "6",
                "pos": "position 7",
            },
            "Layer 6 · all 16 heads · encoder-decoder cross-attention",
        ),
        (
            {"pe": "rotary (RoPE)", "heads": "2", "kind": "decoder masked self-attention"},
            "Layer 1 · all 2 heads · decoder masked self-attention",
        ),
        ({"pe": "ALiBi", "d_model": "24", "heads": "3", "norm": "pre-LN"}, "Layer 1 · all 3 heads · encoder"),
    ],
    ids=["smallest", "largest", "rotary", "alibi-odd-heads"],
)
def test_controls_at_their_extremes(params, title):
    at = run_page(PAGE, params)
    assert_no_exception(at)
    specs = all_section_specs(at)
    assert len(specs) == 5 and specs[0]["layout"]["title"]["text"].startswith(title)
    for spec in specs:  # readable on a projector: ticks >= 13 px, titles 18 px
        assert spec["layout"]["title"]["font"]["size"] == 18
        assert all(spec["layout"][axis]["tickfont"]["size"] >= 13 for axis in spec["layout"] if axis[1:5] == "axis")
    for spec in specs:
        for trace in spec["data"]:
            for axis in ("x", "y", "z"):
                if axis in trace and isinstance(trace[axis], dict):
                    assert np.isfinite(decode_array(trace[axis])).all()
    table = next(df.value for df in at.dataframe if "counted in the model" in df.value.columns)
    assert (table["closed-form count"] == table["counted in the model"]).all()


def test_text_extremes_one_token_empty_and_over_the_cap():
    at = run_page(PAGE, {"tgt": "bonjour", "src": "a"})
    assert_no_exception(at)
    assert decode_array(chart_by_title(at, "encoder self-attention")["data"][0]["z"]).shape == (
        1,
        7,
    )  # 4 tiles of 1 x 1
    at = run_page(PAGE, {"src": "   "})
    assert_no_exception(at)
    assert any("empty" in el.value for el in at.info) and not chart_specs(at)
    at = run_page(PAGE, {"src": " ".join(f"w{i}" for i in range(80))})
    assert_no_exception(at)
    assert any("only the first 64" in el.value for el in at.warning)


def test_shared_link_restores_widgets_tab_and_drawn_data():
    params = {
        "src": "a b c",
        "tgt": "x y",
        "enc": "3",
        "d_model": "32",
        "heads": "8",
        "seed": "7",
        "kind": "encoder self-attention",
        "layer": "3",
        "head": "head 8",
        "norm": "pre-LN",
        "enc_layer": "2",
        "section": "One layer",
    }
    at = run_page(PAGE, params)
    assert_no_exception(at)
    assert at.session_state["section"] == "One layer"
    assert at.select_slider(key="enc_layer").value == 2
    assert [s["layout"]["title"]["text"] for s in chart_specs(at)][0].startswith("Encoder layer 2 · vector norm")
    assert chart_by_title(open_section(at, "Feed-forward"), "Encoder layer 2 · ReLU: a token fires")  # same layer
    at = open_section(at, "Attention")
    assert at.text_input(key="src").value == "a b c" and at.slider(key="enc").value == 3
    assert at.select_slider(key="d_model").value == 32 and at.select_slider(key="heads").value == 8
    assert at.number_input(key="seed").value == 7 and at.selectbox(key="norm").value == "pre"
    assert at.selectbox(key="head").value == 8
    z = heatmap_z(chart_by_title(at, "Layer 3 · head 8 · encoder self-attention"))
    config = TransformerConfig(d_model=32, num_heads=8, num_encoder_layers=3, norm_first=True)
    record, _ = reference(config, seed=7, src="a b c", tgt="x y")
    np.testing.assert_allclose(z, record.numpy("encoder.layers.2.self_attn")[7], atol=1e-6)


def test_views_fall_back_when_their_options_shrink():
    at = run_page(
        PAGE,
        {
            "enc": "4",
            "dec": "4",
            "enc_layer": "4",
            "kind": "decoder masked self-attention",
            "layer": "4",
            "tgt": "a b c d e f",
            "pos": "position 6",
            "heads": "8",
            "head": "head 8",
        },
    )
    assert chart_by_title(at, "Layer 4 · head 8 · decoder masked self-attention")
    assert chart_by_title(open_section(at, "One layer"), "Encoder layer 4 · vector norm")
    assert chart_by_title(open_section(at, "Output"), "Position 6 · top 10")
    at.slider(key="enc").set_value(1).run()
    at.slider(key="dec").set_value(1).run()
    at.text_input(key="tgt").set_value("a").run()
    at.select_slider(key="heads").set_value(2).run()
    assert_no_exception(at)
    assert chart_by_title(at, "Position 1 · top 10")
    assert chart_by_title(open_section(at, "Attention"), "Layer 1 · all 2 heads · decoder masked self-attention")
    assert chart_by_title(open_section(at, "One layer"), "Encoder layer 1 · vector norm")
