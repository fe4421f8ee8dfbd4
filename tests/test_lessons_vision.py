"""The lesson "From words to patches" on the Vision page: each view opens as linked and draws what its text says,
checked against the shipped ViT and the held-out digits."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tests.apptest_helpers import chart_by_title, title_text
from tests.test_page_vision import DIGIT, ROOT, heldout, shipped_vit, z
from transformer import load_checkpoint


@pytest.fixture(scope="module")
def shipped():
    return shipped_vit()


def test_the_lessons_first_view_counts_the_tokens_it_names():
    from tests.lesson_views import lesson_of, open_view

    lesson = lesson_of("patches")
    assert [view.page for view in lesson.views] == ["vision"] * 4
    at = open_view("patches", 0)
    text = " ".join(m.value for m in at.markdown)
    assert "**N = 16 patches**" in text and "**17 tokens**" in text  # "16 patch tokens ... reads 17 tokens"
    at.select_slider(key="patch").set_value(4).run()
    assert "**5 tokens**" in " ".join(m.value for m in at.markdown)  # the question's answer, drawn
    assert lesson.views[0].ask.is_right(5)


def test_the_lessons_cls_view_draws_rows_that_sum_to_one_with_heads_that_differ(shipped):
    from tests.lesson_views import open_view

    model, digits = shipped
    at = open_view("patches", 1)
    glows = [z(chart_by_title(at, "[CLS]'s attention over the patches"), 3 * k)[::2, ::2] for k in range(8)]
    with torch.inference_mode():
        record = model(heldout(digits, DIGIT), return_attention=True).attention
    for layer in range(2):
        rows = record.weights[f"encoder.layers.{layer}.self_attn"][0, :, 0].numpy()  # [H, 17]: [CLS]'s rows
        np.testing.assert_allclose(rows.sum(-1), 1.0, atol=1e-5)
        for head in range(4):
            np.testing.assert_allclose(glows[4 * layer + head].ravel(), rows[head, 1:], atol=1e-5)
    peaks = [g.max() / g.sum() for g in glows]  # "some spread over the strokes, some settle on a few patches"
    assert max(peaks) > 2 * min(peaks)


def test_the_lessons_positions_view_and_its_answer_hold(shipped):
    from tests.lesson_views import open_view

    twin, _ = load_checkpoint(ROOT / "checkpoints" / "digits_vit_nopos.safetensors")
    image = heldout(shipped[1], DIGIT)
    order = torch.randperm(16, generator=torch.Generator().manual_seed(0))
    shuffled = image.reshape(1, 1, 4, 2, 4, 2).permute(0, 1, 2, 4, 3, 5).reshape(1, 1, 16, 2, 2)[:, :, order]
    shuffled = shuffled.reshape(1, 1, 4, 4, 2, 2).permute(0, 1, 2, 4, 3, 5).reshape(1, 1, 8, 8)
    with torch.inference_mode():  # the same patches in another order: the same output without positions
        np.testing.assert_allclose(twin(shuffled).logits.numpy(), twin(image).logits.numpy(), atol=1e-5)
    at = open_view("patches", 2)
    assert any("trained without position embeddings" in c.value for c in at.caption)


def test_the_lessons_knock_out_view_puts_the_costliest_head_in_layer_one():
    from tests.lesson_views import lesson_of, open_view

    at = open_view("patches", 3)
    change = z(chart_by_title(at, "Held-out accuracy with one head knocked out"))
    layer, head = np.unravel_index(np.argmin(change), change.shape)
    assert layer == 0 and change[1].min() > change[0].min()  # "every layer-2 head costs less"
    assert f": layer 1 · head {head + 1} costs the most" in title_text(
        chart_by_title(at, "Held-out accuracy with one head knocked out")
    )
    assert lesson_of("patches").views[3].ask.is_right(0)
