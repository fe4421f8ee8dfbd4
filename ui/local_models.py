"""Models the user brings: folders named in ``ATTENTION_LAB_MODELS`` and the local Hugging Face cache.

``ATTENTION_LAB_MODELS`` is a list of paths joined by ``os.pathsep`` (":" on Linux and macOS,
";" on Windows). Each path is a model folder in Hugging Face's format (``config.json``,
``model.safetensors``, ``tokenizer.json``), or a folder of such folders. The Hugging Face
cache (``HF_HUB_CACHE``, else ``HF_HOME``/hub, else ``~/.cache/huggingface/hub``) is
searched too: each cached model's current snapshot whose ``config.json`` names a supported
model type (bert, distilbert, gpt2, llama, mistral, qwen2, qwen3). Nothing is downloaded.

Each folder is inspected (config, files, the weights file's header, the memory budget; no
weight is read) once per listing; the listing is shared by every session and refreshed
every minute. A folder that cannot be offered is kept with its reason, so the picker can say
why it is missing.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

from . import runtime  # noqa: F401  (torch threads are set before any torch work)
from transformer.hf_configs import SUPPORTED_TYPES
from transformer.hf_folder import FolderModel, folder_name, inspect_folder
from transformer.spec import ModelSpec

from .cache import resource

ENV = "ATTENTION_LAB_MODELS"
MAX_FOLDERS = 64  # a listing stops here: a path list is not a disk search


@dataclass(frozen=True)
class LocalModels:
    """The models found (``FolderModel`` each) and the folders that cannot be offered: (name, reason)."""

    models: tuple[FolderModel, ...] = ()
    problems: tuple[tuple[str, str], ...] = ()

    def spec(self, model: FolderModel) -> ModelSpec:
        return ModelSpec.folder(model.folder, model.name)


def hf_cache_dir(environ=os.environ) -> Path:
    """Where the Hugging Face cache keeps models (the ``huggingface_hub`` rule, without importing it)."""
    if environ.get("HF_HUB_CACHE"):
        return Path(environ["HF_HUB_CACHE"]).expanduser()
    home = Path(environ.get("HF_HOME") or Path(environ.get("XDG_CACHE_HOME") or "~/.cache") / "huggingface")
    return home.expanduser() / "hub"


def _snapshot(repo: Path) -> Path | None:
    """A cached model's current snapshot: the revision ``refs/main`` names, else the newest one."""
    ref = repo / "refs" / "main"
    if ref.is_file():
        snapshot = repo / "snapshots" / ref.read_text(encoding="utf-8").strip()
        if snapshot.is_dir():
            return snapshot
    snapshots = [p for p in (repo / "snapshots").glob("*") if p.is_dir()]
    return max(snapshots, key=lambda p: p.stat().st_mtime, default=None)


def _supported_type(folder: Path) -> bool:
    """True when the folder's config.json names a model type the package reads (other models are not listed)."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(config, dict) and config.get("model_type") in SUPPORTED_TYPES


def cache_folders(cache: Path) -> list[Path]:
    """The snapshots of supported models in a Hugging Face cache folder, by name."""
    snapshots = (_snapshot(repo) for repo in sorted(cache.glob("models--*")) if repo.is_dir())
    return [folder for folder in snapshots if folder is not None and _supported_type(folder)]


def env_folders(value: str) -> tuple[list[Path], list[tuple[str, str]]]:
    """The model folders a path list names (a path, or the subfolders of a path, holding a config.json),
    and the paths that hold none, with why."""
    found, problems = [], []
    for entry in (part.strip() for part in value.split(os.pathsep)):
        if not entry:
            continue
        path = Path(entry).expanduser()
        if (path / "config.json").is_file():
            found.append(path)
        elif path.is_dir():
            inside = sorted(p for p in path.iterdir() if (p / "config.json").is_file())
            found += inside
            if not inside:
                problems.append(
                    (entry, "no config.json in it or in its subfolders: it holds no model in Hugging Face's format.")
                )
        else:
            problems.append((entry, f"there is no folder at {entry} (named in {ENV})."))
    return found, problems


def find_models(env_value: str, cache: Path) -> LocalModels:
    """Every folder from ``env_value`` and ``cache``, inspected: offered models and problems."""
    folders, problems = env_folders(env_value)
    folders += cache_folders(cache) if cache.is_dir() else []
    models, seen = [], set()
    for folder in folders[:MAX_FOLDERS]:
        resolved = folder.resolve()
        if resolved in seen:
            continue
        seen.add(resolved)
        try:
            models.append(inspect_folder(folder))
        except (ValueError, OSError) as error:
            problems.append((folder_name(folder), str(error)))
    names = [model.name for model in models]
    models = [
        replace(model, name=f"{model.name} ({model.folder})") if names.count(model.name) > 1 else model
        for model in models
    ]  # two folders of one name are told apart by their paths
    return LocalModels(tuple(models), tuple(problems))


@resource(max_entries=4, ttl=60)
def _listing(env_value: str, cache: str) -> LocalModels:
    return find_models(env_value, Path(cache))


def local_models() -> LocalModels:
    """The models this server can offer from folders, and the folders it cannot (cached for a minute)."""
    return _listing(os.environ.get(ENV, ""), str(hf_cache_dir()))
