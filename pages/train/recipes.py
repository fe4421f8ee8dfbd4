"""The two recipes side by side: the page's model trained by AdamW and by the paper's recipe, with their curves."""

from __future__ import annotations

import dataclasses

import streamlit as st

from analysis.recipes import RecipeComparison, compare_recipes
from pages.train.controls import RECIPE_LABELS
from pages.train.slots import training_slots
from transformer import RECIPES, TrainingSetup
from ui.charts import chart
from viz.generation import lines

COMPARE_STEPS = 300  # each recipe trains this many steps (about 5 s each on one core for the default task)
SHOWN = "recipe_comparison"  # session state: (the setup compared, its comparison or None when no slot was free)
ASKED = "recipes_asked"  # session state: the setup the button asked to compare, until the page's next run does it


def _train_both(setup: TrainingSetup) -> None:
    """Both recipes trained now, with a progress bar, if this session may train (the server's cap on trainings)."""
    slots, session = training_slots(), st.session_state.session_id
    if slots.admit(session):
        st.session_state[SHOWN] = (setup, None)
        return
    bar = st.progress(0.0, text=f"Training {COMPARE_STEPS} steps with each recipe…")
    try:
        st.session_state[SHOWN] = (setup, compare_recipes(setup, COMPARE_STEPS, bar.progress))
    finally:
        slots.leave(session)
        bar.empty()


def recipes_side_by_side(setup: TrainingSetup) -> None:
    """The button and, for the settings it last ran on, both recipes' held-out loss and accuracy over the steps."""
    st.markdown(
        f"The same model, seed and batches trained {COMPARE_STEPS} steps by each recipe: "
        f"**{RECIPE_LABELS['adamw']}** at the learning rate and warm-up set above, and "
        f"**{RECIPE_LABELS['paper']}**: d_model^-0.5 · min(s^-0.5, s · warmup^-1.5) over the same warm-up, "
        f"with label smoothing 0.1."
    )
    if setup.warmup < 1:
        st.info("The paper's schedule needs a warm-up: set the warm-up steps above 0 to compare the recipes.")
        return
    compared = dataclasses.replace(setup, recipe="adamw")  # the recipe control does not change the comparison
    st.button(
        "Train both recipes",
        icon=":material/compare_arrows:",
        key="compare_recipes",
        on_click=lambda: st.session_state.update({ASKED: compared}),
    )
    if st.session_state.pop(ASKED, None) == compared:  # trained in the run, not the callback: its progress shows
        _train_both(compared)
    shown, comparison = st.session_state.get(SHOWN, (None, None))
    if shown != compared:
        return
    if comparison is None:
        st.info("Every training slot of this server is taken: press again when one frees.")
        return
    draw_comparison(comparison)


def draw_comparison(comparison: RecipeComparison) -> None:
    curves = comparison.curves
    runs = {RECIPE_LABELS[recipe]: curves[curves.recipe == recipe] for recipe in RECIPES}
    steps = next(iter(runs.values())).step.to_numpy()
    chart(
        lines(
            steps,
            {name: run.val_loss.to_numpy() for name, run in runs.items()},
            "Held-out loss, both recipes",
            "step",
            "held-out loss",
        )
    )
    chart(
        lines(
            steps,
            {name: run.val_accuracy.to_numpy() for name, run in runs.items()},
            "Held-out accuracy, both recipes",
            "step",
            "held-out accuracy",
        )
    )
    outcomes = " ".join(_outcome(comparison, recipe) for recipe in RECIPES)
    st.caption(
        f"{outcomes} Label smoothing puts 0.1 of the paper's training target evenly over the "
        f"{comparison.classes} outputs, so a model that fits that target exactly has a held-out loss of -log(1 - 0.1 + "
        f"0.1 / {comparison.classes}) = {comparison.smoothing_floor:.3f}, not 0."
    )
    with st.expander("The numbers"):
        st.dataframe(curves, hide_index=True)


def _outcome(comparison: RecipeComparison, recipe: str) -> str:
    step = comparison.first_reached(recipe)
    last = comparison.curves[comparison.curves.recipe == recipe].iloc[-1]
    met = f"met the target at step {step}" if step is not None else f"did not meet the target in {COMPARE_STEPS} steps"
    name = RECIPE_LABELS[recipe]
    return f"{name[0].upper()}{name[1:]} {met} (held-out loss {last.val_loss:.3f} at step {int(last.step)})."
