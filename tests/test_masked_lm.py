"""Masked language modelling: BERT's corruption of a text, its loss, one blank's distribution and the analysis of
every blank, each against a plain computation of its definition."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from analysis.blanks import blank_distributions, blank_losses, masked_copies
from transformer import build_model
from transformer.masked_lm import (
    MASK,
    corrupt,
    fill_in,
    held_out_metrics,
    mask_id,
    masked_lm_config,
    masked_lm_loss,
    masked_lm_tokenizer,
    train_masked_lm,
)
from transformer.text_corpus import text_source

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def tokenizer():
    return masked_lm_tokenizer()


@pytest.fixture(scope="module")
def models(tokenizer):
    """An untrained masked model and an untrained next-token model over the same symbols (the next-token one
    without the [MASK] row)."""
    config = masked_lm_config(dropout=0.0)
    next_config = masked_lm_config(
        dropout=0.0, src_vocab_size=config.src_vocab_size - 1, tgt_vocab_size=config.tgt_vocab_size - 1
    )
    return build_model(config, 1, "encoder-only"), build_model(next_config, 2, "decoder-only")


def test_the_mask_symbol_comes_last_and_no_typed_text_makes_it(tokenizer):
    assert tokenizer.vocabulary[-1] == MASK and mask_id(tokenizer) == tokenizer.vocab_size - 1
    assert mask_id(tokenizer) not in tokenizer.encode(list("[mask] [MASK]"))
    assert tokenizer.vocabulary[:-1] == text_source().vocabulary


def test_corruption_chooses_15_percent_and_hides_80_percent_of_them(tokenizer):
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(4, 37, (4000, 64), generator=generator)
    inputs, chosen = corrupt(ids, generator, mask=37, symbols=range(4, 37))
    assert chosen.any(dim=1).all()
    assert chosen.float().mean().item() == pytest.approx(0.15, abs=0.005)
    assert torch.equal(inputs[~chosen], ids[~chosen])  # only chosen positions change
    masked = (inputs[chosen] == 37).float().mean().item()
    kept = (inputs[chosen] == ids[chosen]).float().mean().item()
    assert masked == pytest.approx(0.8, abs=0.01)
    # kept: the 10 % kept, plus the 10 % replaced at random that drew their own symbol (1 in 33)
    assert kept == pytest.approx(0.1 + 0.1 / 33, abs=0.01)
    assert ((inputs >= 4) & (inputs <= 37)).all()


def test_the_loss_is_the_cross_entropy_at_the_chosen_positions_only(models):
    masked, _ = models
    generator = torch.Generator().manual_seed(3)
    ids = torch.randint(4, 37, (3, 20), generator=generator)
    inputs, chosen = corrupt(ids, generator, 37, range(4, 37))
    with torch.no_grad():
        loss = masked_lm_loss(masked, inputs, ids, chosen)
        logits = masked(inputs).logits.double()
    terms = [-torch.log_softmax(logits[b, i], -1)[ids[b, i]] for b in range(3) for i in range(20) if chosen[b, i]]
    assert loss.item() == pytest.approx(torch.stack(terms).mean().item(), abs=1e-5)


def test_one_blank_is_the_softmax_at_that_position_with_it_hidden(models):
    masked, _ = models
    ids = [10, 11, 12, 13, 14, 15]
    probabilities = fill_in(masked, ids, 2, 37)
    with torch.inference_mode():
        expected = torch.softmax(masked(torch.tensor([[10, 11, 37, 13, 14, 15]])).logits[0, 2], -1)
    torch.testing.assert_close(probabilities, expected)
    assert ids == [10, 11, 12, 13, 14, 15]
    with pytest.raises(ValueError, match="outside"):
        fill_in(masked, ids, 6, 37)


def test_every_blank_equals_one_pass_per_hidden_token_and_per_prefix(models):
    masked, following = models
    ids = [20, 8, 22, 4, 9, 30, 11]
    blanks = blank_losses(masked, following, ids, 37)
    assert masked_copies(ids, 37).diagonal().tolist() == [37] * len(ids)
    both, left = [], []
    for i in range(len(ids)):
        both.append(-torch.log(fill_in(masked, ids, i, 37)[ids[i]]).item())
        if i:
            with torch.inference_mode():
                logits = following(torch.tensor([ids[:i]])).logits[0, -1].double()
            left.append(-torch.log_softmax(logits, -1)[ids[i]].item())
    np.testing.assert_allclose(blanks.both, both, rtol=1e-4)
    np.testing.assert_allclose(blanks.left, left, rtol=1e-4)
    assert blanks.easier_from_both_sides() == sum(b < a for b, a in zip(both[1:], left))
    pair = blank_distributions(masked, following, ids, 3, 37)
    np.testing.assert_allclose(pair[0], fill_in(masked, ids, 3, 37)[:-1].numpy(), rtol=1e-5)
    np.testing.assert_allclose(-np.log(pair[1][ids[3]]), left[2], rtol=1e-4)
    with pytest.raises(ValueError):
        blank_distributions(masked, following, ids, 0, 37)


def test_training_lowers_the_held_out_loss_and_repeats_itself():
    first = train_masked_lm(steps=40, eval_every=20, batch_size=8)
    second = train_masked_lm(steps=40, eval_every=20, batch_size=8)
    model, tokenizer, history = first
    assert [row["step"] for row in history] == [20, 40]
    untrained = held_out_metrics(build_model(masked_lm_config(), 0, "encoder-only"), text_source(), tokenizer)
    assert history[-1]["val_loss"] < untrained["val_loss"] - 0.3
    for (name, a), (_, b) in zip(model.state_dict().items(), second[0].state_dict().items()):
        assert torch.equal(a, b), name
    with pytest.raises(ValueError, match="src_vocab_size"):
        train_masked_lm(masked_lm_config(src_vocab_size=20, tgt_vocab_size=20), steps=1)
