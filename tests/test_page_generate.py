"""The Generate page in AppTest: what the charts draw against the model and the formulas (the KV cache and Cost
sections, and the analyses behind them: tests/test_page_generate_costs.py)."""

import html
from pathlib import Path

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from tests.apptest_helpers import assert_no_exception, chart_by_title, chart_specs, decode_array, run_page, title_text
from transformer import EOS_ID, load_checkpoint, make_task
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
    assert [colour for colour in colours[:kept] if colour != "#1f77b4"] == ["#dc5400"]  # kept: blue, one drawn
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


def test_the_beam_tree_draws_the_chosen_text_strongly_with_tokens_counted_from_1(text_model):
    model, task = text_model
    at = run_page(PAGE, {"section": "Compare", "new": "8", "beams": "3", "prompt": "the keys "})
    assert_no_exception(at)
    spec = chart_by_title(at, "The beam search's tree")
    lines = [trace for trace in spec["data"] if trace.get("mode") == "lines"]
    strong = [trace for trace in lines if trace["line"]["width"] == max(line["line"]["width"] for line in lines)]
    nodes = [trace for trace in spec["data"] if trace.get("mode") == "markers"]
    path = [trace for trace in nodes if trace["marker"]["color"] == strong[0]["line"]["color"]]
    assert len(strong) == 1 and len(path) == 1
    steps = decode_array(path[0]["x"]).astype(int)
    order = np.argsort(steps)
    assert steps[order].tolist() == list(range(1, len(steps) + 1))  # one node a token, the first is token 1
    notes = sorted(spec["layout"]["annotations"], key=lambda note: note["x"])
    assert [note["x"] for note in notes] == list(range(1, len(steps) + 1))  # a name over each node of the path
    written = "".join(note["text"] for note in notes).replace("▁", " ")
    assert written == at.code[2].value  # the strong path spells the beam's text
    ids = {symbol: i for i, symbol in enumerate(task.symbols(list(range(model.config.tgt_vocab_size))))}
    prompt, chosen = task.encode_user_input("the keys "), [ids[html.unescape(note["text"])] for note in notes]
    with torch.inference_mode():  # one pass over the prompt and the text: each token's log p given the ones before
        log_p = torch.log_softmax(model(torch.tensor([prompt + chosen])).logits[0].double(), -1)
    summed = np.cumsum([log_p[len(prompt) - 1 + i, token].item() for i, token in enumerate(chosen)])
    scores = np.array([float(score) for score, _ in path[0]["customdata"]])[order]  # the hover's "sum of log p"
    np.testing.assert_allclose(scores, summed, atol=1e-3)
    faint = [trace for trace in nodes if trace is not path[0]]
    assert faint and decode_array(faint[0]["x"]).min() >= 1


def test_the_beam_tree_labels_every_rank_and_leaves_room_for_the_names_at_its_edges():
    from viz.generation import beam_tree

    # two tokens, three beams: ranks 1-3 at each token; the chosen text is rank 1 then rank 3
    fig = beam_tree(
        [0, 0, 0, 1, 1, 1],
        [-1, -1, -1, 0, 0, 1],
        ["a", "b", "c", "d", "e", "f"],
        [-1.0, -2.0, -3.0, -4.0, -5.0, -4.5],
        {0, 4},
        "tree",
    )
    yaxis = fig.layout.yaxis
    assert list(yaxis.tickvals) == [1, 2, 3] and list(yaxis.ticktext) == ["1", "2", "3"]
    # a set range (the browser's fitting measures it, not the number of points): reversed, 0.75 of a rank
    # above rank 1 and below rank 3 for the names written there
    assert tuple(yaxis.range) == (3.75, 0.25)
    notes = {note.text: note for note in fig.layout.annotations}
    assert set(notes) == {"a", "e"}
    assert notes["a"].yanchor == "bottom" and notes["a"].y == 1  # rank 1: above its node, in the room left there
    assert notes["e"].yanchor == "top" and notes["e"].y == 3  # the path comes down into it: written under it
    nodes = [trace for trace in fig.data if trace.mode == "markers"]
    assert len(nodes) == 2 and all(trace.cliponaxis is False for trace in nodes)  # a node at an edge is whole
    assert fig.layout.height == 325  # 150 + 50 a rank, for 3.5 ranks


@pytest.mark.parametrize(
    "query",
    [
        {"section": "Next token", "prompt": "the model "},
        {"section": "Next token", "prompt": "the model ", "token": "3"},
        {"section": "Compare", "prompt": "the keys ", "new": "6"},
        {"section": "Attention", "prompt": "the keys ", "att_step": "2"},
        {"section": "KV cache", "prompt": "the keys "},
    ],
)
def test_the_space_mark_is_explained_exactly_where_a_drawn_token_carries_it(query):
    at = run_page(PAGE, query)
    assert_no_exception(at)
    drawn = [
        str(text)
        for spec in chart_specs(at)
        for trace in spec["data"]
        for text in (trace.get("text") or [])
        if isinstance(text, str)
    ]
    drawn += [str(text) for spec in chart_specs(at) for text in spec["layout"].get("xaxis", {}).get("ticktext", [])]
    drawn += [str(text) for spec in chart_specs(at) for text in spec["layout"].get("yaxis", {}).get("ticktext", [])]
    drawn += [spec["layout"]["title"]["text"] for spec in chart_specs(at)]
    drawn += [code.value.split("▸")[-1] for code in at.code if "▸" in code.value]  # the token being written
    explained = any("“▁” stands for a space" in caption.value for caption in at.caption)
    assert explained == any("▁" in text for text in drawn)


def test_the_distributions_legend_names_only_marks_of_its_own_colour():
    """The bars have three colours, so no legend entry stands for them (it would show one colour); the
    caption names the three, and the black marks' entry is black."""
    at = run_page(PAGE, {"section": "Next token", "k": "3", "prompt": "attention "})
    spec = chart_by_title(at, "Token 1")
    bars, marks = spec["data"]
    assert bars["showlegend"] is False
    assert {"#1f77b4", "#c8c8c8"} <= set(bars["marker"]["color"]) and len(set(bars["marker"]["color"])) == 3
    assert marks["marker"]["color"] == "black" and marks.get("showlegend") is not False
    caption = next(c.value for c in at.caption if c.value.startswith("Drawn:"))
    assert (
        "Blue bars are kept, hatched grey ones cut by top-k or top-p" in caption
        and "the orange one is the token drawn" in caption
    )


def test_the_papers_beam_settings_are_one_click_and_alpha_changes_nothing_where_no_text_ends():
    at = run_page(PAGE, {"section": "Compare", "new": "8", "prompt": "the keys "})
    at.button(key="paper_beam").click().run()
    assert_no_exception(at)
    assert at.slider(key="beams").value == 4 and at.slider(key="lp").value == pytest.approx(0.6)
    assert at.selectbox(key="lp_form").value == "gnmt"  # the paper's button sets the paper's penalty, GNMT's
    assert any("This is the paper's search" in caption.value for caption in at.caption)
    assert "4 beam(s)" in chart_by_title(at, "The beam search's tree")["layout"]["title"]["text"]
    trees = []
    for alpha in ("0.0", "2.0"):  # the text model writes no end token in 8 tokens: every kept text has one length
        at = run_page(PAGE, {"section": "Compare", "new": "8", "prompt": "the keys ", "beams": "4", "lp": alpha})
        assert any("changes nothing here" in caption.value for caption in at.caption)
        spec = chart_by_title(at, "The beam search's tree")
        trees.append([(decode_array(t["x"]).tolist(), decode_array(t["y"]).tolist()) for t in spec["data"]])
    assert trees[0] == trees[1]


def test_the_length_penalty_note_counts_the_texts_that_ended_in_the_drawn_tree():
    copy = Path(__file__).resolve().parent.parent / "checkpoints" / "copy.safetensors"
    model, metadata = load_checkpoint(copy)
    at = run_page(
        PAGE, {"section": "Compare", "model": shipped_label("copy"), "prompt": "abcdefg", "beams": "4", "lp": "0.6"}
    )
    assert_no_exception(at)
    end = html.escape(make_task("copy", model.kind).symbols([EOS_ID])[0])  # the end token as the tree writes it
    tree = chart_by_title(at, "The beam search's tree")
    drawn = [name for trace in tree["data"] if trace.get("mode") == "markers" for name in trace["text"]]
    ended = drawn.count(end)  # the drawn nodes that are the end token: the texts that ended
    assert ended > 0 and any(f"{ended} of the texts in the tree ended" in c.value for c in at.caption)


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
