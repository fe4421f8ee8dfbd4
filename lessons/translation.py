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
            Number(92, tolerance=5, unit="%"),
            "92 %: layer 3's head 3 reads, for 35 of the 38 linked French words, the English word a person links "
            "it to. No one told it about words or alignments: it learned where to look because looking there "
            "helps predict the next French piece. The other heads of layer 3 agree on 68-82 % and those of layer "
            "1 on 16-47 %: the heads that align words sit in the last layer, which reads the English last.",
        ),
        View(
            "encoder_decoder",
            {"model": TRANSLATOR, "section": "Alignment", "al_pair": "I have a red car."},
            "Word order: the adjective moves",
            "“a red car” is “une voiture rouge”: the adjective comes after its noun in French, so the hand-made "
            "links cross. The sentence under the map says what the best head reads for each of the two words.",
            "For “rouge”, which English word does this head read most?",
            Choice(("red", "car.", "a"), 0),
            "“red” (0.55 of its weight), and “voiture” reads “car.” (0.79): the head follows the words across "
            "the swap rather than the positions. Attention compares contents, so a word can find its "
            "counterpart wherever it stands; a fixed left-to-right alignment could not.",
        ),
        View(
            "generate",
            {"model": TRANSLATOR, "section": "BLEU"},
            "Beam search against greedy",
            "The same held-out sentences translated two ways: greedy (the most probable piece at each step) and "
            "the paper's beam search (4 beams, length penalty α = 0.6), each scored by BLEU and chrF against every "
            "reference. The table lists the sentences.",
            "Which decoding scores the higher BLEU here?",
            Choice(("Beam search, 4 beams", "Greedy decoding"), 1),
            "Greedy, on these 24 sentences (21.8 against 19.4). On all 1,500 held-out sentences it is the other "
            "way round, 45.9 with 4 beams against 43.3 greedy (the caption says so): 24 sentences are few, and "
            "one translation that runs on, repeating a piece, weighs on both scores. BLEU counts shared word "
            "sequences; it does not know that “Tu es idiot.” means “Tu es stupide.”.",
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
            "It falls from 19.4 to 6.0, and “My sister has a red car.” becomes French that has nothing to do with "
            "it: the last layer's cross-attention carries most of what the decoder knows about the English. Knock "
            "out one head at a time to find which carry it.",
        ),
    ),
)
