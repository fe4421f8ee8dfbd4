"""Boolean attention masks. True means: this query may attend to this key.

This is the polarity of ``F.scaled_dot_product_attention`` (and the opposite of
``nn.MultiheadAttention``'s ``attn_mask``). Masks broadcast to
``[batch, heads, query, key]``.
"""

from __future__ import annotations

import torch


def causal_mask(n: int, device: torch.device | None = None) -> torch.Tensor:
    """Look-ahead mask ``[n, n]``: entry ``[i, j]`` is True iff ``j <= i``."""
    return torch.ones(n, n, dtype=torch.bool, device=device).tril()


def window_mask(
    length_q: int,
    length_k: int | None = None,
    window: int | None = None,
    query_start: int = 0,
    key_start: int = 0,
    device: torch.device | None = None,
) -> torch.Tensor:
    """Causal, optionally sliding-window mask ``[Lq, Lk]`` over absolute positions.

    Query i sits at position ``query_start + i`` and key j at ``key_start + j`` (a KV cache keeps
    earlier keys, so the queries of one call start later than the keys). Entry ``[i, j]`` is True iff
    ``key <= query`` and, with a ``window`` w, ``key > query - w`` (the w most recent keys, itself
    included). With the defaults it is ``causal_mask(n)``.
    """
    length_k = length_q if length_k is None else length_k
    query = query_start + torch.arange(length_q, device=device)[:, None]
    key = key_start + torch.arange(length_k, device=device)[None, :]
    allowed = key <= query
    return allowed if window is None else allowed & (key > query - window)


def padding_mask(lengths: torch.Tensor | list[int], max_len: int | None = None) -> torch.Tensor:
    """Key-padding mask ``[B, 1, 1, L]`` from the true lengths ``[B]`` of a padded batch.

    Entry ``[b, 0, 0, j]`` is True iff ``j < lengths[b]`` (key j is a real token).
    """
    lengths = torch.as_tensor(lengths, dtype=torch.long)
    length = int(lengths.max()) if max_len is None else max_len
    real = torch.arange(length, device=lengths.device)[None, :] < lengths[:, None]
    return real[:, None, None, :]


def combine_masks(*masks: torch.Tensor | None) -> torch.Tensor | None:
    """Logical AND of the given masks (broadcast); None entries are ignored."""
    present = [m for m in masks if m is not None]
    if not present:
        return None
    combined = present[0]
    for mask in present[1:]:
        combined = combined & mask
    return combined
