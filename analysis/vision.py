"""What a Vision Transformer's attention and embeddings show, computed from its weights and its record.

Tokens: 0 is [CLS], 1 + i is patch i of a ``g x g`` grid in row-major order (row i // g, column i % g),
each patch ``p x p`` pixels, its centre at ``(p (r + 1/2), p (s + 1/2))`` in pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from transformer import AttentionName, Patch


def grid_side(tokens: int) -> int:
    """g for ``tokens = 1 + g^2`` ([CLS] and the patches); ValueError for any other count."""
    side = int(round((tokens - 1) ** 0.5))
    if side * side != tokens - 1:
        raise ValueError(f"{tokens} tokens are not [CLS] and a square grid of patches.")
    return side


def row_over_patches(weights: np.ndarray, token: int) -> np.ndarray:
    """Token ``token``'s attention over the patches as images: ``weights [..., 1 + N, 1 + N] -> [..., g, g]``
    (its weight on [CLS] left out, so a map sums to 1 minus that weight)."""
    side = grid_side(weights.shape[-1])
    return np.asarray(weights[..., token, 1:]).reshape(*weights.shape[:-2], side, side)


def inked_patches(image: np.ndarray, patch_size: int) -> np.ndarray:
    """``[g, g]``: which patches of an ``[S, S]`` image (1 = ink) hold ink, a pixel at half or more (where the
    digit's outline is drawn)."""
    side = image.shape[0] // patch_size
    blocks = np.asarray(image)[: side * patch_size, : side * patch_size].reshape(side, patch_size, side, patch_size)
    return blocks.max(axis=(1, 3)) >= 0.5


def ink_share(maps: np.ndarray, inked: np.ndarray) -> np.ndarray:
    """The share of each map's weight ``maps [..., g, g]`` (one query's weights over the patches) that falls on the
    inked patches ``inked [g, g]``: sum over inked patches / sum over all patches, 0 where a map holds none."""
    total = np.asarray(maps, np.float64).sum(axis=(-1, -2))
    on_ink = np.where(inked, maps, 0.0).sum(axis=(-1, -2))
    return np.divide(on_ink, total, out=np.zeros_like(total), where=total > 0)


def patch_centres(side: int, patch_size: int) -> np.ndarray:
    """``[g^2, 2]`` pixel coordinates (row, column) of each patch's centre, row-major."""
    rows, columns = np.divmod(np.arange(side * side), side)
    return patch_size * (np.stack([rows, columns], axis=1) + 0.5)


def attention_distance(weights: np.ndarray, patch_size: int) -> np.ndarray:
    """Mean attention distance in pixels ``[L, H]`` from ``weights [L, H, B, 1 + N, 1 + N]`` or ``[L, H, 1 + N,
    1 + N]``: for each patch query i, its weights over the patch keys renormalised to sum to 1 (its weight on
    [CLS] left out), ``d_i = sum_j a_ij |c_i - c_j|``; the mean of d_i over the queries (and the images).
    The ViT paper's "attention distance" (its figure 7, right)."""
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim == 4:
        w = w[:, :, None]
    side = grid_side(w.shape[-1])
    centres = patch_centres(side, patch_size)
    distance = np.linalg.norm(centres[:, None, :] - centres[None, :, :], axis=-1)  # [N, N]
    patch_rows = w[..., 1:, 1:]
    shares = patch_rows / np.maximum(patch_rows.sum(-1, keepdims=True), 1e-12)
    return (shares * distance).sum(-1).mean(axis=(-1, -2)).astype(np.float32)


def position_similarity(positions: np.ndarray) -> np.ndarray:
    """Cosine similarity ``[N, N]`` between the patches' position embeddings (rows 1..N of ``positions
    [1 + N, d]``; row 0 is [CLS]'s). The ViT paper's figure 7, centre."""
    table = np.asarray(positions, dtype=np.float64)[1:]
    unit = table / np.maximum(np.linalg.norm(table, axis=1, keepdims=True), 1e-12)
    return (unit @ unit.T).astype(np.float32)


@dataclass(frozen=True)
class PatchFilters:
    """The leading principal components of the patch embedding's filters: ``components [k, C, p, p]`` and the
    share of the filters' variance each explains, ``explained [k]``."""

    components: np.ndarray
    explained: np.ndarray


def patch_filters(projection: np.ndarray, channels: int, patch_size: int, count: int) -> PatchFilters:
    """Principal components of the rows of the patch embedding ``E^T`` (``projection [d_model, C p p]``, one
    filter a row), centred: the ViT paper's figure 7, left. At most ``C p p`` components exist."""
    filters = np.asarray(projection, dtype=np.float64)
    centred = filters - filters.mean(0, keepdims=True)
    _, singular, directions = np.linalg.svd(centred, full_matrices=False)
    variance = singular**2
    count = min(count, len(variance))
    components = directions[:count].reshape(count, channels, patch_size, patch_size)
    shares = variance[:count] / max(variance.sum(), 1e-12)
    return PatchFilters(components.astype(np.float32), shares.astype(np.float32))


@torch.inference_mode()
def accuracy(model: torch.nn.Module, images: torch.Tensor, labels: torch.Tensor, interventions=()) -> float:
    """Share of ``images [N, C, H, W]`` whose most probable class is ``labels [N]``, under ``interventions``."""
    predicted = model(images, interventions=interventions).logits.argmax(-1)
    return float((predicted == labels).float().mean())


@torch.inference_mode()
def patched_probabilities(
    model: torch.nn.Module, target: torch.Tensor, source: torch.Tensor, layer: int, heads: list[int]
) -> np.ndarray:
    """Class probabilities ``[num_classes]`` of the ``target`` image ``[1, C, H, W]`` with ``heads`` of layer
    ``layer`` (from 0) given their outputs on the ``source`` image, at every token."""
    record = model(source, return_internals=True).attention
    patch = Patch(str(AttentionName("encoder", layer, "self_attn")), heads, record)
    return torch.softmax(model(target, interventions=[patch]).logits[0], -1).numpy()
