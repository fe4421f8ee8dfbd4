"""Experiments on a Vision Transformer: its sections are Knock out (each head in turn, held-out accuracy) and
Patching (a held-out digit's heads into another digit); the token sections say what they read instead."""

from __future__ import annotations

import streamlit as st

from ui import vision_numbers
from ui.controls import section_picker
from ui.models import LoadedModel
from ui.vision_experiments import knock_out_sweep, patch_images


@st.fragment
def vision_experiment(loaded: LoadedModel, sections: tuple[str, ...]) -> None:
    """The page's row of sections, for a ViT: a change inside reruns this part only."""
    section = section_picker(sections)
    problem = vision_numbers.digits_problem(loaded.config)
    if problem:
        st.error(problem)
    elif section == "Knock out":
        st.markdown(
            "Each head of the model is knocked out alone, and the model reads all "
            f"{len(vision_numbers.digits().heldout_labels)} held-out digits: a head whose loss costs "
            "accuracy carries something the prediction needs."
        )
        knock_out_sweep(loaded)
    elif section == "Patching":
        data = vision_numbers.digits()
        count = len(data.heldout_labels)
        index = (
            st.number_input(
                f"the image read: held-out digit (1 to {count})",
                1,
                count,
                vision_numbers.SHOWN_DIGIT,
                key="target_digit",
                bind="query-params",
            )
            - 1
        )
        truth = int(data.heldout_labels[index])
        pixels = tuple(float(v) for v in data.heldout_images[index, 0].numpy().ravel())
        patch_images(loaded, pixels, f"held-out digit {index + 1} (a {truth})", truth)
    else:
        reads = (
            "builds a head over the induction task's letters"
            if section == "Build a head"
            else "reads a token model's next-token prediction or its text"
        )
        st.info(
            f"{section} {reads}; {loaded.label} is a Vision Transformer, which names an image. For it this page "
            "has **Knock out** and **Patching**, and the Vision Transformer page draws its attention over the "
            "image."
        )
