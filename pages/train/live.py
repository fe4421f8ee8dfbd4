"""The training run of one session: its trainer, the media buttons and the live view."""

from __future__ import annotations

import threading
import time

import numpy as np
import streamlit as st
from ui import runtime  # noqa: F401  (torch threads are set before any torch work)

from pages.train import controls
from pages.train.slots import training_slots
from pages.train.tiles import snapshot_figure
from transformer import Trainer, TrainingSetup
from ui.charts import chart
from ui.screen import button_row, compact, show_section
from ui.cache import cached_figure, resource
from viz.training import accuracy_finding, curves_figure, head_scores_figure, jump_finding, loss_finding

REFRESH = 1.0  # the browser asks for a tick this often while training: the page updates once a second
# Train for most of the interval, then draw; the rest of the interval leaves room for drawing on a
# busy server, so that a tick never runs into the next one. Drawing a tick takes about 0.4 s here: a longer
# chunk gives training most of the time (with 0.4 s chunks, half of it went to drawing).
CHUNK_SECONDS = 0.8


# Session flag: the next run of the page's fragment reruns the whole page instead (see ``whole_page``).
WHOLE_PAGE = "rerun_whole_page"


def whole_page(callback):
    """``callback`` as a button's on_click, followed by a rerun of the whole page rather than of the
    settings-and-run fragment alone: starting, stopping, stepping or playing sets the page's timers
    (training ticks, Play) up again from the new state, as a fresh page would."""

    def run(*args) -> None:
        callback(*args)
        st.session_state[WHOLE_PAGE] = True

    return run


@resource(max_entries=16)
def untrained_trainer(setup: TrainingSetup) -> Trainer:
    """The model ``setup`` builds, at step 0, shared by every session that has not trained it yet.

    Read-only: a session trains, steps or decodes with its own trainer (``own_trainer``). A class
    opening the page at once builds and evaluates one model, not one per student.
    """
    return Trainer(setup)


def current_trainer(setup: TrainingSetup) -> Trainer | None:
    """This session's trainer when it has one for this model (kept when only the learning rate or the step
    budget changed), else the shared untrained one; None, with a message, for settings that make no model."""
    state = st.session_state
    trainer = state.get("trainer")
    if trainer is not None and controls.same_model(trainer.setup, setup):
        if trainer.setup.learning_rate != setup.learning_rate:
            trainer.set_learning_rate(setup.learning_rate)
        trainer.setup = setup
        return trainer
    if trainer is not None:
        _reset()  # another model: this session's run is over
    try:
        return untrained_trainer(setup)
    except ValueError as error:
        st.error(f"These settings do not make a model: {error}")
        return None


def own_trainer(trainer: Trainer) -> Trainer:
    """This session's trainer of ``trainer``'s model: the one it has, else a new one of the same setup (the
    same seed gives the same weights as the shared untrained model), kept in the session from now on."""
    state = st.session_state
    mine = state.get("trainer")
    if mine is None or not controls.same_model(mine.setup, trainer.setup):
        state.trainer = mine = Trainer(trainer.setup)
    return mine


def session_trainer(trainer: Trainer) -> Trainer:
    """This session's own trainer of ``trainer``'s model if it has one, else ``trainer`` itself."""
    mine = st.session_state.get("trainer")
    return mine if mine is not None and controls.same_model(mine.setup, trainer.setup) else trainer


def _start() -> None:
    st.session_state.running = True


def pause() -> None:
    st.session_state.running = False
    with _chunk_lock():  # a chunk still training ends first: the page then shows the step where training stopped
        training_slots().leave(st.session_state.session_id)


def _step(trainer: Trainer) -> None:
    """Ten steps now, if this session may train (else the queue message shows below)."""
    _train_a_chunk(trainer, steps=10, show_queue=False)


def _reset() -> None:
    pause()
    st.session_state.pop("trainer", None)


def media_buttons(trainer: Trainer) -> None:
    """Train / Pause / Step / Reset, like a media player."""
    running = st.session_state.get("running", False)
    # one row of buttons; on a small screen the note on a finished run goes below it
    with st.container():  # one block on every screen, so that what follows keeps its place (ui.screen)
        c = [*button_row(4), st.container()] if compact() else st.columns([1, 1, 1, 1, 3])
    c[0].button(
        "Train",
        icon=":material/play_arrow:",
        on_click=whole_page(_start),
        disabled=running or trainer.done,
        key="train",
        type="primary",
        width="stretch",
    )
    c[1].button(
        "Pause", icon=":material/pause:", on_click=whole_page(pause), disabled=not running, key="pause", width="stretch"
    )
    c[2].button(
        "Step",
        icon=":material/skip_next:",
        disabled=running or trainer.done,
        key="step",
        on_click=whole_page(_step),
        args=(trainer,),
        width="stretch",
        help="Ten training steps, then stop.",
    )
    c[3].button(
        "Reset",
        icon=":material/replay:",
        on_click=whole_page(_reset),
        key="reset",
        width="stretch",
        help="A new model with the same settings and seed.",
    )
    show_section("the run", anchor="train")  # on a projector, the buttons at the top and the heads under them
    if trainer.done:
        c[4].success(
            f"Done at step {trainer.step}: "
            + ("the target is reached." if _reached(trainer) else "the step budget is used up.")
        )


def _reached(trainer: Trainer) -> bool:
    return bool(trainer.history) and trainer.task.reached(trainer.history[-1])


def _chunk_lock() -> threading.Lock:
    """This session's training lock: one chunk at a time.

    A widget change while a chunk trains starts the new run at once, in a new thread (Streamlit's
    fast reruns), while the old run finishes its chunk; without the lock both would train the
    same model at the same time.
    """
    return st.session_state.setdefault("chunk_lock", threading.Lock())


def _train_a_chunk(trainer: Trainer, steps: int | None = None, show_queue: bool = True) -> Trainer:
    """Train for about CHUNK_SECONDS (or ``steps`` steps) if this session holds a slot, else show its place
    in the queue. Returns the trainer shown from now on: this session's own once it has trained."""
    slots, session = training_slots(), st.session_state.session_id
    place = slots.admit(session)
    if place:
        if show_queue:
            st.info(
                f"{slots.training()} trainings are running on this server, the most it runs at once; yours is "
                f"number {place} in the queue and starts by itself when one of them pauses or finishes."
            )
        return trainer
    with _chunk_lock():
        trainer = own_trainer(trainer)
        if steps is not None:
            trainer.train(steps)
        else:
            start = time.perf_counter()
            while time.perf_counter() - start < CHUNK_SECONDS and not trainer.done:
                trainer.train(5)
    if trainer.done or steps is not None:
        slots.leave(session)
    return trainer


@st.fragment
def _progress(trainer: Trainer) -> None:
    history = trainer.history
    st.progress(
        min(1.0, trainer.step / trainer.setup.max_steps),
        text=f"step {trainer.step} of at most {trainer.setup.max_steps}",
    )
    if not history:
        st.caption("No step yet: press Train.")
        return
    last = history[-1]
    task = trainer.task
    on_accuracy = task.target_metric == "val_accuracy"  # else a held-out perplexity ceiling (the text task)
    cols = st.columns(5)
    cols[0].metric("train loss", f"{last['train_loss']:.3f}")
    cols[1].metric("held-out loss", f"{last['val_loss']:.3f}")
    cols[2].metric(
        "held-out accuracy",
        f"{last['val_accuracy']:.1%}",
        help=f"target: at least {task.target:.0%}" if on_accuracy else None,
    )
    if last.get("perplexity") is not None:
        cols[3].metric(
            "perplexity",
            f"{last['perplexity']:.2f}",
            help=None if on_accuracy else f"target: at most {task.target:g} (exp of the held-out loss)",
        )
    cols[4].metric(f"best head: {trainer.task.score_name}", f"{last['head_score']:.2f}")
    if len(history) < 2:  # one evaluation, at step 0: nothing to draw a curve through yet
        st.caption("The loss, accuracy and head-score curves are drawn from the first training steps on.")
        return
    steps = [row["step"] for row in history]
    accuracies, losses = [r["val_accuracy"] for r in history], [r["val_loss"] for r in history]
    chart(
        cached_figure(
            curves_figure,
            tuple(steps),
            tuple(r["train_loss"] for r in history),
            tuple(losses),
            tuple(accuracies),
            task.target if on_accuracy else None,
            f"{task.name} · {trainer.setup.layers} layers × {trainer.setup.heads} heads: "
            + (accuracy_finding(steps, accuracies, task.target) if on_accuracy else loss_finding(steps, losses)),
        ),
        width="stretch",
        key="curves",
    )
    if not on_accuracy:
        st.caption(perplexity_target_note(task.target))
    scores = np.stack([np.asarray(r["head_scores"], dtype=np.float32) for r in history])
    chart(
        cached_figure(
            head_scores_figure,
            tuple(steps),
            scores,
            trainer.task.score_name,
            f"Each head's {trainer.task.score_name} over training: " + jump_finding(steps, scores),
        ),
        width="stretch",
        key="scores",
    )


def perplexity_target_note(target: float) -> str:
    """Where a perplexity target (the text task's) is on the curves: nowhere on the accuracy panel; on the loss
    panel it is the held-out loss ln(target)."""
    return (
        f"The text task's target is a held-out perplexity of at most {target:g}: exp(held-out loss) ≤ {target:g}, "
        f"that is, the dashed held-out loss at or below ln {target:g} = {np.log(target):.2f} on the loss panel. The "
        f"held-out accuracy panel has no target line: this task's target is not an accuracy."
    )


def live_view(trainer: Trainer, running: bool) -> None:
    """While running, a fragment trains a chunk and redraws, over and over (see CHUNK_SECONDS)."""

    @st.fragment(run_every=REFRESH if running else None)
    def tick() -> None:
        # The session's own trainer, not the one of the page's last full run: a tick that comes between a
        # Pause and the page's rerun would otherwise show the untrained model the page started from.
        shown = session_trainer(trainer)
        if st.session_state.get("running", False):
            shown = _train_a_chunk(shown)
            if shown.done:
                st.session_state.running = False
                st.rerun()  # the whole page: the timer stops and the buttons change
        # the latest snapshot's map, while training and until there is a second one: then the scrubber under the
        # run draws the map (at the latest snapshot, to begin with), once
        if shown.snapshots and (st.session_state.get("running", False) or len(shown.snapshots) < 2):
            snapshot_figure(shown, len(shown.snapshots) - 1, "live")
        _progress(shown)  # the heads first, then the numbers and curves

    tick()
