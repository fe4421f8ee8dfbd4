"""Running a task's model: teacher-forced logits and loss on a batch, and greedy decoding from a user's input."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from .record import ForwardRecord
from .tasks import TaskBatch
from .tokenizer import BOS_ID, EOS_ID


def forward_logits(model: nn.Module, batch, record: bool = False):
    """Logits ``[B, L, V]`` of ``model`` on a ``TaskBatch`` (teacher forcing; a vision model's ``[B, 1, classes]``),
    and the record if asked.

    Without a record the attention runs fused (no weights kept): the fast path for training.
    """
    if model.kind == "encoder-decoder":
        out = model(batch.inputs, batch.decoder_inputs, return_attention=record)
    elif model.kind == "vision":  # one prediction an image, from [CLS]: logits [B, 1, classes]
        out = model(batch.inputs, return_attention=record)
        return (out.logits[:, None], out.attention) if record else out.logits[:, None]
    else:
        out = model(batch.inputs, return_attention=record)
    return (out.logits, out.attention) if record else out.logits


def masked_loss(logits: torch.Tensor, batch: TaskBatch, label_smoothing: float = 0.0) -> torch.Tensor:
    """Mean cross-entropy over the ``loss_mask`` positions of ``logits [B, L, V]`` (with ``label_smoothing`` ε:
    against the target 1 - ε on the right token plus ε / V on every token)."""
    return F.cross_entropy(logits[batch.loss_mask], batch.targets[batch.loss_mask], label_smoothing=label_smoothing)


def merge_batches(batches: list[TaskBatch]) -> list[TaskBatch]:
    """Batches of the same shapes concatenated into one (fewer, larger forward passes), in first-seen order."""
    groups: dict[tuple, list[TaskBatch]] = {}
    for batch in batches:
        decoder = None if batch.decoder_inputs is None else batch.decoder_inputs.shape[1]
        shape = (batch.inputs.shape[1], decoder)
        groups.setdefault(shape, []).append(batch)
    return [
        TaskBatch(
            torch.cat([b.inputs for b in group]),
            None if group[0].decoder_inputs is None else torch.cat([b.decoder_inputs for b in group]),
            torch.cat([b.targets for b in group]),
            torch.cat([b.loss_mask for b in group]),
            [row for b in group for row in b.tokens],
        )
        for group in groups.values()
    ]


def _checked(inputs, vocab_size: int, max_new) -> list[int]:
    ids = [int(i) for i in inputs]
    if not ids:
        raise ValueError("the input is empty; give at least one token.")
    if any(not 0 <= i < vocab_size for i in ids):
        raise ValueError(f"token ids must be in 0..{vocab_size - 1}.")
    if isinstance(max_new, bool) or not isinstance(max_new, int) or max_new < 0:
        raise ValueError(f"max_new must be a whole number >= 0, got {max_new!r}.")
    return ids


def _next(logits: torch.Tensor) -> int:
    return int(logits[0, -1].argmax())


def greedy_decode(model: nn.Module, task, inputs: list[int], max_new: int) -> tuple[list[int], ForwardRecord]:
    """Generated ids (argmax each step, stopping after ``</s>``) and the record of a last forward pass.

    The model sees at most ``task.context`` tokens, the length it was trained on. Decoder-only:
    each step reads the last ``context`` tokens of input + generated (a sliding window); the
    record covers input + generated (the last ``max_len`` tokens). Encoder-decoder: the source is
    ``inputs`` (at most ``context`` tokens), the decoder starts from ``<s>`` and stops at
    ``context`` decoder tokens; the record covers the source and ``<s>`` + generated.
    ``record.tokens`` are the decoder-side symbols. The model should be in eval mode; call under
    ``torch.inference_mode()``.
    """
    config = model.config
    window = min(config.max_len, task.context)
    if model.kind == "encoder-decoder":
        source = _checked(inputs, config.src_vocab_size, max_new)
        if len(source) > window:
            raise ValueError(f"the source has {len(source)} tokens; this model reads at most {window}.")
        src = torch.tensor([source])
        memory = model.encode(src)
        out = [BOS_ID]
        for _ in range(max_new):
            if len(out) >= window:
                break
            out.append(_next(model.generator(model.decode(torch.tensor([out]), memory))))
            if out[-1] == EOS_ID:
                break
        record = model(src, torch.tensor([out]), return_attention=True).attention
        record.tokens = tuple(task.symbols(out))
        return out[1:], record
    sequence = _checked(inputs, config.tgt_vocab_size, max_new)
    generated: list[int] = []
    for _ in range(max_new):
        generated.append(_next(model(torch.tensor([sequence[-window:]])).logits))
        sequence.append(generated[-1])
        if generated[-1] == EOS_ID:
            break
    shown = sequence[-config.max_len :]
    record = model(torch.tensor([shown]), return_attention=True).attention
    record.tokens = tuple(task.symbols(shown))
    return generated, record
