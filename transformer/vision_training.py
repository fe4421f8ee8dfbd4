"""Training a Vision Transformer on the 8 x 8 digits, on the CPU, in seconds.

Loss: cross-entropy of the [CLS] logits, ``L = -1/B sum_b log softmax(z_b)[y_b]``; accuracy is the
share of images with ``argmax z = y``. Optimiser: AdamW (decoupled weight decay) with a linear
warm-up and a cosine decay to 0 at the last step,
``lr_t = lr * min(1, (t + 1) / warmup) * (1 + cos(pi t / steps)) / 2``, gradients clipped to norm 1.
Mini-batches walk through the training split in an order reshuffled every epoch.

Everything random comes from generators seeded by ``seed`` (the weights through ``build_model``,
the batch order from a generator of its own), never the global RNG, except dropout: PyTorch's
dropout has no generator argument, so with dropout the global RNG is seeded from the run's own
generator before every step (as ``Trainer`` does). The thread count is the caller's
(``torch.set_num_threads``).
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

import torch
from torch import nn
from torch.nn import functional as F

from .config import TransformerConfig
from .digits import Digits, load_digits
from .seeding import build_model

CLIP_NORM = 1.0
DIGITS_VIT_CONFIG = TransformerConfig(
    d_model=64,
    num_heads=4,
    num_encoder_layers=2,
    d_ff=128,
    dropout=0.0,
    positional="learned",
    norm_first=True,
    activation="gelu",
    image_size=8,
    patch_size=2,
    channels=1,
    num_classes=10,
)


def digits_vit_config(**changes) -> TransformerConfig:
    """The default ViT for the digits, with ``changes``: 8 x 8 images in 2 x 2 patches (16 patch tokens
    after [CLS]), d_model 64, 2 pre-LN encoder layers of 4 heads, d_ff 128, GELU, learned positions,
    no dropout (a vision model ignores the vocabulary, decoder and ``max_len`` fields)."""
    return replace(DIGITS_VIT_CONFIG, **changes)


@torch.inference_mode()
def classification_metrics(
    model: nn.Module, images: torch.Tensor, labels: torch.Tensor, batch_size: int = 512
) -> dict[str, float]:
    """``loss`` (mean cross-entropy) and ``accuracy`` of ``model`` on ``images [N, C, H, W]``, ``labels [N]``,
    in eval mode (the model's mode is restored after)."""
    was_training = model.training
    model.eval()
    total, correct = 0.0, 0
    for start in range(0, len(labels), batch_size):
        logits = model(images[start : start + batch_size]).logits
        truth = labels[start : start + batch_size]
        total += float(F.cross_entropy(logits, truth, reduction="sum"))
        correct += int((logits.argmax(-1) == truth).sum())
    model.train(was_training)
    return {"loss": total / len(labels), "accuracy": correct / len(labels)}


def clipped_step(model: nn.Module, optimizer: torch.optim.Optimizer, loss: torch.Tensor) -> float:
    """One optimiser step on ``loss``: gradients from zero, their global norm clipped to ``CLIP_NORM``;
    returns the loss as a float."""
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), CLIP_NORM)
    optimizer.step()
    return float(loss.detach())


def learning_rate_at(step: int, steps: int, learning_rate: float, warmup: int) -> float:
    """``lr * min(1, (t + 1) / warmup) * (1 + cos(pi t / steps)) / 2`` (no warm-up when ``warmup`` is 0)."""
    ramp = min(1.0, (step + 1) / warmup) if warmup else 1.0
    return learning_rate * ramp * 0.5 * (1.0 + math.cos(math.pi * step / steps))


def batch_order(count: int, batch_size: int, steps: int, generator: torch.Generator) -> list[torch.Tensor]:
    """The indices of each step's mini-batch: epochs of a fresh permutation of ``0..count-1``, cut in
    ``batch_size`` pieces (an epoch's last, shorter piece is dropped when there is a full one)."""
    batches: list[torch.Tensor] = []
    while len(batches) < steps:
        order = torch.randperm(count, generator=generator)
        full = max(1, count // batch_size)
        batches += [order[i * batch_size : (i + 1) * batch_size] for i in range(full)]
    return batches[:steps]


def shifted(images: torch.Tensor, generator: torch.Generator, most: int = 1) -> torch.Tensor:
    """Each image of ``[B, C, H, W]`` moved by a random whole number of pixels in -most..most, down and
    right independently (pixels moved in from outside are 0): the augmentation of ``augment=True``."""
    size = 2 * most + 1
    height, width = images.shape[-2:]
    padded = F.pad(images, (most, most, most, most))
    moves = torch.stack([padded[..., dy : dy + height, dx : dx + width] for dy in range(size) for dx in range(size)])
    choice = torch.randint(0, size * size, (images.shape[0],), generator=generator)
    return moves[choice, torch.arange(images.shape[0])]


def _history_row(step: int, train_loss: float, model: nn.Module, digits: Digits, seconds: float) -> dict:
    heldout = classification_metrics(model, digits.heldout_images, digits.heldout_labels)
    return {
        "step": step,
        "train_loss": train_loss,
        "val_loss": heldout["loss"],
        "val_accuracy": heldout["accuracy"],
        "seconds": seconds,
    }


def _check_settings(config: TransformerConfig, steps: int, batch_size: int, learning_rate: float) -> None:
    for name, value in (("steps", steps), ("batch_size", batch_size)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a whole number >= 1, got {value!r}.")
    if not (isinstance(learning_rate, (int, float)) and 0 < learning_rate <= 1):
        raise ValueError(f"learning_rate must be in (0, 1], got {learning_rate!r}.")
    if (config.image_size, config.channels, config.num_classes) != (8, 1, 10):
        raise ValueError(
            "the digits are 8 x 8 grey images of 10 classes: use image_size=8, channels=1, "
            "num_classes=10 (digits_vit_config() has them)."
        )


def train_vision(
    config: TransformerConfig | None = None,
    seed: int = 0,
    steps: int = 600,
    batch_size: int = 64,
    learning_rate: float = 3e-3,
    weight_decay: float = 0.05,
    warmup: int = 30,
    eval_every: int = 100,
    augment: bool = False,
    digits: Digits | None = None,
) -> tuple[nn.Module, list[dict]]:
    """(the trained ViT in eval mode, its history) after ``steps`` AdamW steps on the digits' training split.

    ``config`` defaults to ``digits_vit_config()``; ``digits`` to ``load_digits()``. ``augment`` moves
    each training image by up to one pixel each way (``shifted``), a fresh draw at every step. ``history`` has a
    row at step 0, every ``eval_every`` steps and at the last step: ``step``, ``train_loss`` (the mean
    over the steps since the last row; at step 0 the untrained model's loss on the training split),
    ``val_loss`` and ``val_accuracy`` on the held-out split, and ``seconds`` since the start
    (evaluations included). The model is the run's own: nothing else holds it.
    """
    config = digits_vit_config() if config is None else config
    _check_settings(config, steps, batch_size, learning_rate)
    digits = load_digits() if digits is None else digits
    start = time.perf_counter()
    model = build_model(config, seed, "vision").train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=weight_decay)
    data, dropout = torch.Generator().manual_seed(2 * seed + 1), torch.Generator().manual_seed(2 * seed + 3)
    images, labels = digits.train_images, digits.train_labels
    first = classification_metrics(model, images, labels)["loss"]
    history, losses = [_history_row(0, first, model, digits, time.perf_counter() - start)], []
    for step, index in enumerate(batch_order(len(labels), batch_size, steps, data)):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate_at(step, steps, learning_rate, warmup)
        if config.dropout > 0:
            torch.manual_seed(int(torch.randint(0, 2**62, (1,), generator=dropout)))
        batch = shifted(images[index], data) if augment else images[index]
        loss = F.cross_entropy(model(batch).logits, labels[index])
        losses.append(clipped_step(model, optimizer, loss))
        if (step + 1) % eval_every == 0 or step + 1 == steps:
            row = _history_row(step + 1, sum(losses) / len(losses), model, digits, time.perf_counter() - start)
            history.append(row)
            losses = []
    return model.eval(), history
