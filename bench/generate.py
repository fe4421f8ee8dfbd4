"""Server-side timings of generation, one thread, as the Generate page runs it.

    python bench/generate.py [--repeats 7]

Prints Markdown:
- per shipped model that writes, the median milliseconds per generated token (greedy, with the KV
  cache, 32 tokens after its default prompt; the first step, which reads the prompt, left out);
- for a random model of the text model's sizes with max_len 513, the best time for the next token after
  t tokens with the cache and without it, and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analysis.decoding_cost import next_token_seconds  # noqa: E402
from transformer import KVCache, build_model, load_checkpoint, make_task  # noqa: E402

PROMPTS = {
    "text": "the attention ",
    "induction": "qphnxodajfbnxoda",
    "copy": "algorithm",
    "sort": "algorithm",
    "reverse": "algorithm",
}
LENGTHS = (64, 128, 256, 512)


@torch.inference_mode()
def ms_per_token(model, prompt: list[int], source: list[int] | None, steps: int) -> float:
    """Median ms of a greedy step with the cache, after the first (the prompt's) step."""
    cache, sequence, seconds = KVCache(), list(prompt), []
    for _ in range(steps):
        start = time.perf_counter()
        fed = torch.tensor([sequence[cache.positions :]])
        out = model(torch.tensor([source]), fed, cache=cache) if source is not None else model(fed, cache=cache)
        sequence.append(int(out.logits[0, -1].argmax()))
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds[1:]) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    repeats = parser.parse_args().repeats
    torch.set_num_threads(1)
    print("| shipped model | ms per token (median, KV cache) |\n|---|---:|")
    for name, text in PROMPTS.items():
        model, metadata = load_checkpoint(ROOT / "checkpoints" / f"{name}.safetensors")
        task = make_task(metadata["task"], metadata["kind"])
        ids = task.encode_user_input(text)
        if model.kind == "encoder-decoder":
            steps = min(32, model.config.max_len - 1)
            best = min(ms_per_token(model, [1], ids, steps) for _ in range(3))
        else:
            steps = min(32, model.config.max_len - len(ids))
            best = min(ms_per_token(model, ids, None, steps) for _ in range(3))
        print(f"| {name} ({model.kind}) | {best:.2f} |")
    text_model, _ = load_checkpoint(ROOT / "checkpoints" / "text.safetensors")
    random = build_model(replace(text_model.config, max_len=max(LENGTHS) + 1), seed=0, kind="decoder-only")
    cached, plain = next_token_seconds(random, LENGTHS, repeats=repeats)
    print(
        "\n| tokens t | next token, cache (ms) | next token, no cache (ms) | no cache / cache |\n|---:|---:|---:|---:|"
    )
    for t, a, b in zip(LENGTHS, cached, plain):
        print(f"| {t} | {a * 1000:.2f} | {b * 1000:.2f} | {b / a:.1f} |")


if __name__ == "__main__":
    main()
