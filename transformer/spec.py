"""Which model: a frozen, hashable description that the app resolves to weights and a tokenizer."""

from __future__ import annotations

from dataclasses import dataclass

from .config import TransformerConfig
from .architectures import ARCHITECTURES

SOURCES = ("random", "checkpoint", "pretrained", "folder")


@dataclass(frozen=True)
class ModelSpec:
    """A model by identity, never by weights, so it can key a cache and travel in a URL.

    - random: ``config`` + ``seed`` + ``kind`` (freshly initialised, the same in every session; any
      kind of ``ARCHITECTURES``: "encoder-decoder", "decoder-only", "encoder-only", "vision");
    - checkpoint: ``digest`` (SHA-256 of the file's bytes) and a display ``name``; shipped
      with the app or uploaded or trained in this session;
    - pretrained: ``name`` (e.g. "all-MiniLM-L6-v2");
    - folder: a model the user brings, by its folder's absolute ``path`` (Hugging Face's format)
      and a display ``name``.

    Build one with ``ModelSpec.random``, ``ModelSpec.checkpoint``, ``ModelSpec.pretrained`` or
    ``ModelSpec.folder``.
    """

    source: str
    config: TransformerConfig | None = None
    seed: int = 0
    kind: str = ""
    name: str = ""
    digest: str = ""
    path: str = ""

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"source={self.source!r} is unknown; use one of {SOURCES}.")
        if self.source == "random" and (self.config is None or self.kind not in ARCHITECTURES):
            raise ValueError(f"a random model needs a config and a kind from {sorted(ARCHITECTURES)}.")
        if self.source == "checkpoint" and len(self.digest) != 64:
            raise ValueError("a checkpoint is identified by the SHA-256 of its file (64 hex digits).")
        if self.source == "pretrained" and not self.name:
            raise ValueError("a pretrained model needs its name.")
        if self.source == "folder" and not (self.path and self.name):
            raise ValueError("a model from a folder needs the folder's path and a name.")

    @classmethod
    def random(cls, config: TransformerConfig, seed: int = 0, kind: str = "encoder-decoder") -> "ModelSpec":
        return cls("random", config=config, seed=int(seed), kind=kind)

    @classmethod
    def checkpoint(cls, digest: str, name: str) -> "ModelSpec":
        return cls("checkpoint", name=name, digest=digest)

    @classmethod
    def pretrained(cls, name: str) -> "ModelSpec":
        return cls("pretrained", name=name)

    @classmethod
    def folder(cls, path: str, name: str) -> "ModelSpec":
        return cls("folder", name=name, path=str(path))

    @property
    def label(self) -> str:
        """How the model is named in titles and legends, e.g. "random decoder-only · seed 3"."""
        if self.source == "random":
            return f"random {self.kind} · seed {self.seed}"
        if self.source == "checkpoint":
            return f"{self.name} · {self.digest[:8]}"
        return self.name
