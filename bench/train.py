"""Training benchmark: each toy task to its target, our step vs PyTorch's own layers, trainers in threads.

    python bench/train.py [--tasks induction copy ...] [--repeats 5]

Prints Markdown tables:

1. per task (the page's default setup, ``default_setup``): optimiser steps and seconds until the
   held-out target is reached (or ``max_steps``), the held-out accuracy (perplexity for text) and
   the best head's score at the end;
2. the time of one training step (forward, masked cross-entropy, backward, clipping, fused AdamW)
   of our model against the same model built from PyTorch's layers (``nn.TransformerEncoderLayer``
   with ``norm_first=True``, or pre-LN ``nn.MultiheadAttention`` blocks for attention-only) with
   the same sizes, batch and optimiser: median over interleaved rounds, and the ratio ours / PyTorch.
   PyTorch's layers have no rotary encoding, so both use learned positions here;
3. the throughput (optimiser steps per second, all trainers together) of 1, 2 and 4 induction
   trainers running at once in threads, one torch thread each.

One torch thread throughout (the app runs many sessions on 2 cores).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import torch
from torch import nn

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from transformer import TASK_NAMES, Trainer, default_setup  # noqa: E402
from transformer.decoding import forward_logits, masked_loss  # noqa: E402
from transformer.training import CLIP_NORM  # noqa: E402


class TorchDecoderOnly(nn.Module):
    """The decoder-only model of a setup from PyTorch's own layers: embeddings x sqrt(d) + learned
    positions, pre-LN layers with a causal mask, a final LayerNorm and a linear head."""

    def __init__(
        self, vocab: int, d_model: int, heads: int, layers: int, d_ff: int, max_len: int, attention_only: bool
    ):
        super().__init__()
        self.scale = math.sqrt(d_model)
        self.tokens, self.positions = nn.Embedding(vocab, d_model), nn.Embedding(max_len, d_model)
        if attention_only:
            self.layers = nn.ModuleList(AttentionOnlyLayer(d_model, heads) for _ in range(layers))
        else:
            self.layers = nn.ModuleList(
                nn.TransformerEncoderLayer(d_model, heads, d_ff, dropout=0.0, batch_first=True, norm_first=True)
                for _ in range(layers)
            )
        self.norm, self.head = nn.LayerNorm(d_model), nn.Linear(d_model, vocab)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        length = tokens.shape[1]
        x = self.tokens(tokens) * self.scale + self.positions.weight[:length]
        mask = nn.Transformer.generate_square_subsequent_mask(length)
        for layer in self.layers:
            x = layer(x, src_mask=mask, is_causal=True)
        return self.head(self.norm(x))


class AttentionOnlyLayer(nn.Module):
    """x + MHA(LN(x)) with ``nn.MultiheadAttention`` (no feed-forward sublayer)."""

    def __init__(self, d_model: int, heads: int):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.attn = nn.MultiheadAttention(d_model, heads, dropout=0.0, batch_first=True)

    def forward(self, x, src_mask=None, is_causal=False):
        h = self.norm(x)
        return x + self.attn(h, h, h, attn_mask=src_mask, need_weights=False, is_causal=is_causal)[0]


def task_table(tasks: list[str]) -> str:
    rows = ["| task | model | steps | seconds | held-out | head score |", "|---|---|---|---|---|---|"]
    for name in tasks:
        trainer = Trainer(default_setup(name))
        while not trainer.done:
            trainer.train(20)
        last, setup = trainer.history[-1], trainer.setup
        held_out = (
            f"perplexity {last['perplexity']:.2f} (target <= {trainer.task.target})"
            if name == "text"
            else f"accuracy {last['val_accuracy']:.3f} (target {trainer.task.target})"
        )
        model = (
            f"{setup.kind}, {setup.layers} layers x {setup.heads} heads, d {setup.d_model}, "
            f"{'attention-only' if setup.attention_only else 'FFN ' + str(setup.d_ff)}, {setup.positional}"
        )
        rows.append(
            f"| {name} | {model} | {trainer.step} | {last['seconds']:.1f} | {held_out} | "
            f"{trainer.task.score_name} {last['head_score']:.2f} |"
        )
    return "\n".join(rows)


def _timed_steps(model: nn.Module, forward, batch, steps: int) -> float:
    """Seconds per training step of ``model`` on one fixed batch (after 5 warm-up steps)."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    model.train()
    for i in range(steps + 5):
        if i == 5:
            start = time.perf_counter()
        loss = masked_loss(forward(batch), batch)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), CLIP_NORM, foreach=True)
        optimizer.step()
    return (time.perf_counter() - start) / steps


def step_ratio(task: str, repeats: int, steps: int = 100) -> str:
    setup = replace(default_setup(task), positional="learned")
    ours = Trainer(setup)
    config = ours.config
    theirs = TorchDecoderOnly(
        config.tgt_vocab_size,
        config.d_model,
        config.num_heads,
        config.num_decoder_layers,
        config.d_ff,
        config.max_len,
        setup.attention_only,
    )
    count = lambda m: sum(p.numel() for p in m.parameters())  # noqa: E731
    batch = ours.task.batch(setup.batch_size, torch.Generator().manual_seed(0))
    times_ours, times_theirs = [], []
    for _ in range(repeats):  # interleaved, so that load on the machine hits both alike
        times_ours.append(_timed_steps(ours.model, lambda b: forward_logits(ours.model, b), batch, steps))
        times_theirs.append(_timed_steps(theirs, lambda b: theirs(b.inputs), batch, steps))
    a, b = statistics.median(times_ours), statistics.median(times_theirs)
    kind = "attention-only" if setup.attention_only else f"FFN {setup.d_ff}"
    return (
        f"| {task} ({setup.layers} layers, d {setup.d_model}, {setup.heads} heads, {kind}, "
        f"batch {setup.batch_size} x {ours.task.context}) | {count(ours.model)} / {count(theirs)} | "
        f"{a * 1000:.2f} | {b * 1000:.2f} | {a / b:.2f} |"
    )


def throughput(trainers: int, steps: int = 150) -> tuple[float, float]:
    """(optimiser steps per second, all trainers together; seconds) for ``trainers`` threads at once."""
    setup = replace(default_setup("induction"), max_steps=10**6)
    pool = [Trainer(setup, stop_at_target=False) for _ in range(trainers)]
    threads = [threading.Thread(target=t.train, args=(steps,)) for t in pool]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - start
    return trainers * steps / seconds, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="*", default=list(TASK_NAMES), choices=TASK_NAMES)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip-tasks", action="store_true", help="only the step ratio and the threads")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if not args.skip_tasks:
        print("### Each task to its target (default setup)\n")
        print(task_table(args.tasks) + "\n", flush=True)
    print("### One training step: ours vs PyTorch's layers (learned positions, median)\n")
    print("| model | parameters ours / PyTorch | ours ms | PyTorch ms | ratio |\n|---|---|---|---|---|")
    for task in ("induction", "copy"):
        print(step_ratio(task, args.repeats), flush=True)
    print("\n### Induction trainers in threads at once (1 torch thread each)\n")
    print("| trainers | steps/s (all) | steps/s per trainer | seconds for 150 steps each |\n|---|---|---|---|")
    for count in (1, 2, 4):
        rate, seconds = throughput(count)
        print(f"| {count} | {rate:.0f} | {rate / count:.0f} | {seconds:.1f} |", flush=True)


if __name__ == "__main__":
    main()
