"""Generate's beam search (its tree: the chosen text, every rank named; the paper's settings in one click; the length
penalty's note) and the marks Generate's figures carry (the space mark's note, the distribution's legend)."""

import html
from pathlib import Path

import numpy as np
import pytest
import torch

from tests.apptest_helpers import assert_no_exception, chart_by_title, chart_specs, decode_array, run_page
from tests.test_page_generate import PAGE, TEXT
from transformer import EOS_ID, load_checkpoint, make_task
from ui.model_picker import shipped_label


@pytest.fixture(scope="module")
def text_model():
    model, _ = load_checkpoint(TEXT)
    return model, make_task("text")


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
    assert {"#7f7f7f", "#c8c8c8"} <= set(bars["marker"]["color"]) and len(set(bars["marker"]["color"])) == 3
    assert marks["marker"]["color"] == "black" and marks.get("showlegend") is not False
    caption = next(c.value for c in at.caption if c.value.startswith("Drawn:"))
    assert (
        "Grey bars are kept, hatched light grey ones cut by top-k or top-p" in caption
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
