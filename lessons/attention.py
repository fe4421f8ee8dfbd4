"""Lessons on attention itself: why attention, why the scores are scaled, one head or many."""

from __future__ import annotations

from .model_labels import ON_THE_RANDOM_MODEL
from .kinds import Choice, Lesson, Number, View

WHY_ATTENTION = Lesson(
    "why-attention",
    "Why attention",
    "One step between any two tokens, every position at once, and the price: n² scores, timed on this server.",
    (
        View(
            "self_attention",
            {"section": "Why attention"},
            "One step between any two tokens",
            "Left: to carry the first token's information to the n-th, a recurrent network needs n − 1 steps, one after "
            "another, since its state after token t is computed from its state after token t − 1. Self-attention needs "
            "one step at every length: each query reads every key directly, and all n positions are computed at once.",
            "How many steps one after another does a recurrent network need to carry token 1's information to token 100?",
            Number(99, unit="steps"),
            "99: the information passes through the state after every token in between, and no step can start before "
            "the one before it has finished. Attention connects the two in one step, and computes all positions in "
            "parallel, which is also why it trains fast on parallel hardware.",
        ),
        View(
            "self_attention",
            {"section": "Why attention"},
            "The price: n² scores",
            "Right: the measured CPU time of one layer on this server, on log-log axes, where a power law t ∝ n^p is a "
            "straight line of slope p; the table reads both slopes, and how far single rounds move them. On a quiet "
            "machine the recurrence's is near 1 and the attention layer's steeper, nearing 2 only as n grows: at "
            "d_model = 64 the projections' n · d² part still weighs at these lengths, and at short lengths attention "
            "can even be the faster of the two.",
            "Doubling the sequence length multiplies the number of scores a head computes by how much?",
            Number(4),
            "4: (2n)² = 4n², since each of the 2n queries scores each of the 2n keys. The measured time follows, not "
            "exactly (caches and other work on a shared machine bend the line), while the recurrence's time only "
            "doubles; but its steps must run one after another.",
        ),
    ),
)

SCALING = Lesson(
    "scaling",
    "Why divide by √d_k",
    "What the scaling in softmax(QKᵀ/√d_k) is for.",
    (
        View(
            "self_attention",
            {"section": "Why scale"},
            "Peakedness against d_k",
            "For random queries and keys the dot product q·k is a sum of d_k terms, so its spread grows like "
            "√d_k. Unscaled, the softmax gets more peaked as d_k grows; divided by √d_k it stays the same.",
            "Queries and keys have d_k = 64 independent entries of mean 0 and variance 1. What is the variance of q·k?",
            Number(64),
            "64: q·k is a sum of d_k products, each of variance 1, so its variance is d_k (its spread √64 = 8). Dividing "
            "by √d_k brings it back to 1. The view shows the effect on the softmax: unscaled, its entropy falls and "
            "its largest weight climbs towards 1 as d_k grows, while scaled both stay about level. A saturated softmax "
            "barely changes when its scores change: the caption under the chart measures its Jacobian, about 0.06 "
            "unscaled against 0.31 scaled at d_k = 512, so about a fifth of the gradient reaches the scores. The "
            "model still learns which keys to prefer, only from a weaker signal.",
        ),
        View(
            "self_attention",
            {"section": "Scores and softmax", "scale": "false", "d_model": "128", "heads": "2"},
            "A wide head without the scaling",
            "With d_model = 128 in 2 heads (d_k = 64) and the division switched off, most rows of the attention "
            "weights put more than 90 % of their weight on a single key.",
            "By what factor are these unscaled scores larger than the scaled ones?",
            Number(8),
            "√d_k = √64 = 8. Switch 'divide by √d_k' back on: the rows spread out again, and on this sentence no row "
            "keeps more than 90 % of its weight on one key.",
        ),
    ),
)

HEADS = Lesson(
    "heads",
    "One head or many heads",
    "Why the Transformer splits d_model into h heads.",
    (
        View(
            "multi_head",
            {**ON_THE_RANDOM_MODEL, "heads": "1"},
            "One head",
            "A single head sees all 64 dimensions and produces one map per layer: one way of relating the tokens.",
            "A token needs to look at its verb and at its article at the same time. Can one head's map do both?",
            Choice(
                (
                    "Yes: its row can give each of them a weight of 1",
                    "Only by splitting its weight between them",
                    "No: a row always points at a single key",
                ),
                1,
            ),
            "Only by splitting its weight between them: one softmax row has one total of 1 to share. Several heads "
            "can each look somewhere else.",
        ),
        View(
            "multi_head",
            {**ON_THE_RANDOM_MODEL, "heads": "8"},
            "Eight heads",
            "The same layer with 8 heads: 8 maps, each from its own W^Q and W^K on an 8-dimensional subspace. "
            "Each row of each map still sums to 1, and the maps differ.",
            "Going from 1 head to 8, the layer's parameter count does not change. Why not?",
            Choice(
                (
                    "Each head has its own W^Q, W^K, W^V of d_model × d_k, and h · d_k = d_model",
                    "The 8 heads share one set of weights",
                    "It does change: the layer has 8 times as many weights",
                ),
                0,
            ),
            "W^Q, W^K and W^V are still d_model × d_model in total: h heads of d_model × d_k each, with "
            "d_k = d_model / h. The heads share nothing, and together cost what one wide head costs.",
        ),
        View(
            "multi_head",
            {**ON_THE_RANDOM_MODEL, "heads": "4", "section": "Concat × W^O"},
            "Concatenate, then W^O",
            "Each head's output A_i V_i is T × d_k; side by side they make one T × d_model matrix, and W^O "
            "mixes the heads back into the model's d_model dimensions.",
            "Why is W^O needed: why not keep the heads' outputs side by side?",
            Choice(
                (
                    "It lets every output dimension combine what all the heads found",
                    "Without it the shapes would not match",
                    "It normalises each head's output",
                ),
                0,
            ),
            "Side by side, head i only ever writes to its own d_k columns; W^O lets every output dimension combine "
            "what all the heads found (Concat · W^O = Σ_i head_i · W^O_i). The shapes already match: the concatenation "
            "is T × d_model.",
        ),
    ),
)
