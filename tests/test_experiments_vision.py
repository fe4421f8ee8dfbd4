"""The Experiments page on a Vision Transformer (the shipped digits ViT): Knock out sweeps every head against
the model run by hand with each head ablated, Patching gives one held-out digit's heads to another exactly
as ``Patch`` does, and the token sections say what they read instead of failing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from tests.apptest_helpers import title_text, assert_no_exception, chart_by_title, decode_array, run_page
from tests.test_page_vision import knock_out_by_hand
from transformer import Patch, load_checkpoint, load_digits
from ui.model_picker import shipped_label

PAGE = "pages/experiments/page.py"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def shipped():
    model, _ = load_checkpoint(ROOT / "checkpoints" / "digits_vit.safetensors")
    return model.eval(), load_digits()


def open_with_vit(**query):
    at = run_page(PAGE, {"model": shipped_label("digits_vit"), **query})
    assert_no_exception(at)
    return at


def test_knock_out_sweeps_every_head_of_the_vit_on_the_held_out_digits(shipped):
    model, digits = shipped
    at = open_with_vit(section="Knock out")
    base, expected = knock_out_by_hand(model, digits)
    spec = chart_by_title(at, "Held-out accuracy with one head knocked out")
    np.testing.assert_allclose(decode_array(spec["data"][0]["z"]).astype(np.float64), expected, atol=1e-6)
    layer, head = np.unravel_index(np.argmin(expected), expected.shape)
    assert expected[layer, head] < 0  # the shipped model has a head it needs
    assert title_text(spec) == (
        f"Held-out accuracy with one head knocked out: layer {layer + 1} · head {head + 1} costs the most, "
        f"{base:.1%} → {base + expected[layer, head]:.1%}"
    )


def test_patching_gives_one_held_out_digits_heads_to_another(shipped):
    model, digits = shipped
    at = open_with_vit(section="Patching", target_digit="5", src_digit="9", patch_layer="1", patch_heads=["1", "3"])
    with torch.inference_mode():
        record = model(digits.heldout_images[8:9], return_internals=True).attention
        patched = model(
            digits.heldout_images[4:5], interventions=[Patch("encoder.layers.0.self_attn", [0, 2], record)]
        ).logits
        plain = model(digits.heldout_images[4:5]).logits
    truth, source_truth = int(digits.heldout_labels[4]), int(digits.heldout_labels[8])
    after = chart_by_title(at, f"Layer 1, 2 head(s) from held-out digit 9 (a {source_truth})")
    before = chart_by_title(at, f"held-out digit 5 (a {truth}): as read")
    np.testing.assert_allclose(decode_array(after["data"][0]["y"]), torch.softmax(patched[0], -1).numpy(), atol=1e-5)
    np.testing.assert_allclose(decode_array(before["data"][0]["y"]), torch.softmax(plain[0], -1).numpy(), atol=1e-5)
    for spec, logits in ((before, plain), (after, patched)):  # each title names the class read, with its probability
        probabilities = torch.softmax(logits[0], -1)
        best = int(probabilities.argmax())
        assert title_text(spec).endswith(f"reads a {best} ({float(probabilities[best]):.0%})")


@pytest.mark.parametrize("section", ["Importance", "Circuit", "Logit lens", "Attribution", "Build a head"])
def test_a_token_section_tells_what_this_page_does_with_a_vit(section):
    at = open_with_vit(section=section)
    assert "For it this page has **Knock out** and **Patching**" in at.info[0].value
