"""The training run of one session: its trainer, the media buttons, the live view and what comes after."""

from __future__ import annotations

import time

import numpy as np
import streamlit as st
from ui import runtime  # noqa: F401  (torch threads are set before any torch work)

from pages.train import controls
from pages.train.slots import training_slots
from transformer import Trainer, TrainingSetup
from ui.figure_cache import cached_figure
from ui.models import add_checkpoint
from viz.encoder_decoder import heads_grid_heatmap
from viz.training import curves_figure, head_scores_figure

CHUNK_SECONDS = 0.35  # train this long per refresh, then draw: the page updates about twice a second
REFRESH = 0.5


def current_trainer(setup: TrainingSetup) -> Trainer | None:
    """This session's trainer: kept when only the learning rate or the step budget changed, else a new model."""
    state = st.session_state
    trainer = state.get("trainer")
    if trainer is not None and controls.same_model(trainer.setup, setup):
        if trainer.setup.learning_rate != setup.learning_rate:
            trainer.set_learning_rate(setup.learning_rate)
        trainer.setup = setup
        return trainer
    try:
        trainer = Trainer(setup)
    except ValueError as error:
        st.error(f"These settings do not make a model: {error}")
        return None
    state.trainer, state.running = trainer, False
    return trainer


def _start() -> None:
    st.session_state.running = True


def _pause() -> None:
    st.session_state.running = False
    training_slots().leave(st.session_state.session_id)


def _step() -> None:
    """Ten steps now, if this session may train (else the queue message shows below)."""
    trainer = st.session_state.get("trainer")
    if trainer is not None:
        _train_a_chunk(trainer, steps=10, show_queue=False)


def _reset() -> None:
    _pause()
    st.session_state.pop("trainer", None)


def media_buttons(trainer: Trainer) -> None:
    """Train / Pause / Step / Reset, like a media player."""
    running = st.session_state.get("running", False)
    c = st.columns([1, 1, 1, 1, 3])
    c[0].button("Train", icon=":material/play_arrow:", on_click=_start, disabled=running or trainer.done,
                key="train", type="primary", width="stretch")
    c[1].button("Pause", icon=":material/pause:", on_click=_pause, disabled=not running, key="pause", width="stretch")
    c[2].button("Step", icon=":material/skip_next:", disabled=running or trainer.done, key="step",
                on_click=_step, width="stretch", help="Ten training steps, then stop.")
    c[3].button("Reset", icon=":material/replay:", on_click=_reset, key="reset", width="stretch",
                help="A new model with the same settings and seed.")
    if trainer.done:
        c[4].success(f"Done at step {trainer.step}: " + ("the target is reached." if _reached(trainer)
                                                          else "the step budget is used up."))


def _reached(trainer: Trainer) -> bool:
    return bool(trainer.history) and trainer.task.reached(trainer.history[-1])


def _train_a_chunk(trainer: Trainer, steps: int | None = None, show_queue: bool = True) -> bool:
    """Train for about CHUNK_SECONDS (or ``steps`` steps) if this session holds a slot; False if queued."""
    slots, session = training_slots(), st.session_state.session_id
    place = slots.admit(session)
    if place:
        if show_queue:
            st.info(f"{slots.training()} trainings are running on this server, the most it runs at once; yours is "
                    f"number {place} in the queue and starts by itself when one of them pauses or finishes.")
        return False
    if steps is not None:
        trainer.train(steps)
    else:
        start = time.perf_counter()
        while time.perf_counter() - start < CHUNK_SECONDS and not trainer.done:
            trainer.train(5)
    if trainer.done or steps is not None:
        slots.leave(session)
    return True


@st.fragment
def _progress(trainer: Trainer) -> None:
    history = trainer.history
    st.progress(min(1.0, trainer.step / trainer.setup.max_steps),
                text=f"step {trainer.step} of at most {trainer.setup.max_steps}")
    if not history:
        st.caption("No step yet: press Train.")
        return
    last = history[-1]
    cols = st.columns(5)
    cols[0].metric("train loss", f"{last['train_loss']:.3f}")
    cols[1].metric("held-out loss", f"{last['val_loss']:.3f}")
    cols[2].metric("held-out accuracy", f"{last['val_accuracy']:.1%}", help=f"target {trainer.task.target:.0%}")
    if last.get("perplexity") is not None:
        cols[3].metric("perplexity", f"{last['perplexity']:.2f}")
    cols[4].metric(f"best head: {trainer.task.score_name}", f"{last['head_score']:.2f}")
    steps = [row["step"] for row in history]
    st.plotly_chart(cached_figure(curves_figure, tuple(steps), tuple(r["train_loss"] for r in history),
                                  tuple(r["val_loss"] for r in history), tuple(r["val_accuracy"] for r in history),
                                  trainer.task.target,
                                  f"{trainer.task.name} · {trainer.setup.layers} layers × {trainer.setup.heads} heads"),
                    width="stretch", key="curves")
    scores = np.stack([np.asarray(r["head_scores"], dtype=np.float32) for r in history])
    st.plotly_chart(cached_figure(head_scores_figure, tuple(steps), scores, trainer.task.score_name,
                                       f"Each head's {trainer.task.score_name} over training"),
                    width="stretch", key="scores")


def _snapshot_figure(trainer: Trainer, index: int, key: str) -> None:
    """The probe's attention in every head of the chosen stack and layer, at snapshot ``index``."""
    snapshot = trainer.snapshots[index]
    probe = trainer.task.probe()
    names = list(snapshot.weights)
    layer_name = st.selectbox("attention shown", names, index=len(names) - 1, key=f"probe_layer_{key}",
                              format_func=_readable_name)
    name = layer_name if layer_name in snapshot.weights else names[-1]
    weights = snapshot.weights[name]
    tokens = list(probe.tokens[0])
    rows = tokens if weights.shape[-2] == len(tokens) else [f"t{i}" for i in range(weights.shape[-2])]
    cols = tokens if weights.shape[-1] == len(tokens) else [f"t{i}" for i in range(weights.shape[-1])]
    st.plotly_chart(cached_figure(heads_grid_heatmap, weights, rows, cols,
                                  f"Step {snapshot.step} · {_readable_name(name)} · the probe input"),
                    width="stretch", key=f"probe_{key}")


def _readable_name(name: str) -> str:
    """``decoder.layers.1.self_attn`` -> "decoder layer 2 · self-attention"."""
    stack, _, index, kind = name.split(".")
    return f"{stack} layer {int(index) + 1} · {kind.replace('_attn', '-attention')}"


def live_view(trainer: Trainer, running: bool) -> None:
    """While running, a fragment trains a chunk and redraws about twice a second."""

    @st.fragment(run_every=REFRESH if running else None)
    def tick() -> None:
        if st.session_state.get("running", False):
            _train_a_chunk(trainer)
            if trainer.done:
                st.session_state.running = False
                st.rerun()  # the whole page: the timer stops and the buttons change
        _progress(trainer)
        if trainer.snapshots:
            _snapshot_figure(trainer, len(trainer.snapshots) - 1, "live")

    tick()


def _use(name: str) -> None:
    """Offer the trained model in this session's model picker, on every page where it fits."""
    entry = add_checkpoint(f"{name}.safetensors", st.session_state.trainer.checkpoint_bytes(name))
    st.session_state.used = f"The model picker now offers “{entry.spec.label}” wherever a {entry.kind} model fits."


def after_training(trainer: Trainer) -> None:
    """Scrub the snapshots, try the model on your own input, save it or use it on every page."""
    if len(trainer.snapshots) > 1:
        st.subheader("Scrub through training")
        steps = [s.step for s in trainer.snapshots]
        chosen = st.select_slider("snapshot at step", steps, value=steps[-1], key="snap")
        _snapshot_figure(trainer, steps.index(chosen), "scrub")
    st.subheader("Try it on your own input")
    text = st.text_input(f"input in the task's alphabet ({trainer.task.name})", key="try", max_chars=200)
    if text:
        ids = trainer.task.encode_user_input(text)
        if ids is None:
            st.warning("This input uses tokens outside the task's alphabet or is too long; "
                       f"the alphabet is: {' '.join(trainer.task.tokenizer.vocabulary[:40])}")
        else:
            generated, _ = trainer.greedy(ids, max_new=len(ids) + 2)
            vocabulary = ("<pad>", "<s>", "</s>", "<unk>") + tuple(trainer.task.tokenizer.vocabulary)
            st.text("model output (greedy, token by token): " + " ".join(vocabulary[i] for i in generated))
    st.subheader("Keep the model")
    name = f"{trainer.task.name}-{trainer.setup.layers}L{trainer.setup.heads}H-step{trainer.step}"
    left, right = st.columns(2)
    left.download_button("Download the checkpoint (.safetensors)", data=lambda: trainer.checkpoint_bytes(name),
                         file_name=f"{name}.safetensors", mime="application/octet-stream", key="save",
                         on_click="ignore", disabled=not trainer.step)
    right.button("Use it on every page (this session)", key="use", disabled=not trainer.step, on_click=_use,
                 args=(name,))
    if "used" in st.session_state:
        right.success(st.session_state.pop("used"))
