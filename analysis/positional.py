"""Positional-encoding numbers: tables, wavelengths, similarities, the offset map, RoPE, ALiBi and learned
tables, float32 numpy out (the Positional encoding page draws them)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from transformer import (
    POSITIONAL_ENCODINGS,
    LearnedEncoding,
    alibi_bias,
    alibi_slopes,
    apply_rotary,
    init_parameters,
    relative_shift_matrix,
    sinusoid_wavelengths,
    sinusoidal_encoding,
)


def pe_table(positions: int, d_model: int, base: float) -> np.ndarray:
    """PE ``[positions, d_model]``: sin(pos / base^(2i/d)) at 2i, cos at 2i+1."""
    return sinusoidal_encoding(positions, d_model, base).numpy()


def wavelengths(d_model: int, base: float) -> np.ndarray:
    """Wavelength of pair i, ``[ceil(d/2)]``: 2*pi*base^(2i/d_model) positions."""
    return sinusoid_wavelengths(d_model, base).numpy()


def similarity(positions: int, d_model: int, base: float) -> np.ndarray:
    """Dot products ``[P, P]``: PE[p]·PE[q] = sum_i cos((p - q) w_i) for even d_model."""
    pe = sinusoidal_encoding(positions, d_model, base).double()
    return (pe @ pe.T).float().numpy()


@dataclass(frozen=True)
class DistanceProfile:
    """PE[p]·PE[p+k] per offset k ``[K]``: mean, min and max over p."""

    offsets: np.ndarray
    mean: np.ndarray
    low: np.ndarray
    high: np.ndarray


def distance_profile(positions: int, d_model: int, base: float) -> DistanceProfile:
    """Similarity against distance: for k = 0..P-1 the dot products PE[p]·PE[p+k] over p."""
    sim = similarity(positions, d_model, base).astype(np.float64)
    offsets = np.arange(positions)
    diagonals = [np.diagonal(sim, offset=int(k)) for k in offsets]
    return DistanceProfile(
        offsets.astype(np.float32),
        np.array([d.mean() for d in diagonals], dtype=np.float32),
        np.array([d.min() for d in diagonals], dtype=np.float32),
        np.array([d.max() for d in diagonals], dtype=np.float32),
    )


@dataclass(frozen=True)
class ShiftCheck:
    """The map M_k ``[d, d]`` (NaN where no linear map exists), the cells without a
    value ``[d, d]`` bool, and max |PE[pos+k] - M_k PE[pos]| over every pos with
    pos + k < P, on the dimensions that have a map (``linear_dims``)."""

    matrix: np.ndarray
    no_value: np.ndarray
    max_error: float
    pairs_checked: int
    linear_dims: int


def shift_check(positions: int, d_model: int, base: float, offset: int) -> ShiftCheck:
    """Verify PE[pos + k] = M_k PE[pos] numerically, for all pos at once.

    For odd d_model the last (sine) column has no cosine partner, so
    sin((pos + k) w) is not a linear function of sin(pos w) alone: it is excluded.
    """
    shift = relative_shift_matrix(d_model, offset, base).double()
    no_value = torch.isnan(shift)
    linear = d_model - (d_model % 2)
    pe = sinusoidal_encoding(positions, d_model, base).double()
    count = max(positions - offset, 0)
    error = 0.0
    if count and linear:
        mapped = pe[:count, :linear] @ shift[:linear, :linear].T
        error = float((mapped - pe[offset : offset + count, :linear]).abs().max())
    return ShiftCheck(shift.float().numpy(), no_value.numpy(), error, count, linear)


def rope_scores(length: int, d_head: int, base: float, seed: int) -> np.ndarray:
    """Scores ``[L, L]``: R(m) q · R(n) k for one fixed q and k ``[d_head]`` placed at
    every position, so only the positions vary. Equals q^T R(n - m) k: a function of n - m.
    """
    generator = torch.Generator().manual_seed(int(seed))
    q = torch.randn(d_head, generator=generator, dtype=torch.float64)
    k = torch.randn(d_head, generator=generator, dtype=torch.float64)
    rq = apply_rotary(q.expand(length, d_head).clone(), base)
    rk = apply_rotary(k.expand(length, d_head).clone(), base)
    return (rq @ rk.T).float().numpy()


def diagonal_spread(matrix: np.ndarray) -> float:
    """max over diagonals n - m = c of (max - min) along it; 0 means offset-only."""
    n = matrix.shape[0]
    return float(max((np.ptp(np.diagonal(matrix, offset=c)) for c in range(-n + 1, n)), default=0.0))


def alibi(num_heads: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    """ALiBi slopes ``[H]`` (2^(-8/H), 2^(-16/H), ...) and biases ``[H, L, L]`` = -m_h |i - j|."""
    return alibi_slopes(num_heads).numpy(), alibi_bias(num_heads, length).numpy()


def learned_table(positions: int, d_model: int, seed: int) -> np.ndarray:
    """An untrained learned table P ``[positions, d_model]``, entries N(0, 1/d_model)."""
    module = init_parameters(LearnedEncoding(positions, d_model), seed)
    return module.table.weight.detach().float().numpy()


def learned_similarity(positions: int, d_model: int, seed: int) -> np.ndarray:
    """P[p]·P[q] ``[P, P]`` of the untrained learned table: no structure beyond the diagonal."""
    table = learned_table(positions, d_model, seed).astype(np.float64)
    return (table @ table.T).astype(np.float32)


def scheme_panels(length: int, d_model: int, base: float, seed: int) -> dict[str, np.ndarray]:
    """What each positional scheme contributes between query m and key n, ``[L, L]`` float32, by the scheme's
    name in the registry's order (``transformer.positional_schemes``): sinusoidal PE_m·PE_n, learned P_m·P_n,
    rotary R(m)q·R(n)k (d_model rounded up to even), ALiBi's bias of one head, none 0."""

    def self_products(table: np.ndarray) -> np.ndarray:
        table = table.astype(np.float64)
        return (table @ table.T).astype(np.float32)

    scores = {
        "sinusoidal": lambda: self_products(pe_table(length, d_model, base)),
        "learned": lambda: self_products(learned_table(length, d_model, seed)),
        "rotary": lambda: rope_scores(length, d_model + d_model % 2, base, seed),
        "alibi": lambda: alibi(1, length)[1][0],
        "none": lambda: np.zeros((length, length), dtype=np.float32),
    }
    return {name: scores[name]() for name in POSITIONAL_ENCODINGS}
