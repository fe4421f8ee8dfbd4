"""Today's decoders' folders, read in pieces and refused: shards listed in ``model.safetensors.index.json``
load as one file does; an option the package cannot compute is a ValueError that names it."""

import json
import shutil

import pytest
import torch

from tests.byo_decoders import decoder_folder
from transformer import load_pretrained
from transformer.hf_configs import llama_config
from transformer.weight_maps import halves_to_pairs


@pytest.fixture(scope="module")
def qwen3(tmp_path_factory):
    return decoder_folder(tmp_path_factory.mktemp("qwen3") / "qwen3", "qwen3")


@pytest.fixture
def copy(qwen3, tmp_path):
    return shutil.copytree(qwen3[1], tmp_path / "model")


def edit_config(folder, **changes):
    config = json.loads((folder / "config.json").read_text())
    config.update(changes)
    (folder / "config.json").write_text(json.dumps(config))


def test_sharded_weights_load_as_one_file_does(qwen3, tmp_path):
    hf_model, folder, _ = qwen3
    sharded = tmp_path / "sharded"
    hf_model.save_pretrained(sharded, safe_serialization=True, max_shard_size="40KB")
    shutil.copy(folder / "tokenizer.json", sharded)
    shards = sorted(p.name for p in sharded.glob("*.safetensors"))
    assert len(shards) >= 3 and (sharded / "model.safetensors.index.json").is_file()
    whole, _ = load_pretrained(folder)
    pieces, _ = load_pretrained(sharded)
    ids = torch.arange(3, 20)[None]
    torch.testing.assert_close(pieces(ids).logits, whole(ids).logits, atol=0, rtol=0)


@pytest.mark.parametrize(
    "change, match",
    [
        ({"rope_parameters": {"rope_type": "yarn", "rope_theta": 1e4, "factor": 4.0}}, "type 'yarn' is not supported"),
        ({"rope_parameters": {"rope_type": "default", "rope_theta": 1e4, "partial_rotary_factor": 0.5}}, "partial"),
        ({"hidden_act": "relu"}, "hidden_act='relu' is not supported"),
        ({"attention_bias": True}, "attention_bias"),
        ({"use_sliding_window": True, "sliding_window": 4, "max_window_layers": 1, "layer_types": None}, "some layers"),
        ({"num_key_value_heads": 3}, "num_kv_heads=3 must divide num_heads=4"),
    ],
)
def test_what_the_package_cannot_compute_is_refused_by_name(copy, change, match):
    edit_config(copy, **change)
    with pytest.raises(ValueError, match=match):
        load_pretrained(copy)


SIZES = {
    "hidden_size": 32,
    "num_attention_heads": 4,
    "num_hidden_layers": 2,
    "intermediate_size": 64,
    "max_position_embeddings": 64,
    "vocab_size": 100,
}


def test_every_layer_sliding_is_one_window():
    config = llama_config(
        {
            "model_type": "qwen2",
            **SIZES,
            "use_sliding_window": True,
            "sliding_window": 6,
            "max_window_layers": 0,
        }
    )
    assert config.attention_window == 6 and config.qkv_bias and config.pe_base == 10000.0


def test_old_configs_name_rope_theta_and_rope_scaling_outside_rope_parameters():
    config = llama_config(
        {
            "model_type": "llama",
            **SIZES,
            "rope_theta": 500000.0,
            "rope_scaling": {"type": "linear", "factor": 2.0},
            "tie_word_embeddings": True,
        }
    )
    assert (config.pe_base, config.rope_scaling, config.output_head) == (500000.0, ("linear", 2.0), "tied")


def test_rope_halves_become_pairs():
    """Head rows [a0 a1 a2 a3 | b0 b1 b2 b3] become [a0 b0 a1 b1 a2 b2 a3 b3], each head alone."""
    rows = torch.arange(16.0)[:, None].expand(16, 3)
    paired = halves_to_pairs(rows, 8)[:, 0].tolist()
    assert paired == [0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15]
    assert halves_to_pairs(torch.arange(8.0), 8).tolist() == [0, 4, 1, 5, 2, 6, 3, 7]
