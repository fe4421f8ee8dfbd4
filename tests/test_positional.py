import math

import torch

from transformer import (
    alibi_bias,
    alibi_slopes,
    relative_shift_matrix,
    sinusoid_wavelengths,
    sinusoidal_encoding,
)


def test_odd_d_model_ends_with_a_sine():
    pe = sinusoidal_encoding(10, 5)
    assert pe.shape == (10, 5)
    assert torch.allclose(pe[:, 4], torch.sin(torch.arange(10.0) / 10000 ** (4 / 5)), atol=1e-6)


def test_base_one_gives_constant_frequency():
    pe = sinusoidal_encoding(6, 4, base=1.0)
    assert torch.allclose(pe[:, 0], pe[:, 2]) and torch.isfinite(pe).all()


def test_relative_shift_is_a_rotation_independent_of_position():
    pe = sinusoidal_encoding(50, 16).double()
    for k in (1, 5, 13):
        shift = relative_shift_matrix(16, k).double()
        assert torch.allclose(pe[: 50 - k] @ shift.T, pe[k:], atol=1e-5)
        assert torch.allclose(shift @ shift.T, torch.eye(16, dtype=torch.float64), atol=1e-6)


def test_wavelengths_follow_geometric_progression():
    wl = sinusoid_wavelengths(8)
    assert math.isclose(float(wl[0]), 2 * math.pi, rel_tol=1e-6)
    assert math.isclose(float(wl[-1]), 2 * math.pi * 10000 ** (6 / 8), rel_tol=1e-5)


def test_alibi_slopes_power_of_two_and_not():
    assert torch.allclose(alibi_slopes(8), torch.tensor([2.0 ** -(i + 1) for i in range(8)]))
    six = alibi_slopes(6)
    assert six.shape == (6,)
    assert torch.allclose(six[:4], torch.tensor([2.0 ** (-2 * (i + 1)) for i in range(4)]))
    assert torch.allclose(six[4:], torch.tensor([2.0**-1, 2.0**-3]))


def test_alibi_bias_is_minus_slope_times_distance():
    bias = alibi_bias(2, 4)
    assert bias.shape == (2, 4, 4)
    assert float(bias[0, 3, 0]) == -3 * float(alibi_slopes(2)[0])
    assert torch.all(bias[:, range(4), range(4)] == 0)
