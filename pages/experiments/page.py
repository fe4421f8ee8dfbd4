"""Experiments: knock heads out, patch one run into another, read each layer's guess, build a head by hand.

The model picker offers trained models only (a random model has no behaviour to break): shipped and
uploaded checkpoints, the model trained on the Train page, and the pretrained model. The open section
(the URL's ``section``) is the only one built.
"""

import numpy as np
import streamlit as st
import torch

from pages.experiments import attribution, build_a_head, circuit, importance, knock_out, reading
from pages.experiments.knock_out import Inputs
from pages.experiments.vision import vision_experiment
from pages.experiments.translation import translation_experiment
from ui.translation import is_translation
from pages.experiments.subject import Subject, default_input, evaluation_batch, subject_of
from transformer import score_heads
from ui.cache import computation
from ui.presentation import explanation
from ui.screen import settings
from ui.controls import section_picker
from ui.model_picker import shipped_entry, trained_model
from ui.routing import require_navigation
from ui.text import tokenize_text
from ui.formulas import formula

require_navigation()

SECTIONS = ("Knock out", "Importance", "Circuit", "Patching", "Logit lens", "Attribution", "Build a head")
DECODER_ONLY = ("Patching", "Logit lens", "Attribution")
SENTENCES = ("A man is playing a guitar on the stage.", "Someone performs music with an instrument.")
TEXT = "When Mary and John went to the store, John gave a drink to Mary. When Mary and John went to the store,"

st.title("Experiments")
with explanation():
    st.markdown(
        "Attention maps show where information *may* flow, not whether the model uses it. To test what a head "
        "does, change it and watch the behaviour. **Knock out** a head: its output $A_hV_h$ (its slice of the "
        "concatenation, before $W^O$) is replaced by zeros, by its mean, or by its output on another input of the "
        "task (resample). **Patch** a head: run a corrupted input, but give one head the output it had on the clean "
        "input, or only the queries, keys or values it read there, and see how much of the clean answer comes "
        "back."
    )
    formula(
        r"\mathrm{MultiHead}(X) = \allowbreak \mathrm{Concat}(\mathrm{head}_1, \dots, \underbrace{0}_{\mathrm{head}_h"
        r"\text{ knocked out}}, \dots, \mathrm{head}_H)\,W^O"
    )


def _shipped_induction():
    """The shipped induction checkpoint's picker entry, or None when the server has none."""
    try:
        return shipped_entry("induction")
    except KeyError:
        return None


def read_inputs(subject: Subject) -> Inputs | None:
    """The input text box(es), tokenised with the model's tokenizer; None (after a message) when unusable."""
    if subject.sentences:
        first, second = st.columns(2)
        a = first.text_input("sentence A", SENTENCES[0], key="a", bind="query-params", max_chars=400)
        b = second.text_input("sentence B", SENTENCES[1], key="b", bind="query-params", max_chars=400)
        tokenizer = subject.loaded.tokenizer
        typed = [tokenize_text(text, 64, tokenizer=tokenizer) for text in (a, b)]
        if any(t is None for t in typed):
            st.info("Type both sentences: the experiment compares their embeddings.")
            return None
        return Inputs(typed[0].ids, typed[0].tokens, typed[1].ids, typed[1].tokens)
    if subject.text_model:
        text = INPUT_ROW[0].text_input("your text", TEXT, key="input", bind="query-params", max_chars=400)
        typed = tokenize_text(text, 64, tokenizer=subject.loaded.tokenizer)
        if typed is None or len(typed.ids) < 2:
            st.info("Type a text of at least two tokens: each position is measured on predicting the next.")
            return None
        return Inputs(typed.ids, tuple(subject.symbols(typed.ids)), text=text)
    task = subject.task
    text = INPUT_ROW[0].text_input(
        f"input for the {task.name} model", default_input(task), key="input", bind="query-params", max_chars=400
    )
    ids = task.encode_user_input(text)
    if not text.strip():
        st.info(f"Type an input for the {task.name} model: its default comes back with Reset this page.")
        return None
    if ids is None:
        alphabet = "".join(task.tokenizer.vocabulary) if task.name != "text" else "the characters of its text"
        limit = task.context if task.name in ("induction", "text") else 10
        st.error(f"This model reads only {alphabet}, at most {limit} of them; change the input.")
        return None
    return Inputs(tuple(ids), tuple(task.symbols(ids)), text=text)


def circuit_defaults(subject: Subject, seed: int) -> tuple[int, int]:
    """(head A, head B) as indices over layers x heads: for a task model, the layer-1 head with the highest
    previous-token score and the later head with the highest score of the task's pattern."""
    module = subject.module
    if subject.task is None or module.config.num_decoder_layers < 2:
        return 0, circuit.first_reader(circuit.head_choices(module))
    batch = evaluation_batch(subject.spec, seed)
    with torch.inference_mode():
        record = module(batch.inputs, return_attention=True).attention
    previous = score_heads(subject.task, record, batch, "previous-token")
    task_pattern = score_heads(subject.task, record, batch)
    heads = module.config.num_heads
    later = int(np.argmax(task_pattern[1:].reshape(-1))) + heads
    return int(np.argmax(previous[0])), later


@computation
def induction_previous_token_head(ids: tuple[int, ...]) -> tuple[np.ndarray, str]:
    """The shipped induction model's layer-1 head with the highest previous-token score, on ``ids``."""
    spec = _shipped_induction().spec
    subject = subject_of(spec)
    with torch.inference_mode():
        record = subject.module(torch.tensor([ids]), return_attention=True).attention
    batch = evaluation_batch(spec, 0)
    with torch.inference_mode():
        scores = score_heads(
            subject.task, subject.module(batch.inputs, return_attention=True).attention, batch, "previous-token"
        )
    head = int(np.argmax(scores[0]))
    return record.weights["decoder.layers.0.self_attn"][0, head].numpy(), f"induction model, layer 1 · head {head + 1}"


reference = _shipped_induction()
box = settings("Model and input")
with box:
    loaded = trained_model(
        ("decoder-only", "encoder-decoder", "encoder-only", "vision"),
        "induction",
        help="Trained models only: a random model has no behaviour to break. Train one on the Train "
        "page, upload a checkpoint, or pick a shipped one.",
    )
if loaded.kind == "vision":  # an image model: knock-outs and patching over the held-out digits
    vision_experiment(loaded, SECTIONS)
    st.stop()
if is_translation(loaded):  # a translation model: cross-attention knocked out, its translations and BLEU
    translation_experiment(loaded, SECTIONS)
    st.stop()
spec = loaded.spec
subject = subject_of(spec)
if subject.task is None and loaded.kind == "encoder-decoder":
    st.info(
        f"{loaded.label} was saved without a task, so there is no behaviour to measure it by. Train a model "
        "on the Train page (its task travels with it), or pick a shipped checkpoint or the pretrained model."
    )
    st.stop()
with box:
    INPUT_ROW = st.columns([5, 1]) if not subject.sentences else None
    inputs = read_inputs(subject)
    seed = (
        0
        if subject.sentences
        else int(
            INPUT_ROW[1].number_input(
                "batch seed",
                0,
                9999,
                0,
                key="batch_seed",
                bind="query-params",
                help="Which fresh examples of the task the model is tested on: the same seed gives the same examples in "
                "every session.",
            )
        )
    )


@st.fragment
def experiment(subject: Subject, inputs: Inputs | None, seed: int) -> None:
    """The row of sections and the open one. A change inside (a head toggled, a section opened) reruns this
    part only: the title, the model picker and the inputs are neither rerun nor redrawn."""
    section = section_picker(SECTIONS)
    kind = subject.loaded.kind
    if inputs is None:
        return
    if section in DECODER_ONLY and kind != "decoder-only":
        st.info(
            f"{section} reads a decoder-only model's next-token prediction; {subject.loaded.label} is {kind}. "
            "Pick a decoder-only model (induction, copy, sort or text) for this section."
        )
    elif section == "Circuit" and kind == "encoder-decoder":
        st.info(
            "The circuit view watches self-attention heads of one stack; pick a decoder-only model or the "
            "pretrained one."
        )
    elif section == "Knock out":
        knock_out.render_knock_out(subject, inputs, seed)
    elif section == "Importance":
        importance.render_importance(subject, inputs, seed)
    elif section == "Circuit":
        circuit.render_circuit(subject, inputs, seed, circuit_defaults(subject, seed))
    elif section == "Patching":
        reading.render_patching(subject, inputs)
    elif section == "Logit lens":
        reading.render_logit_lens(subject, inputs)
    elif section == "Attribution":
        attribution.render_attribution(subject, inputs)
    else:
        build_a_head.render_build_a_head(subject, inputs, None if reference is None else induction_previous_token_head)


experiment(subject, inputs, seed)
