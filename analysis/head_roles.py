"""Head roles: how much each head behaves like the patterns people name, from its weights alone.

For weights ``[L, H, T, T]`` (rows = queries, each summing to 1 over the keys):

- previous token: mean over queries i >= 1 of a[i, i-1];
- next token: mean over queries i <= T-2 of a[i, i+1];
- [CLS]/[SEP] sink: mean over queries of the weight on the special tokens, sum_{j special} a[i, j];
- same word: mean, over queries inside a word of several pieces, of the weight on the word's other pieces;
- broad: mean over queries of the row entropy divided by ln T (1 = spread evenly over every key).

Each score is in [0, 1], but the scores are not on one scale: on MiniLM and the default sentence the
middle half of the heads have an entropy ratio between about 0.4 and 0.75, while few reach a
previous-token weight of 0.3. So a head's strongest role is the one in
which it stands out most among all the heads given: each score is turned into a z-score against
that role's scores over the heads, z = (s - mean) / std, and the largest z wins. A role with the
same score in every head (same word, when no word is split) tells no head apart and is never
chosen; with a single head, or no role that varies, the highest raw score wins. A head whose largest
z-score is below ``CLEAR_ROLE`` (it stands out by less than one standard deviation in every role) has
no clear role.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .head_stats import normalised_entropy

ROLES = ("previous token", "next token", "[CLS]/[SEP] sink", "same word", "broad")
STANDING = "stands out by (z)"
ROLE = "role"  # the strongest role, or NO_CLEAR_ROLE when the head stands out by less than CLEAR_ROLE
NO_CLEAR_ROLE = "no clear role"
CLEAR_ROLE = 1.0


def role_standing(scores: np.ndarray) -> np.ndarray:
    """z-scores ``[N, R]`` of role scores ``[N, R]`` (N heads): (s - mean over heads) / std over heads;
    NaN for a role whose score does not vary over the heads (or when there is one head)."""
    s = np.asarray(scores, dtype=np.float64)
    spread = s.std(0)
    varies = spread > 1e-9 * np.maximum(1.0, np.abs(s).max(0))
    return np.where(varies, (s - s.mean(0)) / np.where(varies, spread, 1.0), np.nan)


def strongest_roles(scores: np.ndarray) -> np.ndarray:
    """Index ``[N]`` into the roles of each head's largest z-score (``role_standing``), or of its
    largest raw score when no role varies over the heads."""
    z = role_standing(scores)
    if np.isnan(z).all():
        return np.asarray(scores).argmax(-1)
    return np.where(np.isnan(z), -np.inf, z).argmax(-1)


def _same_word(weights: np.ndarray, word_ids: Sequence[int | None]) -> np.ndarray:
    """``[L, H]``: mean over queries in multi-piece words of the weight on the same word's other pieces."""
    words = np.array([-1 if w is None else w for w in word_ids])
    same = (words[:, None] == words[None, :]) & (words[:, None] >= 0) & ~np.eye(len(words), dtype=bool)
    queries = same.any(-1)
    if not queries.any():
        return np.zeros(weights.shape[:2])
    return (weights * same).sum(-1)[..., queries].mean(-1)


def head_role_scores(weights: np.ndarray, special: Sequence[bool], word_ids: Sequence[int | None]) -> pd.DataFrame:
    """One row per (layer, head), both numbered from 1: a score per role of ``ROLES``, the strongest role
    (``strongest_roles``), its z-score (``STANDING``, NaN when chosen by the raw score) and the head's ``ROLE``:
    the strongest role, or ``NO_CLEAR_ROLE`` when that z-score is below ``CLEAR_ROLE``."""
    w = np.asarray(weights, dtype=np.float64)
    layers, heads, length, _ = w.shape
    special = np.asarray(special, dtype=bool)
    index = np.arange(length)
    previous = w[..., index[1:], index[:-1]].mean(-1) if length > 1 else np.zeros((layers, heads))
    following = w[..., index[:-1], index[1:]].mean(-1) if length > 1 else np.zeros((layers, heads))
    sink = w[..., special].sum(-1).mean(-1) if special.any() else np.zeros((layers, heads))
    broad = normalised_entropy(w) if length > 1 else np.zeros((layers, heads))
    scores = np.stack([previous, following, sink, _same_word(w, word_ids), broad], axis=-1)  # [L, H, 5]
    layer, head = np.meshgrid(np.arange(1, layers + 1), np.arange(1, heads + 1), indexing="ij")
    frame = pd.DataFrame({"layer": layer.ravel(), "head": head.ravel()})
    for k, role in enumerate(ROLES):
        frame[role] = scores[..., k].ravel()
    flat = scores.reshape(-1, len(ROLES))
    strongest = strongest_roles(flat)
    frame["strongest role"] = [ROLES[k] for k in strongest]
    frame[STANDING] = np.take_along_axis(role_standing(flat), strongest[:, None], -1)[:, 0]
    frame[ROLE] = np.where(frame[STANDING] < CLEAR_ROLE, NO_CLEAR_ROLE, frame["strongest role"])
    return frame


def without_specials(weights: np.ndarray, special: Sequence[bool]) -> np.ndarray:
    """Drop the special tokens' rows and columns and renormalise each row to sum to 1.

    ``[..., T, T] -> [..., T', T']`` with T' the ordinary tokens; a row whose weight
    was all on special tokens stays all zeros (never NaN).
    """
    keep = ~np.asarray(special, dtype=bool)
    kept = np.asarray(weights, dtype=np.float64)[..., keep, :][..., keep]
    total = kept.sum(-1, keepdims=True)
    return np.divide(kept, total, out=np.zeros_like(kept), where=total > 0).astype(np.float32)


def block_mean(weights: np.ndarray, tokens: Sequence[str], max_cells: int = 64) -> tuple[np.ndarray, list[str], int]:
    """Pool ``[..., T, T]`` into blocks of k queries x k keys so that at most ``max_cells`` remain per side
    (k = ceil(T / max_cells)): a block's cell is the weight its queries put on its keys, summed over the keys
    and averaged over the queries (the last blocks may be shorter), so a pooled row sums to the mean of its
    queries' row sums: 1 for rows of attention weights. Labels name each block's first token. Returns the
    pooled weights, the labels and k."""
    length = len(tokens)
    k = max(1, -(-length // max_cells))
    if k == 1:
        return np.asarray(weights, dtype=np.float32), list(tokens), 1
    bins = -(-length // k)
    pad = bins * k - length
    w = np.pad(np.asarray(weights, dtype=np.float64), [(0, 0)] * (weights.ndim - 2) + [(0, pad), (0, pad)])
    shape = w.shape[:-2] + (bins, k, bins, k)
    counts = np.minimum(k, length - np.arange(bins) * k)  # real queries per block (the last may be short)
    pooled = w.reshape(shape).sum(axis=(-3, -1)) / counts[:, None]  # mean over queries, sum over keys
    labels = [f"{i * k}-{min(length, (i + 1) * k) - 1}: {tokens[i * k]}" for i in range(bins)]
    return pooled.astype(np.float32), labels, k
