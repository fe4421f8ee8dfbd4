"""Write the 8 x 8 handwritten digits that scikit-learn bundles to transformer/data/digits.safetensors.

    pip install scikit-learn    # only for this one run: the app never imports it
    python scripts/export_digits.py [--out transformer/data/digits.safetensors]

The data: 1,797 grey images of 8 x 8 pixels, each pixel 0..16 (the number of "on" pixels in a
4 x 4 block of the original 32 x 32 bitmap), and their digits 0..9. They are the test set of the
UCI ML repository's "Optical Recognition of Handwritten Digits" (E. Alpaydin, C. Kaynak, 1998;
CC BY 4.0), as scikit-learn ships them (BSD-3-Clause). See transformer/digits.py.

The file holds ``images`` uint8 [N, 8, 8], ``labels`` uint8 [N] and ``heldout`` bool [N]: a fixed
held-out split, stratified: for each digit, ``round(HELDOUT_SHARE * count)`` of its images, drawn by
a NumPy generator seeded with ``SPLIT_SEED``, are held out. Safetensors, never pickle.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import sklearn
from safetensors.numpy import save_file
from sklearn.datasets import load_digits

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "transformer" / "data" / "digits.safetensors"
HELDOUT_SHARE = 0.2
SPLIT_SEED = 0


def stratified_heldout(labels: np.ndarray, share: float, seed: int) -> np.ndarray:
    """Boolean [N]: True for the held-out images, ``round(share * count)`` of each label, drawn at random."""
    generator = np.random.default_rng(seed)
    heldout = np.zeros(len(labels), dtype=bool)
    for label in np.unique(labels):
        members = np.flatnonzero(labels == label)
        chosen = generator.permutation(members)[: int(round(share * len(members)))]
        heldout[chosen] = True
    return heldout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    digits = load_digits()
    images = digits.images.astype(np.uint8)
    if not np.array_equal(images, digits.images) or images.max() > 16:
        raise SystemExit("the images are not whole numbers 0..16; the data set changed")
    labels = digits.target.astype(np.uint8)
    heldout = stratified_heldout(labels, HELDOUT_SHARE, SPLIT_SEED)
    metadata = {
        "source": f"scikit-learn sklearn.datasets.load_digits (BSD-3-Clause), scikit-learn {sklearn.__version__}",
        "data": "UCI ML repository, Optical Recognition of Handwritten Digits (test set), "
        "E. Alpaydin and C. Kaynak, 1998, CC BY 4.0",
        "pixels": "0..16",
        "heldout": f"stratified, {HELDOUT_SHARE} of each digit, numpy default_rng({SPLIT_SEED})",
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_file({"images": images, "labels": labels, "heldout": heldout}, str(out), metadata=metadata)
    print(f"{out}: {len(labels)} images, {int(heldout.sum())} held out, {out.stat().st_size / 1024:.0f} KB")


if __name__ == "__main__":
    main()
