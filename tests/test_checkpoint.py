"""Safetensors checkpoints: bit-identical round trips, the file's layout and metadata, and what saving needs.

Every kind of bad file refused is in test_checkpoint_refusals.py."""

import json
import struct

import pytest
import torch
from safetensors import safe_open

from tests.checkpoint_cases import CASES, EXTRA, WORDS, kind_of
from transformer import (
    HashTokenizer,
    VocabTokenizer,
    checkpoint_data,
    checkpoint_info,
    load_checkpoint,
    save_checkpoint,
)


def _run(model, kind: str):
    """(logits, hidden, {record name: weights}) on fixed inputs; padding and token types where they exist."""
    generator = torch.Generator().manual_seed(0)
    tokens = torch.randint(4, 20, (2, 7), generator=generator)
    with torch.inference_mode():
        if kind == "encoder-decoder":
            out = model(tokens, tokens[:, :5], return_attention=True)
        elif kind == "decoder-only":
            out = model(tokens, return_attention=True)
        else:
            mask = torch.ones(2, 7, dtype=torch.bool)
            mask[1, 5:] = False
            types = (torch.arange(7) >= 3).long().expand(2, 7)
            out = model(tokens, attention_mask=mask, token_type_ids=types, return_attention=True)
    return out.logits, out.hidden, dict(out.attention.weights)


@pytest.mark.parametrize("as_bytes", [False, True], ids=["path", "bytes"])
@pytest.mark.parametrize("case", list(CASES))
def test_round_trip_is_bit_identical(saved, case, as_bytes):
    model, path = saved[case]
    loaded, metadata = load_checkpoint(path.read_bytes() if as_bytes else str(path))
    assert type(loaded) is type(model) and not any(m.training for m in loaded.modules())
    logits, hidden, weights = _run(model, kind_of(case))
    logits2, hidden2, weights2 = _run(loaded, kind_of(case))
    assert torch.equal(logits, logits2) and torch.equal(hidden, hidden2)
    assert list(weights) == list(weights2) and len(weights) >= 2
    for name in weights:
        assert torch.equal(weights[name], weights2[name]), name
    for name, tensor in model.state_dict().items():
        assert torch.equal(tensor, loaded.state_dict()[name]), name
    config, tokenizer = CASES[case]
    assert metadata == {**EXTRA, "kind": kind_of(case), "config": config, "tokenizer": tokenizer}


def test_tied_head_has_no_tensor_of_its_own(saved):
    model, path = saved["decoder-only"]
    with safe_open(str(path), framework="pt") as file:
        names = set(file.keys())
    assert "generator.bias" in names and "generator.weight" not in names and "embed.tokens.weight" in names
    loaded, _ = load_checkpoint(path)
    assert loaded.generator.weight is None and loaded.generator.embedding[0] is loaded.embed.tokens


def test_metadata_layout_in_the_file(saved):
    with safe_open(str(saved["encoder-only"][1]), framework="pt") as file:
        stored = file.metadata()
    assert stored["format"] == "attention-lab-checkpoint" and stored["version"] == "1"
    assert stored["kind"] == "encoder-only"
    assert json.loads(stored["config"]) == CASES["encoder-only"][0].to_dict()
    assert json.loads(stored["tokenizer"]) == {"kind": "vocab", "vocabulary": list(WORDS), "level": "char"}
    assert json.loads(stored["metadata"]) == EXTRA


def test_info_equals_load_metadata_and_reads_no_tensor_values(saved, tmp_path):
    path = saved["encoder-decoder"][1]
    assert checkpoint_info(path) == load_checkpoint(path)[1] == checkpoint_info(path.read_bytes())
    data = bytearray(path.read_bytes())
    start = 8 + struct.unpack("<Q", data[:8])[0]
    data[start:] = struct.pack("<f", float("nan")) * ((len(data) - start) // 4)
    (tmp_path / "nan.safetensors").write_bytes(data)
    assert checkpoint_info(tmp_path / "nan.safetensors")["kind"] == "encoder-decoder"
    with pytest.raises(ValueError, match="NaN"):
        load_checkpoint(tmp_path / "nan.safetensors")


def test_saving_a_loaded_checkpoint_again_round_trips(saved, tmp_path):
    model, metadata = load_checkpoint(saved["decoder-only"][1])
    save_checkpoint(model, tmp_path / "again.safetensors", metadata)
    assert load_checkpoint(tmp_path / "again.safetensors")[1] == metadata


@pytest.mark.parametrize("case, vocab", [("encoder-decoder", 40), ("decoder-only", 24), ("encoder-only", 24)])
def test_without_a_tokenizer_the_models_own_hash_tokenizer_is_saved(saved, tmp_path, case, vocab):
    """The vocabulary is the input embedding's: src_vocab_size 40 (of 40 and 48), tgt_vocab_size 24, src 24."""
    model = saved[case][0]
    save_checkpoint(model, tmp_path / "bare.safetensors", {"task": "copy"})
    save_checkpoint(model, tmp_path / "none.safetensors")
    for name in ("bare", "none"):
        loaded, metadata = load_checkpoint(tmp_path / f"{name}.safetensors")
        assert metadata["tokenizer"] == HashTokenizer(vocab_size=vocab, level="word")
        assert {key: metadata[key] for key in metadata if key not in ("kind", "config", "tokenizer")} == (
            {"task": "copy"} if name == "bare" else {}
        )
        for key, tensor in model.state_dict().items():
            assert torch.equal(tensor, loaded.state_dict()[key]), key
    with safe_open(str(tmp_path / "bare.safetensors"), framework="pt") as file:
        assert json.loads(file.metadata()["tokenizer"]) == {"kind": "hash", "vocab_size": vocab, "level": "word"}


def test_checkpoint_data_is_the_file_save_checkpoint_writes(saved, tmp_path):
    model = saved["encoder-only"][0]
    metadata = {**EXTRA, "tokenizer": CASES["encoder-only"][1]}
    save_checkpoint(model, tmp_path / "file.safetensors", metadata)
    (tmp_path / "data.safetensors").write_bytes(checkpoint_data(model, metadata))
    headers, tensors = [], []
    for name in ("file", "data"):
        with safe_open(str(tmp_path / f"{name}.safetensors"), framework="pt") as file:
            headers.append(file.metadata())
            tensors.append({key: file.get_tensor(key) for key in file.keys()})
    assert headers[0] == headers[1] and json.loads(headers[0]["metadata"]) == EXTRA
    assert tensors[0].keys() == tensors[1].keys() == model.state_dict().keys()
    assert all(torch.equal(tensors[0][key], tensors[1][key]) for key in tensors[0])
    assert sorted(path.name for path in tmp_path.iterdir()) == ["data.safetensors", "file.safetensors"]


def test_save_needs_json_metadata_and_a_tokenizer_that_fits(saved, tmp_path):
    model = saved["decoder-only"][0]
    with pytest.raises(ValueError, match="metadata must be a dict"):
        save_checkpoint(model, tmp_path / "a.safetensors", [("task", "copy")])
    with pytest.raises(ValueError, match="JSON"):
        save_checkpoint(model, tmp_path / "b.safetensors", {"tokenizer": VocabTokenizer(WORDS), "x": object()})
    with pytest.raises(ValueError, match="embeddings"):
        save_checkpoint(model, tmp_path / "c.safetensors", {"tokenizer": HashTokenizer(4096)})
    assert not list(tmp_path.iterdir())


def test_a_model_with_the_papers_shared_token_matrix_round_trips(tmp_path):
    """One matrix for source, target and the output layer: saved once, and shared again after loading."""
    from transformer import TransformerConfig, build_model, load_checkpoint, save_checkpoint

    config = TransformerConfig(
        share_embeddings=True, output_head="tied", src_vocab_size=40, tgt_vocab_size=40, d_model=16, num_heads=2
    )
    model = build_model(config, seed=4)
    assert model.tgt_embed.tokens.weight is model.src_embed.tokens.weight
    save_checkpoint(model, tmp_path / "shared.safetensors", {})
    loaded, _ = load_checkpoint(tmp_path / "shared.safetensors")
    assert loaded.tgt_embed.tokens.weight is loaded.src_embed.tokens.weight
    src, tgt = torch.tensor([[5, 9, 7]]), torch.tensor([[1, 6]])
    assert torch.equal(loaded(src, tgt).logits, model(src, tgt).logits)
