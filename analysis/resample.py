"""Resample ablation's other inputs: examples of the task laid out like the ones measured.

Resample ablation gives a head its output on another input instead of this one,

    head_h(x) <- head_h(x'),   x' another example of the task, of the same length,

so the head still gives an output it could really give (the model stays on the inputs it was trained on)
and loses only what depended on ``x``. The other inputs are drawn from the task's held-out examples with
a seed, the same in every session; a pass over them with ``return_internals=True`` is the ``source`` of
``transformer.Ablate(name, heads, how="resample", source=record)``.
"""

from __future__ import annotations

import torch

from transformer import Task, TaskBatch
from transformer.tasks import FIRST_ID

MAX_DRAWS = 1000  # batches drawn before giving up on finding the layout asked for


def _generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(int(seed))


def resample_batch(task: Task, like: TaskBatch, seed: int) -> TaskBatch:
    """A batch of the task's held-out examples shaped like ``like`` (inputs ``[B, L]``, and decoder inputs for
    an encoder-decoder task): the first batch drawn from ``seed`` whose shapes match (tasks whose examples vary
    in length draw until one has ``like``'s). ValueError when none does."""

    def shape(batch):
        return batch.inputs.shape, None if batch.decoder_inputs is None else batch.decoder_inputs.shape

    generator = _generator(seed)
    for _ in range(MAX_DRAWS):
        batch = task.batch(len(like.inputs), generator, "val")
        if shape(batch) == shape(like):
            return batch
    raise ValueError(
        f"no batch of the {task.name} task drawn with seed {seed} has {like.inputs.shape[1]} "
        "tokens an example; try another seed."
    )


def resample_ids(task: Task, ids: tuple[int, ...], seed: int) -> list[int]:
    """One held-out example of the task laid out like ``ids`` (a decoder-only model's input, ``n`` tokens): the
    first ``n`` tokens of the first example drawn from ``seed`` whose special tokens (the separator ``<s>``)
    stand where ``ids``'s do. A causal model's pass over those ``n`` tokens is its pass over that example, cut
    short. ValueError when no example has that layout (e.g. a copy input shorter than any the task makes)."""
    wanted = torch.tensor(ids) < FIRST_ID
    generator = _generator(seed)
    for _ in range(MAX_DRAWS):
        row = task.batch(1, generator, "val").inputs[0]
        if len(row) >= len(ids) and torch.equal(row[: len(ids)] < FIRST_ID, wanted):
            return row[: len(ids)].tolist()
    raise ValueError(
        f"the {task.name} task makes no example laid out like this input ({len(ids)} tokens); "
        "resample ablation needs one. Change the input or pick zero or mean ablation."
    )


@torch.inference_mode()
def resample_record(model: torch.nn.Module, batch: TaskBatch):
    """The record, with internals, of ``model`` on ``batch``: the source of a resample ablation."""
    if model.kind == "encoder-decoder":
        return model(batch.inputs, batch.decoder_inputs, return_internals=True).attention
    return model(batch.inputs, return_internals=True).attention
