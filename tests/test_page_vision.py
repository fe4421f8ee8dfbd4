"""The Vision Transformer page in AppTest: what each section draws, against the shipped digits ViT run here,
and the pictures it is given (drawn, uploaded, bad)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch

from tests.apptest_helpers import assert_no_exception, chart_by_title, chart_specs, decode_array, run_page, title_text
from transformer import Ablate, load_checkpoint, load_digits

PAGE = "pages/vision/page.py"
ROOT = Path(__file__).resolve().parent.parent
SECTIONS = (
    "Draw a digit",
    "Patches",
    "Attention on the image",
    "Position embeddings",
    "Attention distance",
    "Patch filters",
    "Knock out",
)
DIGIT = 8  # the held-out digit the page opens on (counted from 1)


def shipped_vit():
    """The shipped ViT and the digits it was trained and held out on."""
    model, _ = load_checkpoint(ROOT / "checkpoints" / "digits_vit.safetensors")
    return model, load_digits()


@pytest.fixture(scope="module")
def shipped():
    return shipped_vit()


def heldout(digits, number: int) -> torch.Tensor:
    return digits.heldout_images[number - 1 : number]


def inked(digits) -> np.ndarray:
    """[16]: which 2 x 2 patches of the opening digit hold a pixel of ink at half or more, row-major."""
    image = heldout(digits, DIGIT)[0, 0].numpy()  # [8, 8]
    return np.array([image[2 * r : 2 * r + 2, 2 * c : 2 * c + 2].max() >= 0.5 for r in range(4) for c in range(4)])


def share_on_ink(row: np.ndarray, digits) -> float:
    """A query's weights over the 16 patches: the share of them on the patches with ink."""
    return float(row[inked(digits)].sum() / row.sum())


def z(spec: dict, index: int = 0) -> np.ndarray:
    return decode_array(spec["data"][index]["z"]).astype(np.float64)


def bars(spec: dict) -> np.ndarray:
    return decode_array(spec["data"][0]["y"]).astype(np.float64)


@pytest.mark.parametrize("section", SECTIONS)
def test_every_section_draws_on_the_shipped_model(section):
    at = run_page(PAGE, {"section": section})
    assert_no_exception(at)
    assert chart_specs(at), section


def test_the_prediction_is_the_models_own_on_the_held_out_digit(shipped):
    model, digits = shipped
    at = run_page(PAGE, {"section": "Draw a digit"})
    with torch.inference_mode():
        expected = torch.softmax(model(heldout(digits, DIGIT)).logits[0], -1).numpy()
    spec = chart_by_title(at, "Prediction for held-out digit 8")
    np.testing.assert_allclose(bars(spec), expected, atol=1e-5)
    truth = int(digits.heldout_labels[DIGIT - 1])
    assert spec["layout"]["title"]["text"].startswith(f"Prediction for held-out digit {DIGIT} (a {truth}): {truth} ")
    seen = z(chart_by_title(at, "What the model reads"))
    np.testing.assert_allclose(seen, heldout(digits, DIGIT)[0, 0].numpy(), atol=1e-6)
    caption = " ".join(c.value for c in at.caption)
    with torch.inference_mode():
        accuracy = float((model(digits.heldout_images).logits.argmax(-1) == digits.heldout_labels).float().mean())
    assert f"held-out accuracy is {accuracy:.1%}" in caption and "It is right." in caption


def test_the_patches_are_the_images_pixels_in_row_major_order():
    at = run_page(PAGE, {"section": "Patches", "patch": "4"})
    assert_no_exception(at)
    image = load_digits().heldout_images[DIGIT - 1, 0].numpy()
    strip = z(chart_by_title(at, "The sequence the encoder reads"))
    # token t (t = 0 is [CLS]) sits at columns 5t .. 5t + 3 (4 pixels and a gap); patch i = token i + 1
    for i in range(4):
        r, s = divmod(i, 2)
        np.testing.assert_allclose(
            strip[0:4, 5 * (i + 1) : 5 * (i + 1) + 4], image[4 * r : 4 * r + 4, 4 * s : 4 * s + 4]
        )
    text = " ".join(m.value for m in at.markdown)
    assert "**N = 4 patches**" in text and "**5 tokens**" in text
    inked = sum(image[4 * r : 4 * r + 4, 4 * s : 4 * s + 4].max() >= 0.5 for r in range(2) for s in range(2))
    assert title_text(chart_by_title(at, "2 × 2 patches of 4 × 4")).endswith(f": {inked} of 4 hold ink")


def test_a_patch_size_that_does_not_divide_the_image_falls_back_to_one_that_does():
    at = run_page(PAGE, {"section": "Patches", "patch": "3"})
    assert_no_exception(at)
    assert at.select_slider(key="patch").value in (1, 2, 4, 8)


@pytest.mark.parametrize("query,token", [("[CLS]", 0), ("patch 6", 6)])
def test_each_heads_map_is_the_querys_row_over_the_patches(shipped, query, token):
    model, digits = shipped
    at = run_page(PAGE, {"section": "Attention on the image", "query": query})
    assert_no_exception(at)
    with torch.inference_mode():
        record = model(heldout(digits, DIGIT), return_attention=True).attention
    spec = chart_by_title(at, "attention over the patches")
    on_ink = {}
    for layer in range(2):
        weights = record.weights[f"encoder.layers.{layer}.self_attn"][0].numpy()  # [H, 17, 17]
        for head in range(4):
            glow = z(spec, 3 * (layer * 4 + head))  # traces: map, its outline (two lines), map, ...
            expected = np.kron(weights[head, token, 1:].reshape(4, 4), np.ones((2, 2)))
            np.testing.assert_allclose(glow, expected, atol=1e-5)
            on_ink[f"layer {layer + 1} · head {head + 1}"] = share_on_ink(weights[head, token, 1:], digits)
    best = max(on_ink, key=on_ink.get)
    assert title_text(spec) == (
        f"{query}'s attention over the patches: {best} puts the most on the digit, {on_ink[best]:.0%} of its "
        f"patch weight on the {inked(digits).sum()} of 16 patches with ink"
    )


def test_rollout_is_the_mean_heads_with_the_residual_multiplied_through_the_layers(shipped):
    model, digits = shipped
    at = run_page(PAGE, {"section": "Attention on the image", "rollout": "true"})
    assert_no_exception(at)
    with torch.inference_mode():
        record = model(heldout(digits, DIGIT), return_attention=True).attention
    rolled = np.eye(17)
    for layer in range(2):
        mixed = 0.5 * record.weights[f"encoder.layers.{layer}.self_attn"][0].numpy().mean(0) + 0.5 * np.eye(17)
        rolled = (mixed / mixed.sum(-1, keepdims=True)) @ rolled
    glow = z(chart_by_title(at, "Rollout: where"), 0)
    np.testing.assert_allclose(glow, np.kron(rolled[0, 1:].reshape(4, 4), np.ones((2, 2))), atol=1e-5)
    assert title_text(chart_by_title(at, "Rollout: where")) == (
        f"Rollout: where [CLS] reads from: {share_on_ink(rolled[0, 1:], digits):.0%} of its patch weight on the "
        f"{inked(digits).sum()} of 16 patches with ink"
    )
    assert any("heuristic" in c.value for c in at.caption)


def test_position_similarity_is_the_cosine_of_the_learned_table_and_the_text_reads_it(shipped):
    model, _ = shipped
    at = run_page(PAGE, {"section": "Position embeddings"})
    assert_no_exception(at)
    table = model.embed.position.table.weight.detach().numpy()[1:].astype(np.float64)
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    cosine = unit @ unit.T
    board = z(chart_by_title(at, "Cosine similarity of each patch's position embedding"))
    for i in range(16):  # patch i's small map sits at its own place in the 4 x 4 arrangement, 5 cells a step
        r, s = divmod(i, 4)
        np.testing.assert_allclose(board[5 * r : 5 * r + 4, 5 * s : 5 * s + 4], cosine[i].reshape(4, 4), atol=1e-5)
    rows, columns = np.divmod(np.arange(16), 4)
    steps = np.abs(rows[:, None] - rows[None]) + np.abs(columns[:, None] - columns[None])
    text = " ".join(m.value for m in at.markdown)
    near, far = cosine[steps == 1].mean(), cosine[steps >= 4].mean()
    assert f"neighbours {near:.2f} on average, patches 4 or more steps apart {far:.2f}" in text
    assert title_text(chart_by_title(at, "Cosine similarity of each patch's position embedding")).endswith(
        f": neighbours {near:.2f} on average, 4 or more steps apart {far:.2f}"
    )
    assert ("neighbours are more alike" in text) is bool(near > far)


def test_the_model_without_positions_is_measured_and_worse(shipped):
    model, digits = shipped
    twin, _ = load_checkpoint(ROOT / "checkpoints" / "digits_vit_nopos.safetensors")
    assert twin.config.positional == "none"
    with torch.inference_mode():
        scores = [
            float((m(digits.heldout_images).logits.argmax(-1) == digits.heldout_labels).float().mean())
            for m in (model, twin)
        ]
    at = run_page(PAGE, {"section": "Position embeddings"})
    caption = " ".join(c.value for c in at.caption)
    assert f"held-out accuracy {scores[1]:.1%}, against {scores[0]:.1%} with them" in caption
    assert scores[1] < scores[0] - 0.2


def test_attention_distance_is_the_renormalised_weighted_pixel_distance(shipped):
    model, digits = shipped
    at = run_page(PAGE, {"section": "Attention distance"})
    assert_no_exception(at)
    with torch.inference_mode():
        record = model(digits.heldout_images, return_attention=True).attention
    centres = np.array([[2 * (i // 4) + 1.0, 2 * (i % 4) + 1.0] for i in range(16)])
    distance = np.array([[math.dist(a, b) for b in centres] for a in centres])
    spec = chart_by_title(at, "looks the most locally")
    every = []
    for layer in range(2):
        weights = record.weights[f"encoder.layers.{layer}.self_attn"].numpy().astype(np.float64)[:, :, 1:, 1:]
        shares = weights / weights.sum(-1, keepdims=True)
        expected = (shares * distance).sum(-1).mean(axis=(0, 2))  # [H]
        drawn = [decode_array(spec["data"][head + 1]["y"])[layer] for head in range(4)]
        np.testing.assert_allclose(drawn, expected, atol=1e-4)
        every.append(expected)
    reference = spec["data"][0]  # the dotted line of uniform attention, under the points, named in the legend
    assert reference["y"] == [pytest.approx(distance.mean())] * 2 and reference["line"]["dash"] == "dot"
    assert reference["name"] == f"uniform attention: {distance.mean():.2f}" and not spec["layout"].get("shapes")
    assert reference["legendrank"] > 1000 and "rangemode" not in spec["layout"]["yaxis"]  # named last; not from 0
    every = np.array(every)  # [L, H]
    (sl, sh), (wl, wh) = np.unravel_index(every.argmin(), every.shape), np.unravel_index(every.argmax(), every.shape)
    assert title_text(spec) == (
        f"On the held-out digits, layer {sl + 1} · head {sh + 1} looks the most locally ({every[sl, sh]:.2f} pixels "
        f"on average), layer {wl + 1} · head {wh + 1} the widest ({every[wl, wh]:.2f})"
    )


def test_patch_filters_are_the_principal_components_of_the_embedding_rows(shipped):
    model, _ = shipped
    at = run_page(PAGE, {"section": "Patch filters"})
    assert_no_exception(at)
    filters = model.embed.projection.weight.detach().numpy().astype(np.float64)  # [64, 4]
    centred = filters - filters.mean(0)
    values, vectors = np.linalg.eigh(centred.T @ centred)  # the covariance's eigenvectors, independently of SVD
    order = np.argsort(values)[::-1]
    spec = chart_by_title(at, "of the patch filters' variance")
    for k in range(4):
        drawn = z(spec, k).ravel()
        expected = vectors[:, order[k]]
        assert min(np.abs(drawn - expected).max(), np.abs(drawn + expected).max()) < 1e-4  # up to its sign
    shares = values[order] / values.sum()
    assert [a["text"] for a in spec["layout"]["annotations"][:4]] == [f"PC {k + 1}: {shares[k]:.0%}" for k in range(4)]
    caption = " ".join(element.value for element in at.caption)
    rank = np.linalg.matrix_rank(centred)  # 4: the pixel values of a 2 x 2 patch, fewer than 64 filters less one
    assert f"span at most {rank} directions" in caption
    assert f"the first 2 explain {shares[:2].sum():.0%}" in caption
    title = title_text(spec)
    assert title == f"PC 1–2 of {rank}: {shares[:2].sum():.0%} of the patch filters' variance"


def knock_out_by_hand(model, digits) -> tuple[float, np.ndarray]:
    """Held-out accuracy, and its change ``[layers, heads]`` with each head ablated alone, run here."""
    with torch.inference_mode():

        def accuracy(interventions=()):
            out = model(digits.heldout_images, interventions=interventions).logits
            return float((out.argmax(-1) == digits.heldout_labels).float().mean())

        base = accuracy()
        return base, np.array(
            [
                [
                    accuracy([Ablate(f"encoder.layers.{layer}.self_attn", [head])]) - base
                    for head in range(model.config.num_heads)
                ]
                for layer in range(model.config.num_encoder_layers)
            ]
        )


def test_knocking_out_each_head_is_zeroing_its_output(shipped):
    model, digits = shipped
    at = run_page(PAGE, {"section": "Knock out"})
    assert_no_exception(at)
    _, expected = knock_out_by_hand(model, digits)
    np.testing.assert_allclose(
        z(chart_by_title(at, "Held-out accuracy with one head knocked out")), expected, atol=1e-6
    )
    assert (expected < 0).any()


def test_patching_every_head_of_the_last_layer_from_another_digit_moves_the_prediction(shipped):
    model, digits = shipped
    at = run_page(PAGE, {"section": "Knock out", "patch_layer": "2"})
    assert_no_exception(at)
    source = heldout(digits, 2)
    with torch.inference_mode():
        from transformer import Patch

        record = model(source, return_internals=True).attention
        patched = model(
            heldout(digits, DIGIT), interventions=[Patch("encoder.layers.1.self_attn", [0, 1, 2, 3], record)]
        ).logits
    expected = torch.softmax(patched[0], -1).numpy()
    np.testing.assert_allclose(
        bars(chart_by_title(at, "Layer 2, 4 head(s) from held-out digit 2")), expected, atol=1e-5
    )


# Pictures: drawn, uploaded, and what is refused.


def test_the_page_refuses_a_text_model_and_a_text_page_refuses_the_vision_model():
    from ui.model_picker import offered_models

    vision_labels = list(offered_models(("vision",)))
    assert vision_labels and all("Vision Transformer" in label for label in vision_labels)
    assert not [
        label for label in offered_models(("encoder-only", "decoder-only", "encoder-decoder")) if "Vision" in label
    ]
