"""A lesson on the Vision Transformer: what changes from words to patches, and what does not."""

from __future__ import annotations

from .kinds import Choice, Lesson, Number, Shipped, View

DIGITS = Shipped("digits_vit")

FROM_WORDS_TO_PATCHES = Lesson(
    "patches",
    "From words to patches",
    "The Transformer's encoder reading an image: a ViT trained here on handwritten digits.",
    (
        View(
            "vision",
            {"model": DIGITS, "section": "Patches"},
            "Tokens are patches",
            "A sentence is cut into tokens; an image is cut into patches. This 8 × 8 digit in 2 × 2 patches gives 16 "
            "patch tokens, each a vector of 4 pixels projected to d_model by one learned matrix, in row-major order. "
            "A learned [CLS] vector goes in front: the encoder reads 17 tokens. Move the patch size.",
            "With 4 × 4 patches, how many tokens does the encoder read, [CLS] included?",
            Number(5, unit="tokens"),
            "5: (8 / 4)² = 4 patches, and [CLS]. Larger patches make a shorter sequence: attention's n² scores shrink, "
            "and each token sees a coarser piece of the image.",
        ),
        View(
            "vision",
            {"model": DIGITS, "section": "Attention on the image"},
            "[CLS] reads the image",
            "Each map shows, for one head, how much [CLS] takes from each patch's value vector (the same weights as "
            "in any attention layer: softmax of query against keys, each row summing to 1, [CLS]'s weight on itself "
            "left out of the picture). Heads differ: some spread over the strokes, some settle on a few patches. Pick "
            "a patch as the query to see what one patch reads.",
            "Which token's final vector does the classifier read to name the digit?",
            Choice(("[CLS]'s", "The mean of all the patches'", "The last patch's"), 0),
            "[CLS]'s: it is not part of the image, so it starts the same for every digit and can only know the image "
            "through attention. Its final vector goes through one linear layer to the 10 digits' logits.",
        ),
        View(
            "vision",
            {"model": DIGITS, "section": "Position embeddings"},
            "2-D positions from 1-D embeddings",
            "The model gets each patch's place only as a number from 1 to 16, a learned vector per number: nobody "
            "tells it about rows and columns. The text under the figure measures whether neighbouring patches ended "
            "up with more alike vectors than distant ones, and the caption gives the held-out accuracy of the same "
            "model trained with no position embeddings at all.",
            "Without position embeddings, which two inputs can the model not tell apart?",
            Choice(
                ("An image and the same patches in another order", "A 1 and a 7", "A faint digit and a dark one"), 0
            ),
            "An image and its patches shuffled: attention treats its input as a set, so without a position vector "
            "the same patches in any order give the same output. A digit's strokes are only recognisable in place, "
            "which is why the model without positions scores lower.",
        ),
        View(
            "vision",
            {"model": DIGITS, "section": "Knock out"},
            "The same attention, the same experiments",
            "Nothing in the encoder is special to images: the same heads, the same W^O, the same knock-out as on the "
            "Experiments page. Each cell is the held-out accuracy lost with that one head's output zeroed; the "
            "caption names the costliest head and what is left.",
            "Does the costliest head sit in layer 1 or in layer 2?",
            Choice(("Layer 1", "Layer 2"), 0),
            "Layer 1, in this model: zeroing its output before W^O costs the most held-out accuracy, while every "
            "layer-2 head costs less. A knock-out shows how much the rest of the model relies on a head, not what "
            "the head computes.",
        ),
    ),
)
