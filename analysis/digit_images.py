"""A drawn or uploaded picture made into the kind of image the digits model was trained on.

The handwritten digits are 8 x 8 images of 0..16 counts (scaled here to 0..1): each digit was drawn, its
bitmap normalised to fill a 32 x 32 box, and the ink counted in 4 x 4 blocks. A picture goes the same way:

    ink = grey levels in 0..1 (1 = ink), light backgrounds inverted
    box = the smallest rectangle holding the ink, scaled (aspect kept) so its longer side fills 32 cells, centred
    digit[r, c] = mean of box[4r : 4r + 4, 4c : 4c + 4]          -> [8, 8] in 0..1
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch.nn import functional as F

BOX = 32  # the normalised bitmap's side
BLOCK = 4  # cells counted into one pixel of the 8 x 8 digit
INK = 0.2  # a cell with at least this much ink counts as drawn on
MOSTLY_INK = 0.6  # above this share of inked cells the picture is not one digit on paper
SMALLEST = 0.25  # a digit's ink must span at least this share of the picture's longer side (a tap is not a digit)


@dataclass(frozen=True)
class DigitImage:
    """The ``[8, 8]`` float32 image (0..1) a picture makes, or None with ``problem`` saying what to change;
    ``notes`` say what was done to the picture on the way."""

    image: np.ndarray | None
    problem: str = ""
    notes: tuple[str, ...] = ()


def as_digit(ink: np.ndarray, notes: tuple[str, ...] = ()) -> DigitImage:
    """``ink`` ``[H, W]`` in 0..1 (1 = ink) as the model's 8 x 8 digit (see the module's equations)."""
    ink = np.nan_to_num(np.asarray(ink, dtype=np.float32), nan=0.0).clip(0.0, 1.0)
    inked = ink >= INK
    if not inked.any():
        return DigitImage(None, "The picture is blank: draw a digit (or pick one from the held-out set).", notes)
    if inked.mean() > MOSTLY_INK:
        return DigitImage(
            None,
            f"{inked.mean():.0%} of the picture is ink: it should be one digit on paper "
            "(clear the canvas and draw one, or upload another picture).",
            notes,
        )
    rows, cols = np.flatnonzero(inked.any(1)), np.flatnonzero(inked.any(0))
    if max(rows[-1] - rows[0], cols[-1] - cols[0]) + 1 < SMALLEST * max(ink.shape):
        return DigitImage(
            None,
            "The digit is too small to read: make it fill most of the box (draw it larger, or "
            "crop the picture around it).",
            notes,
        )
    crop = torch.from_numpy(np.ascontiguousarray(ink[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]))
    height, width = crop.shape
    scale = BOX / max(height, width)
    size = (max(1, round(height * scale)), max(1, round(width * scale)))
    resized = F.interpolate(
        crop[None, None],
        size=size,
        mode="area" if scale < 1 else "bilinear",
        **({} if scale < 1 else {"align_corners": False}),
    )[0, 0]
    box = torch.zeros(BOX, BOX)
    top, left = (BOX - size[0]) // 2, (BOX - size[1]) // 2
    box[top : top + size[0], left : left + size[1]] = resized.clamp(0.0, 1.0)
    digit = F.avg_pool2d(box[None, None], BLOCK)[0, 0]
    return DigitImage(digit.numpy().astype(np.float32), "", notes)


def picture_ink(grey: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    """Grey levels ``[H, W]`` in 0..1 of any picture as ink (1 = ink), measured from its paper: the background is
    the median level b (most of a picture of one digit is paper), and

        ink = clip((b - grey) / (b - darkest), 0, 1)      on light paper (b > 0.5): dark ink, inverted
        ink = clip((grey - b) / (brightest - b), 0, 1)    on dark paper: light ink

    so grey paper in a photo reads as no ink, and the darkest (brightest) stroke as full ink."""
    grey = np.nan_to_num(np.asarray(grey, dtype=np.float32), nan=0.0).clip(0.0, 1.0)
    if not grey.size:
        return grey, ()
    paper = float(np.median(grey))
    if paper > 0.5:
        return ((paper - grey) / max(paper - float(grey.min()), 1e-6)).clip(0.0, 1.0), (
            "inverted: dark ink on a light background",
        )
    return ((grey - paper) / max(float(grey.max()) - paper, 1e-6)).clip(0.0, 1.0), ()


LEVELS = 16  # the digits' pixels are counts 0..16 (ink cells of a 4 x 4 block): 17 grey levels
CODE_DIGITS = "0123456789abcdefg"  # one character a pixel: its level, 0 (paper) to g = 16 (full ink)


def image_code(image: np.ndarray) -> str:
    """An 8 x 8 image in 0..1 as 64 characters, row-major: pixel v as ``CODE_DIGITS[round(16 v)]``. It goes in
    a link: a drawing or a picture travels with the view, at the digits' own 17 grey levels."""
    levels = np.rint(np.nan_to_num(np.asarray(image, dtype=np.float32), nan=0.0).clip(0.0, 1.0) * LEVELS)
    return "".join(CODE_DIGITS[int(v)] for v in levels.ravel())


def image_from_code(code: str) -> DigitImage:
    """The image ``image_code`` wrote (``[8, 8]`` float32, level / 16), or None with what to change."""
    text = str(code).strip()
    side = BOX // BLOCK
    if len(text) != side * side:
        return DigitImage(
            None,
            f"An image code is {side * side} characters, one a pixel row by row; this one has "
            f"{len(text)}: draw the digit again or copy the whole code.",
        )
    lowered = "".join(ch.lower() if "A" <= ch <= "Z" else ch for ch in text)
    wrong = next((i for i, ch in enumerate(lowered) if ch not in CODE_DIGITS), None)
    if wrong is not None:
        return DigitImage(
            None,
            f"Each character of an image code is a pixel's level, 0-9 or a-g (0 is paper, g full "
            f"ink); pixel {wrong + 1} is not: draw the digit again or copy the whole code.",
        )
    levels = np.array([CODE_DIGITS.index(ch) for ch in lowered], dtype=np.float32).reshape(side, side)
    return DigitImage(levels / LEVELS)
