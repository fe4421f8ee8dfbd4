"""Generate: a decoder writes token by token; the distribution it draws from, strategies side by side, the new
token's attention, the KV cache and what efficient attention saves.

The model picker offers models that write (decoder-only and encoder-decoder, trained or brought); the prompt,
the budget, the seed and the sampling settings sit above the sections and are in the URL. The open section (the
URL's ``section``) is the only one built, inside a fragment.
"""

import streamlit as st

from pages.generate import bleu, compare, costs, objective, sections
from pages.generate.setup import Writer, prompt_ids, writer_of
from ui.presentation import explanation
from ui.screen import settings as screen_settings
from ui.controls import section_picker
from ui.model_picker import trained_model
from ui.routing import require_navigation
from ui.translation import is_translation
from ui.formulas import formula

require_navigation()

SECTIONS = ("Next token", "Compare", "Attention", "KV cache", "Cost", "Training loss")
TRANSLATION_SECTIONS = ("Next token", "Compare", "BLEU", "Attention", "KV cache", "Cost", "Training loss")
PROMPTS = {
    "text": "the attention ",
    "induction": "qphnxodajfbnxoda",
    "copy": "algorithm",
    "reverse": "algorithm",
    "sort": "algorithm",
}

st.title("Generate")
with explanation():
    st.markdown(
        "A decoder writes one token at a time. It reads everything written so far, turns the last position's "
        "logits $z$ into probabilities, picks a token, appends it and goes again, until it writes the end "
        "token or runs out of budget. **Temperature** $\\tau$ sharpens ($\\tau<1$) or flattens ($\\tau>1$) the "
        "distribution; **top-k** keeps the $k$ most probable tokens and **top-p** the fewest whose "
        "probabilities add up to at least $p$; what is kept is renormalised and sampled, with a seed, so the class sees "
        "the same draw."
    )
    formula(
        r"p_i = \frac{\exp(z_i / \tau)}{\sum_j \exp(z_j / \tau)},\qquad "
        r"\text{greedy: } \arg\max_i z_i,\qquad \text{sample: } i \sim p \text{ (cut to top-}k\text{, top-}p)"
    )


@st.fragment
def writing(writer: Writer, ids: tuple[int, ...] | None, budget: int, seed: int, text: str) -> None:
    """The sampling settings, the row of sections and the open one: a change here reruns this part only."""
    with screen_settings("Sampling: strategy, temperature, top-k and top-p"):
        settings = sections.sampling_settings()
    section = section_picker(TRANSLATION_SECTIONS if is_translation(writer.loaded) else SECTIONS)
    if ids is None:
        return
    if section == "BLEU":
        bleu.render_bleu(writer)
    elif section == "Next token":
        sections.render_next_token(writer, ids, budget, seed, settings)
    elif section == "Compare":
        compare.render_compare(writer, ids, budget, seed, settings)
    elif section == "Attention":
        sections.render_attention(writer, ids, budget, seed, settings)
    elif section == "KV cache":
        costs.render_kv_cache(writer, ids, budget)
    elif section == "Training loss":
        objective.render_objectives(writer, ids, text)
    else:
        costs.render_cost()


with screen_settings("Model, prompt and budget"):
    loaded = trained_model(
        ("decoder-only", "encoder-decoder"),
        "text",
        help="Models that write: decoder-only (GPT-style) and encoder-decoder ones, shipped, trained "
        "on the Train page, uploaded, or brought from a folder.",
    )
    spec = loaded.spec
    writer = writer_of(spec)
    row = st.columns([4, 2, 1])
    default_prompt = PROMPTS.get(writer.task.name, "") if writer.task is not None else "The"
    if is_translation(loaded):
        default_prompt = "My sister has a red car."
    label = "source (the encoder reads it)" if loaded.kind == "encoder-decoder" else "prompt"
    text = row[0].text_input(label, default_prompt, key="prompt", bind="query-params", max_chars=300)
    room = max(1, min(64, loaded.config.max_len))
    budget = row[1].slider("new tokens at most", 1, room, min(24, room), key="new", bind="query-params")
    seed = int(
        row[2].number_input(
            "seed",
            0,
            9999,
            0,
            key="seed",
            bind="query-params",
            help="The same seed draws the same tokens, in every session.",
        )
    )
writing(writer, prompt_ids(writer, text), budget, seed, text)
