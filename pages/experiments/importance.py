"""Importance: each head knocked out alone, its effect on the task (or on the sentences' similarity) drawn as a grid,
and beside it where each head looks and what it writes (prefix matching, the copying score of its OV circuit)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st
import torch

from analysis.knockout import knockout_sweep, sentence_similarity, sublayer_names, task_score
from analysis.ov_circuit import copying_scores
from pages.experiments.knock_out import Inputs, head_label, how_control, same_examples
from pages.experiments.subject import Subject, cached_sweep, evaluation_batch, resample_source, subject_of
from transformer import AttentionName, TaskBatch, score_heads
from ui.cache import computation
from ui.charts import chart
from ui.screen import settings_row
from viz.experiments import head_grid


def _sweep_metric(subject: Subject, inputs: Inputs, seed: int, how: str, measure: str):
    module = subject.module
    if subject.sentences:
        return lambda interventions: (
            sentence_similarity(module, list(inputs.ids), list(inputs.second_ids), interventions).cosine
        )
    batch = _sweep_batch(subject, inputs, seed)
    return lambda interventions: getattr(task_score(module, batch, interventions), measure)


def _sweep_batch(subject: Subject, inputs: Inputs, seed: int) -> TaskBatch:
    return evaluation_batch(subject.spec, seed, inputs.ids if subject.text_model else ())


MEASURED = {"accuracy": "accuracy", "loss": "loss", "cosine": "sentences' cosine similarity"}


def largest_effect(effect: np.ndarray, measured: str, rows: list[str] | None) -> str:
    """The head whose knock-out alone changes the measure the most, ``effect [rows, H]``, as a title's ending:
    named by its layer (``rows`` None: one row a layer's self-attention) or by its row's label, with that change."""
    row, head = np.unravel_index(np.argmax(np.abs(effect)), effect.shape)
    if round(float(effect[row, head]), 3) == 0:
        return f"no head alone changes the {measured} (to 3 decimals)"
    who = head_label(int(row), int(head)) if rows is None else f"{rows[row]} · head {head + 1}"
    return f"{who} changes the {measured} the most ({effect[row, head]:+.3f})"


def render_importance(subject: Subject, inputs: Inputs, seed: int) -> None:
    row = settings_row()
    how, resample_seed = how_control(subject, row)
    measure = "cosine"
    if not subject.sentences:
        measure = (
            row.segmented_control(
                "measure", ["accuracy", "loss"], default="accuracy", required=True, key="measure", bind="query-params"
            )
            or "accuracy"
        )
    module = subject.module
    names = sublayer_names(module, "self_attn") + sublayer_names(module, "cross_attn")
    key = (
        subject.spec,
        inputs,
        seed if not subject.sentences else None,
        how,
        measure,
        resample_seed if how == "resample" else None,
    )
    metric = _sweep_metric(subject, inputs, seed, how, measure)
    same_examples(how, resample_seed, seed)
    try:
        source = (
            resample_source(subject.spec, _sweep_batch(subject, inputs, seed), resample_seed)
            if how == "resample"
            else None
        )
    except ValueError as error:
        st.error(str(error))
        return
    with torch.inference_mode():
        effect = cached_sweep(
            key,
            lambda progress: knockout_sweep(names, module.config.num_heads, metric, how, progress, source),
            "Knocking out each head",
        )
    what = {"accuracy": "change in accuracy", "loss": "change in loss", "cosine": "change in cosine similarity"}
    labels = [sublayer_label(n) for n in names]
    rows = labels if len(names) != len(sublayer_names(module, "self_attn")) else None  # self-attention only: layers
    title = f"Each head knocked out alone: {largest_effect(effect, MEASURED[measure], rows)}"
    chart(head_grid(effect, title, what[measure]))
    if len(names) != len(sublayer_names(module, "self_attn")):
        st.caption("Rows: " + "; ".join(f"row {i + 1} = {label}" for i, label in enumerate(labels)))
    st.caption(
        "A head whose removal changes little may still matter together with another one: knock out "
        "several in the Knock out section."
    )
    if module.kind == "decoder-only":
        _what_heads_read_and_write(subject, seed, effect, what[measure])


@computation
def _copying(spec) -> np.ndarray | None:
    """The copying scores of a model's heads, computed once a model (one product over its vocabulary)."""
    return copying_scores(subject_of(spec).module)


def _what_heads_read_and_write(subject: Subject, seed: int, effect: np.ndarray, measured: str) -> None:
    """Beside each head's knock-out effect: where it looks (prefix matching, on the task's batch) and what it writes
    (the copying score of its OV circuit, ``analysis.ov_circuit``), as Olsson et al. (2022) read induction heads."""
    module = subject.module
    layers, heads = effect.shape
    table = {
        "head": [head_label(layer, head) for layer in range(layers) for head in range(heads)],
        measured: effect.reshape(-1).round(3),
    }
    if subject.task is not None and subject.task.kind != "vision":
        batch = evaluation_batch(subject.spec, seed)
        with torch.inference_mode():
            record = module(batch.inputs, return_attention=True).attention
        table["prefix matching"] = score_heads(subject.task, record, batch, "prefix matching").reshape(-1).round(3)
    copying = _copying(subject.spec)
    if copying is not None:  # a model with a linear unembedding
        table["copying (OV)"] = copying.reshape(-1).round(3)
    st.dataframe(pd.DataFrame(table), hide_index=True)
    st.caption(
        "Prefix matching: the mean weight a head puts, from a repeated token, on the token after that token's "
        "earlier occurrence (where an induction head looks). Copying (OV): of the eigenvalues λ of the head's "
        "circuit from a token attended to, through W_V and W_O, to the logits, Re(Σλ) / Σ|λ|; near 1 the head "
        "raises the logit of the token it reads (LayerNorms folded in as their scales, other layers left "
        "out). An induction head scores high on both."
    )


def sublayer_label(name: str) -> str:
    """An attention layer's record name as the page numbers it, from 1: "decoder.layers.0.cross_attn" ->
    "decoder layer 1, cross-attention"."""
    parsed = AttentionName.parse(name)
    kind = {"self_attn": "self-attention", "cross_attn": "cross-attention"}.get(parsed.kind, parsed.kind)
    return f"{parsed.stack} layer {parsed.layer + 1}, {kind}"
