"""The Train page's live figures, built in one pass (``viz.style.styled_grid``, ``styled_figure``), keep the look
every figure has: projector fonts on every axis, panel names 15 px, the accuracy target drawn across its panel."""

from __future__ import annotations

import numpy as np

from viz.style import PROJECTOR_INK, PROJECTOR_LABEL_PX, PROJECTOR_TICK_PX
from viz.training import curves_figure, head_scores_figure


def projector_axes(layout, names) -> bool:
    return all(
        layout[name].tickfont.size == PROJECTOR_TICK_PX
        and layout[name].tickfont.color == PROJECTOR_INK
        and layout[name].title.font.size == PROJECTOR_LABEL_PX
        for name in names
    )


def test_the_curves_have_projector_text_panel_names_and_the_target_across_the_accuracy_panel():
    fig = curves_figure((0, 20, 40), (4.0, 3.0, 2.0), (4.2, 3.1, 2.5), (0.1, 0.5, 0.9), 0.95, "copy")
    layout = fig.layout
    assert projector_axes(layout, ["xaxis", "yaxis", "xaxis2", "yaxis2"])
    assert layout.xaxis.title.text == layout.xaxis2.title.text == "step"
    names = {note.text: note for note in layout.annotations}
    assert {names[n].font.size for n in ("loss (cross-entropy, nats)", "held-out accuracy")} == {PROJECTOR_LABEL_PX}
    (line,) = layout.shapes
    assert (line.xref, line.yref, line.x0, line.x1, line.y0, line.y1) == ("x2 domain", "y2", 0, 1, 0.95, 0.95)
    target = names["target 95%"]
    assert (target.xref, target.yref, target.y, target.xanchor, target.yanchor) == (
        "x2 domain",
        "y2",
        0.95,
        "left",
        "top",
    )
    assert layout.margin.t == 90 and layout.title.text == "copy" and layout.legend.font.size == PROJECTOR_LABEL_PX
    assert tuple(layout.yaxis2.range) == (0, 1.02)


def test_curves_without_a_target_draw_no_line():
    fig = curves_figure((0, 20), (4.0, 3.0), (4.2, 3.1), (0.1, 0.5), None, "text")
    assert not fig.layout.shapes and [n.text for n in fig.layout.annotations] == [
        "loss (cross-entropy, nats)",
        "held-out accuracy",
    ]


def test_head_scores_draw_one_line_per_head_with_projector_text():
    scores = np.arange(12, dtype=np.float32).reshape(3, 2, 2) / 12  # [steps, layers, heads]
    fig = head_scores_figure((0, 20, 40), scores, "prefix score", "Each head")
    assert [t.name for t in fig.data] == [f"layer {l} · head {h}" for l in (1, 2) for h in (1, 2)]
    assert (
        np.allclose(fig.data[3].y, scores[:, 1, 1]) and [t.line.dash for t in fig.data] == ["dot"] * 2 + ["solid"] * 2
    )
    assert projector_axes(fig.layout, ["xaxis", "yaxis"]) and fig.layout.yaxis.title.text == "prefix score"


def test_the_curves_finding_names_the_first_step_at_the_target_or_where_the_accuracy_stands():
    from viz.training import accuracy_finding, loss_finding

    assert accuracy_finding([0, 20, 40, 60], [0.1, 0.5, 0.99, 1.0], 0.99) == "target 99% reached at step 40"
    assert accuracy_finding([0, 20], [0.1, 0.42], 0.99) == "held-out accuracy 42% at step 20, target 99%"
    assert loss_finding([0, 100, 300], [4.123, 3.0, 1.866]) == "held-out loss 4.12 → 1.87 by step 300"


def test_the_head_scores_finding_is_the_largest_rise_of_one_head_between_two_evaluations():
    from viz.training import jump_finding

    scores = np.zeros((4, 2, 2))
    scores[:, 1, 0] = [0.05, 0.10, 0.93, 0.95]  # layer 2 · head 1 jumps between the 2nd and 3rd evaluation
    scores[:, 0, 1] = [0.0, 0.3, 0.5, 0.7]  # rises more in all, never as much at once
    assert jump_finding([0, 20, 40, 60], scores) == "layer 2 · head 1 rose 0.10 → 0.93 between steps 20 and 40"
    flat = np.full((3, 1, 2), 0.4)
    flat[:, 0, 1] = 0.6
    assert jump_finding([0, 1, 2], flat) == "layer 1 · head 2 the best, at 0.60"
