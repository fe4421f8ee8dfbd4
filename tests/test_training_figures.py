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
