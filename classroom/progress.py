"""A class at its own pace: each student's way through the lesson, as the room keeps it for the teacher's board.

When the teacher lets the class go through a lesson at its own pace, every student's session reports where it is
(``Progress``): the name the teacher sees (a nickname the student gave, or a generated animal name), the lesson,
the step open now (0-based), when it first arrived at each step and when it answered each question. The room
keeps one record per student, as JSON (``progress_text``), read back with ``read_progress``, which refuses any
other shape. Only the teacher's session reads the class's records; a student's session reads its own.

The board's slowest step follows from the records (``slowest_step``: the median time from arriving at a step to
arriving at the next, over the students who moved on).
"""

from __future__ import annotations

import json
import secrets
import statistics
from dataclasses import dataclass, field

MAX_NAME_CHARS = 24
MAX_STEPS = 200  # entries in each of ``arrived`` and ``answered``
MAX_PROGRESS_CHARS = 16_000

ADJECTIVES = (
    "Bold", "Brave", "Bright", "Calm", "Clever", "Curious", "Eager", "Gentle", "Happy", "Keen",
    "Kind", "Lively", "Lucky", "Merry", "Nimble", "Patient", "Quick", "Quiet", "Steady", "Swift",
)  # fmt: skip
ANIMALS = (
    "Badger", "Beaver", "Crane", "Dolphin", "Falcon", "Fox", "Gecko", "Hare", "Heron", "Koala",
    "Lynx", "Marten", "Otter", "Owl", "Panda", "Puffin", "Robin", "Seal", "Swan", "Wren",
)  # fmt: skip


def animal_name() -> str:
    """A generated name for a student who gives none ("Quiet Otter"): 400 names, drawn by ``secrets``."""
    return f"{secrets.choice(ADJECTIVES)} {secrets.choice(ANIMALS)}"


def clean_name(text: str) -> str:
    """A nickname as the board shows it: printable characters, spaces collapsed, at most MAX_NAME_CHARS."""
    printable = "".join(c if c.isprintable() else " " for c in str(text))
    return " ".join(printable.split())[:MAX_NAME_CHARS]


@dataclass(frozen=True)
class Progress:
    """One student's way through ``lesson``: ``name`` (shown on the teacher's board only), ``step`` open now
    (0-based), ``arrived`` (step -> when it was first opened, seconds since the epoch) and ``answered``
    (question "<lesson>/<step>" -> when it was answered)."""

    name: str
    lesson: str
    step: int = 0
    arrived: dict[int, float] = field(default_factory=dict)
    answered: dict[str, float] = field(default_factory=dict)

    def at(self, step: int, now: float) -> Progress:
        """This progress with ``step`` open now (its first arrival kept)."""
        arrived = self.arrived if step in self.arrived else {**self.arrived, step: now}
        return Progress(self.name, self.lesson, step, arrived, self.answered)

    def answering(self, question: str, now: float) -> Progress:
        """This progress with ``question`` answered at ``now`` (the first time kept)."""
        if question in self.answered:
            return self
        return Progress(self.name, self.lesson, self.step, self.arrived, {**self.answered, question: now})

    def renamed(self, name: str) -> Progress:
        return Progress(clean_name(name), self.lesson, self.step, self.arrived, self.answered)


def progress_text(progress: Progress) -> str:
    """The record as the room keeps it (JSON), refused when larger than MAX_PROGRESS_CHARS or with too many steps."""
    if len(progress.arrived) > MAX_STEPS or len(progress.answered) > MAX_STEPS:
        raise ValueError(f"a student's progress keeps at most {MAX_STEPS} steps")
    text = json.dumps(
        {
            "name": clean_name(progress.name),
            "lesson": progress.lesson,
            "step": progress.step,
            "arrived": {str(step): at for step, at in progress.arrived.items()},
            "answered": progress.answered,
        },
        sort_keys=True,
    )
    if len(text) > MAX_PROGRESS_CHARS:
        raise ValueError(f"a student's progress is at most {MAX_PROGRESS_CHARS} characters")
    return text


def _times(mapping, key_type) -> dict:
    if not isinstance(mapping, dict) or len(mapping) > MAX_STEPS:
        raise ValueError("a progress's times map steps or questions to seconds")
    times = {}
    for key, at in mapping.items():
        if not isinstance(at, int | float) or isinstance(at, bool) or at != at:
            raise ValueError("a progress's times are numbers of seconds")
        times[key_type(key)] = float(at)
    return times


def read_progress(text: str) -> Progress:
    """A record as ``progress_text`` writes it; ValueError for any other shape (a record written by hand or by
    another version of the app is left out of the board, not shown half-read)."""
    if not isinstance(text, str) or len(text) > MAX_PROGRESS_CHARS:
        raise ValueError("a progress is JSON text of bounded size")
    data = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not isinstance(data.get("lesson"), str):
        raise ValueError("a progress is an object with a name and a lesson")
    step = data.get("step")
    if not isinstance(step, int) or isinstance(step, bool) or not 0 <= step < MAX_STEPS:
        raise ValueError("a progress's step is a whole number of the lesson's steps")
    answered = _times(data.get("answered", {}), str)
    return Progress(clean_name(data["name"]), data["lesson"], step, _times(data.get("arrived", {}), int), answered)


def slowest_step(records: list[Progress]) -> tuple[int, float, int] | None:
    """The step (0-based) whose median time from first arriving to first arriving at the next step is longest, over
    the students who went on: (step, median seconds, students counted); None before anyone moved on."""
    spent: dict[int, list[float]] = {}
    for record in records:
        for step, arrived in record.arrived.items():
            if step + 1 in record.arrived and record.arrived[step + 1] >= arrived:
                spent.setdefault(step, []).append(record.arrived[step + 1] - arrived)
    if not spent:
        return None
    medians = {step: statistics.median(times) for step, times in spent.items()}
    step = max(medians, key=lambda s: (medians[s], -s))
    return step, medians[step], len(spent[step])
