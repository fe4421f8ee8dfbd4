"""After (and between) training: scrub through the snapshots, try the model, save it, open one, use it."""

from __future__ import annotations

import time

import streamlit as st

from pages.train import controls
from pages.train.live import own_trainer, pause, whole_page
from pages.train.tiles import attention_tiles, side_labels, snapshot_figure
from transformer import Trainer
from ui.models import add_checkpoint
from ui.page_url import kept_on_reset


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
        st.button("Pause", icon=":material/pause:", key="play_pause", on_click=whole_page(_stop_playing))
    else:
        st.button(
            "Play",
            icon=":material/play_arrow:",
            key="play",
            on_click=whole_page(_play),
            args=(steps[0], steps[-1]),
            help="Watch the heads form: the slider steps through the snapshots by itself.",
        )

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
        snapshot_figure(trainer, steps.index(chosen), "scrub")

    frames()


def try_it(trainer: Trainer) -> None:
    """The model on the user's own input: greedy decoding, token by token, and the attention that produced it."""
    task = trainer.task
    text = st.text_input(f"input in the task's alphabet ({task.name})", key="try", max_chars=200)
    if not text:
        return
    ids = task.encode_user_input(text)
    if ids is None:
        st.warning(
            "This input uses tokens outside the task's alphabet or is too long; "
            f"the alphabet is: {' '.join(task.tokenizer.vocabulary[:40])}"
        )
        return
    generated, record = own_trainer(trainer).greedy(ids, max_new=len(ids) + 2)  # greedy switches eval mode
    st.text("model output (greedy, token by token): " + " ".join(task.symbols(generated)))
    if trainer.setup.kind == "encoder-decoder":
        st.caption(
            "Each decoder row is one step: the model reads the source through cross-attention and the "
            "tokens written so far, and writes the next token (the one after the row's token)."
        )
        labels = side_labels(task.symbols(ids), list(record.tokens))
    else:
        st.caption(
            "Each row is one step: from the tokens so far (the causal mask hides the rest) the model "
            "predicts the next token; the rows after your input are the model's own output fed back in."
        )
        labels = side_labels(list(record.tokens), list(record.tokens))
    weights = {name: record.numpy(name) for name in record.weights}
    attention_tiles(weights, labels, "Your input and the model's output", "try")


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
    pause()
    state.trainer = trainer
    state.resume_message = (
        "success",
        f"{upload.name} is open at step {trainer.step}: its settings are shown above. "
        "Raise the step budget to train it further (the optimiser starts afresh).",
    )


def after_training(trainer: Trainer) -> None:
    """Scrub the snapshots, try the model on your own input, save it, open one, or use it on every page."""
    if len(trainer.snapshots) > 1:
        st.header("Scrub through training")
        scrub(trainer)
    if trainer.task.kind == "vision":
        st.header("Draw for it")
        st.markdown(
            "**Use it on every page** (under *Keep the model*, below), then open the **Vision Transformer** page "
            "and pick it in the model picker: draw a digit for it, see which patches each head reads, knock heads out."
        )
    else:
        st.header("Try it on your own input")
        try_it(trainer)
    keep = st.expander(
        "Keep the model: download it, use it on every page, or open a checkpoint", key="keep", bind="query-params"
    )
    if keep.open:  # built only when opened (an open one is in the URL), so a setting does not resend it
        with keep:
            keep_the_model(trainer)


def keep_the_model(trainer: Trainer) -> None:
    """Download the checkpoint, offer it in this session's model picker, or open a checkpoint saved here."""
    name = f"{trainer.task.name}-{trainer.setup.layers}L{trainer.setup.heads}H-step{trainer.step}"
    left, middle, right = st.columns(3)
    left.download_button(
        "Download the checkpoint (.safetensors)",
        data=lambda: trainer.checkpoint_bytes(name),
        file_name=f"{name}.safetensors",
        mime="application/octet-stream",
        key="save",
        on_click="ignore",
        disabled=not trainer.step,
    )
    middle.button(
        "Use it on every page (this session)", key="use", disabled=not trainer.step, on_click=_use, args=(name,)
    )
    if "used" in st.session_state:
        middle.success(st.session_state.pop("used"))
    right.file_uploader(
        "Open a checkpoint saved here, to try it or train it further",
        type=["safetensors"],
        key=kept_on_reset("resume_upload"),  # a training run stays when the page is reset
        on_change=whole_page(_resume),
        help="Checked before use (at most 5 MB); nothing in the file is executed.",
    )
    message = st.session_state.pop("resume_message", None)
    if message:
        getattr(right, message[0])(message[1])
