"""Multi-head attention's last step: the heads concatenated, times W^O (numpy, from the forward record).

    MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O + b^O,   head_i = A_i V_i  [T, d_k]

``Concat`` puts the h heads side by side: column ``i * d_k + j`` of the ``[T, d_model]`` result
is column j of head i (0-based), which is how ``MultiHeadAttention.merge_heads`` reshapes
them. ``W^O`` is ``[d_model, d_model]`` acting on the right (rows = concatenated dimensions),
so its rows ``i * d_k .. (i + 1) * d_k - 1`` read head i only: the output is the sum over heads of
``head_i W^O_i``. nn.Linear stores the transpose (``weight`` is ``[out, in]``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from torch import nn


def concat_heads(heads: np.ndarray) -> np.ndarray:
    """``[H, T, d_k] -> [T, H * d_k]``: head i's columns at ``i * d_k .. (i + 1) * d_k - 1``."""
    heads = np.asarray(heads)
    count, length, width = heads.shape
    return np.ascontiguousarray(heads.transpose(1, 0, 2)).reshape(length, count * width)


@dataclass(frozen=True)
class OutputProjection:
    """``W^O`` ``[d_model, d_model]`` (rows = the concatenated head dimensions, x W^O) and ``b^O``
    ``[d_model]`` (None for a model without biases), float32."""

    weight: np.ndarray
    bias: np.ndarray | None

    def __call__(self, concat: np.ndarray) -> np.ndarray:
        """``concat W^O (+ b^O)``, float32 ``[T, d_model]`` (accumulated in float64)."""
        out = np.asarray(concat, dtype=np.float64) @ self.weight.astype(np.float64)
        if self.bias is not None:
            out = out + self.bias.astype(np.float64)
        return out.astype(np.float32)


def output_projection(model: nn.Module, stack: str, layer: int) -> OutputProjection:
    """The ``w_o`` of ``<stack>.layers.<layer>.self_attn`` (``layer`` 0-based) as ``x W^O + b^O``.

    Only reads the parameters (the model may be shared between sessions): ``W^O = w_o.weight^T``.
    """
    linear = getattr(model, stack).layers[layer].self_attn.w_o
    weight = linear.weight.detach().float().cpu().numpy().T.copy()
    bias = None if linear.bias is None else linear.bias.detach().float().cpu().numpy().copy()
    return OutputProjection(weight, bias)


def projection_gap(concat: np.ndarray, projection: OutputProjection, output: np.ndarray) -> float:
    """``max |Concat W^O + b^O - output|`` over every entry: float rounding only (about 1e-6 at
    d_model 64) when ``output`` is what the model computed from those heads."""
    if np.size(output) == 0:
        return 0.0
    return float(np.max(np.abs(projection(concat).astype(np.float64) - np.asarray(output, dtype=np.float64))))


def head_parts(concat: np.ndarray, weight: np.ndarray, d_head: int) -> np.ndarray:
    """``[H]``: the Frobenius norm of each head's part of the output, ``‖head_i W^O_i‖`` (``concat [T, H d_k]``,
    ``weight`` = W^O ``[H d_k, d_model]``, its rows ``i d_k .. (i + 1) d_k - 1`` = W^O_i). The output is their sum
    (and b^O): the largest part is the head that adds the most to it."""
    concat, weight = np.asarray(concat, dtype=np.float64), np.asarray(weight, dtype=np.float64)
    count = concat.shape[1] // d_head
    blocks = [slice(i * d_head, (i + 1) * d_head) for i in range(count)]
    return np.array([np.linalg.norm(concat[:, b] @ weight[b]) for b in blocks], dtype=np.float64)


def block_norms(weight: np.ndarray, d_head: int) -> np.ndarray:
    """``[H]``: the Frobenius norm of each head's block of rows of W^O ``[H d_k, d_model]``, ``‖W^O_i‖``."""
    weight = np.asarray(weight, dtype=np.float64)
    return np.linalg.norm(weight.reshape(-1, d_head, weight.shape[1]), axis=(1, 2))
