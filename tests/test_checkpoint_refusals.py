"""Safetensors checkpoints: every kind of bad file refused with a ValueError, and a pickle never run."""

import json
import pickle
import struct

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

import transformer.checkpoint as checkpoint_module
from transformer import checkpoint_info, load_checkpoint


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
    _rejects(
        _variant(saved, tmp_path, tensors=lambda w: {**w, "extra.weight": torch.zeros(2)}), "unexpected.*extra.weight"
    )


@pytest.mark.parametrize(
    "dtype, match",
    [
        (torch.float16, "float16 .a floating-point type but not float32"),
        (torch.float64, "float64"),
        (torch.int64, "int64 .not a floating-point type"),
    ],
)
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


@pytest.mark.parametrize(
    "tokenizer, match",
    [
        ({"kind": "bpe"}, "tokenizer is invalid: tokenizer kind 'bpe'"),
        ({"kind": "vocab", "vocabulary": ["a", "a"]}, "tokenizer is invalid"),
        ({"kind": "hash", "vocab_size": 4096}, "4096 ids but the model has only 24 embeddings"),
    ],
)
def test_bad_tokenizer(saved, tmp_path, tokenizer, match):
    edit = lambda meta: {**meta, "tokenizer": json.dumps(tokenizer)}  # noqa: E731
    _rejects(_variant(saved, tmp_path, metadata=edit), match)


@pytest.mark.parametrize(
    "change, match",
    [
        ({"num_decoder_layers": 10**9}, "1000000000 layers"),
        ({"max_len": 10**10, "positional": "sinusoidal"}, "too big"),
        ({"d_model": 3 * 2**20, "d_ff": 2**20}, "too big"),
    ],
)
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
    _rejects(
        _raw(tmp_path, {"__metadata__": {"format": "attention-lab-checkpoint", "version": 1}}),
        "not JSON in the safetensors layout",
    )


def test_unknown_dtype_code(tmp_path):
    _rejects(
        _raw(tmp_path, {"w": {"dtype": "Q9", "shape": [2], "data_offsets": [0, 8]}}, bytes(8)),
        "not JSON in the safetensors layout",
    )


@pytest.mark.parametrize(
    "entry",
    [
        {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]},  # 3 floats in 8 bytes
        {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]},  # backwards
        {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]},
    ],
)
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


def test_a_header_length_that_starts_like_a_pickle_byte_is_still_a_checkpoint(tmp_path):
    """A safetensors file's first byte is the low byte of its header length: 0x80 (a pickle's first byte)
    for one length in 256. Such a file is read, and a real pickle is still refused."""
    from transformer import TransformerConfig, build_model, load_checkpoint, save_checkpoint

    model = build_model(
        TransformerConfig(d_model=8, num_heads=2, src_vocab_size=12, tgt_vocab_size=12), kind="decoder-only"
    )
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
