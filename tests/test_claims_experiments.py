"""The Experiments page's and the reading lesson's sentences, on the numbers their views draw: what the hand-made
head gives the previous token (and from which sharpness on it holds half of every row), and what still reaches
the output once every head is knocked out, by kind of knock-out."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from tests.apptest_helpers import assert_no_exception, chart_by_title, decode_array, run_page, title_text
from tests.lesson_views import lesson_of
from transformer import Ablate, load_checkpoint, make_task
from ui.model_picker import shipped_label

PAGE = "pages/experiments/page.py"
CHECKPOINT = Path(__file__).resolve().parent.parent / "checkpoints" / "induction.safetensors"
ALL_HEADS = {"ko_decoder0_self_attn": ["head 1", "head 2"], "ko_decoder1_self_attn": ["head 1", "head 2"]}


def built(query: dict) -> tuple[np.ndarray, str, str, str]:
    """The drawn map of the head you built, the caption under it, the input it was built on and the map's title."""
    at = run_page(PAGE, {"section": "Build a head", **query})
    assert_no_exception(at)
    spec = chart_by_title(at, "The head you built")
    weights = decode_array(spec["data"][0]["z"]).astype(float)
    caption = next(c.value for c in at.caption if c.value.startswith("The most-attended key agrees"))
    return weights, caption, at.text_input(key="input").value, title_text(spec)


def by_formula(beta: float, length: int) -> np.ndarray:
    """Row i's (from 1) weight on its previous token when only "k back" = 1 scores: e^β / (e^β + i − 1)."""
    rows = np.arange(2, length + 1)
    return np.exp(beta) / (np.exp(beta) + rows - 1)


@pytest.mark.parametrize("query", [{}, {"beta": "3.0"}, {"beta": "2.0", "w_same": "1.0"}])
def test_the_built_heads_caption_counts_the_previous_tokens_rows_on_the_drawn_map(query):
    weights, caption, text, title = built(query)
    length = len(text)
    assert weights.shape == (length, length)
    rows = np.arange(1, length)
    previous = weights[rows, rows - 1]
    leading = sum(all(weights[i, i - 1] > weights[i, j] for j in range(i + 1) if j != i - 1) for i in rows)
    assert (
        f"the most-attended key of {leading} of the {length - 1} rows after the first, with "
        f"{previous.min():.2f} to {previous.max():.2f} of their weight"
    ) in caption
    assert title == f"The head you built: the previous token the most-read key in {leading} of {length - 1} rows"
    threshold = math.log(length - 1)
    assert f"once β ≥ ln {length - 1} ≈ {threshold:.1f}" in caption
    if "w_same" not in query:  # "k back" alone: the drawn rows are the formula's, the previous token leads them all
        beta = float(query.get("beta", 5.0))
        np.testing.assert_allclose(previous, by_formula(beta, length), atol=1e-5)
        assert leading == length - 1
        assert (previous.min() >= 0.5) == (beta >= threshold)  # 5 is past ln 31 ≈ 3.4, 3 is not
    else:  # the same token scores too: in the repeat, the earlier copy of the token outbids the previous one
        assert leading < length - 1


def test_the_threshold_is_where_the_last_row_reaches_one_half():
    length = 32
    for beta in np.arange(0.0, 10.01, 0.5):  # the slider's stops
        assert (by_formula(beta, length).min() >= 0.5) == (beta >= math.log(length - 1))


def test_the_reading_lessons_answer_states_the_hand_made_heads_weights_and_the_trained_heads_rows():
    view = lesson_of("reading").views[2]
    weights, _, text, _ = built({})  # the default β = 5 the answer names
    rows = np.arange(1, len(text))
    assert len(text) == 32 and "this 32-token input once β ≥ ln 31 ≈ 3.4" in view.answer
    assert f"at least {weights[rows, rows - 1].min():.2f}" in view.answer
    assert "about 3 or more" not in view.answer
    model, _ = load_checkpoint(CHECKPOINT)  # "layer 1 · head 2 also puts most weight on the previous token"
    task = make_task("induction")
    with torch.inference_mode():
        record = model(torch.tensor([task.encode_user_input(text)]), return_attention=True).attention
    trained = record.weights["decoder.layers.0.self_attn"][0, 1].numpy()
    assert (trained[rows].argmax(-1) == rows - 1).all()


def logits_at(model, ids: list[int], interventions) -> torch.Tensor:
    with torch.inference_mode():
        return model(torch.tensor([ids]), interventions=interventions).logits[0]


@pytest.mark.parametrize("how", ["zero", "mean", "resample"])
def test_with_every_head_knocked_out_the_warning_says_what_still_reaches_the_output(how):
    query = {"section": "Knock out", "how": how, **ALL_HEADS, **({"resample_seed": "3"} if how == "resample" else {})}
    at = run_page(PAGE, query)
    assert_no_exception(at)
    warning = next(w.value for w in at.warning if w.value.startswith("Every head (4) is knocked out"))
    assert ("no attention sublayer passes anything on" in warning) == (how == "zero")
    assert ("its average output, one vector for every position" in warning) == (how == "mean")
    assert ("its output on other examples of the task" in warning) == (how == "resample")
    model, _ = load_checkpoint(CHECKPOINT)
    task = make_task("induction")
    ids = task.encode_user_input(at.text_input(key="input").value)
    names = [f"decoder.layers.{layer}.self_attn" for layer in range(2)]
    if how == "mean":  # each head's output before W^O: one vector at every position
        seen = []
        hooks = [
            model.get_submodule(f"{name}.w_o").register_forward_pre_hook(lambda _, args: seen.append(args[0]))
            for name in names
        ]
        logits_at(model, ids, [Ablate(name, [0, 1], "mean") for name in names])
        for hook in hooks:
            hook.remove()
        for concat in seen:
            np.testing.assert_allclose(concat[0].numpy(), concat[0, :1].expand_as(concat[0]).numpy(), atol=1e-6)
        return
    # zero or resample: a position's output depends on its own token (and position) alone, not on the others'
    unused = [i for i in task.encode_user_input("abcdefghijklmnopqrstuvwxyz") if i not in ids]
    other = list(ids)
    other[0], other[5] = unused[:2]  # two tokens changed; every other position keeps its token
    source = None
    if how == "resample":
        with torch.inference_mode():
            source = model(torch.tensor([list(reversed(ids))]), return_internals=True).attention
    interventions = [Ablate(name, [0, 1], how, source) for name in names]
    first, second = logits_at(model, ids, interventions), logits_at(model, other, interventions)
    kept = [t for t in range(len(ids)) if ids[t] == other[t]]
    assert len(kept) >= len(ids) - 2
    torch.testing.assert_close(first[kept], second[kept], atol=1e-5, rtol=1e-5)
    plain = logits_at(model, ids, []), logits_at(model, other, [])
    assert not torch.allclose(plain[0][kept], plain[1][kept], atol=1e-3)  # with the heads, the others matter


@pytest.mark.parametrize("query", [{}, {"position": "21"}, {"position": "12", "input": "abcdefgabcdefgabcdefg"}])
def test_the_attributions_shares_add_up_to_the_models_own_logit(query):
    """ "Heads h + other parts o = t; the model's logit is l ... which makes the sum exact": h and o summed from the
    drawn grid and bars, l from the model; where patching cannot be compared, the caption says why."""
    at = run_page(PAGE, {"section": "Attribution", **query})
    assert_no_exception(at)
    grid = chart_by_title(at, "direct share of the logit")
    heads = decode_array(grid["data"][0]["z"]).astype(float)
    others = decode_array(chart_by_title(at, "The other parts, on the heads' scale")["data"][0]["x"]).astype(float)
    note = next(c.value for c in at.caption if c.value.startswith("Direct effects only"))
    number = r"(-?\d+\.\d+)"
    said = re.search(rf"Heads {number} \+ other parts {number} = {number}; the model's logit is {number}", note)
    model, _ = load_checkpoint(CHECKPOINT)
    task = make_task("induction")
    ids = task.encode_user_input(at.text_input(key="input").value)
    position = int(at.select_slider(key="position").value) - 1
    with torch.inference_mode():
        logits = model(torch.tensor([ids])).logits[0, position]
    assert position == int(query.get("position", 12)) - 1
    assert said[1] == f"{heads.sum():.2f}" and said[2] == f"{others.sum():.2f}"
    assert float(said[4]) == pytest.approx(float(logits.max()), abs=0.006)
    assert heads.sum() + others.sum() == pytest.approx(float(logits.max()), abs=0.01) and said[3] == said[4]
    symbol = task.symbols([int(logits.argmax())])[0]
    assert f"logit of “{symbol}” at position {position + 1}" in grid["layout"]["title"]["text"]
    layer, head = np.unravel_index(np.argmax(np.abs(heads)), heads.shape)
    assert title_text(grid).endswith(
        f": layer {layer + 1} · head {head + 1} the largest, {heads[layer, head]:+.2f} of the logit's "
        f"{float(logits.max()):.2f}"
    )
    compared = any("patching restores" in df.value.columns for df in at.dataframe)
    missing = [c.value for c in at.caption if c.value.startswith("Not compared with patching here")]
    assert compared != bool(missing) and compared == (not query)  # the default position is the one patching reads
    if missing:
        assert f"at position {position + 1} by" in missing[0]


@pytest.mark.parametrize("query", [{}, {"input": "zyxwvutzyxwvutzyx"}])
def test_the_logit_lens_last_row_is_the_models_own_prediction(query):
    at = run_page(PAGE, {"section": "Logit lens", **query})
    assert_no_exception(at)
    guesses = chart_by_title(at, "Logit lens")["data"][0]["text"]  # [stage][position]
    model, _ = load_checkpoint(CHECKPOINT)
    task = make_task("induction")
    ids = task.encode_user_input(at.text_input(key="input").value)
    with torch.inference_mode():
        predicted = model(torch.tensor([ids])).logits[0].argmax(-1).tolist()
    assert list(guesses[-1]) == task.symbols(predicted)
    stages, positions = len(guesses), len(guesses[0])
    settled = [  # each position's first stage from which its drawn guess stays the last row's
        min(s for s in range(stages) if all(guesses[r][t] == guesses[-1][t] for r in range(s, stages)))
        for t in range(positions)
    ]
    first_half = min(s for s in range(stages) if 2 * sum(at_s <= s for at_s in settled) >= positions)
    named = ["the embeddings", *(f"layer {layer}" for layer in range(1, stages))]
    count = sum(at_s <= first_half for at_s in settled)
    if first_half < stages - 1:
        said = f"{count} of {positions} positions guess as the model does from {named[first_half]} on"
    else:  # the stage before the last, read as the model's
        same = sum(guesses[-2][t] == guesses[-1][t] for t in range(positions))
        said = f"the guesses settle only at {named[-1]}: {same} of {positions} after {named[-2]} are the model's"
    assert title_text(chart_by_title(at, "Logit lens")) == f"Logit lens: {said}"


@pytest.mark.parametrize("measure", ["accuracy", "loss"])
def test_the_largest_effect_named_is_the_drawn_grids(measure):
    at = run_page(PAGE, {"section": "Importance", "measure": measure})
    assert_no_exception(at)
    effect = decode_array(chart_by_title(at, "Each head knocked out alone")["data"][0]["z"]).astype(float)
    row, head = np.unravel_index(np.argmax(np.abs(effect)), effect.shape)
    title = title_text(chart_by_title(at, "Each head knocked out alone"))
    assert title.endswith(
        f": layer {row + 1} · head {head + 1} changes the {measure} the most ({effect[row, head]:+.3f})"
    )
    assert (row, head) == (0, 1)  # the previous-token head, by either measure


@pytest.mark.parametrize("name", ["induction", "sort"])
def test_chance_counts_the_symbols_the_measured_positions_ask_for(name):
    """Guessing evenly among n symbols scores 1/n whatever the targets are, if every target is among them: the
    letters for induction, and the end token too for sort."""
    at = run_page(PAGE, {"section": "Knock out", "model": shipped_label(name)})
    assert_no_exception(at)
    task = make_task(name)
    batch = task.batch(64, torch.Generator().manual_seed(0), "val")
    asked = set(task.symbols(batch.targets[batch.loss_mask].tolist()))
    assert len(asked) == {"induction": 26, "sort": 27}[name] and ("</s>" in asked) == (name == "sort")
    assert any(
        f"among the {len(asked)} symbols they ask for would score 1/{len(asked)} = {1 / len(asked):.3f}" in c.value
        for c in at.caption
    )


@pytest.mark.parametrize("head", ["layer 1 · head 1", "layer 1 · head 2", "layer 2 · head 2"])
def test_the_parts_sentence_compares_each_part_with_the_whole_output(head):
    """Read from the drawn bars: a whole output under 0.1 carries little; otherwise the part that brings at least
    half of it is named, or none is."""
    at = run_page(PAGE, {"model": shipped_label("copy"), "section": "Patching", "patch_head": head})
    assert_no_exception(at)
    bars = chart_by_title(at, f"{head}: each part patched alone")["data"][0]
    drawn = dict(zip(bars["y"], decode_array(bars["x"]).astype(float)))
    caption = next(c.value for c in at.caption if c.value.startswith("Patched from the clean run"))
    whole = drawn.pop("whole output")
    best = max(drawn, key=drawn.get)
    if abs(whole) < 0.1:
        assert f"Its whole output restores only {whole:.2f}" in caption.replace("-0.00", "0.00")
    elif drawn[best] >= 0.5 * whole:
        assert f"mostly through its {best} ({drawn[best]:.2f} of its whole output's {whole:.2f}" in caption
    else:
        assert caption.endswith("reaches it through its parts together.")


def test_the_resample_warning_is_about_the_batch_while_your_input_still_changes():
    query = {"section": "Knock out", "how": "resample", "resample_seed": "0", **ALL_HEADS}
    at = run_page(PAGE, query)
    assert_no_exception(at)
    warning = next(w.value for w in at.warning if w.value.startswith("The resample seed equals the batch seed"))
    assert "for the batch measured" in warning and "your own input, below, still takes" in warning


def test_importance_rows_of_an_encoder_decoder_count_layers_from_one():
    at = run_page(PAGE, {"model": shipped_label("reverse"), "section": "Importance"})
    assert_no_exception(at)
    rows = next(c.value for c in at.caption if c.value.startswith("Rows: "))
    assert "row 1 = encoder layer 1, self-attention" in rows and "decoder layer 1, cross-attention" in rows
    assert " 0" not in rows.replace("row 1", "")  # no layer 0


def test_the_built_heads_formula_counts_positions_from_one_as_its_caption_does():
    """With "first token" alone, s_ij = β w_first [j = 1]: row i (from 1) puts e^{β w} / (e^{β w} + i − 1) on
    position 1, the first column drawn, and the formula on the screen says j = 1."""
    query = {"w_same": "0.0", "w_back": "0.0", "w_first": "2.0", "beta": "1.5"}
    weights, _, text, _ = built(query)
    rows = np.arange(1, len(text) + 1)
    np.testing.assert_allclose(weights[:, 0], np.exp(3.0) / (np.exp(3.0) + rows - 1), atol=1e-5)
    at = run_page(PAGE, {"section": "Build a head", **query})
    formula = next(el.value for el in at.latex if "w_{\\text{first}}" in el.value)
    assert "[j = 1]" in formula and "i, j = 1, 2" in formula and "[j = 0]" not in formula


def test_the_logit_lens_title_names_the_first_stage_half_the_positions_hold_to():
    from pages.experiments.reading import settled_finding

    stages = ("embeddings", "layer 1", "layer 2")
    # position 3 guesses 9 after layer 1, the others guess as the model does from the embeddings on
    assert settled_finding(np.array([[1, 2, 3, 4], [1, 2, 9, 4], [1, 2, 3, 4]]), stages) == (
        "3 of 4 positions guess as the model does from the embeddings on"
    )
    # two of four settle after layer 1 (half), one more only at the end
    assert settled_finding(np.array([[0, 0, 0, 0], [1, 2, 0, 0], [1, 2, 3, 4]]), stages) == (
        "2 of 4 positions guess as the model does from layer 1 on"
    )
    assert settled_finding(np.array([[0, 0, 0, 0], [1, 0, 0, 0], [1, 2, 3, 4]]), stages) == (
        "the guesses settle only at layer 2: 1 of 4 after layer 1 are the model's"
    )


def test_an_encoder_decoders_largest_effect_is_named_by_the_row_the_grid_draws_it_in():
    at = run_page(PAGE, {"section": "Importance", "model": shipped_label("reverse")})
    assert_no_exception(at)
    effect = decode_array(chart_by_title(at, "Each head knocked out alone")["data"][0]["z"]).astype(float)
    row, head = np.unravel_index(np.argmax(np.abs(effect)), effect.shape)
    rows = next(c.value for c in at.caption if c.value.startswith("Rows: ")).removeprefix("Rows: ").split("; ")
    assert len(rows) == len(effect) == 6  # 2 encoder, 2 decoder self- and 2 cross-attention layers
    label = rows[row].removeprefix(f"row {row + 1} = ")
    assert title_text(chart_by_title(at, "Each head knocked out alone")).endswith(
        f": {label} · head {head + 1} changes the accuracy the most ({effect[row, head]:+.3f})"
    )


def test_the_matrix_you_set_says_what_a_query_seeks_as_its_entries_hold_it():
    """W_Q's title against the drawn matrix: β w_same on a token's own dimension, β w_back from position p to
    p − k, β w_first to the first position; the comparison's title gives the caption's agreement."""
    query = {"w_same": "1.0", "w_back": "1.5", "w_k": "2", "w_first": "0.5", "beta": "2.0"}
    at = run_page(PAGE, {"section": "Build a head", **query})
    assert_no_exception(at)
    spec = chart_by_title(at, "W_Q, the matrix you set")
    matrix = decode_array(spec["data"][0]["z"]).astype(float)
    vocab = len(make_task("induction").tokenizer.vocabulary) + 4
    same, back, first = matrix[0, 0], matrix[vocab + 3, vocab + 1], matrix[vocab + 1, vocab]  # position 3 -> 1, 1 -> 0
    assert (same, back, first) == pytest.approx((2.0, 3.0, 1.0))
    assert title_text(spec).endswith(
        f": a query seeks its own token ×{same:g}, the position 2 back ×{back:g}, the first position ×{first:g}"
    )
    agree = re.search(r"agrees on (\d+) % of the rows", next(c.value for c in at.caption if "agrees on" in c.value))
    compared = chart_by_title(at, "The head you built and the trained model's previous-token head")
    assert title_text(compared).endswith(f": the most-read key the same in {agree[1]} % of the rows")
