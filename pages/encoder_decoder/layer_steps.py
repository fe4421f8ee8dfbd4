"""One encoder layer, step by step: the tensors between its sub-layers, read from the forward record.

Nothing is recomputed here: the model's own forward pass records its residual stream,
LayerNorm inputs and outputs and feed-forward units (``ForwardRecord`` internals), and
this module only picks them out in the order of the layer's post-LN or pre-LN wiring.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ui.forward import ForwardView


@dataclass(frozen=True)
class LayerSteps:
    """What happens inside one encoder layer on one sentence (``L`` tokens).

    ``stages``: (name, ``[L, d_model]``) in the order computed, from the layer's
    input to its output. ``norms``: (name, ``[L, d_model]`` before, ``[L, d_model]``
    after) for each LayerNorm. ``ffn_active``: fraction of the ``d_ff``
    feed-forward units with act(x W_1 + b_1) > 0, per token ``[L]``.
    """

    stages: tuple[tuple[str, np.ndarray], ...]
    norms: tuple[tuple[str, np.ndarray, np.ndarray], ...]
    ffn_active: np.ndarray
    norm_first: bool


POST_LN_STAGES = (
    ("input x", "input"),
    ("attention output", "self_attn.out"),
    ("x + attention", "norm1.in"),
    ("LayerNorm 1", "norm1.out"),
    ("feed-forward output", "feed_forward.out"),
    ("x + feed-forward", "norm2.in"),
    ("LayerNorm 2 = output", "after_feed_forward"),
)
PRE_LN_STAGES = (
    ("input x", "input"),
    ("LayerNorm 1", "norm1.out"),
    ("attention output", "self_attn.out"),
    ("x + attention", "after_self_attn"),
    ("LayerNorm 2", "norm2.out"),
    ("feed-forward output", "feed_forward.out"),
    ("x + feed-forward = output", "after_feed_forward"),
)


def layer_steps(view: ForwardView, layer_index: int, norm_first: bool) -> LayerSteps:
    """Encoder layer ``layer_index`` (0-based) of a forward pass recorded with internals.

    Post-LN (the paper): x1 = LN1(x + MHA(x)); out = LN2(x1 + FFN(x1)).
    Pre-LN: x1 = x + MHA(LN1(x)); out = x1 + FFN(LN2(x1)) (the residual stream is never normed).
    """
    prefix = f"encoder.layers.{layer_index}"
    internals = view.internals
    hidden = internals.get(f"{prefix}.feed_forward.hidden")
    parts = PRE_LN_STAGES if norm_first else POST_LN_STAGES
    if hidden is None:  # an attention-only layer: its output is the stream after attention
        parts = tuple((name, part) for name, part in parts if "feed_forward" not in part and "norm2" not in part)
    stages = [(name, internals[f"{prefix}.{part}"]) for name, part in parts]
    where = "before" if norm_first else "after"
    norms = tuple(
        (f"LayerNorm {i} ({where} {what})", internals[f"{prefix}.norm{i}.in"], internals[f"{prefix}.norm{i}.out"])
        for i, what in ((1, "attention"), (2, "feed-forward"))
        if f"{prefix}.norm{i}.in" in internals
    )
    length = stages[0][1].shape[0]
    active = (hidden > 0).mean(-1).astype(np.float32) if hidden is not None else np.zeros(length, np.float32)
    return LayerSteps(tuple(stages), norms, active, bool(norm_first))
