"""What a lesson is made of: views, each with a question the student answers (a choice or a number) before
its answer is shown.

Settings are the query parameters a shared link carries (a selectbox's value is its shown label).
``Shipped("induction")`` stands for the model picker's label of a shipped checkpoint, which
holds the file's hash and is looked up when a link is made.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Shipped:
    """The model picker's entry for the shipped checkpoint ``checkpoints/<name>.safetensors``."""

    name: str


@dataclass(frozen=True)
class Choice:
    """A question answered by picking one of ``options``; ``right`` is the index of the right one."""

    options: tuple[str, ...]
    right: int

    def __post_init__(self):
        if len(self.options) < 2 or not 0 <= self.right < len(self.options):
            raise ValueError("a choice needs two or more options and the index of the right one")

    def is_right(self, given) -> bool:
        return given == self.right

    def shown(self, given) -> str:
        """An answer as the student sees it: the option's text."""
        return self.options[given]

    @property
    def solution(self) -> str:
        return self.options[self.right]


@dataclass(frozen=True)
class Number:
    """A question answered by a number: right when within ``tolerance`` of ``value``; ``unit`` follows it."""

    value: float
    tolerance: float = 0.0
    unit: str = ""

    def __post_init__(self):
        if self.tolerance < 0:
            raise ValueError("a tolerance is 0 or more")

    @property
    def whole(self) -> bool:
        """True when the answer is a whole number asked exactly: the input then takes whole numbers."""
        return float(self.value).is_integer() and float(self.tolerance).is_integer()

    def is_right(self, given) -> bool:
        return given is not None and abs(float(given) - self.value) <= self.tolerance + 1e-12

    def shown(self, given) -> str:
        number = f"{int(given):,}" if self.whole else f"{float(given):g}"
        return f"{number} {self.unit}".strip()

    @property
    def solution(self) -> str:
        within = f" (± {self.tolerance:g})" if self.tolerance else ""
        return self.shown(self.value) + within


@dataclass(frozen=True)
class View:
    """One prepared view: ``page`` is a url path (``multi_head``), ``settings`` its URL state; ``notice`` says
    what to see, ``question`` is put to the class and ``ask`` is how it is answered; ``answer`` explains."""

    page: str
    settings: dict
    title: str
    notice: str
    question: str
    ask: Choice | Number
    answer: str


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    summary: str
    views: tuple[View, ...]
