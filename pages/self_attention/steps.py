"""One real head of the selected model, every intermediate, read from its forward record.

The model runs once (cached) with its internals recorded; this module picks one head's q, k, v,
its scores and the layer input that W_Q, W_K, W_V read, and ``analysis.attention_steps`` recomputes
the what-if part the page lets the user change. Both are kept in the computation cache
(``ui.cache.computation``).
"""

from __future__ import annotations

from ui import runtime  # noqa: F401  (torch threads are set before any torch work)

from analysis.attention_steps import AttentionSteps, head_steps
from analysis.softmax import peakedness_against_dk
from transformer.spec import ModelSpec
from ui.cache import computation
from ui.forward import run_model, stack_of
from ui.models import load_model


def head_name(kind: str, layer: int) -> str:
    """The record name of self-attention layer ``layer`` (0-based) of a model's (first) stack."""
    return f"{stack_of(kind)}.layers.{layer}.self_attn"


@computation
def attention_steps(
    spec: ModelSpec, ids: tuple[int, ...], layer: int = 0, head: int = 0, scale: bool = True, temperature: float = 1.0
) -> AttentionSteps:
    """softmax(mask((Q K^T s + b) / τ)) V for head ``head`` of layer ``layer`` (both 0-based) on ``ids``."""
    loaded = load_model(spec)
    view = run_model(spec, tuple(ids), internals=True)
    name = head_name(loaded.kind, layer)
    q, k, v = (view.internals[f"{name}.{part}"][head] for part in "qkv")
    return head_steps(
        view.internals[f"{name}.input"],
        q,
        k,
        v,
        view.scores[name][head],
        view.masks[name],
        view.weights[name][head],
        loaded.config.scale_scores,
        scale,
        temperature,
    )


softmax_peakedness = computation(peakedness_against_dk)
