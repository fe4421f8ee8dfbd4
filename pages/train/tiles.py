"""The attention tiles of the Train page: every head of one attention map of a trainer's model."""

from __future__ import annotations

import numpy as np
import streamlit as st
from ui import runtime  # noqa: F401  (torch threads are set before any torch work)

from analysis.vision import ink_share, inked_patches, row_over_patches
from transformer import AttentionName, Trainer
from ui.charts import chart
from ui.findings import focus_finding, ink_finding
from ui.cache import cached_figure
from ui.screen import compact
from viz.heads import head_grid_figure
from viz.vision import attention_over_image_figure


def attention_tiles(weights: dict[str, np.ndarray], labels, title: str, key: str) -> None:
    """Every head of one attention map, picked by name: ``weights`` name -> ``[H, Lq, Lk]``;
    ``labels(name)`` -> (query symbols, key symbols). Decoder self-attention shows its causal mask."""
    names = list(weights)
    # A row of buttons, one click each (a drop-down closes before the rerun, which delays every change)
    name = st.segmented_control(
        "attention shown", names, default=names[-1], required=True, key=f"layer_{key}", format_func=readable_name
    )
    name = name if name in weights else names[-1]
    rows, cols = labels(name)
    lq, lk = weights[name].shape[-2:]
    mask = np.tril(np.ones((lq, lk), dtype=bool)) if name.startswith("decoder") and name.endswith("self_attn") else None
    chart(
        cached_figure(
            head_grid_figure,
            weights[name],
            _fit(rows, lq),
            _fit(cols, lk),
            f"{title} · {readable_name(name)}" + focus_finding(weights[name]),
            mask,
        ),
        width="stretch",
        key=f"tiles_{key}",
    )


def _fit(symbols: list[str], length: int) -> list[str]:
    """Axis labels of the right length (positions when the symbols do not match the map)."""
    return list(symbols) if len(symbols) == length else [f"t{i + 1}" for i in range(length)]


def side_labels(source: list[str], target: list[str]):
    """``labels(name)`` for a model's maps: encoder maps read the source, the decoder its own input."""

    def labels(name: str) -> tuple[list[str], list[str]]:
        if name.startswith("encoder"):
            return source, source
        return (target, source) if name.endswith("cross_attn") else (target, target)

    return labels


def _probe_labels(trainer: Trainer):
    probe = trainer.task.probe()
    source = list(probe.tokens[0])
    target = source if probe.decoder_inputs is None else trainer.task.symbols(probe.decoder_inputs[0])
    return side_labels(source, target)


def snapshot_figure(trainer: Trainer, index: int, key: str) -> None:
    """The probe's attention in every head of a chosen map, at snapshot ``index`` (a vision model: [CLS]'s)."""
    snapshot = trainer.snapshots[index]
    if trainer.task.kind == "vision":
        cls_over_image(
            trainer, snapshot.weights, f"Step {snapshot.step} · [CLS]'s attention over a held-out digit", key
        )
        return
    attention_tiles(snapshot.weights, _probe_labels(trainer), f"Step {snapshot.step} · the probe input", key)


def cls_over_image(trainer: Trainer, weights: dict[str, np.ndarray], title: str, key: str) -> None:
    """[CLS]'s attention over the patches of the probe image in every layer and head (``weights`` name ->
    ``[H, 1+N, 1+N]``, encoder layers in order), each drawn over the image as on the Vision page."""
    probe = trainer.task.probe()
    names = list(weights)
    maps = np.concatenate([row_over_patches(weights[name], 0) for name in names])  # [L * H, g, g]
    heads = weights[names[0]].shape[0]
    panels = [f"layer {layer + 1} · head {head + 1}" for layer in range(len(names)) for head in range(heads)]
    inked = inked_patches(probe.inputs[0, 0].numpy(), trainer.config.patch_size)  # [g, g]
    chart(
        cached_figure(
            attention_over_image_figure,
            probe.inputs[0, 0].numpy(),
            maps,
            trainer.config.patch_size,
            f"{title} (a {int(probe.targets[0, 0])})" + ink_finding(ink_share(maps, inked), inked, panels),
            panels,
            2 if compact() else heads,
        ),
        width="stretch",
        key=f"tiles_{key}",
    )


def readable_name(name: str) -> str:
    """``decoder.layers.1.self_attn`` -> "decoder layer 2 · self-attention"."""
    parsed = AttentionName.parse(name)
    return f"{parsed.stack} layer {parsed.layer + 1} · {parsed.kind.replace('_attn', '-attention')}"
