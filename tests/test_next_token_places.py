"""The mean loss by kind of place in a character-level text (``analysis.next_token.mean_loss_by_place``), on a
text small enough to sort by hand."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.next_token import mean_loss_by_place


def test_each_character_is_sorted_by_the_one_before_it():
    characters = list("ab▁cd▁e")  # scored: b (inside), ▁ (space), c (first), d (inside), ▁ (space), e (first)
    losses = np.array([1.0, 0.5, 4.0, 2.0, 0.25, 6.0])
    assert mean_loss_by_place(characters, losses) == {
        "first letters of words": 5.0,
        "letters inside words": 1.5,
        "spaces": 0.375,
    }


def test_a_kind_with_no_character_is_left_out_and_a_wrong_length_refused():
    assert mean_loss_by_place(list("abc"), np.array([1.0, 3.0])) == {"letters inside words": 2.0}
    with pytest.raises(ValueError, match="3 characters take 2 losses, not 3"):
        mean_loss_by_place(list("abc"), np.array([1.0, 2.0, 3.0]))
