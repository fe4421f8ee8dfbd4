"""An uploaded picture read safely: Pillow decodes it (nothing in the file is executed), at most ``MAX_BYTES``
and ``MAX_PIXELS``, into grey levels 0..1, with notes on what was converted."""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

MAX_BYTES = 5 * 1024 * 1024
MAX_PIXELS = 4096 * 4096  # larger pictures are refused before they are decoded
WORKING_PX = 512  # a picture is reduced to at most this many pixels a side before it is read
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
        return Picture(
            None,
            f"{name} has {len(data) / 2**20:.1f} MB; pictures of at most {MAX_BYTES // 2**20} MB "
            "are read. Crop it or save it smaller.",
        )
    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            if width * height > MAX_PIXELS:
                return Picture(None, f"{name} is {width} x {height} pixels; at most {MAX_PIXELS:,} pixels are read.")
            mode = image.mode
            image.seek(0)  # an animation's first frame
            grey, notes = _grey(image)
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return Picture(None, f"{name} is not a picture this page can read: upload a PNG, JPEG, GIF, BMP or WebP.")
    if mode not in ("L", "1"):
        notes.insert(0, f"converted from {mode} to grey")
    if (height, width) != (8, 8):
        notes.append(f"{width} x {height} pixels reduced to 8 x 8")
    return Picture(grey, "", tuple(notes))


def _grey(image: Image.Image) -> tuple[np.ndarray, list[str]]:
    """Grey levels 0..1 of an opened picture, as a person sees it: turned upright as the camera said (EXIF),
    transparent parts on white paper, 16-bit levels scaled, at most ``WORKING_PX`` on a side (the 8 x 8 image
    needs no more, and a phone's photo would take hundreds of MB as floats)."""
    notes = []
    upright = ImageOps.exif_transpose(image)
    if upright.size != image.size or upright.getexif() != image.getexif():
        notes.append("turned upright as the camera recorded")
    upright.thumbnail((WORKING_PX, WORKING_PX))
    if upright.mode in ("I", "I;16", "I;16B", "I;16L", "F"):  # 16- or 32-bit levels: scaled to 0..1 by their range
        levels = np.asarray(upright, dtype=np.float32)
        top = float(levels.max()) if levels.size else 0.0
        return (levels / top if top > 0 else levels), notes
    if upright.mode in ("RGBA", "LA", "PA") or (upright.mode == "P" and "transparency" in upright.info):
        paper = Image.new("RGBA", upright.size, (255, 255, 255, 255))
        upright = Image.alpha_composite(paper, upright.convert("RGBA"))
        notes.append("transparent parts read as white paper")
    return np.asarray(upright.convert("L"), dtype=np.float32) / 255.0, notes
