"""Server-side timings of the Experiments page's computations, one thread, as the app runs them.

    python bench/experiments.py [--repeats 5]

Prints Markdown: the median (and the fastest) over ``--repeats`` runs of
- the knock-out sweep over every head of the shipped induction model (64 sequences of 32 tokens);
- the knock-out sweep over MiniLM's 72 heads on two sentences cut to 64 tokens each;
- the patching grid of the induction model (every head patched alone) and one head patched per position;
- one knock-out (a forward pass of the 64 sequences with one head knocked out).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analysis.knockout import knockout_sweep, sentence_similarity, sublayer_names, task_score  # noqa: E402
from analysis.patching import patching_run, restored_by_head, restored_by_position  # noqa: E402
from transformer import Ablate, load_checkpoint, load_pretrained, make_task  # noqa: E402

TEXT = (
    "Attention lets every token look at every other token in one step, and the weights it computes say how "
    "much of each value vector flows into the output. "
) * 4


def timed(run, repeats: int) -> tuple[float, float]:
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), min(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    repeats = parser.parse_args().repeats
    torch.set_num_threads(1)
    induction, _ = load_checkpoint(ROOT / "checkpoints" / "induction.safetensors")
    task = make_task("induction")
    batch = task.batch(64, torch.Generator().manual_seed(0), "val")
    names = sublayer_names(induction)
    minilm, tokenizer = load_pretrained("all-MiniLM-L6-v2")
    pieces = tokenizer.with_max_tokens(64)
    first, second = pieces.encode_text(TEXT).ids, pieces.encode_text(TEXT[::-1]).ids
    clean = task.encode_user_input("qphnxodajfbnxodajfbnxodajfbnxoda")
    corrupted = task.encode_user_input("qphcxodajfbnxodajfbnxodajfbnxoda")
    rows = []
    with torch.inference_mode():
        rows.append(
            (
                "one knock-out, induction model, 64 x 32 tokens",
                timed(lambda: task_score(induction, batch, [Ablate(names[1], [0])]), repeats),
            )
        )
        rows.append(
            (
                "knock-out sweep, induction model (4 heads), 64 x 32 tokens",
                timed(lambda: knockout_sweep(names, 2, lambda iv: task_score(induction, batch, iv).accuracy), repeats),
            )
        )
        rows.append(
            (
                f"knock-out sweep, MiniLM (72 heads), two sentences of {len(first)} and {len(second)} tokens",
                timed(
                    lambda: knockout_sweep(
                        sublayer_names(minilm), 12, lambda iv: sentence_similarity(minilm, first, second, iv).cosine
                    ),
                    max(1, repeats // 2),
                ),
            )
        )

        def patching():
            run = patching_run(induction, clean, corrupted, 11)
            restored_by_head(induction, run, names)
            restored_by_position(induction, run, names[0], 1)

        rows.append(("patching grid + one head by position, induction model, 32 tokens", timed(patching, repeats)))
    print("| computation | median | fastest |\n|---|---|---|")
    for name, (median, fastest) in rows:
        print(f"| {name} | {median * 1000:.0f} ms | {fastest * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
