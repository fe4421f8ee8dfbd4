"""The image the page reads: a held-out digit, a drawing or an uploaded picture, made 8 x 8 as the digits are."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from analysis.digit_images import INK, as_digit, picture_ink
from pages.vision import numbers
from pages.vision.canvas import drawing_canvas
from pages.vision.upload import UPLOAD_TYPES, read_picture
from ui.models import LoadedModel
from ui.screen import settings

SOURCES = ("held-out digit", "draw", "upload")
FIRST_SHOWN = 8  # the held-out digit a page opens on: a 3, read right (digit 1 is one of the few it gets wrong)
DRAWN, UPLOADED = "vision_drawn", "vision_uploaded"  # session state: the last drawing's and upload's 8 x 8 image
DRAWN_GRID = "vision_drawn_grid"  # session state: the last drawing as the canvas sent it, to draw it again


@dataclass(frozen=True)
class ChosenImage:
    """``pixels``: 64 grey levels in 0..1 (1 = ink), row-major; ``truth``: the digit when known; ``name``."""

    pixels: tuple[float, ...]
    truth: int | None
    name: str

    @property
    def square(self) -> np.ndarray:
        return np.asarray(self.pixels, dtype=np.float32).reshape(8, 8)


def _as_pixels(image: np.ndarray) -> tuple[float, ...]:
    return tuple(float(v) for v in np.asarray(image, dtype=np.float32).ravel())


def _heldout(index: int) -> ChosenImage:
    data = numbers.digits()
    truth = int(data.heldout_labels[index])
    return ChosenImage(_as_pixels(data.heldout_images[index, 0].numpy()), truth,
                       f"held-out digit {index + 1} (a {truth})")


def chosen_image(loaded: LoadedModel, drawing: bool) -> ChosenImage | None:
    """The image row (source and held-out number, every section) and, in the drawing section (``drawing``),
    the canvas or the uploader. None, with a message saying what to do, when there is no image yet."""
    config = loaded.config
    if (config.image_size, config.channels) != (8, 1):
        st.error(f"This page reads 8 x 8 grey digits; this model takes {config.channels}-channel images of "
                 f"{config.image_size} x {config.image_size}. Pick a model trained on the digits.")
        return None
    count = len(numbers.digits().heldout_labels)
    # On a phone, outside the drawing section, the image's row folds away so that the section's figure comes first.
    with (st.container() if drawing else settings("The image")):
        left, right = st.columns([3, 2], vertical_alignment="bottom")
    source = left.segmented_control("image", SOURCES, default=SOURCES[0], required=True, key="source",
                                    bind="query-params") or SOURCES[0]
    index = right.number_input(f"held-out digit (1 to {count})", 1, count, FIRST_SHOWN, key="digit",
                               bind="query-params", disabled=source != SOURCES[0],
                               help="The digits the model never saw in training, in a fixed order.") - 1
    if source == "draw":
        return _drawn() if drawing else _kept(DRAWN, "draw a digit")
    if source == "upload":
        return _uploaded() if drawing else _kept(UPLOADED, "upload a picture")
    return _heldout(int(index))


def _kept(key: str, what: str) -> ChosenImage | None:
    kept = st.session_state.get(key)
    if kept is None:
        st.info(f"No image yet: open **Draw a digit** and {what}, or pick a held-out digit.")
    return kept


def _drawn() -> ChosenImage | None:
    kept = st.session_state.get(DRAWN_GRID)
    grid = drawing_canvas("canvas", "Draw a digit here with a mouse, a pen or a finger (or pick a held-out digit, "
                                    "or upload a picture, above)", kept)
    st.caption("Draw one digit, large, with a mouse or a finger: each stroke redraws the prediction. "
               "**Clear** starts again.")
    if grid is None and kept is not None:  # the canvas mounted again: the drawing it shows is the kept one
        grid = kept
    if grid is None or not (grid >= INK).any():  # nothing drawn yet, or cleared
        st.session_state.pop(DRAWN, None)
        st.session_state.pop(DRAWN_GRID, None)
        st.info("The canvas is blank: draw a digit on it.")
        return None
    st.session_state[DRAWN_GRID] = grid
    made = as_digit(grid)
    if made.image is None:
        st.session_state.pop(DRAWN, None)
        st.warning(made.problem)
        return None
    st.session_state[DRAWN] = ChosenImage(_as_pixels(made.image), None, "your drawing")
    return st.session_state[DRAWN]


def _uploaded() -> ChosenImage | None:
    upload = st.file_uploader("a picture of one digit (at most 5 MB)", type=UPLOAD_TYPES, key="vision_upload",
                              help="Read by Pillow as grey levels; nothing in the file is executed.")
    if upload is None:
        return st.session_state.get(UPLOADED) or _nothing_uploaded()
    picture = read_picture(upload.getvalue())  # the file's name is never shown: it is not ours to render
    if picture.grey is None:
        st.error(picture.problem)
        return None
    ink, inverted = picture_ink(picture.grey)
    made = as_digit(ink, picture.notes + inverted)
    if made.image is None:
        st.warning(made.problem)
        return None
    st.caption("The picture was " + "; ".join((*made.notes, "cut to its ink, centred and counted in 8 x 8 blocks "
                                                             "as the digits were")) + ".")
    st.session_state[UPLOADED] = ChosenImage(_as_pixels(made.image), None, "your picture")
    return st.session_state[UPLOADED]


def _nothing_uploaded() -> None:
    st.info("Upload a picture of one digit, dark on light or light on dark, written large with a thick pen as the "
            "digits here were (a thin stroke shrinks to a faint line in 8 x 8).")
    return None
