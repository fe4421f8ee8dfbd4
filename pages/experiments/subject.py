"""What an experiment runs on: the picked model, its task (for a task model), its inputs, and cached results.

A task model (a checkpoint trained here, shipped or uploaded) is measured by its loss and accuracy on a
fixed, seeded batch of its own task; an encoder-only model without a task (the pretrained one) by the
cosine similarity of two sentences' embeddings. Results are cached per (model, input, knock-outs) in the
app's computation cache (``ui.cache``), shared by every session and read-only; a sweep, drawn with a
progress bar while it runs, keeps its own small store.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import cachetools
import numpy as np
import streamlit as st
import torch

from analysis.knockout import TaskScore, knockouts, sentence_similarity, task_score
from analysis.resample import resample_batch, resample_ids, resample_record
from transformer import Task, TaskBatch, make_task
from transformer.spec import ModelSpec
from ui.cache import computation, resource
from ui.models import LoadedModel, load_model

BATCH = 64  # examples in the evaluation batch of a task model
KNOCKED = tuple[tuple[str, tuple[int, ...]], ...]  # ((sublayer name, heads from 0), ...), hashable


@dataclass(frozen=True)
class Subject:
    """The picked model and, for a task model, its task; ``sentences`` is True for a model measured by
    sentence similarity (encoder-only without a task)."""

    spec: ModelSpec
    task: Task | None

    @property
    def loaded(self) -> LoadedModel:
        return load_model(self.spec)

    @property
    def module(self) -> torch.nn.Module:
        return self.loaded.module

    @property
    def sentences(self) -> bool:
        """An encoder without a task: measured by two sentences' similarity."""
        return self.task is None and self.loaded.kind == "encoder-only"

    @property
    def text_model(self) -> bool:
        """A decoder without a task (e.g. one brought from a folder): measured on the text typed."""
        return self.task is None and self.loaded.kind == "decoder-only"

    def symbols(self, ids) -> list[str]:
        """How each token id is shown: the task's symbol, or the tokenizer's text for it."""
        if self.task is not None:
            return self.task.symbols(list(ids))
        tokenizer = self.loaded.tokenizer
        return [tokenizer.decode([int(i)]) if hasattr(tokenizer, "decode") else str(int(i)) for i in ids]


@resource(max_entries=16)
def subject_of(spec: ModelSpec) -> Subject:
    """The subject of ``spec``: its task from the checkpoint's metadata, or none (sentence similarity)."""
    metadata = load_model(spec).metadata
    if "task" not in metadata or metadata["task"] == "translation":  # a translation model reads what is typed
        return Subject(spec, None)
    setup = metadata.get("setup") if isinstance(metadata.get("setup"), dict) else {}
    return Subject(spec, make_task(metadata["task"], metadata.get("kind"), text=setup.get("text")))


@resource(max_entries=16)
def evaluation_batch(spec: ModelSpec, seed: int, ids: tuple[int, ...] = ()):
    """A fixed batch of ``BATCH`` examples of the model's task, drawn from ``seed`` (the same in every session);
    for a model without a task, the typed text ``ids``: each position predicts the next token."""
    if ids:
        tokens = torch.tensor([ids])
        return TaskBatch(tokens[:, :-1], None, tokens[:, 1:], torch.ones_like(tokens[:, 1:], dtype=torch.bool), [])
    return subject_of(spec).task.batch(BATCH, torch.Generator().manual_seed(int(seed)), "val")


def as_interventions(knocked: KNOCKED, how: str, source=None) -> tuple:
    return knockouts({name: list(heads) for name, heads in knocked}, how, source)


def resample_source(spec: ModelSpec, batch: TaskBatch, resample_seed: int):
    """The record of the model on other examples of its task, shaped like ``batch`` and drawn with
    ``resample_seed``: where resample ablation takes a head's output from."""
    return resample_record(load_model(spec).module, resample_batch(subject_of(spec).task, batch, resample_seed))


@computation
def scored(
    spec: ModelSpec, seed: int, knocked: KNOCKED, how: str, ids: tuple[int, ...] = (), resample_seed: int = 0
) -> TaskScore:
    """Loss and accuracy on the evaluation batch (see ``evaluation_batch``) with the ``knocked`` heads knocked out
    (``how="resample"``: given their outputs on the examples drawn with ``resample_seed``)."""
    batch = evaluation_batch(spec, seed, ids)
    source = resample_source(spec, batch, resample_seed) if how == "resample" and knocked else None
    with torch.inference_mode():
        return task_score(load_model(spec).module, batch, as_interventions(knocked, how, source))


@computation
def predictions(
    spec: ModelSpec, ids: tuple[int, ...], knocked: KNOCKED, how: str, resample_seed: int = 0
) -> np.ndarray:
    """The next-token prediction ``[L]`` at each position of one input, with the ``knocked`` heads knocked out
    (``how="resample"``: given their outputs on an example of the task laid out like ``ids``, drawn with
    ``resample_seed``; a ValueError when the task makes none)."""
    module = load_model(spec).module
    source = None
    if how == "resample" and knocked:
        other = resample_ids(subject_of(spec).task, ids, resample_seed)
        with torch.inference_mode():
            source = module(torch.tensor([other]), return_internals=True).attention
    with torch.inference_mode():
        logits = module(torch.tensor([ids]), interventions=as_interventions(knocked, how, source)).logits
    return logits[0].argmax(-1).numpy()


@computation
def similarity(spec: ModelSpec, first: tuple[int, ...], second: tuple[int, ...], knocked: KNOCKED, how: str):
    """Two sentences' cosine similarity and hidden states with the ``knocked`` heads knocked out."""
    with torch.inference_mode():
        return sentence_similarity(load_model(spec).module, list(first), list(second), as_interventions(knocked, how))


@st.cache_resource(show_spinner=False)
def _sweeps() -> tuple[cachetools.LRUCache, threading.Lock]:
    return cachetools.LRUCache(maxsize=32), threading.Lock()


def cached_sweep(key: tuple, compute, label: str) -> np.ndarray:
    """``compute(progress)`` once per ``key`` for every session, with a progress bar while it runs."""
    store, lock = _sweeps()
    with lock:
        if key in store:
            return store[key]
    bar = st.progress(0.0, text=label)
    result = compute(lambda done, total: bar.progress(done / total, text=f"{label}: head {done} of {total}"))
    bar.empty()
    result.flags.writeable = False
    with lock:
        store[key] = result
    return result


def default_input(task: Task, seed: int = 0) -> str:
    """The task's natural input as text: for induction a random block of 8 letters after 3 others,
    repeated to fill the context; for copy, reverse and sort a word of distinct letters; for text, the
    probe passage."""
    if task.name == "induction":
        letters = torch.randperm(26, generator=torch.Generator().manual_seed(seed)).tolist()
        alphabet = task.tokenizer.vocabulary
        prefix, block = [alphabet[i] for i in letters[:3]], [alphabet[i] for i in letters[3:11]]
        return "".join((prefix + block * 4)[: task.context])
    if task.name == "text":
        return "".join(task.probe().tokens[0]).replace("▁", " ")
    return "algorithm"


def corrupted_input(task: Task, text: str) -> str:
    """The clean input with one letter changed, for patching: for induction the first letter of the
    repeated block (where it first appears) becomes a letter the text does not use; otherwise the
    first letter."""
    letters = list(text)
    unused = next((c for c in task.tokenizer.vocabulary if c not in text and c.isalpha()), None)
    if not letters or unused is None:
        return text
    index = 0
    if task.name == "induction":
        seen = {}
        for i, c in enumerate(letters):
            if c in seen:
                index = seen[c]
                break
            seen[c] = i
    letters[index] = unused
    return "".join(letters)
