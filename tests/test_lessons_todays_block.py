"""The lesson "The road from 2017": each step's question and answer against what its view draws."""

from __future__ import annotations

import numpy as np

from tests.apptest_helpers import chart_specs, decode_array
from tests.lesson_views import lesson_of, open_view

LESSON = lesson_of("todays-block")


def drawn(step: int, trace: int = 0) -> tuple[np.ndarray, dict]:
    at = open_view("todays-block", step)
    (spec,) = chart_specs(at)
    return decode_array(spec["data"][trace]["y"]).astype(float), spec


def test_every_step_opens_a_part_of_the_since_2017_section():
    assert [view.settings["road"] for view in LESSON.views] == [
        "Norm placement",
        "RMSNorm",
        "SwiGLU",
        "RoPE",
        "Shared keys",
        "Two trained blocks",
    ]


def test_the_pre_ln_stream_after_six_layers_is_the_answer():
    pre, _ = drawn(0, trace=1)
    post, _ = drawn(0, trace=0)
    ask, answer = LESSON.views[0].ask, LESSON.views[0].answer
    assert len(pre) == 6 and abs(pre[-1] - ask.value) <= ask.tolerance
    assert f"{pre[-1]:.2f}, up from {pre[0]:.2f}" in answer and f"back to {post.mean():.2f}" in answer


def test_rmsnorm_keeps_the_signs_and_layer_norm_does_not():
    layer_norm, _ = drawn(1, trace=0)
    rms_norm, _ = drawn(1, trace=1)
    x = np.array([3, 1, 4, 1, 5, 9], dtype=float)
    assert (np.sign(rms_norm) == np.sign(x)).all() and not (np.sign(layer_norm) == np.sign(x)).all()
    assert LESSON.views[1].ask.solution == "RMSNorm"
    negative = [int(v) for v, out in zip(x, layer_norm) if out < 0]
    answer = LESSON.views[1].answer
    assert f"({np.sqrt((x**2).mean()):.2f} here)" in answer and f"the mean, {x.mean():.2f}" in answer
    assert f"so {', '.join(map(str, negative))} turn negative" in answer


def test_the_gated_feed_forwards_weights_are_the_answer():
    weights, _ = drawn(2)
    assert weights[1] == LESSON.views[2].ask.value
    answer = LESSON.views[2].answer
    assert f"{int(weights[1]):,} = 3 × 64 × 256" in answer and f"ReLU's {int(weights[0]):,}" in answer
    assert f"holds {int(weights[2]):,}" in answer


def test_rope_scores_equal_pairs_alike():
    rope, _ = drawn(3, trace=1)
    added, _ = drawn(3, trace=0)
    assert np.ptp(rope[:3]) < 1e-9 and LESSON.views[3].ask.solution == "They are equal"
    answer = LESSON.views[3].answer
    assert f"({rope[0]:.2f} each)" in answer and f"{added[:3].min():.2f} to {added[:3].max():.2f}" in answer


def test_the_multi_query_share_is_the_answer():
    kib, _ = drawn(4)
    share = 100 * kib[-1] / kib[0]
    assert share == LESSON.views[4].ask.value
    answer = LESSON.views[4].answer
    assert f"{kib[-1]:,.0f} KiB instead of {kib[0]:,.0f}" in answer
    assert f"(2 heads, {100 * kib[1] / kib[0]:.0f} %)" in answer


def test_the_block_that_predicts_better_is_the_answer():
    at = open_view("todays-block", 5)
    table = at.dataframe[0].value
    classic, llama = table["held-out perplexity"]
    assert (llama < classic) == (LESSON.views[5].ask.solution == "The Llama block")
    weights = list(table["weights"])
    answer = LESSON.views[5].answer
    assert f"{llama} against {classic}, with fewer weights ({weights[1]:,} against {weights[0]:,})" in answer
    shares = [float(named.rsplit(": ", 1)[1]) for named in table["previous-character head"]]
    assert min(shares) > 0.5 and "more than half of its weight on the previous character" in answer
