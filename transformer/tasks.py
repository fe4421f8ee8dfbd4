"""Toy tasks to train a tiny Transformer on live: induction, copy, reverse, sort and a character text.

Every example is generated on the fly from a ``torch.Generator`` (never the global RNG), so the
same generator state gives the same batch in every session. A task fixes its alphabet (a
``VocabTokenizer``: specials ``<pad> <s> </s> <unk>`` are ids 0-3, the alphabet's symbols ids 4, 5, ...),
its sequence length, what counts as learned and which attention pattern its heads should show.

Layouts (ids shown as their symbols; ``n`` is drawn per batch, so one batch has one length):

- induction (decoder-only): ``o`` random letters, then a block of ``p`` letters repeated until
  the context (32) is full; ``p`` in 6..14 and the offset ``o`` in 0..32-2p are drawn per sequence,
  the first ``o + p`` letters are distinct. A token that repeats an earlier one predicts the token
  that followed that earlier one: ``x[t+1] = x[t+1-p]`` for ``t >= o + p``.
- copy / reverse / sort, decoder-only: ``s_1 .. s_n <s> t_1 .. t_n </s>`` with inputs the sequence
  without its last token and targets the sequence without its first (next-token prediction);
  ``t = s``, ``reversed(s)`` or ``sorted(s)``; n in 4..10 distinct letters (so that where a letter
  came from is never ambiguous and each alignment is a clean line; a user's input may repeat).
  Encoder-decoder: source ``s [B, n]``, decoder input ``<s> t [B, n+1]``, targets ``t </s>``.
- text (decoder-only): windows of ``context + 1`` characters of the corpus (whitespace runs are
  the one symbol "▁"), the last 10 % of it being the validation split.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache, partial

import numpy as np
import torch

from .digits_task import DIGITS_TASK, DigitsTask
from .task_batch import TaskBatch
from .tokenizer import BOS_ID, EOS_ID, SPECIALS, UNK_ID, VocabTokenizer, normalize
from .text_corpus import TextSource, text_source

TASK_NAMES = ("induction", "copy", "reverse", "sort", "text")
TRAINING_TASKS = (*TASK_NAMES, DIGITS_TASK)  # what the Train page trains: the token tasks and the digits (a ViT)
TASK_KINDS = ("decoder-only", "encoder-decoder")
LETTERS = tuple("abcdefghijklmnopqrstuvwxyz")
FIRST_ID = len(SPECIALS)
INDUCTION_CONTEXT, MIN_PERIOD, MAX_PERIOD = 32, 6, 14
MIN_LENGTH, MAX_LENGTH = 4, 10
TEXT_CONTEXT = 64
PROBE_WORD = "algorithm"  # nine distinct letters: every mirrored / same position is unambiguous
PROBE_PREFIX = "qz"  # induction probe: "qz" + "algorithm" repeated to 32 letters
SPLITS = ("train", "val")

SCORE_NAMES = {
    "induction": "prefix matching",
    "copy": "same-position mass",
    "reverse": "mirrored-position mass",
    "sort": "content (sorted-rank) mass",
    "text": "previous-token",
}
DESCRIPTIONS = {
    "induction": (
        "Random letters in which a block of 6-14 letters repeats. Once a letter repeats, the next "
        "letter is the one that followed it last time: a layer-1 head looks at the previous token "
        "and a layer-2 'induction head' attends to the token after the earlier occurrence "
        "(prefix matching). Its loss falls slowly for a while, then plunges within a few dozen steps: the phase change."
    ),
    "copy": (
        "Copy a string of 4-10 letters after the separator <s>. Each output position should attend to "
        "the same position in the source: a diagonal."
    ),
    "reverse": (
        "Write a string of 4-10 letters backwards. Each output position should attend to the "
        "mirrored source position: an anti-diagonal."
    ),
    "sort": (
        "Sort a string of 4-10 letters alphabetically. Where to look is decided by content, not "
        "position: each output attends to the source letter of its rank, a permutation that changes "
        "with every input."
    ),
    "text": (
        "Predict the next character of a text (character-level language model, spaces shown as ▁), "
        "judged by the perplexity exp(loss) on a held-out 10 % of the text. Small models grow "
        "previous-token heads first."
    ),
}


@dataclass(frozen=True)
class Task:
    """One toy task: its alphabet, sequence length, target and the head pattern to look for.

    ``target`` is what counts as learned on held-out data: the token accuracy on the masked
    positions (``val_accuracy >= target``) for every task but text, where it is a validation
    perplexity ceiling (``perplexity = exp(val_loss) <= target``); ``target_metric`` names which,
    and ``reached(metrics)`` applies it. ``context`` is the longest input the task makes
    (the model's ``max_len`` must be at least this).
    """

    name: str
    kind: str
    tokenizer: VocabTokenizer
    context: int
    target: float
    score_name: str
    description: str
    source: TextSource | None = field(default=None, repr=False, compare=False)

    @property
    def vocab_size(self) -> int:
        return self.tokenizer.vocab_size

    @property
    def target_metric(self) -> str:
        """ "perplexity" for text (lower is better), else "val_accuracy" (higher is better)."""
        return "perplexity" if self.name == "text" else "val_accuracy"

    def reached(self, metrics: dict) -> bool:
        """Whether held-out ``metrics`` (a history row) meet the target."""
        value = metrics.get(self.target_metric)
        if value is None:
            return False
        return value <= self.target if self.name == "text" else value >= self.target

    def symbols(self, ids) -> list[str]:
        """Ids -> the symbols shown for them (specials by their names; unknown ids as ``<unk>``)."""
        names = _names(self.tokenizer.vocabulary)
        ids = np.asarray(ids, dtype=np.int64).reshape(-1)
        return names[np.where((ids >= 0) & (ids < len(names)), ids, UNK_ID)].tolist()

    def batch(self, size: int, generator: torch.Generator, split: str = "train") -> TaskBatch:
        """``size`` fresh examples drawn with ``generator``; ``split`` matters only for text."""
        if split not in SPLITS:
            raise ValueError(f"split={split!r} is unknown; use one of {SPLITS}.")
        if size < 1:
            raise ValueError(f"size must be at least 1, got {size}.")
        if self.name == "induction":
            return self._assemble_induction(_induction_ids(size, generator))
        if self.name == "text":
            return self._text_batch(self.source.windows(size, self.context, generator, split))
        length = int(torch.randint(MIN_LENGTH, MAX_LENGTH + 1, (1,), generator=generator))
        letters = torch.rand(size, len(LETTERS), generator=generator).argsort(dim=1)[:, :length]
        return self._sequence_batch(letters + FIRST_ID)

    def held_out(self, count: int, size: int, generator: torch.Generator) -> list[TaskBatch]:
        """Held-out batches: ``count`` fresh batches of ``size`` from ``generator``; for text, the
        validation split cut into consecutive windows (all of it, once)."""
        if self.name == "text":
            return [self._text_batch(self.source.consecutive(self.context))]
        return [self.batch(size, generator, "val") for _ in range(count)]

    def probe(self) -> TaskBatch:
        """One fixed example (batch of 1) for the live attention figures."""
        if self.name == "induction":
            letters = PROBE_PREFIX + PROBE_WORD * 4
            ids = torch.tensor([[self._letter_id(c) for c in letters[: self.context + 1]]])
            offsets = torch.tensor([len(PROBE_PREFIX)])
            return self._assemble_induction((ids, offsets, torch.tensor([len(PROBE_WORD)])))
        if self.name == "text":
            return self._text_batch(self.source.probe(self.context)[None, :])
        return self._sequence_batch(torch.tensor([[self._letter_id(c) for c in PROBE_WORD]]))

    def encode_user_input(self, text: str) -> list[int] | None:
        """The user's text as the model's input ids, or None if the alphabet cannot express it.

        Letters tasks: lower-cased, whitespace dropped, only a-z; induction up to ``context``
        letters; copy/reverse/sort 1 to 10 letters, followed by ``<s>`` for a decoder-only model
        (the prompt to continue). Text: whitespace runs become "▁", every character must be in
        the vocabulary, at most ``context`` characters. Empty input -> None.
        """
        if self.name == "text":
            chars = self.source.symbols_of(text)
            limit = self.context
        else:
            chars = [c for c in normalize(text).lower() if not c.isspace()]
            limit = self.context if self.name == "induction" else MAX_LENGTH
        known = set(self.tokenizer.vocabulary)
        if not chars or len(chars) > limit or any(c not in known for c in chars):
            return None
        ids = self.tokenizer.encode(chars)
        return ids + [BOS_ID] if self.name in ("copy", "reverse", "sort") and self.kind == "decoder-only" else ids

    def _letter_id(self, letter: str) -> int:
        return FIRST_ID + LETTERS.index(letter)

    def _assemble_induction(self, drawn) -> TaskBatch:
        ids, offsets, periods = drawn
        positions = torch.arange(self.context)[None, :]
        return TaskBatch(
            ids[:, :-1],
            None,
            ids[:, 1:],
            positions >= (offsets + periods)[:, None],
            [self.symbols(row) for row in ids[:, :-1]],
        )

    def _sequence_batch(self, source: torch.Tensor) -> TaskBatch:
        target = _TRANSFORMS[self.name](source)
        size, length = source.shape
        bos, eos = torch.full((size, 1), BOS_ID), torch.full((size, 1), EOS_ID)
        if self.kind == "encoder-decoder":
            decoder_inputs = torch.cat([bos, target], dim=1)
            return TaskBatch(
                source,
                decoder_inputs,
                torch.cat([target, eos], dim=1),
                torch.ones(size, length + 1, dtype=torch.bool),
                [self.symbols(r) for r in source],
            )
        sequence = torch.cat([source, bos, target, eos], dim=1)
        mask = (torch.arange(2 * length + 1) >= length)[None, :].expand(size, -1).clone()
        return TaskBatch(sequence[:, :-1], None, sequence[:, 1:], mask, [self.symbols(r) for r in sequence[:, :-1]])

    def _text_batch(self, windows: torch.Tensor) -> TaskBatch:
        return TaskBatch(
            windows[:, :-1],
            None,
            windows[:, 1:],
            torch.ones_like(windows[:, 1:], dtype=torch.bool),
            [self.symbols(r) for r in windows[:, :-1]],
        )


@lru_cache(maxsize=16)
def _names(vocabulary: tuple[str, ...]) -> np.ndarray:
    return np.array(SPECIALS + vocabulary, dtype=object)


def _induction_ids(size: int, generator: torch.Generator):
    """(ids ``[B, 33]``, offsets ``[B]``, periods ``[B]``): distinct letters, then a block repeated."""
    periods = torch.randint(MIN_PERIOD, MAX_PERIOD + 1, (size,), generator=generator)
    room = INDUCTION_CONTEXT - 2 * periods + 1  # offsets 0 .. context - 2p
    offsets = (torch.rand(size, generator=generator) * room).long()
    letters = torch.rand(size, len(LETTERS), generator=generator).argsort(dim=1)
    t = torch.arange(INDUCTION_CONTEXT + 1)[None, :]
    index = torch.where(t < offsets[:, None], t, offsets[:, None] + (t - offsets[:, None]) % periods[:, None])
    return letters.gather(1, index) + FIRST_ID, offsets, periods


_TRANSFORMS = {
    "copy": lambda s: s.clone(),
    "reverse": partial(torch.flip, dims=(1,)),
    "sort": lambda s: s.sort(dim=1).values,
}


def check_kind(name: str, kind: str) -> str:
    """``kind`` if the task ``name`` exists in that architecture, else a ValueError saying what fits."""
    if name not in TRAINING_TASKS:
        raise ValueError(f"task {name!r} is unknown; use one of {TRAINING_TASKS}.")
    if name == DIGITS_TASK or kind == "vision":
        if (name, kind) != (DIGITS_TASK, "vision"):
            raise ValueError(
                f"kind={kind!r} does not fit the {name} task; the digits task is kind 'vision' and the "
                f"others are one of {TASK_KINDS}."
            )
        return kind
    if kind not in TASK_KINDS or (kind != "decoder-only" and name in ("induction", "text")):
        allowed = TASK_KINDS if name in ("copy", "reverse", "sort") else ("decoder-only",)
        raise ValueError(f"kind={kind!r} does not fit the {name} task; use one of {allowed}.")
    return kind


def make_task(name: str, kind: str | None = None, text: str | None = None) -> Task | DigitsTask:
    """The task ``name`` (one of TRAINING_TASKS) as ``kind`` (default decoder-only; digits: vision).

    copy, reverse and sort exist as "decoder-only" and "encoder-decoder"; induction and text are
    decoder-only; digits is "vision" (``transformer.digits_task``). ``text`` is the text task's corpus (None = the built-in one). Anything else
    is a ValueError saying what to change.
    """
    kind = check_kind(name, kind or ("vision" if name == DIGITS_TASK else "decoder-only"))
    if text is not None and name != "text":
        raise ValueError("only the text task reads a text.")
    if name == DIGITS_TASK:
        return DigitsTask()
    common = dict(name=name, kind=kind, score_name=SCORE_NAMES[name], description=DESCRIPTIONS[name])
    if name == "text":
        source = text_source(text)
        return Task(
            tokenizer=VocabTokenizer(source.vocabulary, "char"),
            context=TEXT_CONTEXT,
            target=source.target,
            source=source,
            **common,
        )
    letters = VocabTokenizer(LETTERS, "char")
    if name == "induction":
        return Task(tokenizer=letters, context=INDUCTION_CONTEXT, target=0.99, **common)
    context = MAX_LENGTH + 1 if kind == "encoder-decoder" else 2 * MAX_LENGTH + 1
    return Task(tokenizer=letters, context=context, target=0.99, **common)
