"""The Experiments page's circuit in AppTest: the circuit lesson's claims on the drawn numbers, the circuit's maps,
patching's sentence, and a model trained in the session showing the same circuit."""

import numpy as np
import pytest
import torch

from tests.apptest_helpers import (
    assert_no_exception,
    bars,
    chart_by_title,
    chart_specs,
    decode_array,
    grid,
    run_page,
    run_with_upload,
)
from tests.test_page_experiments import CHECKPOINTS, PAGE
from transformer import load_checkpoint, make_task
from lessons.catalogue import LESSONS, Shipped
from ui.model_picker import shipped_label


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


def test_a_model_trained_in_this_session_shows_the_same_circuit(trained_here):
    """Knocking out every layer-2 head brings accuracy to near chance, and patching finds a layer-1 head
    that restores the answer."""
    at = run_with_upload(
        PAGE, trained_here, "my induction", {"section": "Knock out", "ko_decoder1_self_attn": ["head 1", "head 2"]}
    )
    assert_no_exception(at)
    before, after = bars(chart_by_title(at, "Accuracy"))
    assert before[0] > 0.95 and after[0] < 0.1
    at = run_with_upload(PAGE, trained_here, "my induction", {"section": "Patching"})
    assert_no_exception(at)
    restored = grid(chart_by_title(at, "Fraction of the logit difference restored"))
    assert restored[0].max() > 0.5


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
