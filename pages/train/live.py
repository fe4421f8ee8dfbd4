"""The training run of one session: its trainer, the media buttons, the live view and what comes after."""

from __future__ import annotations

import threading
import time

import numpy as np
import streamlit as st
from ui import runtime  # noqa: F401  (torch threads are set before any torch work)

from pages.train import controls
from pages.train.slots import training_slots
from transformer import Trainer, TrainingSetup
from ui.classroom import chart
from ui.figure_cache import cached_figure
from ui.models import add_checkpoint
from viz.encoder_decoder import heads_grid_heatmap
from viz.training import curves_figure, head_scores_figure

REFRESH = 0.5  # the browser asks for a tick this often while training: the page updates twice a second
# Train for most of the interval, then draw; the rest of the interval leaves room for drawing on a
# busy server, so that a tick never runs into the next one.
CHUNK_SECONDS = 0.4


@st.cache_resource(max_entries=16, show_spinner=False)
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


def _start() -> None:
    st.session_state.running = True


def _pause() -> None:
    st.session_state.running = False
    with _chunk_lock():  # a chunk still training ends first: the page then shows the step where training stopped
        training_slots().leave(st.session_state.session_id)


def _step(trainer: Trainer) -> None:
    """Ten steps now, if this session may train (else the queue message shows below)."""
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
                on_click=_step, args=(trainer,), width="stretch", help="Ten training steps, then stop.")
    c[3].button("Reset", icon=":material/replay:", on_click=_reset, key="reset", width="stretch",
                help="A new model with the same settings and seed.")
    if trainer.done:
        c[4].success(f"Done at step {trainer.step}: " + ("the target is reached." if _reached(trainer)
                                                          else "the step budget is used up."))


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
            st.info(f"{slots.training()} trainings are running on this server, the most it runs at once; yours is "
                    f"number {place} in the queue and starts by itself when one of them pauses or finishes.")
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
    chart(cached_figure(curves_figure, tuple(steps), tuple(r["train_loss"] for r in history),
                        tuple(r["val_loss"] for r in history), tuple(r["val_accuracy"] for r in history),
                        trainer.task.target,
                        f"{trainer.task.name} · {trainer.setup.layers} layers × {trainer.setup.heads} heads"),
          width="stretch", key="curves")
    scores = np.stack([np.asarray(r["head_scores"], dtype=np.float32) for r in history])
    chart(cached_figure(head_scores_figure, tuple(steps), scores, trainer.task.score_name,
                        f"Each head's {trainer.task.score_name} over training"),
          width="stretch", key="scores")


def _attention_tiles(weights: dict[str, np.ndarray], labels, title: str, key: str) -> None:
    """Every head of one attention map, picked by name: ``weights`` name -> ``[H, Lq, Lk]``;
    ``labels(name)`` -> (query symbols, key symbols). Decoder self-attention shows its causal mask."""
    names = list(weights)
    name = st.selectbox("attention shown", names, index=len(names) - 1, key=f"layer_{key}",
                        format_func=_readable_name)
    name = name if name in weights else names[-1]
    rows, cols = labels(name)
    lq, lk = weights[name].shape[-2:]
    mask = np.tril(np.ones((lq, lk), dtype=bool)) if name.startswith("decoder") and name.endswith("self_attn") else None
    chart(cached_figure(heads_grid_heatmap, weights[name], _fit(rows, lq), _fit(cols, lk),
                        f"{title} · {_readable_name(name)}", mask),
          width="stretch", key=f"tiles_{key}")


def _fit(symbols: list[str], length: int) -> list[str]:
    """Axis labels of the right length (positions when the symbols do not match the map)."""
    return list(symbols) if len(symbols) == length else [f"t{i}" for i in range(length)]


def _side_labels(source: list[str], target: list[str]):
    """``labels(name)`` for a model's maps: encoder maps read the source, the decoder its own input."""
    def labels(name: str) -> tuple[list[str], list[str]]:
        if name.startswith("encoder"):
            return source, source
        return (target, source) if name.endswith("cross_attn") else (target, target)
    return labels


def _probe_labels(trainer: Trainer):
    probe = trainer.task.probe()
    source = list(probe.tokens[0])
    target = source if probe.decoder_inputs is None else trainer.task.symbols(probe.decoder_inputs[0])
    return _side_labels(source, target)


def _snapshot_figure(trainer: Trainer, index: int, key: str) -> None:
    """The probe's attention in every head of a chosen map, at snapshot ``index``."""
    snapshot = trainer.snapshots[index]
    _attention_tiles(snapshot.weights, _probe_labels(trainer), f"Step {snapshot.step} · the probe input", key)


def _readable_name(name: str) -> str:
    """``decoder.layers.1.self_attn`` -> "decoder layer 2 · self-attention"."""
    stack, _, index, kind = name.split(".")
    return f"{stack} layer {int(index) + 1} · {kind.replace('_attn', '-attention')}"


def live_view(trainer: Trainer, running: bool) -> None:
    """While running, a fragment trains a chunk and redraws, over and over (see CHUNK_SECONDS)."""

    @st.fragment(run_every=REFRESH if running else None)
    def tick() -> None:
        shown = trainer
        if st.session_state.get("running", False):
            shown = _train_a_chunk(trainer)
            if shown.done:
                st.session_state.running = False
                st.rerun()  # the whole page: the timer stops and the buttons change
        _progress(shown)
        if shown.snapshots:
            _snapshot_figure(shown, len(shown.snapshots) - 1, "live")

    tick()


PLAY_EVERY = 0.6  # seconds per snapshot while playing


def _use(name: str) -> None:
    """Offer the trained model in this session's model picker, on every page where it fits."""
    entry = add_checkpoint(f"{name}.safetensors", st.session_state.trainer.checkpoint_bytes(name))
    st.session_state.used = f"The model picker now offers “{entry.spec.label}” wherever a {entry.kind} model fits."


def _play(first_step: int, last_step: int) -> None:
    """Play from the start (or go on from where the slider is, unless it is at the end)."""
    state = st.session_state
    if state.get("snap") == last_step:
        state.snap = first_step
    state.playing, state.frame_shown_at = True, time.monotonic()


def _stop_playing() -> None:
    st.session_state.playing = False


def scrub(trainer: Trainer) -> None:
    """A slider over the snapshots, and Play: the slider moves on by itself, one snapshot per PLAY_EVERY s."""
    state = st.session_state
    steps = [s.step for s in trainer.snapshots]
    if state.get("snap") not in steps or state.get("snap_count") != len(steps):
        state.snap, state.snap_count = steps[-1], len(steps)  # new snapshots: show the latest
    playing = state.get("playing", False)
    if playing:
        st.button("Pause", icon=":material/pause:", key="play_pause", on_click=_stop_playing)
    else:
        st.button("Play", icon=":material/play_arrow:", key="play", on_click=_play, args=(steps[0], steps[-1]),
                  help="Watch the heads form: the slider steps through the snapshots by itself.")

    @st.fragment(run_every=PLAY_EVERY if playing else None)
    def frames() -> None:
        due = time.monotonic() - state.get("frame_shown_at", 0.0) >= 0.8 * PLAY_EVERY  # a timer tick, not a click
        if state.get("playing", False) and due:
            state.frame_shown_at = time.monotonic()
            index = steps.index(state.snap) if state.snap in steps else -1
            state.snap = steps[min(index + 1, len(steps) - 1)]
            if state.snap == steps[-1]:
                state.playing = False
                st.rerun()  # the whole page: the timer stops and the button says Play again
        chosen = st.select_slider("snapshot at step", steps, key="snap")
        _snapshot_figure(trainer, steps.index(chosen), "scrub")

    frames()


def try_it(trainer: Trainer) -> None:
    """The model on the user's own input: greedy decoding, token by token, and the attention that produced it."""
    task = trainer.task
    text = st.text_input(f"input in the task's alphabet ({task.name})", key="try", max_chars=200)
    if not text:
        return
    ids = task.encode_user_input(text)
    if ids is None:
        st.warning("This input uses tokens outside the task's alphabet or is too long; "
                   f"the alphabet is: {' '.join(task.tokenizer.vocabulary[:40])}")
        return
    generated, record = own_trainer(trainer).greedy(ids, max_new=len(ids) + 2)  # greedy switches eval mode
    st.text("model output (greedy, token by token): " + " ".join(task.symbols(generated)))
    if trainer.setup.kind == "encoder-decoder":
        st.caption("Each decoder row is one step: the model reads the source through cross-attention and the "
                   "tokens written so far, and writes the next token (the one after the row's token).")
        labels = _side_labels(task.symbols(ids), list(record.tokens))
    else:
        st.caption("Each row is one step: from the tokens so far (the causal mask hides the rest) the model "
                   "predicts the next token; the rows after your input are the model's own output fed back in.")
        labels = _side_labels(list(record.tokens), list(record.tokens))
    weights = {name: record.numpy(name) for name in record.weights}
    _attention_tiles(weights, labels, "Your input and the model's output", "try")


def _resume() -> None:
    """on_change of the checkpoint uploader: go on from the file's model, its settings shown above."""
    state = st.session_state
    upload = state.get("resume_upload")
    if upload is None:
        return
    try:
        trainer = Trainer.resume(upload.getvalue())
        controls.show_setup(trainer.setup)
    except ValueError as error:
        state.resume_message = ("error", f"{upload.name} was not opened. What is wrong: {error}")
        return
    _pause()
    state.trainer = trainer
    state.resume_message = ("success", f"{upload.name} is open at step {trainer.step}: its settings are shown above. "
                                       "Raise the step budget to train it further (the optimiser starts afresh).")


def after_training(trainer: Trainer) -> None:
    """Scrub the snapshots, try the model on your own input, save it, open one, or use it on every page."""
    if len(trainer.snapshots) > 1:
        st.subheader("Scrub through training")
        scrub(trainer)
    st.subheader("Try it on your own input")
    try_it(trainer)
    st.subheader("Keep the model")
    name = f"{trainer.task.name}-{trainer.setup.layers}L{trainer.setup.heads}H-step{trainer.step}"
    left, middle, right = st.columns(3)
    left.download_button("Download the checkpoint (.safetensors)", data=lambda: trainer.checkpoint_bytes(name),
                         file_name=f"{name}.safetensors", mime="application/octet-stream", key="save",
                         on_click="ignore", disabled=not trainer.step)
    middle.button("Use it on every page (this session)", key="use", disabled=not trainer.step, on_click=_use,
                  args=(name,))
    if "used" in st.session_state:
        middle.success(st.session_state.pop("used"))
    right.file_uploader("Open a checkpoint saved here, to try it or train it further", type=["safetensors"],
                        key="resume_upload", on_change=_resume,
                        help="Checked before use (at most 5 MB); nothing in the file is executed.")
    message = st.session_state.pop("resume_message", None)
    if message:
        getattr(right, message[0])(message[1])
