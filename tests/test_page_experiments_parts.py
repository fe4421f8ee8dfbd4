"""The Experiments page's resample ablation and its patching of one part of a head (queries, keys, values): what
its charts draw against the model run here with the package's interventions."""

from pathlib import Path

import numpy as np
import pytest
import torch

from tests.apptest_helpers import assert_no_exception, chart_by_title, decode_array, run_page
from transformer import Ablate, Patch, load_checkpoint, make_task
from ui.model_picker import offered_models, shipped_label

PAGE = "pages/experiments/page.py"
CHECKPOINTS = Path(__file__).resolve().parent.parent / "checkpoints"
LAYER1, LAYER2 = "decoder.layers.0.self_attn", "decoder.layers.1.self_attn"


@pytest.fixture(scope="module")
def induction():
    model, _ = load_checkpoint(CHECKPOINTS / "induction.safetensors")
    return model, make_task("induction")


def examples(task, seed: int):
    return task.batch(64, torch.Generator().manual_seed(seed), "val")


def accuracy(model, batch, interventions=()) -> float:
    with torch.inference_mode():
        predicted = model(batch.inputs, interventions=interventions).logits.argmax(-1)
    return float((predicted[batch.loss_mask] == batch.targets[batch.loss_mask]).float().mean())


def after_bar(at, title: str) -> float:
    spec = chart_by_title(at, title)
    return float(decode_array([t for t in spec["data"] if t["type"] == "bar"][1]["y"])[0])


def test_resample_ablation_takes_the_heads_output_from_the_examples_of_the_seed_shown(induction):
    model, task = induction
    at = run_page(
        PAGE, {"section": "Knock out", "how": "resample", "resample_seed": "7", "ko_decoder0_self_attn": ["head 2"]}
    )
    assert_no_exception(at)
    assert at.number_input(key="resample_seed").value == 7
    with torch.inference_mode():  # every induction example has 32 tokens: seed 7's first batch is the one drawn
        other = model(examples(task, 7).inputs, return_internals=True).attention
    expected = accuracy(model, examples(task, 0), [Ablate(LAYER1, [1], "resample", other)])
    assert after_bar(at, "Accuracy") == pytest.approx(expected, abs=1e-6)
    zero = accuracy(model, examples(task, 0), [Ablate(LAYER1, [1])])
    assert abs(expected - zero) > 0.05  # another experiment than zeros
    captions = " ".join(c.value for c in at.caption)
    assert "drawn with resample seed 7" in captions and "mislead" in captions


def test_the_resample_seed_of_the_batch_itself_is_said_to_change_nothing():
    at = run_page(
        PAGE,
        {
            "section": "Knock out",
            "how": "resample",
            "resample_seed": "0",
            "ko_decoder1_self_attn": ["head 1", "head 2"],
        },
    )
    assert_no_exception(at)
    assert any("changes nothing" in w.value for w in at.warning)
    spec = chart_by_title(at, "Accuracy")
    before, after = (float(decode_array(t["y"])[0]) for t in spec["data"] if t["type"] == "bar")
    assert before == after


def test_the_importance_grid_under_resample_is_each_heads_resampled_effect(induction):
    model, task = induction
    at = run_page(PAGE, {"section": "Importance", "how": "resample"})
    assert_no_exception(at)
    effect = decode_array(chart_by_title(at, "Each head knocked out alone")["data"][0]["z"]).astype(float)
    with torch.inference_mode():
        other = model(examples(task, 1).inputs, return_internals=True).attention  # the default resample seed, 1
    batch = examples(task, 0)
    for layer, name in enumerate((LAYER1, LAYER2)):
        for head in range(2):
            expected = accuracy(model, batch, [Patch(name, [head], other)]) - accuracy(model, batch)
            assert effect[layer, head] == pytest.approx(expected, abs=1e-6)


def test_resample_is_offered_only_for_a_model_with_a_task_to_draw_from():
    pretrained = next(label for label in offered_models(("encoder-only",)) if "MiniLM" in label)
    at = run_page(PAGE, {"section": "Knock out", "model": pretrained})
    assert_no_exception(at)
    assert list(at.segmented_control(key="how").options) == ["zero", "mean"]
    at = run_page(
        PAGE,
        {
            "section": "Knock out",
            "model": shipped_label("copy"),
            "how": "resample",
            "input": "ab",
            "ko_decoder0_self_attn": ["head 1"],
        },
    )
    assert_no_exception(at)  # copy strings have 4 to 10 letters
    assert any("no example laid out like this input" in i.value for i in at.info)


@pytest.mark.parametrize("part, label", (("q", "queries"), ("v", "values")))
def test_the_patching_grid_and_bars_draw_what_patching_that_part_restores(induction, part, label):
    model, task = induction
    at = run_page(PAGE, {"section": "Patching", "patch_part": label, "patch_head": "layer 1 · head 2"})
    assert_no_exception(at)
    drawn = decode_array(chart_by_title(at, f"one clean head's {label}")["data"][0]["z"]).astype(float)
    clean, corrupted = (task.encode_user_input(at.text_input(key=key).value) for key in ("input", "corrupted"))
    position = 11  # the default answer position: the first repeat
    with torch.inference_mode():
        source = model(torch.tensor([clean]), return_internals=True).attention
        z_clean, z_corrupt = (model(torch.tensor([ids])).logits[0, position] for ids in (clean, corrupted))
        answer = int(z_clean.argmax())
        ranked = z_corrupt.argsort(descending=True).tolist()
        foil = ranked[0] if ranked[0] != answer else ranked[1]

        def restored(interventions) -> float:
            z = model(torch.tensor([corrupted]), interventions=interventions).logits[0, position]

            def diff(logits) -> float:
                return float(logits[answer] - logits[foil])

            return (diff(z) - diff(z_corrupt)) / (diff(z_clean) - diff(z_corrupt))

        for layer, name in enumerate((LAYER1, LAYER2)):
            for head in range(2):
                assert drawn[layer, head] == pytest.approx(restored([Patch(name, [head], source, part=part)]), abs=1e-5)
        parts = chart_by_title(at, "layer 1 · head 2: each part patched alone")["data"][0]
        values = dict(zip(parts["y"], decode_array(parts["x"]).astype(float)))
        for shown, name in (("whole output", "output"), ("queries", "q"), ("keys", "k"), ("values", "v")):
            assert values[shown] == pytest.approx(restored([Patch(LAYER1, [1], source, part=name)]), abs=1e-5)
    caption = next(c.value for c in at.caption if c.value.startswith("Patched from the clean run"))
    best = max(("queries", "keys", "values"), key=values.get)
    assert f"mostly through its {best} ({values[best]:.2f}" in caption  # the previous-token head: its values
    assert best == "values" and np.isclose(values["values"], drawn[0, 1] if part == "v" else values["values"])


def test_on_a_phone_the_logit_lens_wraps_its_positions_into_rows_whose_cells_hold_their_guesses():
    from viz.experiments import lens_figure, lens_rows

    letters = [chr(ord("a") + i % 26) for i in range(32)]
    guesses = [letters] * 3
    # a letter's cell: 0.6 * 14 + 8 = 16.4 px, 15 of them in a phone's 250 px: 3 rows, 32 positions shared out
    assert lens_rows(32, guesses) == [(0, 11), (11, 22), (22, 32)]
    probabilities = np.full((3, 32), 0.5, np.float32)
    stages = ["embeddings", "layer 1", "layer 2"]
    wide = lens_figure(probabilities, guesses, letters, stages, "lens")
    # a wide screen: one row, as before; each cell's guess written on it (viz.cell_text)
    assert [trace.type for trace in wide.data] == ["heatmap", "scatter"] and list(wide.data[1].text) == letters * 3
    phone = lens_figure(probabilities, guesses, letters, stages, "lens", narrow=True)
    heatmaps, written = phone.data[:3], phone.data[3:]
    assert [len(trace.x) for trace in heatmaps] == [11, 11, 10]
    assert all(trace.type == "heatmap" and trace.coloraxis == "coloraxis" for trace in heatmaps)
    assert [list(trace.text[0]) for trace in heatmaps] == [letters[:11], letters[11:22], letters[22:]]
    assert [(trace.xaxis, list(trace.text)) for trace in written] == [
        (axis, part * 3) for axis, part in zip(("x", "x2", "x3"), (letters[:11], letters[11:22], letters[22:]))
    ]
    # every row's cells as wide (the last row's range reaches past its 10 cells); its own tokens under each row
    assert [tuple(phone.layout[f"xaxis{i or ''}"].range) for i in (0, 2, 3)] == [
        (-0.5, 10.5),
        (10.5, 21.5),
        (21.5, 32.5),
    ]
    assert list(phone.layout.xaxis2.ticktext) == letters[11:22] and phone.layout.xaxis2.tickangle == 0
    assert phone.layout.height == 60 + 70 + 3 * 3 * 40 + 2 * 44


def test_the_translations_scores_before_and_after_the_knock_out_are_grey_and_the_accent_with_the_titles_numbers():
    import re

    at = run_page(PAGE, {"model": shipped_label("translation"), "xk1": ["head 1", "head 2"]})
    assert_no_exception(at)
    spec = chart_by_title(at, "Knocking out")
    intact, knocked = spec["data"]
    assert [intact["name"], knocked["name"]] == ["intact", "knocked out"]
    assert [intact["marker"]["color"], knocked["marker"]["color"]] == ["#7f7f7f", "#dc5400"]  # before, after
    before, after = (float(v) for v in re.search(r"BLEU ([\d.]+) → ([\d.]+)", spec["layout"]["title"]["text"]).groups())
    assert (
        round(float(decode_array(intact["y"])[0]), 1) == before
        and round(float(decode_array(knocked["y"])[0]), 1) == after
    )
