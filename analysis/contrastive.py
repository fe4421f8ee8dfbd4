"""The contrastive objective of sentence-embedding models (all-MiniLM-L6-v2's fine-tuning): in a batch of N pairs
(a_i, b_i), each a_i must pick its own b_i out of all N second sentences.

    p_ij = softmax_j(s · cos(a_i, b_j)),    L = -1/N Σ_i log p_ii

with ``s`` a scale (20 in sentence-transformers' MultipleNegativesRankingLoss): every other pair's second sentence
is a negative for free, so the loss pulls paraphrases together and pushes the rest apart.
"""

from __future__ import annotations

import numpy as np


def in_batch_probabilities(first: np.ndarray, second: np.ndarray, scale: float) -> np.ndarray:
    """``p [N, N]``: row i the softmax over j of ``scale · cos(first_i, second_j)``; ``first``, ``second``
    ``[N, d]`` unit vectors (so their dot product is the cosine). float64."""
    logits = scale * (np.asarray(first, np.float64) @ np.asarray(second, np.float64).T)
    logits -= logits.max(axis=1, keepdims=True)
    weights = np.exp(logits)
    return weights / weights.sum(axis=1, keepdims=True)


def contrastive_loss(probabilities: np.ndarray) -> float:
    """L = -1/N Σ_i log p_ii: the cross-entropy of each first sentence picking its own pair."""
    return float(-np.log(np.clip(np.diag(probabilities), 1e-300, None)).mean())
