"""Circuit: knock out one head (A) and watch another (B), its attention on the input with and without A and its
pattern scores on the task's batch."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st
import torch

from analysis.knockout import pair_effect, sublayer_names
from pages.experiments.knock_out import Inputs, head_label
from pages.experiments.subject import Subject, evaluation_batch
from transformer import PATTERNS, AttentionName, TaskBatch, score_heads
from ui.charts import chart
from ui.markdown_text import as_typed
from viz.heads import compare_figure
from viz.heatmap import matrix_heatmap


def _input_batch(ids: tuple[int, ...]) -> TaskBatch:
    tensor = torch.tensor([ids])
    return TaskBatch(tensor, None, tensor, torch.ones_like(tensor, dtype=torch.bool), [])


def head_choices(module) -> list[tuple[str, int]]:
    return [(name, h) for name in sublayer_names(module, "self_attn") for h in range(module.config.num_heads)]


def reads_from(watched: str, knocked: str) -> bool:
    """Whether the attention layer ``watched`` can read what ``knocked`` writes: a later layer of the same stack,
    or a decoder layer reading the encoder (through the memory its cross-attention reads)."""
    a, b = AttentionName.parse(knocked), AttentionName.parse(watched)
    if a.stack == b.stack:
        return a.layer < b.layer
    return a.stack == "encoder" and b.stack == "decoder"


def first_reader(choices: list[tuple[str, int]]) -> int:
    """The index of the first head that can read what the first head writes (1 when none can)."""
    return next((i for i, (name, _) in enumerate(choices) if reads_from(name, choices[0][0])), min(1, len(choices) - 1))


CIRCUIT_MAPS = ("side by side", "with head A", "without head A", "difference")


def _circuit_map(
    shown: str, effect, tokens: tuple[str, ...], first: str, second: str, causal: bool, finding: str
) -> None:
    """Head B's attention ``[T, T]`` with and without head A: the two side by side under ``finding`` (what the
    knock-out does to B, in numbers), or one map, or their difference, at full width. Side by side and the
    difference say where B's weight changes most (with minus without); the difference map's colours are named."""
    mask = np.tril(np.ones(effect.before.shape, dtype=bool)) if causal else None
    difference = np.asarray(effect.before, np.float32) - np.asarray(effect.after, np.float32)
    if shown == "side by side":
        chart(
            compare_figure(
                effect.before,
                effect.after,
                tokens,
                tokens,
                f"{second}",
                f"{second}, {first} knocked out",
                f"What {second} attends to, with and without {first}: {finding}",
                causal=causal,
                difference=False,
            )
        )
    elif shown == "difference":
        chart(
            matrix_heatmap(
                difference,
                tokens,
                tokens,
                f"{second}: with {first} − without it",
                signed=True,
                mask=mask,
                value_name="difference",
            )
        )
    else:
        matrix = effect.before if shown == "with head A" else effect.after
        title = f"What {second} attends to" + (f", {first} knocked out" if shown == "without head A" else "")
        chart(matrix_heatmap(matrix, tokens, tokens, title, mask=mask))
    if shown in ("side by side", "difference"):
        query, key = np.unravel_index(int(np.argmax(np.abs(np.nan_to_num(difference)))), difference.shape)
        colours = (
            ": red where B looks more while A works, blue where it looks more once A is gone"
            if shown == "difference"
            else ""
        )
        st.caption(
            f"The difference is head B's weight with head A minus its weight without it{colours}. The largest "
            f"change: query “{as_typed(tokens[query])}” (position {query + 1}) to key “{as_typed(tokens[key])}” "
            f"(position {key + 1}), "
            f"{difference[query, key]:+.2f}."
        )


def render_circuit(subject: Subject, inputs: Inputs, seed: int, defaults: tuple[int, int]) -> None:
    """Knock out head A and watch head B: its pattern on the input, and its pattern scores on the batch."""
    module = subject.module
    choices = head_choices(module)
    labels = [head_label(AttentionName.parse(name).layer, h) for name, h in choices]
    a_col, b_col = st.columns(2)
    first = a_col.selectbox("knock out head A", labels, index=defaults[0], key="head_a", bind="query-params")
    second = b_col.selectbox("watch head B", labels, index=defaults[1], key="head_b", bind="query-params")
    knocked, watched = choices[labels.index(first)], choices[labels.index(second)]
    if not reads_from(watched[0], knocked[0]):
        st.info(
            f"Head B ({second}) cannot read head A ({first}): a head reads only what the layers before its own "
            "wrote, so knocking out A leaves B's attention exactly as it is. Pick a head A in an earlier layer "
            "than B's."
        )
        return
    with torch.inference_mode():
        effect = pair_effect(module, _input_batch(inputs.ids), knocked, watched)
    causal = module.kind == "decoder-only"
    scores = None if subject.task is None else _pattern_scores(subject, seed, knocked, watched)
    moved = float(0.5 * np.abs(effect.before - effect.after).sum(-1).mean())
    if scores is None:
        finding = f"each row moves {moved:.2f} of its weight"
    else:
        name = subject.task.score_name
        before, after = scores.scores_before[name], scores.scores_after[name]
        finding = f"on the task's batch its {name} score {before:.2f} → {after:.2f}"
    shown = st.segmented_control(
        "map",
        CIRCUIT_MAPS,
        default=CIRCUIT_MAPS[0],
        required=True,
        key="circuit_map",
        bind="query-params",
        help="One map at a time draws it at the column's full width.",
    )
    _circuit_map(shown or CIRCUIT_MAPS[0], effect, inputs.tokens, first, second, causal, finding)
    if scores is None:
        st.caption(f"On average each row of head B moves {moved:.2f} of its weight (0 = unchanged, 1 = all of it).")
        return
    patterns = list(scores.scores_before)
    st.dataframe(
        pd.DataFrame(
            {
                "pattern score of head B": list(patterns),
                "before": [scores.scores_before[p] for p in patterns],
                "head A knocked out": [scores.scores_after[p] for p in patterns],
            }
        ).round(3),
        hide_index=True,
    )
    st.caption(
        "A pattern score is the mean attention mass head B puts where the pattern says, over the "
        f"{len(evaluation_batch(subject.spec, seed).inputs)} examples of the batch (1 = all of it)."
    )


def _pattern_scores(subject: Subject, seed: int, knocked: tuple[str, int], watched: tuple[str, int]):
    """Head B's (``watched``) pattern scores on the task's batch, before and after head A (``knocked``) is knocked
    out: previous token, first token and the task's own pattern."""
    batch = evaluation_batch(subject.spec, seed)
    patterns = tuple(PATTERNS[:2]) + ((subject.task.score_name,) if subject.task.score_name not in PATTERNS[:2] else ())
    layer = AttentionName.parse(watched[0]).layer
    with torch.inference_mode():
        return pair_effect(
            subject.module,
            batch,
            knocked,
            watched,
            lambda record, p: score_heads(subject.task, record, batch, p)[layer, watched[1]],
            patterns,
        )
