"""The trained-model lesson's answer about one layer, on models trained as the Train page trains them: with
layers at 1, the induction task's loss stalls near 2 nats after all 1,000 steps, accuracy stays near 20 % and no
head scores high on prefix matching (the page's defaults, and a second seed)."""

from __future__ import annotations

import dataclasses

import pytest
import torch
import torch.nn.functional as F

from tests.lesson_views import lesson_of
from transformer import score_heads
from transformer.training import Trainer
from transformer.training_setup import default_setup


@pytest.mark.parametrize("seed", [0, 1])
def test_one_layer_never_learns_induction_in_the_step_budget(seed):
    view = lesson_of("trained").views[2]
    assert view.settings == {"task": "induction"} and "Set layers to 1" in view.question
    assert "about 2 nats after all 1,000 steps" in view.answer and "stays near 20 %" in view.answer
    setup = dataclasses.replace(default_setup("induction"), layers=1, seed=seed)
    assert setup.max_steps == 1000
    trainer = Trainer(setup, snapshot_every=1000)  # held-out evaluations every 20 steps, as on the page
    trainer.train(setup.max_steps)
    assert trainer.step == 1000  # never reaches the target, so it trains all the steps
    model = trainer.model.eval()
    batch = trainer.task.batch(256, torch.Generator().manual_seed(1234), "val")
    with torch.inference_mode():
        record = model(batch.inputs, return_attention=True)
    logits, mask = record.logits[batch.loss_mask], batch.loss_mask
    loss = F.cross_entropy(logits, batch.targets[mask]).item()
    accuracy = (logits.argmax(-1) == batch.targets[mask]).float().mean().item()
    assert 1.7 < loss < 2.4, loss  # "about 2 nats"
    assert 0.12 < accuracy < 0.3, accuracy  # "near 20 %" (chance is 1/26)
    prefix = score_heads(trainer.task, record.attention, batch, "prefix matching")
    assert prefix.shape == (1, 2) and prefix.max() < 0.3, prefix  # "no head scores high on prefix matching"
