"""A lesson on the positional schemes after the sinusoids: the five side by side, rotary encoding (RoPE) and ALiBi."""

from __future__ import annotations

from .kinds import Choice, Lesson, Number, View

SCHEMES_LESSON = Lesson(
    "schemes",
    "Rotary and ALiBi: positions inside attention",
    "Sinusoids add a position vector to each token; RoPE rotates queries and keys and ALiBi "
    "penalises distance, inside attention.",
    (
        View(
            "positional_encoding",
            {"section": "Schemes", "scheme": "Learned"},
            "Five schemes side by side",
            "Each panel is the part of the score between a query at position m (down) and a key at position n "
            "(across) that comes from the positions alone, each scaled to ±1. A panel that depends on the positions "
            "only through the offset n − m has one colour along every diagonal.",
            "Which panel is not constant along its diagonals?",
            Choice(("The learned table, untrained", "Rotary", "ALiBi", "The sinusoids' PE_m·PE_n"), 0),
            "The untrained learned table: its rows are random, so P_m·P_n is noise, not a function of n − m. The "
            "sinusoids, rotary and ALiBi all depend on the offset alone here (the sinusoids only as raw vectors: "
            "added to the tokens and projected, they mix with the content).",
        ),
        View(
            "positional_encoding",
            {"section": "Schemes", "scheme": "Rotary (RoPE)"},
            "RoPE: a rotation by the offset",
            "The same query vector q at every position m and the same key k at every position n, each pair of "
            "dimensions rotated by an angle proportional to its position. The figure is their score after the "
            "rotations; the metric beside it is the largest spread of the scores along one diagonal.",
            "How many different scores does one diagonal (n − m fixed) hold, up to float rounding?",
            Number(1, unit="score"),
            "One: rotating q by m and k by n leaves q·R(n − m)k, which depends on the offset only. Attention then "
            "sees relative positions without adding anything to the token vectors.",
        ),
        View(
            "positional_encoding",
            {"section": "Schemes", "scheme": "ALiBi", "alibi_h": "8"},
            "ALiBi: a penalty per head",
            "ALiBi subtracts m_h · |i − j| from head h's scores: the farther the key, the lower the score, by a slope "
            "of its own for each head, m_h = 2^(−8h/H). The tiles are the biases of the 8 heads, the lines the bias "
            "against the distance.",
            "With H = 8 heads, what is head 1's slope m_1?",
            Number(0.5),
            "0.5 = 2^(−8·1/8). Head 1 has the largest slope, so its scores fall fastest with distance: it looks "
            "locally. Head 8's slope is 2^(−8) ≈ 0.004: it barely penalises distance and can look far.",
        ),
    ),
)
