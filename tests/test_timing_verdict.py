"""Verdicts on measured times, given only where every round agrees (``analysis.timing_verdict``), and the KV cache
section's sentence on time per token built from them, on rounds made by hand."""

from __future__ import annotations

import pytest

from analysis.decoding_cost import Variant
from analysis.timing_verdict import spread, steady_side
from pages.generate.costs import time_finding, time_note


def test_a_verdict_needs_every_round_on_one_side_clear_of_the_margin():
    assert steady_side([0.5, 0.7, 0.75], 0.8) is True  # every ratio <= 0.8 x 0.95 = 0.76
    assert steady_side([0.85, 1.2], 0.8) is False  # every ratio >= 0.8 x 1.05 = 0.84
    assert steady_side([0.7, 0.9], 0.8) is None  # the rounds disagree
    assert steady_side([0.78, 0.7], 0.8) is None  # one round within 5 % of the threshold
    assert steady_side([1.2], 1.0) is False and steady_side([0.9], 1.0, margin=0.2) is None
    with pytest.raises(ValueError, match="finite"):
        steady_side([], 0.8)


def test_the_spread_names_the_lowest_and_highest():
    assert spread([0.714, 0.93, 0.8]) == "0.71 to 0.93"
    assert spread([1.004, 0.996]) == "1.00"


def variant(label: str, rounds: tuple[float, ...]) -> Variant:
    return Variant(label, None, 0, min(rounds), 0, rounds)


def test_the_time_sentence_states_a_verdict_only_when_every_round_agrees():
    full = variant("multi-head", (1.0, 1.0, 1.0))
    faster = variant("multi-query", (0.5, 0.6, 0.7))
    slower = variant("window", (0.95, 1.1, 0.9))
    mixed = variant("grouped-query", (0.7, 0.9, 0.75))
    assert time_note(full, [faster, slower]) == "multi-query took under 0.8 of its time per token in each of 3 rounds"
    assert time_note(full, [slower]) == (
        "none took under 0.8 of its time per token (1.00 ms) in any of 3 rounds: here they save memory, not time"
    )
    assert time_note(full, [faster, mixed]) == (
        "their times per token over multi-head's, in 3 rounds: multi-query 0.50 to 0.70; grouped-query 0.70 to "
        "0.90: the rounds do not agree whether they take under 0.8 of its time"
    )


def test_the_times_title_says_the_sentences_verdict_in_short():
    full = variant("multi-head", (1.0, 1.0, 1.0))
    faster = variant("multi-query", (0.5, 0.6, 0.7))
    slower = variant("window", (0.95, 1.1, 0.9))
    mixed = variant("grouped-query", (0.7, 0.9, 0.75))
    assert time_finding([full, faster, slower]) == ": multi-query under 0.8 of multi-head's time in every round"
    assert time_finding([full, slower]) == ": none under 0.8 of multi-head's time: they save memory, not time"
    assert time_finding([full, faster, mixed]) == (
        ": the 3 rounds do not agree which take under 0.8 of multi-head's time"
    )
