"""Lessons on order and masks: word order and the positional encoding, the relative offset, the causal mask,
padding and the fully masked row."""

from __future__ import annotations

from .kinds import Choice, Lesson, Number, View

WORD_ORDER = Lesson(
    "word-order",
    "Word order and positional encoding",
    "Without positions or a causal mask, attention cannot tell 'dog bites man' from 'man bites dog'.",
    (
        View(
            "positional_encoding",
            {"section": "Word order"},
            "Two sentences, same words",
            "Without positional encoding, a word attends to the other words with the same weights in both "
            "sentences; with the sinusoidal encoding the weights differ.",
            "Without positions, why does reordering the words give the same weights?",
            Choice(
                (
                    "Each score q_i·k_j comes from the two tokens' vectors alone, so reordering only permutes the rows "
                    "and columns",
                    "The softmax sorts the scores",
                    "The model is untrained",
                ),
                0,
            ),
            "Each score is q_i·k_j, computed from the token vectors alone; reordering the tokens only reorders the "
            "rows and columns of the same numbers (attention is permutation-equivariant). A trained model would be "
            "just as blind to order, as long as nothing else tells positions apart: a causal mask does (next step).",
        ),
        View(
            "positional_encoding",
            {"section": "Word order", "wo_causal": "true"},
            "A causal mask, still no positions",
            "The same model with the causal mask on: each word sees only itself and the words before it. Without "
            "positional encoding the weights are no longer a reordered copy, and neither are the outputs: the table's "
            "'none' row says no.",
            "Without positional encoding, what can a word under a causal mask still tell about its place?",
            Choice(
                (
                    "How many words come before it: its row may use those keys and itself, no others",
                    "Nothing: without positions every place looks the same",
                    "Its exact position, read from its embedding",
                ),
                0,
            ),
            "How many words come before it: its row of weights is spread over that many keys plus itself, and "
            "the first word can only attend to itself. So a causal model without positional encoding still tells "
            "some word order apart; models such as GPT add positions all the same, which gives each token its place "
            "directly.",
        ),
        View(
            "positional_encoding",
            {"section": "Curves"},
            "The sinusoidal encoding",
            "Each pair of dimensions is a sine and a cosine of one frequency; the frequencies fall "
            "geometrically from the first pair to the last, so every position gets a distinct vector.",
            "Why use many frequencies instead of one?",
            Choice(
                (
                    "One sine repeats after its wavelength, so far-apart positions would look alike",
                    "More frequencies make the vectors longer",
                    "Each token needs a frequency of its own",
                ),
                0,
            ),
            "One sine repeats after its wavelength, so far-apart positions would look alike; the slow "
            "dimensions tell positions apart over long ranges while the fast ones separate neighbours.",
        ),
    ),
)

OFFSET = Lesson(
    "offset",
    "The relative-offset property",
    "PE(pos + k) is a fixed rotation of PE(pos), whatever pos is.",
    (
        View(
            "positional_encoding",
            {"section": "Offset map"},
            "The offset map M_k",
            "For a fixed offset k there is one matrix M_k, made of 2 × 2 rotations, with "
            "PE(pos + k) = M_k · PE(pos) for every position.",
            "Why does it help a model that M_k does not depend on pos?",
            Choice(
                (
                    "One linear map then expresses 'k tokens later' at every position",
                    "It makes the model's attention scores depend on the offset alone",
                    "It lets the model work on sequences of any length",
                ),
                0,
            ),
            "One linear map expresses 'k tokens later' at every position, which is why the paper hoped a model "
            "could easily learn to attend by relative position. In a model the encoding is added to the token vectors "
            "before the projections, so the scores are not a function of the offset alone (rotary encoding makes "
            "their dependence on position a function of the offset alone; they still depend on the tokens), and "
            "bounded sinusoids do not make a model extrapolate to longer inputs (Press et al., 2021).",
        ),
        View(
            "positional_encoding",
            {"section": "Offset map", "k": "1"},
            "One step",
            "With k = 1 every pair of dimensions turns by its own angle ω_i; the slow pairs barely move.",
            "What does M_0 look like?",
            Choice(("The identity", "A quarter turn in every pair", "All zeros"), 0),
            "The identity: an offset of 0 turns every pair by 0.",
        ),
    ),
)

CAUSAL = Lesson(
    "causal",
    "The causal mask",
    "A decoder must not see the tokens it is about to predict.",
    (
        View(
            "masks",
            {"section": "Causal"},
            "The mask",
            "Query i may attend to keys 1..i only: the upper triangle is masked (grey), so row i has i allowed keys.",
            "With n = 100 tokens, how many of the 10,000 cells would the causal mask allow?",
            Number(5050, unit="cells"),
            "1 + 2 + … + 100 = 100 · 101 / 2 = 5,050. The mask is needed in training: every position is predicted at "
            "once from the true sequence, and without it a position could read the very token it has to predict.",
        ),
        View(
            "masks",
            {"section": "Causal vs bidirectional"},
            "Causal against bidirectional",
            "The same sentence through the same weights: with the mask, row i has weight only up to the "
            "diagonal, and its weights are renormalised over those keys; without it every key gets weight.",
            "Under the causal mask, what weight does the first query give the first key?",
            Number(1, tolerance=0.005),
            "1, always: query 1 may only see key 1, and a softmax over one score is 1.",
        ),
    ),
)

PADDING = Lesson(
    "padding",
    "Padding and the fully masked row",
    "Batches pad short sentences; a row with no key needs care.",
    (
        View(
            "masks",
            {"section": "Padding"},
            "A padded batch",
            "Sentences are padded to the longest one; the key-padding mask hides the pad columns, so no "
            "real token attends to a pad.",
            "Why mask the pad keys rather than just ignore the pad rows' outputs?",
            Choice(
                (
                    "Real queries would otherwise give weight to the pads and mix them into their outputs",
                    "The pad rows would make the loss NaN",
                    "Masking saves memory",
                ),
                0,
            ),
            "Real queries would otherwise give weight to pad keys and mix the pad's vector into real "
            "tokens' outputs; the pad rows' own outputs can simply be ignored.",
        ),
        View(
            "masks",
            {"section": "Fully masked row"},
            "A row with nothing allowed",
            "With left padding and a causal mask, the first query is a pad whose only allowed key is "
            "masked: every score of its row is −∞, and a plain softmax gives 0/0 = NaN. This package "
            "returns all zeros there; a finite −1e9 fill, as many implementations use, gives a uniform row.",
            "What should that row's weights be?",
            Choice(
                (
                    "NaN, to flag the pad",
                    "Anything finite: all zeros and a uniform row are both harmless",
                    "A single 1 on the first key",
                ),
                1,
            ),
            "Anything finite. All zeros is this package's choice (the pad's output is then 0); a −1e9 fill "
            "spreads the row evenly. Both are harmless, since no real token attends to a pad and the loss "
            "skips it. NaN is what must not happen: 0 × NaN is NaN, so it would reach the real tokens.",
        ),
    ),
)
