"""A drawn or uploaded digit travels in the URL as its image code (``pixels``): 64 characters, one a pixel, at
the digits' own 17 grey levels. Checked against the data set's counts, and on the page: a link draws the image
it names, a bad code is said, an upload writes its code, and each source keeps its own image."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from analysis.digit_images import as_digit, image_code, image_from_code, picture_ink
from pages.vision.upload import read_picture
from tests.apptest_helpers import assert_no_exception, chart_by_title, chart_specs, decode_array, run_page
from tests.test_vision_pictures import png
from transformer import load_checkpoint, load_digits

PAGE = "pages/vision/page.py"
ROOT = Path(__file__).resolve().parent.parent


def level_character(count: int) -> str:
    """A count 0..16 written as the code writes it: 0-9, then a (10) to g (16)."""
    return str(count) if count < 10 else "abcdefg"[count - 10]


def test_a_held_out_digits_code_is_its_counts_row_by_row_and_reads_back_exactly():
    digits = load_digits()
    for number in (0, 7, 100):
        image = digits.heldout_images[number, 0].numpy()
        counts = np.rint(image * 16).astype(int)
        assert np.array_equal(counts / 16, image)  # the data set's pixels are counts of 16
        code = image_code(image)
        assert code == "".join(level_character(c) for c in counts.ravel())
        assert np.array_equal(image_from_code(code).image, image)
        assert np.array_equal(image_from_code(code.upper()).image, image)


def test_a_drawing_between_levels_is_rounded_to_the_nearest_of_the_seventeen():
    image = np.linspace(0.0, 1.0, 64, dtype=np.float32).reshape(8, 8)
    back = image_from_code(image_code(image)).image
    assert np.abs(back - image).max() <= 1 / 32 + 1e-6
    assert image_code(np.full((8, 8), np.nan)) == "0" * 64  # nothing that is not a number is ink


@pytest.mark.parametrize("code", ["", "12", "0" * 63, "0" * 65])
def test_a_code_of_the_wrong_length_says_how_long_it_is(code):
    made = image_from_code(code)
    assert made.image is None
    assert "64 characters" in made.problem and f"this one has {len(code)}" in made.problem


@pytest.mark.parametrize(
    "code, pixel",
    [("h" * 64, 1), ("0" * 63 + "-", 64), ("<b>" * 21 + "0", 1), ("0" * 10 + "ģ" + "0" * 53, 11), ("İ" * 64, 1)],
)
def test_a_code_with_a_character_that_is_no_level_names_its_pixel(code, pixel):
    made = image_from_code(code)
    assert made.image is None and f"pixel {pixel} is not" in made.problem


def test_a_link_with_a_code_draws_that_image_in_every_section_and_the_model_reads_it():
    digits = load_digits()
    image = digits.heldout_images[3, 0].numpy()
    model, _ = load_checkpoint(ROOT / "checkpoints" / "digits_vit.safetensors")
    with torch.no_grad():
        expected = torch.softmax(model(torch.from_numpy(image)[None, None]).logits, -1)[0].numpy()
    at = run_page(PAGE, {"section": "Draw a digit", "source": "draw", "pixels": image_code(image)})
    assert_no_exception(at)
    assert not at.info and not at.warning and not at.error  # no "blank canvas": the code is the drawing
    seen = chart_by_title(at, "What the model reads")
    assert np.allclose(decode_array(seen["data"][0]["z"]).astype(np.float64), image, atol=1e-6)
    bars = chart_by_title(at, "Prediction for your drawing")
    assert np.allclose(decode_array(bars["data"][0]["y"]).astype(np.float64), expected, atol=1e-5)
    assert at.text_input(key="pixels").value == image_code(image)

    other = run_page(PAGE, {"section": "Attention on the image", "source": "upload", "pixels": image_code(image)})
    assert_no_exception(other)
    assert not other.info and not other.error


def test_a_typed_code_that_does_not_read_is_said_and_nothing_is_drawn():
    at = run_page(PAGE, {"section": "Patches", "source": "draw", "pixels": "0" * 10})
    assert_no_exception(at)
    assert "this one has 10" in at.error[0].value
    assert chart_specs(at) == []  # no figure of an image that is not there


def test_an_upload_writes_its_code_and_picking_a_held_out_digit_empties_it():
    picture = np.full((60, 40), 255, dtype=np.uint8)
    picture[5:55, 15:27] = 0  # a dark "1" on white paper
    at = run_page(PAGE, {"section": "Draw a digit", "source": "upload"})
    assert at.text_input(key="pixels").value == ""
    at.file_uploader(key="vision_upload").set_value(("one.png", png(picture, "RGB"), "image/png")).run()
    assert_no_exception(at)
    ink, notes = picture_ink(read_picture(png(picture, "RGB")).grey)
    expected = image_code(as_digit(ink, notes).image)
    assert at.text_input(key="pixels").value == expected
    at.button_group(key="source").set_value("draw").run()  # one image code: the canvas starts from the picture
    assert at.text_input(key="pixels").value == expected and not at.info
    assert chart_by_title(at, "Prediction for your drawing")
    at.button_group(key="source").set_value("held-out digit").run()
    assert at.text_input(key="pixels").value == "" and at.text_input(key="pixels").disabled
    assert chart_by_title(at, "Prediction for held-out digit 8")
    assert_no_exception(at)


def test_a_link_of_just_a_code_shows_that_image():
    image = load_digits().heldout_images[3, 0].numpy()
    at = run_page(PAGE, {"pixels": image_code(image)})
    assert_no_exception(at)
    seen = chart_by_title(at, "What the model reads")
    assert np.allclose(decode_array(seen["data"][0]["z"]).astype(np.float64), image, atol=1e-6)
    assert at.button_group(key="source").value == "draw"  # the row says where the image is from
    assert at.number_input(key="digit").disabled and not at.text_input(key="pixels").disabled
    at.button_group(key="source").set_value("held-out digit").run()
    assert at.text_input(key="pixels").value == "" and chart_by_title(at, "Prediction for held-out digit 8")
