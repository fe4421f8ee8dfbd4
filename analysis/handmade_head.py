"""Build an attention head by hand: choose W_Q from parts a person can read, and watch the pattern form.

Each token enters as ``x_i = [onehot(token_i), onehot(i)]`` (``d = V + P``: V tokens, P positions).
Keys are the inputs themselves (``W_K = I``) and the query matrix is a sum of readable parts,

    W_Q = beta * (w_same * [I_V, 0; 0, 0] + w_back * [0, 0; 0, S_k] + w_first * [0, 0; 0, F]),

where ``S_k`` sends position i to position i - k and ``F`` sends every position to position 0. So the
score of query i and key j is

    s_ij = x_i W_Q . x_j = beta * (w_same [token_i = token_j] + w_back [j = i - k] + w_first [j = 0]),

unscaled, and a causal mask keeps j <= i. ``beta`` (the sharpness) turns the softmax from uniform
(beta = 0) to one-hot on the best key. The head is the package's own ``MultiHeadAttention`` with one
head and these weights.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from transformer import MultiHeadAttention, causal_mask


@dataclass(frozen=True)
class HeadRecipe:
    """The parts of W_Q: weights of "same token", "k positions back" and "first token", and the sharpness."""

    same_token: float = 0.0
    back: float = 1.0
    offset: int = 1
    first_token: float = 0.0
    sharpness: float = 5.0

    def __post_init__(self) -> None:
        if isinstance(self.offset, bool) or not isinstance(self.offset, int) or self.offset < 1:
            raise ValueError(f"offset must be a whole number of positions >= 1, got {self.offset!r}.")
        if self.sharpness < 0:
            raise ValueError(f"sharpness must be >= 0, got {self.sharpness}.")


def query_matrix(recipe: HeadRecipe, vocab: int, positions: int) -> torch.Tensor:
    """``M [d, d]`` with ``q_i = x_i M`` (``d = vocab + positions``), built from the recipe's parts."""
    size = vocab + positions
    matrix = torch.zeros(size, size)
    matrix[:vocab, :vocab] = recipe.same_token * torch.eye(vocab)
    rows = torch.arange(recipe.offset, positions)
    matrix[vocab + rows, vocab + rows - recipe.offset] += recipe.back
    matrix[vocab:, vocab] += recipe.first_token
    return recipe.sharpness * matrix


def one_hot_inputs(ids: list[int], vocab: int, positions: int) -> torch.Tensor:
    """``[1, L, vocab + positions]``: each token's one-hot id followed by its one-hot position."""
    length = len(ids)
    if length > positions:
        raise ValueError(f"{length} tokens exceed the head's {positions} positions; shorten the input.")
    x = torch.zeros(1, length, vocab + positions)
    x[0, torch.arange(length), torch.tensor(ids)] = 1.0
    x[0, torch.arange(length), vocab + torch.arange(length)] = 1.0
    return x


def handmade_head(recipe: HeadRecipe, vocab: int, positions: int) -> MultiHeadAttention:
    """One head of ``d = vocab + positions`` dimensions, no biases, no 1/sqrt(d_k): W_Q from the recipe,
    W_K = W_V = W_O = I."""
    size = vocab + positions
    head = MultiHeadAttention(size, 1, bias=False, scale_scores=False)
    with torch.no_grad():
        head.w_q.weight.copy_(query_matrix(recipe, vocab, positions).T)  # nn.Linear computes x W^T
        for linear in (head.w_k, head.w_v, head.w_o):
            linear.weight.copy_(torch.eye(size))
    return head.eval()


@torch.inference_mode()
def handmade_pattern(recipe: HeadRecipe, ids: list[int], vocab: int, positions: int) -> np.ndarray:
    """The causal attention weights ``[L, L]`` of the hand-made head on ``ids``."""
    x = one_hot_inputs(ids, vocab, positions)
    weights = handmade_head(recipe, vocab, positions)(x, x, x, causal_mask(len(ids)))[1]
    return weights[0, 0].numpy()


def agreement(first: np.ndarray, second: np.ndarray) -> float:
    """The share of query rows (after the first) whose most-attended key is the same in both maps ``[L, L]``."""
    rows = slice(1, None)
    return float((first[rows].argmax(-1) == second[rows].argmax(-1)).mean()) if len(first) > 1 else 1.0
