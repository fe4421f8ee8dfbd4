"""KV cache and Cost: what the cache stores and saves, measured live; multi-query, grouped-query and windowed
attention on the same prompt; and what one attention layer costs against the sequence length."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st
import torch

from analysis.decoding_cost import cache_bytes, measure_variants, next_token_seconds
from analysis.timing_verdict import spread, steady_side
from analysis.window_cost import measure_window_cost
from pages.generate.sections import explain_space_mark
from pages.generate.setup import Writer
from transformer import KVCache, TransformerConfig, build_model
from transformer.spec import ModelSpec
from ui.charts import chart
from ui.models import load_model
from viz.generation import labelled_bars, lines
from viz.heatmap import matrix_heatmap

MEASURED_STEPS = 48  # tokens generated per variant (fewer when max_len leaves less room)
LENGTHS = (16, 32, 64, 128, 256, 512)


@st.cache_resource(max_entries=8, show_spinner="Timing the next token with and without the cache…")
def timed_next_token(config: TransformerConfig) -> tuple[np.ndarray, np.ndarray]:
    """Best seconds for the next token after each of ``LENGTHS`` tokens, with the cache and without, on a
    seeded random model of ``config``'s sizes (measured once per server and sizes)."""
    model = build_model(replace(config, max_len=max(LENGTHS) + 1), seed=0, kind="decoder-only")
    with torch.inference_mode():
        return next_token_seconds(model, LENGTHS, repeats=7)


@st.cache_resource(max_entries=16, show_spinner="Measuring attention with shared keys and values, and with a window…")
def timed_variants(spec: ModelSpec, ids: tuple[int, ...], steps: int, window: int):
    with torch.inference_mode():
        return measure_variants(load_model(spec).config, list(ids) or [1], steps, window)


def render_kv_cache(writer: Writer, ids, budget: int) -> None:
    loaded = writer.loaded
    if loaded.kind != "decoder-only":
        st.info(
            "The cache is measured here on decoder-only models; pick one (an encoder-decoder caches its "
            "decoder the same way, and its cross-attention keys once)."
        )
        return
    config = loaded.config
    prompt = list(ids) or [1]
    steps = max(2, min(MEASURED_STEPS, config.max_len - len(prompt)))
    cache = KVCache()
    with torch.inference_mode():
        loaded.module(torch.tensor([prompt]), cache=cache)
    layer = next(iter(cache.shapes().values()))
    st.markdown(
        f"**What is stored**: per layer a K and a V of [batch, K/V heads, t, d_head] = {list(layer)} after the "
        f"prompt's {len(prompt)} token(s), {config.num_decoder_layers} layer(s): "
        f"{cache.nbytes():,} bytes (the formula gives {int(cache_bytes(config, len(prompt))):,})."
    )
    lengths = np.arange(1, config.max_len + 1)
    window = config.attention_window  # a windowed model keeps only the last w tokens' K and V
    upto, kept = ("", "t") if window is None else (f" up to its window of {window}", f"min(t, {window})")
    chart(
        lines(
            lengths,
            {"KV cache": cache_bytes(config, lengths) / 1024},
            "The cache grows by one K and V per token "
            f"and layer{upto}: 2 · {config.num_decoder_layers} · {config.kv_heads} · {kept} · {config.d_head} · 4 bytes",
            "tokens t",
            "KiB",
        )
    )
    with_cache, without = timed_next_token(config)
    at = LENGTHS.index(256)
    chart(
        lines(
            np.asarray(LENGTHS),
            {"with the cache": with_cache * 1000, "without (all tokens again)": without * 1000},
            "Time for the next token after t tokens, measured on this server: after 256, "
            f"{without[at] / max(with_cache[at], 1e-9):.1f}× faster with the cache",
            "tokens t",
            "ms",
            log=True,
        )
    )
    st.caption(
        f"A random model of this model's sizes, best of 7: after 256 tokens the next one takes "
        f"{with_cache[at] * 1000:.1f} ms with the cache and {without[at] * 1000:.1f} ms without "
        f"({without[at] / max(with_cache[at], 1e-9):.1f}x). Without it, every step reads the whole text again."
    )
    st.header("Sharing keys and values, and a window")
    window = st.slider(
        "window w",
        2,
        32,
        8,
        key="w",
        bind="query-params",
        help="A sliding window lets each token see only the w most recent ones, itself included.",
    )
    found = timed_variants(writer.spec, tuple(prompt), steps, window)
    left, right = st.columns(2)
    with left:
        chart(
            labelled_bars(
                [v.label for v in found],
                [v.cache_bytes / 1024 for v in found],
                f"Cache after {len(prompt) + steps - 1} tokens" + cache_finding(found),
                "KiB",
                ".1f",
            )
        )
    with right:
        chart(
            labelled_bars(
                [v.label for v in found],
                [v.ms_per_token for v in found],
                "Time per token (cache on)" + time_finding(found),
                "ms",
                ".2f",
            )
        )
    st.caption(saved_note(found, config, window))
    windowed = build_model(found[-1].config, seed=0, kind="decoder-only")
    sequence = (prompt * (1 + 24 // len(prompt)))[:24]
    with torch.inference_mode():
        weights = windowed(torch.tensor([sequence]), return_attention=True).attention.weights
    labels = writer.names(sequence)
    band = np.tril(np.ones((len(sequence), len(sequence)), dtype=bool)) & ~np.tril(
        np.ones((len(sequence), len(sequence)), dtype=bool), -window
    )
    chart(
        matrix_heatmap(
            weights["decoder.layers.0.self_attn"][0, 0].numpy(),
            labels,
            labels,
            f"A window of {window}: each query sees at most its {window} most recent keys (layer 1 · head 1)",
            mask=band,
        )
    )
    explain_space_mark(labels)
    table = pd.DataFrame(
        {
            "variant": [v.label for v in found],
            "K/V heads": [v.config.kv_heads for v in found],
            "cache (bytes)": [v.cache_bytes for v in found],
            "parameters": [v.parameters for v in found],
            "ms per token": [round(v.ms_per_token, 2) for v in found],
            "each round (ms)": [" · ".join(f"{ms:.3f}" for ms in v.ms_rounds) for v in found],
        }
    )
    st.dataframe(table, hide_index=True)


def time_note(full, others) -> str:
    """What the variants' times per token say against multi-head attention's, round by round (each round times
    every variant in turn): a verdict on 0.8 of its time only where every round agrees (``steady_side``),
    otherwise the ratios' spread."""
    ratios, sides = time_ratios(full, others)
    rounds = len(full.ms_rounds)
    faster = [label for label, side in sides.items() if side is True]
    unclear = [label for label, side in sides.items() if side is None]
    if faster and not unclear:
        return f"{', '.join(faster)} took under 0.8 of its time per token in each of {rounds} rounds"
    if not faster and not unclear:
        return (
            f"none took under 0.8 of its time per token ({full.ms_per_token:.2f} ms) in any of {rounds} rounds: "
            "here they save memory, not time"
        )
    listed = "; ".join(f"{label} {spread(values)}" for label, values in ratios.items())
    return f"their times per token over multi-head's, in {rounds} rounds: {listed}: the rounds do not agree whether they take under 0.8 of its time"


def time_ratios(full, others) -> tuple[dict[str, np.ndarray], dict[str, bool | None]]:
    """Each variant's times per token over multi-head attention's, round by round, and whether every round puts it
    under 0.8 of that time (True), none does (False), or the rounds disagree (None: ``steady_side``)."""
    ratios = {v.label: np.asarray(v.ms_rounds) / np.asarray(full.ms_rounds) for v in others}
    return ratios, {label: steady_side(values, 0.8) for label, values in ratios.items()}


def time_finding(found) -> str:
    """The times' title ending, the verdict of ``time_note`` in short."""
    _, sides = time_ratios(found[0], found[1:])
    faster = [label for label, side in sides.items() if side is True]
    if None in sides.values():
        return f": the {len(found[0].ms_rounds)} rounds do not agree which take under 0.8 of multi-head's time"
    if faster:
        return f": {', '.join(faster)} under 0.8 of multi-head's time in every round"
    return ": none under 0.8 of multi-head's time: they save memory, not time"


def cache_finding(found) -> str:
    """The cache bars' title ending: the variant that holds the least, and how many times less than the first
    (multi-head attention's)."""
    full, smallest = found[0], min(found, key=lambda v: v.cache_bytes)
    if smallest is full:
        return f": {full.label} holds the least"
    return f": {smallest.label} holds the least, {full.cache_bytes / smallest.cache_bytes:.3g}× less than {full.label}"


def saved_note(found, config: TransformerConfig, window: int) -> str:
    """What the variants save against multi-head attention (the first), from the measured numbers; it names
    only the variants measured (a model with one head has no keys and values to share)."""
    full, others = found[0], found[1:]
    smallest = min(others, key=lambda v: v.cache_bytes)
    shared = [v for v in others if v.config.kv_heads < full.config.kv_heads]
    windowed = [v for v in others if v.config.attention_window is not None]
    fewer = [v for v in others if v.parameters < full.parameters]
    time = time_note(full, others)
    saves = [
        f"{v.label} divides the cache by {full.config.kv_heads} / {v.config.kv_heads} = "
        f"{full.config.kv_heads / v.config.kv_heads:g}"
        for v in shared
    ]
    saves += [f"the window keeps at most {v.config.attention_window} positions" for v in windowed]
    if not shared:
        saves.append(f"with {config.num_heads} query head there are no keys and values to share")
    why = (
        "shared keys and values: fewer W_K and W_V columns; a window shares none" if shared else "a window shares none"
    )
    have = "has" if len(fewer) == 1 else "have"
    heads = f"{config.num_heads} query head{'' if config.num_heads == 1 else 's'}"
    return (
        f"Random models of this model's sizes ({heads}, d_head {config.d_head}), against "
        f"{full.label}: {'; '.join(saves)} (the smallest cache, {smallest.label}'s, holds {smallest.cache_bytes:,} "
        f"bytes, against {full.cache_bytes:,}); {len(fewer)} of the {len(others)} {have} fewer parameters ({why}); {time}."
    )


@st.cache_resource(max_entries=1, show_spinner="Timing full and windowed attention at four lengths…")
def window_cost():
    return measure_window_cost()


def render_cost() -> None:
    cost = window_cost()
    chart(
        lines(
            cost.lengths,
            {
                f"full: t ∝ n^{cost.full_fit.exponent:.2f}": cost.full_seconds * 1000,
                f"window of {cost.window}: t ∝ n^{cost.window_fit.exponent:.2f}": cost.window_seconds * 1000,
            },
            f"One causal attention (d = 64), measured on this server: at n = {int(cost.lengths[-1]):,}, the window "
            f"takes {cost.window_seconds[-1] / cost.full_seconds[-1]:.0%} of full attention's time",
            "sequence length n",
            "ms",
            log=True,
        )
    )
    chart(
        lines(
            cost.lengths,
            {
                "full: n² scores": cost.full_bytes / 2**20,
                f"window: n · {cost.window} scores": cost.window_bytes / 2**20,
            },
            f"Memory of the score matrix (float32): at n = {int(cost.lengths[-1]):,}, the window's is "
            f"{cost.window_bytes[-1] / cost.full_bytes[-1]:.1%} of the full one's",
            "sequence length n",
            "MiB",
            log=True,
        )
    )
    st.caption(
        f"On log-log axes a power law is a straight line whose slope is its exponent: fitted here, "
        f"{cost.full_fit.exponent:.2f} for full attention (n² scores) and {cost.window_fit.exponent:.2f} "
        f"with a window of {cost.window} (n · w scores, computed as a band). Best of 5 rounds at each length; "
        "caches and memory traffic bend the measured slopes away from 2 and 1."
    )
