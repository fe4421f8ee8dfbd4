"""What the Two sentences section asks about the pair on screen: where the two sentences' tokens differ."""

from __future__ import annotations

import difflib

from ui.text import as_typed


def differences(first: list[str], second: list[str]) -> list[tuple[list[str], list[str], bool]]:
    """Where two token lists differ (``difflib``'s alignment): each changed span's tokens in the first list and
    in the second, and whether the span ends both lists."""
    matcher = difflib.SequenceMatcher(a=first, b=second, autojunk=False)
    return [
        (first[i1:i2], second[j1:j2], i2 == len(first) and j2 == len(second))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _span(tokens: list[str]) -> str:
    """Tokens in italics, as typed ("nothing" for none)."""
    return f"*{as_typed(' '.join(tokens))}*" if tokens else "nothing"


def pair_question(first: list[str], second: list[str], word: str, classic: bool) -> str:
    """The question over two sentences' ordinary tokens and the query ``word``: the Winograd question (which
    heads look at *animal* in one and *street* in the other) only for the ``classic`` pair and the word "it";
    otherwise where the sentences differ, computed from their tokens."""
    if classic:
        return (
            "The classic pair: only the last word differs, *tired* or *wide*, and with it what **it** refers "
            "to (the animal was too tired, the street too wide). In which heads does **it** look at *animal* "
            "in one and *street* in the other? And how close does the model find the two sentences?"
        )
    changes = differences(first, second)
    if not changes:
        return (
            "The two sentences are the same tokens: the model reads them alike, so every head's row is the "
            "same in both and the cosine of their embeddings is 1."
        )
    if len(changes) == 1:
        old, new, at_end = changes[0]
        said = (
            f"The sentences differ only {'at the end' if at_end else 'in one place'}: {_span(old)} in the "
            f"first, {_span(new)} in the second."
        )
    else:
        said = f"The sentences differ in {len(changes)} places."
    return (
        f"{said} In which heads does **{as_typed(word)}** look at different tokens in the two? And how close "
        "does the model find the two sentences?"
    )
