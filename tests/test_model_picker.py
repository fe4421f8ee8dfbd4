"""The model picker: checkpoints offered where their architecture fits, a link restores the choice,
the pages draw the chosen model's own attention, and a bad upload is refused with a message."""

import hashlib

import numpy as np
import pytest
import torch

from tests.apptest_helpers import assert_no_exception, chart_by_title, decode_array, run_page, head_tiles
from transformer import HashTokenizer, TransformerConfig, build_model, save_checkpoint
from transformer.spec import ModelSpec

TEXT = "The animal didn't cross the street because it was too tired"
CONFIG = TransformerConfig(d_model=16, num_heads=2, num_encoder_layers=2, num_decoder_layers=3, d_ff=32, dropout=0.0)


@pytest.fixture
def shipped(tmp_path, monkeypatch):
    """Two checkpoints in a checkpoints/ folder: a decoder-only one and an encoder-decoder one."""
    import ui.models as models

    labels = {}
    for name, kind, seed in (("tiny-gpt", "decoder-only", 42), ("tiny-seq2seq", "encoder-decoder", 43)):
        path = tmp_path / f"{name}.safetensors"
        save_checkpoint(build_model(CONFIG, seed, kind), path, {"tokenizer": HashTokenizer(4096), "task": "test"})
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        kind_name = "decoder-only (GPT-style)" if kind == "decoder-only" else "encoder-decoder"
        labels[name] = f"{name} · {digest[:8]} ({kind_name})"
    monkeypatch.setattr(models, "CHECKPOINT_DIR", tmp_path)
    models.shipped_checkpoints.clear()
    yield labels
    models.shipped_checkpoints.clear()


def checkpoint_weights(seed, kind, stack, text=TEXT):
    tokenizer = HashTokenizer()
    ids = torch.tensor([tokenizer.encode(tokenizer.tokenize(text))])
    with torch.inference_mode():
        return build_model(CONFIG, seed, kind)(ids, return_attention=True).attention.stacked(stack)[:, 0].numpy()


def test_multi_head_draws_the_chosen_checkpoint(shipped):
    at = run_page("pages/multi_head/page.py", {"model": shipped["tiny-gpt"], "layer": "2"})
    assert_no_exception(at)
    picker = at.selectbox(key="model")
    assert picker.value == shipped["tiny-gpt"] and set(shipped.values()) <= set(picker.options)
    assert not at.get("select_slider") or all(s.key != "d_model" for s in at.get("select_slider"))
    expected = checkpoint_weights(42, "decoder-only", "decoder")
    grid = chart_by_title(at, "· 2 heads")
    tiles = head_tiles(grid)
    assert len(tiles) == 2
    layer = int(at.select_slider(key="layer").value) - 1  # numbered from 1 on screen
    assert layer == 1
    for h, tile in enumerate(tiles):
        np.testing.assert_allclose(tile, expected[layer, h], atol=1e-5)
    assert np.triu(expected[layer, 0], 1).max() == 0  # a decoder: causal


def test_picker_offers_only_models_that_fit(shipped):
    at = run_page("pages/encoder_decoder/page.py")
    options = at.selectbox(key="model").options
    assert shipped["tiny-seq2seq"] in options and shipped["tiny-gpt"] not in options
    masks = run_page("pages/masks/page.py").selectbox(key="model").options
    assert shipped["tiny-gpt"] in masks and shipped["tiny-seq2seq"] not in masks


def test_encoder_decoder_page_runs_the_checkpoint(shipped):
    at = run_page(
        "pages/encoder_decoder/page.py",
        {"model": shipped["tiny-seq2seq"], "kind": "encoder-decoder cross-attention", "layer": "3", "head": "head 2"},
    )
    assert_no_exception(at)
    tokenizer = HashTokenizer()
    src = tokenizer.encode(tokenizer.tokenize("the cat sat on the mat"))
    tgt = [1] + tokenizer.encode(tokenizer.tokenize("le chat est assis sur le tapis"))[:-1]
    with torch.inference_mode():
        record = build_model(CONFIG, 43, "encoder-decoder")(
            torch.tensor([src]), torch.tensor([tgt]), return_attention=True
        ).attention
    spec = chart_by_title(at, "Layer 3 · head 2")
    np.testing.assert_allclose(
        decode_array(spec["data"][0]["z"]), record.weights["decoder.layers.2.cross_attn"][0, 1].numpy(), atol=1e-5
    )


def test_a_bad_upload_is_refused_with_a_message(tmp_path):
    import streamlit as st
    from ui.models import add_checkpoint

    st.session_state.clear()
    with pytest.raises(ValueError, match="."):
        add_checkpoint("notes.safetensors", b"this is not a checkpoint at all")
    assert not st.session_state.get("uploaded_checkpoints")


def test_model_spec_identity():
    a = ModelSpec.random(CONFIG, 3, "decoder-only")
    assert a == ModelSpec.random(CONFIG, 3, "decoder-only") and hash(a) == hash(
        ModelSpec.random(CONFIG, 3, "decoder-only")
    )
    assert a != ModelSpec.random(CONFIG, 4, "decoder-only") and a.label == "random decoder-only · seed 3"
    with pytest.raises(ValueError, match="kind"):
        ModelSpec.random(CONFIG, 0, "bert")
    with pytest.raises(ValueError, match="SHA-256"):
        ModelSpec.checkpoint("abc", "x")


@pytest.mark.parametrize("name", ["induction", "copy", "reverse", "sort", "text"])
def test_every_shipped_checkpoint_runs_on_the_pages_it_fits(name):
    """The real checkpoints in checkpoints/ are offered and drawn where their architecture fits."""
    import ui.models as models

    models.shipped_checkpoints.clear()
    path = models.CHECKPOINT_DIR / f"{name}.safetensors"
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    kind = models.shipped_checkpoints()[digest][1].kind
    pages = {
        "encoder-decoder": ["encoder_decoder", "multi_head", "self_attention"],
        "decoder-only": ["multi_head", "self_attention", "masks"],
    }[kind]
    for page in pages:
        at = run_page(f"pages/{page}/page.py")
        label = next(o for o in at.selectbox(key="model").options if o.startswith(f"{name} · {digest[:8]}"))
        at = run_page(
            f"pages/{page}/page.py", {"model": label, "text": "a b c a b c", "src": "a b c d", "tgt": "d c b a"}
        )
        assert_no_exception(at)
        assert at.selectbox(key="model").value == label


def test_the_pretrained_model_is_offered_under_the_name_the_package_registers():
    from ui.model_picker import PRETRAINED, pretrained_available, pretrained_label

    assert PRETRAINED == {"all-MiniLM-L6-v2": "encoder-only"}
    assert pretrained_label("all-MiniLM-L6-v2") == "all-MiniLM-L6-v2 (pretrained, encoder-only (BERT-style))"
    assert pretrained_available("all-MiniLM-L6-v2") and not pretrained_available("bert-base-uncased")
