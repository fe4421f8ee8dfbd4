"""Positional information: sinusoidal, learned, rotary (RoPE) and ALiBi.

Sinusoidal and learned encodings are added to the scaled token embeddings;
rotary rotates q and k inside attention; ALiBi adds a per-head linear bias to
the attention scores. Without any of them, bidirectional self-attention is blind
to order (permutation-equivariant); under a causal mask it is not quite, since
query i sees exactly i + 1 keys, and the mask leaks some order.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .embedding import Embedding


def sinusoidal_encoding(max_len: int, d_model: int, base: float = 10000.0) -> torch.Tensor:
    """The paper's fixed encoding, float32 ``[max_len, d_model]``.

    PE[pos, 2i]   = sin(pos / base^(2i / d_model))
    PE[pos, 2i+1] = cos(pos / base^(2i / d_model))

    An odd ``d_model`` works: the last column is a sine.
    """
    position = torch.arange(max_len, dtype=torch.float64)[:, None]
    even_dims = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = position / torch.pow(torch.tensor(float(base), dtype=torch.float64), even_dims / d_model)
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return pe.float()


def sinusoid_wavelengths(d_model: int, base: float = 10000.0) -> torch.Tensor:
    """Wavelength (in positions) of each sine/cosine pair i: 2*pi * base^(2i / d_model)."""
    even_dims = torch.arange(0, d_model, 2, dtype=torch.float64)
    return (2 * math.pi * torch.pow(torch.tensor(float(base), dtype=torch.float64), even_dims / d_model)).float()


def relative_shift_matrix(d_model: int, offset: int, base: float = 10000.0) -> torch.Tensor:
    """The fixed linear map M_k ``[d_model, d_model]`` with PE[pos + k] = PE[pos] @ M_k.T.

    Each (sin, cos) pair with frequency w_i is rotated by the angle k * w_i:
    [sin(a + kw), cos(a + kw)] = [[cos kw, sin kw], [-sin kw, cos kw]] @ [sin a, cos a].
    It does not depend on pos, which is why relative offsets are easy to read off.
    """
    even_dims = torch.arange(0, d_model, 2, dtype=torch.float64)
    angle = offset / torch.pow(torch.tensor(float(base), dtype=torch.float64), even_dims / d_model)
    shift = torch.zeros(d_model, d_model, dtype=torch.float64)
    for i, theta in enumerate(angle.tolist()):
        s, c = 2 * i, 2 * i + 1
        if c < d_model:
            shift[s, s], shift[s, c] = math.cos(theta), math.sin(theta)
            shift[c, s], shift[c, c] = -math.sin(theta), math.cos(theta)
        else:  # a lone sine column has no cosine partner: not expressible linearly
            shift[s, s] = float("nan")
    return shift.float()


class SinusoidalEncoding(nn.Module):
    """Adds the fixed sinusoidal table: ``x [B, L, d] -> x + PE[:L]``."""

    def __init__(self, max_len: int, d_model: int, base: float = 10000.0):
        super().__init__()
        # Built on the meta device (a checkpoint's check, for its shapes), the table is only its shape: computed
        # there, it would run PyTorch's reference kernels, whose first use imports its compiler (about 1.5 s).
        on_meta = torch.empty(0).is_meta
        table = torch.empty(max_len, d_model) if on_meta else sinusoidal_encoding(max_len, d_model, base)
        self.register_buffer("table", table, persistent=False)

    def forward(self, x: torch.Tensor, start: int = 0) -> torch.Tensor:
        """``x + PE[start : start + L]`` (``start`` > 0 for tokens after a KV cache's)."""
        return x + self.table[start : start + x.shape[1]]


class LearnedEncoding(nn.Module):
    """Adds a trainable position embedding ``P [max_len, d]``: ``x -> x + P[:L]``."""

    def __init__(self, max_len: int, d_model: int):
        super().__init__()
        self.table = Embedding(max_len, d_model)

    def forward(self, x: torch.Tensor, start: int = 0) -> torch.Tensor:
        """``x + P[start : start + L]``."""
        return x + self.table.weight[start : start + x.shape[1]]


def rotary_frequencies(d_head: int, base: float = 10000.0, scaling: tuple | None = None) -> torch.Tensor:
    """RoPE's frequencies, float64 ``[d_head / 2]``: w_i = base^(-2i / d_head), radians per position.

    ``scaling`` stretches them for longer texts than the model was trained on:
    ``("linear", s)`` gives every w_i / s (positions read s times slower);
    ``("llama3", s, low, high, n)`` (Llama 3.1) keeps the fast pairs, whose wavelength
    2 pi / w_i is under n / high positions, divides the slow ones, over n / low, by s, and
    blends the pairs between: with r = (n w_i / (2 pi) - low) / (high - low),
    w_i' = (1 - r) w_i / s + r w_i.
    """
    inv_freq = torch.pow(
        torch.tensor(float(base), dtype=torch.float64), -torch.arange(0, d_head, 2, dtype=torch.float64) / d_head
    )
    if scaling is None:
        return inv_freq
    if scaling[0] == "linear":
        return inv_freq / scaling[1]
    factor, low, high, original = scaling[1:]
    wavelength = 2 * math.pi / inv_freq
    blend = (original / wavelength - low) / (high - low)
    blended = (1 - blend) * inv_freq / factor + blend * inv_freq
    slow = torch.where(wavelength > original / low, inv_freq / factor, blended)
    return torch.where(wavelength < original / high, inv_freq, slow)


def rotary_angles(
    length: int, d_head: int, base: float = 10000.0, start: int = 0, scaling: tuple | None = None
) -> torch.Tensor:
    """Rotation angles, float64 ``[length, d_head / 2]``: theta[pos, i] = pos * w_i (``rotary_frequencies``),
    for the positions ``start .. start + length - 1``."""
    inv_freq = rotary_frequencies(d_head, base, scaling)
    return torch.arange(start, start + length, dtype=torch.float64)[:, None] * inv_freq[None, :]


def apply_rotary(x: torch.Tensor, base: float = 10000.0, start: int = 0, scaling: tuple | None = None) -> torch.Tensor:
    """Rotate each pair (x[2i], x[2i+1]) of ``x [..., L, d_head]`` by its position's angle (the
    positions start at ``start``: later tokens of a KV cache).

    Since R(a)^T R(b) = R(b - a), the dot product of a rotated query at m and a
    rotated key at n depends on the positions only through n - m. (Hugging Face's Llama pairs
    x[i] with x[i + d_head / 2] instead; ``weight_maps`` reorders its weights into these pairs.)
    """
    length, d_head = x.shape[-2], x.shape[-1]
    angle = rotary_angles(length, d_head, base, start, scaling)
    cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]
    rotated = torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1)
    return rotated.flatten(-2)


def alibi_slopes(num_heads: int) -> torch.Tensor:
    """ALiBi's per-head slopes ``[H]``: a geometric sequence 2^(-8/n), 2^(-16/n), ...

    For a head count that is not a power of two, the slopes of the nearest lower
    power of two are followed by every other slope of the next power of two.
    """

    def power_of_two_slopes(n: int) -> list[float]:
        return [2.0 ** (-8.0 * (i + 1) / n) for i in range(n)]

    lower = 2 ** int(math.floor(math.log2(num_heads)))
    slopes = power_of_two_slopes(lower)
    if lower < num_heads:
        slopes += power_of_two_slopes(2 * lower)[0::2][: num_heads - lower]
    return torch.tensor(slopes, dtype=torch.float32)


def alibi_bias(
    num_heads: int, length_q: int, length_k: int | None = None, query_start: int = 0, key_start: int = 0
) -> torch.Tensor:
    """Additive score bias ``[H, Lq, Lk]``: -slope_h * |i - j| for query i and key j, at the absolute
    positions ``query_start + i`` and ``key_start + j`` (a KV cache's queries start later)."""
    length_k = length_q if length_k is None else length_k
    distance = (
        ((query_start + torch.arange(length_q))[:, None] - (key_start + torch.arange(length_k))[None, :]).abs().float()
    )
    return -alibi_slopes(num_heads)[:, None, None] * distance
