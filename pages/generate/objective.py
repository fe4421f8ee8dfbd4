"""Training loss: what a model was trained to do, read on the prompt. Next token (GPT): each next token's loss in
one pass. Fill in the blank (BERT): a hidden token guessed from both sides (``pages.generate.blanks``)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from analysis.next_token import mean_loss_by_place, next_token_losses
from pages.generate.blanks import render_blanks
from pages.generate.sections import explain_space_mark
from pages.generate.setup import Writer
from transformer.masked_lm import MASK_RATE, REPLACE_SHARE
from ui.cache import computation
from ui.charts import chart
from ui.models import load_model
from ui.formulas import formula
from viz.experiments import position_bars


@computation
def prompt_losses(spec, ids: tuple[int, ...]) -> np.ndarray:
    """The prompt's next-token losses on the picked model (shared between sessions)."""
    return next_token_losses(load_model(spec).module, ids)


OBJECTIVES = ("next token (GPT)", "fill in the blank (BERT)")


def render_objectives(writer: Writer, ids, text: str) -> None:
    """The section: the two training objectives, one at a time."""
    objective = st.segmented_control(
        "objective", OBJECTIVES, default=OBJECTIVES[0], required=True, key="objective", bind="query-params"
    )
    if objective == OBJECTIVES[1]:
        render_blanks(text, writer.spec)
    else:
        render_loss(writer, ids)


def render_loss(writer: Writer, ids) -> None:
    formula(
        r"\mathcal{L} = -\frac{1}{L-1}\sum_{t=1}^{L-1} \log p_\theta(x_{t+1} \mid x_1, \dots, x_t),"
        r"\qquad \text{perplexity} = e^{\mathcal{L}}"
    )
    if writer.loaded.kind != "decoder-only":
        st.info(
            "This section scores a decoder-only model's own text. An encoder-decoder is trained the same way on "
            "its target, given the source: see the Encoder-decoder page's teacher forcing. Pick a decoder-only "
            "model trained on every next token: the shipped text model, or a GPT-2 brought from a folder."
        )
        return
    if writer.task is not None and writer.task.name != "text":
        st.info(
            f"The {writer.task.name} model was trained only on the positions its task scores (the answer, not "
            f"the input), so its loss on every token of a prompt is not what it learned. Pick a model trained on "
            f"every next token: the shipped text model, or a GPT-2 brought from a folder."
        )
        return
    if len(ids) < 2:
        st.info("Type a prompt of at least two tokens: each token after the first is scored.")
        return
    losses = prompt_losses(writer.spec, tuple(ids))
    names = writer.names(ids)
    mean = float(losses.mean())
    chart(
        position_bars(
            losses,
            names[1:],
            f"−log p of each token given the ones before it: mean {mean:.2f}, perplexity {np.exp(mean):.1f}",
            "−log p",
            first=2,
        )
    )
    explain_space_mark(names[1:])
    hardest, easiest = int(losses.argmax()), int(losses.argmin())
    st.caption(
        f"Each bar is one token, scored before the model read it; the first token has none, since nothing comes "
        f"before it. The hardest token to predict is “{names[hardest + 1]}” "
        f"(position {hardest + 2}, p = {np.exp(-losses[hardest]):.3f}), the easiest “{names[easiest + 1]}” "
        f"(position {easiest + 2}, p = {np.exp(-losses[easiest]):.3f}).{by_place_sentence(names, losses)} "
        f"Training lowers the mean of these bars over "
        f"many texts. One pass scores every position at once, because the causal mask keeps each position from "
        f"reading the token it must predict. An encoder-only model (BERT, MiniLM) reads every token both ways, so "
        f"each position already sees its next token: it cannot be trained, or asked, to write this way. BERT is "
        f"pre-trained instead on hidden tokens, guessed from both sides: about {MASK_RATE:.0%} of the tokens are "
        f"chosen, and {REPLACE_SHARE:.0%} of those (about {MASK_RATE * REPLACE_SHARE:.0%} of all) are put behind "
        f"[MASK]."
    )


def by_place_sentence(names: list[str], losses: np.ndarray) -> str:
    """On a text of single characters, the mean bar at a word's first letter, inside words and at spaces."""
    if not all(len(name) == 1 for name in names):
        return ""
    means = mean_loss_by_place(names, losses)
    parts = [f"{mean:.2f} at {place}" for place, mean in means.items()]
    listed = " and ".join(parts) if len(parts) < 3 else f"{parts[0]}, {parts[1]} and {parts[2]}"
    return f" On average a bar is {listed}."
