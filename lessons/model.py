"""Lessons on the whole model: one layer (residual stream, LayerNorm, feed-forward), the encoder-decoder,
and cross-attention."""

from __future__ import annotations

from .model_labels import ON_THE_RANDOM_MODEL
from .kinds import Choice, Lesson, Number, View

# These lessons teach the mechanics on the page's random model (its settings: d_model 64, d_ff 256, ...); the page
# itself opens on the translation model.
CROSS = {**ON_THE_RANDOM_MODEL, "section": "Attention", "kind": "encoder-decoder cross-attention"}
LONG_SOURCE = "the black cat sat on the old mat"

LAYER_NORM_VIEW = View(
    "encoder_decoder",
    {**ON_THE_RANDOM_MODEL, "section": "One layer"},
    "One layer step by step",
    "The norm of each token's vector along the residual stream, and the mean and standard deviation of its "
    "features before and after each LayerNorm (after: 0 and 1).",
    "Without LayerNorm, what could happen to the vectors' size over many layers?",
    Choice(
        (
            "Each residual add can make it grow, layer after layer",
            "Nothing: attention rows sum to 1, so sizes stay",
            "It shrinks towards 0",
        ),
        0,
    ),
    "Each residual add can grow it; LayerNorm brings every token back to mean 0 and standard deviation 1 (times "
    "its learned gain), so its norm is √d_model = 8 here whatever came in.",
)

CROSS_VIEW = View(
    "encoder_decoder",
    CROSS,
    "Cross-attention",
    "Target positions (rows) attend to source tokens (columns): the map is rectangular, nothing is masked, and each "
    "row sums to 1 over the source.",
    "Where do the queries, keys and values come from in cross-attention?",
    Choice(
        (
            "Queries from the decoder; keys and values from the encoder's output",
            "Queries from the encoder; keys and values from the decoder",
            "All three from the decoder",
        ),
        0,
    ),
    "Queries from the decoder's sub-layer below, keys and values from the encoder's output (the memory), the same "
    "memory in every decoder layer: each target position reads the source.",
)

LAYER = Lesson(
    "layer",
    "The layer: residual stream, LayerNorm, feed-forward",
    "What surrounds attention in every layer, and why.",
    (
        View(
            "encoder_decoder",
            {**ON_THE_RANDOM_MODEL, "section": "One layer"},
            "The residual stream",
            "Each sub-layer's output is added to its input, x + MHA(x). The vector each token carries through the "
            "layers, which every sub-layer reads and adds its output to, is called the **residual stream**. In the "
            "figure, 'x + attention' is longer than either of its parts for every token, and each LayerNorm (here "
            "after the add, as in the paper) brings every token back to one norm.",
            "Which part of the layer moves information from one token to another?",
            Choice(("Attention", "The feed-forward network", "LayerNorm", "The residual add"), 0),
            "Attention alone: it is the only part whose output at one position reads other positions. The "
            "feed-forward network, LayerNorm and the add act on each token's vector on its own.",
        ),
        LAYER_NORM_VIEW,
        View(
            "encoder_decoder",
            {**ON_THE_RANDOM_MODEL, "section": "Feed-forward"},
            "The feed-forward network",
            "The feed-forward network acts on each token's vector on its own, with the same weights at every "
            "position: W_1 widens it to d_ff = 256 hidden units, ReLU keeps the positive ones, W_2 projects back to "
            "d_model = 64. With these random weights about half of the units fire (are above 0) for each token.",
            "How many weights do W_1 and W_2 hold together (d_model = 64, d_ff = 256, leaving out the biases)?",
            Number(32768, unit="weights"),
            "2 · 64 · 256 = 32,768: twice the 4 · 64² = 16,384 of the layer's attention (also without biases). Most of "
            "a Transformer's layer weights are in its feed-forward networks.",
        ),
        View(
            "encoder_decoder",
            {**ON_THE_RANDOM_MODEL, "section": "One layer", "norm": "pre-LN"},
            "Pre-LN",
            "Pre-LN, as in most newer models: each sub-layer reads a normalised copy (the LayerNorm points, all at "
            "one norm), and its output is added to the stream itself, which is never normalised inside the layer. "
            "Here every token leaves the layer longer than it came in.",
            "In a pre-LN layer, what does LayerNorm normalise?",
            Choice(
                (
                    "The copy each sub-layer reads; the residual stream itself is only added to",
                    "The residual stream after every sub-layer, as in post-LN",
                    "Only the layer's final output",
                ),
                0,
            ),
            "The copy each sub-layer reads. The stream is only ever added to, so its norm can grow from layer to "
            "layer (models such as GPT-2 add one LayerNorm after the last layer); the gradient flows through the "
            "adds untouched, which makes deep pre-LN stacks easier to train.",
        ),
    ),
)

ENCODER_DECODER = Lesson(
    "encoder-decoder",
    "The whole encoder-decoder",
    "Three kinds of attention, add & norm, and a distribution over the next token.",
    (
        View(
            "encoder_decoder",
            {**ON_THE_RANDOM_MODEL, "section": "Attention", "kind": "encoder self-attention"},
            "Encoder self-attention",
            "Every source token attends to every source token, in every head of every layer: no cell is "
            "masked, and each row sums to 1 over the source.",
            "Why may the encoder look both ways when the decoder may not?",
            Choice(
                (
                    "The whole source is given before the translation starts",
                    "The encoder has more heads",
                    "The encoder's weights are untrained",
                ),
                0,
            ),
            "The whole source is given before the translation starts, so every source token may use every "
            "other; the decoder is trained to predict each target token, so it must not read it.",
        ),
        View(
            "encoder_decoder",
            {**ON_THE_RANDOM_MODEL, "section": "Attention", "kind": "decoder masked self-attention"},
            "Masked decoder self-attention",
            "The decoder reads the target shifted right behind <s>. Row t may attend to positions 1..t only "
            "(the grey upper triangle is masked), so the first row is a single 1 on <s>.",
            "At position t the decoder must predict target token t. Which target tokens can it see there?",
            Choice(
                ("Target tokens 1..t − 1 only", "Target tokens 1..t", "All of them: the mask only hides the source"), 0
            ),
            "Target tokens 1..t − 1 only: positions 1..t hold <s> and target tokens 1..t − 1 (shifted right), and the "
            "mask hides every later position, so the token it must predict is never among its inputs.",
        ),
        CROSS_VIEW,
        LAYER_NORM_VIEW,
        View(
            "encoder_decoder",
            {**ON_THE_RANDOM_MODEL, "section": "Output"},
            "The next-token distribution",
            "The decoder's output at one position through the final linear layer and softmax: a "
            "probability for every word of the vocabulary (these weights are untrained, so it is flat).",
            "With teacher forcing, what is the decoder's input at position t?",
            Choice(
                (
                    "The true target token t − 1 (the target shifted right behind <s>)",
                    "The token the model itself predicted at position t − 1",
                    "The true target token t",
                ),
                0,
            ),
            "The true target tokens before t, shifted right behind a start token. Feeding the model its own "
            "predictions is what generation does, one token at a time.",
        ),
        View(
            "encoder_decoder",
            {**ON_THE_RANDOM_MODEL, "section": "Dropout", "dropout": "0.3"},
            "Dropout, where it acts",
            "In training, dropout zeroes each attention weight and activation with probability p and "
            "multiplies the survivors by a fixed factor; a row of attention no longer sums to 1. Evaluation "
            "turns it off, and every other figure here is drawn that way.",
            "With p = 0.3, by what factor is each surviving weight multiplied?",
            Number(1 / 0.7, tolerance=0.01),
            "1/(1 − p) = 1/0.7 ≈ 1.43, so that the expected value stays the same: E[m·x/(1 − p)] = "
            "(1 − p)·x/(1 − p) = x, and the next layer sees activations of the same size in training and in "
            "evaluation.",
        ),
    ),
)

CROSS_ATTENTION = Lesson(
    "cross-attention",
    "Cross-attention",
    "How the decoder reads the source.",
    (
        View(
            "masks",
            {"section": "Cross-attention"},
            "The cross-attention mask",
            "Queries come from the target (rows), keys from the source (columns): the mask is target × source, "
            "2 × 6 here, not square. The only masked cells are the source's pads, the same in every row.",
            "How many of this mask's 12 cells are allowed?",
            Number(6, unit="cells"),
            "6: 3 real source tokens in each of the 2 rows. A cross-attention mask has no causal part: the whole "
            "source exists before decoding starts, so every target position may read all of it.",
        ),
        CROSS_VIEW,
        View(
            "encoder_decoder",
            {**CROSS, "src": LONG_SOURCE},
            "A longer source",
            "A longer source sentence: the decoder's input is unchanged, 7 positions from <s>, and every head's map "
            "widens to one column per source token; each row still sums to 1 over the source.",
            "How many columns does each head's map have now?",
            Number(8, unit="columns"),
            "8, one per source token ('the' twice is two columns). The rows stay 7: a cross-attention map is target "
            "length × source length, and the two lengths are independent.",
        ),
        View(
            "encoder_decoder",
            {**CROSS, "layer": "2"},
            "The same memory in every layer",
            "Layer 2's cross-attention reads the same source tokens as layer 1 (the same columns), through its own "
            "W_Q, W_K and W_V: its maps differ from layer 1's.",
            "Where do the keys and values of every decoder layer's cross-attention come from?",
            Choice(
                (
                    "The encoder's last layer, the same for every decoder layer",
                    "The encoder layer with the same number",
                    "The decoder layer below",
                ),
                0,
            ),
            "The encoder's output after its last layer (the memory), the same for every decoder layer; each "
            "decoder layer projects it with its own W_K and W_V, and its queries come from the decoder's own stream.",
        ),
    ),
)
