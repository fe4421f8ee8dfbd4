"""A lesson on what models are trained to do, and how the paper trained its own: a decoder's next-token loss on
the shipped text model, MiniLM's contrastive objective on sentence pairs, and the paper's learning-rate schedule."""

from __future__ import annotations

from .kinds import Choice, Lesson, Number, Shipped, View

OBJECTIVES = Lesson("objectives", "What models are trained to do",
                    "Next-token prediction (GPT), the contrastive sentence pairs of a sentence-embedding model "
                    "(MiniLM), and the paper's recipe: Adam, a warm-up schedule and label smoothing.", (
    View("generate", {"model": Shipped("text"), "section": "Training loss",
                      "prompt": "the model reads the text one token at a time"}, "Next-token prediction",
         "A decoder is trained to predict every next token of its training texts: each bar is −log p of one token, "
         "given only the tokens before it (the causal mask hides the rest), and the training loss is their mean "
         "over many texts. This model writes letters; “▁” is a space.",
         "Where does the model lose most: at the first letter of a word, or at the letters inside it?",
         Choice(("At the first letter of a word", "At the letters inside a word", "The same everywhere"), 0),
         "At the first letter: after a space many words can start, while inside a word the first letters leave "
         "few ways to go on. An encoder-only model such as BERT cannot be trained this way, since each position "
         "sees the next token: it hides about 15 % of the tokens behind [MASK] and predicts them instead."),
    View("pretrained", {"section": "Sentence pairs"}, "Contrastive pairs",
         "MiniLM was fine-tuned to give sentences that belong together nearby embeddings. In a batch of pairs each "
         "first sentence picks its own second sentence out of all of them, by a softmax over s · cosine: the "
         "diagonal of the map. The other pairs are the wrong answers, for free.",
         "Set the scale s to 1. Does the loss rise or fall?",
         Choice(("It rises", "It falls", "It stays the same"), 0),
         "It rises, towards log N: cosines lie between −1 and 1, so without the scale the softmax is nearly flat "
         "and even the right pair gets a modest share. The scale sharpens the choice; the embeddings do not change."),
    View("train", {"task": "induction", "recipe": "the paper (Adam)", "warmup": "50", "steps": "500"},
         "The paper's learning rate",
         "The paper trained with Adam (β₂ = 0.98, ε = 1e-9) and no fixed learning rate: it rises linearly during "
         "the warm-up, then falls as 1/√step, scaled by d_model^−0.5. The first chart of the settings draws it "
         "for this model beside AdamW's. “Train both recipes”, below the run, trains the model both ways.",
         "With a warm-up of 50 steps, at which step is the paper's learning rate highest?",
         Number(50, unit="step"),
         "At step 50, the end of the warm-up: min(s^−0.5, s · 50^−1.5) switches there from the rising term to "
         "the falling one, and the peak is d_model^−0.5 · 50^−0.5 ≈ 0.018 for d_model = 64. The paper warmed up "
         "for 4,000 steps with d_model = 512: a peak near 0.0007."),
))
