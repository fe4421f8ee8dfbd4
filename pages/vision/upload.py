"""An uploaded picture read safely: Pillow decodes it (nothing in the file is executed), at most ``MAX_BYTES``
and ``MAX_PIXELS``, into grey levels 0..1, with notes on what was converted."""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
from PIL import Image, UnidentifiedImageError

MAX_BYTES = 5 * 1024 * 1024
MAX_PIXELS = 4096 * 4096  # larger pictures are refused before they are decoded
UPLOAD_TYPES = ["png", "jpg", "jpeg", "gif", "bmp", "webp"]


@dataclass(frozen=True)
class Picture:
    """Grey levels ``[H, W]`` float32 in 0..1 (0 = black), or None with ``problem``; ``notes`` on the way."""

    grey: np.ndarray | None
    problem: str = ""
    notes: tuple[str, ...] = ()


def read_picture(data: bytes, name: str = "the file") -> Picture:
    """``data`` as grey levels; a file too large, not a picture, or too many pixels gets a ``problem``."""
    if len(data) > MAX_BYTES:
        return Picture(None, f"{name} has {len(data) / 2**20:.1f} MB; pictures of at most {MAX_BYTES // 2**20} MB "
                             "are read. Crop it or save it smaller.")
    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            if width * height > MAX_PIXELS:
                return Picture(None, f"{name} is {width} x {height} pixels; at most {MAX_PIXELS:,} pixels are read.")
            mode = image.mode
            image.seek(0)  # an animation's first frame
            grey = np.asarray(image.convert("L"), dtype=np.float32) / 255.0
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return Picture(None, f"{name} is not a picture this page can read: upload a PNG, JPEG, GIF, BMP or WebP.")
    notes = []
    if mode not in ("L", "1"):
        notes.append(f"converted from {mode} to grey")
    if (height, width) != (8, 8):
        notes.append(f"{width} x {height} pixels reduced to 8 x 8")
    return Picture(grey, "", tuple(notes))
