"""Experiments on a Vision Transformer, on the Vision and Experiments pages: each head knocked out in turn
(held-out accuracy), and one held-out digit's heads patched into another image."""

from __future__ import annotations

import numpy as np
import streamlit as st

from ui import vision_numbers
from ui.cache import cached_figure
from ui.charts import chart
from ui.controls import stops_slider
from ui.models import LoadedModel
from viz.experiments import head_grid
from viz.vision import class_probabilities_figure

KNOCK_OUT = "A knock-out zeroes the head's output before W^O."


def reads(probabilities: np.ndarray) -> str:
    """What a reading of the ten classes says: "reads a 3 (87%)", the most probable class and its probability."""
    best = int(np.argmax(probabilities))
    return f"reads a {best} ({float(probabilities[best]):.0%})"


def knock_out_sweep(loaded: LoadedModel) -> None:
    """The change of held-out accuracy ``[L, H]`` with each head knocked out alone, titled with the costliest head."""
    baseline, change = vision_numbers.knockouts(loaded.spec)
    worst = np.unravel_index(np.argmin(change), change.shape)
    finding = (
        f"layer {worst[0] + 1} · head {worst[1] + 1} costs the most, {baseline:.1%} → {baseline + change[worst]:.1%}"
        if change[worst] < 0
        else f"no single head lowers it from {baseline:.1%}"
    )
    chart(
        head_grid(change, f"Held-out accuracy with one head knocked out: {finding}", "change in accuracy"),
        key="knockout",
    )
    st.caption(KNOCK_OUT)


def patch_images(loaded: LoadedModel, pixels: tuple[float, ...], name: str, truth: int | None) -> None:
    """The chosen heads of one layer take their output from a held-out digit (the source) while the model reads
    ``pixels`` (64 grey levels, row-major; ``name`` and ``truth`` say what it is): its class probabilities as
    read and with the patched heads."""
    config = loaded.config
    data = vision_numbers.digits()
    count = len(data.heldout_labels)
    c1, c2, c3 = st.columns(3)
    source_index = (
        c1.number_input(f"source: held-out digit (1 to {count})", 1, count, 2, key="src_digit", bind="query-params") - 1
    )
    layer = stops_slider("layer", range(1, config.num_encoder_layers + 1), "patch_layer", container=c2) - 1
    heads = c3.multiselect(
        "heads",
        list(range(1, config.num_heads + 1)),
        default=list(range(1, config.num_heads + 1)),
        key="patch_heads",
        bind="query-params",
    )
    source = tuple(float(v) for v in data.heldout_images[int(source_index), 0].numpy().ravel())
    before = vision_numbers.reading(loaded.spec, pixels).probabilities
    after = vision_numbers.patched(loaded.spec, pixels, source, int(layer), tuple(h - 1 for h in heads))
    source_truth = int(data.heldout_labels[int(source_index)])
    left, right = st.columns(2)
    chart(
        cached_figure(class_probabilities_figure, before, f"{name}: as read, {reads(before)}", truth),
        container=left,
        key="before",
    )
    chart(
        cached_figure(
            class_probabilities_figure,
            after,
            f"Layer {layer + 1}, {len(heads)} head(s) from held-out digit {source_index + 1} (a {source_truth}): "
            + reads(after),
        ),
        container=right,
        key="after",
    )
