"""The digits task of the Train page: a Vision Transformer trained live by the same ``Trainer`` as the token
tasks. Its loss is the [CLS] cross-entropy, its accuracy and head score are checked against the model run by
hand, it reaches its target within the budget, and the page trains it, scrubs its [CLS] maps and hands the
model to the Vision page."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from tests.apptest_helpers import title_text, assert_no_exception, chart_by_title, decode_array, run_page
from transformer import DigitsTask, Trainer, TrainingSetup, build_model, default_setup, load_digits, make_task
from transformer.digits_task import PROBE_INDEX, cls_focus

PAGE = "pages/train/page.py"


def test_a_digits_batch_is_images_with_their_digits_from_the_training_split():
    task = make_task("digits")
    assert isinstance(task, DigitsTask) and task.kind == "vision"
    digits = load_digits()
    generator = torch.Generator().manual_seed(5)
    batch = task.batch(16, generator)
    index = torch.randint(0, len(digits.train_labels), (16,), generator=torch.Generator().manual_seed(5))
    assert torch.equal(batch.inputs, digits.train_images[index]) and batch.inputs.shape == (16, 1, 8, 8)
    assert torch.equal(batch.targets[:, 0], digits.train_labels[index]) and batch.loss_mask.all()
    held = task.held_out(8, 32, generator)
    assert len(held) == 1 and torch.equal(held[0].inputs, digits.heldout_images)
    assert torch.equal(task.probe().inputs[0], digits.heldout_images[PROBE_INDEX])


@pytest.mark.parametrize("kind", ["decoder-only", "encoder-decoder"])
def test_the_digits_task_is_vision_only_and_the_token_tasks_are_not(kind):
    with pytest.raises(ValueError, match="kind 'vision'"):
        TrainingSetup(task="digits", kind=kind)
    with pytest.raises(ValueError, match="kind 'vision'"):
        TrainingSetup(task="copy", kind="vision")


def test_cls_focus_is_zero_for_an_even_spread_and_one_for_a_single_patch():
    even = torch.full((1, 2, 17, 17), 1 / 17)
    single = torch.zeros(1, 2, 17, 17)
    single[:, :, 0, 5] = 1.0
    assert np.allclose(cls_focus(even), 0.0, atol=1e-6) and np.allclose(cls_focus(single), 1.0, atol=1e-6)
    half = torch.zeros(1, 1, 17, 17)
    half[:, :, 0, 1:3] = 0.5  # two patches alike: 1 - log 2 / log 16 = 0.75
    assert cls_focus(half)[0] == pytest.approx(1 - math.log(2) / math.log(16))


def test_the_trainers_metrics_are_the_models_own_on_the_held_out_digits():
    trainer = Trainer(default_setup("digits"))
    trainer.train(20)
    row = trainer.history[-1]
    digits = load_digits()
    model = trainer.model.eval()
    with torch.no_grad():
        out = model(digits.heldout_images, return_attention=True)
    trainer.model.train()
    assert row["val_loss"] == pytest.approx(float(F.cross_entropy(out.logits, digits.heldout_labels)), rel=1e-5)
    accuracy = float((out.logits.argmax(-1) == digits.heldout_labels).float().mean())
    assert row["val_accuracy"] == pytest.approx(accuracy)
    weights = [out.attention.weights[f"encoder.layers.{layer}.self_attn"] for layer in range(2)]
    by_hand = []
    for w in weights:  # 1 - H(a)/log 16 of [CLS]'s row over the patches, renormalised, averaged over the images
        a = w[:, :, 0, 1:] / w[:, :, 0, 1:].sum(-1, keepdim=True)
        by_hand.append((1 + (a * a.clamp_min(1e-12).log()).sum(-1) / math.log(16)).mean(0).numpy())
    assert np.allclose(row["head_scores"], np.stack(by_hand), atol=1e-5)
    assert set(trainer.snapshots[-1].weights) == {"encoder.layers.0.self_attn", "encoder.layers.1.self_attn"}


@pytest.mark.serial  # timed: alone on the machine
def test_the_digits_vit_reaches_ninety_five_percent_within_thirty_seconds_on_two_threads():
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    start = time.perf_counter()
    trainer = Trainer(default_setup("digits"))
    while not trainer.done:
        trainer.train(20)
    seconds = time.perf_counter() - start
    torch.set_num_threads(threads)
    assert trainer.task.reached(trainer.history[-1]), trainer.history[-1]
    assert trainer.history[-1]["val_accuracy"] >= 0.95 and seconds < 30, (trainer.step, seconds)
    first, last = np.asarray(trainer.history[0]["head_scores"]), np.asarray(trainer.history[-1]["head_scores"])
    assert last.max() > first.max()  # [CLS] reads the image more sharply once trained


def cls_rows(model, image: torch.Tensor) -> list[np.ndarray]:
    """[CLS]'s attention over the 4 x 4 patches, ``[layer][head] -> [4, 4]``, of ``model`` (eval mode) on ``image``."""
    was_training = model.training
    model.eval()
    with torch.no_grad():
        record = model(image, return_attention=True).attention
    model.train(was_training)
    return [
        [
            record.weights[f"encoder.layers.{layer}.self_attn"][0, head, 0, 1:].reshape(4, 4).numpy()
            for head in range(model.config.num_heads)
        ]
        for layer in range(model.config.num_encoder_layers)
    ]


def test_the_page_trains_digits_shows_cls_over_the_image_and_hands_the_model_to_the_vision_page():
    at = run_page(PAGE, {"keep": "true"})
    at.selectbox(key="task").set_value("digits").run()  # the task's recommended settings come with it
    assert_no_exception(at)
    assert at.select_slider(key="heads").value == 4 and at.selectbox(key="pe").value == "learned"
    assert at.selectbox(key="kind").options == ["Vision Transformer: 2 × 2 patches and [CLS]"]
    for _ in range(2):  # a snapshot every 20 steps
        at.button(key="step").click().run()
        assert_no_exception(at)
    run = at.session_state["trainer"]
    assert run.step == 20 and run.task.kind == "vision"
    spec = chart_by_title(at, "Step 20 · [CLS]'s attention over a held-out digit (a 3)")
    glows = [decode_array(trace["z"]) for trace in spec["data"] if trace["type"] == "heatmap"]  # the outlines: contours
    weights = cls_rows(run.model, run.task.probe().inputs)  # the model as it is now, at step 20, run here
    expected = [weights[layer][head] for layer in range(2) for head in range(4)]
    assert len(glows) == 8
    for glow, cls in zip(glows, expected):
        assert np.allclose(glow, np.kron(cls, np.ones((2, 2))), atol=1e-6)
    image = run.task.probe().inputs[0, 0].numpy()  # [8, 8]
    inked = np.array([image[2 * r : 2 * r + 2, 2 * c : 2 * c + 2].max() >= 0.5 for r in range(4) for c in range(4)])
    shares = [float(np.asarray(cls).reshape(-1)[inked].sum() / np.asarray(cls).sum()) for cls in expected]
    best = int(np.argmax(shares))
    assert title_text(spec).endswith(
        f": layer {best // 4 + 1} · head {best % 4 + 1} puts the most on the digit, {shares[best]:.0%} of its patch "
        f"weight on the {inked.sum()} of 16 patches with ink"
    )
    assert any("Vision Transformer" in m.value for m in at.markdown)
    at.select_slider(key="snap").set_value(0).run()  # scrub back: the untrained model's even wash
    assert_no_exception(at)
    first = chart_by_title(at, "Step 0 · [CLS]'s attention over a held-out digit (a 3)")
    untrained = build_model(run.config, run.setup.seed, "vision")  # the same seed: the weights at step 0
    start = cls_rows(untrained, run.task.probe().inputs)
    assert np.allclose(decode_array(first["data"][0]["z"]), np.kron(start[0][0], np.ones((2, 2))), atol=1e-6)
    at.button(key="use").click().run()
    assert_no_exception(at)
    at.switch_page("pages/vision/page.py")
    at.run()
    assert_no_exception(at)
    assert any(option.startswith("digits-2L4H") for option in at.selectbox(key="model").options)
