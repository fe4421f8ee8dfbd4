"""The Vision Transformer built, saved and trained: seeded builds, checkpoints bit for bit, the shipped checkpoint
on the held-out digits read straight from the data file, and thirty training steps that repeat exactly."""

from __future__ import annotations

import pytest
import torch
from safetensors.numpy import load_file as load_numpy

from tests.test_vision import COLOUR, DATA, LAYER_1, POST_LN, PRE_LN, SHIPPED, images, run
from transformer import TransformerConfig, build_model, checkpoint_data, checkpoint_info, load_checkpoint
from transformer import save_checkpoint, train_vision
from transformer.spec import ModelSpec

torch.set_num_threads(1)


def test_build_model_is_seeded_and_names_the_kind():
    a, b = build_model(PRE_LN, seed=7, kind="vision"), build_model(PRE_LN, seed=7, kind="vision")
    assert a.kind == "vision" and not a.training
    assert all(torch.equal(t, b.state_dict()[n]) for n, t in a.state_dict().items())
    c = build_model(PRE_LN, seed=8, kind="vision")
    assert not torch.equal(a.state_dict()["embed.cls.weight"], c.state_dict()["embed.cls.weight"])
    spec = ModelSpec.random(PRE_LN, 7, "vision")
    assert spec.label == "random vision · seed 7"


@pytest.mark.parametrize("config", [POST_LN, PRE_LN, COLOUR])
def test_checkpoints_round_trip_bit_for_bit(tmp_path, config):
    model = build_model(config, seed=5, kind="vision")
    path = tmp_path / "vit.safetensors"
    save_checkpoint(model, path, {"name": "vit", "note": [1, 2]})
    loaded, metadata = load_checkpoint(path)
    assert loaded.kind == "vision" and metadata["kind"] == "vision" and metadata["config"] == config
    assert metadata["tokenizer"] is None and metadata["note"] == [1, 2]
    original, restored = model.state_dict(), loaded.state_dict()
    assert original.keys() == restored.keys()
    assert all(torch.equal(original[name], restored[name]) for name in original)
    x = images(config, seed=9)
    assert torch.equal(run(loaded, x).logits, run(model, x).logits)
    again, _ = load_checkpoint(checkpoint_data(loaded, {"name": "vit"}))  # saved from the loaded model
    assert all(torch.equal(original[name], again.state_dict()[name]) for name in original)
    assert checkpoint_info(path.read_bytes())["kind"] == "vision"
    with open(path, "rb") as file:
        assert not file.read(2).startswith(b"\x80")  # safetensors, not a pickle


def test_a_vision_checkpoint_has_no_tokenizer():
    with pytest.raises(ValueError, match="no tokenizer"):
        checkpoint_data(build_model(POST_LN, kind="vision"), {"tokenizer": {"kind": "hash", "vocab_size": 10}})


def test_the_shipped_checkpoint_classifies_the_held_out_digits():
    """Held-out accuracy >= 97 %, from the data file read here (not with the package's loader)."""
    assert SHIPPED.stat().st_size < 1024 * 1024
    model, metadata = load_checkpoint(SHIPPED)
    raw = load_numpy(str(DATA))
    held = raw["heldout"]
    x = torch.from_numpy(raw["images"][held]).float()[:, None] / 16.0
    truth = torch.from_numpy(raw["labels"][held]).long()
    accuracy = float((run(model, x).logits.argmax(-1) == truth).float().mean())
    assert accuracy >= 0.97
    assert metadata["kind"] == "vision" and metadata["target"] == 0.97
    assert abs(accuracy - metadata["metrics"]["val_accuracy"]) <= 2 / len(truth)  # what the file says
    out = run(model, x[:2], return_attention=True)
    assert out.attention.weights[LAYER_1].shape == (2, 4, 17, 17)


def test_thirty_training_steps_lower_the_loss_and_repeat_exactly():
    config = TransformerConfig(
        d_model=32, num_heads=2, num_encoder_layers=2, d_ff=64, dropout=0.0, positional="learned", norm_first=True
    )
    model, history = train_vision(config, seed=1, steps=30, eval_every=15)
    assert [row["step"] for row in history] == [0, 15, 30]
    assert history[-1]["train_loss"] < 0.8 * history[0]["train_loss"]
    assert history[-1]["val_loss"] < history[0]["val_loss"]
    assert history[-1]["val_accuracy"] > 0.15 and not model.training  # chance is 0.1
    again, repeat = train_vision(config, seed=1, steps=30, eval_every=15)
    assert [row["val_loss"] for row in repeat] == [row["val_loss"] for row in history]
    assert all(torch.equal(t, again.state_dict()[n]) for n, t in model.state_dict().items())
