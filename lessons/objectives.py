"""A lesson on what models are trained to do, and how the paper trained its own: a decoder's next-token loss on
the shipped text model, BERT's masked tokens on the shipped masked model, MiniLM's contrastive objective on
sentence pairs, and the paper's learning-rate schedule."""

from __future__ import annotations

from .kinds import Choice, Lesson, Number, Shipped, View

OBJECTIVES = Lesson(
    "objectives",
    "What models are trained to do",
    "Next-token prediction (GPT), masked tokens (BERT), the contrastive sentence pairs of a "
    "sentence-embedding model (MiniLM), and the paper's recipe: Adam, a warm-up schedule and label "
    "smoothing.",
    (
        View(
            "generate",
            {
                "model": Shipped("text"),
                "section": "Training loss",
                "prompt": "the model reads the text one token at a time",
            },
            "Next-token prediction",
            "A decoder is trained to predict every next token of its training texts: each bar is −log p of one token, "
            "given only the tokens before it (the causal mask hides the rest), and the training loss is their mean "
            "over many texts. This model writes letters; “▁” is a space.",
            "On average (the caption gives the means), where does the model lose more: at the first letter of a "
            "word, or at the letters inside it?",
            Choice(("At the first letter of a word", "At the letters inside a word", "The same everywhere"), 0),
            "At the first letter, on average more than three times as much: after a space many words can start, while inside "
            "a word the first letters leave few ways to go on. A single bar inside a word can still be the tallest, "
            "where a word goes on in an unexpected way. An encoder-only model such as BERT cannot be trained this way, since each position "
            "sees the next token: it chooses about 15 % of the tokens, puts 80 % of those (about 12 % of all) "
            "behind [MASK], and predicts the chosen ones instead.",
        ),
        View(
            "generate",
            {
                "model": Shipped("text"),
                "section": "Training loss",
                "objective": "fill in the blank (BERT)",
                "prompt": "the model reads the text one token at a time",
                "blank": "26",
            },
            "Masked tokens",
            "An encoder-only model is trained the other way: a token is hidden behind [MASK] and guessed from both "
            "sides. The shipped masked model has the text model's size and was trained on the same text. Here the "
            "first letter of “one” (position 26) is hidden; the first chart shows both models' guesses for it, the "
            "second every token hidden in turn.",
            "Which model gives the hidden letter the higher probability?",
            Choice(
                (
                    "The masked model, reading both sides",
                    "The next-token model, reading the left",
                    "Both about the same",
                ),
                0,
            ),
            "The masked model, by far: about 0.98 against 0.09. From the left, “the text ” can go on with many words; "
            "with “ne token” on the right, one letter fits. The second chart shows the same at most positions, and "
            "the largest gaps at the first letters of words, where the left alone says least.",
        ),
        View(
            "pretrained",
            {"section": "Sentence pairs"},
            "Contrastive pairs",
            "MiniLM was fine-tuned to give sentences that belong together nearby embeddings. In a batch of pairs each "
            "first sentence picks its own second sentence out of all of them, by a softmax over s · cosine: the "
            "diagonal of the map. The other pairs are the wrong answers, for free.",
            "Set the scale s to 1. Does the loss rise or fall?",
            Choice(("It rises", "It falls", "It stays the same"), 0),
            "It rises, towards log N: cosines lie between −1 and 1, so without the scale the softmax is nearly flat "
            "and even the right pair gets a modest share. The scale sharpens the choice; the embeddings do not change.",
        ),
        View(
            "train",
            {"task": "induction", "recipe": "the paper (Adam)", "warmup": "50", "steps": "500"},
            "The paper's learning rate",
            "The paper trained with Adam (β₂ = 0.98, ε = 1e-9) and no fixed learning rate: it rises linearly during "
            "the warm-up, then falls as 1/√step, scaled by d_model^−0.5. The chart under the settings draws it for "
            "this model beside AdamW's. “Train both recipes”, below the run, trains the model both ways.",
            "With a warm-up of 50 steps, at which step is the paper's learning rate highest?",
            Number(50, unit="step"),
            "At step 50, the end of the warm-up: min(s^−0.5, s · 50^−1.5) switches there from the rising term to "
            "the falling one, and the peak is d_model^−0.5 · 50^−0.5 ≈ 0.018 for d_model = 64. The paper warmed up "
            "for 4,000 steps with d_model = 512: a peak near 0.0007.",
        ),
    ),
)
