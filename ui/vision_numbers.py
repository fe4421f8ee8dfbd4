"""A Vision Transformer's computations, cached for every session (the Vision and Experiments pages): the
held-out digits, one image's forward pass, and the measurements over the held-out set."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from analysis import vision
from analysis.knockout import knockout_sweep
from transformer import attention_names, load_digits
from transformer.digits_task import PROBE_INDEX
from transformer.spec import ModelSpec
from ui.cache import computation, resource
from ui.model_picker import shipped_entry
from ui.models import load_model

NO_POSITIONS = "digits_vit_nopos"
SHOWN_DIGIT = (
    PROBE_INDEX + 1
)  # the held-out digit pages open on, counted from 1: a 3, read right (the Train probe)  # the shipped digits ViT's twin trained without position embeddings


@resource(max_entries=1)
def digits():
    """The 8 x 8 digits and their fixed train / held-out split (read once per process)."""
    return load_digits()


@dataclass(frozen=True)
class Reading:
    """One image through the model: class ``probabilities [10]`` and self-attention ``weights [L, H, 1+N, 1+N]``."""

    probabilities: np.ndarray
    weights: np.ndarray


@computation
def reading(spec: ModelSpec, image: tuple[float, ...]) -> Reading:
    """``image`` (64 grey levels 0..1, row-major) through the model ``spec`` names."""
    module = load_model(spec).module
    pixels = torch.tensor(image, dtype=torch.float32).reshape(1, 1, 8, 8)
    with torch.inference_mode():
        out = module(pixels, return_attention=True)
    names = attention_names(module)
    weights = np.stack([out.attention.weights[name][0].float().numpy() for name in names])
    return Reading(torch.softmax(out.logits[0], -1).numpy(), weights)


@computation
def heldout_weights(spec: ModelSpec) -> np.ndarray:
    """Self-attention weights ``[L, H, B, 1+N, 1+N]`` of the model on every held-out digit."""
    module = load_model(spec).module
    with torch.inference_mode():
        out = module(digits().heldout_images, return_attention=True)
    names = attention_names(module)
    return np.stack([out.attention.weights[name].float().numpy().transpose(1, 0, 2, 3) for name in names])


@computation
def attention_distance(spec: ModelSpec) -> np.ndarray:
    """Mean attention distance in pixels ``[L, H]`` over the held-out digits (``analysis.vision``)."""
    return vision.attention_distance(heldout_weights(spec), load_model(spec).config.patch_size)


@computation
def heldout_accuracy(spec: ModelSpec) -> float:
    data = digits()
    return vision.accuracy(load_model(spec).module, data.heldout_images, data.heldout_labels)


@computation
def knockouts(spec: ModelSpec) -> tuple[float, np.ndarray]:
    """Held-out accuracy with no head knocked out, and its change ``[L, H]`` with each head knocked out alone
    (``analysis.knockout.knockout_sweep``)."""
    module, data = load_model(spec).module, digits()

    def measure(interventions):
        return vision.accuracy(module, data.heldout_images, data.heldout_labels, interventions)

    change = knockout_sweep(attention_names(module), module.config.num_heads, measure)
    return measure(()), change


@computation
def patched(
    spec: ModelSpec, target: tuple[float, ...], source: tuple[float, ...], layer: int, heads: tuple[int, ...]
) -> np.ndarray:
    """The target image's class probabilities with ``heads`` of ``layer`` (from 0) taken from the source image."""
    as_image = lambda values: torch.tensor(values, dtype=torch.float32).reshape(1, 1, 8, 8)  # noqa: E731
    return vision.patched_probabilities(load_model(spec).module, as_image(target), as_image(source), layer, list(heads))


def no_position_model() -> ModelSpec | None:
    """The shipped twin of the digits ViT trained without position embeddings, if this server has it."""
    try:
        return shipped_entry(NO_POSITIONS).spec
    except KeyError:
        return None


def is_shipped_digits_model(spec: ModelSpec) -> bool:
    """True for the shipped digits ViT, the model whose twin without positions is shipped beside it."""
    try:
        return shipped_entry("digits_vit").spec == spec
    except KeyError:
        return False


def digits_problem(config) -> str | None:
    """What stops a vision model from reading the 8 x 8 grey digits (None: nothing)."""
    if (config.image_size, config.channels) == (8, 1):
        return None
    return (
        f"This page reads 8 x 8 grey digits; this model takes {config.channels}-channel images of "
        f"{config.image_size} x {config.image_size}. Pick a model trained on the digits."
    )
