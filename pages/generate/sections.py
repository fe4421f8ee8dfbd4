"""Next token, Compare and Attention: what the model draws from at each step, three strategies side by side,
and where the new token looks."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from pages.generate.setup import STOPS, Vocabulary, Writer, generation
from ui.charts import chart
from ui.screen import button_row
from viz.generation import distribution_bars
from viz.heatmap import matrix_heatmap
from viz.labels import tick_label

STRATEGY_HELP = "Greedy takes the most probable token every time; sample draws from the cut distribution."


@dataclass(frozen=True)
class Sampling:
    """The strategy and its settings as the controls give them (top-k 0 and top-p 1 mean no cut)."""

    strategy: str
    temperature: float
    top_k: int
    top_p: float

    def arguments(self) -> dict:
        return dict(
            strategy=self.strategy,
            temperature=self.temperature,
            top_k=self.top_k or None,
            top_p=self.top_p if self.top_p < 1.0 else None,
        )


def sampling_settings() -> Sampling:
    c = st.columns([2, 3, 2, 3])
    strategy = (
        c[0].segmented_control(
            "strategy",
            ["greedy", "sample"],
            default="sample",
            required=True,
            key="strategy",
            bind="query-params",
            help=STRATEGY_HELP,
        )
        or "sample"
    )
    temperature = c[1].slider(
        "temperature τ",
        0.0,
        2.0,
        1.0,
        0.05,
        key="t",
        bind="query-params",
        help="Divides the logits before the softmax: below 1 sharper, above 1 flatter; 0 is greedy.",
    )
    top_k = int(c[2].number_input("top-k (0 = all)", 0, 500, 0, key="k", bind="query-params"))
    top_p = c[3].slider("top-p (1 = all)", 0.0, 1.0, 1.0, 0.05, key="p", bind="query-params")
    if strategy == "sample" and temperature == 0:
        st.caption("τ = 0 is greedy: the most probable token every time, whatever the seed.")
    return Sampling(strategy, temperature, top_k, top_p)


def run_strategy(
    writer: Writer,
    ids,
    budget: int,
    seed: int,
    settings: Sampling,
    beams: int = 1,
    length_penalty: float = 1.0,
    penalty: str = "power",
):
    return generation(
        writer.spec,
        ids,
        budget,
        **settings.arguments(),
        beams=beams,
        seed=seed,
        eos_id=writer.eos_id,
        length_penalty=length_penalty,
        penalty=penalty,
    )


def _advance(count: int, total: int) -> None:
    """Move the step slider (its URL value follows)."""
    st.session_state["token"] = max(1, min(total, count))


def render_next_token(writer: Writer, ids, budget: int, seed: int, settings: Sampling) -> None:
    out = run_strategy(writer, ids, budget, seed, settings)
    total = len(out.steps)
    if not total:
        st.info("The budget or the model's max_len leaves no room for a new token; shorten the prompt.")
        return
    current = int(st.session_state.get("token", 1)) if str(st.session_state.get("token", "")).isdigit() else 1
    buttons = button_row(3)
    buttons[0].button(
        "Step",
        icon=":material/skip_next:",
        key="step_next",
        on_click=_advance,
        args=(current + 1, total),
        disabled=current >= total,
        width="stretch",
    )
    buttons[1].button(
        "Generate all",
        icon=":material/fast_forward:",
        key="step_all",
        on_click=_advance,
        args=(total, total),
        disabled=current >= total,
        width="stretch",
    )
    buttons[2].button(
        "Start over",
        icon=":material/restart_alt:",
        key="step_first",
        on_click=_advance,
        args=(1, total),
        width="stretch",
    )
    if current > total:  # a shorter generation than the step a link or an earlier run asked for
        st.session_state["token"] = current = total
    step = st.slider("token being written", 1, max(total, 2), 1, key="token", bind="query-params", disabled=total == 1)
    step = min(step, total)
    shown = out.steps[step - 1]
    names = Vocabulary(writer, len(shown.distribution.logits))
    written = writer.names(list(out.prompt) + list(out.tokens[: step - 1]))
    dist = shown.distribution
    title, note = distribution_text(settings, step, names, shown.token, dist)
    chart(
        distribution_bars(
            names,
            dist.tempered.numpy(),
            dist.probabilities.numpy(),
            dist.kept.numpy(),
            shown.token,
            title,
            measure="probability (greedy)" if settings.strategy == "greedy" else "softmax(z / τ)",
        )
    )
    st.code(f"{joined(written)} ▸ {names[shown.token]}", language=None, wrap_lines=True)
    st.caption(note)
    top = np.argsort(-dist.tempered.numpy(), kind="stable")[:SHOWN_BARS]
    explain_space_mark([names[int(i)] for i in top] + [names[shown.token]])  # the bars' labels, the token drawn
    if step == total:
        st.success(f"Finished after {total} token(s): {STOPS[out.stopped]}.")


SHOWN_BARS = 20  # the distribution draws this many tokens by name (viz.generation.distribution_bars)


def distribution_text(settings: Sampling, step: int, names, token: int, dist) -> tuple[str, str]:
    """The next-token chart's title and caption for the strategy that drew ``dist`` (``token`` the one drawn).
    Greedy draws from a one-hot distribution on the most probable token (temperature, top-k and top-p are not
    applied); sampling draws from softmax(z / τ) cut to top-k and top-p and renormalised."""
    if settings.strategy == "greedy":
        title = f"Token {step}: greedy takes “{tick_label(names[token])}”, the most probable token, with probability 1"
        note = (
            f"Drawn: “{names[token]}”, the token with the largest logit: greedy gives it probability 1 and every "
            f"other token 0, so its orange bar and the black mark at its end are the only ones past 0. Temperature, "
            f"top-k and top-p apply to sampling only (pick sample to see softmax(z / τ) and what they keep)."
        )
        return title, note
    kept = int(dist.kept.sum())
    title = (
        f"Token {step}: softmax(z / τ) with τ = {settings.temperature:g}; {kept} of {len(names)} tokens kept, "
        f"“{tick_label(names[token])}” drawn ({float(dist.probabilities[token]):.2f})"
    )
    note = (
        f"Drawn: “{names[token]}”, with probability {float(dist.probabilities[token]):.3f} after "
        "the cut. Grey bars are kept, hatched light grey ones cut by top-k or top-p (and the bar of all the other "
        "tokens), the orange one is the token drawn; the black marks are the renormalised probabilities it was drawn "
        "with."
    )
    return title, note


def explain_space_mark(labels) -> None:
    """Where a drawn token carries "▁" (the text task's and SentencePiece's mark of a space), say what it means."""
    if any("▁" in str(label) for label in labels):
        st.caption(
            "“▁” stands for a space: on its own it is the space character, at the start of a longer token "
            "a space before the word."
        )


def joined(tokens: list[str]) -> str:
    """Tokens as text: characters joined (a word-piece model's pieces too), ▁ shown as a space."""
    return "".join(tokens).replace("▁", " ")


def render_attention(writer: Writer, ids, budget: int, seed: int, settings: Sampling) -> None:
    out = run_strategy(writer, ids, budget, seed, settings)
    if not out.steps:
        st.info("No token was generated; shorten the prompt or raise the budget.")
        return
    step = st.slider(
        "token",
        1,
        max(2, len(out.steps)),
        min(len(out.steps), 6),
        key="att_step",
        bind="query-params",
        disabled=len(out.steps) == 1,
    )
    step = min(step, len(out.steps))
    shown = out.steps[step - 1]
    kinds = ("self_attn", "cross_attn") if writer.loaded.kind == "encoder-decoder" else ("self_attn",)
    drawn_keys = []
    for kind in kinds:
        names = [name for name in shown.attention if name.endswith(kind)]
        rows = np.concatenate([shown.attention[name].numpy() for name in names])  # [layers x H, t]
        heads = shown.attention[names[0]].shape[0]
        labels = [f"layer {i // heads + 1} · head {i % heads + 1}" for i in range(len(rows))]
        if kind == "cross_attn":
            keys = writer.names(ids)
        else:
            keys = writer.names(list(out.prompt) + list(out.tokens[: step - 1]))
        drawn_keys += keys
        what = "its source (cross-attention)" if kind == "cross_attn" else "the text so far"
        top, key = np.unravel_index(np.nan_to_num(rows).argmax(), rows.shape)  # the strongest link drawn
        chart(
            matrix_heatmap(
                rows,
                labels,
                keys,
                f"Where the position that wrote “{tick_label(writer.names([shown.token])[0])}” (token {step}) looks "
                f"in {what}: {labels[top]} the most, on “{tick_label(keys[key])}” ({rows[top, key]:.2f})",
                row_name="",
                col_name="key",
            )
        )  # each row's label names its layer and head
    st.caption(
        "Each row is one head's attention from the last position, the one whose prediction became the new "
        "token; every row sums to 1."
    )
    explain_space_mark(drawn_keys + writer.names([shown.token]))
