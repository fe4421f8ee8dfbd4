"""The 8 x 8 handwritten digits, with a fixed held-out split, for the Vision Transformer.

Source and licence: 1,797 grey images of 8 x 8 pixels and their digits 0..9, the test set of
"Optical Recognition of Handwritten Digits" in the UCI Machine Learning Repository (E. Alpaydin
and C. Kaynak, July 1998; licensed CC BY 4.0;
https://archive.ics.uci.edu/ml/datasets/Optical+Recognition+of+Handwritten+Digits), as bundled
by scikit-learn (``sklearn.datasets.load_digits``; scikit-learn is BSD-3-Clause). The UCI set's
digits were written on forms by 43 people, 13 of them for its test set (these images); each
32 x 32 bitmap was cut into 4 x 4 blocks and each pixel here counts the "on" pixels of one block,
0..16. The held-out split below is drawn at random, so the same writers appear in both splits.

``scripts/export_digits.py`` (run once, with scikit-learn) wrote them to ``data/digits.safetensors``:
``images`` uint8 ``[N, 8, 8]``, ``labels`` uint8 ``[N]`` and ``heldout`` bool ``[N]``, a
stratified split (20 % of each digit held out, seeded). This module reads only that file,
with safetensors (never pickle), and does not need scikit-learn.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file

DIGITS_PATH = Path(__file__).resolve().parent / "data" / "digits.safetensors"
IMAGE_SIZE, CLASSES, MAX_PIXEL = 8, 10, 16


@dataclass(frozen=True)
class Digits:
    """The two splits: images float32 ``[N, 1, 8, 8]`` in 0..1 (pixel / 16), labels int64 ``[N]`` in 0..9."""

    train_images: torch.Tensor
    train_labels: torch.Tensor
    heldout_images: torch.Tensor
    heldout_labels: torch.Tensor


def _scaled(images: torch.Tensor) -> torch.Tensor:
    """uint8 ``[N, 8, 8]`` pixels 0..16 -> float32 ``[N, 1, 8, 8]`` in 0..1."""
    return (images.to(torch.float32) / MAX_PIXEL).unsqueeze(1)


def _check(tensors: dict[str, torch.Tensor]) -> None:
    """The file's arrays have the names, dtypes, shapes and ranges the exporter writes, else a ValueError."""
    expected = {"images": torch.uint8, "labels": torch.uint8, "heldout": torch.bool}
    if {name: t.dtype for name, t in tensors.items()} != expected:
        raise ValueError(
            "the digits file must hold images (uint8), labels (uint8) and heldout (bool); "
            "write it again with scripts/export_digits.py."
        )
    images, labels, heldout = tensors["images"], tensors["labels"], tensors["heldout"]
    count = len(labels)
    if images.shape[1:] != (IMAGE_SIZE, IMAGE_SIZE) or len(images) != count or heldout.shape != (count,):
        raise ValueError(
            f"the digits file's arrays do not fit together (images {list(images.shape)}, labels "
            f"{list(labels.shape)}, heldout {list(heldout.shape)}); write it again."
        )
    if count and (int(images.max()) > MAX_PIXEL or int(labels.max()) >= CLASSES):
        raise ValueError("the digits file has pixels above 16 or labels above 9; write it again.")


def load_digits(path: str | os.PathLike = DIGITS_PATH) -> Digits:
    """The digits, split into train and held-out (see the module docstring); a bad file is a ValueError."""
    try:
        tensors = load_file(os.fspath(path))
    except (SafetensorError, OSError) as error:
        raise ValueError(
            f"cannot read the digits file {os.fspath(path)!r} ({error}); write it with scripts/export_digits.py."
        ) from None
    _check(tensors)
    images, labels, heldout = tensors["images"], tensors["labels"].long(), tensors["heldout"]
    return Digits(_scaled(images[~heldout]), labels[~heldout], _scaled(images[heldout]), labels[heldout])
