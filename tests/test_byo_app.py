"""Models brought from folders in the app: found through ``ATTENTION_LAB_MODELS`` and the Hugging Face cache,
offered by the picker where their architecture fits, drawn as ``transformers`` computes them, and a folder that
cannot be loaded named with its reason.

The expected attention comes from ``transformers`` running the same folder (``tests/byo_folders.py``).
"""

import json
import os
import shutil

import numpy as np
import torch

from tests.apptest_helpers import assert_no_exception, chart_by_title, decode_array, head_tiles, run_page
import transformers

TEXT = "The cat sat on the mat because it was tired."


def gpt2_label(hf_model) -> str:
    parameters = sum(p.numel() for p in hf_model.parameters())
    return f"tiny-gpt2 (GPT-2 · {parameters:,} parameters, decoder-only (GPT-style))"


def test_a_gpt2_folder_is_picked_and_drawn_on_multi_head(env):
    _, hf_model, folder = env
    label = gpt2_label(hf_model)
    at = run_page("pages/multi_head/page.py", {"model": label, "layer": "2", "text": TEXT})
    assert_no_exception(at)
    assert at.selectbox(key="model").value == label
    reference = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    ids = reference(TEXT)["input_ids"]
    expected = assert_layer_two_drawn(at, hf_model, ids)
    assert np.triu(expected[0], 1).max() == 0  # GPT-2 is causal


def assert_layer_two_drawn(at, hf_model, ids: list[int]) -> np.ndarray:
    """The Multi-head page's four heads of layer 2 are transformers' attention on ``ids`` (returned, [H, T, T])."""
    with torch.inference_mode():
        expected = hf_model(torch.tensor([ids]), output_attentions=True).attentions[1][0].numpy()
    tiles = head_tiles(chart_by_title(at, "Layer 2 · 4 heads"))
    assert len(tiles) == 4 and tiles[0].shape == (len(ids), len(ids))
    for h, tile in enumerate(tiles):
        np.testing.assert_allclose(tile, expected[h], atol=1e-5)
    return expected


def test_a_gpt2_folder_writes_on_generate(env):
    """The first step's distribution drawn is softmax of transformers' logits at the prompt's last token."""
    _, hf_model, folder = env
    at = run_page("pages/generate/page.py", {"model": gpt2_label(hf_model), "prompt": TEXT})
    assert_no_exception(at)
    reference = transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    ids = reference(TEXT)["input_ids"]
    with torch.inference_mode():
        probabilities = torch.softmax(hf_model(torch.tensor([ids])).logits[0, -1], -1)
    expected, order = probabilities.sort(descending=True)
    bars = chart_by_title(at, "Token 1: softmax(z / τ)")["data"][0]
    drawn, top = decode_array(bars["x"]), len(decode_array(bars["x"])) - 1  # the most likely, then the rest
    np.testing.assert_allclose(drawn[:top], expected[:top].numpy(), atol=1e-5)
    np.testing.assert_allclose(drawn[top], expected[top:].sum().item(), atol=1e-5)
    assert list(decode_array(bars["customdata"])[:1]) == [reference.decode([int(order[0])])]


def test_the_folder_that_cannot_load_is_named_with_its_reason(env):
    at = run_page("pages/masks/page.py")
    assert_no_exception(at)
    assert gpt2_label(env[1]) in at.selectbox(key="model").options
    assert not any("pickled" in option for option in at.selectbox(key="model").options)
    warning = " ".join(w.value for w in at.warning)
    assert "pickled" in warning and "pytorch" in warning and "never opened" in warning


def test_gpt2_is_offered_only_where_decoder_only_models_fit(env):
    label = gpt2_label(env[1])
    for page in (
        "pages/self_attention/page.py",
        "pages/multi_head/page.py",
        "pages/masks/page.py",
        "pages/experiments/page.py",
        "pages/generate/page.py",
    ):
        assert label in run_page(page).selectbox(key="model").options, page
    assert label not in run_page("pages/encoder_decoder/page.py").selectbox(key="model").options


def test_a_picked_gpt2_runs_on_every_page_that_offers_it(env):
    label = gpt2_label(env[1])
    for page in ("pages/self_attention/page.py", "pages/masks/page.py", "pages/experiments/page.py"):
        at = run_page(page, {"model": label})
        assert_no_exception(at)
        assert at.selectbox(key="model").value == label, page


# ---- finding folders (no Streamlit) ---------------------------------------------------------------


def test_models_are_found_in_the_hugging_face_cache(brought, tmp_path):
    from ui.local_models import find_models, hf_cache_dir

    cache = tmp_path / "hub"
    repo = cache / "models--someone--tiny-gpt2"
    shutil.copytree(brought[2], repo / "snapshots" / "abc123")
    shutil.copytree(brought[2], repo / "snapshots" / "old456")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123")
    other = cache / "models--someone--gemma" / "snapshots" / "x"
    other.mkdir(parents=True)
    (other / "config.json").write_text(json.dumps({"model_type": "gemma"}))
    found = find_models("", cache)
    assert [(m.name, m.folder) for m in found.models] == [("someone/tiny-gpt2", str(repo / "snapshots" / "abc123"))]
    assert found.problems == ()  # a model type the app does not read is not listed at all
    assert hf_cache_dir({"HF_HUB_CACHE": str(cache)}) == cache
    assert hf_cache_dir({"HF_HOME": str(tmp_path)}) == tmp_path / "hub"


def test_a_path_list_names_folders_and_folders_of_folders(brought, tmp_path):
    from ui.local_models import find_models

    value = os.pathsep.join([str(brought[2]), str(brought[0]), str(tmp_path / "nowhere"), str(tmp_path)])
    found = find_models(value, tmp_path / "no-cache")
    assert [m.name for m in found.models] == ["tiny-gpt2"]  # the same folder twice is listed once
    reasons = dict(found.problems)
    assert "pytorch_model.bin" in reasons["pickled-gpt2"]
    assert "no folder" in reasons[str(tmp_path / "nowhere")]
    assert "no config.json" in reasons[str(tmp_path)]


def test_two_folders_of_one_name_are_told_apart(brought, tmp_path):
    from ui.local_models import find_models

    other = shutil.copytree(brought[2], tmp_path / "elsewhere" / "tiny-gpt2")
    found = find_models(os.pathsep.join([str(brought[2]), str(other)]), tmp_path / "no-cache")
    assert sorted(m.name for m in found.models) == sorted(f"tiny-gpt2 ({p.resolve()})" for p in (brought[2], other))
