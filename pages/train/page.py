"""Train a tiny Transformer: live training on CPU, heads that form in seconds, a checkpoint for every page."""

import uuid

import streamlit as st

from pages.train import after, controls, live, recipes
from pages.train.translator import translator_section
from ui import runtime  # noqa: F401  (torch threads are set before any torch work)
from ui.presentation import explanation
from transformer import Trainer, TrainingSetup
from transformer.text_corpus import MAX_TEXT_CHARS
from ui.routing import require_navigation
from ui.formulas import formula

require_navigation()

st.title("Train a tiny Transformer")
with explanation():
    st.markdown(
        "The other pages start from random, untrained weights, which show the mechanics (their model picker "
        "also offers trained checkpoints). Here a small model learns a toy task in seconds on this server's "
        "CPU, and you watch its heads form: on **induction**, a "
        "previous-token head in layer 1 and, as the loss stops falling slowly and plunges (the *phase change*), an "
        "induction head in layer 2 that looks at the token after the last occurrence of the current one. "
        "On **digits** a Vision Transformer learns to name handwritten digits, and [CLS]'s attention moves from "
        "an even wash over the image to the strokes. Training minimises the cross-entropy of the next token on "
        "the positions that count (digits: of each image's digit); perplexity is its exponential."
    )
    formula(
        r"\mathcal{L} = -\frac{1}{|M|}\sum_{t \in M} \log p_\theta(y_t \mid x_{<t}),\qquad "
        r"\text{perplexity} = e^{\mathcal{L}},\qquad \theta \leftarrow \mathrm{AdamW}(\theta, \nabla_\theta \mathcal{L})"
    )


def settings_and_task(setup: TrainingSetup, trainer: Trainer | None) -> None:
    """The line that names the settings, the paper's schedule when its recipe is picked, and what the task is."""
    st.caption(
        controls.setup_summary(setup) + " A link restores these settings, not the weights: training again from the "
        "same seed gives the same run."
    )
    if setup.recipe == "paper":
        controls.paper_schedule(setup)
    if trainer is not None:
        st.info(trainer.task.description)


@st.fragment
def training_view() -> None:
    """The settings, the run and what comes after it. A setting, a button or the snapshot slider reruns
    this part only, not the page's title, explanation and navigation. The media buttons, Play and opening a
    checkpoint rerun the whole page (``live.whole_page``), and so does the end of a run."""
    state = st.session_state
    if state.pop(live.WHOLE_PAGE, False):
        st.rerun()
    setup = controls.setup_controls()
    if st.session_state.get("task") == "text":
        st.text_area(
            "training text (at least a few KB; empty = the built-in text about attention)",
            key="corpus",
            max_chars=MAX_TEXT_CHARS,
            height=100,
        )
    if setup is None:
        return
    about = st.container()  # the settings and the task, while there is no run yet
    state.setdefault("session_id", uuid.uuid4().hex)
    trainer = live.current_trainer(setup)
    if trainer is not None:
        live.media_buttons(trainer)
        live.live_view(trainer, state.get("running", False))
    below = st.container()  # the settings go below a trainer's live view, or in the page's place before it
    with below if trainer is not None else about:
        settings_and_task(setup, trainer)
    if trainer is None:
        return
    if not state.get("running", False):
        after.after_training(trainer)
        both = st.expander("Two recipes on this model: AdamW and the paper's", key="recipes", bind="query-params")
        if both.open:  # built only when opened (an open one is in the URL), so a setting does not resend it
            with both:
                recipes.recipes_side_by_side(setup)


training_view()
translator = st.expander(
    "A translator, trained live: English to French, beside the shipped one", key="translator", bind="query-params"
)
if translator.open:  # built only when opened (an open one is in the URL)
    with translator:
        translator_section()
