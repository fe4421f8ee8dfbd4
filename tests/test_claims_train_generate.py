"""Claims of the Train and Generate pages read against numbers computed here: greedy's one-hot draw, the text
task's perplexity target, the settings line's sequence layout per task, the variants the KV cache note names and
the models the fill-in-the-blank objective is shown on."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from analysis.decoding_cost import measure_variants
from pages.generate.costs import saved_note
from tests.apptest_helpers import assert_no_exception, chart_by_title, chart_specs, decode_array, run_page, title_text
from transformer import TransformerConfig, load_checkpoint, make_task
from ui.model_picker import shipped_entry, shipped_label

GENERATE = "pages/generate/page.py"
TRAIN = "pages/train/page.py"
CHECKPOINTS = Path(__file__).resolve().parent.parent / "checkpoints"


def plain(markdown: str) -> str:
    """A caption's text as shown: Markdown's backslash escapes dropped."""
    return re.sub(r"\\(.)", r"\1", markdown)


@pytest.fixture(scope="module")
def text_model():
    model, _ = load_checkpoint(CHECKPOINTS / "text.safetensors")
    return model, make_task("text")


# Generate / Next token: greedy against sample


def test_greedy_draws_one_bar_at_one_and_claims_no_temperature_or_cut(text_model):
    model, task = text_model
    prompt = "the model "
    # temperature, top-k and top-p set away from their defaults: greedy ignores them
    at = run_page(GENERATE, {"section": "Next token", "strategy": "greedy", "t": "0.5", "k": "3", "prompt": prompt})
    assert_no_exception(at)
    with torch.inference_mode():
        logits = model(torch.tensor([task.encode_user_input(prompt)])).logits[0, -1]
    top = int(logits.argmax())
    spec = chart_by_title(at, "Token 1")
    bars, marks = spec["data"]
    heights = decode_array(bars["x"]).astype(float)  # horizontal bars
    assert heights[0] == 1.0 and not heights[1:].any()  # one bar at 1, every other (and the rest's bar) at 0
    assert decode_array(marks["x"]).astype(float).tolist() == [1.0] + [0.0] * (len(heights) - 2)
    assert spec["layout"]["yaxis"]["ticktext"][0] == task.symbols([top])[0]
    title = spec["layout"]["title"]["text"]
    assert title == f"Token 1: greedy takes “{task.symbols([top])[0]}”, the most probable token, with probability 1"
    assert "τ" not in title and "kept" not in title
    caption = next(c.value for c in at.caption if c.value.startswith("Drawn:"))
    assert f"Drawn: “{task.symbols([top])[0]}”, the token with the largest logit" in caption
    assert "cut by top-k or top-p" not in caption and "τ = " not in caption
    assert "Temperature, top-k and top-p apply to sampling only" in caption
    assert at.code[0].value.endswith(f"▸ {task.symbols([top])[0]}")
    assert "softmax" not in bars["hovertemplate"] and "probability (greedy)" in bars["hovertemplate"]


def test_sampling_still_names_its_temperature_and_its_cut(text_model):
    model, task = text_model
    prompt = "attention "
    at = run_page(GENERATE, {"section": "Next token", "strategy": "sample", "t": "0.7", "k": "5", "prompt": prompt})
    assert_no_exception(at)
    with torch.inference_mode():
        logits = model(torch.tensor([task.encode_user_input(prompt)])).logits[0, -1].double()
    p = torch.softmax(logits / 0.7, -1).numpy()
    order = np.argsort(-p, kind="stable")
    spec = chart_by_title(at, "Token 1")
    drawn = at.code[0].value.split("▸ ")[-1]
    index = next(i for i in order[:5] if task.symbols([int(i)])[0] == drawn)
    renormalised = p[index] / p[order[:5]].sum()
    assert title_text(spec) == (
        f"Token 1: softmax(z / τ) with τ = 0.7; 5 of {len(p)} tokens kept, “{drawn}” drawn ({renormalised:.2f})"
    )
    caption = next(c.value for c in at.caption if c.value.startswith("Drawn:"))
    assert caption.startswith(f"Drawn: “{drawn}”, with probability {renormalised:.3f} after the cut.")
    assert "grey ones cut by top-k or top-p" in caption


# Train: the target on the curves and the metrics

FAST_COPY = {"task": "copy", "kind": "decoder-only", "layers": "2", "heads": "2", "d_model": "32", "steps": "1000"}
FAST_TEXT = {"task": "text", "layers": "1", "heads": "1", "d_model": "16", "steps": "200"}


def trained_twice(query: dict):
    """The Train page after two presses of Step (two evaluations after step 0: the curves are drawn)."""
    at = run_page(TRAIN, query)
    assert_no_exception(at)
    for _ in range(2):
        at.button(key="step").click()
        at.run()
        assert_no_exception(at)
    return at


def history_steps(at) -> list[int]:
    return [row["step"] for row in at.session_state["trainer"].history]


def metric(at, label: str):
    return next(m for m in at.metric if m.label == label)


def target_lines(spec: dict) -> list[dict]:
    return [shape for shape in spec["layout"].get("shapes", []) if shape.get("type") == "line"]


def test_an_accuracy_task_draws_its_target_on_the_accuracy_panel():
    at = trained_twice(FAST_COPY)
    target = make_task("copy").target
    assert make_task("copy").reached({"val_accuracy": target}) and not make_task("copy").reached({"val_accuracy": 0.5})
    spec = chart_by_title(at, "copy · 2 layers × 2 heads")
    accuracy = next(t for t in spec["data"] if t["name"] == "held-out accuracy")
    (line,) = target_lines(spec)
    assert line["y0"] == line["y1"] == pytest.approx(target)
    assert line["yref"] == accuracy["yaxis"]  # on the accuracy panel
    notes = [note["text"] for note in spec["layout"]["annotations"]]
    assert f"target {round(target * 100)}%" in notes
    assert metric(at, "held-out accuracy").help == f"target: at least {round(target * 100)}%"
    # the title's finding, read from the accuracy drawn: the first step at or over the target, or where it stands
    steps, values = decode_array(accuracy["x"]), decode_array(accuracy["y"])
    reached = [int(x) for x, y in zip(steps, values) if y >= np.float32(target)]
    title = spec["layout"]["title"]["text"]
    if reached:
        assert title.endswith(f": target {round(target * 100)}% reached at step {reached[0]}"), title
    else:
        assert f": held-out accuracy {values[-1]:.0%} at step {int(steps[-1])}" in title, title
    # the head scores' finding: the largest rise of one head between two evaluations, as drawn, or the best head
    scores = chart_by_title(at, "over training: ")
    lines = {t["name"]: (decode_array(t["x"]), decode_array(t["y"]).astype(np.float64)) for t in scores["data"]}
    rise, name, i = max((y[i + 1] - y[i], name, i) for name, (_, y) in lines.items() for i in range(len(y) - 1))
    (xs, ys), said = lines[name], scores["layout"]["title"]["text"]
    if round(ys[i + 1], 2) > round(ys[i], 2):
        assert f"{name} rose {ys[i]:.2f} → {ys[i + 1]:.2f} between steps {int(xs[i])} and {int(xs[i + 1])}" in said
    else:
        best = max(lines, key=lambda n: lines[n][1][-1])
        assert said.endswith(f"{best} the best, at {lines[best][1][-1]:.2f}"), said


def test_the_text_task_names_its_perplexity_target_and_draws_none_on_the_accuracy_panel():
    at = trained_twice(FAST_TEXT)
    target = make_task("text").target
    # a perplexity ceiling: reached at the target, not above it
    assert make_task("text").reached({"perplexity": target}) and not make_task("text").reached(
        {"perplexity": target * 1.01}
    )
    spec = next(s for s in chart_specs(at) if s["layout"]["title"]["text"].startswith("text · 1 layers × 1 heads"))
    assert not target_lines(spec)  # no line on the accuracy panel (values 0..1)
    held_out = decode_array(next(t for t in spec["data"] if t["name"] == "held-out loss")["y"])
    assert spec["layout"]["title"]["text"].endswith(
        f": held-out loss {held_out[0]:.2f} → {held_out[-1]:.2f} by step {history_steps(at)[-1]}"
    )
    notes = " ".join(note["text"] for note in spec["layout"]["annotations"])
    assert "target" not in notes and f"{target * 100:.0f}%" not in notes
    assert metric(at, "held-out accuracy").help in (None, "")
    assert metric(at, "perplexity").help == f"target: at most {target:g} (exp of the held-out loss)"
    history = at.session_state["trainer"].history
    assert metric(at, "perplexity").value == f"{math.exp(history[-1]['val_loss']):.2f}"
    caption = next(c.value for c in at.caption if c.value.startswith("The text task's target"))
    assert f"held-out perplexity of at most {target:g}" in caption
    assert f"ln {target:g} = {math.log(target):.2f}" in caption


# Train: the settings line's sequence layout


def summary_line(task: str) -> str:
    at = run_page(TRAIN, {"task": task})
    assert_no_exception(at)
    return plain(next(c.value for c in at.caption if c.value.startswith(f"{task}:")))


def test_the_settings_line_says_induction_is_random_letters_with_a_repeated_block():
    batch = make_task("induction").batch(2000, torch.Generator().manual_seed(0))
    full = torch.cat([batch.inputs, batch.targets[:, -1:]], dim=1).tolist()
    # the last letter's earlier occurrence is one block back (a block's letters are distinct)
    periods = [len(row) - 1 - max(i for i in range(len(row) - 1) if row[i] == row[-1]) for row in full]
    line = summary_line("induction")
    expected = (
        f"induction: decoder-only (GPT-style): {batch.inputs.shape[1]} random letters in which a block of "
        f"{min(periods)}-{max(periods)} letters repeats to the end;"
    )
    assert line.startswith(expected), line
    assert "source" not in line and "<s>" not in line


def test_the_settings_line_says_text_is_a_character_language_model():
    task = make_task("text")
    batch = task.batch(4, torch.Generator().manual_seed(0))
    assert torch.equal(batch.inputs[:, 1:], batch.targets[:, :-1])  # each position predicts the next character
    line = summary_line("text")
    expected = (
        f"text: decoder-only (GPT-style): a character language model, windows of {batch.inputs.shape[1]} "
        f"characters of the text, each predicting the next;"
    )
    assert line.startswith(expected), line
    assert "source" not in line and "<s>" not in line


@pytest.mark.parametrize("name", ["copy", "sort"])
def test_the_settings_line_names_the_separator_and_end_token_of_a_sequence_task(name):
    task = make_task(name, "decoder-only")
    batch = task.batch(1, torch.Generator().manual_seed(0))
    tokens = batch.tokens[0]
    length = (len(tokens) - 1) // 2  # source, separator, target (the end token is the last target)
    separator, end = tokens[length], task.symbols([int(batch.targets[0, -1])])[0]
    assert separator not in tokens[:length] and separator not in tokens[length + 1 :]
    assert f"separator {separator}" in task.description or name != "copy"
    line = summary_line(name)
    assert line.startswith(f"{name}: decoder-only (GPT-style): source {separator} target {end};"), line


# Generate / KV cache: the note names the measured variants only


def test_the_kv_cache_note_names_only_the_variants_in_the_table_on_a_shipped_model():
    at = run_page(GENERATE, {"section": "KV cache"})
    assert_no_exception(at)
    table = next(df.value for df in at.dataframe if "parameters" in df.value.columns)
    note = next(c.value for c in at.caption if c.value.startswith("Random models of this model's sizes"))
    labels = table["variant"].tolist()
    full = table.iloc[0]
    assert not any(label.startswith("grouped-query") for label in labels)  # 2 heads: no grouped-query split
    assert "grouped-query" not in note
    for _, row in table.iloc[1:].iterrows():
        assert row["variant"] in note or row["variant"].startswith("sliding window")
        if row["K/V heads"] < full["K/V heads"]:  # the stated division is the table's ratio of cache sizes
            ratio = full["cache (bytes)"] / row["cache (bytes)"]
            assert ratio == full["K/V heads"] / row["K/V heads"]
            assert f"{row['variant']} divides the cache by {full['K/V heads']} / {row['K/V heads']} = {ratio:g}" in note
    window = at.slider(key="w").value
    assert f"the window keeps at most {window} positions" in note


@pytest.mark.parametrize("heads", [1, 4])
def test_the_kv_cache_note_names_grouped_query_only_where_one_was_measured(heads):
    config = TransformerConfig(
        d_model=32, num_heads=heads, num_decoder_layers=1, d_ff=32, max_len=32, src_vocab_size=16, tgt_vocab_size=16
    )
    found = measure_variants(config, [1, 2, 3], 3, 4, rounds=1)
    labels = [v.label for v in found]
    note = saved_note(found, config, 4)
    grouped = [label for label in labels if label.startswith("grouped-query")]
    assert ("grouped-query" in note) == bool(grouped)
    assert ("multi-query" in note) == any(label.startswith("multi-query") for label in labels)
    if heads == 1:
        assert labels == ["multi-head (1 K/V heads)", "sliding window of 4"]
        assert "with 1 query head there are no keys and values to share" in note
        assert "0 of the 1 have fewer parameters (a window shares none)" in note
    else:
        assert grouped == ["grouped-query (2 K/V heads)"]
        assert "grouped-query (2 K/V heads) divides the cache by 4 / 2 = 2" in note
        assert "multi-query (1 K/V head) divides the cache by 4 / 1 = 4" in note


# Generate / Training loss: fill in the blank names the models it shows


def test_fill_in_the_blank_names_the_shipped_models_it_shows_when_another_is_picked():
    at = run_page(
        GENERATE,
        {"section": "Training loss", "objective": "fill in the blank (BERT)", "model": shipped_label("sort")},
    )
    assert_no_exception(at)
    assert chart_by_title(at, "which character is hidden?")
    masked, mlm_meta = load_checkpoint(CHECKPOINTS / "text_mlm.safetensors")
    following, _ = load_checkpoint(CHECKPOINTS / "text.safetensors")
    said = plain(next(c.value for c in at.caption if c.value.startswith("This objective is shown on")))
    assert f"the masked model “{shipped_entry('text_mlm').spec.label}” (encoder-only" in said
    assert f"the next-token model “{shipped_entry('text').spec.label}” (decoder-only" in said
    assert f"not the picked model (“{shipped_entry('sort').spec.label}”)" in said
    assert masked.kind == "encoder-only" and following.kind == "decoder-only"
    size = (
        f"{masked.config.num_encoder_layers} layers, {masked.config.num_heads} heads, d_model {masked.config.d_model}"
    )
    assert (
        following.config.num_decoder_layers,
        following.config.num_heads,
        following.config.d_model,
    ) == (masked.config.num_encoder_layers, masked.config.num_heads, masked.config.d_model)
    assert f"The masked model shown here has the next-token model's size ({size})" in at.caption[-1].value
    assert f"for {mlm_meta['steps']} steps" in at.caption[-1].value


def test_fill_in_the_blank_says_when_the_picked_model_is_its_next_token_model():
    at = run_page(GENERATE, {"section": "Training loss", "objective": "fill in the blank (BERT)"})
    assert_no_exception(at)
    assert at.selectbox(key="model").value == shipped_label("text")
    said = plain(next(c.value for c in at.caption if c.value.startswith("This objective is shown on")))
    assert said.endswith("; the next-token model is the picked one.") and "not the picked model" not in said
