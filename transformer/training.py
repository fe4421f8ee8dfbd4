"""Training a tiny Transformer on a toy task, live, with its attention recorded along the way.

One ``Trainer`` owns its model, optimiser and random generators (never a shared cached model, and
never the global RNG for data), so one session's training cannot touch another's and the same
``TrainingSetup`` gives the same losses every time. Training steps run without a record (fused
attention); evaluations and snapshots run in eval mode with one.

Loss: cross-entropy over the batch's ``loss_mask`` positions,
``L = -1/|M| sum_{(b,t) in M} log softmax(z_{b,t})[y_{b,t}]``; accuracy is the share of those
positions where ``argmax z = y``; perplexity ``exp(L)``. Gradients are clipped to norm 1. Two recipes
(``TrainingSetup.recipe``):

- "adamw": AdamW with a linear warm-up, ``lr_t = lr * min(1, (t + 1) / warmup)``;
- "paper" (Vaswani et al., 2017): Adam with β₁ = 0.9, β₂ = 0.98, ε = 1e-9 and no weight decay,
  ``lr_t = d_model^-0.5 * min(s^-0.5, s * warmup^-1.5)`` with ``s = t + 1`` (a linear rise over the warm-up,
  then a decay as 1/√s), and the training loss smoothed by ε_ls = 0.1: the target puts 1 - ε_ls on the right
  token and ε_ls spread evenly over the vocabulary. Held-out losses stay plain cross-entropy.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from .checkpoint import checkpoint_data, load_checkpoint
from .decoding import forward_logits, greedy_decode, masked_loss, merge_batches
from .head_scores import score_heads
from .record import ForwardRecord
from .seeding import build_model
from .digits_task import DigitsTask
from .tasks import Task, TaskBatch, make_task
from .training_setup import TrainingSetup, model_config

PAPER_BETAS, PAPER_EPS, LABEL_SMOOTHING = (0.9, 0.98), 1e-9, 0.1
EVAL_BATCHES, EVAL_BATCH_SIZE = 8, 32
EVAL_SEED = 1_000_000  # even; training data uses odd seeds, so held-out and training streams differ
CLIP_NORM = 1.0


def learning_rate_at(step: int, setup: TrainingSetup, base_rate: float | None = None) -> float:
    """The rate of optimiser step ``step`` (from 0) under ``setup``'s recipe: the paper's schedule, or the base
    rate (``base_rate``, default the setup's) times the linear warm-up factor min(1, (step + 1) / warmup)."""
    if setup.recipe == "paper":
        return paper_learning_rate(step, setup)
    rate = setup.learning_rate if base_rate is None else base_rate
    return rate * (min(1.0, (step + 1) / setup.warmup) if setup.warmup else 1.0)


def paper_learning_rate(step: int, setup: TrainingSetup) -> float:
    """The paper's rate for optimiser step ``step`` under ``setup`` (its d_model and warm-up): ``paper_rate``."""
    return paper_rate(step, setup.d_model, setup.warmup)


def paper_rate(step: int, d_model: int, warmup: int) -> float:
    """The paper's rate for optimiser step ``step`` (from 0): d_model^-0.5 · min(s^-0.5, s · warmup^-1.5), with
    s = step + 1 (a linear rise over the warm-up, then a decay as 1/√s)."""
    s = step + 1
    return d_model**-0.5 * min(s**-0.5, s * warmup**-1.5)


@dataclass(frozen=True)
class Snapshot:
    """The attention on the task's probe at one step: record name -> ``[H, Lq, Lk]`` float32."""

    step: int
    weights: dict[str, np.ndarray]


class Trainer:
    """Trains one model on one task. Not thread-safe: one session owns one trainer.

    Owns its own model copy and optimiser. ``history`` gets a row at step 0 and every
    ``eval_every`` steps (and at ``max_steps``): ``step``; ``train_loss``, the mean over the steps
    since the last row (at step 0: the loss on the first training batch, before any update);
    ``val_loss``, ``val_accuracy``, ``perplexity`` (text only), ``head_score`` (the best head),
    ``head_scores`` (``[layers][heads]``) from ``evaluate``; ``seconds`` spent in ``train`` so far.
    ``snapshots`` hold the probe's attention at step 0 and every ``snapshot_every`` steps.
    Training stops at ``max_steps`` or, with ``stop_at_target``, once a held-out evaluation
    reaches the task's target. Dropout draws from the global RNG (PyTorch's dropout has no
    generator argument), seeded from the trainer's own generator before every step: runs with
    dropout repeat exactly unless two trainers with dropout step at the same moment in threads.
    """

    def __init__(
        self, setup: TrainingSetup, eval_every: int = 20, snapshot_every: int = 20, stop_at_target: bool = True
    ):
        self.setup, self.eval_every, self.snapshot_every = setup, eval_every, snapshot_every
        self.stop_at_target = stop_at_target
        if min(eval_every, snapshot_every) < 1:
            raise ValueError("eval_every and snapshot_every must be at least 1.")
        self.task: Task | DigitsTask = make_task(setup.task, setup.kind, setup.text if setup.task == "text" else None)
        self.config = model_config(setup, self.task.context, self.task.vocab_size)
        self.model: nn.Module = build_model(self.config, setup.seed, setup.kind).train()
        if setup.recipe == "paper":
            self.optimizer = torch.optim.Adam(
                self.model.parameters(), lr=paper_learning_rate(0, setup), betas=PAPER_BETAS, eps=PAPER_EPS, fused=True
            )
        else:
            self.optimizer = torch.optim.AdamW(
                self.model.parameters(), lr=setup.learning_rate, weight_decay=setup.weight_decay, fused=True
            )
        self.learning_rate = setup.learning_rate
        self._data = torch.Generator().manual_seed(2 * setup.seed + 1)
        self._dropout = torch.Generator().manual_seed(2 * setup.seed + 3)
        held_out = torch.Generator().manual_seed(EVAL_SEED)
        self._held_out = merge_batches(self.task.held_out(EVAL_BATCHES, EVAL_BATCH_SIZE, held_out))
        self._probe = self.task.probe()
        self.step, self.seconds = 0, 0.0
        self._losses: list[float] = []
        self.history: list[dict] = []
        self.snapshots: list[Snapshot] = []
        self._log()
        self._snapshot()

    @classmethod
    def resume(cls, data: bytes, **options) -> "Trainer":
        """A trainer that goes on from a checkpoint ``checkpoint_bytes`` saved (a path or the file's bytes).

        The setup, the weights, the step count and the base learning rate come from the file;
        the optimiser's moments are not saved, so AdamW starts them afresh (with the warm-up
        already past). ``history`` and ``snapshots`` restart with one row at the file's step.
        ValueError (a readable message) for a file that is not a checkpoint, was not saved by a
        trainer, or whose tokenizer or model settings differ from what its setup builds.
        """
        model, metadata = load_checkpoint(data)
        if not isinstance(metadata.get("setup"), dict) or not isinstance(metadata.get("steps"), int):
            raise ValueError(
                "the file holds a model but not its training settings (it was not saved by the "
                "Train page), so training cannot go on from it; the model picker can still show it."
            )
        trainer = cls(TrainingSetup.from_dict(metadata["setup"]), **options)
        if trainer.config != metadata["config"] or trainer.task.tokenizer != metadata["tokenizer"]:
            raise ValueError(
                "the file's model or tokenizer is not the one its training settings build; "
                "save it again from the Train page."
            )
        trainer.model.load_state_dict(model.state_dict())
        trainer.step = max(0, metadata["steps"])
        trainer.learning_rate = float(metadata.get("learning_rate", trainer.learning_rate))
        trainer.history, trainer.snapshots = [], []
        trainer._log()
        trainer._snapshot()
        return trainer

    @property
    def done(self) -> bool:
        """Max steps reached, or (``stop_at_target``) the last held-out evaluation met the target."""
        reached = self.stop_at_target and bool(self.history) and self.task.reached(self.history[-1])
        return self.step >= self.setup.max_steps or reached

    def set_learning_rate(self, lr: float) -> None:
        """A new base learning rate from the next step on; weights and optimiser state stay."""
        if not (isinstance(lr, (int, float)) and 0 < lr <= 1):
            raise ValueError(f"the learning rate must be in (0, 1], got {lr!r}.")
        self.learning_rate = float(lr)

    def current_learning_rate(self) -> float:
        """The rate of the next step: the base rate times the warm-up factor (the paper's recipe: its schedule)."""
        return learning_rate_at(self.step, self.setup, self.learning_rate)

    def train(self, steps: int) -> None:
        """Up to ``steps`` optimiser steps (fewer once ``done``), evaluating and snapshotting on schedule."""
        start = time.perf_counter()
        for _ in range(int(steps)):
            if self.done:
                break
            self._losses.append(self._train_step())
            self.seconds += time.perf_counter() - start
            start = time.perf_counter()
            if self.step % self.eval_every == 0 or self.step == self.setup.max_steps:
                self._log()
            if self.step % self.snapshot_every == 0:
                self._snapshot()
            self.seconds += time.perf_counter() - start
            start = time.perf_counter()

    def _train_step(self) -> float:
        batch = self.task.batch(self.setup.batch_size, self._data, "train")
        for group in self.optimizer.param_groups:
            group["lr"] = self.current_learning_rate()
        if self.setup.dropout > 0:
            torch.manual_seed(int(torch.randint(0, 2**62, (1,), generator=self._dropout)))
        smoothing = LABEL_SMOOTHING if self.setup.recipe == "paper" else 0.0
        loss = masked_loss(forward_logits(self.model, batch), batch, smoothing)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(self.model.parameters(), CLIP_NORM, foreach=True)
        self.optimizer.step()
        self.step += 1
        return float(loss.detach())

    @torch.inference_mode()
    def evaluate(self) -> dict:
        """Held-out metrics and per-head scores, in eval mode with the forward record.

        The held-out samples are drawn once, from a generator of their own (never the training
        stream), and reused at every evaluation so that the curves show the model changing, not
        the samples (text: the whole validation split). Returns ``val_loss``, ``val_accuracy``
        (on the ``loss_mask`` positions), ``perplexity`` (text only), ``head_scores``
        (``[layers][heads]`` lists, ``score_heads`` averaged over the held-out batches) and
        ``head_score`` (their maximum). The model is back in train mode after.
        """
        self.model.eval()
        total, correct, count, scores = 0.0, 0, 0, []
        for batch in self._held_out:
            logits, record = forward_logits(self.model, batch, record=True)
            mask = batch.loss_mask
            total += float(F.cross_entropy(logits[mask], batch.targets[mask], reduction="sum"))
            correct += int((logits[mask].argmax(-1) == batch.targets[mask]).sum())
            count += int(mask.sum())
            scores.append(score_heads(self.task, record, batch))
        self.model.train()
        head_scores = np.mean(scores, axis=0)
        metrics = {"val_loss": total / count, "val_accuracy": correct / count}
        if self.task.name == "text":
            metrics["perplexity"] = math.exp(min(metrics["val_loss"], 50.0))
        metrics["head_score"] = float(head_scores.max())
        metrics["head_scores"] = [[float(v) for v in row] for row in head_scores]
        return metrics

    @torch.inference_mode()
    def _first_batch_loss(self) -> float:
        """The untrained model's loss on the batch the first step will train on (the generator is copied)."""
        generator = torch.Generator().set_state(self._data.get_state())
        batch = self.task.batch(self.setup.batch_size, generator, "train")
        self.model.eval()
        loss = float(masked_loss(forward_logits(self.model, batch), batch))
        self.model.train()
        return loss

    def _log(self) -> None:
        train_loss = float(np.mean(self._losses)) if self._losses else self._first_batch_loss()
        self._losses = []
        self.history.append({"step": self.step, "train_loss": train_loss, **self.evaluate(), "seconds": self.seconds})

    @torch.inference_mode()
    def attention_on(self, batch: TaskBatch) -> ForwardRecord:
        """The record of the model (eval mode) on ``batch``; the model is back in train mode after."""
        self.model.eval()
        record = forward_logits(self.model, batch, record=True)[1]
        self.model.train()
        return record

    def _snapshot(self) -> None:
        record = self.attention_on(self._probe)
        self.snapshots.append(Snapshot(self.step, {name: record.numpy(name) for name in record.weights}))

    @torch.inference_mode()
    def greedy(self, inputs: list[int], max_new: int) -> tuple[list[int], ForwardRecord]:
        """Greedy decoding from ``inputs`` (e.g. ``task.encode_user_input(text)``), up to ``max_new`` tokens.

        Returns the generated ids (ending at ``</s>`` if the model writes it) and the record of
        the final forward pass over everything (decoder-only: the input and the generated ids;
        encoder-decoder: source ``inputs`` and decoder input ``<s>`` + generated ids).
        """
        self.model.eval()
        try:
            return greedy_decode(self.model, self.task, inputs, max_new)
        finally:
            self.model.train()

    def checkpoint_bytes(self, name: str, extra: dict | None = None) -> bytes:
        """The model as a checkpoint file's bytes (``load_checkpoint`` reads them back).

        Metadata: name, task, kind, steps, metrics (the last history row), seed, setup (a dict),
        target, target_metric, score_name, learning_rate (the current base rate) and the
        tokenizer, plus any JSON-serialisable ``extra`` entries (they cannot replace those).
        """
        metadata = {
            **(extra or {}),
            "name": str(name),
            "task": self.task.name,
            "kind": self.task.kind,
            "steps": self.step,
            "metrics": self.history[-1],
            "seed": self.setup.seed,
            "setup": self.setup.to_dict(),
            "target": self.task.target,
            "target_metric": self.task.target_metric,
            "score_name": self.task.score_name,
            "learning_rate": self.learning_rate,
            "tokenizer": self.task.tokenizer,
        }
        return checkpoint_data(self.model, metadata)
