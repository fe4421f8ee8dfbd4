"""Training an English-to-French Transformer with the paper's recipe on the Tatoeba pairs.

The recipe of "Attention Is All You Need" (its section 5), at the scale of these sentences:

- one shared subword vocabulary (``subword``) and one embedding matrix for the source, the target and the
  pre-softmax layer (``share_embeddings=True``, ``output_head="tied"``);
- Adam with β1 = 0.9, β2 = 0.98, ε = 1e-9, and the rate lr(s) = d_model^-0.5 · min(s^-0.5, s · warmup^-1.5)
  for step s = 1, 2, ... (a linear rise over the warm-up, then a decay as 1/√s);
- dropout 0.1 and label smoothing ε_ls = 0.1 (the target puts 1 - ε_ls on the right token, ε_ls / V on each);
- batches of sentence pairs of similar length (the paper's batches held about 25,000 source and 25,000 target
  tokens; here about ``batch_tokens``).

The source is the English pieces; the decoder reads ``<s>`` + the French pieces and is trained to predict the
French pieces + ``</s>``, teacher-forced. The data order, the initial weights and dropout come from generators
seeded with ``seed``, so a run on the same CPU, torch build and thread count repeats bit for bit.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import torch
from torch import nn
from torch.nn import functional as F

from .config import TransformerConfig
from .seeding import build_model
from .subword import SubwordTokenizer, train_subword_tokenizer
from .tokenizer import BOS_ID, EOS_ID, PAD_ID
from .training import LABEL_SMOOTHING, PAPER_BETAS, PAPER_EPS, paper_rate
from .translation_data import TranslationSplit

MAX_PIECES = 40  # pairs with a longer side are left out of training (none of the shipped data's are)


@dataclass(frozen=True)
class TranslationPlan:
    """The model's size and the training schedule (every field is saved in the checkpoint's metadata)."""

    vocab_size: int = 4000
    d_model: int = 128
    num_heads: int = 4
    layers: int = 3
    d_ff: int = 512
    dropout: float = 0.1
    epochs: int = 10
    batch_tokens: int = 2500
    warmup: int = 800
    seed: int = 0
    max_pairs: int | None = None  # the first N training pairs only (a quick run)

    def config(self, vocab_size: int) -> TransformerConfig:
        """The encoder-decoder: the paper's post-LN layers, ReLU, sinusoidal positions, shared embeddings."""
        return TransformerConfig(
            d_model=self.d_model,
            num_heads=self.num_heads,
            num_encoder_layers=self.layers,
            num_decoder_layers=self.layers,
            d_ff=self.d_ff,
            dropout=self.dropout,
            max_len=64,
            src_vocab_size=vocab_size,
            tgt_vocab_size=vocab_size,
            share_embeddings=True,
            output_head="tied",
        )

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class EncodedPairs:
    """Each pair as (source ids, target ids), without special tokens."""

    pairs: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]


def encode_pairs(tokenizer: SubwordTokenizer, pairs) -> EncodedPairs:
    """Pieces' ids of every (English, French) pair; pairs with a side over ``MAX_PIECES`` pieces are left out."""
    encoded = []
    for english, french in pairs:
        source = tuple(tokenizer.encode(tokenizer.tokenize(english)))
        target = tuple(tokenizer.encode(tokenizer.tokenize(french)))
        if 0 < len(source) <= MAX_PIECES and 0 < len(target) < MAX_PIECES:
            encoded.append((source, target))
    return EncodedPairs(tuple(encoded))


def padded(rows: list[tuple[int, ...]]) -> torch.Tensor:
    """Rows of ids right-padded with ``<pad>`` into ``[B, longest]``."""
    out = torch.full((len(rows), max(len(r) for r in rows)), PAD_ID, dtype=torch.long)
    for i, row in enumerate(rows):
        out[i, : len(row)] = torch.tensor(row, dtype=torch.long)
    return out


def epoch_batches(data: EncodedPairs, batch_tokens: int, generator: torch.Generator) -> list[list[int]]:
    """The pairs' indices cut into batches of about ``batch_tokens`` source + target tokens, pairs of similar
    length together: a seeded shuffle, a stable sort by length, then the batches in a seeded order."""
    order = torch.randperm(len(data.pairs), generator=generator).tolist()
    order.sort(key=lambda i: (len(data.pairs[i][0]), len(data.pairs[i][1])))
    batches, current, longest = [], [], 0
    for i in order:
        size = len(data.pairs[i][0]) + len(data.pairs[i][1]) + 1
        if current and max(longest, size) * (len(current) + 1) > batch_tokens:
            batches.append(current)
            current, longest = [], 0
        current.append(i)
        longest = max(longest, size)
    if current:
        batches.append(current)
    return [batches[i] for i in torch.randperm(len(batches), generator=generator).tolist()]


def batch_loss(model: nn.Module, data: EncodedPairs, indices: list[int], smoothing: float) -> torch.Tensor:
    """Mean teacher-forced cross-entropy over the real target tokens of the pairs ``indices``."""
    sources = padded([data.pairs[i][0] for i in indices])
    decoder_in = padded([(BOS_ID, *data.pairs[i][1]) for i in indices])
    targets = padded([(*data.pairs[i][1], EOS_ID) for i in indices])
    src_mask = (sources != PAD_ID)[:, None, None, :]
    logits = model(sources, decoder_in, src_mask=src_mask).logits
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=PAD_ID, label_smoothing=smoothing)


class TranslatorRun:
    """A training run by the paper's recipe that advances one batch at a time: the shared vocabulary learned on
    ``pairs``, ``plan.config`` built with its seed, Adam and the rate schedule, and the epochs' batches drawn
    from a generator seeded with ``plan.seed``. ``train_translator`` runs whole epochs of it; the Train page runs
    one live, a few batches per tick. ``model`` stays in training mode; ``evaluated`` lends it in eval mode."""

    def __init__(self, pairs, plan: TranslationPlan):
        self.plan = plan
        self.tokenizer = train_subword_tokenizer((text for pair in pairs for text in pair), plan.vocab_size)
        self.data = encode_pairs(self.tokenizer, pairs)
        if plan.dropout > 0:
            torch.manual_seed(plan.seed)  # dropout's draws (the global generator: a run without dropout needs none)
        self.model = build_model(plan.config(self.tokenizer.vocab_size), seed=plan.seed, kind="encoder-decoder")
        self.model.train()
        self.optimiser = torch.optim.Adam(self.model.parameters(), lr=1.0, betas=PAPER_BETAS, eps=PAPER_EPS)
        self.generator = torch.Generator().manual_seed(plan.seed)
        self.step, self.epoch = 0, 0
        self.rate = 0.0
        self._batches: list[list[int]] = []

    @property
    def epoch_done(self) -> bool:
        """True before the first batch and after the last batch of an epoch."""
        return not self._batches

    def train_batch(self) -> tuple[float, int]:
        """One optimiser step on the next batch (a new epoch's batches drawn when the last ran out): the batch's
        mean loss and its count of target tokens."""
        if not self._batches:
            self._batches = epoch_batches(self.data, self.plan.batch_tokens, self.generator)
            self.epoch += 1
        indices = self._batches.pop(0)
        self.rate = paper_rate(self.step, self.plan.d_model, self.plan.warmup)
        for group in self.optimiser.param_groups:
            group["lr"] = self.rate
        loss = batch_loss(self.model, self.data, indices, LABEL_SMOOTHING)
        self.optimiser.zero_grad(set_to_none=True)
        loss.backward()
        self.optimiser.step()
        self.step += 1
        return float(loss.detach()), sum(len(self.data.pairs[i][1]) + 1 for i in indices)


@dataclass
class TrainedTranslator:
    """The trained model (eval mode), its tokenizer, the loss per epoch and the training time in seconds."""

    model: nn.Module
    tokenizer: SubwordTokenizer
    history: list[dict]
    seconds: float


def train_translator(
    split: TranslationSplit, plan: TranslationPlan, report: Callable[[dict, nn.Module], None] | None = None
) -> TrainedTranslator:
    """Learn the shared vocabulary on the training pairs, then train ``plan.config`` by the paper's recipe for
    ``plan.epochs`` epochs (``TranslatorRun``). ``report`` gets each epoch's row (epoch, step, training loss,
    rate, seconds) and the model (in training mode: a caller that evaluates it switches it to eval and back)."""
    start = time.perf_counter()
    run = TranslatorRun(split.train if plan.max_pairs is None else split.train[: plan.max_pairs], plan)
    history = []
    for epoch in range(1, plan.epochs + 1):
        total, tokens = 0.0, 0
        while True:
            loss, count = run.train_batch()
            total, tokens = total + loss * count, tokens + count
            if run.epoch_done:
                break
        row = {
            "epoch": epoch,
            "step": run.step,
            "train_loss": round(total / tokens, 4),
            "rate": run.rate,
            "seconds": round(time.perf_counter() - start, 1),
        }
        history.append(row)
        if report is not None:
            report(row, run.model)
        if not math.isfinite(row["train_loss"]):
            raise ValueError(f"training diverged at epoch {epoch}; lower the rate (a longer warm-up).")
    return TrainedTranslator(run.model.eval(), run.tokenizer, history, time.perf_counter() - start)
