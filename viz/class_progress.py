"""A class at its own pace, as the teacher's board draws it: how many students have each step of the lesson open."""

from __future__ import annotations

import plotly.graph_objects as go

from .class_answers import count_bars
from .style import NEUTRAL, styled_figure


def class_progress_figure(steps: list[str], at_step: list[int]) -> go.Figure:
    """Horizontal bars, the lesson's first step at the top: step ``steps[i]`` is the latest of ``at_step[i]``
    students."""
    students = sum(at_step)
    bars = count_bars(steps, at_step, [NEUTRAL] * len(steps), "students")
    return styled_figure(
        [bars],
        f"Where the class is: the latest step of {students} {'student' if students == 1 else 'students'}",
        height=140 + 30 * max(len(steps), 1),
        xaxis=dict(
            title="students",
            rangemode="tozero",
            dtick=1 if max(at_step, default=0) < 10 else None,
        ),
        yaxis=dict(autorange="reversed", automargin=True),
        showlegend=False,
    )
