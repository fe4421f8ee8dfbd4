"""The Generate page in AppTest: what the charts draw against the model and the formulas (the KV cache and Cost
sections, and the analyses behind them: tests/test_page_generate_costs.py)."""

import html
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from tests.apptest_helpers import assert_no_exception, chart_by_title, chart_specs, decode_array, run_page, title_text
from transformer import load_checkpoint, make_task
from ui.model_picker import shipped_label

PAGE = "pages/generate/page.py"
SECTIONS = ("Next token", "Compare", "Attention", "KV cache", "Cost", "Training loss")
TEXT = Path(__file__).resolve().parent.parent / "checkpoints" / "text.safetensors"


@pytest.fixture(scope="module")
def text_model():
    model, _ = load_checkpoint(TEXT)
    return model, make_task("text")


@pytest.mark.parametrize("section", SECTIONS)
def test_every_section_draws_on_the_default_text_model(section):
    at = run_page(PAGE, {"section": section})
    assert_no_exception(at)
    assert not at.error
    assert at.selectbox(key="model").value == shipped_label("text")
    assert chart_specs(at)


@pytest.mark.parametrize("temperature", ("0.5", "1.0", "2.0"))
def test_the_bars_are_softmax_of_the_logits_over_the_temperature(text_model, temperature):
    model, task = text_model
    at = run_page(PAGE, {"section": "Next token", "t": temperature, "prompt": "the model "})
    spec = chart_by_title(at, "Token 1: softmax(z / τ)")
    heights = decode_array(spec["data"][0]["x"]).astype(float)  # horizontal bars: a probability is a length across
    with torch.inference_mode():
        logits = model(torch.tensor([task.encode_user_input("the model ")])).logits[0, -1]
    expected = torch.softmax(logits / float(temperature), -1).sort(descending=True).values[:20].numpy()
    np.testing.assert_allclose(heights[:20], expected, atol=1e-5)
    assert heights[20] == pytest.approx(1 - expected.sum(), abs=1e-4)


@pytest.mark.parametrize(
    "cut",
    [{"k": "3"}, {"k": "1"}, {"t": "0.7", "p": "0.95"}, {"t": "2.0", "p": "0.9"}],
    ids=lambda cut: "-".join(f"{k}={v}" for k, v in cut.items()),
)
def test_the_cut_keeps_the_most_probable_tokens_and_the_marks_are_them_renormalised(text_model, cut):
    model, task = text_model
    at = run_page(PAGE, {"section": "Next token", "prompt": "attention ", **cut})
    with torch.inference_mode():
        logits = model(torch.tensor([task.encode_user_input("attention ")])).logits[0, -1].double()
    p = torch.softmax(logits / float(cut.get("t", 1)), -1).numpy()
    order = np.argsort(-p, kind="stable")
    # top-k keeps k tokens; top-p the fewest most probable whose probabilities add up to at least p
    kept = int(cut["k"]) if "k" in cut else int(np.searchsorted(np.cumsum(p[order]), float(cut["p"]))) + 1
    drawn_from = np.zeros_like(p)
    drawn_from[order[:kept]] = p[order[:kept]] / p[order[:kept]].sum()
    spec = chart_by_title(at, "Token 1: softmax(z / τ)")
    bars, marks = spec["data"]
    assert f"{kept} of {len(p)} tokens kept" in spec["layout"]["title"]["text"]
    assert spec["layout"]["yaxis"]["ticktext"][:20] == [html.escape(s, quote=False) for s in task.symbols(order[:20])]
    np.testing.assert_allclose(decode_array(bars["x"])[:20], p[order[:20]], atol=1e-6)
    np.testing.assert_allclose(decode_array(marks["x"]), drawn_from[order[:20]], atol=1e-6)
    colours = bars["marker"]["color"]
    assert [colour == "#c8c8c8" for colour in colours] == [rank >= kept for rank in range(21)]  # cut: grey
    assert [shape == "/" for shape in bars["marker"]["pattern"]["shape"]] == [rank >= kept for rank in range(21)]
    assert [colour for colour in colours[:kept] if colour != "#7f7f7f"] == ["#dc5400"]  # kept: grey, one drawn
    assert at.code[0].value.endswith(f"▸ {task.symbols([order[colours.index('#dc5400')]])[0]}")


def test_the_step_button_writes_one_more_token():
    at = run_page(PAGE, {"section": "Next token", "k": "3", "prompt": "attention "})
    before = at.code[0].value
    at.button(key="step_next").click().run()
    assert_no_exception(at)
    assert chart_by_title(at, "Token 2")
    assert len(at.code[0].value) > len(before)


def test_greedy_in_the_comparison_is_the_argmax_loop(text_model):
    model, task = text_model
    at = run_page(PAGE, {"section": "Compare", "new": "12", "prompt": "the keys "})
    sequence = task.encode_user_input("the keys ")
    written = []
    with torch.inference_mode():
        for _ in range(12):
            token = int(model(torch.tensor([sequence])).logits[0, -1].argmax())
            sequence.append(token)
            written.append(task.symbols([token])[0])
    assert at.code[0].value == "".join(written).replace("▁", " ")


@pytest.mark.parametrize(
    "query",
    [
        {"section": "Next token", "prompt": ""},
        {"section": "Next token", "t": "0.0"},
        {"section": "Next token", "p": "0.0"},
        {"section": "Next token", "k": "500"},
        {"section": "Compare", "beams": "6", "new": "64"},
        {"section": "Attention", "att_step": "64", "new": "1"},
        {"section": "KV cache", "w": "2"},
        {"section": "KV cache", "w": "32"},
    ],
    ids=lambda q: "-".join(f"{k}={v}" for k, v in q.items()),
)
def test_controls_at_their_extremes_give_a_page_without_an_exception(query):
    at = run_page(PAGE, query)
    assert_no_exception(at)
    assert chart_specs(at)


def test_a_prompt_the_model_cannot_read_says_so():
    at = run_page(PAGE, {"section": "Next token", "prompt": "日本語 ☃"})
    assert_no_exception(at)
    assert any("reads only" in e.value for e in at.error)


def test_an_encoder_decoder_writes_and_explains_the_cache_section():
    reverse = shipped_label("reverse")
    at = run_page(
        PAGE, {"section": "Next token", "model": reverse, "prompt": "abcdefghij", "strategy": "greedy", "token": "11"}
    )
    assert_no_exception(at)
    assert any("end token" in s.value for s in at.success)
    at = run_page(PAGE, {"section": "KV cache", "model": reverse})
    assert any("decoder-only" in i.value for i in at.info)


def test_the_training_loss_bars_are_each_next_tokens_loss_read_from_its_prefix_alone(text_model):
    model, task = text_model
    prompt = "the attention "
    at = run_page(PAGE, {"section": "Training loss", "prompt": prompt})
    assert_no_exception(at)
    ids = task.encode_user_input(prompt)
    by_prefix = []  # one pass per prefix: the model never sees the token it is scored on
    with torch.inference_mode():
        for t in range(1, len(ids)):
            logits = model(torch.tensor([ids[:t]])).logits[0, -1]
            by_prefix.append(-F.log_softmax(logits.double(), -1)[ids[t]].item())
    by_prefix = np.array(by_prefix)
    spec = chart_by_title(at, "−log p of each token given the ones before it")
    np.testing.assert_allclose(decode_array(spec["data"][0]["y"]), by_prefix, atol=1e-4)
    assert f"mean {by_prefix.mean():.2f}, perplexity {np.exp(by_prefix.mean()):.1f}" in spec["layout"]["title"]["text"]
    hardest = int(by_prefix.argmax())
    symbols = task.symbols(ids)
    assert (
        f"“{symbols[hardest + 1]}” (position {hardest + 2}, p = {np.exp(-by_prefix[hardest]):.3f})"
        in at.caption[-1].value
    )


@pytest.mark.parametrize(
    "query, says",
    [
        ({"model": "copy", "prompt": "algorithm"}, "trained only on the positions"),
        ({"prompt": "a"}, "at least two tokens"),
    ],
)
def test_the_training_loss_says_what_to_change_where_it_cannot_score(query, says):
    if query.get("model"):
        query = {**query, "model": shipped_label(query["model"])}
    at = run_page(PAGE, {"section": "Training loss", **query})
    assert_no_exception(at)
    assert any(says in info.value for info in at.info)


def test_the_attention_section_draws_each_heads_row_from_the_last_position_of_the_text_so_far(text_model):
    model, task = text_model
    at = run_page(PAGE, {"section": "Attention", "strategy": "greedy", "prompt": "the keys ", "att_step": "3"})
    assert_no_exception(at)
    sequence = task.encode_user_input("the keys ")
    with torch.inference_mode():
        for _ in range(2):  # greedy: the two tokens before the third
            sequence.append(int(model(torch.tensor([sequence])).logits[0, -1].argmax()))
        out = model(torch.tensor([sequence]), return_attention=True)
    expected = np.concatenate(
        [out.attention.weights[name][0, :, -1].numpy() for name in out.attention.names("decoder", "self_attn")]
    )  # [layers x heads, t]
    spec = chart_by_title(at, "(token 3) looks in the text so far")
    np.testing.assert_allclose(decode_array(spec["data"][0]["z"]), expected, atol=1e-5)
    assert spec["layout"]["yaxis"]["ticktext"][:2] == ["layer 1 · head 1", "layer 1 · head 2"]
    assert spec["data"][0]["text"][0][0].startswith("layer 1 · head 1<br>key 1: ")  # a row's name, once
    np.testing.assert_allclose(expected.sum(-1), 1.0, atol=1e-5)
    top, key = np.unravel_index(expected.argmax(), expected.shape)  # the title: the strongest link, by the model
    heads, keys = spec["layout"]["yaxis"]["ticktext"], spec["layout"]["xaxis"]["ticktext"]
    assert title_text(spec).endswith(f": {heads[top]} the most, on “{keys[key]}” ({expected[top, key]:.2f})")


def test_the_training_loss_sends_an_encoder_decoder_to_a_model_it_can_score():
    at = run_page(PAGE, {"section": "Training loss", "model": shipped_label("reverse"), "prompt": "abc"})
    assert_no_exception(at)
    said = " ".join(info.value for info in at.info)
    assert "teacher forcing" in said and "the shipped text model" in said and "induction" not in said


def test_fill_in_the_blank_draws_both_models_guesses_and_every_token_hidden_in_turn(text_model):
    model, task = text_model
    masked, metadata = load_checkpoint(TEXT.with_name("text_mlm.safetensors"))
    prompt = "the keys and the values"
    at = run_page(
        PAGE, {"section": "Training loss", "objective": "fill in the blank (BERT)", "prompt": prompt, "blank": "6"}
    )
    assert_no_exception(at)
    ids = task.encode_user_input(prompt)
    mask = 4 + metadata["tokenizer"].vocabulary.index("[MASK]")
    hidden = list(ids)
    hidden[5] = mask
    with torch.inference_mode():
        both = torch.softmax(masked(torch.tensor([hidden])).logits[0, 5], -1)
        left = torch.softmax(model(torch.tensor([ids[:5]])).logits[0, -1], -1)
    spec = chart_by_title(at, "“the k_ys and the values”: which character is hidden?")
    bars = {trace["name"]: dict(zip(trace["x"], decode_array(trace["y"]).astype(float))) for trace in spec["data"]}
    assert bars["both sides (masked model)"]["e (hidden)"] == pytest.approx(both[ids[5]].item(), abs=1e-5)
    assert bars["left only (next-token model)"]["e (hidden)"] == pytest.approx(left[ids[5]].item(), abs=1e-5)
    assert len(bars["both sides (masked model)"]) == 8
    every = []
    for i in range(len(ids)):  # one pass per hidden token
        row = list(ids)
        row[i] = mask
        with torch.inference_mode():
            every.append(-torch.log_softmax(masked(torch.tensor([row])).logits[0, i].double(), -1)[ids[i]].item())
    losses = chart_by_title(at, "Each token hidden in turn")
    np.testing.assert_allclose(decode_array(losses["data"][0]["y"]), every, atol=1e-4)
    assert f"mean −log p {np.mean(every[1:]):.2f} from both sides" in losses["layout"]["title"]["text"]
    left_losses = decode_array(losses["data"][1]["y"]).astype(float)
    easier = sum(b < a for b, a in zip(every[1:], left_losses))
    assert f"{easier} of {len(ids) - 1} are more probable to the masked model" in at.caption[-1].value


def test_fill_in_the_blank_asks_for_a_prompt_the_models_can_read():
    at = run_page(PAGE, {"section": "Training loss", "objective": "fill in the blank (BERT)", "prompt": "Hello, 42!"})
    assert_no_exception(at)
    assert any("change the prompt" in error.value for error in at.error)
    assert not chart_specs(at) or all("hidden" not in spec["layout"]["title"]["text"] for spec in chart_specs(at))
