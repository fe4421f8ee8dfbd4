"""Models by spec: resolved once per process to weights plus their tokenizer, shared read-only.

Models are resources of the caching policy (``ui.cache.resource``), keyed by their spec: random
models by (config, seed, kind), checkpoints by the SHA-256 of their file, the pretrained model by
name, a model from a folder by the folder. Each kind is bounded; the pretrained model and one model
from a folder are held once for all sessions. Shared models are read-only: callers run them under
``torch.inference_mode()`` and never call ``.train()`` or store anything on them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st
from . import runtime  # noqa: F401  (torch threads are set before any torch work)
import torch

from transformer import TransformerConfig, build_model, hash_tokenizer
from transformer.spec import ModelSpec

from .cache import resource

CHECKPOINT_DIR = Path(__file__).resolve().parent.parent / "checkpoints"
UPLOADS = "uploaded_checkpoints"  # session_state: digest -> (file name, bytes)


@dataclass(frozen=True)
class LoadedModel:
    """A resolved spec: the module (eval mode, no gradients), its tokenizer and what is known about it."""

    spec: ModelSpec
    module: torch.nn.Module = field(compare=False)
    tokenizer: object = field(compare=False)
    metadata: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def kind(self) -> str:
        return self.module.kind

    @property
    def config(self) -> TransformerConfig:
        return self.module.config

    @property
    def label(self) -> str:
        return self.spec.label


def _read_only(module: torch.nn.Module) -> torch.nn.Module:
    for parameter in module.parameters():
        parameter.requires_grad_(False)
    return module.eval()


@resource(max_entries=12)
def _random(spec: ModelSpec) -> LoadedModel:
    module = _read_only(build_model(spec.config, spec.seed, spec.kind))
    return LoadedModel(spec, module, hash_tokenizer(spec.config, spec.kind))


@resource(max_entries=8)
def _checkpoint(spec: ModelSpec, _read: Callable[[], bytes]) -> LoadedModel:
    """Keyed by the spec (the file's SHA-256): the bytes are read only when the model is not cached yet."""
    from transformer import load_checkpoint

    module, metadata = load_checkpoint(_read())
    return LoadedModel(spec, _read_only(module), metadata["tokenizer"], metadata)


@resource(max_entries=1, spinner="Loading the pretrained model (once for everyone)...")
def _pretrained(spec: ModelSpec) -> LoadedModel:
    from transformer import load_pretrained

    module, tokenizer = load_pretrained(spec.name)
    return LoadedModel(spec, _read_only(module), tokenizer, {"kind": "encoder-only"})


@resource(max_entries=1, spinner="Loading the model from its folder (once for everyone)...")
def _folder(spec: ModelSpec) -> LoadedModel:
    """A model the user brings, from its folder; one at a time is held (a GPT-2 small takes 0.5 GB)."""
    from transformer import load_pretrained

    module, tokenizer = load_pretrained(spec.path)
    return LoadedModel(spec, _read_only(module), tokenizer, {"kind": module.kind, "folder": spec.path})


@dataclass(frozen=True)
class CheckpointEntry:
    """A checkpoint the picker can offer: its spec, architecture and metadata (task, steps, metrics)."""

    spec: ModelSpec
    kind: str
    metadata: dict = field(compare=False, hash=False)


@resource(max_entries=1)
def shipped_checkpoints() -> dict[str, tuple[Path, CheckpointEntry]]:
    """The checkpoints shipped in checkpoints/, by SHA-256 (read once per process)."""
    from transformer import checkpoint_info

    found = {}
    for path in sorted(CHECKPOINT_DIR.glob("*.safetensors")):
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        info = checkpoint_info(data)
        found[digest] = (path, CheckpointEntry(ModelSpec.checkpoint(digest, path.stem), info["kind"], info))
    return found


def uploaded_checkpoints() -> dict[str, tuple[bytes, CheckpointEntry]]:
    """This session's uploaded (or trained) checkpoints, by SHA-256."""
    return st.session_state.setdefault(UPLOADS, {})


def add_checkpoint(name: str, data: bytes) -> CheckpointEntry:
    """Validate a checkpoint file and keep it for this session; ValueError (a readable message) if it is bad."""
    from transformer import checkpoint_info, load_checkpoint

    info = checkpoint_info(data)
    load_checkpoint(data)  # every tensor checked now, so a bad file never reaches a page
    digest = hashlib.sha256(data).hexdigest()
    entry = CheckpointEntry(ModelSpec.checkpoint(digest, Path(name).stem), info["kind"], info)
    uploaded_checkpoints()[digest] = (data, entry)
    return entry


def checkpoint_bytes(digest: str) -> bytes | None:
    """A checkpoint file's bytes by its SHA-256: one of this session's, or one shipped in checkpoints/."""
    if digest in uploaded_checkpoints():
        return uploaded_checkpoints()[digest][0]
    shipped = shipped_checkpoints().get(digest)
    return shipped[0].read_bytes() if shipped else None


def load_model(spec: ModelSpec) -> LoadedModel:
    """The model a spec names, built or loaded once per process (ValueError if a checkpoint is gone)."""
    if spec.source == "random":
        return _random(spec)
    if spec.source == "pretrained":
        return _pretrained(spec)
    if spec.source == "folder":
        return _folder(spec)
    if spec.digest not in uploaded_checkpoints() and spec.digest not in shipped_checkpoints():
        raise ValueError(
            f"The checkpoint {spec.label} is not on this server (an upload lasts one session); upload the file again."
        )
    return _checkpoint(spec, lambda: checkpoint_bytes(spec.digest))
