"""Safetensors checkpoints: bit-identical round trips, and every kind of bad file refused with a ValueError."""

import json
import pickle
import struct

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

import transformer.checkpoint as checkpoint_module
from transformer import (HashTokenizer, TransformerConfig, VocabTokenizer, build_model, checkpoint_data,
                         checkpoint_info, load_checkpoint, save_checkpoint)

WORDS = tuple(f"w{i}" for i in range(20))
CASES = {
    "encoder-decoder": (TransformerConfig(d_model=16, num_heads=2, d_ff=32, src_vocab_size=40, tgt_vocab_size=48,
                                          max_len=16), HashTokenizer(vocab_size=40)),
    "encoder-decoder-rotary-tied": (TransformerConfig(d_model=8, num_heads=2, d_ff=16, positional="rotary",
                                                      norm_first=True, output_head="tied", src_vocab_size=30,
                                                      tgt_vocab_size=30, max_len=16), HashTokenizer(30, "char")),
    "decoder-only": (TransformerConfig(d_model=12, num_heads=3, num_decoder_layers=2, d_ff=24, positional="learned",
                                       output_head="tied", tgt_vocab_size=24, max_len=16), VocabTokenizer(WORDS)),
    "encoder-only": (TransformerConfig(d_model=16, num_heads=4, num_encoder_layers=2, d_ff=32, positional="learned",
                                       embed_scale=False, type_vocab_size=2, embed_norm=True, activation="gelu",
                                       layer_norm_eps=1e-12, bias=False, output_head="tied", src_vocab_size=24,
                                       max_len=16), VocabTokenizer(WORDS, "char")),
}
EXTRA = {"task": "copy", "steps": 120, "metrics": {"accuracy": 0.75, "loss": [2.5, 1.25]}, "seed": 3, "name": "tiny"}


def _kind(case: str) -> str:
    return next(kind for kind in ("encoder-decoder", "decoder-only", "encoder-only") if case.startswith(kind))


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


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """{case: (model, path)}, each model saved once."""
    folder = tmp_path_factory.mktemp("checkpoints")
    result = {}
    for case, (config, tokenizer) in CASES.items():
        model = build_model(config, seed=7, kind=_kind(case))
        save_checkpoint(model, folder / f"{case}.safetensors", {**EXTRA, "tokenizer": tokenizer})
        result[case] = model, folder / f"{case}.safetensors"
    return result


@pytest.mark.parametrize("as_bytes", [False, True], ids=["path", "bytes"])
@pytest.mark.parametrize("case", list(CASES))
def test_round_trip_is_bit_identical(saved, case, as_bytes):
    model, path = saved[case]
    loaded, metadata = load_checkpoint(path.read_bytes() if as_bytes else str(path))
    assert type(loaded) is type(model) and not any(m.training for m in loaded.modules())
    logits, hidden, weights = _run(model, _kind(case))
    logits2, hidden2, weights2 = _run(loaded, _kind(case))
    assert torch.equal(logits, logits2) and torch.equal(hidden, hidden2)
    assert list(weights) == list(weights2) and len(weights) >= 2
    for name in weights:
        assert torch.equal(weights[name], weights2[name]), name
    for name, tensor in model.state_dict().items():
        assert torch.equal(tensor, loaded.state_dict()[name]), name
    config, tokenizer = CASES[case]
    assert metadata == {**EXTRA, "kind": _kind(case), "config": config, "tokenizer": tokenizer}


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
            {"task": "copy"} if name == "bare" else {})
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


# ---- bad files ----------------------------------------------------------------------------

def _rejects(path, match: str, info: bool = True) -> None:
    """load_checkpoint (and, when the header is at fault, checkpoint_info) refuse the file, by path and by bytes."""
    for source in (path, path.read_bytes()):
        with pytest.raises(ValueError, match=match):
            load_checkpoint(source)
        if info:
            with pytest.raises(ValueError, match=match):
                checkpoint_info(source)


def _variant(saved, tmp_path, tensors=None, metadata=None):
    """The decoder-only checkpoint re-saved by safetensors itself after editing its tensors or metadata."""
    source = str(saved["decoder-only"][1])
    weights = load_file(source)
    with safe_open(source, framework="pt") as file:
        meta = file.metadata()
    weights = tensors(weights) if tensors else weights
    meta = metadata(meta) if metadata else meta
    save_file(weights, str(tmp_path / "variant.safetensors"), metadata=meta)
    return tmp_path / "variant.safetensors"


def _edit_json(key: str, change):
    """A metadata editor: parse meta[key] as JSON, apply ``change`` to it, store it back."""
    def edit(meta):
        value = json.loads(meta[key])
        change(value)
        return {**meta, key: json.dumps(value)}
    return edit


class _Payload:
    """Unpickling this creates ``marker``: proof that code in a pickle ran."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return open, (self.marker, "w")


def test_truncated_in_the_header(saved, tmp_path):
    (tmp_path / "cut.safetensors").write_bytes(saved["decoder-only"][1].read_bytes()[:40])
    _rejects(tmp_path / "cut.safetensors", "truncated")


def test_truncated_in_the_data(saved, tmp_path):
    (tmp_path / "cut.safetensors").write_bytes(saved["decoder-only"][1].read_bytes()[:-10])
    _rejects(tmp_path / "cut.safetensors", "truncated")


def test_shorter_than_eight_bytes(tmp_path):
    (tmp_path / "tiny.safetensors").write_bytes(b"abc")
    _rejects(tmp_path / "tiny.safetensors", "only 3 bytes")


def test_pickle_is_refused_and_never_run(tmp_path):
    proof = tmp_path / "proof"
    pickle.loads(pickle.dumps(_Payload(proof))).close()
    assert proof.exists()  # the payload is live: unpickling it runs code
    marker = tmp_path / "marker"
    (tmp_path / "model.safetensors").write_bytes(pickle.dumps({"weights": _Payload(marker)}))
    _rejects(tmp_path / "model.safetensors", "pickle")
    assert not marker.exists()


def test_torch_save_file_is_refused_and_never_run(tmp_path):
    marker = tmp_path / "marker"
    torch.save({"w": torch.zeros(3), "evil": _Payload(marker)}, tmp_path / "dict.safetensors")
    torch.save(torch.zeros(4, 4), tmp_path / "tensor.safetensors")
    _rejects(tmp_path / "dict.safetensors", "pickle")
    _rejects(tmp_path / "tensor.safetensors", "pickle")
    assert not marker.exists()


def test_absurd_header_length(tmp_path):
    (tmp_path / "big.safetensors").write_bytes(struct.pack("<Q", 2**40) + b"{}" * 100)
    _rejects(tmp_path / "big.safetensors", "header of 1099511627776 bytes")


def test_header_that_is_not_json(tmp_path):
    (tmp_path / "junk.safetensors").write_bytes(struct.pack("<Q", 12) + b"hello, world" + b"\0" * 8)
    _rejects(tmp_path / "junk.safetensors", "not JSON")


def test_over_the_size_cap_is_refused_before_reading(saved, monkeypatch):
    monkeypatch.setattr(checkpoint_module, "MAX_CHECKPOINT_BYTES", 1000)

    def no_reading(*args, **kwargs):
        raise AssertionError("the file was opened although its size is over the cap")

    monkeypatch.setattr(checkpoint_module, "open", no_reading, raising=False)
    _rejects(saved["decoder-only"][1], "larger than")


def test_wrong_shape(saved, tmp_path):
    def shrink(weights):
        weights["embed.tokens.weight"] = weights["embed.tokens.weight"][:10]
        return weights
    _rejects(_variant(saved, tmp_path, tensors=shrink), "embed.tokens.weight.*shape")


def test_missing_tensor(saved, tmp_path):
    def drop(weights):
        del weights["decoder.layers.1.self_attn.w_q.weight"]
        return weights
    _rejects(_variant(saved, tmp_path, tensors=drop), "missing.*decoder.layers.1.self_attn.w_q.weight")


def test_unknown_tensor(saved, tmp_path):
    _rejects(_variant(saved, tmp_path, tensors=lambda w: {**w, "extra.weight": torch.zeros(2)}),
             "unexpected.*extra.weight")


@pytest.mark.parametrize("dtype, match", [(torch.float16, "float16 .a floating-point type but not float32"),
                                          (torch.float64, "float64"),
                                          (torch.int64, "int64 .not a floating-point type")])
def test_not_float32(saved, tmp_path, dtype, match):
    def convert(weights):
        weights["generator.bias"] = weights["generator.bias"].to(dtype)
        return weights
    _rejects(_variant(saved, tmp_path, tensors=convert), f"generator.bias.*{match}")


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_weights(saved, tmp_path, value):
    def spoil(weights):
        weights["decoder.layers.0.norm1.weight"][3] = value
        return weights
    path = _variant(saved, tmp_path, tensors=spoil)
    _rejects(path, "decoder.layers.0.norm1.weight.*NaN or infinite", info=False)
    assert checkpoint_info(path)["kind"] == "decoder-only"


def test_plain_safetensors_without_metadata(tmp_path):
    save_file({"weight": torch.zeros(2, 2)}, str(tmp_path / "plain.safetensors"))
    _rejects(tmp_path / "plain.safetensors", "no Attention Lab metadata")


def test_safetensors_from_another_program(saved, tmp_path):
    _rejects(_variant(saved, tmp_path, metadata=lambda meta: {"format": "pt"}), "another program")


def test_unknown_config_option(saved, tmp_path):
    edit = _edit_json("config", lambda config: config.update(d_modle=8))
    _rejects(_variant(saved, tmp_path, metadata=edit), "config is invalid: unknown option.*d_modle")


def test_invalid_config_value(saved, tmp_path):
    edit = _edit_json("config", lambda config: config.update(num_heads=5))
    _rejects(_variant(saved, tmp_path, metadata=edit), "not divisible by num_heads=5")


def test_unknown_kind(saved, tmp_path):
    _rejects(_variant(saved, tmp_path, metadata=lambda meta: {**meta, "kind": "mixture"}), "kind='mixture'")


def test_newer_format_version(saved, tmp_path):
    _rejects(_variant(saved, tmp_path, metadata=lambda meta: {**meta, "version": "2"}), "version '2'")


@pytest.mark.parametrize("tokenizer, match", [
    ({"kind": "bpe"}, "tokenizer is invalid: tokenizer kind 'bpe'"),
    ({"kind": "vocab", "vocabulary": ["a", "a"]}, "tokenizer is invalid"),
    ({"kind": "hash", "vocab_size": 4096}, "4096 ids but the model has only 24 embeddings")])
def test_bad_tokenizer(saved, tmp_path, tokenizer, match):
    edit = lambda meta: {**meta, "tokenizer": json.dumps(tokenizer)}  # noqa: E731
    _rejects(_variant(saved, tmp_path, metadata=edit), match)


@pytest.mark.parametrize("change, match", [({"num_decoder_layers": 10**9}, "1000000000 layers"),
                                           ({"max_len": 10**10, "positional": "sinusoidal"}, "too big"),
                                           ({"d_model": 3 * 2**20, "d_ff": 2**20}, "too big")])
def test_absurd_config_is_refused_before_the_model_is_built(saved, tmp_path, change, match):
    _rejects(_variant(saved, tmp_path, metadata=_edit_json("config", lambda c: c.update(change))), match)


def _raw(tmp_path, header, data: bytes = b"") -> object:
    """A file written byte by byte: 8-byte length, the JSON ``header`` (any JSON value), ``data``."""
    text = json.dumps(header).encode()
    (tmp_path / "raw.safetensors").write_bytes(struct.pack("<Q", len(text)) + text + data)
    return tmp_path / "raw.safetensors"


def test_header_that_is_json_but_not_an_object(tmp_path):
    _rejects(_raw(tmp_path, ["weight", 1, 2]), "not JSON in the safetensors layout")


def test_metadata_values_that_are_not_strings(tmp_path):
    _rejects(_raw(tmp_path, {"__metadata__": {"format": "attention-lab-checkpoint", "version": 1}}),
             "not JSON in the safetensors layout")


def test_unknown_dtype_code(tmp_path):
    _rejects(_raw(tmp_path, {"w": {"dtype": "Q9", "shape": [2], "data_offsets": [0, 8]}}, bytes(8)),
             "not JSON in the safetensors layout")


@pytest.mark.parametrize("entry", [{"dtype": "F32", "shape": [3], "data_offsets": [0, 8]},   # 3 floats in 8 bytes
                                   {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]},   # backwards
                                   {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}])
def test_tensor_entry_that_does_not_fit_its_bytes(tmp_path, entry):
    with pytest.raises(ValueError):
        checkpoint_info(_raw(tmp_path, {"w": entry}, bytes(8)))
    with pytest.raises(ValueError):
        load_checkpoint(_raw(tmp_path, {"w": entry}, bytes(8)).read_bytes())


def test_bytes_added_after_the_tensors(saved, tmp_path):
    (tmp_path / "long.safetensors").write_bytes(saved["decoder-only"][1].read_bytes() + bytes(16))
    _rejects(tmp_path / "long.safetensors", "bytes added after the tensors")


def test_missing_file_and_a_source_that_is_neither_path_nor_bytes(tmp_path):
    with pytest.raises(ValueError, match="cannot read the checkpoint"):
        load_checkpoint(tmp_path / "nowhere.safetensors")
    with pytest.raises(TypeError, match="path or bytes"):
        checkpoint_info(1234)


def test_a_model_with_the_papers_shared_token_matrix_round_trips(tmp_path):
    """One matrix for source, target and the output layer: saved once, and shared again after loading."""
    from transformer import TransformerConfig, build_model, load_checkpoint, save_checkpoint

    config = TransformerConfig(share_embeddings=True, output_head="tied", src_vocab_size=40, tgt_vocab_size=40,
                               d_model=16, num_heads=2)
    model = build_model(config, seed=4)
    assert model.tgt_embed.tokens.weight is model.src_embed.tokens.weight
    save_checkpoint(model, tmp_path / "shared.safetensors", {})
    loaded, _ = load_checkpoint(tmp_path / "shared.safetensors")
    assert loaded.tgt_embed.tokens.weight is loaded.src_embed.tokens.weight
    src, tgt = torch.tensor([[5, 9, 7]]), torch.tensor([[1, 6]])
    assert torch.equal(loaded(src, tgt).logits, model(src, tgt).logits)


def test_a_header_length_that_starts_like_a_pickle_byte_is_still_a_checkpoint(tmp_path):
    """A safetensors file's first byte is the low byte of its header length: 0x80 (a pickle's first byte)
    for one length in 256. Such a file is read, and a real pickle is still refused."""
    from transformer import TransformerConfig, build_model, load_checkpoint, save_checkpoint

    model = build_model(TransformerConfig(d_model=8, num_heads=2, src_vocab_size=12, tgt_vocab_size=12),
                        kind="decoder-only")
    for padding in range(256):
        path = tmp_path / "model.safetensors"
        save_checkpoint(model, path, {"note": "x" * padding})
        if path.read_bytes()[0] == 0x80:
            break
    else:
        pytest.fail("no metadata length gave a header length ending in 0x80")
    loaded, metadata = load_checkpoint(path)
    assert metadata["note"] == "x" * padding
    pickled = tmp_path / "model.pkl"
    pickled.write_bytes(pickle.dumps({"weights": [1, 2, 3]}))
    with pytest.raises(ValueError, match="pickle"):
        load_checkpoint(pickled)
