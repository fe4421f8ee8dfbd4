"""The encoder-decoder page's "Since 2017" section: the 2017 block beside today's decoder block (Llama, Mistral,
Qwen), one change at a time, each measured on the package's own modules at the page's sizes, and the two text
models trained here alike but for their blocks."""

from __future__ import annotations

import math

import numpy as np
import streamlit as st

from analysis.head_stats import head_stats
from analysis.todays_block import feed_forward_table, kv_cache_table, normed, offset_scores, residual_growth
from pages.encoder_decoder.sections import SentencePair
from transformer import causal_mask
from ui.cache import cached_figure, computation
from ui.charts import chart
from ui.controls import section_picker, stops_slider
from ui.forward import self_attention_maps
from ui.model_picker import shipped_entry
from ui.models import load_model
from ui.text import tokenize_text
from ui.formulas import formula
from viz.heads import head_grid_figure
from viz.todays_block import grouped_bars, layer_lines

PARTS = ("Norm placement", "RMSNorm", "SwiGLU", "RoPE", "Shared keys", "Two trained blocks")
DEFAULT_VECTOR = "3, 1, 4, 1, 5, 9"
MAX_VECTOR = 64
PAIRS = [(0, 3), (10, 13), (50, 53), (0, 6)]  # three pairs three positions apart, and one six apart
MODELS = {"text": "LayerNorm + ReLU block", "text_llama": "Llama block"}
SENTENCE = "the softmax turns scores into weights"
CACHE_TOKENS = 1024
stream_growth = computation(residual_growth)  # two 6-layer models built and run: once per config and sentence


def since_2017_section(pair: SentencePair) -> None:
    """The row of parts and the open one."""
    st.header("Since 2017: today's decoder block")
    part = section_picker(PARTS, key="road", label="change")
    PART_DRAWS[part](pair)


def norm_placement(pair: SentencePair) -> None:
    growth = stream_growth(pair.config, tuple(pair.dec_ids), layers=6)
    post, pre = growth["post-LN (2017)"], growth["pre-LN (today)"]
    title = f"Pre-LN's stream grows from {pre.iloc[0]:.2f} to {pre.iloc[-1]:.2f}; post-LN's stays at {post.mean():.2f}"
    chart(
        cached_figure(
            layer_lines,
            growth["layer"].tolist(),
            {c: growth[c].tolist() for c in growth.columns[1:]},
            title,
            "RMS of the residual stream",
        ),
        key="road_norms",
    )
    st.markdown(
        "The paper normalises **after** each sublayer's residual sum; GPT-2 and every decoder since normalise "
        "the sublayer's **input** and leave the sum alone:"
    )
    formula(
        r"\begin{aligned}\text{2017: }& x \leftarrow \mathrm{LN}(x + F(x))\\"
        r"\text{today: }& x \leftarrow x + F(\mathrm{LN}(x))\end{aligned}"
    )
    st.markdown(
        f"Measured on two random 6-layer decoders of this page's sizes (d_model {pair.config.d_model}, "
        f"{pair.config.num_heads} heads) reading the decoder's input: after each post-LN layer the stream is "
        f"normalised again (root mean square {post.min():.2f} to {post.max():.2f}); in pre-LN it is never "
        f"normalised, so what each layer adds piles up ({pre.iloc[0]:.2f} after layer 1, "
        f"{pre.iloc[-1]:.2f} after layer 6). The gradient then reaches early layers through the plain sums, "
        "which is why pre-LN stacks train deep without the paper's long warm-up (Xiong et al., 2020), and why "
        "they end in one more norm before the output."
    )


def _vector(text: str) -> list[float] | str:
    """The numbers of ``text`` (commas or spaces between them), or what to change."""
    parts = [p for p in text.replace(",", " ").split() if p]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        return "Type numbers separated by commas, e.g. 3, 1, 4, 1, 5, 9."
    if not 2 <= len(values) <= MAX_VECTOR:
        return f"Type between 2 and {MAX_VECTOR} numbers (now {len(values)})."
    if not all(math.isfinite(v) and abs(v) <= 1e6 for v in values):
        return "Keep each number between -1,000,000 and 1,000,000."
    return values


def rms_norm_part(pair: SentencePair) -> None:
    text = st.text_input("a vector x", DEFAULT_VECTOR, key="road_x", bind="query-params", max_chars=800)
    values = _vector(text)
    if isinstance(values, str):
        st.error(values)
        return
    v = normed(values)
    dims = [str(i) for i in range(1, len(values) + 1)]
    centred = "every part shifted by the same mean" if abs(v.mean) > 1e-6 else "no mean to remove here"
    title = f"Both end at root mean square 1; LayerNorm first removes the mean, {v.mean:.2f}"
    chart(
        cached_figure(
            grouped_bars,
            dims,
            {"LayerNorm(x)": v.layer_norm.tolist(), "RMSNorm(x)": v.rms_norm.tolist()},
            title,
            "dimension",
            "value",
            ".2f",
        ),
        key="road_rms",
    )
    st.dataframe(
        {"dimension": dims, "x": v.x, "LayerNorm(x)": v.layer_norm, "RMSNorm(x)": v.rms_norm},
        hide_index=True,
        key="road_rms_table",
    )
    signs = int(np.sum(np.sign(v.rms_norm) == np.sign(v.x)))
    formula(
        r"\begin{aligned}\mathrm{LN}(x) &= \frac{x - \bar x}{\sqrt{\mathrm{var}(x) + \epsilon}}\,g + b\\"
        r"\mathrm{RMSNorm}(x) &= \frac{x}{\sqrt{\tfrac1d\sum_i x_i^2 + \epsilon}}\,g\end{aligned}"
    )
    st.markdown(
        f"Here x has mean {v.mean:.2f} and root mean square {v.rms:.2f} (gains g = 1, no bias). LayerNorm "
        f"centres it ({centred}), then scales it; RMSNorm only divides by {v.rms:.2f}, so every "
        f"coordinate keeps its sign ({signs} of {len(values)}) and its ratio to the others. One statistic "
        "instead of two and no bias: Llama, Mistral and Qwen use RMSNorm, which trains as well as LayerNorm "
        "and costs less (Zhang & Sennrich, 2019)."
    )


def swiglu_part(pair: SentencePair) -> None:
    table = feed_forward_table(pair.config.d_model, pair.config.d_ff)
    relu, same, narrow = (int(w) for w in table["weights"])
    title = (
        f"SwiGLU at d_ff {int(table['d_ff'].iloc[2])} holds {narrow:,} weights, ReLU's at {pair.config.d_ff} {relu:,}"
    )
    chart(
        cached_figure(
            grouped_bars,
            table["feed-forward"].tolist(),
            {"weights": table["weights"].tolist()},
            title,
            "feed-forward",
            "weights",
            ",d",
        ),
        key="road_ffn",
    )
    st.dataframe(table, hide_index=True, key="road_ffn_table")
    formula(
        r"\begin{aligned}\text{2017: }& \mathrm{ReLU}(xW_1 + b_1)W_2 + b_2\\"
        r"\text{today: }& \big(\mathrm{SiLU}(xW_{gate}) \odot xW_1\big)W_2,\ \mathrm{SiLU}(z) = z\,\sigma(z)"
        r"\end{aligned}"
    )
    st.markdown(
        f"A gate: x W_gate decides, unit by unit, how much of x W_1 passes. That is a third matrix, so at the "
        f"same d_ff ({pair.config.d_ff}) the block holds {same:,} weights against ReLU's {relu:,} "
        f"({same / relu:.2f} ×). Llama narrows d_ff to two thirds (8 d_model / 3 instead of 4 d_model) to keep "
        f"the count: {narrow:,} here. At equal weights, the gated network reaches a lower loss "
        "(Shazeer, 2020)."
    )


def rope_part(pair: SentencePair) -> None:
    d_head = pair.config.d_head if pair.config.d_head % 2 == 0 else pair.config.d_head + 1
    scores = offset_scores(d_head, PAIRS, seed=0)
    names = [f"{m} → {n}" for m, n in zip(scores["query at"], scores["key at"])]
    same = scores[scores["offset"] == 3]
    spread = (same["sinusoidal (added)"].min(), same["sinusoidal (added)"].max())
    title = f"RoPE scores three pairs at offset 3 alike ({same['RoPE'].iloc[0]:.2f}); added sinusoids do not"
    series = {"sinusoids added": scores["sinusoidal (added)"].tolist(), "RoPE": scores["RoPE"].tolist()}
    chart(
        cached_figure(grouped_bars, names, series, title, "query position → key position", "score q · k", ".2f"),
        key="road_rope",
    )
    formula(
        r"\begin{aligned}\text{2017: }& q_m = W_Q(x_a + PE_m),\ k_n = W_K(x_b + PE_n)\\"
        r"\text{today: }& q_m = R_m W_Q x_a,\ k_n = R_n W_K x_b\\"
        r"& q_m^\top k_n = (W_Q x_a)^\top R_{n-m}\, W_K x_b\end{aligned}"
    )
    st.markdown(
        f"The same two tokens (seeded random, one head of {d_head} dimensions) at four pairs of positions. "
        f"RoPE turns each pair of q's and k's dimensions by its position's angle, so the score depends on "
        f"the offset n − m alone: the three pairs three apart all score {same['RoPE'].iloc[0]:.3f}. Sinusoids "
        f"added to the tokens mix position with content, and the same three pairs score {spread[0]:.2f} to "
        f"{spread[1]:.2f}. The Positional encoding page turns the angles."
    )


def shared_keys_part(pair: SentencePair) -> None:
    table = kv_cache_table(pair.config, CACHE_TOKENS)
    names = [f"{n} ({k} key-value head{'s' * (k > 1)})" for n, k in zip(table["attention"], table["key-value heads"])]
    kib = (table["cache (bytes)"] / 1024).tolist()
    smallest = table.iloc[-1]
    title = f"Multi-query attention's cache is 1/{pair.config.num_heads} of multi-head's: {kib[-1]:,.0f} KiB against {kib[0]:,.0f}"
    chart(cached_figure(grouped_bars, names, {"KV cache (KiB)": kib}, title, "attention", "KiB", ",.0f"), key="road_kv")
    st.markdown(
        f"Generating token by token, a decoder keeps every earlier token's keys and values (the KV cache): "
        f"2 × layers × key-value heads × tokens × d_head numbers. With {pair.config.num_heads} query heads, "
        f"multi-head attention keeps {pair.config.num_heads} key-value heads; grouped-query attention lets a "
        f"group of query heads share one (Llama 3, Mistral, Qwen), multi-query attention all of them. At this "
        f"page's sizes ({pair.config.num_decoder_layers} layers, d_head {pair.config.d_head}) and "
        f"{CACHE_TOKENS:,} tokens in float32: {kib[0]:,.0f} KiB down to {kib[-1]:,.0f} KiB "
        f"({int(smallest['key-value heads'])} head). The queries stay per head, so the heads still look at "
        "different tokens; what they share is what they read. The Generate page times the cache."
    )


def _previous_character_heads(weights: np.ndarray) -> tuple[np.ndarray, str]:
    """Each head's mean weight on the previous character ``[L, H]``, and the best head named ("layer 2, head 1")."""
    stats = head_stats(weights, causal_mask(weights.shape[-1]).numpy())
    shares = stats["on previous token"].to_numpy().reshape(weights.shape[:2])
    layer, head = np.unravel_index(int(np.argmax(shares)), shares.shape)
    return shares, f"layer {layer + 1}, head {head + 1}: {shares[layer, head]:.2f}"


def trained_blocks_part(pair: SentencePair) -> None:
    text = st.text_input(
        "text (both models read characters)", SENTENCE, key="road_text", bind="query-params", max_chars=120
    )
    layer = stops_slider("layer", range(1, 3), "road_layer")
    rows, columns = [], st.columns(2)
    for (name, block), column in zip(MODELS.items(), columns):
        try:
            entry = shipped_entry(name)
        except KeyError:
            st.error(f"checkpoints/{name}.safetensors is missing on this server, so the two blocks cannot be compared.")
            return
        loaded = load_model(entry.spec)
        sentence = tokenize_text(text, 64, tokenizer=loaded.tokenizer)
        if sentence is None or len(sentence.ids) < 2:
            st.info("Type at least two characters.")
            return
        weights = self_attention_maps(entry.spec, sentence.ids)  # [L, H, T, T]
        shares, best = _previous_character_heads(weights)
        head = int(np.argmax(shares[layer - 1]))
        title = f"{block}, layer {layer}: head {head + 1} puts {shares[layer - 1, head]:.2f} on the previous character"
        with column:
            chart(
                cached_figure(
                    head_grid_figure,
                    weights[layer - 1],
                    list(sentence.tokens),
                    list(sentence.tokens),
                    title,
                    mask=causal_mask(len(sentence.ids)).numpy(),
                    max_cols=1,
                ),
                key=f"road_{name}",
            )
        config, metrics = loaded.config, entry.metadata["metrics"]
        rows.append(
            {
                "model": block,
                "norm": "RMSNorm" if config.norm == "rmsnorm" else "LayerNorm",
                "feed-forward": f"{'SwiGLU' if config.activation == 'swiglu' else 'ReLU'}, d_ff {config.d_ff}",
                "key-value heads": config.kv_heads,
                "weights": sum(p.numel() for p in loaded.module.parameters()),
                "held-out perplexity": round(float(metrics["perplexity"]), 2),
                "previous-character head": best,
            }
        )
    st.dataframe(rows, hide_index=True, key="road_models")
    st.markdown(
        "Two small decoders trained here on the same text, with the same steps, learning rates and seed. Both "
        "are pre-LN with RoPE; one keeps the paper's LayerNorm, ReLU and a key-value head per head, the other "
        "has Llama's RMSNorm, SwiGLU and one key-value head shared by its two heads. Each map is one head of "
        "the chosen layer on your text. Perplexity is measured on the held-out tenth of the text at training "
        "(lower is better)."
    )
    ours, theirs = rows[0]["held-out perplexity"], rows[1]["held-out perplexity"]
    better = "the Llama block" if theirs < ours else "the LayerNorm + ReLU block" if ours < theirs else "neither"
    st.markdown(
        f"Held out, {better} predicts the text better ({theirs} against {ours}), with {rows[1]['weights']:,} "
        f"weights against {rows[0]['weights']:,} (one shared key-value head where the other has two). Each "
        f"has a head that reads the previous character most ({rows[0]['previous-character head']} and "
        f"{rows[1]['previous-character head']} on your text). At this size the difference is small; the "
        "changes were made for models a thousand times larger, and for the cost of their KV cache."
    )


PART_DRAWS = {
    "Norm placement": norm_placement,
    "RMSNorm": rms_norm_part,
    "SwiGLU": swiglu_part,
    "RoPE": rope_part,
    "Shared keys": shared_keys_part,
    "Two trained blocks": trained_blocks_part,
}
