"""Server-side timings of the shipped translation model, and the memory it adds.

    python bench/translation.py [--sentences 100] [--threads 1]

Prints Markdown: for held-out sentences spread over the split (short to long), the median and 95th
percentile milliseconds of one sentence translated with 4 beams and the paper's length penalty (as the
pages and ``translate`` run it) and greedily; the checkpoint's load time; and the process's resident
memory before and after loading it and translating.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from transformer import load_checkpoint, translate, translation_split  # noqa: E402


def resident_mb() -> float:
    """The process's peak resident memory so far, in MB (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=100)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    held_out = translation_split().held_out
    step = len(held_out) / args.sentences
    english = [held_out.english[int(i * step + step / 2)] for i in range(args.sentences)]
    before = resident_mb()
    start = time.perf_counter()
    model, metadata = load_checkpoint(ROOT / "checkpoints" / "translation.safetensors")
    loaded = time.perf_counter() - start
    tokenizer = metadata["tokenizer"]
    print(f"| {args.threads} thread(s), {args.sentences} held-out sentences | median ms | p95 ms |\n|---|---:|---:|")
    for name, beams in (("beam search, 4 beams (the paper's)", 4), ("greedy", 1)):
        seconds = []
        for sentence in english:
            begin = time.perf_counter()
            translate(model, tokenizer, [sentence], num_beams=beams)
            seconds.append(time.perf_counter() - begin)
        seconds.sort()
        p95 = seconds[int(0.95 * (len(seconds) - 1))]
        print(f"| {name} | {1000 * statistics.median(seconds):.0f} | {1000 * p95:.0f} |")
    print(
        f"\nCheckpoint loaded in {1000 * loaded:.0f} ms; peak resident memory {before:.0f} MB before loading it, "
        f"{resident_mb():.0f} MB after loading and translating."
    )


if __name__ == "__main__":
    main()
