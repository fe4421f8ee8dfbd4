"""Patching a head's queries, keys or values, and resample ablation, checked against attention computed by hand."""

import math

import pytest
import torch

from tests.test_interventions import CONFIG, KINDS_AND_NAMES, run, tokens
from transformer import Ablate, Patch, TransformerConfig, build_model

ROTARY_GQA = TransformerConfig(**{**CONFIG.to_dict(), "positional": "rotary", "num_kv_heads": 2})
NAME = "decoder.layers.1.self_attn"


def by_hand(q, k, v):
    """One head's causal attention written out: A = softmax(q k^T / sqrt(d), j <= i), output A v;
    q, k, v [B, L, d] -> (A [B, L, L], A v [B, L, d])."""
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    allowed = torch.ones(q.shape[1], k.shape[1]).tril().bool()
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    return weights, weights @ v


@pytest.mark.parametrize("part", ("q", "k", "v"))
@pytest.mark.parametrize("kind, name", KINDS_AND_NAMES)
def test_patching_a_part_from_the_pass_own_record_changes_nothing(kind, name, part):
    model, x = build_model(CONFIG, seed=2, kind=kind), tokens()
    source = run(model, x, return_internals=True)
    patched = run(
        model, x, return_internals=True, interventions=[Patch(name, [0, 1, 2, 3], source.attention, part=part)]
    )
    assert torch.equal(patched.logits, source.logits)
    for key, tensor in source.attention.internals.items():
        assert torch.equal(patched.attention.internals[key], tensor), key


@pytest.mark.parametrize("config", (CONFIG, ROTARY_GQA), ids=("plain", "rotary, 2 key-value heads"))
@pytest.mark.parametrize("part", ("q", "k", "v"))
def test_a_patched_part_gives_the_attention_computed_by_hand_from_the_sources_part(config, part):
    """The corrupted pass's own q, k, v of the last layer (patching that layer changes nothing before it), one
    of them for head 1 taken from the clean pass, attention written out: the patched pass's weights and head
    output for head 1; the other heads, sharing head 1's key-value head or not, as they were."""
    model = build_model(config, seed=3, kind="decoder-only")
    clean = run(model, tokens(seed=1), return_internals=True).attention.internals
    plain = run(model, tokens(seed=2), return_internals=True).attention
    mine = {p: plain.internals[f"{NAME}.{p}"][:, 1] for p in ("q", "k", "v")}
    mine[part] = clean[f"{NAME}.{part}"][:, 1]
    weights, output = by_hand(mine["q"], mine["k"], mine["v"])
    patched = run(
        model,
        tokens(seed=2),
        return_internals=True,
        interventions=[Patch(NAME, [1], run(model, tokens(seed=1), return_internals=True).attention, part=part)],
    ).attention
    torch.testing.assert_close(patched.weights[NAME][:, 1], weights, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(patched.internals[f"{NAME}.heads"][:, 1], output, atol=1e-6, rtol=1e-5)
    assert (patched.weights[NAME][:, 1] - plain.weights[NAME][:, 1]).abs().max() > 1e-3 or part == "v"
    assert (patched.internals[f"{NAME}.heads"][:, 1] - plain.internals[f"{NAME}.heads"][:, 1]).abs().max() > 1e-3
    for other in (0, 2, 3):
        assert torch.equal(patched.weights[NAME][:, other], plain.weights[NAME][:, other])
        assert torch.equal(patched.internals[f"{NAME}.heads"][:, other], plain.internals[f"{NAME}.heads"][:, other])


def test_keys_patched_at_one_key_position_change_that_key_only():
    model = build_model(CONFIG, seed=4, kind="decoder-only")
    clean = run(model, tokens(seed=1), return_internals=True).attention
    plain = run(model, tokens(seed=2), return_internals=True).attention
    k = plain.internals[f"{NAME}.k"][:, 2].clone()
    k[:, 5] = clean.internals[f"{NAME}.k"][:, 2, 5]
    weights, output = by_hand(plain.internals[f"{NAME}.q"][:, 2], k, plain.internals[f"{NAME}.v"][:, 2])
    patched = run(
        model, tokens(seed=2), return_internals=True, interventions=[Patch(NAME, [2], clean, positions=[5], part="k")]
    ).attention
    torch.testing.assert_close(patched.internals[f"{NAME}.heads"][:, 2], output, atol=1e-6, rtol=1e-5)
    # query rows before position 5 cannot see key 5 (causal): they stay as they were, bit for bit
    assert torch.equal(patched.weights[NAME][:, 2, :5], plain.weights[NAME][:, 2, :5])
    assert not torch.equal(patched.weights[NAME][:, 2, 5:], plain.weights[NAME][:, 2, 5:])
    torch.testing.assert_close(patched.weights[NAME][:, 2], weights, atol=1e-6, rtol=1e-5)


def test_queries_patched_at_one_position_change_that_query_row_only():
    model = build_model(CONFIG, seed=5, kind="decoder-only")
    clean = run(model, tokens(seed=1), return_internals=True).attention
    plain = run(model, tokens(seed=2), return_internals=True).attention
    patched = run(
        model, tokens(seed=2), return_internals=True, interventions=[Patch(NAME, [0], clean, positions=[3], part="q")]
    ).attention
    changed = (patched.weights[NAME] != plain.weights[NAME]).any(dim=-1)  # [B, H, Lq]
    assert changed[:, 0, 3].all() and changed.sum() == changed[:, 0, 3].sum()


@pytest.mark.parametrize("kind, name", KINDS_AND_NAMES)
def test_resample_ablation_is_patching_the_heads_output_from_the_other_input(kind, name):
    model = build_model(CONFIG, seed=6, kind=kind)
    other = run(model, tokens(seed=11), return_internals=True).attention
    x = tokens(seed=12)
    resampled = run(model, x, interventions=[Ablate(name, [1, 3], how="resample", source=other)])
    patched = run(model, x, interventions=[Patch(name, [1, 3], other)])
    plain, zeroed = run(model, x), run(model, x, interventions=[Ablate(name, [1, 3])])
    assert torch.equal(resampled.logits, patched.logits)
    assert not torch.allclose(resampled.logits, plain.logits, atol=1e-4)
    assert not torch.allclose(resampled.logits, zeroed.logits, atol=1e-4)
    itself = run(model, x, return_internals=True)  # resampled from the same input: nothing changes, bit for bit
    again = run(model, x, return_internals=True, interventions=[Ablate(name, [1, 3], "resample", itself.attention)])
    assert torch.equal(again.logits, itself.logits)


def test_bad_parts_and_sources_say_what_to_change():
    model, x = build_model(CONFIG, seed=1, kind="decoder-only"), tokens()
    weights_only = run(model, x, return_attention=True).attention
    internals = run(model, x, return_internals=True).attention
    cases = [
        (lambda: Ablate(NAME, [0], how="resample"), "needs a source record"),
        (lambda: Ablate(NAME, [0], how="resample", source=weights_only), "return_internals=True"),
        (lambda: Ablate(NAME, [0], how="zero", source=internals), "takes no source"),
        (lambda: Ablate(NAME, [0], how="swap"), "unknown"),
        (lambda: Patch(NAME, [0], internals, part="scores"), "part='scores' is unknown"),
        (lambda: Patch(NAME, [0], weights_only, part="k"), "holding decoder.layers.1.self_attn's k"),
    ]
    for make, message in cases:
        with pytest.raises(ValueError, match=message):
            make()
    shorter = run(model, tokens(length=7), return_internals=True).attention
    with pytest.raises(ValueError, match="same length"):
        run(model, x, interventions=[Patch(NAME, [0], shorter, part="k")])
    with pytest.raises(ValueError, match="same length"):
        run(model, x, interventions=[Ablate(NAME, [0], "resample", shorter)])


def test_zero_and_mean_ablation_keep_their_signature():
    assert Ablate(NAME, [1], "mean") == Ablate(NAME, (1,), how="mean")
    assert Ablate(NAME, [1]).how == "zero" and Ablate(NAME, [1]).source is None
    assert (
        Patch(
            NAME, [0], run(build_model(CONFIG, seed=1, kind="decoder-only"), tokens(), return_internals=True).attention
        ).part
        == "output"
    )
