"""The cost of attention against a recurrence: the power-law fit on timings of known exponent, the steps
one after another, and a live measurement on this machine."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from analysis.attention_cost import CostMeasurement, fit_power_law, measure_cost, sequential_steps


@pytest.mark.parametrize(("exponent", "coefficient"), [(2.0, 3e-9), (1.0, 4e-6), (1.5, 1e-7), (2.7, 1e-10)])
def test_the_fit_recovers_a_known_exponent_and_coefficient(exponent, coefficient):
    n = np.array([256, 512, 1024, 2048])
    fit = fit_power_law(n, coefficient * n.astype(float) ** exponent)
    assert fit.exponent == pytest.approx(exponent, abs=1e-9)
    assert fit.coefficient == pytest.approx(coefficient, rel=1e-9)
    assert fit(4096) == pytest.approx(coefficient * 4096**exponent, rel=1e-9)


def test_the_fit_recovers_the_exponent_through_noise():
    rng = np.random.default_rng(7)
    n = np.geomspace(64, 8192, 8)
    noisy = 2e-9 * n**2 * np.exp(rng.normal(0, 0.05, n.size))  # 5 % jitter on every timing
    assert fit_power_law(n, noisy).exponent == pytest.approx(2.0, abs=0.05)


def test_doubling_n_under_a_power_law_of_slope_two_quadruples_the_time():
    fit = fit_power_law([100, 200], [0.01, 0.04])  # two points: the slope is log 4 / log 2
    assert fit.exponent == pytest.approx(math.log(4) / math.log(2))


@pytest.mark.parametrize(
    ("lengths", "seconds"),
    [
        ([512], [0.1]),
        ([512, 512], [0.1, 0.2]),
        ([256, 512], [0.0, 0.1]),
        ([256, 512], [0.1, float("nan")]),
        ([0, 512], [0.1, 0.2]),
    ],
)
def test_the_fit_refuses_what_no_power_law_fits(lengths, seconds):
    with pytest.raises(ValueError):
        fit_power_law(lengths, seconds)


def test_a_recurrence_needs_n_minus_one_steps_and_attention_one():
    recurrence, attention = sequential_steps([2, 10, 100])
    assert list(recurrence) == [1, 9, 99] and list(attention) == [1, 1, 1]


def test_a_live_measurement_gives_positive_times_and_finite_exponents():
    state, threads = torch.random.get_rng_state(), torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        cost = measure_cost(lengths=(64, 128, 256), repeats=2)
        assert torch.get_num_threads() == 2  # measured on one thread, the setting put back
    finally:
        torch.set_num_threads(threads)
    assert torch.equal(torch.random.get_rng_state(), state)  # the caller's random stream is untouched
    assert list(cost.lengths) == [64, 128, 256] and list(cost.scores) == [64**2, 128**2, 256**2]
    for times, fit in ((cost.attention, cost.attention_fit), (cost.recurrence, cost.recurrence_fit)):
        assert times.shape == (3,) and (times > 0).all() and np.isfinite(times).all()
        assert math.isfinite(fit.exponent) and fit.coefficient > 0


def test_each_length_keeps_its_best_round():
    """A fake clock: every call takes 1 s, but one round at n = 128 is slowed to 5 s; the best round wins."""
    ticks = iter(np.cumsum([1.0] * 400))  # start and stop alternate: every call lasts 1 s ...
    slowed = {"calls": 0}

    def clock():
        slowed["calls"] += 1
        return next(ticks) + (4.0 if slowed["calls"] == 14 else 0.0)  # ... but one stop comes 4 s late

    cost = measure_cost(lengths=(64, 128), repeats=3, clock=clock)
    np.testing.assert_allclose(cost.attention, 1.0)
    np.testing.assert_allclose(cost.recurrence, 1.0)


def test_rounds_are_kept_and_a_length_is_called_only_where_every_round_agrees():
    """Rounds made by hand: at n = 64 attention is faster in every round, at 128 slower in every round, at 256 the
    rounds disagree; the exponents of single rounds bracket each round's own slope."""
    lengths = np.array([64, 128, 256])
    attention = np.array([[1.0, 4.0, 9.0], [1.0, 4.4, 12.0]])
    recurrence = np.array([[2.0, 3.0, 10.0], [2.2, 3.2, 10.0]])
    cost = CostMeasurement(lengths, attention.min(0), recurrence.min(0), 64, 2, attention, recurrence)
    assert cost.attention_dearer() == [False, True, None]
    slopes = [np.polyfit(np.log(lengths), np.log(row), 1)[0] for row in attention]
    np.testing.assert_allclose(cost.exponent_range("attention"), (min(slopes), max(slopes)))
