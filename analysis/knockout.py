"""Knock heads out and measure what changes: a task model's loss and accuracy, or two sentences' similarity.

A knock-out replaces a head's output ``head_h = A_h V_h`` (before ``W^O``) by zeros, by its mean, or by its
output on other inputs of the task (resample, ``analysis.resample``) (``transformer.Ablate``). The sweep knocks out each head alone and reports

    effect[l, h] = metric(model with head (l, h) knocked out) - metric(model)

for every attention sublayer ``l`` of one kind and every head ``h``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch.nn import functional as F

from transformer import Ablate, attention_names

Progress = Callable[[int, int], None]


def sublayer_names(model: torch.nn.Module, kind: str = "self_attn") -> list[str]:
    """The model's attention sublayers of one kind (``self_attn`` or ``cross_attn``), in layer order."""
    return [name for name in attention_names(model) if name.endswith(kind)]


def knockouts(heads: dict[str, list[int]], how: str = "zero", source=None) -> tuple[Ablate, ...]:
    """One ``Ablate`` per sublayer name with at least one head (heads counted from 0); ``source`` is the record
    of the other inputs for ``how="resample"``."""
    return tuple(Ablate(name, chosen, how, source) for name, chosen in heads.items() if chosen)


@dataclass(frozen=True)
class TaskScore:
    """A task model's mean cross-entropy ``loss`` and token ``accuracy`` over a batch's loss-mask positions,
    and its predicted ids ``[B, L]``."""

    loss: float
    accuracy: float
    predicted: np.ndarray


@torch.inference_mode()
def task_score(model: torch.nn.Module, batch, interventions=()) -> TaskScore:
    """Loss and accuracy of ``model`` on a ``TaskBatch`` (teacher forcing) under ``interventions``."""
    if model.kind == "encoder-decoder":
        logits = model(batch.inputs, batch.decoder_inputs, interventions=interventions).logits
    else:
        logits = model(batch.inputs, interventions=interventions).logits
    mask = batch.loss_mask
    loss = float(F.cross_entropy(logits[mask], batch.targets[mask]))
    predicted = logits.argmax(-1)
    accuracy = float((predicted[mask] == batch.targets[mask]).float().mean())
    return TaskScore(loss, accuracy, predicted.numpy())


def mean_pooled(hidden: torch.Tensor, real: torch.Tensor) -> torch.Tensor:
    """Sentence embeddings ``[B, d]``: the mean of ``hidden [B, L, d]`` over real tokens ``real [B, L]``,
    scaled to unit length (all-MiniLM-L6-v2's pooling)."""
    weights = real.to(hidden.dtype)[..., None]
    return F.normalize((hidden * weights).sum(1) / weights.sum(1).clamp(min=1.0), dim=-1)


@dataclass(frozen=True)
class Similarity:
    """Two sentences through an encoder: the cosine of their embeddings and each one's last hidden
    states ``[L_i, d]`` (real tokens only)."""

    cosine: float
    hidden: tuple[np.ndarray, np.ndarray]


@torch.inference_mode()
def sentence_similarity(model: torch.nn.Module, first: list[int], second: list[int], interventions=()) -> Similarity:
    """Cosine similarity of two token-id lists' mean-pooled embeddings, in one padded batch of two."""
    length = max(len(first), len(second))
    ids = torch.zeros(2, length, dtype=torch.long)
    real = torch.zeros(2, length, dtype=torch.bool)
    for row, sentence in enumerate((first, second)):
        ids[row, : len(sentence)] = torch.tensor(sentence)
        real[row, : len(sentence)] = True
    hidden = model(ids, attention_mask=real, interventions=interventions).hidden
    pooled = mean_pooled(hidden, real)
    cosine = float((pooled[0] * pooled[1]).sum())
    return Similarity(cosine, (hidden[0, : len(first)].numpy(), hidden[1, : len(second)].numpy()))


def token_change(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Per token, ``1 - cos(h_before, h_after)`` of two ``[L, d]`` hidden-state arrays: 0 = unchanged."""
    dot = (before * after).sum(-1)
    norms = np.linalg.norm(before, axis=-1) * np.linalg.norm(after, axis=-1)
    return (1.0 - dot / np.maximum(norms, 1e-12)).astype(np.float32)


def knockout_sweep(
    names: list[str],
    num_heads: int,
    metric: Callable[[tuple], float],
    how: str = "zero",
    progress: Progress | None = None,
    source=None,
) -> np.ndarray:
    """``[len(names), num_heads]`` float32: ``metric`` with each head knocked out alone, minus ``metric``
    with none. ``metric(interventions)`` runs the model; ``progress(done, total)`` is called after each;
    ``source`` is the record of the other inputs for ``how="resample"``."""
    baseline = metric(())
    total = len(names) * num_heads
    effect = np.zeros((len(names), num_heads), dtype=np.float32)
    for layer, name in enumerate(names):
        for head in range(num_heads):
            effect[layer, head] = metric((Ablate(name, [head], how, source),)) - baseline
            if progress is not None:
                progress(layer * num_heads + head + 1, total)
    return effect


@dataclass(frozen=True)
class PairEffect:
    """Head B's attention map ``[Lq, Lk]`` (batch row 0) with and without head A knocked out, and its
    pattern scores (name -> value) before and after."""

    before: np.ndarray
    after: np.ndarray
    scores_before: dict[str, float]
    scores_after: dict[str, float]


@torch.inference_mode()
def pair_effect(
    model: torch.nn.Module,
    batch,
    knocked: tuple[str, int],
    watched: tuple[str, int],
    score: Callable[[object, str], float] | None = None,
    patterns: tuple[str, ...] = (),
    how: str = "zero",
) -> PairEffect:
    """Knock out head A (``knocked`` = (name, head)) and read head B (``watched``) on ``batch``.

    ``score(record, pattern)`` scores the watched head in a forward record for each pattern.
    """
    name, head = watched

    def read(interventions):
        record = forward_record(model, batch, interventions)
        scores = {pattern: float(score(record, pattern)) for pattern in patterns} if score else {}
        return record.weights[name][0, head].float().numpy(), scores

    before, scores_before = read(())
    after, scores_after = read((Ablate(knocked[0], [knocked[1]], how),))
    return PairEffect(before, after, scores_before, scores_after)


def forward_record(model: torch.nn.Module, batch, interventions=(), internals: bool = False):
    """The forward record (weights, and internals when asked) of ``model`` on a ``TaskBatch``."""
    asks = dict(return_attention=True, return_internals=internals, interventions=interventions)
    if model.kind == "encoder-decoder":
        return model(batch.inputs, batch.decoder_inputs, **asks).attention
    return model(batch.inputs, **asks).attention
