"""The Generate page's "Compare" section: greedy, sampling and beam search side by side, the beam's tree, and
the length penalty (|Y|^α or GNMT's, the paper's) it ranks finished texts by."""

from __future__ import annotations

import streamlit as st
import torch

from pages.generate.sections import Sampling, explain_space_mark, joined, run_strategy
from pages.generate.setup import STOPS, Writer
from ui.charts import chart
from ui.screen import FigureAboveControls
from viz.generation import beam_tree


def _log_probability(out) -> float:
    return float(sum(torch.log_softmax(step.distribution.logits, -1)[step.token] for step in out.steps))


PAPER_BEAMS, PAPER_ALPHA = 4, 0.6  # Vaswani et al. (2017), section 6.1: beam size 4, length penalty α = 0.6


PENALTY_LABELS = {"power": "length^α", "gnmt": "((5 + length) / 6)^α (GNMT, the paper's)"}


def _papers_beam_settings() -> None:
    st.session_state["beams"], st.session_state["lp"], st.session_state["lp_form"] = PAPER_BEAMS, PAPER_ALPHA, "gnmt"


def render_compare(writer: Writer, ids, budget: int, seed: int, settings: Sampling) -> None:
    tree_place = FigureAboveControls()  # a phone or a projector: the beam's tree first, its controls under it
    row = st.columns([3, 3, 3, 2], vertical_alignment="bottom")
    beams = row[0].slider(
        "beams",
        1,
        6,
        3,
        key="beams",
        bind="query-params",
        help="Beam search keeps this many partial texts, extends each by every token, keeps the "
        "best by the sum of log-probabilities, and ranks finished ones by it divided by "
        "their length to the power α.",
    )
    alpha = row[1].slider(
        "length penalty α",
        0.0,
        2.0,
        1.0,
        0.1,
        key="lp",
        bind="query-params",
        help="A finished text's score is its sum of log-probabilities divided by the length penalty: "
        "α = 0 favours short texts, larger values longer ones.",
    )
    form = row[2].selectbox(
        "length penalty",
        list(PENALTY_LABELS),
        format_func=PENALTY_LABELS.get,
        key="lp_form",
        bind="query-params",
        help="length^α divides by the length itself; GNMT's ((5 + length) / 6)^α (Wu et al. 2016), the paper's, "
        "grows more slowly, so length matters less.",
    )
    row[3].button(
        f"The paper's: {PAPER_BEAMS} beams, α = {PAPER_ALPHA}",
        key="paper_beam",
        on_click=_papers_beam_settings,
        width="stretch",
    )
    greedy = run_strategy(writer, ids, budget, seed, Sampling("greedy", 1.0, 0, 1.0))
    sampled = run_strategy(
        writer, ids, budget, seed, Sampling("sample", settings.temperature, settings.top_k, settings.top_p)
    )
    beam = run_strategy(writer, ids, budget, seed, Sampling("beam", 1.0, 0, 1.0), beams, float(alpha), form)
    columns = st.columns(3)
    for column, title, out, score in (
        (columns[0], "greedy", greedy, _log_probability(greedy)),
        (columns[1], f"sampled (τ = {settings.temperature:g}, seed {seed})", sampled, _log_probability(sampled)),
        (columns[2], f"beam search, {beams} beam(s)", beam, beam.beams[beam.chosen].score if beam.beams else 0.0),
    ):
        column.markdown(f"**{title}**")
        column.code(joined(writer.names(out.tokens)) or " ", language=None, wrap_lines=True)
        column.caption(f"sum of log p = {score:.2f} over {len(out.tokens)} token(s); {STOPS[out.stopped]}.")
    if beam.beams:
        chosen, node = set(), beam.chosen
        while node >= 0:
            chosen.add(node)
            node = beam.beams[node].parent
        nodes = beam.beams
        with tree_place.place():
            chart(
                beam_tree(
                    [n.step for n in nodes],
                    [n.parent for n in nodes],
                    writer.names([n.token for n in nodes]),
                    [n.score for n in nodes],
                    chosen,
                    f"The beam search's tree: {beams} beam(s), the chosen text orange",
                )
            )
        explain_space_mark(writer.names([n.token for n in nodes]))
        st.caption(length_penalty_note(nodes, float(alpha), form, beams))


def length_penalty_note(nodes, alpha: float, form: str = "power", beams: int = 0) -> str:
    """What α did in the drawn search: it ranks only texts that ended (the end token) against others, so it
    changes nothing where none ended; and whether the penalty is the paper's (Wu et al. 2016's)."""
    ended = sum(node.finished for node in nodes)
    where = (
        f"{ended} of the texts in the tree ended with the end token, so α = {alpha:g} decides how they rank "
        f"against longer ones"
        if ended
        else f"no text in the tree ended with the end token, so α = {alpha:g} changes nothing here: every text "
        f"kept has the same length"
    )
    papers = form == "gnmt" and alpha == PAPER_ALPHA and beams == PAPER_BEAMS
    rule = "(sum of log p) / ((5 + length) / 6)^α" if form == "gnmt" else "(sum of log p) / length^α"
    paper = (
        f"This is the paper's search: {PAPER_BEAMS} beams, α = {PAPER_ALPHA} and GNMT's penalty."
        if papers
        else f"The paper decoded with {PAPER_BEAMS} beams, α = {PAPER_ALPHA} and GNMT's ((5 + length) / 6)^α "
        "(Wu et al. 2016)."
    )
    return f"Finished texts compete by {rule}: {where}. {paper}"
