"""The Train page's live translator: a small English-to-French encoder-decoder trained for a minute on part of
the Tatoeba pairs, by the paper's recipe, with its cross-attention on a probe pair sharpening beside the shipped
model's, and the BLEU it reaches on held-out sentences when it stops."""

from __future__ import annotations

import time

import numpy as np
import streamlit as st

from analysis.alignment import ALIGNED_PAIRS, pair_alignment
from analysis.bleu import corpus_quality
from pages.train.slots import training_slots
from transformer import checkpoint_data, translation_split
from transformer.translation import translate_ids
from transformer.translation_training import TranslationPlan, TranslatorRun
from ui.cache import computation
from ui.charts import chart
from ui.model_picker import shipped_entry
from ui.models import add_checkpoint, load_model
from ui.translation import SAMPLE_SIZE, held_out_sample, sample_quality
from viz.alignment import alignment_figure
from viz.style import projector_fonts

# Small enough to learn something in a minute on 2 cores: no dropout (a live run draws nothing from the
# process-wide generator, so it repeats whatever other sessions do), a warm-up of 150 steps.
LIVE_PLAN = TranslationPlan(
    vocab_size=1000, d_model=64, num_heads=4, layers=2, d_ff=128, dropout=0.0, batch_tokens=1200, warmup=150,
    max_pairs=20_000,
)  # fmt: skip
LIVE_SECONDS = 60.0
CHUNK_SECONDS = 0.8
REFRESH = 1.0
PROBE = ALIGNED_PAIRS[0]  # "I have a red car." -> "J'ai une voiture rouge."
RUN, RUNNING, STATE = "translator_run", "translator_running", "translator_state"


def _state() -> dict:
    """This session's live run: seconds trained, the loss every few steps, the probe's map at each snapshot."""
    return st.session_state.setdefault(STATE, {"seconds": 0.0, "losses": [], "maps": [], "bleu": None})


def _start() -> None:
    st.session_state[RUNNING] = True


def _pause() -> None:
    st.session_state[RUNNING] = False
    training_slots().leave(st.session_state.setdefault("session_id", "translator"))


def _reset() -> None:
    _pause()
    st.session_state.pop(RUN, None)
    st.session_state.pop(STATE, None)


def probe_map(model, tokenizer) -> np.ndarray:
    """The probe pair's cross-attention, mean over layers and heads, in words ``[Tw, Sw]``."""
    model.eval()
    try:
        return pair_alignment(model, tokenizer, PROBE.english, PROBE.french).mean(axis=(0, 1))
    finally:
        model.train()


def _train_chunk(run: TranslatorRun, state: dict) -> None:
    """About ``CHUNK_SECONDS`` of training, the mean loss of each 20 steps kept, the probe's map snapshotted."""
    start = time.perf_counter()
    losses = []
    while time.perf_counter() - start < CHUNK_SECONDS:
        losses.append(run.train_batch()[0])
        if run.step % 20 == 0:
            state["losses"].append((run.step, float(np.mean(losses[-20:]))))
    state["seconds"] += time.perf_counter() - start
    state["maps"].append((run.step, probe_map(run.model, run.tokenizer)))


def held_out_bleu(run: TranslatorRun) -> float:
    """Greedy BLEU of the live model on the pages' held-out sample (every reference)."""
    english, references = held_out_sample()
    run.model.eval()
    try:
        written = []
        for sentence in english:
            ids = run.tokenizer.encode(run.tokenizer.tokenize(sentence))[: run.model.config.max_len]
            written.append(run.tokenizer.decode(translate_ids(run.model, ids, 1)))
    finally:
        run.model.train()
    return corpus_quality(written, references).bleu


def _save(run: TranslatorRun) -> None:
    """The live model as a checkpoint of this session (the other pages' pickers offer it)."""
    run.model.eval()
    try:
        data = checkpoint_data(
            run.model,
            {"task": "translation", "languages": {"source": "en", "target": "fr"}, "tokenizer": run.tokenizer},
        )
    finally:
        run.model.train()
    add_checkpoint("translator (trained here)", data)
    st.session_state["translator_saved"] = True


def _labels() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The probe's words as typed (the rows: the French ones and the end token; the columns: the English ones)."""
    return (*PROBE.french.split(), "</s>"), tuple(PROBE.english.split())


@computation
def shipped_probe(spec) -> np.ndarray:
    """The shipped model's map of the probe pair (mean over layers and heads, in words), once per server."""
    loaded = load_model(spec)
    return pair_alignment(loaded.module, loaded.tokenizer, PROBE.english, PROBE.french).mean(axis=(0, 1))


def _maps_side_by_side(live: np.ndarray | None, step: int) -> None:
    rows, cols = _labels()
    reference = shipped_probe(shipped_entry("translation").spec)
    left, right = st.columns(2)
    for column, weights, who in ((left, live, f"yours after {step} steps"), (right, reference, "the shipped model")):
        if weights is None:
            column.caption("Your model's map appears after its first second of training.")
            continue
        strongest = weights.max(axis=1).mean()
        title = f"{PROBE.french} · {who}: the strongest link carries {strongest:.0%} of a word's attention"
        with column:
            chart(projector_fonts(alignment_figure(weights, rows, cols, title)), width="stretch")


def translator_section() -> None:
    """The buttons, the live run (a fragment that trains and redraws every second) and, when it stops, its BLEU."""
    running = bool(st.session_state.get(RUNNING, False))
    st.markdown(
        f"A model {LIVE_PLAN.layers} + {LIVE_PLAN.layers} layers deep, d_model = {LIVE_PLAN.d_model}, "
        f"{LIVE_PLAN.num_heads} heads, learns English to French from the first {LIVE_PLAN.max_pairs:,} training "
        f"pairs with the paper's recipe (Adam, the warm-up schedule, label smoothing 0.1), for "
        f"{LIVE_SECONDS:.0f} seconds of training. Its cross-attention on “{PROBE.english}” is drawn beside the "
        "shipped model's: watch the rows find their English words."
    )
    buttons = st.columns(3)
    state = _state()
    done = state["seconds"] >= LIVE_SECONDS
    buttons[0].button("Train the translator", key="tr_train", on_click=_start, disabled=running or done, type="primary")
    buttons[1].button("Pause", key="tr_pause", on_click=_pause, disabled=not running)
    buttons[2].button("Reset", key="tr_reset", on_click=_reset)

    @st.fragment(run_every=REFRESH if running else None)
    def tick() -> None:
        state = _state()
        if st.session_state.get(RUNNING, False):
            session = st.session_state.setdefault("session_id", "translator")
            place = training_slots().admit(session)
            if place:
                st.info(f"Trainings are running at their most on this server; yours is number {place} in the queue.")
            else:
                run = st.session_state.get(RUN)
                if run is None:
                    run = st.session_state[RUN] = TranslatorRun(
                        translation_split().train[: LIVE_PLAN.max_pairs], LIVE_PLAN
                    )
                _train_chunk(run, state)
                if state["seconds"] >= LIVE_SECONDS:
                    _pause()
                    st.rerun()
        run = st.session_state.get(RUN)
        step = run.step if run is not None else 0
        st.progress(
            min(1.0, state["seconds"] / LIVE_SECONDS),
            text=f"{state['seconds']:.0f} s of {LIVE_SECONDS:.0f} s · step {step}",
        )
        _maps_side_by_side(state["maps"][-1][1] if state["maps"] else None, step)

    tick()
    run = st.session_state.get(RUN)
    if run is None or running:
        return
    if state["bleu"] is None or state["bleu"][0] != run.step:
        state["bleu"] = (run.step, held_out_bleu(run))
    shipped = sample_quality(shipped_entry("translation").spec, 1)
    st.success(
        f"After {run.step} steps ({state['seconds']:.0f} s), greedy decoding reaches BLEU {state['bleu'][1]:.1f} on "
        f"{SAMPLE_SIZE} held-out sentences; the shipped model, trained on every training pair for far longer, "
        f"reaches {shipped.quality.bleu:.1f} on the same sentences, greedy too."
    )
    st.button("Use this translator on every page", key="tr_save", on_click=_save, args=(run,))
    if st.session_state.get("translator_saved"):
        st.caption("Saved for this session: the model pickers of Encoder-decoder, Generate and Experiments offer it.")
