"""The training page's settings: task, architecture, optimiser and seed, every one bound to the URL.

Choosing a task loads that task's recommended settings (``default_setup``); a link restores
the settings, not the weights (training again from the same seed gives the same run).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import streamlit as st
from ui import runtime  # noqa: F401  (torch threads are set before any torch work)

from transformer import (
    BOS_ID,
    DIGITS_TASK,
    EOS_ID,
    POSITIONAL_ENCODINGS,
    RECIPES,
    TRAINING_TASKS,
    TrainingSetup,
    default_setup,
    learning_rate_at,
    make_task,
)
from transformer.tasks import MAX_PERIOD, MIN_PERIOD
from ui.charts import chart
from ui.controls import POSITIONAL_LABELS, stops_slider
from viz.generation import lines
from ui.screen import settings_popover, settings_row
from ui.markdown_text import as_typed

# widget key -> TrainingSetup field
FIELDS = {
    "task": "task",
    "kind": "kind",
    "layers": "layers",
    "heads": "heads",
    "d_model": "d_model",
    "d_ff": "d_ff",
    "attn_only": "attention_only",
    "pe": "positional",
    "norm_first": "norm_first",
    "lr": "learning_rate",
    "warmup": "warmup",
    "batch": "batch_size",
    "wd": "weight_decay",
    "dropout": "dropout",
    "seed": "seed",
    "steps": "max_steps",
    "recipe": "recipe",
}
KINDS = {
    "decoder-only": "decoder-only (GPT-style)",
    "encoder-decoder": "encoder-decoder",
    "vision": "Vision Transformer: 2 × 2 patches and [CLS]",
}
SEQ2SEQ = ("copy", "reverse", "sort")
LEARNING_RATES = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2)
# widget key -> the values it offers (the keys not named here are free: seed, toggles, task, kind)
OPTIONS = {
    "layers": (1, 2, 3, 4),
    "heads": (1, 2, 4),
    "d_model": (16, 32, 64, 128),
    "d_ff": (32, 64, 128, 256, 512),
    "pe": POSITIONAL_ENCODINGS,
    "lr": LEARNING_RATES,
    "warmup": (0, 10, 20, 50, 100),
    "batch": (8, 16, 32, 64, 128),
    "wd": (0.0, 0.01, 0.1),
    "dropout": (0.0, 0.1, 0.2, 0.3),
    "steps": (200, 500, 1000, 2000, 4000),
    "recipe": RECIPES,
}
# The other pages' names and order, but here a learned table is trained with the rest of the model.
PE_LABELS = {**POSITIONAL_LABELS, "learned": "learned (trained here)"}
RECIPE_LABELS = {"adamw": "AdamW", "paper": "the paper (Adam)"}  # the URL carries the label


def _load_task_defaults() -> None:
    """on_change of the task: every other control takes the task's recommended value."""
    recommended = default_setup(st.session_state["task"])
    for key, name in FIELDS.items():
        if key != "task":
            st.session_state[key] = getattr(recommended, name)


def setup_controls() -> TrainingSetup | None:
    """The task, and every other setting behind a button (``settings_popover``; ``setup_summary`` names them);
    None (after st.error) for a combination that makes no model."""
    base = default_setup("induction")
    at = lambda key, value: OPTIONS[key].index(value)  # noqa: E731  (a default's place in its options)
    top = st.columns([2, 1], vertical_alignment="bottom")
    task = top[0].selectbox(
        "task",
        TRAINING_TASKS,
        key="task",
        bind="query-params",
        on_change=_load_task_defaults,
        help="Choosing a task loads its recommended settings (Settings, beside).",
    )
    with top[1]:
        panel = settings_popover("Settings")
    with panel:
        row = settings_row()  # how it is learned
    kinds = (
        ["decoder-only", "encoder-decoder"]
        if task in SEQ2SEQ
        else ["vision"]
        if task == DIGITS_TASK
        else ["decoder-only"]
    )
    kind = row.selectbox("architecture", kinds, format_func=KINDS.get, key="kind", bind="query-params")
    attention_only = row.toggle(
        "attention only",
        value=base.attention_only,
        key="attn_only",
        bind="query-params",
        help="No feed-forward sub-layers: only attention moves information.",
    )
    norm_first = row.toggle(
        "pre-LN",
        value=base.norm_first,
        key="norm_first",
        bind="query-params",
        help="x + sublayer(LN(x)): trains more steadily than the paper's post-LN.",
    )
    with panel:
        row = settings_row()  # the sizes, the positions and the seed
    layers = stops_slider(
        "layers",
        OPTIONS["layers"],
        "layers",
        base.layers,
        row,
        help="Try 1 layer on induction: it never forms an induction head.",
    )
    heads = stops_slider("heads", OPTIONS["heads"], "heads", base.heads, row)
    d_model = stops_slider("d_model", OPTIONS["d_model"], "d_model", base.d_model, row)
    d_ff = stops_slider("d_ff", OPTIONS["d_ff"], "d_ff", base.d_ff, row, disabled=attention_only)
    positional = row.selectbox(
        "positional encoding",
        OPTIONS["pe"],
        index=at("pe", base.positional),
        key="pe",
        bind="query-params",
        format_func=PE_LABELS.get,
    )
    seed = int(row.number_input("seed", 0, 9999, base.seed, key="seed", bind="query-params"))
    with panel:
        row = settings_row()  # the optimiser
    recipe = row.selectbox(
        "optimiser",
        RECIPES,
        key="recipe",
        bind="query-params",
        format_func=RECIPE_LABELS.get,
        help="The paper's recipe: Adam with β₂ = 0.98 and ε = 1e-9, the rate "
        "d_model^-0.5 · min(step^-0.5, step · warmup^-1.5) in place of the learning rate and "
        "weight decay, and label smoothing 0.1 on the training loss.",
    )
    paper = recipe == "paper"
    learning_rate = row.select_slider(
        "learning rate",
        OPTIONS["lr"],
        value=base.learning_rate,
        key="lr",
        bind="query-params",
        format_func=lambda v: f"{v:g}",
        disabled=paper,
        help="Changing it keeps the weights; every other setting starts a new model.",
    )
    warmup = row.select_slider("warm-up steps", OPTIONS["warmup"], value=base.warmup, key="warmup", bind="query-params")
    batch_size = row.select_slider(
        "batch size", OPTIONS["batch"], value=base.batch_size, key="batch", bind="query-params"
    )
    weight_decay = row.select_slider(
        "weight decay", OPTIONS["wd"], value=base.weight_decay, key="wd", bind="query-params", disabled=paper
    )
    dropout = row.select_slider(
        "dropout",
        OPTIONS["dropout"],
        value=base.dropout,
        key="dropout",
        bind="query-params",
        help="Acts only while training: watch the train and held-out losses part.",
    )
    max_steps = row.select_slider(
        "step budget", OPTIONS["steps"], value=base.max_steps, key="steps", bind="query-params"
    )
    values = dict(
        task=task,
        kind=kind if kind in kinds else kinds[0],
        layers=int(layers),
        heads=int(heads),
        d_model=int(d_model),
        d_ff=int(d_ff),
        attention_only=bool(attention_only),
        positional=positional,
        norm_first=bool(norm_first),
        learning_rate=float(learning_rate),
        warmup=int(warmup),
        batch_size=int(batch_size),
        weight_decay=float(weight_decay),
        dropout=float(dropout),
        seed=seed,
        max_steps=int(max_steps),
        recipe=recipe,
    )
    if task == "text":
        values["text"] = st.session_state.get("corpus") or None
    try:
        return TrainingSetup(**values)
    except (TypeError, ValueError) as error:
        st.error(f"These settings do not make a model: {error}")
        return None


def sequence_layout(setup: TrainingSetup) -> str | None:
    """What one training sequence of a decoder-only model is, read from its task (``transformer.tasks``): induction
    is letters in which a block repeats, text windows of characters, copy/reverse/sort the source, the separator,
    the target and the end token; None for the other architectures (their kind's name says it)."""
    if setup.kind != "decoder-only":
        return None
    task = make_task(setup.task, setup.kind, setup.text if setup.task == "text" else None)
    if task.name == "induction":
        block = f"{MIN_PERIOD}-{MAX_PERIOD}"
        return f"{task.context} random letters in which a block of {block} letters repeats to the end"
    if task.name == "text":
        windows = f"windows of {task.context} characters of the text"
        return f"a character language model, {windows}, each predicting the next"
    separator, end = (as_typed(symbol) for symbol in task.symbols([BOS_ID, EOS_ID]))  # the line is Markdown
    return f"source {separator} target {end}"


def setup_summary(setup: TrainingSetup) -> str:
    """The settings in one line, read from the setup they make (their panel is closed)."""
    sizes = f"{setup.layers} layers, {setup.heads} heads, d_model = {setup.d_model}, " + (
        "attention only" if setup.attention_only else f"d_ff = {setup.d_ff}"
    )
    optimiser = (
        f"the paper's Adam and schedule over {setup.warmup} warm-up steps"
        if setup.recipe == "paper"
        else f"AdamW at learning rate {setup.learning_rate:g}, {setup.warmup} warm-up steps, weight decay "
        f"{setup.weight_decay:g}"
    )
    layout = sequence_layout(setup)
    kind = KINDS[setup.kind] + (f": {layout}" if layout else "")
    return (
        f"{setup.task}: {kind}; {sizes}, {'pre-LN' if setup.norm_first else 'post-LN'}, positional "
        f"encoding {PE_LABELS[setup.positional]}; {optimiser}, batch {setup.batch_size}, dropout {setup.dropout:g}, "
        f"{setup.max_steps} steps, seed {setup.seed}."
    )


def same_model(a: TrainingSetup, b: TrainingSetup) -> bool:
    """True when only the learning rate or the step budget differ: the run goes on with the same weights."""
    keep = {"learning_rate", "max_steps"}
    return all(getattr(a, f.name) == getattr(b, f.name) for f in dataclasses.fields(a) if f.name not in keep)


def show_setup(setup: TrainingSetup) -> None:
    """Set every control to ``setup`` (call from a callback, before the controls are drawn).

    The learning rate and the step budget may lie between the offered values: they take the
    nearest offered learning rate and the smallest budget at least as large (neither starts a
    new model). Any other value the page does not offer is a ValueError naming it.
    """
    wanted = {key: getattr(setup, name) for key, name in FIELDS.items()}
    wanted["lr"] = min(LEARNING_RATES, key=lambda lr: abs(math.log(lr / setup.learning_rate)))
    wanted["steps"] = next((s for s in OPTIONS["steps"] if s >= setup.max_steps), OPTIONS["steps"][-1])
    missing = [
        f"{FIELDS[key]}={value!r}" for key, value in wanted.items() if key in OPTIONS and value not in OPTIONS[key]
    ]
    if missing:
        raise ValueError(f"this page cannot set {', '.join(missing)}.")
    for key, value in wanted.items():
        st.session_state[key] = value
    st.session_state["corpus"] = setup.text or ""


def paper_schedule(setup: TrainingSetup) -> None:
    """The paper's learning rate over the step budget, beside AdamW's at the page's default rate, with its peak."""
    steps = np.arange(setup.max_steps)
    adamw = dataclasses.replace(setup, recipe="adamw", learning_rate=default_setup(setup.task).learning_rate)
    paper = np.array([learning_rate_at(int(t), setup) for t in steps])
    today = np.array([learning_rate_at(int(t), adamw) for t in steps])
    chart(
        lines(
            steps + 1,
            {"the paper's schedule": paper, f"AdamW at {adamw.learning_rate:g}": today},
            "The learning rate at each step",
            "step",
            "learning rate",
        )
    )
    st.caption(
        f"The paper's rate rises linearly for {setup.warmup} warm-up steps to d_model^-0.5 · warmup^-0.5 = "
        f"{paper.max():.3g} (d_model = {setup.d_model}), then falls as 1/√step, to {paper[-1]:.3g} at step "
        f"{setup.max_steps}."
    )
