"""What the KV cache stores and saves, and what multi-query, grouped-query and windowed attention save.

The cache of a decoder with N layers holds, after t tokens, per layer a K and a V of
``[H_kv, t, d_head]``: 2 N H_kv t d_head numbers, 4 bytes each in float32. Multi-query (H_kv = 1)
and grouped-query attention (H_kv a divisor of H) divide it by ``H / H_kv``; a window of w keeps
only min(t, w) positions. Times are measured on this machine: each step of a greedy generation is
timed on its own, with the cache (only the new token goes in) and without (the whole sequence again).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import torch

from transformer import KVCache, TransformerConfig, build_model, divisors

FLOAT_BYTES = 4


def cache_bytes(config: TransformerConfig, tokens, layers: int | None = None) -> np.ndarray:
    """Bytes of a decoder's KV cache after ``tokens`` (an int or an array) tokens, by the formula above."""
    t = np.asarray(tokens, dtype=np.int64)
    kept = t if config.attention_window is None else np.minimum(t, config.attention_window)
    layers = config.num_decoder_layers if layers is None else layers
    return 2 * layers * config.kv_heads * kept * config.d_head * FLOAT_BYTES


@torch.inference_mode()
def step_times(
    model: torch.nn.Module,
    prompt: list[int],
    steps: int,
    use_cache: bool,
    clock: Callable[[], float] = time.perf_counter,
) -> np.ndarray:
    """Seconds of each of ``steps`` greedy steps of a decoder-only model after ``prompt`` ``[steps]``
    (the first step reads the whole prompt either way)."""
    sequence, cache, seconds = list(prompt), KVCache() if use_cache else None, []
    for _ in range(steps):
        start = clock()
        fed = sequence if cache is None else sequence[cache.positions :]
        logits = model(torch.tensor([fed]), cache=cache).logits
        sequence.append(int(logits[0, -1].argmax()))
        seconds.append(clock() - start)
    return np.asarray(seconds, dtype=np.float64)


@torch.inference_mode()
def next_token_seconds(
    model: torch.nn.Module, lengths, repeats: int = 5, seed: int = 0, clock: Callable[[], float] = time.perf_counter
) -> tuple[np.ndarray, np.ndarray]:
    """Best seconds ``[L]`` for the next token after t random tokens, for each t in ``lengths``: with the
    cache (one token read against t stored keys and values) and without (all t + 1 tokens read again)."""
    vocab = model.config.tgt_vocab_size
    generator = torch.Generator().manual_seed(seed)
    cached, plain = [], []
    for t in lengths:
        sequence = torch.randint(4, vocab, (1, int(t) + 1), generator=generator)
        cache = KVCache()
        model(sequence[:, :-1], cache=cache)
        best_cached = best_plain = float("inf")
        for _ in range(max(1, repeats)):
            cache.positions = int(t)  # read the same next token again, against the same keys
            for name in cache.keys:
                cache.keys[name], cache.values[name] = cache.keys[name][..., :t, :], cache.values[name][..., :t, :]
            start = clock()
            model(sequence[:, -1:], cache=cache)
            best_cached = min(best_cached, clock() - start)
            start = clock()
            model(sequence)
            best_plain = min(best_plain, clock() - start)
        cached.append(best_cached)
        plain.append(best_plain)
    return np.asarray(cached), np.asarray(plain)


@dataclass(frozen=True)
class Variant:
    """One way to share keys and values: its label, config, cache bytes at the final length, milliseconds
    per generated token (with the cache: the best of a few medians, ``measure_variants``), the model's
    parameters (weights and biases) and each round's median."""

    label: str
    config: TransformerConfig
    cache_bytes: int
    ms_per_token: float
    parameters: int
    ms_rounds: tuple[float, ...] = ()  # each round's median, the variants timed in turn within a round


def variants(config: TransformerConfig, window: int) -> dict[str, TransformerConfig]:
    """The picked model's sizes as multi-head, every grouped-query split, multi-query, and a window of ``window``."""
    heads = config.num_heads
    found = {f"multi-head ({heads} K/V heads)": replace(config, num_kv_heads=None, attention_window=None)}
    for kv in reversed(divisors(heads)[1:-1]):
        found[f"grouped-query ({kv} K/V heads)"] = replace(config, num_kv_heads=kv, attention_window=None)
    if heads > 1:
        found["multi-query (1 K/V head)"] = replace(config, num_kv_heads=1, attention_window=None)
    found[f"sliding window of {window}"] = replace(config, num_kv_heads=None, attention_window=window)
    return found


def measure_variants(
    config: TransformerConfig, prompt: list[int], steps: int, window: int, seed: int = 0, rounds: int = 3
) -> list[Variant]:
    """Random decoder-only models of each variant (same sizes, seeded): cache bytes after the prompt and
    ``steps`` tokens, the time per token with the cache, and the parameters. The time is the best of ``rounds``
    medians, the variants measured in turn each round, so a pause of the machine during one variant's
    measurement does not make that variant look slow."""
    configs = variants(config, window)
    models = {label: build_model(variant, seed=seed, kind="decoder-only") for label, variant in configs.items()}
    medians: dict[str, list[float]] = {label: [] for label in models}
    for _ in range(max(1, rounds)):
        for label, model in models.items():
            times = step_times(model, prompt, steps, use_cache=True)
            medians[label].append(float(np.median(times[1:] if steps > 1 else times)) * 1000)
    return [
        Variant(
            label,
            configs[label],
            int(cache_bytes(configs[label], len(prompt) + steps - 1)),
            min(medians[label]),
            sum(p.numel() for p in model.parameters()),
            tuple(medians[label]),
        )
        for label, model in models.items()
    ]
