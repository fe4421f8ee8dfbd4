"""The image the page reads: a held-out digit, a drawing or an uploaded picture, made 8 x 8 as the digits are."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from analysis.digit_images import INK, as_digit, image_code, image_from_code, picture_ink
from ui import vision_numbers
from pages.vision.canvas import canvas_grid, drawing_canvas
from pages.vision.upload import UPLOAD_TYPES, read_picture
from ui.models import LoadedModel
from ui.screen import settings

SOURCES = ("held-out digit", "draw", "upload")
CODE = "pixels"  # the control (and URL key) holding a drawn or uploaded image as its code (image_code)
OWN = ("draw", "upload")  # the sources whose image is the code's
DRAWN_GRID = "vision_drawn_grid"  # session state: (code, the drawing as the canvas sent it), to draw it again


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
    data = vision_numbers.digits()
    truth = int(data.heldout_labels[index])
    return ChosenImage(
        _as_pixels(data.heldout_images[index, 0].numpy()), truth, f"held-out digit {index + 1} (a {truth})"
    )


def chosen_image(loaded: LoadedModel, drawing: bool) -> ChosenImage | None:
    """The image row (source, held-out number and image code, every section) and, in the drawing section
    (``drawing``), the canvas or the uploader. A drawn or uploaded image lives in the row's code (``CODE``, in
    the URL), so a link or a class following the teacher shows the same image. None, with a message saying
    what to do, when there is no image yet."""
    problem = vision_numbers.digits_problem(loaded.config)
    if problem:
        st.error(problem)
        return None
    count = len(vision_numbers.digits().heldout_labels)
    # On a phone, outside the drawing section, the image's row folds away so that the section's figure comes first.
    with st.container() if drawing else settings("The image"):
        left, middle, right = st.columns([3, 2, 3], vertical_alignment="bottom")
    # A code is an image of one's own: a link of just ?pixels=... shows it, and so does a view whose source the
    # address lost, with the row saying "draw" (picking a held-out digit then empties the code).
    held = st.session_state[CODE] if CODE in st.session_state else st.query_params.get(CODE, "")  # before its control
    if str(held or "").strip() and st.session_state.get("source", st.query_params.get("source")) not in OWN:
        st.session_state["source"] = "draw"
    source = (
        left.segmented_control(
            "image",
            SOURCES,
            default=SOURCES[0],
            required=True,
            key="source",
            bind="query-params",
            on_change=_source_changed,
        )
        or SOURCES[0]
    )
    own = source in OWN
    index = (
        middle.number_input(
            f"held-out digit (1 to {count})",
            1,
            count,
            vision_numbers.SHOWN_DIGIT,
            key="digit",
            bind="query-params",
            disabled=own,
            help="The digits the model never saw in training, in a fixed order.",
        )
        - 1
    )
    typed = right.text_input(
        "image code",
        key=CODE,
        bind="query-params",
        disabled=not own,
        placeholder="64 characters, 0-9 and a-g",
        help=CODE_HELP,
    )
    code = str(typed or "").strip()
    if own and drawing:
        (_canvas if source == "draw" else _uploader)(code)
    if not own:
        return _heldout(int(index))
    if not code:
        if not drawing:
            st.info("No image yet: open **Draw a digit** and draw one or upload a picture, or pick a held-out digit.")
        return None
    made = image_from_code(code)
    if made.image is None:
        st.error(made.problem)
        return None
    return ChosenImage(_as_pixels(made.image), None, "your drawing" if source == "draw" else "your picture")


CODE_HELP = (
    "The drawn or uploaded image as the model reads it: 8 rows of 8 pixels, one character a pixel, 0 (paper) "
    "to g (full ink), 17 levels as in the handwritten digits. It travels with a link: copy it, or type one."
)
CANVAS, UPLOAD = "canvas", "vision_upload"  # the canvas's and the uploader's keys
SENT_GRID = "vision_sent_grid"  # session state: the last drawing the canvas sent, as bytes
SAID = "vision_picture_said"  # session state: (the code it is about, what the last drawing or picture's reading said)


def _source_changed() -> None:
    """A held-out digit picked: the image code empties (it would otherwise stand for the image)."""
    if st.session_state.get("source") not in OWN:
        st.session_state[CODE] = ""


def _say(code: str, kind: str, text: str, source: str) -> None:
    st.session_state[CODE] = code
    st.session_state[SAID] = (code, kind, text, source)


def _stroke() -> None:
    """The canvas sent a drawing (a stroke ended, or Clear): its digit's code, or an empty one with what to do."""
    grid = canvas_grid(CANVAS)
    if grid is None or grid.tobytes() == st.session_state.get(SENT_GRID):
        return  # the canvas sent nothing new (its state met again after the page forgot its controls)
    st.session_state[SENT_GRID] = grid.tobytes()
    if not (grid >= INK).any():
        st.session_state.pop(DRAWN_GRID, None)
        return _say("", "info", "The canvas is blank: draw a digit on it.", "draw")
    made = as_digit(grid)
    code = "" if made.image is None else image_code(made.image)
    st.session_state[DRAWN_GRID] = (code, grid)
    _say(code, "warning" if made.image is None else "", made.problem, "draw")


def _canvas(code: str) -> None:
    """The canvas, showing the drawing behind the code: the strokes as sent where the code is theirs, otherwise
    (a code from a link, the teacher or the keyboard) each pixel as the 4 x 4 cells it counts."""
    kept = st.session_state.get(DRAWN_GRID)
    if kept is not None and kept[0] == code:
        shown = kept[1]
    else:
        made = image_from_code(code) if code else None
        shown = None if made is None or made.image is None else np.kron(made.image, np.ones((4, 4), np.float32))
    drawing_canvas(
        CANVAS,
        "Draw a digit here with a mouse, a pen or a finger (or pick a held-out digit, or upload a picture, above)",
        shown,
        on_change=_stroke,
    )
    st.caption(
        "Draw one digit, large, with a mouse, a finger or the keyboard: each stroke redraws the prediction. **Clear** "
        "starts again."
    )
    _said(code, "draw", "The canvas is blank: draw a digit on it.")


def _picture() -> None:
    """The uploader got a file (or lost it): its digit's code, or an empty one with what is wrong."""
    upload = st.session_state.get(UPLOAD)
    if upload is None:
        return _say("", "", "", "upload")
    picture = read_picture(upload.getvalue())  # the file's name is never shown: it is not ours to render
    if picture.grey is None:
        return _say("", "error", picture.problem, "upload")
    ink, inverted = picture_ink(picture.grey)
    made = as_digit(ink, picture.notes + inverted)
    if made.image is None:
        return _say("", "warning", made.problem, "upload")
    _say(
        image_code(made.image),
        "caption",
        "The picture was "
        + "; ".join((*made.notes, "cut to its ink, centred and counted in 8 x 8 blocks as the digits were"))
        + ".",
        "upload",
    )


def _uploader(code: str) -> None:
    st.file_uploader(
        "a picture of one digit (at most 5 MB)",
        type=UPLOAD_TYPES,
        key=UPLOAD,
        on_change=_picture,
        help="Read by Pillow as grey levels; nothing in the file is executed.",
    )
    _said(
        code,
        "upload",
        "Upload a picture of one digit, dark on light or light on dark, written large with a "
        "thick pen as the digits here were (a thin stroke shrinks to a faint line in 8 x 8).",
    )


def _said(code: str, source: str, empty: str) -> None:
    """What the last drawing or picture's reading said, while the code is still its and its source is shown;
    ``empty`` when there is no code."""
    said_code, kind, text, said_source = st.session_state.get(SAID, ("", "", "", ""))
    if said_code == code and said_source == source and kind and text:
        getattr(st, kind)(text)
    elif not code:
        st.info(empty)
