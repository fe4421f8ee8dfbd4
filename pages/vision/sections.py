"""The Vision Transformer page's sections: each draws from the model and the chosen image."""

from __future__ import annotations

import numpy as np
import streamlit as st

from analysis import vision
from analysis.head_stats import attention_rollout
from ui import vision_numbers
from pages.vision.picture import ChosenImage
from ui.cache import cached_figure
from ui.charts import chart
from ui.controls import stops_slider
from ui.models import LoadedModel
from ui.screen import compact, settings
from ui.vision_experiments import knock_out_sweep, patch_images
from ui.findings import ink_finding
from ui.formulas import formula
from viz.vision import attention_over_image_figure, class_probabilities_figure, patch_grid_figure, patch_sequence_figure
from viz.vision_learned import attention_distance_figure, patch_filters_figure, position_similarity_figure

PATCH_SIZES = (1, 2, 4, 8)  # the sizes that divide an 8 x 8 image
ROLLOUT_CAVEAT = (
    "Rollout (Abnar & Zuidema, 2020) is a heuristic: the ½·I for the residual path is an assumption, "
    "and the values, W^O, the feed-forward networks and LayerNorm are ignored."
)


def plural(count: int) -> str:
    """The plural ending for ``count`` things: "" for one, "s" otherwise."""
    return "" if count == 1 else "s"


def article(number: int) -> str:
    """The indefinite article before ``number`` read aloud: "an" before eight, eleven, eighteen, the eighties and
    the like (any number written with a leading 8), else "a"."""
    return "an" if str(number).startswith("8") or number in (11, 18) else "a"


def draw_section(loaded: LoadedModel, image: ChosenImage) -> None:
    """The 8 x 8 image the model reads and its 10 class probabilities."""
    reading = vision_numbers.reading(loaded.spec, image.pixels)
    best = int(np.argmax(reading.probabilities))
    left, right = st.columns([2, 3])
    chart(
        cached_figure(patch_grid_figure, image.square, loaded.config.patch_size, "What the model reads: 8 × 8"),
        container=left,
        key="seen",
    )
    chart(
        cached_figure(
            class_probabilities_figure,
            reading.probabilities,
            f"Prediction for {image.name}: {best} ({reading.probabilities[best]:.0%})",
            image.truth,
        ),
        container=right,
        key="probabilities",
    )
    verdict = (
        ""
        if image.truth is None
        else (" It is right." if best == image.truth else f" It is wrong: this is a {image.truth}.")
    )
    st.caption(
        f"The model gives {best} a probability of {reading.probabilities[best]:.2f}.{verdict} Its held-out "
        f"accuracy is {vision_numbers.heldout_accuracy(loaded.spec):.1%} over "
        f"{len(vision_numbers.digits().heldout_labels)} digits it never saw in training."
    )


def patches_section(loaded: LoadedModel, image: ChosenImage) -> None:
    """The image cut into patches of a chosen size, and the sequence of tokens the encoder reads."""
    model_patch = loaded.config.patch_size
    size = stops_slider(
        "patch size p (pixels)",
        PATCH_SIZES,
        "patch",
        model_patch,
        help=f"Any size that divides 8. This model was trained on patches of {model_patch}.",
    )
    side = 8 // size
    count = side * side
    left, _ = st.columns([2, 3])
    chart(
        cached_figure(
            patch_grid_figure,
            image.square,
            size,
            (f"{side} × {side} patches of {size} × {size}" if count > 1 else f"One patch of {size} × {size}")
            + f": {int(vision.inked_patches(np.asarray(image.square), size).sum())} of {count} hold ink",
        ),
        container=left,
        key="grid",
    )
    chart(
        cached_figure(
            patch_sequence_figure,
            image.square,
            size,
            "The sequence the encoder reads: [CLS], then "
            + (f"patches 1 to {count}" if count > 1 else "the one patch"),
        ),
        key="sequence",
    )
    pixels = size * size
    st.markdown(
        (
            f"Patches of {size} × {size} pixel{plural(size)}: {article(side)} {side} × {side} grid, "
            f"**N = {count} patches**, each flattened to a vector of {pixels} number{plural(pixels)}"
            if count > 1
            else f"A patch of {size} × {size} pixels is the whole image: **N = 1 patch**, flattened to a "
            f"vector of {pixels} numbers"
        )
        + f" and projected to d_model = {loaded.config.d_model}. With [CLS] in front the encoder reads "
        f"**{count + 1} tokens**: "
        + (
            "[CLS], then patch 1, 2, … in row-major order (along the first row, then the next)."
            if count > 1
            else "[CLS], then that patch."
        )
    )
    formula(
        r"N = \left(\frac{H}{p}\right)^2 = \left(\frac{8}{%d}\right)^2 = %d,\qquad x_i \in "
        r"\mathbb{R}^{p^2} = \mathbb{R}^{%d}" % (size, side * side, size * size)
    )
    st.caption(
        "[CLS] is not a patch: it is a learned vector, the same for every image, whose final state the "
        "classifier reads."
        + ("" if size == model_patch else f" This model reads patches of {model_patch}: the other sizes show the cut.")
    )


def attention_section(loaded: LoadedModel, image: ChosenImage) -> None:
    """One token's attention over the patches in every layer and head, drawn over the image; and rollout."""
    config = loaded.config
    weights = vision_numbers.reading(loaded.spec, image.pixels).weights  # [L, H, 1+N, 1+N]
    count = weights.shape[-1] - 1
    tokens = ["[CLS]", *[f"patch {i + 1}" for i in range(count)]]
    with settings("The query and rollout"):  # folded on a phone: the maps come first
        left, right = st.columns([2, 1], vertical_alignment="bottom")
    token = tokens.index(left.selectbox("the query: whose attention", tokens, key="query", bind="query-params"))
    rollout = right.toggle(
        "attention rollout",
        value=False,
        key="rollout",
        bind="query-params",
        help="All layers at once, by Abnar & Zuidema's heuristic.",
    )
    inked = vision.inked_patches(image.square, config.patch_size)  # [g, g]
    if rollout:
        rolled = attention_rollout(weights)  # [1+N, 1+N]
        maps = vision.row_over_patches(rolled, token)[None, None]
        chart(
            cached_figure(
                attention_over_image_figure,
                image.square,
                maps.reshape(1, *maps.shape[-2:]),
                config.patch_size,
                f"Rollout: where {tokens[token]} reads from" + ink_finding(vision.ink_share(maps, inked), inked),
                ["all layers"],
                1,
            ),
            key="attention",
        )
        st.caption(ROLLOUT_CAVEAT)
        return
    maps = vision.row_over_patches(weights, token)  # [L, H, g, g]
    names = [
        f"layer {layer + 1} · head {head + 1}"
        for layer in range(config.num_encoder_layers)
        for head in range(config.num_heads)
    ]
    chart(
        cached_figure(
            attention_over_image_figure,
            image.square,
            maps.reshape(-1, *maps.shape[-2:]),
            config.patch_size,
            f"{tokens[token]}'s attention over the patches" + ink_finding(vision.ink_share(maps, inked), inked, names),
            names,
            2 if compact() else config.num_heads,
        ),
        key="attention",
    )
    on_cls = weights[:, :, token, 0]
    st.caption(
        f"Each patch's {config.patch_size} × {config.patch_size} pixels take the colour of the weight {tokens[token]} "
        "gives it, on one scale shared by all maps; the white line is the digit's outline, where its ink crosses "
        "half. Its weight on [CLS] itself is not drawn: "
        f"from {on_cls.min():.2f} to {on_cls.max():.2f} across these heads."
    )


def positions_section(loaded: LoadedModel, image: ChosenImage) -> None:
    """The learned position embeddings' cosine similarity, patch by patch, and the model trained without them."""
    config = loaded.config
    if config.positional != "learned":
        st.info(f"This model's positions are {config.positional}, not learned: pick the shipped digits model.")
        return
    table = loaded.module.embed.position.table.weight.detach().numpy()
    side = config.image_size // config.patch_size
    if side < 2:
        st.info("This model reads the whole image as one patch: there is no layout of patches to learn.")
        return
    similarity = vision.position_similarity(table)
    rows, columns = np.divmod(np.arange(side * side), side)
    steps = np.abs(rows[:, None] - rows[None, :]) + np.abs(columns[:, None] - columns[None, :])  # grid distance
    near, far = similarity[steps == 1].mean(), similarity[steps >= side].mean()
    chart(
        cached_figure(
            position_similarity_figure,
            similarity,
            side,
            "Cosine similarity of each patch's position embedding with every other: neighbours "
            f"{near:.2f} on average, {side} or more steps apart {far:.2f}",
        ),
        key="positions",
    )
    same_row = similarity[(rows[:, None] == rows[None, :]) & (steps > 0)].mean()
    same_column = similarity[(columns[:, None] == columns[None, :]) & (steps > 0)].mean()
    learned = "more" if near > far else "no more"
    st.markdown(
        "The model was given positions 1 to N in a line, never the grid. Each small map sits at its patch's "
        "place and shows how alike that patch's position vector is to every other's (its own cell is 1). "
        f"If training taught it the 2-D layout, neighbouring patches should be the most alike. Measured "
        f"here: neighbours {near:.2f} on average, patches {side} or more steps apart {far:.2f}, the same row "
        f"{same_row:.2f}, the same column {same_column:.2f}: neighbours are {learned} alike than distant "
        f"patches. (The ViT paper's models, trained on millions of images, show the grid clearly; the digits "
        f"model here saw {len(vision_numbers.digits().train_labels):,} small digits.)"
    )
    none_spec = vision_numbers.no_position_model()
    if none_spec is not None and vision_numbers.is_shipped_digits_model(
        loaded.spec
    ):  # its twin: the same but positions
        with_positions, without = (
            vision_numbers.heldout_accuracy(loaded.spec),
            vision_numbers.heldout_accuracy(none_spec),
        )
        st.caption(
            f"The same model trained without position embeddings (the shipped digits_vit_nopos): held-out "
            f"accuracy {without:.1%}, against {with_positions:.1%} with them."
        )


def distance_section(loaded: LoadedModel, image: ChosenImage) -> None:
    """The mean distance over which each head attends, per layer, over the held-out digits."""
    config = loaded.config
    distance = vision_numbers.attention_distance(loaded.spec)
    side = config.image_size // config.patch_size
    centres = vision.patch_centres(side, config.patch_size)
    uniform = float(np.linalg.norm(centres[:, None] - centres[None], axis=-1).mean())
    short, long_ = (
        np.unravel_index(np.argmin(distance), distance.shape),
        np.unravel_index(np.argmax(distance), distance.shape),
    )
    chart(
        cached_figure(
            attention_distance_figure,
            distance,
            f"On the held-out digits, layer {short[0] + 1} · head {short[1] + 1} looks the most locally "
            f"({distance[short]:.2f} pixels on average), layer {long_[0] + 1} · head {long_[1] + 1} the widest "
            f"({distance[long_]:.2f})",
            uniform,
        ),
        key="distance",
    )
    formula(
        r"d = \frac{1}{N}\sum_i \sum_{j \ne \text{CLS}} \hat a_{ij}\,\lVert c_i - c_j\rVert,\quad "
        r"\hat a_{ij} = \frac{a_{ij}}{\sum_{k \ne \text{CLS}} a_{ik}}"
    )
    st.caption(
        f"c_i is patch i's centre in pixels. The most local head is layer {short[0] + 1} · head "
        f"{short[1] + 1} ({distance[short]:.2f} pixels), the widest layer {long_[0] + 1} · head "
        f"{long_[1] + 1} ({distance[long_]:.2f}); a head that spread its weight evenly would reach "
        f"{uniform:.2f}."
    )


def filters_section(loaded: LoadedModel, image: ChosenImage) -> None:
    """The leading principal components of the patch embedding's filters."""
    config = loaded.config
    projection = loaded.module.embed.projection.weight.detach().numpy()  # [d_model, C p p]
    found = vision.patch_filters(projection, config.channels, config.patch_size, 8)
    pixels = config.channels * config.patch_size * config.patch_size
    directions = min(pixels, config.d_model - 1)  # the centred rows' rank: no more than either
    first = min(2, len(found.explained))
    chart(
        cached_figure(
            patch_filters_figure,
            found.components,
            found.explained,
            f"PC 1–{first} of {directions}: {found.explained[:first].sum():.0%} of the patch filters' variance",
            2 if compact() else 4,
        ),
        key="filters",
    )
    st.caption(
        f"Each of the {config.d_model} rows of E is a filter over one patch's {pixels} pixel values; "
        f"less their mean, the filters span at most {directions} directions (no more than the pixel values, "
        f"nor than the filters less one), the principal components. The first {len(found.explained)} are "
        f"drawn, and the first {first} explain {found.explained[:first].sum():.0%} of the filters' variance."
    )


def knockout_section(loaded: LoadedModel, image: ChosenImage) -> None:
    """Held-out accuracy with each head knocked out; one image's heads patched into another's."""
    knock_out_sweep(loaded)
    st.markdown(
        "**Patch one image into another.** The heads chosen below take their output from a held-out "
        "digit instead of this image; the rest of the model reads this image."
    )
    patch_images(loaded, image.pixels, image.name, image.truth)


RENDER = {
    "Draw a digit": draw_section,
    "Patches": patches_section,
    "Attention on the image": attention_section,
    "Position embeddings": positions_section,
    "Attention distance": distance_section,
    "Patch filters": filters_section,
    "Knock out": knockout_section,
}
