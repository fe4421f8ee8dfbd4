"""What the Generate page runs: the picked model, its prompt as token ids, and cached generations.

A task model (shipped, trained here or uploaded) reads its task's alphabet; a model brought from a
folder reads its own tokenizer. Generations are deterministic for a seed, so one run of the whole
budget serves every step shown, in every session (cached, read-only).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st

from transformer import EOS_ID, Generation, Task, generate, make_task
from transformer.spec import ModelSpec
from ui.cache import resource
from ui.models import LoadedModel, load_model
from ui.text import tokenize_text


@dataclass(frozen=True)
class Writer:
    """The picked model, its task (None for a model brought from a folder) and its end token."""

    spec: ModelSpec
    task: Task | None
    eos_id: int

    @property
    def loaded(self) -> LoadedModel:
        return load_model(self.spec)

    def names(self, ids) -> list[str]:
        """How each token id is shown: the task's symbol, or the tokenizer's text for it."""
        if self.task is not None:
            return self.task.symbols(list(ids))
        tokenizer = self.loaded.tokenizer
        if hasattr(tokenizer, "id_to_piece"):  # subword pieces as the vocabulary spells them ("▁" = a space)
            return [tokenizer.id_to_piece(int(i)) for i in ids]
        return [tokenizer.decode([int(i)]) if hasattr(tokenizer, "decode") else str(int(i)) for i in ids]


class Vocabulary(Sequence):
    """Every token's shown text, looked up only when read (a brought model may have 50,000 tokens)."""

    def __init__(self, writer: Writer, size: int):
        self.writer, self.size = writer, size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.size))]
        return self.writer.names([index])[0]


@resource(max_entries=16)
def writer_of(spec: ModelSpec) -> Writer:
    metadata = load_model(spec).metadata
    if metadata.get("task") == "translation":  # its own tokenizer reads the source; it ends with </s>
        return Writer(spec, None, EOS_ID)
    if "task" not in metadata:
        return Writer(spec, None, -1)
    setup = metadata.get("setup") if isinstance(metadata.get("setup"), dict) else {}
    return Writer(spec, make_task(metadata["task"], metadata.get("kind"), text=setup.get("text")), EOS_ID)


def prompt_ids(writer: Writer, text: str) -> tuple[int, ...] | None:
    """The prompt's ids (empty: the model starts from its start token), or None after a message saying
    what to change."""
    task = writer.task
    if task is None:
        typed = tokenize_text(text, 64, tokenizer=writer.loaded.tokenizer)
        if typed is None:
            st.info("Type a prompt for the model to continue.")
        return None if typed is None else typed.ids
    if not text.strip() and writer.loaded.kind == "decoder-only":
        return ()
    ids = task.encode_user_input(text)
    if ids is None:
        what = "letters a-z, at most 10" if task.name != "text" else "the characters of its text, at most 64"
        if task.name == "induction":
            what = "letters a-z, at most 32"
        st.error(f"The {task.name} model reads only {what}; change the prompt.")
    return None if ids is None else tuple(ids)


@resource(max_entries=64, spinner="Generating…")
def generation(
    spec: ModelSpec,
    ids: tuple[int, ...],
    max_new: int,
    strategy: str,
    temperature: float,
    top_k: int | None,
    top_p: float | None,
    beams: int,
    seed: int,
    eos_id: int,
    length_penalty: float = 1.0,
    penalty: str = "power",
) -> Generation:
    """The whole budget generated once per setting (shared, read-only); ``penalty`` is the beam's length penalty
    (``transformer.PENALTIES``)."""
    return generate(
        load_model(spec).module,
        list(ids),
        max_new,
        strategy,
        temperature,
        top_k,
        top_p,
        beams,
        seed,
        length_penalty=length_penalty,
        eos_id=eos_id,
        penalty=penalty,
    )


STOPS = {
    "end token": "it wrote the end token",
    "max_new_tokens": "the budget of new tokens is used up",
    "max_len": "the next step would read more tokens than the model's max_len",
}
