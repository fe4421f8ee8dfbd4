"""The circuit lesson's and the Experiments page's sentences, on the numbers their views draw: the previous-token
head knocked out leaves accuracy far above chance; a knock-out says that, not how the induction head reads it;
patching restores at two places, and at the changed letter the answer does not come back; the induction head reads
it through its keys, not its queries; direct attribution is the direct effect only, far below what patching
restores."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import torch

from tests.apptest_helpers import assert_no_exception, chart_by_title, decode_array, run_page, title_text
from tests.lesson_views import lesson_of, open_view
from transformer import Patch, load_checkpoint, make_task
from ui.model_picker import shipped_label

PAGE = "pages/experiments/page.py"
CIRCUIT = lesson_of("circuit")
CHECKPOINT = Path(__file__).resolve().parent.parent / "checkpoints" / "induction.safetensors"


def after_bar(at) -> float:
    bars = [decode_array(t["y"]).astype(float) for t in chart_by_title(at, "Accuracy")["data"] if t["type"] == "bar"]
    return float(bars[1][0])


def test_without_the_previous_token_head_accuracy_stays_far_above_chance():
    view = CIRCUIT.views[2]
    at = open_view("circuit", 2)
    accuracy = after_bar(at)
    chance = next(c.value for c in at.caption if "would score" in c.value)
    symbols = int(re.search(r"1/(\d+) = ", chance)[1])
    assert accuracy == pytest.approx(0.64, abs=0.02) and accuracy > 10 / symbols  # "0.64 ... far above chance"
    assert "about 0.64" in view.notice and f"1/{symbols} = {1 / symbols:.2f}" in view.notice
    both = run_page(
        PAGE,
        {"model": shipped_label("induction"), "section": "Knock out", "ko_decoder0_self_attn": ["head 1", "head 2"]},
    )
    assert_no_exception(both)
    assert after_bar(both) == pytest.approx(0.12, abs=0.02) and "about 0.12" in view.answer
    alone = after_bar(open_view("circuit", 4))  # "head 1 alone costs almost nothing (a later step)"
    assert alone > 0.95 and CIRCUIT.views[4].settings["ko_decoder0_self_attn"] == ("head 1",)


def test_the_knock_out_is_said_to_show_a_dependence_not_the_keys():
    view = CIRCUIT.views[3]
    scores = open_view("circuit", 3).dataframe[0].value
    prefix = scores[scores["pattern score of head B"] == "prefix matching"].iloc[0]
    assert prefix["before"] > 0.95 and prefix["head A knocked out"] == pytest.approx(0.5, abs=0.05)
    assert "What a knock-out cannot show is how layer 2 · head 1 reads it" in view.answer
    assert "writes each token's predecessor, and the induction head matches" not in view.answer


def test_patching_the_previous_token_head_restores_at_two_places():
    view = CIRCUIT.views[5]
    at = open_view("circuit", 5)
    restored = decode_array(chart_by_title(at, "Fraction of the logit difference restored")["data"][0]["z"])
    by_position = decode_array(chart_by_title(at, "patched at one position")["data"][0]["y"]).astype(float)
    clean, corrupted = at.text_input(key="input").value, at.text_input(key="corrupted").value
    changed = next(i for i, (a, b) in enumerate(zip(clean, corrupted)) if a != b)
    assert float(restored[0, 1]) == pytest.approx(0.91, abs=0.02) and "about 0.91" in view.notice
    assert by_position[changed + 1] == pytest.approx(0.94, abs=0.02) and "about 0.94" in view.notice
    assert by_position[changed] == pytest.approx(0.25, abs=0.02) and "about 0.25" in view.notice
    elsewhere = np.delete(by_position, [changed, changed + 1])
    assert np.abs(elsewhere).max() < 0.02  # "nearly nothing anywhere else"
    assert "each of those two places" in view.question and "all happens at one place" not in view.notice
    assert "(0.94: the model predicts x again)" in view.answer and "The 0.25 is" in view.answer  # both places
    # what the model predicts, patched at each place: the caption under the bars, against the lesson's answer
    note = next(c.value for c in at.caption if "alone, the model predicts" in c.value)
    said = re.findall(r"\(“(\w)”(?:, “(\w)” in the corrupted input)?\) alone, the model predicts \*\*(\w)\*\*", note)
    assert said == [(clean[changed + 1], "", "x"), (clean[changed], corrupted[changed], corrupted[changed])]
    moves = re.findall(r"z\(x\) (-?\d+\.\d+) → (-?\d+\.\d+), z\(h\) (-?\d+\.\d+) → (-?\d+\.\d+)", note)
    at_changed = [float(z) for z in moves[1]]
    assert at_changed == pytest.approx([0.65, 0.19, 6.46, 1.45], abs=0.006)
    assert "about 0.65 → 0.19" in view.answer and "about 6.46 → 1.45" in view.answer
    assert "not because x comes back" in note and f"place: {corrupted[changed]}" in view.answer
    # "it puts part of its weight on that letter itself": layer 1 · head 2's row at the changed letter
    model, _ = load_checkpoint(CHECKPOINT)
    task = make_task("induction")
    with torch.inference_mode():
        for text in (clean, corrupted):
            weights = model(torch.tensor([task.encode_user_input(text)]), return_attention=True).attention.weights
            row = weights["decoder.layers.0.self_attn"][0, 1, changed]
            assert 0.1 < float(row[changed]) < 0.5 and int(row.argmax()) == changed - 1
    # "the induction heads now find an n there, attend to it": at the answer position (the second n), each layer-2
    # head's weight on the changed place, corrupted and then with layer 1 · head 2 patched there alone
    clean_ids, corrupted_ids = (torch.tensor([task.encode_user_input(t)]) for t in (clean, corrupted))
    answer_at = clean.index(clean[changed], changed + 1)
    with torch.inference_mode():
        source = model(clean_ids, return_internals=True).attention
        patch = Patch("decoder.layers.0.self_attn", [1], source, positions=[changed])
        before, after = (
            model(corrupted_ids, return_attention=True, interventions=patches).attention.weights[
                "decoder.layers.1.self_attn"
            ][0, :, answer_at, changed]
            for patches in ([], [patch])
        )
    assert (before < 0.5).all() and (after > 0.8).all()


def test_the_induction_head_reads_the_corruption_through_its_keys_not_its_queries():
    view = CIRCUIT.views[6]
    at = open_view("circuit", 6)
    assert at.segmented_control(key="patch_part").value == "keys"
    keys = decode_array(chart_by_title(at, "restored by patching one clean head's keys")["data"][0]["z"]).astype(float)
    by_key = decode_array(chart_by_title(at, "layer 2 · head 2's keys: patched at one key position")["data"][0]["y"])
    parts_spec = chart_by_title(at, "layer 2 · head 2: each part patched alone")["data"][0]
    parts = dict(zip(parts_spec["y"], decode_array(parts_spec["x"]).astype(float)))
    clean, corrupted = at.text_input(key="input").value, at.text_input(key="corrupted").value
    changed = next(i for i, (a, b) in enumerate(zip(clean, corrupted)) if a != b)
    assert keys[1, 1] == pytest.approx(0.74, abs=0.02) and "layer 2 · head 2 alone restore about 0.74" in view.notice
    assert keys[1, 0] == pytest.approx(0.59, abs=0.02) and "layer 2 · head 1 about 0.59" in view.notice
    assert parts["keys"] == pytest.approx(keys[1, 1], abs=1e-6)  # the same number, two charts
    assert abs(parts["queries"]) < 0.005 and "its queries about 0.00" in view.answer
    assert parts["values"] == pytest.approx(-0.03, abs=0.01) and "values about -0.03" in view.answer
    assert view.ask.options[view.ask.right] == "Its keys" and parts["keys"] > 0.5 > 10 * abs(parts["queries"])
    # "restore all of that at one key: the letter right after the changed one"
    assert int(np.argmax(by_key)) == changed + 1 and by_key[changed + 1] == pytest.approx(keys[1, 1], abs=0.01)
    # the two bar charts' titles say the same, from their bars
    bars_title = title_text(chart_by_title(at, "layer 2 · head 2's keys: patched at one key position"))
    assert bars_title.endswith(
        f", key position {changed + 2} (“{clean[changed + 1]}”) restores the most, {by_key.max():.2f}"
    )
    said = title_text(chart_by_title(at, "layer 2 · head 2: each part patched alone"))
    assert said.endswith(f", the keys ({parts['keys']:.2f}) restore the most")
    caption = next(c.value for c in at.caption if c.value.startswith("Patched from the clean run"))
    assert f"its keys {parts['keys']:.2f}" in caption and "mostly through its keys" in caption
    # "layer 1 · head 2 attends from that letter to the changed one", in both runs
    model, _ = load_checkpoint(CHECKPOINT)
    task = make_task("induction")
    with torch.inference_mode():
        for text in (clean, corrupted):
            weights = model(torch.tensor([task.encode_user_input(text)]), return_attention=True).attention.weights
            assert int(weights["decoder.layers.0.self_attn"][0, 1, changed + 1].argmax()) == changed


def direct_part_by_hand(at, layer: int, head: int) -> float:
    """What the head's own writing brings of the logit difference patching restores, by the formula: its output
    at the answer position through W_O, the final LayerNorm with its scale as in each run (the model is pre-LN,
    so nothing else normalises it) and the unembedding of answer − foil; clean minus corrupted, over LD's change."""
    model, _ = load_checkpoint(CHECKPOINT)
    task = make_task("induction")
    clean, corrupted = at.text_input(key="input").value, corrupted_text(at)
    position = first_repeat(clean)
    d_head = model.config.d_head
    w_o = model.decoder.layers[layer].self_attn.w_o.weight[:, head * d_head : (head + 1) * d_head]
    norm, unembed = model.decoder.norm, model.generator.weight
    runs = []
    with torch.inference_mode():
        for text in (clean, corrupted):
            out = model(torch.tensor([task.encode_user_input(text)]), return_internals=True)
            internals = out.attention.internals
            write = internals[f"decoder.layers.{layer}.self_attn.heads"][0, head, position] @ w_o.T
            stream = internals[f"decoder.layers.{len(model.decoder.layers) - 1}.after_feed_forward"][0, position]
            scale = torch.sqrt(stream.var(unbiased=False) + norm.eps)
            runs.append((norm.weight * (write - write.mean()) / scale, out.logits[0, position]))
        answer = int(runs[0][1].argmax())
        ranked = runs[1][1].argsort(descending=True).tolist()
        foil = ranked[0] if ranked[0] != answer else ranked[1]
        direction = unembed[answer] - unembed[foil]
        effect = [float(ln @ direction) for ln, _ in runs]
        difference = [float(logits[answer] - logits[foil]) for _, logits in runs]
    return (effect[0] - effect[1]) / (difference[0] - difference[1])


def corrupted_text(at) -> str:
    """The Patching section's default corruption, as the Attribution section's caption quotes it."""
    units = next(c.value for c in at.caption if c.value.startswith("The direct share is in the logit's own units"))
    return re.search(r"corrupted input “(\w+)”", units)[1]


def first_repeat(text: str) -> int:
    return next(i for i, c in enumerate(text) if c in text[:i])


def test_direct_attribution_is_the_direct_effect_and_patching_shows_the_rest():
    view = CIRCUIT.views[7]
    at = open_view("circuit", 7)
    direct = decode_array(chart_by_title(at, "direct share of the logit")["data"][0]["z"]).astype(float)
    note = next(c.value for c in at.caption if c.value.startswith("Direct effects only"))
    logit = float(re.search(r"the model's logit is (-?\d+\.\d+)", note)[1])
    table = at.dataframe[0].value
    row = table[table["head"] == "layer 1 · head 2"].iloc[0]
    patched = run_page(PAGE, {"model": shipped_label("induction"), "section": "Patching"})
    restored = decode_array(chart_by_title(patched, "Fraction of the logit difference restored")["data"][0]["z"])
    assert direct[0, 1] == pytest.approx(0.21, abs=0.01) and logit == pytest.approx(10.4, abs=0.05)
    assert row["direct share of the logit"] == pytest.approx(direct[0, 1], abs=0.006)
    units = next(c.value for c in at.caption if c.value.startswith("The direct share is in the logit's own units"))
    assert f"(the logit is {logit:.2f})" in units and "fraction of the logit difference" in units
    assert row["patching restores"] == pytest.approx(float(restored[0, 1]), abs=0.006)  # the Patching section's
    assert float(restored[0, 1]) == pytest.approx(0.91, abs=0.02)
    assert "about 0.21" in view.notice and "about 10.4" in view.notice and "about 0.91" in view.notice
    assert row["of which directly"] == pytest.approx(direct_part_by_hand(at, layer=0, head=1), abs=0.006)
    assert f"about {row['of which directly']:.2f} directly".replace("-", "−") in view.notice
    gap = next(c.value for c in at.caption if c.value.startswith("Layer 1 · head 2: patching it restores"))
    assert (
        f"restores {row['patching restores']:.2f} of the difference, {row['of which directly']:.2f} of it directly; "
        f"the other {row['patching restores'] - row['of which directly']:.2f} reaches the answer" in gap
    )


def test_the_first_steps_numbers_are_the_drawn_ones():
    """ "both score above 0.9 on prefix matching"; accuracy "from 1.00 to about 0.02", loss "from 0.00 to about 4";
    layer 1 · head 1 alone "stays at about 0.98"."""
    table = next(df.value for df in open_view("circuit", 0).dataframe if "prefix matching" in df.value.columns)
    layer_2 = table[table["head"].str.startswith("layer 2")]["prefix matching"]
    assert len(layer_2) == 2 and (layer_2 > 0.9).all() and "both score above 0.9" in CIRCUIT.views[0].answer
    at = open_view("circuit", 1)
    accuracy = [
        decode_array(t["y"]).astype(float)[0] for t in chart_by_title(at, "Accuracy")["data"] if t["type"] == "bar"
    ]
    loss = [decode_array(t["y"]).astype(float)[0] for t in chart_by_title(at, "Loss")["data"] if t["type"] == "bar"]
    assert f"{accuracy[0]:.2f}" == "1.00" and accuracy[1] == pytest.approx(0.02, abs=0.01)
    assert f"{loss[0]:.2f}" == "0.00" and loss[1] == pytest.approx(4, abs=0.5)
    assert "from 1.00 to about 0.02" in CIRCUIT.views[1].notice and "from 0.00 to about 4" in CIRCUIT.views[1].notice
    assert after_bar(open_view("circuit", 4)) == pytest.approx(0.98, abs=0.01)
    assert "stays at about 0.98" in CIRCUIT.views[4].notice


def test_the_patched_prediction_note_says_which_logit_moved():
    """The note's two cases on numbers set by hand: the foil falling while the answer stays low, and the answer
    rising without overtaking another token."""
    from analysis.patching import Prediction
    from pages.experiments.reading import patched_predictions_note

    names = {0: "a", 1: "b", 2: "c"}
    symbols = lambda ids: [names[i] for i in ids]  # noqa: E731
    before = Prediction(top=1, answer_logit=1.0, foil_logit=5.0)
    foil_falls = {1: Prediction(top=2, answer_logit=0.5, foil_logit=2.0)}
    note = patched_predictions_note(before, foil_falls, ("a", "b"), [0, 2], symbols, 0, 1, "position")
    assert note == (
        "Patched at position 2 (“b”, “c” in the corrupted input) alone, the model predicts **c**, not a "
        "(z(a) 1.00 → 0.50, z(b) 5.00 → 2.00): the difference narrows mostly because z(b) falls, not because a "
        "comes back."
    )
    answer_rises = {0: Prediction(top=2, answer_logit=4.0, foil_logit=4.5)}
    note = patched_predictions_note(before, answer_rises, ("a", "b"), [0, 1], symbols, 0, 1, "key position")
    assert note.endswith("(z(a) 1.00 → 4.00, z(b) 5.00 → 4.50): z(a) rises, but not above z(c).")
    assert note.startswith("Patched at key position 1 (“a”) alone, the model predicts **c**, not a")
    back = {0: Prediction(top=0, answer_logit=9.0, foil_logit=1.0)}
    note = patched_predictions_note(before, back, ("a", "b"), [0, 1], symbols, 0, 1, "position")
    assert (
        note
        == "Patched at position 1 (“a”) alone, the model predicts **a**, the clean answer (z(a) 1.00 → 9.00, z(b) 5.00 → 1.00)."
    )


@pytest.mark.parametrize("model", ["sort", "copy"])
def test_the_head_named_as_working_through_later_parts_is_read_from_the_table(model):
    """On other models than the lesson's: the caption names a head only when patching it restores at least 0.2
    more than its own writing brings, and says every effect is mostly direct otherwise."""
    at = run_page(PAGE, {"model": shipped_label(model), "section": "Attribution"})
    assert_no_exception(at)
    tables = [df.value for df in at.dataframe if "of which directly" in df.value.columns]
    if not tables:  # no position where the corruption moves the logit difference: the caption says why
        assert any(c.value.startswith("Not compared with patching here") for c in at.caption)
        return
    table = tables[0]
    beyond = table["patching restores"] - table["of which directly"]
    widest = table.iloc[int(beyond.argmax())]
    if beyond.max() >= 0.2 + 0.01:  # the table shows two decimals
        note = next(
            c.value for c in at.caption if "reaches the answer through the parts of the model after it" in c.value
        )
        assert note.startswith(f"{widest['head'].capitalize()}: patching it restores")
    elif beyond.max() < 0.2 - 0.01:
        assert any(c.value.startswith("Here every head's effect is mostly direct") for c in at.caption)


def test_the_circuit_opens_on_a_pair_where_b_reads_a_and_says_so_when_it_cannot():
    at = run_page(PAGE, {"model": "all-MiniLM-L6-v2 (pretrained, encoder-only (BERT-style))", "section": "Circuit"})
    assert_no_exception(at)
    assert at.selectbox(key="head_a").value == "layer 1 · head 1"
    assert at.selectbox(key="head_b").value == "layer 2 · head 1"  # the first head of a later layer
    moved = next(c.value for c in at.caption if c.value.startswith("On average each row of head B moves"))
    assert float(re.search(r"moves (\d\.\d\d)", moved)[1]) > 0  # it can read A, and A's knock-out moves it
    pair = {"head_a": "layer 2 · head 1", "head_b": "layer 1 · head 2"}
    at = run_page(PAGE, {"model": shipped_label("induction"), "section": "Circuit", **pair})
    assert_no_exception(at)
    assert any(i.value.startswith("Head B (layer 1 · head 2) cannot read head A (layer 2 · head 1)") for i in at.info)
    assert not any("The largest change" in c.value for c in at.caption)
