"""Log axes carry their ticks written out in full (0.5, 1, 2, 5, 10, 20; 256, 512, 1,024), never Plotly's own
labels of a log axis, which write only a leading digit between powers of ten ("5, 1, 2, 5, 10, 2")."""

from __future__ import annotations

import math

import pytest

from tests.apptest_helpers import assert_no_exception, chart_specs, decode_array, run_page
from viz.labels import log_ticks


def as_number(label: str) -> float:
    return float(label.replace(",", ""))


def assert_written_out(axis: dict, values_from: float, values_to: float) -> None:
    """A log axis whose every tick is labelled with its own value in full, covering the data's range."""
    assert axis["type"] == "log" and axis.get("tickmode") == "array", axis
    ticks, labels = axis["tickvals"], axis["ticktext"]
    assert len(ticks) == len(labels) >= 2
    for tick, label in zip(ticks, labels):
        assert "e" not in label and as_number(label) == pytest.approx(tick)
    assert min(ticks) <= values_to and max(ticks) >= values_from  # ticks inside what is drawn


def log_axes(spec: dict) -> list[tuple[str, dict]]:
    return [
        (name, axis)
        for name, axis in spec["layout"].items()
        if name.startswith(("xaxis", "yaxis")) and isinstance(axis, dict) and axis.get("type") == "log"
    ]


def test_the_ticks_are_the_one_two_five_steps_of_each_decade_written_out():
    ticks, labels = log_ticks([0.31, 18.2])
    assert labels == ["0.5", "1", "2", "5", "10", "20"]
    assert log_ticks([1, 2047])[1] == ["1", "10", "100", "1,000"]  # more than nine: the decades alone
    assert log_ticks([float("nan"), 0, -1]) == ([], [])


@pytest.mark.parametrize(
    "page,section",
    [
        ("pages/generate/page.py", "Cost"),
        ("pages/generate/page.py", "KV cache"),
        ("pages/self_attention/page.py", "Why attention"),
    ],
)
def test_every_log_axis_on_the_page_is_written_out(page, section):
    at = run_page(page, {"section": section})
    assert_no_exception(at)
    found = [(spec, name, axis) for spec in chart_specs(at) for name, axis in log_axes(spec)]
    assert found, f"no log axis drawn in {section}"
    for spec, name, axis in found:
        # the data drawn against this axis: every trace's x (for an x axis) or y values, as sent
        letter = name[0]
        anchor = letter + name[5:]  # "xaxis2" -> "x2"
        values = []
        for trace in spec["data"]:
            if trace.get(f"{letter}axis", letter) == anchor and letter in trace:
                data = trace[letter]
                values += [
                    float(v)
                    for v in (decode_array(data) if isinstance(data, dict) else data)
                    if v is not None and math.isfinite(float(v)) and float(v) > 0
                ]
        assert values, (section, name)
        assert_written_out(axis, min(values), max(values))


def test_tokens_of_one_or_two_characters_are_written_level():
    from viz.labels import position_axis

    assert position_axis(list("abcdef"), tickangle=-60)["tickangle"] == 0
    assert position_axis(["ab", "c"], tickangle=-45)["tickangle"] == 0
    # words: level where they fit, turned by the browser where they do not (no angle set here)
    assert "tickangle" not in position_axis(["the", "cat"], tickangle=-45)
    at = run_page("pages/experiments/page.py", {"section": "Circuit"})  # the induction model's letters
    assert_no_exception(at)
    spec = next(spec for spec in chart_specs(at) if "attends to" in spec["layout"]["title"]["text"])
    keys = {str(x).rstrip("\u200b") for trace in spec["data"] if isinstance(trace.get("x"), list) for x in trace["x"]}
    assert keys and max(map(len, keys)) == 1  # the keys are single letters (repeats carry zero-width spaces)
    angles = [axis.get("tickangle") for name, axis in spec["layout"].items() if name.startswith("xaxis")]
    assert angles and all(angle == 0 for angle in angles), angles
