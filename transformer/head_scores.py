"""How much of each head's attention goes where a task says it should: one score per layer and head.

Every score has the same form. For a batch with weights ``A [B, H, Lq, Lk]`` of one attention
map, a set of scored queries ``Q [B, Lq]`` and, per query, the keys that count ``K [B, Lq, Lk]``:

    score_h = sum_{b, q in Q} sum_k A[b, h, q, k] K[b, q, k]  /  |Q|

the mean attention mass a head puts on the keys that count, in [0, 1]. The patterns:

- "prefix matching" (induction): queries whose token repeats an earlier one; keys right after
  an earlier occurrence of the query's token (``x[k-1] == x[q]``, ``k <= q``);
- "previous-token": every query but the first; the key just before it (``k = q - 1``);
- "same-position mass" (copy) / "mirrored-position mass" (reverse): queries that write the
  j-th output letter (0-based); the source position ``j`` / ``n - 1 - j``;
- "content (sorted-rank) mass" (sort): queries that write the j-th smallest letter; every
  source position holding that letter.

A two-layer model aligns the output with the source in one of two ways: a head looks at the
letter it is about to write, or at the source copy of the letter it has just read (and reads
its neighbour, which the layer below has moved there). Both draw the same diagonal (copy),
anti-diagonal (reverse) or permutation (sort), one step apart, so the source patterns score each
head by the better of the two alignments: ``max(score_write, score_read)``, where "read" pairs
the query of output letter j with the source keys of output letter j - 1.

Decoder-only models are scored on their self-attention maps ``decoder.layers.{i}.self_attn``
(the source is the start of the sequence), encoder-decoder models on the cross-attention maps
``decoder.layers.{i}.cross_attn`` (the source is the encoder's input).
"""

from __future__ import annotations

import numpy as np
import torch

from .digits_task import cls_focus
from .record import ForwardRecord

SOURCE_PATTERNS = ("same-position mass", "mirrored-position mass", "content (sorted-rank) mass")
PATTERNS = ("prefix matching", "previous-token", *SOURCE_PATTERNS)


def _prefix_matching(tokens: torch.Tensor, query_mask: torch.Tensor):
    """(queries ``[B, L]``, keys ``[B, L, L]``): key k counts when x[k-1] == x[q] and k <= q."""
    length = tokens.shape[1]
    before = torch.cat([torch.full_like(tokens[:, :1], -1), tokens[:, :-1]], dim=1)  # x[k-1], none at k=0
    keys = (before[:, None, :] == tokens[:, :, None]) & torch.ones(length, length, dtype=torch.bool).tril()
    return query_mask, keys


def _previous_token(length_q: int, length_k: int, batch: int):
    queries = (torch.arange(length_q) >= 1)[None, :].expand(batch, -1)
    keys = torch.arange(length_k)[None, :] == torch.arange(length_q)[:, None] - 1
    return queries, keys[None].expand(batch, -1, -1)


def _source_keys(
    pattern: str,
    source: torch.Tensor,
    wanted: torch.Tensor,
    first_query: int,
    length_q: int,
    length_k: int,
    alignment: str,
):
    """Queries ``first_query + j`` (j = 0..n-1) write output letter ``wanted[:, j]`` from ``source [B, n]``.

    ``alignment`` "write": the keys of the letter being written (copy: source position j;
    reverse: n - 1 - j; sort: wherever that letter is in the source). "read": the keys of the
    letter the query has just read, output letter j - 1 (none for j = 0, the ``<s>`` query).
    Keys beyond the source (decoder-only: the separator and the output) never count.
    """
    size, n = source.shape
    shift = 0 if alignment == "write" else 1
    j = torch.arange(shift, n)
    queries = torch.zeros(size, length_q, dtype=torch.bool)
    queries[:, first_query + j] = True
    keys = torch.zeros(size, length_q, length_k, dtype=torch.bool)
    letter = j - shift  # index of the output letter aligned with
    if pattern == "content (sorted-rank) mass":
        keys[:, first_query + j, :n] = wanted[:, letter, None] == source[:, None, :]
    else:
        keys[:, first_query + j, letter if pattern == "same-position mass" else n - 1 - letter] = True
    return queries, keys


def pattern_masks(task, batch, pattern: str, length_q: int, length_k: int, alignment: str = "write"):
    """(queries ``[B, Lq]`` bool, keys ``[B, Lq, Lk]`` bool) for ``pattern`` on ``batch`` of ``task``.

    ``alignment`` ("write" or "read") matters only for the source patterns (see ``_source_keys``).
    """
    size = batch.inputs.shape[0]
    if pattern == "previous-token":
        return _previous_token(length_q, length_k, size)
    if pattern == "prefix matching":
        return _prefix_matching(batch.inputs, batch.loss_mask)
    if pattern not in PATTERNS:
        raise ValueError(f"pattern {pattern!r} is unknown; use one of {PATTERNS}.")
    if task.name not in ("copy", "reverse", "sort"):
        raise ValueError(f"{pattern!r} needs a copy, reverse or sort task, not {task.name}.")
    if task.kind == "encoder-decoder":
        return _source_keys(pattern, batch.inputs, batch.targets[:, :-1], 0, length_q, length_k, alignment)
    n = (batch.inputs.shape[1] - 1) // 2
    return _source_keys(pattern, batch.inputs[:, :n], batch.targets[:, n : 2 * n], n, length_q, length_k, alignment)


def scored_maps(task, record: ForwardRecord, pattern: str) -> list[str]:
    """The record names a pattern is scored on, in layer order."""
    kind = "cross_attn" if task.kind == "encoder-decoder" and pattern in SOURCE_PATTERNS else "self_attn"
    return record.names("decoder", kind)


def pattern_mass(weights: torch.Tensor, queries: torch.Tensor, keys: torch.Tensor) -> np.ndarray:
    """Mean attention mass ``[H]`` on the keys that count, over the scored queries (0 if none)."""
    mass = (weights.float() * keys[:, None].float()).sum(-1)  # [B, H, Lq]
    count = queries.sum()
    if count == 0:
        return np.zeros(weights.shape[1], dtype=np.float32)
    total = (mass * queries[:, None].float()).sum(dim=(0, 2)) / count
    return total.clamp(0.0, 1.0).numpy().astype(np.float32)


def score_heads(task, record: ForwardRecord, batch, score_name: str | None = None) -> np.ndarray:
    """``[layers, heads]`` float32 scores in [0, 1] of ``task``'s pattern (or ``score_name``).

    ``record`` is the forward record of the model on ``batch`` (``return_attention=True``).
    The pattern defaults to ``task.score_name``; any of ``PATTERNS`` can be asked for, e.g.
    "previous-token" for the first layer of an induction model.
    """
    if task.kind == "vision":  # the digits: how sharply [CLS] reads the image, per head (digits_task.cls_focus)
        return np.stack([cls_focus(record.weights[name]) for name in record.names("encoder", "self_attn")])
    pattern = score_name or task.score_name
    names = scored_maps(task, record, pattern)
    if not names:
        raise ValueError("the record holds no decoder attention; run the model with return_attention=True.")
    length_q, length_k = record.weights[names[0]].shape[-2:]
    alignments = ("write", "read") if pattern in SOURCE_PATTERNS else ("write",)
    masks = [pattern_masks(task, batch, pattern, length_q, length_k, a) for a in alignments]
    return np.stack([np.max([pattern_mass(record.weights[name], q, k) for q, k in masks], axis=0) for name in names])
