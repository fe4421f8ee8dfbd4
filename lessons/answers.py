"""A class's answers to a lesson's question, counted and judged: what the teacher's chart of answers draws."""

from __future__ import annotations

from .kinds import Choice, View


def tally(view: View, given: list[str]) -> tuple[list[str], list[int], list[bool]]:
    """The class's answers to ``view``'s question, as stored by a room (each a string: an option's index
    or a number): the answers as shown, how many gave each and whether each is right. A choice lists
    every option in its order (none given: 0); a number lists the values given, smallest first.
    Strings that are not an answer to this question are left out."""
    ask = view.ask
    if isinstance(ask, Choice):
        counts = [0] * len(ask.options)
        for text in given:
            if text.isascii() and text.isdigit() and int(text) < len(ask.options):
                counts[int(text)] += 1
        return list(ask.options), counts, [ask.is_right(i) for i in range(len(ask.options))]
    values: dict[float, int] = {}
    for text in given:
        try:
            number = float(text)
        except ValueError:
            continue
        if number == number and abs(number) != float("inf"):
            values[number] = values.get(number, 0) + 1
    ordered = sorted(values)
    return [ask.shown(v) for v in ordered], [values[v] for v in ordered], [ask.is_right(v) for v in ordered]
