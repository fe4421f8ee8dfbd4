"""Fill in the blank: BERT's objective beside GPT's, on the shipped character models of one corpus.

The shipped masked model (``checkpoints/text_mlm.safetensors``, encoder-only) and the shipped text model
(``checkpoints/text.safetensors``, decoder-only) have the same size and were trained on the same text: one hides
a token and reads both sides of it, the other reads only what comes before.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from analysis.blanks import Blanks, blank_distributions, blank_losses
from transformer import make_task
from transformer.masked_lm import MASK, MASK_RATE, RANDOM_SHARE, REPLACE_SHARE, mask_id
from transformer.spec import ModelSpec
from ui.cache import computation
from ui.charts import chart
from ui.model_picker import KIND_NAMES, shipped_entry
from ui.models import load_model
from ui.markdown_text import as_typed
from ui.formulas import formula
from viz.generation import blank_bars, blank_loss_bars
from viz.labels import escape

MASKED, NEXT = "text_mlm", "text"


def _models():
    """(masked, next-token) loaded models."""
    return load_model(shipped_entry(MASKED).spec), load_model(shipped_entry(NEXT).spec)


def _mask_id() -> int:
    """The id of [MASK] in the shipped masked model's vocabulary."""
    return mask_id(_models()[0].tokenizer)


@computation
def losses_of(ids: tuple[int, ...]) -> Blanks:
    """Every token hidden in turn, and every next token (shared between sessions)."""
    masked, following = _models()
    return blank_losses(masked.module, following.module, ids, _mask_id())


@computation
def guesses_of(ids: tuple[int, ...], position: int) -> tuple[np.ndarray, np.ndarray]:
    masked, following = _models()
    return blank_distributions(masked.module, following.module, ids, position, _mask_id())


def models_shown(masked, following, picked: ModelSpec) -> str:
    """Which two models the section draws (the shipped pair it loads, whatever the picker holds), and how the
    picked model stands to them."""
    shown = (
        f"This objective is shown on two shipped character models: the masked model “{as_typed(masked.label)}” "
        f"({KIND_NAMES[masked.kind]}) and the next-token model “{as_typed(following.label)}” "
        f"({KIND_NAMES[following.kind]})"
    )
    if picked == following.spec:
        return f"{shown}; the next-token model is the picked one."
    if picked == masked.spec:
        return f"{shown}; the masked model is the picked one."
    return f"{shown}, not the picked model (“{as_typed(picked.label)}”)."


def render_blanks(text: str, picked: ModelSpec) -> None:
    """The section's second objective: one hidden token's two guesses and every token's two losses, on the
    shipped masked and next-token models (``picked``, the picker's model, is named beside them)."""
    masked, following = _models()
    st.caption(models_shown(masked, following, picked))
    formula(
        r"\mathcal{L}_{\text{MLM}} = -\frac{1}{|M|}\sum_{i \in M} \log p_\theta(x_i \mid \tilde{x}),"
        r"\qquad \tilde{x} = x \text{ with the positions } M \text{ hidden}"
    )
    task = make_task("text")
    ids = task.encode_user_input(text)
    if ids is None or len(ids) < 2:
        st.info(
            f"The two character models read lower-case letters, spaces and ' , - . : ; only. Type a prompt of "
            f"2 to {task.context} such characters."
        )
        return
    ids = tuple(ids)
    names = task.symbols(ids)
    position = (
        st.slider(
            "hidden token (its position)",
            2,
            len(ids),
            min(len(ids), max(2, len(ids) // 2 + 1)),
            key="blank",
            bind="query-params",
            help="The masked model sees every other token; the next-token model sees the tokens "
            "before this one. The first token has nothing before it, so it starts at 2.",
        )
        - 1
    )
    both, left = guesses_of(ids, position)
    hidden = ids[position]
    shown = "".join(names[:position]).replace("▁", " ") + "_" + "".join(names[position + 1 :]).replace("▁", " ")
    vocabulary = task.symbols(range(len(left)))
    title = f"“{escape(shown)}”: which character is hidden?"  # the typed text, never Plotly's markup
    chart(blank_bars(vocabulary, both, left, hidden, title), key="blank_guess")
    st.caption(
        f"The hidden character is “{names[position]}”. Read from both sides, the masked model gives it "
        f"p = {both[hidden]:.3f} (its first guess “{vocabulary[int(both.argmax())]}”); read from the left only, "
        f"the next-token model gives it p = {left[hidden]:.3f} (first guess "
        f"“{vocabulary[int(left.argmax())]}”)."
    )
    blanks = losses_of(ids)
    mean_both, mean_left = float(blanks.both[1:].mean()), float(blanks.left.mean())
    chart(
        blank_loss_bars(
            blanks.both,
            blanks.left,
            names,
            f"Each token hidden in turn: mean −log p {mean_both:.2f} from both sides, {mean_left:.2f} from the left",
        ),
        key="blank_losses",
    )
    meta = masked.metadata["metrics"]
    ours, theirs = masked.config, following.config
    size = f"{ours.num_encoder_layers} layers, {ours.num_heads} heads, d_model {ours.d_model}"
    next_size = f"{theirs.num_decoder_layers} layers, {theirs.num_heads} heads, d_model {theirs.d_model}"
    sizes = (
        f"the next-token model's size ({size})" if size == next_size else f"{size} (the next-token model: {next_size})"
    )
    st.caption(
        f"Tokens 2 to {len(ids)}: {blanks.easier_from_both_sides()} of {len(ids) - 1} are more probable to the masked "
        f"model, which reads the right-hand side too. BERT is pre-trained this way: in each text about "
        f"{MASK_RATE:.0%} of the tokens are chosen; {REPLACE_SHARE:.0%} of those become {MASK}, {RANDOM_SHARE:.0%} "
        f"a random token and the rest stay, and the loss counts the chosen positions only. The masked model shown "
        f"here has {sizes} and was trained so on the same text "
        f"for {masked.metadata['steps']} steps; on held-out text it names "
        f"{meta['val_accuracy']:.0%} of the chosen characters. Asked to write, it could only put "
        f"{MASK} after the last token and guess it from the left, as the next-token model does; but with no causal "
        f"mask every earlier position also reads the new token, so each new token means reading the whole text again "
        f"(nothing can be cached)."
    )
