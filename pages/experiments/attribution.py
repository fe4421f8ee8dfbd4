"""Attribution: each part's direct share of a logit, beside what patching each head restores (its whole effect)
and the part of that its own writing brings."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st
import torch

from analysis.knockout import sublayer_names
from analysis.logit_lens import direct_logit_attribution
from analysis.patching import direct_part_restored, patching_run, restored_by_head
from pages.experiments.knock_out import Inputs, head_label
from pages.experiments.reading import first_repeat
from pages.experiments.subject import Subject, corrupted_input
from ui.charts import chart
from ui.controls import stops_slider
from viz.experiments import head_grid, share_bars
from viz.labels import tick_label


def largest_share(heads: np.ndarray, logit: float) -> str:
    """The head ``heads [L, H]`` writes the largest share (by size, either sign) of a logit into, as a title's
    ending, with that share and the logit."""
    layer, head = np.unravel_index(int(np.argmax(np.abs(heads))), heads.shape)
    return f"{head_label(int(layer), int(head))} the largest, {heads[layer, head]:+.2f} of the logit's {logit:.2f}"


def others_finding(heads: np.ndarray, others: dict[str, float]) -> str:
    """The title of the other parts' bars (drawn on the heads' scale): the strongest head's share of the logit
    (``heads`` ``[L, H]``, the largest in size) beside the largest other part's."""
    layer, head = np.unravel_index(np.argmax(np.abs(heads)), heads.shape)
    name = max(others, key=lambda part: abs(others[part]))
    return (
        f"The other parts, on the heads' scale: the largest, {name}, {others[name]:+.2f}, against "
        f"{head_label(int(layer), int(head))}'s {heads[layer, head]:+.2f}"
    )


def render_attribution(subject: Subject, inputs: Inputs) -> None:
    position = (
        stops_slider("position", range(1, len(inputs.ids) + 1), "position", value=first_repeat(inputs.tokens) + 1) - 1
    )
    with torch.inference_mode():
        logits = subject.module(torch.tensor([inputs.ids])).logits[0, position]
        token = int(logits.argmax())
        shares = direct_logit_attribution(subject.module, list(inputs.ids), position, token)
    symbol = subject.symbols([token])[0]
    chart(
        head_grid(
            shares.heads,
            f"Each head's direct share of the logit of “{tick_label(symbol)}” at position {position + 1}: "
            + largest_share(shares.heads, shares.logit),
            "share of the logit",
        )
    )
    chart(
        share_bars(
            shares.others,
            others_finding(shares.heads, shares.others),
            extent=float(np.abs(shares.heads).max(initial=0.0)),
        )
    )
    st.caption(
        f"Direct effects only: what each part writes straight into the residual stream at this position, "
        f"read through the LayerNorms after it and the unembedding. Heads {shares.heads.sum():.2f} + other "
        f"parts {sum(shares.others.values()):.2f} = {shares.total:.2f}; the model's logit is "
        f"{shares.logit:.2f}. Each LayerNorm's scale is taken as it was in this pass, which makes the sum "
        "exact. What a head writes for later heads to read is not counted."
    )
    direct_and_total(subject, inputs, position, shares)


def direct_and_total(subject: Subject, inputs: Inputs, position: int, shares) -> None:
    """Each head's direct share beside what patching it restores (its total effect, through later layers too)
    and the part of that it restores directly, on the Patching section's default corruption of a task model's
    input; the head whose effect goes most through the parts after it named, when one does."""
    task = subject.task
    if task is None:
        st.caption("The Patching section measures a head's whole effect, through later layers too.")
        return
    corrupted_text = corrupted_input(task, inputs.text)
    corrupted = task.encode_user_input(corrupted_text)
    if corrupted is None:
        return
    try:
        with torch.inference_mode():
            run = patching_run(subject.module, list(inputs.ids), corrupted, position)
            restored = restored_by_head(subject.module, run, sublayer_names(subject.module, "self_attn")).reshape(-1)
            directly = direct_part_restored(subject.module, run).reshape(-1)
    except ValueError as error:  # the corruption changes too little at this position: no total effect to compare
        st.caption(
            f"Not compared with patching here (the Patching section's corrupted input “{corrupted_text}”): {error}"
        )
        return
    heads = shares.heads.shape[1]
    labels = [head_label(i // heads, i % heads) for i in range(len(restored))]
    st.dataframe(
        pd.DataFrame(
            {
                "head": labels,
                "direct share of the logit": shares.heads.reshape(-1).round(2),
                "patching restores": restored.round(2),
                "of which directly": directly.round(2),
            }
        ),
        hide_index=True,
    )
    st.caption(
        f"The direct share is in the logit's own units (the logit is {shares.logit:.2f}). Patching a head "
        f"(corrupted input “{corrupted_text}”, the Patching section's) restores a fraction of the logit "
        "difference z(answer) − z(foil) between the clean and the corrupted input: its whole effect. Of which "
        "directly: the part of that fraction the head's own writing brings, read as the direct share is (the "
        "change of its direct effect on the difference, over the change of the difference)."
    )
    st.caption(indirect_note(labels, restored, directly))


# The least part of a head's fraction restored, beyond its direct part, for the page to name it as working
# through the parts after it.
INDIRECT = 0.2


def indirect_note(labels: list[str], restored: np.ndarray, directly: np.ndarray) -> str:
    """The head whose restored fraction goes most beyond its direct part, when that is at least ``INDIRECT``."""
    beyond = restored - directly
    widest = int(np.argmax(beyond))
    if beyond[widest] < INDIRECT:
        return (
            f"Here every head's effect is mostly direct: patching a head restores at most {beyond[widest]:.2f} "
            "more than its own writing does."
        )
    return (
        f"{labels[widest].capitalize()}: patching it restores {restored[widest]:.2f} of the difference, "
        f"{directly[widest]:.2f} of it directly; the other {beyond[widest]:.2f} reaches the answer through the "
        "parts of the model after it, which direct attribution does not count."
    )
