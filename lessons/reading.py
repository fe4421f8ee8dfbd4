"""A lesson on reading a trained model from inside: the logit lens, direct logit attribution, and a head built by
hand, on the shipped induction model."""

from __future__ import annotations

from .kinds import Choice, Lesson, View
from .trained import INDUCTION

READING = Lesson(
    "reading",
    "Read a trained model from inside",
    "What the residual stream predicts after each stage, who writes the logit directly, and a head you "
    "build by hand, on the shipped induction model.",
    (
        View(
            "experiments",
            {"model": INDUCTION, "section": "Logit lens"},
            "The logit lens",
            "Each row reads the residual stream after one stage (the embeddings, then each layer) through the "
            "unembedding, as if the model stopped there; each cell is that stage's best guess of the next token, "
            "coloured by its probability. The last row is the model's own prediction. The input is three letters and "
            "then a block of eight letters, repeated: from the block's second time on, the right guess is the letter "
            "that followed this one the time before.",
            "In the repeated half, which stage is the first whose best guess is the repeat's next token?",
            Choice(("After layer 2", "After layer 1", "The embeddings"), 0),
            "After layer 2: before it, the stream holds the current token and its predecessor, but not yet what came "
            "after the current token's earlier occurrence; the induction heads of layer 2 bring that in.",
        ),
        View(
            "experiments",
            {"model": INDUCTION, "section": "Attribution"},
            "Who writes the logit directly",
            "At the block's first repeated letter, the logit of the predicted token is a sum of what each part wrote "
            "into the residual stream at this position, read through the unembedding: each head's direct share, "
            "and the embeddings' and biases'. "
            "The table beside compares it with what patching each head restores.",
            "Whose heads write most of the logit directly: layer 1's or layer 2's?",
            Choice(("Layer 2's", "Layer 1's"), 0),
            "Layer 2's, the induction heads: they copy the next token's identity straight into the stream. The "
            "previous-token head of layer 1 writes little directly, yet patching it restores much of the logit "
            "difference: it works through the heads after it, which direct attribution does not count.",
        ),
        View(
            "experiments",
            {"model": INDUCTION, "section": "Build a head", "w_back": "1.0", "beta": "0.0"},
            "Build a head by hand",
            "A one-head layer whose query matrix you set from parts: how much a key scores for being the same token, "
            "k positions back, or the first token, times a sharpness β. The map is its attention on the input, under "
            "the causal mask. β is at 0 here.",
            "With the sharpness β at 0, what does the head you built do?",
            Choice(
                (
                    "It spreads each row evenly over the keys it may see",
                    "It attends to the previous token",
                    "It attends to itself",
                ),
                0,
            ),
            "With β = 0 every score is 0, and softmax of equal scores is uniform: row i puts 1/i on each of its i keys. "
            "Raise β and the 'k back' part takes over: at any β > 0 the previous token is every row's most-attended "
            "key, with e^β / (e^β + i − 1) of row i, which passes a half in every row of this 32-token input once "
            "β ≥ ln 31 ≈ 3.4 (at the default β = 5, at least 0.83). The trained model's layer 1 · head 2 also puts "
            "most weight on the previous token in every row.",
        ),
    ),
)
