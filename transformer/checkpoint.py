"""Checkpoints: one safetensors file with a model's weights and all that is needed to rebuild it.

Never pickle: the weights are raw float32 arrays and everything else is JSON, so loading a
file can run no code. The file is ``8-byte little-endian header length N | N bytes of JSON
header | tensor data``. The header's ``__metadata__`` (a str -> str map) holds:

    format     "attention-lab-checkpoint" (marks our files)
    version    "1"
    kind       "encoder-decoder", "decoder-only" or "encoder-only" (a key of ARCHITECTURES)
    config     JSON of TransformerConfig.to_dict()
    tokenizer  JSON of the tokenizer's to_dict() (rebuilt by tokenizer_from_dict)
    metadata   JSON object: the caller's metadata without "kind", "config" and "tokenizer"

The tensors are the model's ``state_dict()`` (float32, names as in the state dict; a tied
output head has no tensor of its own). ``load_checkpoint`` and ``checkpoint_info`` return the
caller's metadata with "kind" (str), "config" (TransformerConfig) and "tokenizer" (object)
filled in. Everything the header says is checked before any tensor is built: size, header
length, JSON, format, version, kind, config, tokenizer, tensor names, shapes and dtypes
(against the model built on the ``meta`` device, which allocates nothing); then the values
must be finite. Any problem is a ValueError saying what is wrong and what to do.
"""

from __future__ import annotations

import json
import os
import struct

import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_tensors, save as save_tensors
from torch import nn

from .config import TransformerConfig
from .model import ARCHITECTURES
from .tokenizer import tokenizer_from_dict

FORMAT = "attention-lab-checkpoint"
VERSION = "1"
MAX_CHECKPOINT_BYTES = 50 * 1024 * 1024
MAX_HEADER_BYTES = 1024 * 1024
RESERVED_KEYS = ("kind", "config", "tokenizer")
_LAYER_FIELDS = {"encoder-decoder": ("num_encoder_layers", "num_decoder_layers"),
                 "decoder-only": ("num_decoder_layers",), "encoder-only": ("num_encoder_layers",)}
_VOCAB_FIELDS = {"encoder-decoder": ("src_vocab_size", "tgt_vocab_size"), "decoder-only": ("tgt_vocab_size",),
                 "encoder-only": ("src_vocab_size",)}
_DTYPES = {"F64": "float64", "F32": "float32", "F16": "float16", "BF16": "bfloat16", "I64": "int64",
           "I32": "int32", "I16": "int16", "I8": "int8", "U8": "uint8", "BOOL": "bool"}
_FIX = "Use a .safetensors checkpoint saved by this dashboard (transformer.save_checkpoint)."


def _mb(size: int) -> str:
    """A byte count as megabytes for messages, e.g. '50.0 MB'."""
    return f"{size / 2**20:.1f} MB"


def _tokenizer_dict(tokenizer) -> dict:
    """The tokenizer's description (from ``to_dict()`` or a dict), checked by rebuilding it."""
    values = tokenizer.to_dict() if hasattr(tokenizer, "to_dict") else tokenizer
    tokenizer_from_dict(values)
    return values


def _metadata_entries(model: nn.Module, metadata: dict) -> dict[str, str]:
    """The str -> str map stored in the file's header (see the module docstring)."""
    if not isinstance(metadata, dict) or "tokenizer" not in metadata:
        raise ValueError("metadata must be a dict with a 'tokenizer' (the model's tokenizer or its "
                         "to_dict()), so that a loaded model can read text.")
    config = metadata.get("config", model.config)
    if metadata.get("kind", model.kind) != model.kind or (
            config.to_dict() if isinstance(config, TransformerConfig) else config) != model.config.to_dict():
        raise ValueError("metadata['kind'] / metadata['config'] differ from the model's; drop them "
                         "(the model's own are saved).")
    rest = {key: value for key, value in metadata.items() if key not in RESERVED_KEYS}
    tokenizer = _tokenizer_dict(metadata["tokenizer"])
    try:
        return {"format": FORMAT, "version": VERSION, "kind": model.kind,
                "config": json.dumps(model.config.to_dict(), allow_nan=False),
                "tokenizer": json.dumps(tokenizer, allow_nan=False),
                "metadata": json.dumps(rest, allow_nan=False)}
    except (TypeError, ValueError) as error:
        raise ValueError(f"metadata must be JSON-serialisable (str, numbers, lists, dicts): {error}.") from None


def _tensors_to_save(model: nn.Module) -> dict[str, torch.Tensor]:
    """The state dict as contiguous CPU float32 tensors; anything else is refused, not converted."""
    tensors = {}
    for name, tensor in model.state_dict().items():
        if tensor.dtype != torch.float32:
            raise ValueError(f"{name} is {tensor.dtype}; checkpoints hold float32: call model.float() first.")
        if not torch.isfinite(tensor).all():
            raise ValueError(f"{name} has NaN or infinite values (training diverged?); it cannot be saved.")
        tensors[name] = tensor.detach().cpu().contiguous()
    return tensors


def save_checkpoint(model: nn.Module, path: str | os.PathLike, metadata: dict) -> None:
    """Write ``model`` (one of ARCHITECTURES) and ``metadata`` to one safetensors file at ``path``.

    ``metadata`` is JSON-serialisable and includes "tokenizer". The bytes are checked as the
    loader would check them before anything is written, and the file is replaced atomically.
    """
    if getattr(model, "kind", None) not in ARCHITECTURES:
        raise ValueError(f"only the package's models can be saved ({sorted(ARCHITECTURES)}).")
    data = save_tensors(_tensors_to_save(model), metadata=_metadata_entries(model, metadata))
    _validate_header(_parse_header(data, len(data)), len(data))
    temporary = f"{os.fspath(path)}.partial"
    with open(temporary, "wb") as file:
        file.write(data)
    os.replace(temporary, path)


def _too_big(size: int) -> ValueError:
    return ValueError(f"the file is {_mb(size)}, larger than the {_mb(MAX_CHECKPOINT_BYTES)} a checkpoint "
                      f"may have; use a smaller model.")


def _read_source(source, header_only: bool) -> tuple[bytes, int]:
    """(the file's bytes, or only its first 8 + N header bytes when ``header_only``; the file's size).

    ``source`` is a path or the bytes of an upload. A path's size is checked before reading.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        return data, len(data)
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"source must be a path or bytes, got {type(source).__name__}.")
    try:
        size = os.stat(source).st_size
        if size > MAX_CHECKPOINT_BYTES:
            raise _too_big(size)
        with open(source, "rb") as file:
            if not header_only:
                data = file.read(MAX_CHECKPOINT_BYTES + 1)
                return data, len(data)
            head = file.read(8)
            length = struct.unpack("<Q", head)[0] if len(head) == 8 else 0
            return head + (file.read(length) if length <= min(MAX_HEADER_BYTES, size - 8) else b""), size
    except OSError as error:
        raise ValueError(f"cannot read the checkpoint {os.fspath(source)!r}: {error.strerror}; "
                         f"check the file name.") from None


def _parse_header(data: bytes, size: int) -> tuple[dict, int]:
    """(JSON header, its length N) of a safetensors file whose first bytes are ``data``, size-checked."""
    if size > MAX_CHECKPOINT_BYTES or len(data) > MAX_CHECKPOINT_BYTES:
        raise _too_big(max(size, len(data)))
    if size < 8:
        raise ValueError(f"the file has only {size} bytes: it is empty or truncated, not a checkpoint. {_FIX}")
    if data.startswith(b"\x80") or data.startswith(b"PK\x03\x04"):
        raise ValueError("this looks like a pickle file (or a PyTorch .pt/.pth file, which is a zip of "
                         "pickles); pickles can run code when loaded, so they are never opened here. "
                         + _FIX)
    length = struct.unpack("<Q", data[:8])[0]
    if length > MAX_HEADER_BYTES:
        raise ValueError(f"the first 8 bytes announce a header of {length} bytes, more than the "
                         f"{_mb(MAX_HEADER_BYTES)} allowed: this is not a safetensors checkpoint. {_FIX}")
    if length > size - 8:
        raise ValueError(f"the file is truncated: its header should be {length} bytes but only {size - 8} "
                         f"follow (or it is not a safetensors file). Download or save it again.")
    try:
        header = json.loads(data[8:8 + length].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ValueError(f"the file's header is not JSON, so it is not a safetensors checkpoint. {_FIX}") from None
    if not isinstance(header, dict):
        raise ValueError(f"the file's header is not a JSON object: not a safetensors checkpoint. {_FIX}")
    return header, length


def _json_entry(metadata: dict, key: str, what: type):
    """``metadata[key]`` parsed as JSON and of type ``what``, else a ValueError naming the key."""
    try:
        value = json.loads(metadata[key])
    except (KeyError, TypeError, ValueError, RecursionError):
        value = None
    if not isinstance(value, what):
        raise ValueError(f"the checkpoint's '{key}' entry is missing or not valid JSON; save the model again.")
    return value


def _read_metadata(header: dict) -> dict:
    """The caller's metadata with "kind", "config" and "tokenizer" rebuilt from ``__metadata__``."""
    metadata = header.get("__metadata__")
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT:
        found = metadata.get("format") if isinstance(metadata, dict) else None
        raise ValueError(f"the file has no Attention Lab metadata (format {found!r}): it is a safetensors "
                         f"file saved by another program, so the model cannot be rebuilt from it. {_FIX}")
    if metadata.get("version") != VERSION:
        raise ValueError(f"the checkpoint has format version {metadata.get('version')!r}; this dashboard "
                         f"reads version {VERSION}. Update the dashboard or save the model again.")
    kind = metadata.get("kind")
    if kind not in ARCHITECTURES:
        raise ValueError(f"the checkpoint's architecture kind={kind!r} is unknown; expected one of "
                         f"{sorted(ARCHITECTURES)}.")
    try:
        config = TransformerConfig.from_dict(_json_entry(metadata, "config", dict))
    except TypeError as error:
        raise ValueError(f"the checkpoint's config is invalid: {error}.") from None
    except ValueError as error:
        raise ValueError(f"the checkpoint's config is invalid: {error}") from None
    try:
        tokenizer = tokenizer_from_dict(_json_entry(metadata, "tokenizer", dict))
    except (ValueError, OverflowError) as error:
        raise ValueError(f"the checkpoint's tokenizer is invalid: {error}") from None
    vocab = min(getattr(config, field) for field in _VOCAB_FIELDS[kind])
    if tokenizer.vocab_size > vocab:
        raise ValueError(f"the checkpoint's tokenizer makes {tokenizer.vocab_size} ids but the model has "
                         f"only {vocab} embeddings; save the model with its own tokenizer.")
    rest = _json_entry(metadata, "metadata", dict) if "metadata" in metadata else {}
    return {**rest, "kind": kind, "config": config, "tokenizer": tokenizer}


def _entry(name: str, entry) -> tuple[str, tuple[int, ...], int]:
    """(dtype code, shape, end offset) of one header entry, else a ValueError naming the tensor."""
    try:
        dtype, shape, (begin, stop) = entry["dtype"], tuple(entry["shape"]), entry["data_offsets"]
    except (KeyError, TypeError, ValueError):
        dtype, shape, begin, stop = None, (), -1, -1
    numbers = (*shape, begin, stop)
    if not isinstance(dtype, str) or not all(type(n) is int and n >= 0 for n in numbers) or begin > stop:
        raise ValueError(f"the header's entry for tensor {name!r} is malformed; save the model again.")
    return dtype, shape, stop


def _tensor_entries(header: dict, length: int, size: int) -> dict[str, tuple[int, ...]]:
    """{name: shape} of the header's tensors; dtypes must be float32 and the data must be all there."""
    shapes, end = {}, 0
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype, shapes[name], stop = _entry(name, entry)
        end = max(end, stop)
        if dtype != "F32":
            floating = dtype in ("F64", "F16", "BF16") or dtype.startswith("F8")
            sort = "a floating-point type but not float32" if floating else "not a floating-point type"
            raise ValueError(f"tensor {name!r} is stored as {_DTYPES.get(dtype, dtype)} ({sort}); checkpoints "
                             f"hold float32 weights: convert with model.float() and save again.")
    if end > size - 8 - length:
        raise ValueError(f"the file is truncated: its tensors need {end} bytes but only {size - 8 - length} "
                         f"are there. Download or save it again.")
    return shapes


def _expected_shapes(kind: str, config: TransformerConfig, count: int) -> dict[str, tuple[int, ...]]:
    """{name: shape} of the state dict the config implies, from a model on the ``meta`` device.

    ``count`` (the header's number of tensors) bounds the layer count first: every layer has at
    least 4 tensors (W_Q, W_K, W_V, W_O), so an absurd config is refused before it is built.
    Non-persistent buffers (the sinusoidal table) must also stay within the size cap.
    """
    layers = sum(getattr(config, field) for field in _LAYER_FIELDS[kind])
    if 4 * layers > count:
        raise ValueError(f"the config asks for {layers} layers but the file has only {count} tensors: "
                         f"the config and the weights do not belong together.")
    with torch.device("meta"):
        model = ARCHITECTURES[kind](config)
    elements = sum(t.numel() for t in (*model.parameters(), *model.buffers()))
    if 4 * elements > 2 * MAX_CHECKPOINT_BYTES:
        raise ValueError(f"the config implies a model of {_mb(4 * elements)} in memory, too big for this "
                         f"dashboard; lower max_len, d_model or the vocabulary.")
    return {name: tuple(t.shape) for name, t in model.state_dict().items()}


def _compare_shapes(found: dict, expected: dict) -> None:
    """Names then shapes of the file's tensors must be exactly those of the config's model."""
    missing, unknown = sorted(set(expected) - set(found)), sorted(set(found) - set(expected))
    if missing:
        raise ValueError(f"the checkpoint is missing tensor(s) {missing[:5]} (of {len(missing)}) that its "
                         f"config needs; the file is incomplete or from another model.")
    if unknown:
        raise ValueError(f"the checkpoint has unexpected tensor(s) {unknown[:5]} (of {len(unknown)}) that its "
                         f"config does not use; the file is from another model.")
    for name, shape in expected.items():
        if found[name] != shape:
            raise ValueError(f"tensor {name!r} has shape {list(found[name])} but the config needs "
                             f"{list(shape)}; the weights and the config do not match.")


def _validate_header(parsed: tuple[dict, int], size: int) -> dict:
    """Every check the (header, length) allows; returns the metadata as ``checkpoint_info`` gives it."""
    header, length = parsed
    metadata = _read_metadata(header)
    shapes = _tensor_entries(header, length, size)
    _compare_shapes(shapes, _expected_shapes(metadata["kind"], metadata["config"], len(shapes)))
    return metadata


def checkpoint_info(source: str | os.PathLike | bytes) -> dict:
    """The checkpoint's metadata (with kind, config and tokenizer), from its header only.

    A path is read no further than its header, so this is cheap; it is validated like
    ``load_checkpoint`` except for the tensor values, which are not read.
    """
    data, size = _read_source(source, header_only=True)
    return _validate_header(_parse_header(data, size), size)


def _finite_tensors(data: bytes) -> dict[str, torch.Tensor]:
    """The tensors of a header-checked file, each checked for NaN and infinity."""
    try:
        tensors = load_tensors(data)
    except (SafetensorError, ValueError, RuntimeError) as error:
        raise ValueError(f"the checkpoint's tensor data is corrupt ({error}); save the model again.") from None
    for name, tensor in tensors.items():
        if not torch.isfinite(tensor).all():
            raise ValueError(f"tensor {name!r} contains NaN or infinite values (training diverged?); "
                             f"they would break every figure. Retrain and save again.")
    return tensors


def load_checkpoint(source: str | os.PathLike | bytes) -> tuple[nn.Module, dict]:
    """(model in eval mode, metadata) from a path or the bytes of a checkpoint file.

    The metadata is what was saved, with "kind", "config" (TransformerConfig) and "tokenizer"
    filled in. A file that is not a valid checkpoint is a ValueError; nothing in it is executed.
    """
    data, size = _read_source(source, header_only=False)
    metadata = _validate_header(_parse_header(data, size), size)
    tensors = _finite_tensors(data)
    model = ARCHITECTURES[metadata["kind"]](metadata["config"])
    model.load_state_dict(tensors, strict=True)
    return model.eval(), metadata
