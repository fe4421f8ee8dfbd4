"""What the teacher's board says of a class at its own pace, from the room's records (``classroom.progress``) and
its answers: a line per step (``step_lines``) and the export, a row per student and question (``answer_rows``,
``csv_text``). No Streamlit: ``ui.rooms.pace_board`` draws these."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import datetime, timezone

from lessons.kinds import Choice, Lesson, View

from .progress import Progress

COLUMNS = ("name", "step", "question", "answer", "right", "answered at (UTC)", "latest step")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # a cell a spreadsheet would run as a formula


def stored_answer(view: View, text: str | None):
    """A stored answer (a choice's index or a number, as text) as the question takes it, or None."""
    if text is None:
        return None
    try:
        if isinstance(view.ask, Choice):
            index = int(text)
            return index if 0 <= index < len(view.ask.options) else None
        number = float(text)
    except ValueError:
        return None
    return number if number == number and abs(number) != float("inf") else None


@dataclass(frozen=True)
class StepLine:
    """One step of the lesson on the board: its number (1-based) and title, the students whose latest step it is
    (a student who has left keeps theirs), those who answered its question and how many of them are right."""

    step: int
    title: str
    latest: int
    answered: int
    right: int

    @property
    def share_right(self) -> float | None:
        return self.right / self.answered if self.answered else None


def step_lines(lesson: Lesson, records: dict[str, Progress], answers: dict[str, dict[str, str]]) -> list[StepLine]:
    """Each step's line; ``answers``: question "<lesson>/<step>" -> student -> the stored answer. Only the answers
    of students with a record of this lesson count."""
    students = {student for student, record in records.items() if record.lesson == lesson.id}
    lines = []
    for step, view in enumerate(lesson.views):
        given = answers.get(f"{lesson.id}/{step}", {})
        judged = [stored_answer(view, text) for student, text in given.items() if student in students]
        judged = [value for value in judged if value is not None]
        lines.append(
            StepLine(
                step + 1,
                view.title,
                sum(records[student].step == step for student in students),
                len(judged),
                sum(view.ask.is_right(value) for value in judged),
            )
        )
    return lines


def _time(seconds: float | None) -> str:
    if seconds is None:
        return ""
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def answer_rows(lesson: Lesson, records: dict[str, Progress], answers: dict[str, dict[str, str]]) -> list[dict]:
    """One row per student (by name) and question of the lesson: the answer as shown, "yes" or "no" for right
    (empty when not answered), when it was answered and the student's latest step (1-based)."""
    rows = []
    for student, record in sorted(records.items(), key=lambda item: (item[1].name.lower(), item[0])):
        if record.lesson != lesson.id:
            continue
        for step, view in enumerate(lesson.views):
            question = f"{lesson.id}/{step}"
            value = stored_answer(view, answers.get(question, {}).get(student))
            rows.append(
                {
                    "name": record.name,
                    "step": step + 1,
                    "question": view.question,
                    "answer": "" if value is None else view.ask.shown(value),
                    "right": "" if value is None else "yes" if view.ask.is_right(value) else "no",
                    "answered at (UTC)": _time(record.answered.get(question)) if value is not None else "",
                    "latest step": record.step + 1,
                }
            )
    return rows


def _safe_cell(value) -> str:
    """A cell as text that a spreadsheet shows and never runs: one that would start a formula gets a quote first
    (a number, "-0.5" or "-3 tokens", stays as it is)."""
    text = str(value)
    try:
        float(text.split(" ")[0])
        return text
    except ValueError:
        return "'" + text if text.startswith(FORMULA_START) else text


def csv_text(rows: list[dict]) -> str:
    """The rows as CSV with a header (``COLUMNS``), every cell safe to open in a spreadsheet."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow([_safe_cell(row[column]) for column in COLUMNS])
    return out.getvalue()
