"""The encoder-decoder page under AppTest: what its charts draw, against the package."""

import numpy as np
import torch

from tests.apptest_helpers import (
    assert_no_exception,
    chart_by_title,
    chart_specs,
    decode_array,
    head_tiles,
    run_random_model as run_page,
)
from transformer import BOS_ID, HashTokenizer, TransformerConfig, build_model

PAGE = "pages/encoder_decoder/page.py"
SRC, TGT = "the cat sat on the mat", "le chat est assis sur le tapis"
SECTIONS = ("Attention", "Output", "One layer", "Feed-forward", "Architecture")


def tokens(text):
    tokenizer = HashTokenizer()
    toks = tokenizer.tokenize(text)
    return toks, tokenizer.encode(toks)


def reference(config, seed=0, src=SRC, tgt=TGT):
    """Attention record and probabilities of a freshly built model, teacher-forced."""
    _, src_ids = tokens(src)
    _, tgt_ids = tokens(tgt)
    dec_ids = [BOS_ID] + tgt_ids[:-1]
    model = build_model(config, seed)
    with torch.inference_mode():
        out = model(torch.tensor([src_ids]), torch.tensor([dec_ids]), return_attention=True)
    return out.attention, torch.softmax(out.logits[0], -1).numpy()


def heatmap_z(spec):
    return decode_array(spec["data"][0]["z"])


def open_section(at, name):
    """Switch the page's lazy tabs (URL key ``section``) to ``name`` and rerun."""
    at.session_state["section"] = name
    if "section" in at.query_params:  # a shared link's tab: the URL says which tab is open
        at.query_params["section"] = name
    return at.run()


def all_section_specs(at):
    """The chart specs of every section, opening each tab in turn."""
    return [spec for name in SECTIONS for spec in chart_specs(open_section(at, name))]


def test_default_tab_is_attention_and_each_tab_draws_only_its_own_charts():
    at = run_page(PAGE)
    assert_no_exception(at)
    (grid,) = chart_specs(at)
    # the title's finding, from the drawn tiles: the head whose rows put the most on their strongest key on average
    strongest = np.array([np.nan_to_num(tile).max(-1).mean() for tile in head_tiles(grid)])
    most, least = strongest.argmax(), strongest.argmin()
    assert grid["layout"]["title"]["text"] == (
        f"Layer 1 · all 4 heads · encoder self-attention: head {most + 1} the most focused (a row's largest weight "
        f"{strongest[most]:.2f} on average), head {least + 1} the broadest ({strongest[least]:.2f})"
    )
    assert not at.get("graphviz_chart")
    at = open_section(at, "Output")
    titles = [s["layout"]["title"]["text"] for s in chart_specs(at)]
    assert len(titles) == 1 and "next-token probabilities" in titles[0]
    teacher = next(t.value for t in at.table if "decoder input (reads)" in t.value.columns)
    assert list(teacher["decoder input (reads)"]) == ["<s>"] + tokens(TGT)[0][:-1]
    assert list(teacher["target (must predict)"]) == tokens(TGT)[0]
    titles = [s["layout"]["title"]["text"] for s in chart_specs(open_section(at, "One layer"))]
    assert len(titles) == 2 and "vector norm" in titles[0] and "LayerNorm" in titles[1]
    titles = [s["layout"]["title"]["text"] for s in chart_specs(open_section(at, "Feed-forward"))]
    assert len(titles) == 1 and titles[0].startswith("Encoder layer 1 · ReLU: a token fires")
    at = open_section(at, "Architecture")
    assert_no_exception(at)
    assert not chart_specs(at)
    dot = at.get("graphviz_chart")[0].proto.spec
    assert "[6 x 64]" in dot and "[7 x 4096]" in dot


def test_cross_attention_is_target_by_source_and_matches_the_model():
    at = run_page(PAGE, {"kind": "encoder-decoder cross-attention", "layer": "2", "head": "head 3"})
    assert_no_exception(at)
    spec = chart_by_title(at, "Layer 2 · head 3 · encoder-decoder cross-attention")
    z = heatmap_z(spec)
    src, tgt = tokens(SRC)[0], tokens(TGT)[0]
    assert z.shape == (len(tgt), len(src))
    assert spec["layout"]["yaxis"]["ticktext"] == ["&lt;s&gt;"] + tgt[:-1]
    assert spec["layout"]["xaxis"]["ticktext"] == src
    record, _ = reference(TransformerConfig())
    np.testing.assert_allclose(z, record.numpy("decoder.layers.1.cross_attn")[2], atol=1e-6)
    np.testing.assert_allclose(z.sum(-1), 1.0, atol=1e-5)
    at.selectbox(key="head").set_value("all").run()
    tiled = heatmap_z(chart_by_title(at, "all 4 heads · encoder-decoder cross-attention"))
    assert tiled.shape == (len(tgt), 4 * (len(src) + 1) - 1)  # 4 tiles side by side, one-cell gaps


def test_the_numbers_table_is_sent_only_when_open_and_holds_the_models_weights():
    params = {"kind": "encoder-decoder cross-attention", "layer": "2", "head": "head 3"}
    closed = run_page(PAGE, params)
    assert not [
        df
        for df in closed.dataframe
        if "weight" in " ".join(map(str, df.value.columns)).lower() or df.value.shape[0] == len(tokens(TGT)[0])
    ]  # a closed table is not built
    at = run_page(PAGE, {**params, "attn_numbers": "true"})
    assert_no_exception(at)
    record, _ = reference(TransformerConfig())
    expected = record.numpy("decoder.layers.1.cross_attn")[2]  # [target, source]
    table = next(df.value for df in at.dataframe if df.value.shape == expected.shape)
    np.testing.assert_allclose(table.to_numpy(dtype=np.float32), expected, atol=1e-6)


def test_decoder_self_attention_is_causal_in_the_drawn_data():
    at = run_page(PAGE, {"kind": "decoder masked self-attention", "head": "head 1"})
    spec = chart_by_title(at, "head 1 · decoder masked self-attention")
    z, n = heatmap_z(spec), len(tokens(TGT)[0])
    assert z.shape == (n, n)
    assert np.all(z[np.triu_indices(n, 1)] == 0) and np.all(np.diag(z) > 0)
    np.testing.assert_allclose(z.sum(-1), 1.0, atol=1e-5)
    overlay = decode_array(spec["data"][1]["z"])  # grey where masked: exactly the upper triangle
    np.testing.assert_array_equal(overlay > 0, ~np.tril(np.ones((n, n), bool)))
    at.selectbox(key="head").set_value("all").run()
    spec = chart_by_title(at, "all 4 heads · decoder masked self-attention")
    tiled, codes = heatmap_z(spec), decode_array(spec["data"][1]["z"])
    for h in range(4):
        tile = tiled[:, h * (n + 1) : h * (n + 1) + n]
        assert np.all(tile[np.triu_indices(n, 1)] == 0)
        np.testing.assert_array_equal(codes[:, h * (n + 1) : h * (n + 1) + n] == 1, ~np.tril(np.ones((n, n), bool)))


def test_dropout_is_training_only_so_the_figures_do_not_change():
    specs = [all_section_specs(run_page(PAGE, {"dropout": str(p)})) for p in (0.0, 0.5)]
    assert len(specs[0]) == len(specs[1]) == 5
    for a, b in zip(*specs):
        for ta, tb in zip(a["data"], b["data"]):
            for axis in ("x", "y", "z"):
                if axis in ta:
                    np.testing.assert_array_equal(decode_array(ta[axis]), decode_array(tb[axis]))


def test_output_bars_are_the_top_k_of_the_model_distribution():
    at = run_page(PAGE, {"section": "Output", "pos": "position 7", "k": "5"})
    assert_no_exception(at)
    spec = chart_by_title(at, "Position 7 · top 5 of 4096")
    bars = decode_array(spec["data"][0]["x"])
    _, probs = reference(TransformerConfig())
    np.testing.assert_allclose(bars, np.sort(probs[6])[::-1][:5], rtol=1e-5)
    labels = spec["layout"]["yaxis"]["ticktext"]
    ids = np.argsort(-probs[6])[:5]
    known = {i: t for t, i in zip(*tokens(SRC + " " + TGT))}
    assert labels == [known.get(int(i), f"id {int(i)}") for i in ids]
    note = next(el.value for el in at.info if "untrained" in el.value)
    assert f"{probs[6].max() * 4096:.1f} × the uniform probability 1/4096" in note and "tied" not in note


def test_a_random_model_with_a_tied_output_says_its_distribution_is_far_from_uniform():
    at = run_page(PAGE, {"section": "Output", "pos": "position 7", "shared": "true"})
    assert_no_exception(at)
    config = TransformerConfig(share_embeddings=True, output_head="tied")
    _, probs = reference(config)
    peak = probs[6].max() * probs.shape[1]
    _, untied = reference(TransformerConfig())
    assert peak > 5 * untied[6].max() * untied.shape[1]  # what the note says: far wider than with its own matrix
    note = next(el.value for el in at.info if "untrained" in el.value)
    assert f"{peak:.1f} × the uniform probability 1/{probs.shape[1]}" in note and "(tied)" in note
    open_section(at, "Architecture")
    assert any(r"\text{generator: } V \text{ (tied" in el.value for el in at.latex)


def test_the_settings_line_names_the_random_model_the_page_draws():
    """The random model's settings are behind a button; the line under it names them, read from the model that
    draws the page, at the defaults and after every setting has moved."""
    at = run_page(PAGE)
    assert_no_exception(at)
    line = next(c.value for c in at.caption if c.value.startswith("Random model:"))
    assert line.startswith("Random model: 2 encoder and 2 decoder layers, d_model = 64, 4 heads, d_ff = 256,")
    at.slider(key="enc").set_value(3)
    at.slider(key="dec").set_value(1)
    at.select_slider(key="d_model").set_value(32)
    at.selectbox(key="norm").set_value("pre")
    at.selectbox(key="act").set_value("gelu")
    at.toggle(key="shared").set_value(True)
    at.number_input(key="seed").set_value(7)
    at.run()
    assert_no_exception(at)
    at.select_slider(key="heads").set_value(2).run()
    line = next(c.value for c in at.caption if c.value.startswith("Random model:"))
    assert line == (
        "Random model: 3 encoder and 1 decoder layers, d_model = 32, 2 heads, d_ff = 256, positional encoding "
        "sinusoidal (paper), pre-LN, GELU, dropout 0.1, one shared embedding matrix, seed 7. Change them in "
        "Model settings."
    )
    assert chart_by_title(at, "all 2 heads · encoder self-attention") is not None


def test_the_output_title_says_where_the_target_stands():
    import pandas as pd

    from pages.encoder_decoder.output import target_finding

    table = pd.DataFrame({"token": ["le", "la"], "id": [4, 7], "probability": [0.5, 0.3]})
    assert target_finding(table, "la", 0.3, 2) == "“le” first (0.5), the target “la” rank 2 (0.3)"
    assert target_finding(table, "le", 0.5, 1) == "the target “le” first (0.5)"
    # a random model's spread: two significant digits, not 0.00
    assert target_finding(table.assign(probability=[0.00041, 0.0003]), "x", 0.00021, 3420).endswith("(0.00021)")
