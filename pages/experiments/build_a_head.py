"""Build a head: a one-head layer whose W_Q is set by hand from a recipe (same token, k back, first token,
sharpness), drawn beside the shipped induction model's previous-token head."""

from __future__ import annotations

import numpy as np
import streamlit as st

from analysis.handmade_head import HeadRecipe, agreement, handmade_pattern, query_matrix
from pages.experiments.knock_out import Inputs
from pages.experiments.subject import Subject, default_input
from transformer import make_task
from ui.charts import chart
from ui.formulas import formula
from viz.experiments import weight_matrix
from viz.heads import compare_figure
from viz.heatmap import matrix_heatmap


def _recipe() -> HeadRecipe:
    c = st.columns(5)
    same = c[0].slider("same token", -2.0, 2.0, 0.0, 0.5, key="w_same", bind="query-params")
    back = c[1].slider("k back", -2.0, 2.0, 1.0, 0.5, key="w_back", bind="query-params")
    offset = c[2].slider("k", 1, 4, 1, key="w_k", bind="query-params")  # the recipe's own key, as its weights
    first = c[3].slider("first token", -2.0, 2.0, 0.0, 0.5, key="w_first", bind="query-params")
    sharpness = c[4].slider("sharpness β", 0.0, 10.0, 5.0, 0.5, key="beta", bind="query-params")
    return HeadRecipe(same, back, offset, first, sharpness)


def render_build_a_head(subject: Subject, inputs: Inputs, reference) -> None:
    """A one-head layer whose W_Q is set from parts, beside the shipped induction model's previous-token head. The
    head you built is drawn above its recipe's sliders, so that moving one shows its effect."""
    top = st.container()  # the map, drawn once the sliders are read
    recipe = _recipe()
    task = subject.task if subject.task is not None and subject.task.name == "induction" else make_task("induction")
    ids = list(inputs.ids) if subject.task is task else task.encode_user_input(default_input(task))
    tokens = task.symbols(ids)
    vocab, positions = len(task.tokenizer.vocabulary) + 4, task.context
    pattern = handmade_pattern(recipe, ids, vocab, positions)
    formula(
        r"s_{ij} = \beta\,\big(w_{\text{same}}[t_i = t_j] + w_{\text{back}}[j = i - k] + "
        r"w_{\text{first}}[j = 1]\big),\quad A = \mathrm{softmax}_{j \le i}(s_{ij}),\quad i, j = 1, 2, \dots"
    )
    # the whole width for the map, whose 32 keys need it to be named one by one; W_Q under it
    with top:
        title = "The head you built" + (
            f": the previous token the most-read key in {previous_token_leads(pattern)} of {len(pattern) - 1} rows"
            if len(pattern) > 1
            else ""
        )
        chart(matrix_heatmap(pattern, tokens, tokens, title, mask=np.tril(np.ones_like(pattern) > 0)))
    with st.container():
        names = [f"token {s}" for s in task.symbols(range(vocab))] + [f"position {p}" for p in range(positions)]
        chart(weight_matrix(query_matrix(recipe, vocab, positions).numpy(), names, query_finding(recipe)))
    if reference is None:
        st.info("The shipped induction checkpoint is not on this server, so there is no trained head to compare.")
        return
    trained, label = reference(tuple(ids))
    chart(
        compare_figure(
            pattern,
            trained,
            tokens,
            tokens,
            "built by hand",
            label,
            "The head you built and the trained model's previous-token head: the most-read key the same in "
            f"{100 * agreement(pattern, trained):.0f} % of the rows",
            causal=True,
        )
    )
    st.caption(
        f"The most-attended key agrees on {100 * agreement(pattern, trained):.0f} % of the rows. "
        + previous_token_note(pattern)
    )


def query_finding(recipe: HeadRecipe) -> str:
    """W_Q's title: what a query looks for, as the matrix's entries hold it (β times each part's weight)."""
    beta = recipe.sharpness
    return (
        f"W_Q, the matrix you set: a query seeks its own token ×{beta * recipe.same_token:g}, the position "
        f"{recipe.offset} back ×{beta * recipe.back:g}, the first position ×{beta * recipe.first_token:g}"
    )


def previous_token_leads(pattern: np.ndarray) -> int:
    """In how many rows i >= 2 of a causal map ``[L, L]`` the previous token's weight a_{i,i-1} is larger than every
    other allowed key's (j <= i, j != i - 1): a tie is not a lead."""
    rows = np.arange(1, len(pattern))
    others = np.where(np.tril(np.ones_like(pattern, dtype=bool)), np.nan_to_num(pattern), -np.inf)
    others[rows, rows - 1] = -np.inf
    return int((pattern[rows, rows - 1] > others[rows].max(-1)).sum())


def previous_token_note(pattern: np.ndarray) -> str:
    """What the drawn map ``[L, L]`` gives the previous token, and when the recipe "k back" = 1 alone makes it each
    row's most-attended key (row i of i keys: e^β / (e^β + i − 1) on it, the rest 1 / (e^β + i − 1) each)."""
    length = len(pattern)
    if length < 2:
        return ""
    rows = np.arange(1, length)
    previous, leading = pattern[rows, rows - 1], previous_token_leads(pattern)
    return (
        f"In the head you built, the previous token is the most-attended key of {leading} of the {length - 1} "
        f"rows after the first, with {previous.min():.2f} to {previous.max():.2f} of their weight. With “k back” "
        "= 1, k = 1 and the other weights at 0, row i gives it e^β / (e^β + i − 1): the most of any key at every "
        f"β > 0, and at least half in every row of these {length} tokens once β ≥ ln {length - 1} ≈ "
        f"{np.log(length - 1):.1f}."
    )
