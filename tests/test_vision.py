"""The Vision Transformer, checked against computations made here from its state dict and torch primitives:
patches against ``F.unfold`` and slicing, the attention of layer 1 and the logits by hand, interventions
against forward hooks on W^O (building, checkpoints and the shipped model: test_vision_checkpoints.py)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
from torch.nn import functional as F

from transformer import (
    Ablate,
    Patch,
    TransformerConfig,
    build_model,
    load_checkpoint,
    patches,
)

torch.set_num_threads(1)

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "checkpoints" / "digits_vit.safetensors"
DATA = ROOT / "transformer" / "data" / "digits.safetensors"
SMALL = dict(d_model=16, num_heads=4, num_encoder_layers=2, d_ff=32, dropout=0.0, positional="learned")
POST_LN = TransformerConfig(**SMALL)
PRE_LN = TransformerConfig(**SMALL, norm_first=True, activation="gelu")
COLOUR = TransformerConfig(
    **{**SMALL, "positional": "sinusoidal"}, image_size=12, patch_size=4, channels=3, num_classes=5
)
LAYER_0, LAYER_1 = "encoder.layers.0.self_attn", "encoder.layers.1.self_attn"


def images(config: TransformerConfig, batch: int = 3, seed: int = 0) -> torch.Tensor:
    size = (batch, config.channels, config.image_size, config.image_size)
    return torch.rand(size, generator=torch.Generator().manual_seed(seed))


def run(model, x, **kwargs):
    with torch.inference_mode():
        return model(x, **kwargs)


# ---- patches --------------------------------------------------------------------------------------------


def test_patches_are_unfolds_columns_in_row_major_order_channel_major_inside():
    x = images(COLOUR, batch=2)
    p, per_row = 4, 12 // 4
    got = patches(x, p)
    assert got.shape == (2, 9, 3 * 4 * 4)
    torch.testing.assert_close(got, F.unfold(x, kernel_size=p, stride=p).transpose(1, 2), rtol=0, atol=0)
    for i in range(9):
        row, column = i // per_row, i % per_row
        block = x[:, :, row * p : (row + 1) * p, column * p : (column + 1) * p]  # [B, C, p, p]
        assert torch.equal(got[:, i], block.reshape(2, -1))


def test_a_patch_size_that_does_not_divide_the_image_is_refused_with_the_sizes_that_do():
    with pytest.raises(ValueError, match=r"^patch_size 3 does not divide image_size 8: pick 1, 2, 4 or 8\.$"):
        TransformerConfig(patch_size=3)
    with pytest.raises(ValueError, match="pick 1, 2, 3, 4, 6 or 12"):
        TransformerConfig(image_size=12, patch_size=5)
    model = build_model(POST_LN, kind="vision")
    with pytest.raises(ValueError, match=r"\[batch, 1, 8, 8\]"):
        model(torch.rand(2, 1, 8, 6))
    with pytest.raises(ValueError, match="floating point"):
        model(torch.zeros(2, 1, 8, 8, dtype=torch.uint8))


# ---- the forward pass by hand ---------------------------------------------------------------------------


def linear(x, state, name):
    return x @ state[f"{name}.weight"].T + state[f"{name}.bias"]


def norm(x, state, name, config):
    return F.layer_norm(x, (config.d_model,), state[f"{name}.weight"], state[f"{name}.bias"], config.layer_norm_eps)


def sinusoids(length: int, d: int) -> torch.Tensor:
    table = torch.zeros(length, d)
    for pos in range(length):
        for i in range(0, d, 2):
            table[pos, i] = math.sin(pos / 10000 ** (i / d))
            if i + 1 < d:
                table[pos, i + 1] = math.cos(pos / 10000 ** (i / d))
    return table


def embedded_by_hand(x, state, config):
    """z_0 = [cls; unfold(x)^T W_E^T + b_E] + E_pos."""
    p = config.patch_size
    tokens = linear(F.unfold(x, p, stride=p).transpose(1, 2), state, "embed.projection")
    z = torch.cat([state["embed.cls.weight"].expand(len(x), 1, -1), tokens], dim=1)
    if config.positional == "learned":
        z = z + state["embed.position.table.weight"]
    elif config.positional == "sinusoidal":
        z = z + sinusoids(z.shape[1], config.d_model)
    return z


def attention_by_hand(x, state, name, config, slice_edit=None):
    """softmax(Q K^T / sqrt(d_k)) V per head, concatenated, times W^O; ``slice_edit`` may change the
    concatenation [B, L, d] before W^O. Returns (output, weights [B, H, L, L])."""
    heads, d_head = config.num_heads, config.d_head
    split = lambda t: t.reshape(t.shape[0], t.shape[1], heads, d_head).transpose(1, 2)  # noqa: E731
    q, k, v = (split(linear(x, state, f"{name}.w_{part}")) for part in "qkv")
    weights = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d_head), dim=-1)
    concat = (weights @ v).transpose(1, 2).reshape(x.shape[0], x.shape[1], config.d_model)
    if slice_edit is not None:
        concat = slice_edit(concat)
    return linear(concat, state, f"{name}.w_o"), weights


def layer_by_hand(x, state, i, config, slice_edit=None):
    """One encoder layer, pre-LN x + Sub(LN(x)) or post-LN LN(x + Sub(x)); returns (x, weights)."""
    name = f"encoder.layers.{i}"
    act = F.gelu if config.activation == "gelu" else F.relu

    def ffn(h):
        return linear(act(linear(h, state, f"{name}.feed_forward.linear1")), state, f"{name}.feed_forward.linear2")

    if config.norm_first:
        out, weights = attention_by_hand(
            norm(x, state, f"{name}.norm1", config), state, f"{name}.self_attn", config, slice_edit
        )
        x = x + out
        return x + ffn(norm(x, state, f"{name}.norm2", config)), weights
    out, weights = attention_by_hand(x, state, f"{name}.self_attn", config, slice_edit)
    x = norm(x + out, state, f"{name}.norm1", config)
    return norm(x + ffn(x), state, f"{name}.norm2", config), weights


def forward_by_hand(x, state, config, edits=None):
    """(logits from the final [CLS] vector, [weights of layer 0, weights of layer 1])."""
    edits = edits or {}
    z, maps = embedded_by_hand(x, state, config), []
    for i in range(config.num_encoder_layers):
        z, weights = layer_by_hand(z, state, i, config, edits.get(i))
        maps.append(weights)
    if config.norm_first:
        z = norm(z, state, "encoder.norm", config)
    return linear(z[:, 0], state, "head"), maps


def shipped_or_built(which: str):
    if which == "shipped":
        model, metadata = load_checkpoint(SHIPPED)
        return model, metadata["config"]
    config = {
        "post-LN": POST_LN,
        "pre-LN": PRE_LN,
        "colour": COLOUR,
        "no positions": TransformerConfig(**{**SMALL, "positional": "none"}),
    }[which]
    return build_model(config, seed=3, kind="vision"), config


@pytest.mark.parametrize("which", ["post-LN", "pre-LN", "colour", "no positions", "shipped"])
def test_attention_of_layer_1_and_the_logits_equal_a_computation_by_hand(which):
    model, config = shipped_or_built(which)
    x = images(config, seed=5)
    out = run(model, x, return_attention=True, return_scores=True)
    logits, maps = forward_by_hand(x, model.state_dict(), config)
    tokens = 1 + (config.image_size // config.patch_size) ** 2
    assert out.attention.weights[LAYER_1].shape == (3, config.num_heads, tokens, tokens)
    assert out.hidden.shape == (3, tokens, config.d_model)
    assert list(out.attention.weights) == [LAYER_0, LAYER_1]
    torch.testing.assert_close(out.attention.weights[LAYER_1], maps[1], rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(out.attention.weights[LAYER_0], maps[0], rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(out.logits, logits, rtol=1e-4, atol=1e-4)
    assert out.attention.scores[LAYER_1].shape == maps[1].shape


def test_the_head_reads_token_0_the_cls_token():
    model = build_model(PRE_LN, seed=1, kind="vision")
    out = run(model, images(PRE_LN), return_internals=True)
    state = model.state_dict()
    torch.testing.assert_close(out.logits, out.hidden[:, 0] @ state["head.weight"].T + state["head.bias"])
    embed = out.attention.internals["encoder.embed"]  # token 0 is the same for every image
    cls = state["embed.cls.weight"][0] + state["embed.position.table.weight"][0]
    torch.testing.assert_close(embed[:, 0], cls.expand(3, -1), rtol=0, atol=0)


def test_without_positions_the_model_sees_a_bag_of_patches():
    """positional="none": shuffling the 2x2 patches of an image leaves the logits; learned positions do not."""
    x = images(POST_LN, batch=2)
    order = torch.randperm(16, generator=torch.Generator().manual_seed(0))
    blocks = F.unfold(x, 2, stride=2)[:, :, order]
    shuffled = F.fold(blocks, output_size=(8, 8), kernel_size=2, stride=2)
    bag = build_model(TransformerConfig(**{**SMALL, "positional": "none"}), seed=0, kind="vision")
    torch.testing.assert_close(run(bag, shuffled).logits, run(bag, x).logits, rtol=1e-5, atol=1e-5)
    placed = build_model(POST_LN, seed=0, kind="vision")
    assert not torch.allclose(run(placed, shuffled).logits, run(placed, x).logits, atol=1e-3)


# ---- interventions ----------------------------------------------------------------------------------------


def zero_head(head: int, d_head: int):
    def edit(concat):
        concat = concat.clone()
        concat[..., head * d_head : (head + 1) * d_head] = 0.0
        return concat

    return edit


def test_ablating_a_head_equals_zeroing_its_slice_of_w_o_input():
    model, config = build_model(PRE_LN, seed=2, kind="vision"), PRE_LN
    x = images(config, seed=1)
    ablated = run(model, x, return_attention=True, interventions=[Ablate(LAYER_0, [2])])
    by_hand, maps = forward_by_hand(x, model.state_dict(), config, {0: zero_head(2, config.d_head)})
    torch.testing.assert_close(ablated.logits, by_hand, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(ablated.attention.weights[LAYER_1], maps[1], rtol=1e-4, atol=1e-5)
    hook = model.encoder.layers[0].self_attn.w_o.register_forward_pre_hook(
        lambda module, args: (zero_head(2, config.d_head)(args[0]),)
    )
    try:
        hooked = run(model, x)
    finally:
        hook.remove()
    torch.testing.assert_close(ablated.logits, hooked.logits, rtol=1e-5, atol=1e-6)
    assert not torch.allclose(ablated.logits, run(model, x).logits, atol=1e-4)


def test_patching_one_head_from_another_image_changes_exactly_that_head():
    model, config = build_model(POST_LN, seed=4, kind="vision"), POST_LN
    target, source_image = images(config, batch=1, seed=1), images(config, batch=1, seed=2)
    source = run(model, source_image, return_internals=True).attention
    clean = run(model, target, return_internals=True).attention
    patched = run(model, target, return_internals=True, interventions=[Patch(LAYER_0, [1], source)]).attention
    heads = patched.internals[f"{LAYER_0}.heads"]  # [B, H, 1 + N, d_head]
    assert torch.equal(heads[:, 1], source.internals[f"{LAYER_0}.heads"][:, 1])
    for other in (0, 2, 3):
        assert torch.equal(heads[:, other], clean.internals[f"{LAYER_0}.heads"][:, other])
    assert torch.equal(patched.weights[LAYER_0], clean.weights[LAYER_0])  # what the heads computed stays
    assert not torch.equal(heads[:, 1], clean.internals[f"{LAYER_0}.heads"][:, 1])
    d_head, given = config.d_head, source.internals[f"{LAYER_0}.heads"][:, 1]  # [1, 1 + N, d_head]

    def put_source_head(concat):
        concat = concat.clone()
        concat[..., d_head : 2 * d_head] = given
        return concat

    by_hand, maps = forward_by_hand(target, model.state_dict(), config, {0: put_source_head})
    with torch.inference_mode():
        logits = model(target, interventions=[Patch(LAYER_0, [1], source)]).logits
    torch.testing.assert_close(logits, by_hand, rtol=1e-4, atol=1e-5)


def test_an_intervention_on_a_sublayer_the_vit_lacks_is_refused():
    model = build_model(POST_LN, kind="vision")
    with pytest.raises(ValueError, match="not an attention sublayer"):
        model(images(POST_LN), interventions=[Ablate("decoder.layers.0.self_attn", [0])])
