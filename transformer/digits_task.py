"""The handwritten digits as a task of the Train page: a Vision Transformer learns to name 8 x 8 digits.

A batch is ``size`` training images drawn with replacement by the run's generator, ``inputs [B, 1, 8, 8]``;
the target of each is its digit, ``targets [B, 1]`` with ``loss_mask [B, 1]`` all True, so that the
``Trainer``'s loss over the masked positions is the mean cross-entropy of the [CLS] logits,
``L = -1/B sum_b log softmax(z_b)[y_b]``, and its accuracy the share of images named right. The held-out
split is evaluated whole; the probe is one held-out digit. A head's score is how sharply [CLS] reads the
image (``cls_focus``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from .digits import Digits, load_digits
from .task_batch import TaskBatch

DIGITS_TASK = "digits"
PROBE_INDEX = 7  # the held-out digit the live figures show: a 3 (the Vision page opens on it too)
PATCH_SIDE = 4  # 8 x 8 images in 2 x 2 patches: a 4 x 4 grid, 16 patch tokens after [CLS]
TOKENS = ["[CLS]", *(f"patch {i + 1}" for i in range(PATCH_SIDE * PATCH_SIDE))]
DESCRIPTION = (
    "Name handwritten digits, 8 x 8 grey images (1,438 to train on, 359 held out), with a Vision "
    "Transformer: each image is cut into 16 patches of 2 x 2 pixels, [CLS] goes in front, and a linear "
    "layer on [CLS]'s last vector names the digit. Watch [CLS]'s attention over the image: from an even "
    "wash to the strokes each head reads. Learned when 95 % of the held-out digits are named right."
)


@dataclass(frozen=True)
class DigitsTask:
    """What the ``Trainer`` needs of a task, for the digits (see the module's equations)."""

    name: str = DIGITS_TASK
    kind: str = "vision"
    tokenizer: None = None
    context: int = len(TOKENS)
    target: float = 0.95
    score_name: str = "[CLS] focus"
    description: str = DESCRIPTION
    target_metric: str = "val_accuracy"
    vocab_size: int = 0

    def reached(self, metrics: dict) -> bool:
        value = metrics.get(self.target_metric)
        return value is not None and value >= self.target

    def symbols(self, ids) -> list[str]:
        return [str(int(i)) for i in np.asarray(ids).reshape(-1)]

    def batch(self, size: int, generator: torch.Generator, split: str = "train"):
        """``size`` training images drawn with replacement (``split`` "val": held-out ones)."""
        if size < 1:
            raise ValueError(f"size must be at least 1, got {size}.")
        digits = _digits()
        images, labels = (
            (digits.train_images, digits.train_labels)
            if split == "train"
            else (digits.heldout_images, digits.heldout_labels)
        )
        index = torch.randint(0, len(labels), (size,), generator=generator)
        return _batch(images[index], labels[index])

    def held_out(self, count: int, size: int, generator: torch.Generator) -> list:
        """The whole held-out split, once (``count``, ``size`` and ``generator`` are the text tasks')."""
        digits = _digits()
        return [_batch(digits.heldout_images, digits.heldout_labels)]

    def probe(self):
        digits = _digits()
        return _batch(
            digits.heldout_images[PROBE_INDEX : PROBE_INDEX + 1], digits.heldout_labels[PROBE_INDEX : PROBE_INDEX + 1]
        )


@lru_cache(maxsize=1)
def _digits() -> Digits:
    return load_digits()


def _batch(images: torch.Tensor, labels: torch.Tensor) -> TaskBatch:
    count = len(labels)
    return TaskBatch(images, None, labels[:, None], torch.ones(count, 1, dtype=torch.bool), [TOKENS] * count)


def cls_focus(weights: torch.Tensor) -> np.ndarray:
    """``[H]``: how sharply [CLS] reads the patches in attention ``weights [B, H, 1+N, 1+N]``, averaged over the
    batch: its row over the N patches, renormalised to ``a`` (sum 1), scores ``1 - H(a) / log N`` with
    ``H(a) = -sum a log a``: 0 for an even spread over every patch, 1 for one patch alone."""
    row = weights[:, :, 0, 1:].double()
    spread = row / row.sum(-1, keepdim=True).clamp_min(1e-12)
    entropy = -(spread * spread.clamp_min(1e-12).log()).sum(-1)
    return (1.0 - entropy / math.log(row.shape[-1])).mean(0).float().numpy()
