"""A display formula that fits its screen: a formula of several equations, set side by side with a ``\\quad`` or a
``\\qquad`` between them, sets them one under another on a compact screen (a phone's 358 px column holds few of
them side by side), a long equation breaks there at its ``\\allowbreak``, and the lines a formula is written in
stay lines everywhere. What is still too wide for a phone is set smaller in the browser (``ui/screen.js``), and
scrolls in its box past that."""

from __future__ import annotations

import re

import streamlit as st

from .screen import compact

# the spaces that set a formula's equations apart, and a place a long equation may be broken (drawn as nothing)
BREAKS = ("qquad", "quad", "allowbreak")
ALLOW_BREAK = re.compile(r"\\allowbreak(?![A-Za-z])\s*")
OPENS, CLOSES = {"begin", "left"}, {"end", "right"}  # an environment, a pair of growing delimiters
COMMAND_OR_CHARACTER = re.compile(r"\\([A-Za-z]+|.)|.", re.DOTALL)


def parts(latex: str) -> list[str]:
    """``latex`` cut at each ``\\quad``, ``\\qquad`` or ``\\allowbreak`` outside every group (braces), environment
    (``\\begin`` ... ``\\end``) and ``\\left`` ... ``\\right`` pair: the equations the formula sets side by side,
    each stripped, in order (the whole formula when it has none)."""
    found, start, depth = [], 0, 0
    for token in COMMAND_OR_CHARACTER.finditer(latex):
        command, text = token.group(1), token.group()
        if depth == 0 and command in BREAKS:
            found.append(latex[start : token.start()])
            start = token.end()
        depth += (command in OPENS) - (command in CLOSES) + (text == "{") - (text == "}")
    found.append(latex[start:])
    return [part.strip() for part in found if part.strip()]


def stacked(lines: list[str]) -> str:
    """One line a formula, or the lines one under another, each centred (KaTeX's ``gathered``)."""
    return lines[0] if len(lines) == 1 else r"\begin{gathered}" + r" \\[2pt] ".join(lines) + r"\end{gathered}"


def formula_latex(*lines: str, narrow: bool) -> str:
    """The LaTeX drawn for a formula written in ``lines``: the lines one under another; on a ``narrow`` screen each
    of their equations (``parts``) on a line of its own. An ``\\allowbreak`` breaks a line there on a narrow
    screen only."""
    if narrow:
        return stacked([part for line in lines for part in parts(line)])
    return stacked([ALLOW_BREAK.sub("", line) for line in lines])


def formula(*lines: str) -> None:
    """Display a formula written in ``lines`` (usually one), its equations one under another on a compact screen."""
    st.latex(formula_latex(*lines, narrow=compact()))
