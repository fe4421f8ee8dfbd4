"""The Experiments page in AppTest: every section, what its charts draw and bad input (the circuit lesson, its
maps and patching: test_page_experiments_circuit.py)."""

from pathlib import Path

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from tests.apptest_helpers import (
    APP,
    TIMEOUT,
    assert_no_exception,
    bars,
    chart_by_title,
    chart_specs,
    decode_array,
    grid,
    run_page,
    run_with_upload,
    title_text,
)
from transformer import Ablate, load_checkpoint, make_task
from ui.model_picker import offered_models, shipped_label

PAGE = "pages/experiments/page.py"
SECTIONS = ("Knock out", "Importance", "Circuit", "Patching", "Logit lens", "Attribution", "Build a head")
CHECKPOINTS = Path(__file__).resolve().parent.parent / "checkpoints"


@pytest.fixture(scope="module")
def induction():
    model, _ = load_checkpoint(CHECKPOINTS / "induction.safetensors")
    batch = make_task("induction").batch(64, torch.Generator().manual_seed(0), "val")
    return model, batch


def accuracy(model, batch, interventions=()) -> float:
    with torch.inference_mode():
        predicted = model(batch.inputs, interventions=interventions).logits.argmax(-1)
    return float((predicted[batch.loss_mask] == batch.targets[batch.loss_mask]).float().mean())


@pytest.mark.parametrize("section", SECTIONS)
def test_every_section_draws_on_the_default_induction_model(section):
    at = run_page(PAGE, {"section": section})
    assert_no_exception(at)
    assert not at.error
    assert at.selectbox(key="model").value == shipped_label("induction")
    assert chart_specs(at)


def test_build_a_head_keeps_its_own_offset_whatever_another_pages_k_holds():
    """Positional encoding's offset, Encoder-decoder's and Generate's top-k are URL key ``k``; the head
    builder's offset is not, so a session arriving with k = 20 builds its head with its own offset."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at.switch_page("pages/positional_encoding/page.py")
    at.query_params["section"], at.query_params["k"] = "Offset map", "20"
    at.run()
    assert_no_exception(at)
    assert at.slider(key="k").value == 20
    at.switch_page(PAGE)
    at.query_params.clear()
    at.query_params["section"] = "Build a head"
    at.run()
    assert_no_exception(at)
    assert at.slider(key="w_k").value == 1 and chart_specs(at)


def test_knocking_out_heads_redraws_accuracy_and_loss_as_computed_by_hand(induction):
    model, batch = induction
    at = run_page(PAGE, {"section": "Knock out"})
    intact = accuracy(model, batch)
    title = title_text(chart_by_title(at, "Accuracy"))
    assert title == f"Accuracy on 64 fresh examples: {intact:.3f} with every head; pick heads to knock out"
    at.pills(key="ko_decoder1_self_attn").set_value(["head 1", "head 2"]).run()
    assert_no_exception(at)
    spec = chart_by_title(at, "Accuracy on 64 fresh examples")
    before, after = bars(spec)
    assert before == pytest.approx([intact], abs=1e-6)
    expected = accuracy(model, batch, [Ablate("decoder.layers.1.self_attn", [0, 1])])
    assert after == pytest.approx([expected], abs=1e-6)
    assert expected < intact  # the title says what the bars show
    assert title_text(spec) == (
        f"Accuracy on 64 fresh examples falls from {intact:.3f} to {expected:.3f} with 2 heads knocked out"
    )
    linked = run_page(PAGE, {"section": "Knock out", "ko_decoder1_self_attn": ["head 1", "head 2"]})
    assert linked.pills(key="ko_decoder1_self_attn").value == ["head 1", "head 2"]  # a link restores the view
    assert bars(chart_by_title(linked, "Accuracy"))[1] == pytest.approx([expected], abs=1e-6)


def test_knocking_out_every_head_says_so():
    at = run_page(
        PAGE,
        {
            "section": "Knock out",
            "ko_decoder0_self_attn": ["head 1", "head 2"],
            "ko_decoder1_self_attn": ["head 1", "head 2"],
        },
    )
    assert_no_exception(at)
    assert any("Every head (4) is knocked out" in w.value for w in at.warning)


def test_mean_ablation_is_offered_and_changes_the_numbers(induction):
    model, batch = induction
    at = run_page(PAGE, {"section": "Knock out", "how": "mean", "ko_decoder0_self_attn": ["head 2"]})
    after = bars(chart_by_title(at, "Accuracy"))[1]
    expected = accuracy(model, batch, [Ablate("decoder.layers.0.self_attn", [1], "mean")])
    assert after == pytest.approx([expected], abs=1e-6)


def test_the_importance_grid_is_each_heads_knock_out_effect(induction):
    model, batch = induction
    at = run_page(PAGE, {"section": "Importance"})
    effect = grid(chart_by_title(at, "Each head knocked out alone"))
    base = accuracy(model, batch)
    for layer in range(2):
        for head in range(2):
            expected = accuracy(model, batch, [Ablate(f"decoder.layers.{layer}.self_attn", [head])]) - base
            assert effect[layer, head] == pytest.approx(expected, abs=1e-6)


def test_bad_inputs_get_messages_not_exceptions():
    at = run_page(PAGE, {"section": "Knock out", "input": "abc123"})
    assert_no_exception(at)
    assert any("reads only" in e.value for e in at.error)
    at = run_page(PAGE, {"section": "Patching", "corrupted": "abcdef"})
    assert_no_exception(at)
    assert any("same length" in e.value for e in at.error)


@pytest.mark.parametrize("section", ("Patching", "Logit lens", "Attribution"))
def test_decoder_only_sections_explain_themselves_for_other_models(section):
    pretrained = next(label for label in offered_models(("encoder-only",)) if "MiniLM" in label)
    at = run_page(PAGE, {"section": section, "model": pretrained})
    assert_no_exception(at)
    assert any("decoder-only" in i.value for i in at.info)
    reverse = shipped_label("reverse")
    at = run_page(PAGE, {"section": section, "model": reverse})
    assert_no_exception(at)
    assert any("decoder-only" in i.value for i in at.info)


def test_minilm_knock_out_changes_the_similarity():
    pretrained = next(label for label in offered_models(("encoder-only",)) if "MiniLM" in label)
    at = run_page(PAGE, {"section": "Knock out", "model": pretrained, "ko_encoder0_self_attn": ["head 1", "head 5"]})
    assert_no_exception(at)
    spec = chart_by_title(at, "The two sentences' cosine similarity")
    before, after = bars(spec)
    assert 0.0 < before[0] < 1.0 and before != after
    verb = "rises" if after[0] > before[0] else "falls"
    assert title_text(spec) == (
        f"The two sentences' cosine similarity {verb} from {before[0]:.3f} to {after[0]:.3f} with 2 heads knocked out"
    )


@pytest.mark.parametrize("pre_ln", [True, False])
def test_the_logit_lens_names_the_final_layernorm_only_where_the_model_has_one(tmp_path, pre_ln):
    from transformer import TransformerConfig, build_model, save_checkpoint

    config = TransformerConfig(d_model=16, num_heads=2, src_vocab_size=50, tgt_vocab_size=50, norm_first=pre_ln)
    model = build_model(config, kind="decoder-only")
    assert (model.decoder.norm is not None) is pre_ln
    save_checkpoint(model, tmp_path / "lens.safetensors", {})
    at = run_with_upload(PAGE, (tmp_path / "lens.safetensors").read_bytes(), "lens", {"section": "Logit lens"})
    assert_no_exception(at)
    caption = next(c.value for c in at.caption if c.value.startswith("Each row reads"))
    assert ("through the final LayerNorm and the unembedding" in caption) is pre_ln
    assert ("has no final LayerNorm" in caption) is not pre_ln


def test_a_checkpoint_without_a_task_is_measured_on_the_typed_text_or_says_what_to_pick(tmp_path):
    from transformer import TransformerConfig, build_model, save_checkpoint

    config = TransformerConfig(d_model=16, num_heads=2, src_vocab_size=50, tgt_vocab_size=50)
    save_checkpoint(build_model(config, kind="decoder-only"), tmp_path / "plain.safetensors", {})
    at = run_with_upload(PAGE, (tmp_path / "plain.safetensors").read_bytes(), "plain", {"section": "Knock out"})
    assert_no_exception(at)
    assert chart_by_title(at, "Accuracy on your text")
    save_checkpoint(build_model(config, kind="encoder-decoder"), tmp_path / "pair.safetensors", {})
    at = run_with_upload(PAGE, (tmp_path / "pair.safetensors").read_bytes(), "pair", {"section": "Knock out"})
    assert_no_exception(at)
    assert any("without a task" in i.value for i in at.info)
    assert not chart_specs(at)


def test_a_head_is_named_from_1_as_on_every_page():
    from pages.experiments.knock_out import head_label

    assert head_label(0, 1) == "layer 1 · head 2"  # the package's layer 0, head 1, as the page writes it


def test_the_other_parts_shares_read_on_the_heads_scale():
    at = run_page(PAGE, {"section": "Attribution", "text": "abcdefgabcdefg"})
    assert_no_exception(at)
    heads = np.abs(grid(chart_by_title(at, "direct share of the logit")))
    others = chart_by_title(at, "The other parts, on the heads' scale")
    reach = others["layout"]["xaxis"]["range"][1]
    assert reach >= np.nanmax(heads)  # a bar as long as the heads' largest share would fit
    values = decode_array(others["data"][0]["x"]).astype(float)
    assert reach >= values.max() * 1.3  # room for each value written past its bar
    assert others["data"][0]["cliponaxis"] is False
    # the title: the largest other part (by size) against the strongest head, from the two drawn charts
    names = others["data"][0]["y"]
    largest = int(np.argmax(np.abs(values)))
    signed = grid(chart_by_title(at, "direct share of the logit"))
    layer, head = np.unravel_index(np.nanargmax(heads), heads.shape)
    assert title_text(others) == (
        f"The other parts, on the heads' scale: the largest, {names[largest]}, {values[largest]:+.2f}, against "
        f"layer {layer + 1} · head {head + 1}'s {signed[layer, head]:+.2f}"
    )


def test_importance_shows_where_each_head_looks_and_what_it_writes_beside_its_knock_out():
    at = run_page(PAGE, {"section": "Importance"})
    assert_no_exception(at)
    table = next(df.value for df in at.dataframe if "copying (OV)" in df.value.columns)
    assert list(table["head"]) == ["layer 1 · head 1", "layer 1 · head 2", "layer 2 · head 1", "layer 2 · head 2"]
    effect = decode_array(chart_by_title(at, "Each head knocked out alone")["data"][0]["z"]).astype(float)
    np.testing.assert_allclose(table["change in accuracy"], effect.reshape(-1), atol=1e-3)
    induction = table[table["head"].str.startswith("layer 2")]
    assert (induction["prefix matching"] > 0.5).all() and (induction["copying (OV)"] > 0.9).all()  # high on both


def test_a_model_of_text_gets_copying_scores_beside_its_knock_outs_too():
    at = run_page(PAGE, {"section": "Importance", "model": shipped_label("text")})
    assert_no_exception(at)
    table = next(df.value for df in at.dataframe if "copying (OV)" in df.value.columns)
    assert table["copying (OV)"].between(-1, 1).all() and len(table) == 4


@pytest.mark.parametrize("how", ("zero", "mean"))
def test_a_knock_out_says_what_its_kind_of_ablation_cannot_show(how):
    at = run_page(PAGE, {"section": "Knock out", "how": how})
    assert_no_exception(at)
    captions = " ".join(caption.value for caption in at.caption)
    assert ("off the inputs it was trained on" in captions) == (how == "zero")
    assert ("path patching" in captions) == (how == "mean")


def test_a_knock_out_title_says_rises_falls_or_stays_as_the_bars_print_the_values():
    from pages.experiments.knock_out import knock_out_finding

    assert knock_out_finding("Loss", 0.5, 0.9, 1) == "Loss rises from 0.500 to 0.900 with 1 head knocked out"
    assert knock_out_finding("Loss", 0.5, 0.1, 3) == "Loss falls from 0.500 to 0.100 with 3 heads knocked out"
    assert knock_out_finding("Loss", 0.5, 0.5001, 2) == "Loss stays 0.500 with 2 heads knocked out"
