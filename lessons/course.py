"""Start here: one course, in order, from tokens to a real pretrained model and experiments on a trained one.

It borrows the topic lessons' views and adds the first five steps. A term is defined (in bold) in the first
view that uses it: **residual stream** in the layer, **prefix matching** at the induction head, **phase change**
in training.
"""

from __future__ import annotations

from .attention import HEADS, SCALING, WHY_ATTENTION
from .kinds import Choice, Lesson, Number, View
from .model import CROSS_VIEW, ENCODER_DECODER, LAYER, LAYER_NORM_VIEW
from .position import CAUSAL, WORD_ORDER
from .trained import CIRCUIT, PRETRAINED, TRAINED

REPEATED_WORD = "the cat sat on the mat"

FIRST_STEPS = (
    View(
        "self_attention",
        {"section": "Tokens", "text": REPEATED_WORD, "merges": 200},
        "Text becomes tokens",
        "A model reads tokens, not text. Four ways of cutting the sentence are drawn: characters (17), words "
        "(6), byte-pair pieces learned from the built-in text, and the WordPiece pieces of a real model (MiniLM). "
        "After 200 merges BPE keeps 'the' and 'on' whole but spells cat, sat and mat as c, s and m + 'at</w>' "
        "(“</w>” ends a word): 9 tokens, every one in a vocabulary of 52 symbols + 200 merges = 252 pieces.",
        "With no merges at all (the slider at 0), how many BPE tokens is “the cat sat on the mat”?",
        Number(23, unit="tokens"),
        "23: its 17 letters, one token each, and a “</w>” closing each of its 6 words. Each merge joins two "
        "neighbouring pieces into one, so the count can only fall as merges are learned: 9 after 200 (the curve of "
        "the sentence's tokens starts at 23).",
    ),
    View(
        "self_attention",
        {"section": "Q, K, V", "text": REPEATED_WORD},
        "Tokens become vectors",
        "The sentence is cut into tokens (here, words), and each token becomes a vector of d_model = 16 numbers: "
        "its row of a learned embedding table, scaled by √d_model, plus a vector for its position. Stacked, they "
        "make X, one row per token: 6 × 16.",
        "'the' is token 1 and token 5. Are rows 1 and 5 of X equal?",
        Choice(
            (
                "Yes: the same word has the same embedding",
                "No: each adds the vector of its own position",
                "No: each occurrence has a row of its own in the embedding table",
            ),
            1,
        ),
        "No. Both look up the same row of the embedding table, but each adds the vector of its own position, so "
        "the model can tell them apart. Set the positional encoding to none and the two rows are equal.",
    ),
    View(
        "self_attention",
        {"section": "Q, K, V"},
        "Queries, keys and values",
        "Three learned matrices turn each token's vector into a query (what this token looks for), a key (what "
        "it offers to be found by) and a value (what it passes on). With d_model = 16 in 2 heads, a head's are "
        "d_k = 8 numbers a token: Q, K and V are each 11 × 8 for this 11-token sentence.",
        "W_Q turns a 16-number token vector into this head's 8-number query. How many weights does it hold "
        "(leaving out a bias)?",
        Number(128, unit="weights"),
        "16 × 8 = 128: one weight for each pair of an input number and an output number. The same W_Q serves "
        "every position.",
    ),
    View(
        "self_attention",
        {"section": "Scores and softmax"},
        "Scores, and softmax rows",
        "Every query is compared with every key by a dot product: an 11 × 11 table of scores, positive and "
        "negative, then divided by √d_k. The softmax turns each row into weights between 0 and 1 that sum to 1: "
        "how much that query takes from each token.",
        "A query's scores with 4 keys are all equal. What weight does the softmax give each key?",
        Number(0.25, tolerance=0.005),
        "1/4 = 0.25: equal scores give equal weights, whatever the scores are, since softmax only sees their "
        "differences. A score higher by 1 gets e ≈ 2.7 times the weight.",
    ),
    View(
        "self_attention",
        {"section": "Output"},
        "The weighted sum of values",
        "Row 8 of A is how “it” attends: most of its weight goes to two keys, 'the' and 'too'. Its output is the "
        "sum of the value vectors, each multiplied by its weight (the rows of the right-hand figure); the last "
        "row is that sum, row 8 of A V.",
        "If “it” put a weight of 1 on a single key, what would its output be?",
        Choice(("Its own value vector", "That key's value vector", "The average of all the value vectors", "Zero"), 1),
        "That key's value vector: every other term of the sum is multiplied by 0. Attention copies from the "
        "tokens it weights most, in proportion to their weights.",
    ),
)

START_HERE = Lesson(
    "start",
    "Start here: the Transformer, step by step",
    "From text to tokens, to Q, K and V, scores, softmax and the weighted sum; why attention, and "
    "why it is scaled; heads, positions, masks and the layer around attention; the "
    "encoder-decoder; a model trained here, a real pretrained one, and experiments that test what "
    "its heads do.",
    (
        *FIRST_STEPS,
        *WHY_ATTENTION.views,
        *SCALING.views,
        *HEADS.views,
        *WORD_ORDER.views,
        *CAUSAL.views,
        LAYER.views[0],
        LAYER_NORM_VIEW,
        LAYER.views[2],
        ENCODER_DECODER.views[1],
        CROSS_VIEW,
        ENCODER_DECODER.views[4],
        *TRAINED.views,
        PRETRAINED.views[0],
        PRETRAINED.views[2],
        *CIRCUIT.views[:4],
    ),
)
