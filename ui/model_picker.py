"""One model picker for every page that runs a model, bound to the URL.

It offers a random model (the page's own settings define it) and every other model
that fits the page: shipped checkpoints, checkpoints uploaded or trained in this
session, the pretrained model, and models brought from local folders (``ui.local_models``),
each only where its architecture fits. A folder that cannot be offered is named beside
the picker with its reason.
"""

from __future__ import annotations

import streamlit as st

from . import runtime  # noqa: F401  (torch threads are set before any torch work)
from transformer import PRETRAINED_MODELS
from transformer.spec import ModelSpec

from .cache import resource
from .local_models import local_models
from .models import LoadedModel, add_checkpoint, load_model, shipped_checkpoints, uploaded_checkpoints
from lessons.model_labels import RANDOM
from .page_url import kept_on_reset
from .markdown_text import as_typed

# The package's registered pretrained models, each loaded as a BERT-style encoder (EncoderOnly)
PRETRAINED = {name: "encoder-only" for name in PRETRAINED_MODELS}
KIND_NAMES = {
    "encoder-decoder": "encoder-decoder",
    "decoder-only": "decoder-only (GPT-style)",
    "encoder-only": "encoder-only (BERT-style)",
    "vision": "Vision Transformer",
}


@resource()
def pretrained_available(name: str) -> bool:
    """True when the package that ships this model's files is installed (looked up once per process)."""
    import importlib.util

    return name in PRETRAINED and importlib.util.find_spec(PRETRAINED_MODELS[name][0]) is not None


def trained_on_text() -> str:
    """How an explanation names a model trained on text that the picker offers: all-MiniLM-L6-v2 where its package
    is installed, else the shipped checkpoint trained on a text (always there)."""
    return "all-MiniLM-L6-v2" if pretrained_available("all-MiniLM-L6-v2") else 'the shipped "text" checkpoint'


def pretrained_label(name: str) -> str:
    """How the picker (and so a link) names a registered pretrained model: its name and its architecture."""
    return f"{name} (pretrained, {KIND_NAMES[PRETRAINED[name]]})"


def picker_label(entry) -> str:
    """How the picker (and so a link) names a checkpoint: its label and its architecture."""
    return f"{entry.spec.label} ({KIND_NAMES[entry.kind]})"


def folder_label(model) -> str:
    """How the picker (and so a link) names a model from a folder: its name, size and architecture."""
    return f"{model.name} ({model.size}, {KIND_NAMES[model.kind]})"


def shipped_entry(name: str):
    """The shipped checkpoint ``checkpoints/<name>.safetensors`` (KeyError if none)."""
    for path, entry in shipped_checkpoints().values():
        if path.stem == name:
            return entry
    raise KeyError(f"no shipped checkpoint named {name!r}")


def shipped_label(name: str) -> str:
    """The picker's label of the shipped checkpoint ``checkpoints/<name>.safetensors`` (KeyError if none)."""
    return picker_label(shipped_entry(name))


def offered_models(fits: tuple[str, ...]) -> dict[str, ModelSpec]:
    """Picker label -> spec for every non-random model whose architecture is in ``fits``."""
    offered: dict[str, ModelSpec] = {}
    entries = [entry for _, entry in shipped_checkpoints().values()]
    entries += [entry for _, entry in uploaded_checkpoints().values()]
    for entry in entries:
        if entry.kind in fits:
            offered[picker_label(entry)] = entry.spec
    for name, kind in PRETRAINED.items():
        if kind in fits and pretrained_available(name):
            offered[pretrained_label(name)] = ModelSpec.pretrained(name)
    brought = local_models()
    for model in brought.models:
        if model.kind in fits:
            offered[folder_label(model)] = brought.spec(model)
    return offered


def _folder_problems() -> None:
    """Name the model folders that cannot be offered, each with its reason (nothing when all load)."""
    problems = local_models().problems
    if problems:
        st.warning(
            "Model folders not offered:\n"
            + "\n".join(f"- **{as_typed(name)}**: {as_typed(reason)}" for name, reason in problems)
        )


def _upload(key: str, fits: tuple[str, ...]) -> None:
    """Read an uploaded file, validate it and select it if it fits the page; otherwise leave a message
    that says what is wrong (shown while the uploader holds that file, see ``_upload_message``)."""
    upload = st.session_state.get(f"{key}_upload")
    if upload is None:
        st.session_state.pop(f"{key}_message", None)
        return
    try:
        entry = add_checkpoint(upload.name, upload.getvalue())
    except ValueError as error:
        message = (
            "error",
            f"{upload.name} is not a checkpoint saved by this app, so it was not loaded. What is wrong: {error}",
        )
    else:
        if entry.kind not in fits:
            message = (
                "warning",
                f"{upload.name} holds a {KIND_NAMES[entry.kind]} model, which this page cannot "
                f"show; the pages for {entry.kind} models now offer it.",
            )
        else:
            message = ("success", f"{upload.name} is checked and selected.")
            st.session_state[f"{key}_select_next"] = entry.spec
    st.session_state[f"{key}_message"] = (upload.file_id, *message)


def _upload_message(key: str) -> tuple[str, str] | None:
    """The message about the file the uploader holds now, as (kind, text): it lasts as long as the file
    stays in the uploader, so a later run of the page (another control, say) keeps it on screen."""
    stored = st.session_state.get(f"{key}_message")
    upload = st.session_state.get(f"{key}_upload")
    if stored is None or upload is None or upload.file_id != stored[0]:
        st.session_state.pop(f"{key}_message", None)
        return None
    return stored[1], stored[2]


def _linked_model_unavailable(key: str, options: list[str], fallback: str) -> None:
    """A link (or another page) asked for a model this page does not offer: say so, and drop it from the URL."""
    wanted = st.query_params.get(key)
    if wanted and wanted not in options:
        st.query_params.pop(key, None)
        st.session_state.pop(key, None)
        st.warning(
            f"The model “{wanted}” is not available on this page (an uploaded model lasts one session, "
            f"and each page offers only the architectures it can show): showing “{fallback}”. "
            f"Upload the file again, or pick another model."
        )


def model_choice(
    fits: tuple[str, ...], key: str = "model", help: str | None = None, random: bool = True, default: str | None = None
) -> ModelSpec | None:
    """The picker row: a selectbox of models and an upload button. None means "random" (the page
    then reads its own settings). Checkpoints of architectures not in ``fits`` are not offered.
    ``random=False`` leaves the random model out (a page about trained models); ``default`` is the
    label picked when the URL names none (e.g. ``shipped_label("induction")``)."""
    offered = offered_models(fits)
    options = [RANDOM, *offered] if random else list(offered)
    chosen = st.session_state.pop(f"{key}_select_next", None)
    if chosen is not None:
        st.session_state[key] = next((label for label, spec in offered.items() if spec == chosen), options[0])
    fallback = default if default in options else options[0]
    _linked_model_unavailable(key, options, fallback)
    pick, upload = st.columns([4, 1], vertical_alignment="bottom")
    label = pick.selectbox(
        "model",
        options,
        key=key,
        bind="query-params",
        index=options.index(fallback),
        help=help
        or "A random model shows the mechanics with seeded weights; a trained or "
        "pretrained model shows what attention learns.",
    )
    message = _upload_message(key)
    with upload.popover("Upload a checkpoint", width="stretch"):
        st.file_uploader(
            "A checkpoint file (.safetensors) saved by this app",
            type=["safetensors"],
            key=kept_on_reset(f"{key}_upload"),  # the model stays when the page is reset
            on_change=_upload,
            args=(key, fits),
        )
        st.caption(
            "Checked before use; nothing in the file is executed. It stays for this session. Models in "
            "Hugging Face's format (BERT, DistilBERT, GPT-2, Llama, Mistral, Qwen) come from the folders named in "
            "ATTENTION_LAB_MODELS on the server."
        )
        if message:
            getattr(st, message[0])(message[1])
    if message and message[0] != "success":
        getattr(st, message[0])(message[1])
    _folder_problems()
    return None if label == RANDOM else offered.get(label)


def load_or_stop(spec: ModelSpec) -> LoadedModel:
    """The model a spec names; if it cannot be had (a checkpoint gone from the server), say why and stop the page."""
    try:
        return load_model(spec)
    except ValueError as error:
        st.error(str(error))
        st.stop()


def trained_model(fits: tuple[str, ...], shipped_default: str, help: str) -> LoadedModel:
    """The picker without the random model (a page about what training made), defaulting to the shipped
    checkpoint ``shipped_default`` where the server has it; with no trained model at all, say how to get
    one and stop the page."""
    try:
        default = shipped_label(shipped_default)
    except KeyError:
        default = None
    spec = model_choice(fits, random=False, default=default, help=help)
    if spec is None:
        st.info(
            "No trained model that fits this page is on this server yet: train one on the Train page "
            "(it then appears here), or upload a checkpoint."
        )
        st.stop()
    return load_or_stop(spec)
