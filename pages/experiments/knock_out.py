"""Knock out: remove the heads picked and measure what the model can still do. Also what the other sections
share: the inputs, a head's label, the kind of knock-out and its seed."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from analysis.knockout import sublayer_names, token_change
from pages.experiments.subject import KNOCKED, Subject, evaluation_batch, predictions, scored, similarity
from transformer import AttentionName
from ui.cache import cached_figure
from ui.charts import chart
from ui.screen import settings_row
from viz.experiments import before_after, position_bars

HOWS = ("zero", "mean", "resample")
# What a knock-out of each kind can and cannot show, said under its results ({seed}: the resample seed).
ABLATION_CAVEAT = {
    "zero": "Zero ablation takes the model off the inputs it was trained on: no head's output is ever all zeros in "
    'training, so part of a drop may come from that alone. Mean ablation ("knock out by": mean) keeps '
    "the head's average output and removes only what depends on the input; resample ablation (offered for a "
    "model trained on a task) gives it an output it really gives, on another input.",
    "mean": "Mean ablation keeps the head's average output over this input and removes what depends on the input; "
    "it still mixes every path through the head. To see which path carries an effect, patch a clean run's "
    "head into a corrupted one (the Patching section): path patching restricts that to one path.",
    "resample": "Resample ablation gives the head its output on other examples of the task (drawn with resample seed "
    "{seed}): an output it really gives, so the model stays on its inputs, but one that carries the other "
    "examples' information, which can mislead later layers more than a missing output would; it cannot say "
    "which path through the head mattered, and it varies with the examples drawn (try another seed).",
}
# What reaches the output once every head is knocked out, by kind of knock-out.
EVERY_HEAD = {
    "zero": "no attention sublayer passes anything on, so the only route from the tokens to the output is the "
    "residual stream (embeddings and feed-forward layers): each position's output depends on its own token "
    "and position alone.",
    "mean": "each head passes on only its average output, one vector for every position (and example) measured, so "
    "no position reads another in particular: each position's output depends on its own token and position, "
    "through the residual stream (embeddings and feed-forward layers), and on that one average.",
    "resample": "each head passes on its output on other examples of the task, nothing computed from these inputs: "
    "each position's output depends on its own token and position, through the residual stream "
    "(embeddings and feed-forward layers), and on what the heads wrote there on the other examples.",
}
HOW_HELP = (
    "Zero: the head's output A·V is replaced by zeros. Mean: by its mean over every position (and example) "
    "of the same input, which keeps the average signal and removes what depends on the input. Resample: by "
    "its output on other examples of the task (same length, drawn with the resample seed), an output the "
    "head really gives."
)


@dataclass(frozen=True)
class Inputs:
    """The page's inputs as token ids and shown tokens: one sequence for a task model (``text`` as typed),
    two sentences for the sentence-similarity model (``second`` empty otherwise)."""

    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    second_ids: tuple[int, ...] = ()
    second_tokens: tuple[str, ...] = ()
    text: str = ""


def knock_out_finding(measure: str, before: float, after: float, count: int, value_format: str = ".3f") -> str:
    """What a before-and-after chart shows, written as its bars print their values: ``measure`` with every head
    (``before``) and with ``count`` heads knocked out (``after``), rising, falling or unchanged as printed."""
    if count == 0:
        return f"{measure}: {before:{value_format}} with every head; pick heads to knock out"
    heads = f"{count} head" + ("s" if count > 1 else "")
    was, now = f"{before:{value_format}}", f"{after:{value_format}}"
    if was == now:
        return f"{measure} stays {was} with {heads} knocked out"
    return f"{measure} {'rises' if after > before else 'falls'} from {was} to {now} with {heads} knocked out"


def head_label(layer: int, head: int) -> str:
    return f"layer {layer + 1} · head {head + 1}"


def how_control(subject: Subject, place=st) -> tuple[str, int]:
    """The kind of knock-out and the resample seed (shown for resample only). Resample is offered for a model
    with a task, whose other examples it draws."""
    kinds = HOWS if subject.task is not None else HOWS[:2]
    how = (
        place.segmented_control(
            "knock out by", kinds, default="zero", required=True, key="how", bind="query-params", help=HOW_HELP
        )
        or "zero"
    )
    if how != "resample":
        return how, 1
    seed = place.number_input(
        "resample seed",
        0,
        9999,
        1,
        key="resample_seed",
        bind="query-params",
        width=160,
        help="Which other examples of the task the knocked-out heads' outputs come from: the "
        "same seed draws the same examples in every session.",
    )
    return how, int(seed)


def same_examples(how: str, resample_seed: int, seed: int) -> None:
    """A warning when resample ablation would draw the very examples measured (and so change nothing)."""
    if how == "resample" and resample_seed == seed:
        st.warning(
            f"The resample seed equals the batch seed ({seed}): for the batch measured, the other examples are "
            "these very examples, so resampling changes nothing there (your own input, below, still takes the "
            "heads' outputs from another example). Pick another resample seed."
        )


def knocked_heads(subject: Subject, place=st) -> KNOCKED:
    """A row of head toggles per attention sublayer in ``place`` (bound to the URL); the heads switched on are
    knocked out."""
    module = subject.module
    chosen = []
    heads = [f"head {h + 1}" for h in range(module.config.num_heads)]
    for kind in ("self_attn", "cross_attn"):
        for name in sublayer_names(module, kind):
            parsed = AttentionName.parse(name)
            stack = "" if module.kind != "encoder-decoder" else f"{parsed.stack} "
            label = f"{stack}layer {parsed.layer + 1}" + (" cross-attention" if kind == "cross_attn" else "")
            key = "ko_" + name.replace(".layers.", "").replace(".", "_")
            picked = place.pills(label, heads, selection_mode="multi", key=key, bind="query-params") or []
            chosen.append((name, tuple(sorted(heads.index(h) for h in picked if h in heads))))
    return tuple((name, hs) for name, hs in chosen if hs)


def render_knock_out(subject: Subject, inputs: Inputs, seed: int) -> None:
    row = settings_row()  # how, and each layer's heads: one row that wraps, so the figures come up the screen
    how, resample_seed = how_control(subject, row)
    knocked = knocked_heads(subject, row)
    total = subject.module.config.num_heads * len(
        sublayer_names(subject.module, "self_attn") + sublayer_names(subject.module, "cross_attn")
    )
    count = sum(len(h) for _, h in knocked)
    note = st.empty()  # one place, filled or not: the figures below keep theirs, and are redrawn in place
    if count == total:
        note.warning(f"Every head ({total}) is knocked out: {EVERY_HEAD[how]}")
    elif not count:
        note.info("Pick heads above to knock them out; the figures compare the model with and without them.")
    if subject.sentences:
        before = similarity(subject.spec, inputs.ids, inputs.second_ids, (), how)
        after = similarity(subject.spec, inputs.ids, inputs.second_ids, knocked, how)
        chart(
            before_after(
                ["cosine similarity"],
                [before.cosine],
                [after.cosine],
                knock_out_finding("The two sentences' cosine similarity", before.cosine, after.cosine, count),
            )
        )
        change = token_change(before.hidden[0], after.hidden[0])
        chart(
            position_bars(
                change, inputs.tokens, "How much each token of sentence A changed (1 − cos)", "1 − cos(before, after)"
            )
        )
        return
    ids = inputs.ids if subject.text_model else ()
    same_examples(how, resample_seed, seed)
    try:
        before = scored(subject.spec, seed, (), "zero", ids)
        after = scored(subject.spec, seed, knocked, how, ids, resample_seed)
    except ValueError as error:  # no other examples of this input's length
        st.error(str(error))
        return
    where = "your text" if subject.text_model else f"{len(evaluation_batch(subject.spec, seed).inputs)} fresh examples"
    left, right = st.columns(2)
    with left:
        chart(
            cached_figure(
                before_after,
                ("accuracy",),
                (before.accuracy,),
                (after.accuracy,),
                knock_out_finding(f"Accuracy on {where}", before.accuracy, after.accuracy, count),
                fixed_top=1.0,
            )
        )
    with right:
        chart(
            cached_figure(
                before_after,
                ("loss",),
                (before.loss,),
                (after.loss,),
                knock_out_finding("Loss (cross-entropy)", before.loss, after.loss, count),
            )
        )
    if subject.text_model:
        st.caption(
            "Measured on your text: each position predicts the next token (accuracy: how often its most "
            "probable token is the one that follows)."
        )
    else:
        batch = evaluation_batch(subject.spec, seed)
        asked = len(batch.targets[batch.loss_mask].unique())  # the symbols those positions ask for, end token too
        st.caption(
            f"Measured on the positions the {subject.task.name} task can predict; guessing evenly among the "
            f"{asked} symbols they ask for would score 1/{asked} = {1 / asked:.3f}."
        )
    st.caption(ABLATION_CAVEAT[how].format(seed=resample_seed))
    if subject.module.kind == "decoder-only":
        _your_input(subject, inputs, knocked, how, resample_seed)


def _your_input(subject: Subject, inputs: Inputs, knocked: KNOCKED, how: str, resample_seed: int) -> None:
    """Each position's next-token prediction on the input, with and without the knock-outs, one token per
    column."""
    symbols = subject.symbols
    try:
        plain, knocked_out = (
            symbols(predictions(subject.spec, inputs.ids, heads, how, resample_seed)) for heads in ((), knocked)
        )
    except ValueError as error:  # resample: the task makes no example laid out like this input
        st.info(f"On your input: {error}")
        return
    width = max(len(t) for t in (*inputs.tokens, *plain, *knocked_out))

    def row(tokens):
        return " ".join(t.ljust(width) for t in tokens)

    changed = ["^" if a != b else " " for a, b in zip(plain, knocked_out)]
    st.markdown("**On your input**: the token each position predicts next.")
    st.code(
        "\n".join(
            (
                f"input      {row(inputs.tokens)}",
                f"next       {row([*inputs.tokens[1:], ' '])}",
                f"predicted  {row(plain)}",
                f"knocked    {row(knocked_out)}",
                f"changed    {row(changed)}",
            )
        ),
        language=None,
    )
