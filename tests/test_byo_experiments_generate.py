"""A GPT-2 brought from a folder on the Experiments and Generate pages, checked against ``transformers``."""

import numpy as np
import pytest
import torch

from tests.apptest_helpers import assert_no_exception, chart_by_title, decode_array, run_page
from tests.test_byo_app import gpt2_label as label_of
import transformers

TEXT = "the cat sat on the mat and the cat sat on the"


def reference(folder, hf_model, text: str):
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    ids = tokenizer(text)["input_ids"]
    with torch.inference_mode():
        logits = hf_model(torch.tensor([ids])).logits[0]
    return ids, logits


def test_knocking_out_gpt2_heads_is_measured_on_the_typed_text(env):
    _, hf_model, folder = env
    ids, logits = reference(folder, hf_model, TEXT)
    accuracy = float((logits[:-1].argmax(-1) == torch.tensor(ids[1:])).float().mean())
    at = run_page(
        "pages/experiments/page.py",
        {
            "model": label_of(hf_model),
            "input": TEXT,
            "section": "Knock out",
            "ko_decoder1_self_attn": ["head 1", "head 2", "head 3", "head 4"],
        },
    )
    assert_no_exception(at)
    spec = chart_by_title(at, "Accuracy on your text")
    before, after = (decode_array(trace["y"]).astype(float)[0] for trace in spec["data"])
    assert before == pytest.approx(accuracy, abs=1e-6)
    loss = bars_of(chart_by_title(at, "Loss"))
    expected_loss = torch.nn.functional.cross_entropy(logits[:-1], torch.tensor(ids[1:]))
    assert loss[0] == pytest.approx(float(expected_loss), abs=1e-4) and loss[1] != loss[0]


def bars_of(spec) -> list[float]:
    return [float(decode_array(trace["y"])[0]) for trace in spec["data"]]


@pytest.mark.parametrize("section", ("Importance", "Circuit", "Logit lens", "Attribution", "Build a head"))
def test_every_other_section_runs_on_gpt2(env, section):
    at = run_page("pages/experiments/page.py", {"model": label_of(env[1]), "input": TEXT, "section": section})
    assert_no_exception(at)
    assert not at.error


def test_patching_gpt2_asks_for_a_change_then_restores(env):
    label = label_of(env[1])
    at = run_page("pages/experiments/page.py", {"model": label, "input": TEXT, "section": "Patching"})
    assert_no_exception(at)
    assert any("Change a word" in i.value for i in at.info)
    at = run_page(
        "pages/experiments/page.py",
        {"model": label, "input": TEXT, "section": "Patching", "corrupted": TEXT.replace("mat", "hat")},
    )
    assert_no_exception(at)


def test_gpt2_writes_on_the_generate_page_as_transformers_computes(env):
    _, hf_model, folder = env
    ids, logits = reference(folder, hf_model, "the cat")
    at = run_page(
        "pages/generate/page.py",
        {"model": label_of(hf_model), "prompt": "the cat", "t": "0.5", "section": "Next token"},
    )
    assert_no_exception(at)
    heights = decode_array(chart_by_title(at, "Token 1")["data"][0]["x"]).astype(float)  # horizontal bars
    expected = torch.softmax(logits[-1] / 0.5, -1).sort(descending=True).values[:20].numpy()
    np.testing.assert_allclose(heights[:20], expected, atol=1e-5)
    at = run_page(
        "pages/generate/page.py", {"model": label_of(hf_model), "prompt": "the cat", "section": "Compare", "new": "8"}
    )
    assert_no_exception(at)
    assert_page_writes_greedy(at, hf_model, folder, ids, 8)


def assert_page_writes_greedy(at, hf_model, folder, ids: list[int], new: int) -> None:
    """The Generate page's greedy text (its "Compare" section) is what transformers writes after ``ids``."""
    with torch.inference_mode():
        greedy = hf_model.generate(
            torch.tensor([ids]), max_new_tokens=new, do_sample=False, pad_token_id=0, eos_token_id=None
        )[0, len(ids) :].tolist()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    assert at.code[0].value == "".join(tokenizer.decode([t]) for t in greedy)
