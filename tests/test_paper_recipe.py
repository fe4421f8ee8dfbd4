"""The paper's training recipe (Vaswani et al., 2017, sections 5.3 and 5.4) beside today's AdamW: the schedule
against its formula, the optimiser's settings, the smoothed loss against its definition, and a run that learns."""

from __future__ import annotations

import math

import pytest
import torch
from torch.nn import functional as F

from transformer.decoding import masked_loss
from transformer.tasks import TaskBatch
from transformer.training import Trainer, paper_learning_rate
from transformer.training_setup import TrainingSetup

PAPER = dict(recipe="paper", warmup=50, d_model=64, max_steps=400)


def test_the_schedule_rises_linearly_over_the_warm_up_then_falls_as_one_over_the_root_of_the_step():
    setup = TrainingSetup(**PAPER)
    for step in (0, 9, 49, 99, 399):
        s = step + 1
        expected = 64**-0.5 * (s / 50**1.5 if s <= 50 else 1 / math.sqrt(s))
        assert paper_learning_rate(step, setup) == pytest.approx(expected, rel=1e-12)
    peak = paper_learning_rate(49, setup)
    assert peak == pytest.approx(64**-0.5 * 50**-0.5) and peak == max(paper_learning_rate(t, setup) for t in range(400))


def test_the_paper_recipe_uses_adam_with_its_betas_and_epsilon_and_no_weight_decay():
    trainer = Trainer(TrainingSetup(**PAPER, weight_decay=0.01))
    group = trainer.optimizer.param_groups[0]
    assert type(trainer.optimizer) is torch.optim.Adam
    assert group["betas"] == (0.9, 0.98) and group["eps"] == 1e-9 and group["weight_decay"] == 0
    trainer.train(3)
    assert trainer.optimizer.param_groups[0]["lr"] == pytest.approx(paper_learning_rate(2, trainer.setup))
    adamw = Trainer(TrainingSetup(warmup=50, weight_decay=0.01))
    assert type(adamw.optimizer) is torch.optim.AdamW and adamw.optimizer.param_groups[0]["weight_decay"] == 0.01


def test_a_smoothed_loss_is_the_cross_entropy_against_the_smoothed_target():
    generator = torch.Generator().manual_seed(0)
    logits = torch.randn(2, 5, 7, generator=generator)
    targets = torch.randint(0, 7, (2, 5), generator=generator)
    mask = torch.rand(2, 5, generator=generator) > 0.3
    batch = TaskBatch(targets, None, targets, mask, [])
    smoothed = torch.full((2, 5, 7), 0.1 / 7)
    smoothed.scatter_add_(-1, targets[..., None], torch.full((2, 5, 1), 0.9))  # 1 - ε on the right token, + ε/V
    by_hand = -(smoothed * F.log_softmax(logits, -1)).sum(-1)[mask].mean()
    assert masked_loss(logits, batch, 0.1).item() == pytest.approx(by_hand.item(), rel=1e-6)
    assert masked_loss(logits, batch).item() == pytest.approx(F.cross_entropy(logits[mask], targets[mask]).item())


def test_the_paper_recipe_learns():
    """100 steps of the induction task: the held-out loss falls (the phase change itself comes later, near step
    400 with this warm-up, against about 200 with AdamW at 3e-3)."""
    trainer = Trainer(TrainingSetup(task="induction", positional="rotary", **PAPER), stop_at_target=False)
    start = trainer.history[0]["val_loss"]
    trainer.train(100)
    assert trainer.history[-1]["val_loss"] < 0.85 * start


def test_an_unknown_recipe_or_a_paper_schedule_without_warm_up_is_refused():
    with pytest.raises(ValueError, match="recipe"):
        TrainingSetup(recipe="sgd")
    with pytest.raises(ValueError, match="warm-up"):
        TrainingSetup(recipe="paper", warmup=0)


def test_a_comparison_reads_the_first_step_at_target_and_the_smoothed_optimum():
    import pandas as pd

    from analysis.recipes import RecipeComparison

    curves = pd.DataFrame(
        {
            "recipe": ["adamw"] * 3 + ["paper"] * 3,
            "step": [0, 20, 40] * 2,
            "val_loss": [3.0, 1.0, 0.1, 3.0, 2.0, 1.5],
            "val_accuracy": [0.1, 0.5, 1.0, 0.1, 0.2, 0.3],
            "reached": [False, False, True, False, False, False],
        }
    )
    comparison = RecipeComparison(curves, classes=10)
    assert comparison.first_reached("adamw") == 40 and comparison.first_reached("paper") is None
    p = 0.9 + 0.1 / 10  # the smoothed target's weight on the right token
    assert comparison.smoothing_floor == pytest.approx(-math.log(p))
    smoothed = torch.full((10,), 0.01)
    smoothed[3] = p
    logits = smoothed.log()[None]  # a model that predicts the smoothed target exactly
    assert F.cross_entropy(logits, torch.tensor([3])).item() == pytest.approx(comparison.smoothing_floor, rel=1e-5)
