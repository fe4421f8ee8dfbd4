"""The class's answers to a lesson question, as the teacher sees them: one bar per answer given."""

from __future__ import annotations

import plotly.graph_objects as go

from .style import ACCENT, NEUTRAL, OTHER_COLOR, styled_figure

RIGHT_COLOR = ACCENT  # "this one": the right answer, once revealed
ANSWER_COLOR = NEUTRAL  # every answer alike before


def count_bars(labels: list[str], counts: list[int], colors: list[str], unit: str) -> go.Bar:
    """Horizontal bars of ``counts`` by ``labels``, each count written beside its bar; ``unit`` in the hover."""
    return go.Bar(
        x=counts,
        y=labels,
        orientation="h",
        marker=dict(color=colors),
        text=[str(count) for count in counts],
        textposition="outside",
        cliponaxis=False,
        hovertemplate=f"%{{y}}: %{{x}} {unit}<extra></extra>",
    )


def class_answers_figure(
    answers: list[str], counts: list[int], right: list[bool] | None, students: int, who: str = "following"
) -> go.Figure:
    """Horizontal bars: ``counts[i]`` students gave ``answers[i]`` (in the order given, the first at the top).

    ``right``: for each answer whether it is right, drawn in the accent once the teacher has revealed the
    answer (None before: a projected chart must not give the answer away). ``students``: how many there are, for the
    title, with ``who``, what they do ("following", "at their own pace").
    """
    total = sum(counts)
    if right is None:
        colors = [ANSWER_COLOR] * len(answers)
    else:
        colors = [RIGHT_COLOR if is_right else OTHER_COLOR for is_right in right]  # grey, not the masked grey
    bars = count_bars(answers, counts, colors, "answers")
    title = (
        f"The class's answers: {total} of {students} students {who}" if students else f"The class's answers: {total}"
    )
    return styled_figure(
        [bars],
        title,
        height=140 + 34 * max(len(answers), 1),
        xaxis=dict(title="answers", rangemode="tozero", dtick=1 if max(counts, default=0) < 10 else None),
        yaxis=dict(autorange="reversed", automargin=True),
        showlegend=False,
    )
