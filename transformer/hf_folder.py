"""A local folder in Hugging Face's format, read into the package's own model and tokenizer.

The folder holds ``config.json``, ``model.safetensors`` (or shards listed in
``model.safetensors.index.json``) and ``tokenizer.json`` (as ``save_pretrained`` writes them, or
as the Hugging Face cache keeps a snapshot) of a BERT (any size, with or without token types),
a DistilBERT, a GPT-2 or a decoder of the Llama family (Llama, SmolLM, Mistral, Qwen2, Qwen3).
It becomes an ``EncoderOnly`` (BERT, DistilBERT) or a ``DecoderOnly`` (the others) and its
tokenizer (``WordPieceTokenizer`` or ``BPETokenizer``), read by ``safetensors`` and
``tokenizers`` alone: nothing is downloaded, nothing is unpickled, nothing in the
folder is run.

Everything is checked before a weight is read: the config (an option the package cannot
express is refused), the files, the memory the float32 weights need (at most
``MAX_MODEL_BYTES``), and every name and shape in the weights file's header against the
model built on the ``meta`` device (which allocates nothing). Any problem is a
ValueError that says what is wrong and what is supported.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors import SafetensorError, safe_open
from torch import nn

from .bpe import BPETokenizer
from .config import TransformerConfig
from .hf_configs import CONFIGS, LLAMA_FAMILY, SUPPORTED_TYPES
from .model import DecoderOnly, EncoderOnly
from .weight_maps import BERT, DISTILBERT, GPT2, GPT2_UNTIED, WeightMap, llama, renamed
from .wordpiece import MIN_TOKENS, WordPieceTokenizer

# float32 weights of one model: SmolLM2-135M (538 MB), GPT-2 small (475 MB) and BERT-base (418 MB) fit
MAX_MODEL_BYTES = 640 * 2**20
WEIGHTS, CONFIG, TOKENIZER = "model.safetensors", "config.json", "tokenizer.json"
INDEX = f"{WEIGHTS}.index.json"
SUPPORTED = (
    "BERT (any size, with or without token types), DistilBERT, GPT-2, Llama (and SmolLM), Mistral, Qwen2 "
    "and Qwen3 models in Hugging Face's format: a folder with config.json, model.safetensors (or its "
    "shards and model.safetensors.index.json) and tokenizer.json"
)
_PICKLES = ("pytorch_model.bin", "tf_model.h5", "flax_model.msgpack", "model.ckpt.index")
_MAX_JSON_BYTES = {CONFIG: 2**20, TOKENIZER: 64 * 2**20, INDEX: 16 * 2**20}
_MAX_HEADER_BYTES = 16 * 2**20
_FLOATS = ("F64", "F32", "F16", "BF16")
# model_type -> (name shown, model class, its weight map given our config, tokenizer class)
_ARCHITECTURES = {
    "bert": ("BERT", EncoderOnly, lambda config: BERT, WordPieceTokenizer),
    "distilbert": ("DistilBERT", EncoderOnly, lambda config: DISTILBERT, WordPieceTokenizer),
    "gpt2": (
        "GPT-2",
        DecoderOnly,
        lambda config: GPT2 if config.output_head == "tied" else GPT2_UNTIED,
        BPETokenizer,
    ),
    **{
        model_type: (
            name,
            DecoderOnly,
            lambda config: llama(config.d_head, config.output_head == "tied", config.qk_norm),
            BPETokenizer,
        )
        for model_type, name in zip(LLAMA_FAMILY, ("Llama", "Mistral", "Qwen2", "Qwen3"))
    },
}


def _mb(size: int) -> str:
    return f"{size / 2**20:,.0f} MB"


@dataclass(frozen=True)
class FolderModel:
    """A model folder as its config and its weights file's header describe it (no weight read yet):
    its ``folder`` (absolute), a display ``name``, ``model_type`` and our ``config``; ``parameters``
    counts the model's (a tied output matrix once)."""

    folder: str
    name: str
    model_type: str
    config: TransformerConfig
    parameters: int

    @property
    def architecture(self) -> str:
        return _ARCHITECTURES[self.model_type][0]

    @property
    def kind(self) -> str:
        return _ARCHITECTURES[self.model_type][1].kind

    @property
    def bytes(self) -> int:
        """Memory of the float32 weights."""
        return 4 * self.parameters

    @property
    def size(self) -> str:
        """E.g. "GPT-2 · 124.4 M parameters" ("BERT · 24,576 parameters" under a million)."""
        count = f"{self.parameters / 1e6:.1f} M" if self.parameters >= 10**6 else f"{self.parameters:,}"
        return f"{self.architecture} · {count} parameters"


def folder_name(folder: str | Path) -> str:
    """How a folder is named: ``org/name`` for a Hugging Face cache snapshot
    (``.../models--org--name/snapshots/<revision>``), else the folder's own name."""
    path = Path(folder).resolve()
    if path.parent.name == "snapshots" and path.parent.parent.name.startswith("models--"):
        return path.parent.parent.name.removeprefix("models--").replace("--", "/")
    return path.name


def _read_text(path: Path, what: str) -> str:
    if path.stat().st_size > _MAX_JSON_BYTES[what]:
        raise ValueError(f"{what} is larger than {_mb(_MAX_JSON_BYTES[what])}; it is not a model's {what}.")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{what} is not UTF-8 text ({error}).") from None


def _read_json(path: Path, what: str) -> object:
    try:
        return json.loads(_read_text(path, what))
    except json.JSONDecodeError as error:
        raise ValueError(f"{what} is not valid JSON ({error}).") from None


def _tokenizer(info: "FolderModel", max_tokens: int) -> WordPieceTokenizer:
    """The folder's tokenizer, cut at ``max_tokens`` (kept within 8 and the model's positions); its ids
    must fit the model's embedding."""
    positions = max(MIN_TOKENS, info.config.max_len)
    tokenizer_class = _ARCHITECTURES[info.model_type][3]
    tokenizer = tokenizer_class(
        _read_text(Path(info.folder) / TOKENIZER, TOKENIZER),
        info.name,
        max(MIN_TOKENS, min(max_tokens, positions)),
        positions,
    )
    vocab = info.config.src_vocab_size if info.kind == "encoder-only" else info.config.tgt_vocab_size
    if tokenizer.vocab_size > vocab:
        raise ValueError(
            f"{TOKENIZER} has {tokenizer.vocab_size} ids but the model's embedding only {vocab}; "
            f"they are not one model's files."
        )
    return tokenizer


def weight_files(path: Path) -> list[Path]:
    """The folder's safetensors files: ``model.safetensors``, or the shards its index names (each a file
    name in the folder itself). ValueError when they are missing, or are only pickles."""
    if (path / WEIGHTS).is_file():
        return [path / WEIGHTS]
    if (path / INDEX).is_file():
        index = _read_json(path / INDEX, INDEX)
        names = index.get("weight_map") if isinstance(index, dict) else None
        if not isinstance(names, dict) or not names:
            raise ValueError(f"{INDEX} has no weight_map naming the shards.")
        shards = sorted(set(names.values()))
        odd = [n for n in shards if not isinstance(n, str) or Path(n).name != n or not n.endswith(".safetensors")]
        if odd:
            raise ValueError(f"{INDEX} names {odd[:3]}: shards must be .safetensors files in the folder itself.")
        missing = [n for n in shards if not (path / n).is_file()]
        if missing:
            raise ValueError(f"{INDEX} names shards that are not in the folder: {missing[:3]}.")
        return [path / n for n in shards]
    _check_files(path)
    return []


def _check_files(path: Path) -> None:
    """ValueError when the weights or the tokenizer are missing, or the weights are only pickles."""
    if not (path / WEIGHTS).is_file() and not (path / INDEX).is_file():
        pickles = [name for name in _PICKLES if (path / name).is_file()]
        if pickles:
            raise ValueError(
                f"the folder holds only {', '.join(pickles)}, not {WEIGHTS}: pickle files can run code "
                f"when loaded, so they are never opened here. Save the model with "
                f"save_pretrained(folder, safe_serialization=True) to write {WEIGHTS}."
            )
        raise ValueError(f"the folder has no {WEIGHTS}; {SUPPORTED} is supported.")
    if not (path / TOKENIZER).is_file():
        raise ValueError(
            f"the folder has no {TOKENIZER} (the fast tokenizer's file; vocab.txt or merges.txt "
            f"alone are not read). Save it with tokenizer.save_pretrained(folder)."
        )


def _header(path: Path) -> dict[str, tuple[str, tuple[int, ...]]]:
    """Tensor name -> (dtype, shape) from a safetensors file's header, checked before safetensors reads it."""
    size = path.stat().st_size
    with open(path, "rb") as file:
        start = file.read(8)
    if start.startswith(b"\x80") or start.startswith(b"PK\x03\x04"):
        raise ValueError(f"{path.name} is a pickle (or a zip of pickles), which is never opened here.")
    length = struct.unpack("<Q", start)[0] if len(start) == 8 else size
    if length > min(_MAX_HEADER_BYTES, size - 8):
        raise ValueError(f"{path.name} is not a safetensors file (or is truncated): its header length is wrong.")
    try:
        with safe_open(path, "pt") as weights:
            return {
                name: (weights.get_slice(name).get_dtype(), tuple(weights.get_slice(name).get_shape()))
                for name in weights.keys()
            }
    except SafetensorError as error:
        raise ValueError(f"{path.name} is not a valid safetensors file ({error}).") from None


def _headers(paths: list[Path]) -> dict[str, tuple[str, tuple[int, ...]]]:
    """Every shard's header in one; a tensor in two shards is a ValueError."""
    merged: dict[str, tuple[str, tuple[int, ...]]] = {}
    for path in paths:
        header = _header(path)
        twice = sorted(set(header) & set(merged))
        if twice:
            raise ValueError(f"tensors {twice[:3]} are in more than one shard.")
        merged.update(header)
    return merged


def _meta_model(model_class: type[nn.Module], config: TransformerConfig) -> nn.Module:
    with torch.device("meta"):
        return model_class(config)


def _check_weights(header: dict, weight_map: WeightMap, model: nn.Module) -> None:
    """Every tensor the model needs is in the header, in a float dtype and of the shape the config asks for."""
    odd = sorted(
        name
        for name, (dtype, _) in header.items()
        if dtype not in _FLOATS and weight_map.targets(weight_map.bare(name)) != []
    )
    if odd:
        raise ValueError(f"tensors {odd[:3]} are not floating point; the weights must be float32, float16 or bfloat16.")
    shapes = {name: torch.empty(shape, device="meta") for name, (_, shape) in header.items()}
    check_fits(renamed(shapes, weight_map), model.state_dict(), "config.json")


def check_fits(state: dict[str, torch.Tensor], expected: dict[str, torch.Tensor], source: str = "the model") -> None:
    """ValueError naming any tensor the model lacks, has beyond ``state``, or whose shape differs."""
    missing, unexpected = sorted(set(expected) - set(state)), sorted(set(state) - set(expected))
    if missing or unexpected:
        raise ValueError(f"the weights do not fit the model: missing {missing}, unexpected {unexpected}.")
    for name, tensor in state.items():
        if tuple(tensor.shape) != tuple(expected[name].shape):
            raise ValueError(
                f"the weights do not match {source}: tensor for {name!r} has shape "
                f"{tuple(tensor.shape)}, the model needs {tuple(expected[name].shape)}."
            )


def inspect_folder(folder: str | Path, max_bytes: int = MAX_MODEL_BYTES, name: str | None = None) -> FolderModel:
    """What a model folder holds, every file and shape checked, no weight read (ValueError if unusable)."""
    path = Path(folder).expanduser()
    if not path.is_dir():
        raise ValueError(f"there is no folder at {str(folder)!r}; {SUPPORTED} is supported.")
    if not (path / CONFIG).is_file():
        raise ValueError(f"the folder has no {CONFIG}; {SUPPORTED} is supported.")
    hf_config = _read_json(path / CONFIG, CONFIG)
    model_type = hf_config.get("model_type") if isinstance(hf_config, dict) else None
    if model_type not in SUPPORTED_TYPES:
        raise ValueError(
            f"model_type {model_type!r} is not supported; {SUPPORTED} (model_type {', '.join(SUPPORTED_TYPES)}) is."
        )
    config = CONFIGS[model_type](hf_config)
    _check_files(path)
    files = weight_files(path)
    _, model_class, weight_map, _ = _ARCHITECTURES[model_type]
    model = _meta_model(model_class, config)
    parameters = sum(p.numel() for p in model.parameters())
    if 4 * parameters > max_bytes:
        raise ValueError(
            f"the model has {parameters / 1e6:,.0f} M parameters, {_mb(4 * parameters)} as float32: "
            f"more than the {_mb(max_bytes)} one model may take here (about "
            f"{max_bytes / 4e6:,.0f} M parameters, e.g. SmolLM2-135M, GPT-2 small or BERT-base)."
        )
    _check_weights(_headers(files), weight_map(config), model)
    info = FolderModel(str(path.resolve()), name or folder_name(path), model_type, config, parameters)
    _tokenizer(info, MIN_TOKENS)
    return info


def _tensors(paths: list[Path], weight_map: WeightMap) -> dict[str, torch.Tensor]:
    """The tensors the model uses (skipped ones are not read), float32, under our names.

    All of them are views of one block of memory, filled one tensor at a time: no file is kept
    mapped, at most one tensor is held twice while loading, and the model's weights are one
    allocation, given back to the system at once when the model is dropped."""
    header = _headers(paths)
    used = {key for key in header if weight_map.targets(weight_map.bare(key)) != []}
    shapes = renamed({key: torch.empty(header[key][1], device="meta") for key in used}, weight_map)
    block = torch.empty(sum(shape.numel() for shape in shapes.values()), dtype=torch.float32)
    ours, offset = {}, 0
    for path in paths:
        with safe_open(path, "pt", device="cpu") as weights:
            for key in (key for key in weights.keys() if key in used):
                for name, view in renamed({key: weights.get_tensor(key)}, weight_map).items():
                    tensor = block[offset : offset + view.numel()].view(view.shape).copy_(view)
                    offset += view.numel()
                    if not torch.isfinite(tensor).all():
                        raise ValueError(f"the weights for {name!r} hold NaN or infinite values.")
                    ours[name] = tensor
    return ours


def load_folder(
    folder: str | Path, max_tokens: int = 128, max_bytes: int = MAX_MODEL_BYTES, name: str | None = None
) -> tuple[nn.Module, WordPieceTokenizer]:
    """The folder's model (eval mode, no gradients) and its tokenizer, cut at ``max_tokens``
    (at most the model's positions). ValueError, saying what is supported, if the folder cannot be read."""
    info = inspect_folder(folder, max_bytes, name)
    _, model_class, weight_map, _ = _ARCHITECTURES[info.model_type]
    model = _meta_model(model_class, info.config)
    model.load_state_dict(_tensors(weight_files(Path(info.folder)), weight_map(info.config)), strict=True, assign=True)
    left = [n for n, t in [*model.named_parameters(), *model.named_buffers()] if t.is_meta]
    if left:
        raise ValueError(f"{left[:3]} were not filled by the weights file.")
    return model.eval().requires_grad_(False), _tokenizer(info, max_tokens)
