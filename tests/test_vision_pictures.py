"""The pictures the Vision Transformer page is given: a drawing cut to its ink, an upload converted or refused
with a message, a photo, a transparent or sixteen-bit file."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from analysis.digit_images import as_digit, picture_ink
from pages.vision.canvas import GRID, drawn_grid
from pages.vision.upload import MAX_BYTES, read_picture
from tests.apptest_helpers import assert_no_exception, chart_by_title, run_page

PAGE = "pages/vision/page.py"


def stroke_grid() -> list[int]:
    """A drawn "1": one vertical stroke, as the canvas sends it (GRID x GRID grey levels 0..255)."""
    grid = np.zeros((GRID, GRID), dtype=np.int64)
    grid[4:28, 14:18] = 255
    return grid.ravel().tolist()


def blocks(box: np.ndarray) -> np.ndarray:
    """A 32 x 32 bitmap counted in 4 x 4 blocks, as the digits were made: [8, 8] in 0..1."""
    return box.reshape(8, 4, 8, 4).mean(axis=(1, 3))


def test_a_drawing_is_cut_to_its_ink_centred_and_counted_in_four_by_four_blocks():
    made = as_digit(drawn_grid(stroke_grid()))
    # the stroke, 24 x 4 cells, grows to 32 rows (x 4/3) and round(5.33) = 5 columns, centred: columns 13 .. 17
    box = np.zeros((32, 32))
    box[:, 13:18] = 1.0
    np.testing.assert_allclose(made.image, blocks(box), atol=1e-6)


def test_the_canvas_state_is_checked_before_use():
    assert drawn_grid(None) is None and drawn_grid([0] * 5) is None and drawn_grid(["x"] * GRID * GRID) is None
    assert drawn_grid([float("nan")] * GRID * GRID) is None
    assert drawn_grid([300] * GRID * GRID).max() == 1.0


def test_a_blank_or_inked_over_picture_says_what_to_change():
    assert "blank" in as_digit(np.zeros((32, 32))).problem
    assert "ink" in as_digit(np.ones((32, 32))).problem and as_digit(np.ones((32, 32))).image is None


def png(image: np.ndarray, mode: str = "L") -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(image).convert(mode).save(buffer, format="PNG")
    return buffer.getvalue()


def test_an_uploaded_picture_of_another_size_and_colour_is_converted_and_says_so():
    picture = np.full((120, 90), 255, dtype=np.uint8)  # dark ink on white paper, RGB
    picture[10:110, 40:50] = 0
    read = read_picture(png(picture, "RGB"))
    assert read.grey.shape == (120, 90) and "converted from RGB to grey" in read.notes
    assert "90 x 120 pixels reduced to 8 x 8" in read.notes
    ink, notes = picture_ink(read.grey)
    assert notes == ("inverted: dark ink on a light background",) and ink.max() == 1.0
    # the stroke, 100 x 10 pixels, shrinks to 32 rows and round(3.2) = 3 columns, centred: columns 14 .. 16
    box = np.zeros((32, 32))
    box[:, 14:17] = 1.0
    np.testing.assert_allclose(as_digit(ink).image, blocks(box), atol=1e-6)


def test_what_is_not_a_picture_or_too_large_is_refused_with_a_message():
    assert "not a picture" in read_picture(b"%PDF-1.4 not an image").problem
    assert "at most 5 MB" in read_picture(b"\0" * (MAX_BYTES + 1)).problem


def test_an_uploaded_picture_is_read_on_the_page_and_a_bad_file_gets_a_message():
    picture = np.full((60, 40), 255, dtype=np.uint8)
    picture[5:55, 15:27] = 0  # a dark "1" on white paper, written with a thick pen as the digits were
    at = run_page(PAGE, {"section": "Draw a digit", "source": "upload"})
    assert_no_exception(at)
    assert any("Upload a picture" in i.value for i in at.info)
    at.file_uploader(key="vision_upload").set_value(("one.png", png(picture, "RGB"), "image/png")).run()
    assert_no_exception(at)
    notes = " ".join(c.value for c in at.caption)
    assert "converted from RGB to grey" in notes and "inverted: dark ink on a light background" in notes
    title = chart_by_title(at, "Prediction for your picture")["layout"]["title"]["text"]
    assert title.startswith("Prediction for your picture: 1 ")
    at.file_uploader(key="vision_upload").set_value(("bad.png", b"not a picture", "image/png")).run()
    assert_no_exception(at)
    assert "not a picture this page can read" in at.error[0].value


def test_a_photo_on_grey_paper_reads_its_stroke_and_a_tap_is_too_small():
    photo = np.full((64, 64), 0.72, dtype=np.float32)  # grey paper, as a phone photographs white paper
    photo[8:56, 28:36] = 0.15  # a dark stroke
    ink, notes = picture_ink(photo)
    assert notes == ("inverted: dark ink on a light background",)
    assert ink[0, 0] == 0.0 and ink[30, 30] == 1.0  # the paper is no ink, the darkest stroke is full ink
    made = as_digit(ink)
    assert made.image is not None and made.image[:, 3:5].min() > 0.2
    tap = np.zeros((32, 32))
    tap[15:18, 15:18] = 1.0  # a 3-cell dot on the 32-cell canvas
    assert as_digit(tap).image is None and "too small" in as_digit(tap).problem


def test_a_transparent_or_sideways_or_sixteen_bit_picture_is_read_as_seen():
    stroke = np.zeros((40, 40, 4), dtype=np.uint8)
    stroke[4:36, 17:23] = (0, 0, 0, 255)  # a black stroke on a transparent background
    buffer = io.BytesIO()
    Image.fromarray(stroke, "RGBA").save(buffer, format="PNG")
    read = read_picture(buffer.getvalue())
    assert "transparent parts read as white paper" in read.notes
    assert read.grey[0, 0] == 1.0 and read.grey[20, 20] == 0.0  # white paper, black ink
    deep = (np.zeros((40, 40)) + 60000).astype(np.uint16)
    deep[4:36, 17:23] = 1000
    buffer = io.BytesIO()
    Image.fromarray(deep).save(buffer, format="PNG")
    read = read_picture(buffer.getvalue())
    assert read.grey.max() == 1.0 and read.grey[20, 20] == pytest.approx(1000 / 60000)
    big = np.full((3000, 2000), 255, dtype=np.uint8)  # a phone photo's size: read at most 512 a side
    assert max(read_picture(png(big)).grey.shape) == 512
