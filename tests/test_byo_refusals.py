"""Model folders that cannot be loaded are refused with a ValueError that says what is wrong and what is
supported; nothing in them is unpickled or run. Also: GPT-2's pieces (the tanh GELU, Conv1D weights)."""

import json
import math
import pickle
import shutil

import pytest
import torch

from tests.byo_folders import bert_folder, gpt2_folder
from transformer import MAX_MODEL_BYTES, FeedForward, TransformerConfig, build_model, inspect_folder, load_pretrained
from transformer.weight_maps import GPT2, renamed

SUPPORTED = ("BERT", "DistilBERT", "GPT-2", "Llama", "SmolLM", "Mistral", "Qwen2", "Qwen3")


@pytest.fixture(scope="module")
def gpt2_dir(tmp_path_factory):
    return gpt2_folder(tmp_path_factory.mktemp("gpt2"))[1]


@pytest.fixture
def copy(gpt2_dir, tmp_path):
    """A fresh copy of the GPT-2 folder to break."""
    return shutil.copytree(gpt2_dir, tmp_path / "model")


def edit_config(folder, **changes):
    config = json.loads((folder / "config.json").read_text())
    config.update(changes)
    (folder / "config.json").write_text(json.dumps(config))


def refused(folder, match, **kwargs) -> str:
    with pytest.raises(ValueError, match=match) as error:
        load_pretrained(str(folder), **kwargs)
    return str(error.value)


class Payload:
    """Unpickling this would create a file: the proof that nothing was unpickled is that it does not exist."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_only_pickle_weights_are_refused_and_never_opened(copy, tmp_path):
    marker = tmp_path / "unpickled"
    (copy / "model.safetensors").unlink()
    (copy / "pytorch_model.bin").write_bytes(pickle.dumps(Payload(marker)))
    message = refused(copy, "pytorch_model.bin")
    assert "never opened" in message and "safe_serialization=True" in message
    assert not marker.exists()


def test_a_pickle_named_model_safetensors_is_refused(copy, tmp_path):
    marker = tmp_path / "unpickled"
    (copy / "model.safetensors").write_bytes(pickle.dumps(Payload(marker)))
    refused(copy, "pickle")
    assert not marker.exists()


@pytest.mark.parametrize("model_type", ["gemma", "roberta", None])
def test_unsupported_model_type_says_what_is_supported(copy, model_type):
    edit_config(copy, model_type=model_type)
    message = refused(copy, "model_type")
    assert all(name in message for name in SUPPORTED) and "config.json, model.safetensors" in message


@pytest.mark.parametrize(
    "change, match",
    [
        ({"n_inner": 96}, r"feed_forward\.linear1\.\w+' has shape \(128,?.*needs \(96,"),  # the file has 4 x 32
        ({"vocab_size": 400}, r"embed\.tokens\.weight"),
        ({"n_layer": 3}, r"missing \['decoder\.layers\.2\."),
        ({"n_layer": 1}, r"unexpected \['decoder\.layers\.1\."),
    ],
)
def test_shapes_that_do_not_match_the_config_are_refused(copy, change, match):
    edit_config(copy, **change)
    refused(copy, match)


@pytest.mark.parametrize(
    "change, match",
    [
        ({"scale_attn_by_inverse_layer_idx": True}, "scale_attn_by_inverse_layer_idx"),
        ({"add_cross_attention": True}, "add_cross_attention"),
        ({"activation_function": "gelu_fast"}, "activation_function='gelu_fast' is not supported"),
        ({"n_head": 5}, "num_heads"),
    ],
)
def test_options_the_package_cannot_express_are_refused(copy, change, match):
    edit_config(copy, **change)
    refused(copy, match)


def test_a_model_over_the_memory_budget_is_refused_and_the_limit_said(copy):
    edit_config(copy, n_embd=1024, n_head=16, n_layer=24, n_positions=1024, vocab_size=50257)  # GPT-2 medium
    message = refused(copy, "more than the 640 MB")
    assert "355 M parameters" in message
    refused(copy.parent / "model", "more than the 0 MB", max_bytes=1000)
    assert MAX_MODEL_BYTES == 640 * 2**20 > 4 * 134_515_008  # SmolLM2-135M's parameters, as float32


def test_missing_files_are_refused(copy, tmp_path):
    (copy / "tokenizer.json").unlink()
    assert "tokenizer.save_pretrained" in refused(copy, "no tokenizer.json")
    (copy / "config.json").unlink()
    refused(copy, "no config.json")
    refused(tmp_path / "nowhere", "neither a pretrained model")


def test_a_shard_index_without_shards_in_the_folder_is_refused(copy):
    (copy / "model.safetensors").rename(copy / "model-00001-of-00001.safetensors")
    (copy / "model.safetensors.index.json").write_text("{}")
    refused(copy, "no weight_map")
    for shard, match in (
        ("../elsewhere.safetensors", "in the folder itself"),
        ("gone.safetensors", "not in the folder"),
    ):
        (copy / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {"wte.weight": shard}}))
        refused(copy, match)


def test_a_tokenizer_of_another_kind_or_vocabulary_is_refused(copy, tmp_path):
    bert_dir = bert_folder(tmp_path / "bert")[1]
    shutil.copy(bert_dir / "tokenizer.json", copy / "tokenizer.json")
    refused(copy, "not BPE")


def test_inspecting_reads_no_weights(gpt2_dir):
    info = inspect_folder(gpt2_dir)
    assert (info.model_type, info.kind, info.architecture, info.name) == (
        "gpt2",
        "decoder-only",
        "GPT-2",
        gpt2_dir.name,
    )
    assert (
        info.parameters
        == 320 * 32 + 64 * 32 + 2 * (4 * 32 + 32 * 96 + 96 + 32 * 32 + 32 + 32 * 128 * 2 + 128 + 32) + 2 * 32
    )  # wte, wpe, two layers, ln_f (the output matrix is the embedding's)
    assert info.bytes == 4 * info.parameters and info.size == f"GPT-2 · {info.parameters:,} parameters"


def test_gelu_tanh_is_the_tanh_formula():
    x = torch.linspace(-6, 6, 101)
    ffn = FeedForward(1, 1, activation="gelu_tanh")
    expected = 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    torch.testing.assert_close(ffn.activation(x), expected, atol=1e-6, rtol=0)
    assert (ffn.activation(x) - torch.nn.functional.gelu(x)).abs().max() > 1e-4  # not the erf GELU


def test_defaults_leave_existing_models_unchanged():
    config = TransformerConfig()
    assert (config.activation, config.output_bias) == ("relu", True)
    assert "generator.bias" in build_model(config, 0, "decoder-only").state_dict()
    no_bias = build_model(TransformerConfig(output_bias=False, output_head="tied"), 0, "decoder-only")
    assert not any(name.startswith("generator") for name in no_bias.state_dict())


def test_conv1d_weights_are_transposed_and_qkv_cut_in_three():
    d = 4
    c_attn = torch.arange(d * 3 * d, dtype=torch.float32).reshape(d, 3 * d)  # [in, out]: y = x W + b
    bias = torch.arange(3 * d, dtype=torch.float32)
    ours = renamed(
        {
            "transformer.h.0.attn.c_attn.weight": c_attn,
            "h.0.attn.c_attn.bias": bias,
            "h.0.mlp.c_fc.weight": torch.ones(d, 3),
            "wte.weight": torch.ones(5, d),
        },
        GPT2,
    )
    x = torch.randn(2, d)
    for i, part in enumerate(("w_q", "w_k", "w_v")):
        weight, b = ours[f"decoder.layers.0.self_attn.{part}.weight"], ours[f"decoder.layers.0.self_attn.{part}.bias"]
        torch.testing.assert_close(x @ weight.T + b, (x @ c_attn + bias)[:, i * d : (i + 1) * d])
    assert ours["decoder.layers.0.feed_forward.linear1.weight"].shape == (3, d)
    assert ours["embed.tokens.weight"].shape == (5, d)  # embeddings are not transposed
    assert renamed({"h.0.attn.bias": torch.ones(1, 1, 4, 4), "lm_head.weight": torch.ones(5, d)}, GPT2) == {}
    with pytest.raises(ValueError, match="no place in a GPT-2 model"):
        renamed({"h.0.attn.c_extra.weight": torch.ones(2, 2)}, GPT2)


def test_weights_with_nan_are_refused(copy):
    from safetensors.torch import load_file, save_file

    tensors = load_file(copy / "model.safetensors")
    tensors["transformer.h.1.mlp.c_fc.weight"][3, 5] = float("nan")
    save_file(tensors, copy / "model.safetensors", metadata={"format": "pt"})
    refused(copy, r"decoder\.layers\.1\.feed_forward\.linear1\.weight' hold NaN")


def test_a_loaded_model_is_one_block_of_float32_memory(gpt2_dir):
    model, _ = load_pretrained(gpt2_dir)
    storages = {p.untyped_storage().data_ptr() for p in model.parameters()}
    assert len(storages) == 1 and all(p.dtype == torch.float32 and p.is_contiguous() for p in model.parameters())
    assert model.parameters().__next__().untyped_storage().nbytes() == 4 * sum(p.numel() for p in model.parameters())
