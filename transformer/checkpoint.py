"""Checkpoints: one safetensors file with a model's weights and all that is needed to rebuild it.

Never pickle: the weights are raw float32 arrays and everything else is JSON, so loading a
file can run no code. The file is ``8-byte little-endian header length N | N bytes of JSON
header | tensor data``; the header's ``__metadata__`` is described in ``checkpoint_metadata``.
The tensors are the model's ``state_dict()`` (float32, names as in the state dict; a tied
output head has no tensor of its own).

Before safetensors reads a file, its size and first 8 bytes are checked (size cap, pickle
signatures, a header length within 1 MB and within the file); safetensors then reads and
validates the header (``safe_open``: JSON, offsets, dtypes, data fully present). Everything
the header says is checked before any tensor is built: metadata, tensor names, shapes and
dtypes (against the model built on the ``meta`` device, which allocates nothing); then the
values must be finite. Any problem is a ValueError saying what is wrong and what to do.
"""

from __future__ import annotations

import os
import struct
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import save as save_tensors
from torch import nn

from .checkpoint_metadata import FIX as _FIX, metadata_entries, read_metadata
from .config import TransformerConfig
from .architectures import ARCHITECTURES

MAX_CHECKPOINT_BYTES = 50 * 1024 * 1024
MAX_HEADER_BYTES = 1024 * 1024
_LAYER_FIELDS = {
    "encoder-decoder": ("num_encoder_layers", "num_decoder_layers"),
    "decoder-only": ("num_decoder_layers",),
    "encoder-only": ("num_encoder_layers",),
    "vision": ("num_encoder_layers",),
}
_DTYPES = {
    "F64": "float64",
    "F32": "float32",
    "F16": "float16",
    "BF16": "bfloat16",
    "I64": "int64",
    "I32": "int32",
    "I16": "int16",
    "I8": "int8",
    "U8": "uint8",
    "BOOL": "bool",
}


def _mb(size: int) -> str:
    """A byte count as megabytes for messages, e.g. '50.0 MB'."""
    return f"{size / 2**20:.1f} MB"


def saved_state(model: nn.Module) -> dict[str, torch.Tensor]:
    """The state dict without the second name of a shared parameter (the paper's one token matrix for
    source and target is saved once, under its first name; loading it fills both)."""
    shared = {name for name, _ in model.named_parameters(remove_duplicate=False)} - {
        name for name, _ in model.named_parameters()
    }
    return {name: tensor for name, tensor in model.state_dict().items() if name not in shared}


def _tensors_to_save(model: nn.Module) -> dict[str, torch.Tensor]:
    """The state dict as contiguous CPU float32 tensors; anything else is refused, not converted."""
    tensors = {}
    for name, tensor in saved_state(model).items():
        if tensor.dtype != torch.float32:
            raise ValueError(f"{name} is {tensor.dtype}; checkpoints hold float32: call model.float() first.")
        if not torch.isfinite(tensor).all():
            raise ValueError(f"{name} has NaN or infinite values (training diverged?); it cannot be saved.")
        tensors[name] = tensor.detach().cpu().contiguous()
    return tensors


def checkpoint_data(model: nn.Module, metadata: dict | None = None) -> bytes:
    """The bytes of the checkpoint file of ``model`` (one of ARCHITECTURES) and ``metadata``.

    ``metadata`` is JSON-serialisable; its "tokenizer" (an object with ``to_dict()``, or that
    dict) defaults to ``hash_tokenizer`` of the model's config (a vision model has none). The
    header is checked as the loader checks it, so what is returned can be loaded.
    """
    if getattr(model, "kind", None) not in ARCHITECTURES:
        raise ValueError(f"only the package's models can be saved ({sorted(ARCHITECTURES)}).")
    entries = metadata_entries(model, {} if metadata is None else metadata)
    tensors = _tensors_to_save(model)
    data = save_tensors(tensors, metadata=entries)
    _validate(entries, {name: tuple(t.shape) for name, t in tensors.items()}, len(data))
    return data


def save_checkpoint(model: nn.Module, path: str | os.PathLike, metadata: dict | None = None) -> None:
    """Write ``checkpoint_data(model, metadata)`` to ``path``; the file is replaced atomically."""
    data = checkpoint_data(model, metadata)
    temporary = f"{os.fspath(path)}.partial"
    with open(temporary, "wb") as file:
        file.write(data)
    os.replace(temporary, path)


def _too_big(size: int) -> ValueError:
    return ValueError(
        f"the file is {_mb(size)}, larger than the {_mb(MAX_CHECKPOINT_BYTES)} a checkpoint "
        f"may have; use a smaller model."
    )


def _check_start(start: bytes, size: int) -> None:
    """What the first 8 bytes and the size tell before safetensors reads anything: not too big, not
    too small, not a pickle, and a header length within ``MAX_HEADER_BYTES`` and within the file."""
    if size > MAX_CHECKPOINT_BYTES:
        raise _too_big(size)
    if size < 8:
        raise ValueError(f"the file has only {size} bytes: it is empty or truncated, not a checkpoint. {_FIX}")
    length = struct.unpack("<Q", start[:8])[0]
    plausible = length <= min(MAX_HEADER_BYTES, size - 8)  # a header length whose low byte is 0x80 is fine
    if not plausible and (start.startswith(b"\x80") or start.startswith(b"PK\x03\x04")):
        raise ValueError(
            "this looks like a pickle file (or a PyTorch .pt/.pth file, which is a zip of "
            "pickles); pickles can run code when loaded, so they are never opened here. " + _FIX
        )
    if length > MAX_HEADER_BYTES:
        raise ValueError(
            f"the first 8 bytes announce a header of {length} bytes, more than the "
            f"{_mb(MAX_HEADER_BYTES)} allowed: this is not a safetensors checkpoint. {_FIX}"
        )
    if length > size - 8:
        raise ValueError(
            f"the file is truncated: its header should be {length} bytes but only {size - 8} "
            f"follow (or it is not a safetensors file). Download or save it again."
        )


def _unreadable(error: SafetensorError) -> ValueError:
    """safetensors' refusal of a file as a ValueError that says what it means for a checkpoint."""
    detail = str(error).removeprefix("Error while deserializing header: ")
    if "JSON" in detail or "Deserialization" in detail:
        return ValueError(
            f"the file's header is not JSON in the safetensors layout ({detail}), so it is not a "
            f"safetensors checkpoint. {_FIX}"
        )
    if "covered" in detail or "IncompleteBuffer" in detail:
        return ValueError(
            "the file's tensor data does not match its header: the file is truncated (or has "
            "bytes added after the tensors). Download or save it again."
        )
    return ValueError(f"the file is not a valid safetensors file ({detail}). {_FIX}")


@contextmanager
def _opened(source: str | os.PathLike | bytes) -> Iterator:
    """(``safe_open`` handle, file size) of a checkpoint given as a path or as the bytes of an upload,
    after ``_check_start``.

    A path's size is checked before the file is opened. safetensors opens files only, so bytes
    are written to a temporary file first (removed on exit).
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        _check_start(data[:8], len(data))
        with tempfile.TemporaryDirectory(prefix="checkpoint-") as folder:
            path = os.path.join(folder, "upload.safetensors")
            with open(path, "wb") as file:
                file.write(data)
            with _safe_open(path) as handle:
                yield handle, len(data)
        return
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"source must be a path or bytes, got {type(source).__name__}.")
    try:
        size = os.stat(source).st_size
        if size > MAX_CHECKPOINT_BYTES:
            raise _too_big(size)
        with open(source, "rb") as file:
            _check_start(file.read(8), size)
    except OSError as error:
        raise ValueError(
            f"cannot read the checkpoint {os.fspath(source)!r}: {error.strerror}; check the file name."
        ) from None
    with _safe_open(source) as handle:
        yield handle, size


@contextmanager
def _safe_open(path: str | os.PathLike) -> Iterator:
    try:
        handle = safe_open(os.fspath(path), framework="pt")
    except SafetensorError as error:
        raise _unreadable(error) from None
    except OSError as error:
        raise ValueError(f"cannot read the checkpoint {os.fspath(path)!r}: {error.strerror}.") from None
    with handle:
        yield handle


def _stored_shapes(handle) -> dict[str, tuple[int, ...]]:
    """{name: shape} of the file's tensors, as safetensors reads the header; every dtype must be float32."""
    shapes = {}
    for name in handle.keys():
        try:
            stored = handle.get_slice(name)
            dtype, shapes[name] = stored.get_dtype(), tuple(stored.get_shape())
        except SafetensorError as error:
            raise _unreadable(error) from None
        if dtype != "F32":
            floating = dtype in ("F64", "F16", "BF16") or dtype.startswith(("F8", "F6", "F4"))
            sort = "a floating-point type but not float32" if floating else "not a floating-point type"
            raise ValueError(
                f"tensor {name!r} is stored as {_DTYPES.get(dtype, dtype)} ({sort}); checkpoints "
                f"hold float32 weights: convert with model.float() and save again."
            )
    return shapes


def _expected_shapes(kind: str, config: TransformerConfig, count: int) -> dict[str, tuple[int, ...]]:
    """{name: shape} of the state dict the config implies, from a model on the ``meta`` device.

    ``count`` (the file's number of tensors) bounds the layer count first: every layer has at
    least 4 tensors (W_Q, W_K, W_V, W_O), so an absurd config is refused before it is built.
    Non-persistent buffers (the sinusoidal table) must also stay within the size cap.
    """
    layers = sum(getattr(config, field) for field in _LAYER_FIELDS[kind])
    if 4 * layers > count:
        raise ValueError(
            f"the config asks for {layers} layers but the file has only {count} tensors: "
            f"the config and the weights do not belong together."
        )
    with torch.device("meta"):
        model = ARCHITECTURES[kind](config)
    elements = sum(t.numel() for t in (*model.parameters(), *model.buffers()))
    if 4 * elements > 2 * MAX_CHECKPOINT_BYTES:
        raise ValueError(
            f"the config implies a model of {_mb(4 * elements)} in memory, too big for this "
            f"dashboard; lower max_len, d_model or the vocabulary."
        )
    return {name: tuple(t.shape) for name, t in saved_state(model).items()}


def _compare_shapes(found: dict, expected: dict) -> None:
    """Names then shapes of the file's tensors must be exactly those of the config's model."""
    missing, unknown = sorted(set(expected) - set(found)), sorted(set(found) - set(expected))
    if missing:
        raise ValueError(
            f"the checkpoint is missing tensor(s) {missing[:5]} (of {len(missing)}) that its "
            f"config needs; the file is incomplete or from another model."
        )
    if unknown:
        raise ValueError(
            f"the checkpoint has unexpected tensor(s) {unknown[:5]} (of {len(unknown)}) that its "
            f"config does not use; the file is from another model."
        )
    for name, shape in expected.items():
        if found[name] != shape:
            raise ValueError(
                f"tensor {name!r} has shape {list(found[name])} but the config needs "
                f"{list(shape)}; the weights and the config do not match."
            )


def _validate(entries: dict[str, str] | None, shapes: dict[str, tuple[int, ...]], size: int) -> dict:
    """Every check the header allows (its metadata entries, the tensors' shapes, the file's size);
    returns the metadata as ``checkpoint_info`` gives it."""
    if size > MAX_CHECKPOINT_BYTES:
        raise _too_big(size)
    metadata = read_metadata(entries)
    _compare_shapes(shapes, _expected_shapes(metadata["kind"], metadata["config"], len(shapes)))
    return metadata


def checkpoint_info(source: str | os.PathLike | bytes) -> dict:
    """The checkpoint's metadata (with kind, config and tokenizer), from its header only.

    It is validated like ``load_checkpoint`` except for the tensor values, which are not read,
    so this is cheap.
    """
    with _opened(source) as (handle, size):
        return _validate(handle.metadata(), _stored_shapes(handle), size)


def _finite_tensors(handle) -> dict[str, torch.Tensor]:
    """The tensors of a header-checked file, each checked for NaN and infinity."""
    tensors = {}
    for name in handle.keys():
        try:
            tensors[name] = tensor = handle.get_tensor(name)
        except (SafetensorError, ValueError, RuntimeError) as error:
            raise ValueError(f"the checkpoint's tensor data is corrupt ({error}); save the model again.") from None
        if not torch.isfinite(tensor).all():
            raise ValueError(
                f"tensor {name!r} contains NaN or infinite values (training diverged?); "
                f"they would break every figure. Retrain and save again."
            )
    return tensors


def load_checkpoint(source: str | os.PathLike | bytes) -> tuple[nn.Module, dict]:
    """(model in eval mode, metadata) from a path or the bytes of a checkpoint file.

    The metadata is what was saved, with "kind", "config" (TransformerConfig) and "tokenizer"
    filled in. A file that is not a valid checkpoint is a ValueError; nothing in it is executed.
    """
    with _opened(source) as (handle, size):
        metadata = _validate(handle.metadata(), _stored_shapes(handle), size)
        tensors = _finite_tensors(handle)
    model = ARCHITECTURES[metadata["kind"]](metadata["config"])
    result = model.load_state_dict(tensors, strict=False)
    shared = set(model.state_dict()) - set(saved_state(model))  # filled through the first name of their parameter
    if result.unexpected_keys or set(result.missing_keys) != shared:
        raise ValueError(
            f"the checkpoint's tensors do not fill the model (missing {result.missing_keys[:5]}, "
            f"unexpected {result.unexpected_keys[:5]}); the file is from another model."
        )
    return model.eval(), metadata
