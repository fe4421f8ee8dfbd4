"""The lesson on the paper's own task: a Transformer trained here to translate English into French. Its answers
are what the shipped translation model draws (tests/test_lessons_translation.py reads them off each view)."""

from __future__ import annotations

from .kinds import Choice, Lesson, Number, Shipped, View

TRANSLATOR = Shipped("translation")
SENTENCE = "My sister has a red car."

TRANSLATION = Lesson(
    "translation",
    "A Transformer that translates",
    "The paper's own task: an encoder-decoder trained here on 71,000 English-French sentence pairs. What it "
    "writes, where its cross-attention looks, how beam search and BLEU judge it, and what knocking out its "
    "cross-attention does.",
    (
        View(
            "encoder_decoder",
            {"model": TRANSLATOR, "section": "Translate", "src": SENTENCE},
            "What it writes, and what it reads",
            "Above the map, the French the model writes with beam search. Each row of the map is the step that "
            "wrote one French word; it is spread over the English words (the mean of every layer and head). Read "
            "each row's darkest cell: the English word that step leaned on most.",
            "Each row of this map adds up to 1. Over what?",
            Choice(
                (
                    "The English words, which the decoder's step reads",
                    "The French words written so far",
                    "The whole vocabulary of 4,000 pieces",
                ),
                0,
            ),
            "Cross-attention's queries come from the decoder and its keys from the encoder's output: each step's "
            "softmax runs over the English pieces, and joining pieces into words keeps the sum at 1.",
        ),
        View(
            "encoder_decoder",
            {"model": TRANSLATOR, "section": "Alignment"},
            "Heads that align words",
            "The grid scores every cross-attention head against word links made by hand on eight sentence pairs: "
            "the share of French words whose most-read English word is a hand-made link. The title names the best "
            "head; the map below shows it on one pair, its links outlined.",
            "What share of the French words does the best head link as the hand alignment does (in %)?",
            Number(0, tolerance=5, unit="%"),
            "",
        ),
        View(
            "encoder_decoder",
            {"model": TRANSLATOR, "section": "Alignment", "al_pair": "I have a red car."},
            "Word order: the adjective moves",
            "“a red car” is “une voiture rouge”: the adjective comes after its noun in French, so the hand-made "
            "links cross. The sentence under the map says what the best head reads for each of the two words.",
            "For “rouge”, which English word does this head read most?",
            Choice(("red", "car.", "a"), 0),
            "",
        ),
        View(
            "generate",
            {"model": TRANSLATOR, "section": "BLEU"},
            "Beam search against greedy",
            "The same held-out sentences translated two ways: greedy (the most probable piece at each step) and "
            "the paper's beam search (4 beams, length penalty α = 0.6), each scored by BLEU and chrF against every "
            "reference. The table lists the sentences.",
            "Which decoding scores the higher BLEU here?",
            Choice(("Beam search, 4 beams", "Greedy decoding"), 0),
            "",
        ),
        View(
            "experiments",
            {"model": TRANSLATOR, "section": "Knock out", "xk3": ("head 1", "head 2", "head 3", "head 4")},
            "Without cross-attention",
            "All four heads of the last decoder layer's cross-attention are knocked out (their outputs set to 0 at "
            "every step): that layer no longer reads the English. The bars compare BLEU on the held-out sentences "
            "with and without them, and the sentence shows what the model now writes.",
            "What happens to BLEU?",
            Choice(("It falls by more than half", "It barely moves", "It rises"), 0),
            "",
        ),
    ),
)
