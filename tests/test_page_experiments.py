"""The Experiments page in AppTest: every section, what its charts draw, bad input, and the circuit lesson."""

from pathlib import Path

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from tests.apptest_helpers import (
    APP,
    TIMEOUT,
    assert_no_exception,
    chart_by_title,
    chart_specs,
    decode_array,
    run_page,
    title_text,
)
from transformer import Ablate, load_checkpoint, make_task
from ui.lesson_catalogue import LESSONS, Shipped
from ui.model_picker import offered_models, shipped_label

PAGE = "pages/experiments/page.py"
SECTIONS = ("Knock out", "Importance", "Circuit", "Patching", "Logit lens", "Attribution", "Build a head")
CHECKPOINTS = Path(__file__).resolve().parent.parent / "checkpoints"


def bars(spec: dict) -> list[list[float]]:
    """The y values of each bar trace (before, after) of a chart."""
    return [decode_array(trace["y"]).astype(float).tolist() for trace in spec["data"] if trace["type"] == "bar"]


def grid(spec: dict) -> np.ndarray:
    return decode_array(spec["data"][0]["z"]).astype(float)


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


def circuit_view(step: int):
    lesson = next(lesson for lesson in LESSONS if lesson.id == "circuit")
    view = lesson.views[step]
    query = {
        key: shipped_label(value.name)
        if isinstance(value, Shipped)
        else (list(value) if isinstance(value, tuple) else value)
        for key, value in view.settings.items()
    }
    return run_page(PAGE, query)


def test_the_circuit_lesson_claims_hold_on_the_drawn_numbers():
    importance = grid(chart_by_title(circuit_view(0), "Each head knocked out alone"))
    assert np.argmin(importance) == 1 and importance[0, 1] < -0.3  # layer 1 · head 2 costs most
    assert (importance[1] < -0.02).all() and importance[0, 0] > -0.05
    both = bars(chart_by_title(circuit_view(1), "Accuracy"))
    assert both[0][0] > 0.99 and both[1][0] < 0.05
    loss = bars(chart_by_title(circuit_view(1), "Loss"))
    assert loss[0][0] < 0.05 and 3.0 < loss[1][0] < 6.0
    previous = bars(chart_by_title(circuit_view(2), "Accuracy"))[1][0]
    assert 0.45 < previous < 0.75
    at = circuit_view(3)
    scores = at.dataframe[0].value
    prefix = scores[scores["pattern score of head B"] == "prefix matching"].iloc[0]
    assert prefix["before"] > 0.95 and prefix["head A knocked out"] < 0.6
    other = bars(chart_by_title(circuit_view(4), "Accuracy"))[1][0]
    assert other > 0.95
    at = circuit_view(5)
    patching = chart_by_title(at, "Fraction of the logit difference restored")
    restored = grid(patching)
    assert restored[0, 1] > 0.8 and restored[0, 1] == restored.max()
    # the title names the head that restores the most, with the fraction its cell prints
    assert patching["layout"]["title"]["text"].endswith(f"layer 1 · head 2 restores the most, {restored[0, 1]:.2f}")
    by_position = decode_array(chart_by_title(at, "patched at one position")["data"][0]["y"])
    tokens = at.text_input(key="input").value
    changed = next(i for i, (a, b) in enumerate(zip(tokens, at.text_input(key="corrupted").value)) if a != b)
    assert int(np.argmax(by_position)) == changed + 1 and by_position.max() > 0.8


def patching_sentence(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("At position"))


def test_patching_says_which_answer_the_corrupted_run_predicts_and_refuses_a_change_too_small():
    """On the default input (``qphnxodajf…``, its 4th letter changed): at position 12 the corrupted run predicts
    another letter than the clean one, at position 8 the same one with a smaller margin, and at position 14 the
    corruption moves the logit difference by less than a logit, which no fraction can be read from."""
    model, _ = load_checkpoint(CHECKPOINTS / "induction.safetensors")
    task = make_task("induction")
    for position, still in ((12, False), (8, True)):
        at = run_page(PAGE, {"section": "Patching", "position": str(position)})
        assert_no_exception(at)
        clean, corrupted = (task.encode_user_input(at.text_input(key=key).value) for key in ("input", "corrupted"))
        with torch.inference_mode():
            answer, predicted = (
                int(model(torch.tensor([ids])).logits[0, position - 1].argmax()) for ids in (clean, corrupted)
            )
        assert (predicted == answer) is still
        symbol = task.symbols([answer])[0]
        expected = (
            f"the corrupted one still **{symbol}**"
            if still
            else f"the corrupted one **{task.symbols([predicted])[0]}**"
        )
        assert expected in patching_sentence(at)
        restored = grid(chart_by_title(at, "Fraction of the logit difference restored"))
        assert (np.abs(restored) <= 1.05).all()
    at = run_page(PAGE, {"section": "Patching", "position": "14"})
    assert_no_exception(at)
    assert "less than 1" in at.error[0].value and not chart_specs(at)


@pytest.fixture(scope="module")
def trained_here():
    """An induction model trained as the Train page trains it, until it meets its target, as file bytes."""
    from transformer import Trainer, default_setup

    trainer = Trainer(default_setup("induction"))
    while not trainer.done:
        trainer.train(20)
    assert trainer.task.reached(trainer.history[-1])
    return trainer.checkpoint_bytes("my induction")


def run_with_upload(data: bytes, name: str, query: dict):
    """The page with ``data`` among this session's checkpoints (as the Train page's "use it" or an upload
    puts it there) and picked in the model picker."""
    import hashlib

    from streamlit.testing.v1 import AppTest

    from tests.apptest_helpers import APP, TIMEOUT
    from transformer import checkpoint_info
    from transformer.spec import ModelSpec
    from ui.model_picker import picker_label
    from ui.models import UPLOADS, CheckpointEntry

    digest = hashlib.sha256(data).hexdigest()
    info = checkpoint_info(data)
    entry = CheckpointEntry(ModelSpec.checkpoint(digest, name), info["kind"], info)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state[UPLOADS] = {digest: (data, entry)}
    at.run()
    at.switch_page(PAGE)
    for key, value in {"model": picker_label(entry), **query}.items():
        at.query_params[key] = value
    at.run()
    assert at.selectbox(key="model").value == picker_label(entry)
    return at


def test_a_model_trained_in_this_session_shows_the_same_circuit(trained_here):
    """Knocking out every layer-2 head brings accuracy to near chance, and patching finds a layer-1 head
    that restores the answer."""
    at = run_with_upload(
        trained_here, "my induction", {"section": "Knock out", "ko_decoder1_self_attn": ["head 1", "head 2"]}
    )
    assert_no_exception(at)
    before, after = bars(chart_by_title(at, "Accuracy"))
    assert before[0] > 0.95 and after[0] < 0.1
    at = run_with_upload(trained_here, "my induction", {"section": "Patching"})
    assert_no_exception(at)
    restored = grid(chart_by_title(at, "Fraction of the logit difference restored"))
    assert restored[0].max() > 0.5


@pytest.mark.parametrize("pre_ln", [True, False])
def test_the_logit_lens_names_the_final_layernorm_only_where_the_model_has_one(tmp_path, pre_ln):
    from transformer import TransformerConfig, build_model, save_checkpoint

    config = TransformerConfig(d_model=16, num_heads=2, src_vocab_size=50, tgt_vocab_size=50, norm_first=pre_ln)
    model = build_model(config, kind="decoder-only")
    assert (model.decoder.norm is not None) is pre_ln
    save_checkpoint(model, tmp_path / "lens.safetensors", {})
    at = run_with_upload((tmp_path / "lens.safetensors").read_bytes(), "lens", {"section": "Logit lens"})
    assert_no_exception(at)
    caption = next(c.value for c in at.caption if c.value.startswith("Each row reads"))
    assert ("through the final LayerNorm and the unembedding" in caption) is pre_ln
    assert ("has no final LayerNorm" in caption) is not pre_ln


def test_a_checkpoint_without_a_task_is_measured_on_the_typed_text_or_says_what_to_pick(tmp_path):
    from transformer import TransformerConfig, build_model, save_checkpoint

    config = TransformerConfig(d_model=16, num_heads=2, src_vocab_size=50, tgt_vocab_size=50)
    save_checkpoint(build_model(config, kind="decoder-only"), tmp_path / "plain.safetensors", {})
    at = run_with_upload((tmp_path / "plain.safetensors").read_bytes(), "plain", {"section": "Knock out"})
    assert_no_exception(at)
    assert chart_by_title(at, "Accuracy on your text")
    save_checkpoint(build_model(config, kind="encoder-decoder"), tmp_path / "pair.safetensors", {})
    at = run_with_upload((tmp_path / "pair.safetensors").read_bytes(), "pair", {"section": "Knock out"})
    assert_no_exception(at)
    assert any("without a task" in i.value for i in at.info)
    assert not chart_specs(at)


def test_a_head_is_named_from_1_as_on_every_page():
    from pages.experiments.knock_out import head_label

    assert head_label(0, 1) == "layer 1 · head 2"  # the package's layer 0, head 1, as the page writes it


def test_the_circuit_draws_one_map_at_a_time_and_says_where_the_difference_is_largest():
    """With, without and difference, each alone: the difference map is the with map minus the without map,
    the masked cells are drawn masked, and the caption names the cell of the largest change with its value."""
    query = {"section": "Circuit", "text": "abcdefgabcdefg"}
    maps = {}
    for shown in ("with head A", "without head A", "difference"):
        at = run_page(PAGE, {**query, "circuit_map": shown})
        assert_no_exception(at)
        specs = chart_specs(at)
        assert len(specs) == 1
        maps[shown] = decode_array(specs[0]["data"][0]["z"]).astype(float)
        assert len(specs[0]["data"]) == 2  # the masked cells' grey overlay (a causal model)
        if shown == "difference":
            caption = next(c.value for c in at.caption if "The largest change" in c.value)
    np.testing.assert_allclose(maps["difference"], maps["with head A"] - maps["without head A"], atol=1e-6)
    q, k = np.unravel_index(np.nanargmax(np.abs(maps["difference"])), maps["difference"].shape)
    assert f"(position {q + 1}) to key" in caption and f"(position {k + 1}), {maps['difference'][q, k]:+.2f}" in caption


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


def test_the_circuit_side_by_side_is_two_maps_under_the_score_the_knock_out_moves():
    """Side by side: head B with and without head A, two maps, and the title states the task's pattern score of B
    on the batch before and after the knock-out, as the table below gives it (the scores themselves are checked
    against the lesson's claims in tests/test_claims_circuit.py); its caption names no colour the maps lack."""
    import re

    at = run_page(PAGE, {"section": "Circuit"})
    assert_no_exception(at)
    spec = next(spec for spec in chart_specs(at) if "with and without" in spec["layout"]["title"]["text"])
    maps = [trace for trace in spec["data"] if trace["type"] == "heatmap" and trace.get("name") != "masked"]
    assert len(maps) == 2
    name, before, after = re.search(
        r"on the task's batch its (.+) score (\d\.\d\d) → (\d\.\d\d)$", spec["layout"]["title"]["text"]
    ).groups()
    table = at.dataframe[0].value.set_index("pattern score of head B")
    assert float(before) == pytest.approx(table.loc[name, "before"], abs=0.0051)
    assert float(after) == pytest.approx(table.loc[name, "head A knocked out"], abs=0.0051)
    caption = next(c.value for c in at.caption if "The largest change" in c.value)
    assert "red" not in caption and "blue" not in caption


def test_a_knock_out_title_says_rises_falls_or_stays_as_the_bars_print_the_values():
    from pages.experiments.knock_out import knock_out_finding

    assert knock_out_finding("Loss", 0.5, 0.9, 1) == "Loss rises from 0.500 to 0.900 with 1 head knocked out"
    assert knock_out_finding("Loss", 0.5, 0.1, 3) == "Loss falls from 0.500 to 0.100 with 3 heads knocked out"
    assert knock_out_finding("Loss", 0.5, 0.5001, 2) == "Loss stays 0.500 with 2 heads knocked out"
