"""Patching, Logit lens and Attribution: decoder-only models read from the inside."""

from __future__ import annotations

import numpy as np
import streamlit as st
import torch

from analysis.knockout import sublayer_names
from analysis.logit_lens import logit_lens
from analysis.patching import (
    Prediction,
    patching_run,
    predictions_when_patched,
    restored_by_head,
    restored_by_part,
    restored_by_position,
)
from pages.experiments.circuit import head_choices
from pages.experiments.knock_out import Inputs, head_label
from pages.experiments.subject import Subject, corrupted_input
from transformer import AttentionName
from ui.markdown_text import as_typed
from ui.charts import chart
from ui.controls import stops_slider
from ui.screen import FigureAboveControls, compact
from ui.text import tokenize_text
from viz.experiments import head_grid, lens_figure, position_bars, share_bars
from viz.labels import escape


def first_repeat(tokens: tuple[str, ...]) -> int:
    """The first position whose token appeared before (the start of a repeat), else the last position."""
    seen = set()
    for i, token in enumerate(tokens):
        if token in seen:
            return i
        seen.add(token)
    return len(tokens) - 1


# The part of a head that is patched, as the control shows it -> the package's name for it.
PATCHED_PARTS = {"whole output": "output", "queries": "q", "keys": "k", "values": "v"}
PART_NAMES = {part: label for label, part in PATCHED_PARTS.items()}


def part_control() -> str:
    """Which part of each head the clean run gives: "output", "q", "k" or "v"."""
    label = st.segmented_control(
        "patch each head's",
        list(PATCHED_PARTS),
        default="whole output",
        required=True,
        key="patch_part",
        bind="query-params",
        help="Whole output: the head's A·V from the clean run. Queries, keys or values: only what "
        "the head reads there comes from the clean run; it recomputes its attention and output from them and the "
        "corrupted run's other two.",
    )
    return PATCHED_PARTS.get(label or "whole output", "output")


def render_patching(subject: Subject, inputs: Inputs) -> None:
    task, module = subject.task, subject.module
    default = inputs.text if task is None else corrupted_input(task, inputs.text)
    corrupted_text = st.text_input(
        "corrupted input (same length, some tokens changed)",
        default,
        key="corrupted",
        bind="query-params",
        max_chars=400,
    )
    if task is None:
        typed = tokenize_text(corrupted_text, 64, tokenizer=subject.loaded.tokenizer)
        corrupted = None if typed is None else list(typed.ids)
    else:
        corrupted = task.encode_user_input(corrupted_text)
    if corrupted is None:
        st.error("The corrupted input must use only the model's symbols, as many as the clean input.")
        return
    if task is None and corrupted == list(inputs.ids):
        st.info(
            "Change a word of the corrupted input (keeping its number of tokens): patching measures what the "
            "clean run's heads restore of the answer the change destroyed."
        )
        return
    position = (
        stops_slider(
            "answer position (the prediction read)",
            range(1, len(inputs.ids) + 1),
            "position",
            value=first_repeat(inputs.tokens) + 1,
        )
        - 1
    )
    try:
        with torch.inference_mode():
            run = patching_run(module, list(inputs.ids), corrupted, position)
    except ValueError as error:
        st.error(str(error))
        return
    symbols = subject.symbols
    answer, foil = (as_typed(symbol) for symbol in symbols([run.answer, run.foil]))  # tokens are never Markdown
    corrupted_says = (
        f"the corrupted one **{foil}**"
        if run.corrupted_difference < 0
        else f"the corrupted one still **{answer}**, with **{foil}** next"
    )
    token = as_typed(inputs.tokens[position])
    grid_place = FigureAboveControls()  # a projector or a phone: the grid above its control
    part = part_control()
    names = sublayer_names(module, "self_attn")
    with torch.inference_mode():
        grid = restored_by_head(module, run, names, part)
    whose = "one clean head" if part == "output" else f"one clean head's {PART_NAMES[part]}"
    choices = head_choices(module)
    labels = [head_label(AttentionName.parse(name).layer, h) for name, h in choices]
    best = int(np.argmax(grid.reshape(-1)))
    title = f"Fraction of the logit difference restored by patching {whose}: {labels[best]} restores the most, "
    with grid_place.place():
        chart(head_grid(grid, title + f"{grid.reshape(-1)[best]:.2f}", "restored", zrange=(-1.0, 1.0)))
        st.markdown(
            f"At position {position + 1} (token “{token}”) the clean input predicts "
            f"**{answer}** and {corrupted_says}: logit difference z({answer}) − z({foil}) "
            f"{run.clean_difference:.2f} clean, {run.corrupted_difference:.2f} corrupted."
        )
    chosen = st.selectbox(
        "head to patch one position at a time", labels, index=best, key="patch_head", bind="query-params"
    )
    name, head = choices[labels.index(chosen)]
    with torch.inference_mode():
        by_position = restored_by_position(module, run, name, head, part)
        parts = restored_by_part(module, run, name, head)
    changed = [i for i, (a, b) in enumerate(zip(inputs.ids, corrupted)) if a != b]
    patched = chosen if part == "output" else f"{chosen}'s {PART_NAMES[part]}"
    where = "key position" if part in ("k", "v") else "position"
    chart(
        position_bars(
            by_position,
            inputs.tokens,
            f"{patched}: patched at one {where} at a time, {where} {int(np.argmax(by_position)) + 1} "
            f"(“{escape(inputs.tokens[int(np.argmax(by_position))])}”) restores the most, "
            f"{_two(float(np.max(by_position)))}",
            "restored",
            highlight=changed,
        )
    )
    st.caption(
        f"Highlighted: the positions the corruption changed. A bar near 1: patching {patched} at that one "
        f"{where} restores the clean logit difference, so there it carries what the corruption changed about "
        "this prediction."
    )
    shown = [int(i) for i in np.argsort(-by_position) if by_position[i] >= SHOWN_RESTORED][:3]
    if shown:
        with torch.inference_mode():
            before, after = predictions_when_patched(module, run, name, head, shown, part)
        st.caption(
            patched_predictions_note(before, after, inputs.tokens, corrupted, symbols, run.answer, run.foil, where)
        )
    _by_part(chosen, parts)


# The least fraction a bar restores for the page to say what the pass then predicts.
SHOWN_RESTORED = 0.1


def patched_predictions_note(
    before: Prediction,
    after: dict[int, Prediction],
    tokens: tuple[str, ...],
    corrupted: list[int],
    symbols,
    answer_id: int,
    foil_id: int,
    where: str,
) -> str:
    """What the pass predicts when patched at each of the largest bars' positions (``tokens`` the clean input's,
    ``corrupted`` the corrupted input's ids), and whether the logit difference narrowed because z(answer) rose or
    because z(foil) fell."""
    answer, foil = (as_typed(s) for s in symbols([answer_id, foil_id]))
    sentences = []
    for position, patched in after.items():
        top = as_typed(symbols([patched.top])[0])
        rose = patched.answer_logit - before.answer_logit
        fell = before.foil_logit - patched.foil_logit
        moved = (
            f"z({answer}) {before.answer_logit:.2f} → {patched.answer_logit:.2f}, "
            f"z({foil}) {before.foil_logit:.2f} → {patched.foil_logit:.2f}"
        )
        token, instead = as_typed(tokens[position]), as_typed(symbols([corrupted[position]])[0])
        place = f"“{token}”" if token == instead else f"“{token}”, “{instead}” in the corrupted input"
        said = f"Patched at {where} {position + 1} ({place}) alone, the model predicts **{top}**"
        if patched.top == answer_id:
            sentences.append(f"{said}, the clean answer ({moved}).")
        else:
            why = (
                f"the difference narrows mostly because z({foil}) falls, not because {answer} comes back"
                if fell > rose
                else f"z({answer}) rises, but not above z({top})"
            )
            sentences.append(f"{said}, not {answer} ({moved}): {why}.")
    return " ".join(sentences)


def _two(value: float) -> str:
    """A fraction to 2 decimals, without a minus sign on a value that rounds to 0."""
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


# Below this fraction restored, a head's whole output carries too little for its parts to be compared.
LITTLE = 0.1


def most_restoring(parts: dict[str, float]) -> str:
    """Which of a head's queries, keys and values (``parts`` by "q", "k", "v", with its whole "output") restores the
    most of the logit difference when patched alone, with the fraction: "values (0.84)"."""
    best = max(("q", "k", "v"), key=parts.get)
    return f"{PART_NAMES[best]} ({_two(parts[best])})"


def _by_part(chosen: str, parts: dict[str, float]) -> None:
    """One head's output, queries, keys and values, each patched alone, and what the drawn numbers say."""
    chart(
        share_bars(
            {PART_NAMES[part]: value for part, value in parts.items()},
            f"{chosen}: each part patched alone, at every position, the {most_restoring(parts)} restore the most",
            extent=1.0,
            value_name="restored",
        )
    )
    read = {part: parts[part] for part in ("q", "k", "v")}
    first, second = sorted(read, key=read.get, reverse=True)[:2]
    said = (
        f"Patched from the clean run into the corrupted one, {chosen}'s queries restore {_two(read['q'])} of the "
        f"logit difference, its keys {_two(read['k'])}, its values {_two(read['v'])} and its whole output "
        f"{_two(parts['output'])}. "
    )
    whole = parts["output"]
    if abs(whole) < LITTLE:
        said += (
            f"Its whole output restores only {_two(whole)}: this head carries little of what the corruption changed, "
            "so its parts have little to tell apart."
        )
    elif read[first] >= 0.5 * whole:
        said += (
            f"What the corruption changed reaches it mostly through its {PART_NAMES[first]} "
            f"({_two(read[first])} of its whole output's {_two(whole)}, against {_two(read[second])} for its "
            f"{PART_NAMES[second]})."
        )
    else:
        said += (
            f"No part alone brings back half of what its whole output does ({_two(whole)}): what the corruption "
            "changed reaches it through its parts together."
        )
    st.caption(said)


def settled_finding(top: np.ndarray, stages: tuple[str, ...]) -> str:
    """When the model's guesses settle, from the stages' top tokens ``[S, T]`` (the last stage is the model's
    output): a position settles at the first stage from which its top token stays the final one; named is the
    earliest stage by which at least half the positions have settled, and how many have; when that is the last
    stage, how many of the stage before it guess as the model does."""
    final = top[-1]  # [T]
    holds = np.flip(np.logical_and.accumulate(np.flip(top == final, 0), 0), 0)  # [S, T]: from this stage on
    settled = holds.sum(1)  # [S], rising to T at the last stage
    stage = int(np.argmax(2 * settled >= top.shape[1]))
    named = ["the embeddings" if name == "embeddings" else name for name in stages]
    if stage < len(stages) - 1:
        return f"{settled[stage]} of {top.shape[1]} positions guess as the model does from {named[stage]} on"
    before = int((top[-2] == final).sum()) if len(stages) > 1 else 0
    return f"the guesses settle only at {named[-1]}: {before} of {top.shape[1]} after {named[-2]} are the model's"


def render_logit_lens(subject: Subject, inputs: Inputs) -> None:
    with torch.inference_mode():
        lens = logit_lens(subject.module, list(inputs.ids))
    top = [subject.symbols(row) for row in lens.top]
    chart(
        lens_figure(
            lens.top_probability,
            top,
            inputs.tokens,
            lens.stages,
            "Logit lens: " + settled_finding(lens.top, lens.stages),
            narrow=compact(),
        )
    )  # a phone: the positions in rows, the guesses readable in their cells
    norm = (
        "the final LayerNorm and the unembedding"
        if subject.module.decoder.norm is not None
        else "the unembedding (this model has no final LayerNorm)"
    )
    st.caption(
        f"Each row reads the residual stream after that stage through {norm}; the last row is the model's "
        "own prediction."
    )
