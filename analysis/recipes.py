"""The two training recipes on one model: the same task, architecture, seed and batches, trained by AdamW and by
the paper's recipe (``transformer.training``), their held-out curves in one table."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import pandas as pd

from transformer import RECIPES, Trainer, TrainingSetup
from transformer.training import LABEL_SMOOTHING


@dataclasses.dataclass(frozen=True, eq=False)
class RecipeComparison:
    """``curves``: one row per evaluation and recipe (``recipe``, ``step``, ``val_loss``, ``val_accuracy``,
    ``reached``: the task's target met there); ``classes``: how many outputs the loss is over (V)."""

    curves: pd.DataFrame
    classes: int

    def first_reached(self, recipe: str) -> int | None:
        """The first evaluated step at which ``recipe`` met the target, or None."""
        hits = self.curves[(self.curves.recipe == recipe) & self.curves.reached]
        return None if hits.empty else int(hits.step.min())

    @property
    def smoothing_floor(self) -> float:
        """The held-out cross-entropy of a model that predicts the smoothed target exactly, the optimum of the
        paper's training loss: ``-log(1 - ε + ε / V)`` with ε = 0.1."""
        return -math.log(1 - LABEL_SMOOTHING + LABEL_SMOOTHING / self.classes)


CHUNK = 25  # steps between two progress reports


def compare_recipes(
    setup: TrainingSetup, steps: int, progress: Callable[[float], None] | None = None
) -> RecipeComparison:
    """Train ``setup``'s model ``steps`` steps under each recipe (AdamW at ``setup.learning_rate`` and
    ``weight_decay``; the paper's d_model^-0.5 · min(s^-0.5, s · warmup^-1.5)), without stopping at the target.
    Both runs start from the same weights and see the same batches (the seed), so the recipe is the only
    difference. ``progress(f)`` hears the share ``f`` of the work done every CHUNK steps. A setup that makes no
    model raises ValueError (the paper's recipe needs ``warmup >= 1``)."""
    rows, classes = [], 0
    for done, recipe in enumerate(RECIPES):
        trainer = Trainer(dataclasses.replace(setup, recipe=recipe, max_steps=steps), stop_at_target=False)
        while trainer.step < steps:
            trainer.train(min(CHUNK, steps - trainer.step))
            if progress is not None:
                progress((done + trainer.step / steps) / len(RECIPES))
        classes = trainer.config.num_classes if trainer.task.kind == "vision" else trainer.task.vocab_size
        rows += [
            {
                "recipe": recipe,
                "step": row["step"],
                "val_loss": row["val_loss"],
                "val_accuracy": row["val_accuracy"],
                "reached": trainer.task.reached(row),
            }
            for row in trainer.history
        ]
    return RecipeComparison(pd.DataFrame(rows), classes)
