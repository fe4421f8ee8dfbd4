"""Masks: causal, padding, cross-attention shapes, their effect on the scores, the fully masked row."""

import numpy as np
import pandas as pd
import streamlit as st

from transformer import TransformerConfig
from ui import masks as mask_ui
from ui.controls import d_model_control, heads_control, layers_control, seed_control
from ui.figure_cache import cached_figure
from ui.forward import self_attention_maps
from ui.text import sentence_input, tokenize_text
from viz.heatmap import matrix_heatmap
from viz.masks import mask_panels_figure
from ui.routing import require_navigation

require_navigation()

st.title("Masks")
st.markdown(
    "A mask says which keys each query may look at. Here, as in PyTorch's "
    "`F.scaled_dot_product_attention`, **True means may attend**. A forbidden score is replaced by "
    "$-\\infty$ before the softmax, so its weight becomes exactly 0 and every row renormalises over "
    "the keys that remain:"
)
st.latex(r"A = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right),\qquad "
         r"M_{ij} = \begin{cases}0 & \text{query } i \text{ may attend to key } j\\ -\infty & \text{otherwise}\end{cases}")

st.header("The causal (look-ahead) mask")
left, right = st.columns([2, 3], gap="large")
with left:
    n = st.slider("tokens n", 1, 32, 8, key="n", bind="query-params")
    st.markdown("The decoder predicts token $i+1$ from tokens $0..i$, so during training query $i$ must "
                "not see any key $j > i$: the mask is lower-triangular, $M_{ij}$ allowed iff $j \\le i$. "
                f"Of the {n * n} cells, {n * (n + 1) // 2} are allowed.")
positions = [str(i) for i in range(n)]
right.plotly_chart(cached_figure(mask_panels_figure, [mask_ui.query_key_masks(n, n)["causal"]], ["causal"],
                                 positions, positions, f"Causal mask for {n} tokens (grey = masked)"),
                   width="stretch")

st.header("Padding: a batch of sentences of different lengths")
st.markdown("Sentences in a batch are padded to the longest one with a `<pad>` token. No query should "
            "attend to a pad key, so the key-padding mask of sentence $b$ allows key $j$ iff "
            "$j < \\text{length}_b$; it broadcasts over all queries.")
cols = st.columns(3)
defaults = ("The cat sat", "The cat sat on the mat", "Dogs bark loudly")
texts = [cols[i].text_input(f"sentence {i + 1}", defaults[i], key=f"s{i + 1}", bind="query-params",
                            max_chars=300) for i in range(3)]
batch = [t for t in (tokenize_text(text, max_tokens=16) for text in texts) if t is not None]
if not batch:
    st.info("Type at least one sentence above to build a batch (they are all empty now).")
    st.stop()
tokens, ids, lengths = mask_ui.pad_batch([b.tokens for b in batch], [b.ids for b in batch])
length = len(tokens[0])
names = [f"sentence {i + 1} ({lengths[i]} tokens)" for i in range(len(batch))]
st.plotly_chart(cached_figure(mask_panels_figure, [mask_ui.batch_padding_mask(lengths)], ["key-padding mask"],
                              names, [str(j) for j in range(length)],
                              f"Key-padding mask of the batch: {len(batch)} sentences × {length} positions",
                              "sentence", "position", np.array(tokens, dtype=object)), width="stretch")
with st.expander("The padded batch, token by token"):
    st.dataframe(pd.DataFrame(tokens, index=names, columns=[str(j) for j in range(length)]))
row = st.selectbox("sentence to follow", list(range(len(batch))), format_func=lambda i: f"sentence {i + 1}",
                   key="row", bind="query-params")
kinds = mask_ui.query_key_masks(length, lengths[row])
st.plotly_chart(cached_figure(mask_panels_figure, [kinds["padding"], kinds["causal"], kinds["causal + padding"]],
                              ["padding (keys)", "causal", "combined: padding AND causal"], tokens[row],
                              tokens[row], f"Masks combined for {names[row]}, padded to {length}"),
                width="stretch")
st.caption("Masks combine with a logical AND (`combine_masks`): a key is allowed only if every mask allows it.")

st.header("Cross-attention: target × source")
left, right = st.columns([2, 3], gap="large")
with left:
    target = sentence_input("target sentence (decoder side)", "Le chat", key="tgt", max_tokens=16)
    st.markdown("In encoder-decoder attention the queries come from the target and the keys from the "
                "source, so the mask is rectangular, target length × source length. Only the source's "
                "padding is masked; the decoder may read the whole source.")
if target is not None:
    cross = np.broadcast_to(kinds["padding"][:1], (len(target.tokens), length))
    right.plotly_chart(cached_figure(mask_panels_figure, [cross], ["source padding"], target.tokens, tokens[row],
                                     f"Cross-attention mask: {len(target.tokens)} target × {length} source "
                                     "positions", "target query", "source key"), width="stretch")

st.header("What a mask does to the scores")
c = st.columns(6)
d_model = d_model_control(container=c[0])
heads = heads_control(d_model, container=c[1])
layers = layers_control(container=c[2], max_value=4)
seed = seed_control(container=c[3])
layer = c[4].slider("layer to show", 1, layers, 1, key="layer", bind="query-params") if layers > 1 else 1
head = c[5].selectbox("head to show", list(range(heads)), key="head", bind="query-params")
kind = st.radio("mask", mask_ui.MASK_KINDS, index=2, horizontal=True, key="mask", bind="query-params")
config = TransformerConfig(d_model=d_model, num_heads=heads, num_decoder_layers=layers)
maps = mask_ui.masked_forward(config, seed, ids[row], kind)
scores, weights = maps.scores[layer - 1, head], maps.weights[layer - 1, head]
where = f"layer {layer} · head {head}"
c1, c2, c3 = st.columns(3, gap="medium")
c1.plotly_chart(cached_figure(matrix_heatmap, scores, tokens[row], tokens[row], f"1 · Scores before masking<br>{where}",
                              signed=True, value_name="score"), width="stretch")
c2.plotly_chart(cached_figure(matrix_heatmap, scores, tokens[row], tokens[row], f"2 · Masked scores<br>mask: {kind}",
                              signed=True, mask=maps.mask, value_name="score"), width="stretch")
c3.plotly_chart(cached_figure(matrix_heatmap, weights, tokens[row], tokens[row], f"3 · Weights after softmax<br>{where}",
                              mask=maps.mask), width="stretch")
st.caption("Masked cells are grey in 2 and 3: they hold $-\\infty$ before the softmax and exactly 0 after it. "
           "Each row of 3 sums to 1 over its allowed keys.")
with st.expander("The numbers: weights and row sums"):
    labels = [f"{j}: {t}" for j, t in enumerate(tokens[row])]
    table = pd.DataFrame(weights, index=labels, columns=labels).round(3)
    table["row sum"] = weights.sum(axis=1).round(3)
    st.dataframe(table)

st.header("Causal against bidirectional, same sentence, same model")
real = batch[row]
side = {causal: self_attention_maps(config, seed, real.ids, causal=causal).weights[layer - 1, head]
        for causal in (True, False)}
c1, c2 = st.columns(2, gap="large")
c1.plotly_chart(cached_figure(matrix_heatmap, side[True], real.tokens, real.tokens,
                              f"Causal (decoder, GPT-style)<br>{where}", mask=mask_ui.query_key_masks(
                                  len(real.tokens), len(real.tokens))["causal"]), width="stretch")
c2.plotly_chart(cached_figure(matrix_heatmap, side[False], real.tokens, real.tokens,
                              f"Bidirectional (encoder, BERT-style)<br>{where}"), width="stretch")
st.caption("The same weights: the first token can only attend to itself under the causal mask (weight 1), "
           "and every row spreads its attention over fewer keys, so the weights that remain are larger.")

st.header("The fully masked row")
st.markdown(
    "With **left** padding and a causal mask, the first query is a pad that may only look at key 0, "
    "which is a pad too: its row has no allowed key. A plain softmax then computes "
    "$e^{-\\infty} / \\sum e^{-\\infty} = 0/0$, which is **NaN**, and the NaN spreads through the "
    "weighted sum of values into every later layer. The package's `masked_softmax` returns an "
    "all-zero row instead (and so an all-zero output for that query)."
)
left_ids = (0,) + tuple(real.ids)
left_tokens = [mask_ui.PAD] + list(real.tokens)
live = mask_ui.masked_forward(config, seed, left_ids, "causal + padding")
compare = mask_ui.softmax_comparison(live.scores[layer - 1, head], live.mask)
c1, c2 = st.columns([3, 2], gap="large")
with c1:
    shown = min(3, len(left_tokens))
    st.dataframe(pd.DataFrame(
        [[f"{method}", f"{i}: {left_tokens[i]}"] + values
         for method, result in (("torch.softmax on -inf", compare.plain), ("masked_softmax", compare.safe))
         for i, values in enumerate(mask_ui.as_text(result[:shown]))],
        columns=["method", "query"] + [f"{j}: {t}" for j, t in enumerate(left_tokens)]), hide_index=True)
    nan_rows = int(np.isnan(compare.plain).any(axis=1).sum())
    st.caption(f"Live, {where}: the plain softmax gives {nan_rows} row(s) of NaN; masked_softmax gives "
               f"zeros there (row sum {compare.safe[0].sum():.0f}) and rows summing to 1 elsewhere.")
with c2:
    st.plotly_chart(cached_figure(matrix_heatmap, compare.safe, left_tokens, left_tokens,
                                  "masked_softmax with a left pad: row 0 fully masked", mask=compare.mask),
                    width="stretch")
