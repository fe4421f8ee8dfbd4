"""The copying score of a head's OV circuit (analysis/ov_circuit.py): known answers on hand-set weights, the small
d_head x d_head route against the full V x V circuit, and Olsson et al.'s finding on the shipped induction model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from analysis.ov_circuit import copying_score, copying_scores, ov_circuit
from transformer import TransformerConfig, build_model, load_checkpoint

CHECKPOINTS = Path(__file__).resolve().parent.parent / "checkpoints"


def hand_set(sign: float):
    """One layer, one head, d_model = vocabulary = 8, attention only: E = I, W_V = I, W_O = sign · I, U = I, and
    LayerNorm scales of 1, so that M = sign · I."""
    config = TransformerConfig(
        d_model=8,
        num_heads=1,
        num_decoder_layers=1,
        d_ff=8,
        dropout=0.0,
        tgt_vocab_size=8,
        src_vocab_size=8,
        embed_scale=False,
        feed_forward=False,
        norm_first=True,
    )
    model = build_model(config, seed=0, kind="decoder-only")
    eye = torch.eye(8)
    with torch.no_grad():
        model.embed.tokens.weight.copy_(eye)
        attention = model.decoder.layers[0].self_attn
        attention.w_v.weight.copy_(eye)
        attention.w_o.weight.copy_(sign * eye)
        model.generator.weight.copy_(eye)
    return model


@pytest.mark.parametrize("sign", (1.0, -1.0))
def test_a_head_that_maps_each_token_onto_itself_scores_one_and_its_negative_minus_one(sign):
    model = hand_set(sign)
    np.testing.assert_allclose(ov_circuit(model, 0, 0), sign * np.eye(8), atol=1e-12)
    assert copying_scores(model)[0, 0] == pytest.approx(sign)


def test_a_rotation_of_the_tokens_copies_nothing():
    """A circuit that sends each token to the next one (a cyclic shift) has eigenvalues the 8th roots of unity:
    their sum is 0, so the score is 0."""
    shift = np.roll(np.eye(8), 1, axis=1)
    assert copying_score(shift) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("name", ("induction", "copy"))
def test_the_small_route_equals_the_full_circuits_eigenvalues(name):
    model, _ = load_checkpoint(CHECKPOINTS / f"{name}.safetensors")
    small = copying_scores(model)
    full = [
        [copying_score(ov_circuit(model, layer, head)) for head in range(model.config.num_heads)]
        for layer in range(len(model.decoder.layers))
    ]
    np.testing.assert_allclose(small, full, atol=1e-5)


def test_the_induction_heads_of_the_shipped_model_copy():
    model, _ = load_checkpoint(CHECKPOINTS / "induction.safetensors")
    scores = copying_scores(model)
    assert (scores[1] > 0.9).all()  # layer 2: the induction heads raise the logit of the token they attend to
    assert (scores[0] < scores[1].min()).all()


def test_a_grouped_query_head_reads_its_groups_values():
    """A model with 2 key-value heads for 4 query heads has the OV circuits of the multi-head model whose value
    heads are those 2, each repeated for its group (as attention repeats them)."""
    sizes = dict(d_model=16, num_heads=4, num_decoder_layers=1, d_ff=16, tgt_vocab_size=12, dropout=0.0)
    grouped = build_model(TransformerConfig(**sizes, num_kv_heads=2), seed=3, kind="decoder-only")
    full = build_model(TransformerConfig(**sizes), seed=3, kind="decoder-only")
    state = grouped.state_dict()
    for part in ("w_k", "w_v"):
        for param in ("weight", "bias"):
            name = f"decoder.layers.0.self_attn.{part}.{param}"
            state[name] = state[name].view(2, 4, *state[name].shape[1:]).repeat_interleave(2, 0).flatten(0, 1)
    full.load_state_dict(state)
    ids = torch.tensor([[1, 5, 7, 2, 9]])
    torch.testing.assert_close(full(ids).logits, grouped(ids).logits)  # the same model, written two ways
    for head in range(4):
        np.testing.assert_allclose(ov_circuit(grouped, 0, head), ov_circuit(full, 0, head), atol=1e-10)
