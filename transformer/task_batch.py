"""One batch of a training task: what ``transformer.tasks`` and ``transformer.digits_task`` both make."""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class TaskBatch:
    """One batch of a task.

    ``inputs`` ``[B, L]`` token ids (decoder-only) or the source ``[B, Ls]`` (encoder-decoder);
    ``decoder_inputs`` ``[B, Lt]`` the target shifted right (``<s> t``, encoder-decoder) else None;
    ``targets`` ``[B, L or Lt]`` the next-token targets; ``loss_mask`` ``[B, L or Lt]`` bool, the
    positions that count for the loss and the accuracy: induction, the positions whose token
    repeats an earlier one (only those are predictable); copy/reverse/sort decoder-only, the
    positions from ``<s>`` on (predicting ``t_1 .. t_n </s>``); encoder-decoder and text, all.
    ``tokens`` are the symbols of ``inputs`` per example (the source for encoder-decoder).
    """

    inputs: torch.Tensor
    decoder_inputs: torch.Tensor | None
    targets: torch.Tensor
    loss_mask: torch.Tensor
    tokens: list[list[str]]
