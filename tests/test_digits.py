"""The digits file and its loader: shapes, range, the stratified split, checked against the raw arrays read
here with safetensors (and against scikit-learn's copy when scikit-learn is installed)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.numpy import load_file, save_file

import transformer.digits
from transformer import load_digits

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "transformer" / "data" / "digits.safetensors"


@pytest.fixture(scope="module")
def raw() -> dict[str, np.ndarray]:
    return load_file(str(DATA))


def test_the_file_is_small_and_holds_uint8_images_labels_and_a_split(raw):
    assert DATA.stat().st_size < 2 * 1024 * 1024
    assert raw["images"].dtype == np.uint8 and raw["images"].shape == (1797, 8, 8)
    assert raw["labels"].dtype == np.uint8 and raw["labels"].shape == (1797,)
    assert raw["heldout"].dtype == np.bool_ and raw["heldout"].shape == (1797,)
    assert raw["images"].max() == 16 and raw["images"].min() == 0
    assert sorted(Counter(raw["labels"].tolist())) == list(range(10))


def test_the_loader_gives_float_images_in_0_1_and_both_splits(raw):
    digits = load_digits()
    held = raw["heldout"]
    assert digits.train_images.shape == (1797 - held.sum(), 1, 8, 8)
    assert digits.heldout_images.shape == (held.sum(), 1, 8, 8)
    assert digits.train_images.dtype == torch.float32 and digits.train_labels.dtype == torch.int64
    for images in (digits.train_images, digits.heldout_images):
        assert images.min() >= 0 and images.max() <= 1
        assert torch.equal(images * 16, (images * 16).round())  # 17 levels, pixel / 16
    assert np.array_equal(digits.train_images[:, 0].numpy() * 16, raw["images"][~held].astype(np.float32))
    assert np.array_equal(digits.heldout_images[:, 0].numpy() * 16, raw["images"][held].astype(np.float32))
    assert np.array_equal(digits.train_labels.numpy(), raw["labels"][~held])
    assert np.array_equal(digits.heldout_labels.numpy(), raw["labels"][held])


def test_about_a_fifth_of_each_digit_is_held_out(raw):
    held, labels = raw["heldout"], raw["labels"]
    assert 0.19 <= held.mean() <= 0.21
    for digit in range(10):
        members = labels == digit
        assert abs(held[members].sum() - 0.2 * members.sum()) <= 0.5  # stratified: round(20 %) per digit


def test_the_images_are_scikit_learns_digits(raw):
    datasets = pytest.importorskip("sklearn.datasets")
    reference = datasets.load_digits()
    assert np.array_equal(raw["images"].astype(np.float64), reference.images)
    assert np.array_equal(raw["labels"], reference.target)


def test_a_bad_file_is_a_value_error(tmp_path):
    wrong = tmp_path / "wrong.safetensors"
    save_file(
        {"images": np.zeros((3, 8, 8), np.float32), "labels": np.zeros(3, np.uint8), "heldout": np.zeros(3, bool)},
        str(wrong),
    )
    with pytest.raises(ValueError, match="uint8"):
        load_digits(wrong)
    pickled = tmp_path / "digits.pkl"
    pickled.write_bytes(b"\x80\x04\x95" + b"\x00" * 40)
    with pytest.raises(ValueError, match="cannot read the digits file"):
        load_digits(pickled)
    with pytest.raises(ValueError, match="cannot read"):
        load_digits(tmp_path / "missing.safetensors")


def test_the_source_and_licences_are_named():
    text = transformer.digits.__doc__
    for fact in ("UCI", "Alpaydin", "Kaynak", "CC BY 4.0", "scikit-learn", "BSD-3-Clause"):
        assert fact in text
