"""Lessons on trained models: an induction head trained here, a real pretrained model, and testing a circuit."""

from __future__ import annotations

from .kinds import Choice, Lesson, Number, Shipped, View

REPEATED = "x q m v k z b x q m v k z b"
INDUCTION = Shipped("induction")

TRAINED = Lesson(
    "trained",
    "A trained model's heads",
    "An induction head, trained in seconds on this server.",
    (
        View(
            "multi_head",
            {"model": INDUCTION, "text": REPEATED, "layer": "1"},
            "Layer 1: previous-token heads",
            "The model was trained on sequences that repeat. In layer 1 a head attends from each token to "
            "the token just before it: a bright line just below the diagonal.",
            "What does a token gain by copying its predecessor into its own vector?",
            Choice(("What came before it, which later layers can search for", "Its own position", "The next token"), 0),
            "What came before it: later layers can now find 'the token that followed an earlier x'.",
        ),
        View(
            "multi_head",
            {"model": INDUCTION, "text": REPEATED, "layer": "2"},
            "Layer 2: the induction head",
            "In the second half of the sequence, a layer-2 head attends from each token to the token after that "
            "token's earlier occurrence: a diagonal stripe. How much a head attends that way (its mean weight, from "
            "each token of a repeat, on the token after the earlier occurrence) is its **prefix matching** score.",
            "The sequence repeats with a period of 7 tokens. How many tokens back does the stripe sit?",
            Number(6, unit="tokens back"),
            "6: the current token's earlier copy is 7 back, and the token after it 6 back. It takes two layers: "
            "first each token stores its predecessor (layer 1), then a query matches that stored predecessor "
            "against the current token (layer 2). One layer has only one step.",
        ),
        View(
            "train",
            {"task": "induction"},
            "Train it yourself",
            "Press Train: after a quick first drop the loss falls slowly for a hundred-odd steps, then plunges "
            "within a few dozen steps as the induction head forms, and held-out accuracy jumps from below a half "
            "to nearly 1. A sudden drop like this, after a long stretch of slow progress, is called a "
            "**phase change**.",
            "Set layers to 1 and train again: what happens?",
            Choice(
                (
                    "The loss stalls and accuracy stays low",
                    "The same plunge, only later",
                    "It learns faster, with fewer weights to train",
                ),
                0,
            ),
            "The loss stalls (about 2 nats after all 1,000 steps, where two layers get close to 0), accuracy "
            "stays near 20 % and no head scores high on prefix matching: induction needs two layers.",
        ),
    ),
)

PRETRAINED = Lesson(
    "pretrained",
    "A real pretrained model's heads",
    "all-MiniLM-L6-v2: 72 heads that learned from real text.",
    (
        View(
            "pretrained",
            {"section": "All heads"},
            "Weight parked on [CLS]",
            "A bright first column in many tiles: on this sentence about 30 of the 72 heads give [CLS] more "
            "than half of each row's weight on average, while no head gives [SEP] even a quarter.",
            "Many heads put most of their weight on [CLS]. Why would a trained model do that?",
            Choice(
                (
                    "A head with nothing useful to read here parks its weight on a token whose value changes little",
                    "[CLS] holds the meaning of the sentence, which every head needs",
                    "It is an error of this encoder",
                ),
                0,
            ),
            "It works as a 'no-op': a head with nothing useful to read on this input parks its weight on a "
            "token whose value changes the output little. Which token serves depends on the model: in "
            "BERT-base it is mostly [SEP] (Clark et al., 2019).",
        ),
        View(
            "pretrained",
            {"section": "Head roles"},
            "Head roles",
            "Every head scored for patterns people name: previous token, next token, [CLS]/[SEP] sink, same "
            "word, broad. The scores are not on one scale, so each head is coloured by the role in which it "
            "stands out most among the 72 heads (its largest z-score), or grey, no clear role, when that z-score is "
            "below 1: about half of the heads on this sentence. No named role takes half of the heads.",
            "Why compare a head with the other heads instead of reading its raw scores?",
            Choice(
                (
                    "The raw scores are on different scales",
                    "The raw scores take too long to compute",
                    "The raw scores of all heads are the same",
                ),
                0,
            ),
            "The raw scores are on different scales: an entropy ratio of 0.6 is ordinary, a previous-token "
            "weight of 0.3 is rare. Ranked on raw scores, most heads would be called 'broad'.",
        ),
        View(
            "pretrained",
            {"section": "Two sentences"},
            "What does 'it' refer to?",
            "Only the last word differs (tired / wide). In layer 5, with 'wide', 'it' moves weight from "
            "'animal' towards 'street' in most heads, yet most heads still give 'animal' more than 'street'. "
            "Set the layer to 1 or 2: the two sentences' rows differ far less there than in layer 5. The shift is "
            "relative and depends on the layer.",
            "Does this show the model working out what 'it' refers to?",
            Choice(
                (
                    "Yes: the heads' weight on 'street' is the model's answer",
                    "No: attention weights show where information may flow, not what the model concluded or why",
                    "Only in layer 5",
                ),
                1,
            ),
            "No. Attention weights say where information may flow, not what the model concluded or why "
            "(Jain & Wallace, 2019): the reading is spread over heads and layers, and a weight is not a "
            "coreference decision. The Experiments page tests what a head is needed for.",
        ),
    ),
)

CIRCUIT = Lesson(
    "circuit",
    "Test a circuit",
    "Knock out and patch the heads of the shipped induction model: two steps "
    "that work together, and what each experiment can and cannot show.",
    (
        View(
            "experiments",
            {"model": INDUCTION, "section": "Importance"},
            "Which heads matter",
            "An attention map shows where information may flow, not what the model needs (Jain & Wallace, 2019); "
            "to test a head, take it away. Each head knocked out alone, the change in accuracy on 64 fresh "
            "sequences: layer 1 · head 2 costs the most; each layer-2 head costs some; layer 1 · head 1 almost nothing.",
            "Knocking out one layer-2 head costs far less than you might expect from an 'induction head'. Why?",
            Choice(
                (
                    "There are two induction heads: with one gone, the other still does the job",
                    "Layer-2 heads do nothing on this task",
                    "A knock-out is too small a change to matter",
                ),
                0,
            ),
            "There are two of them (both score above 0.9 on prefix matching): with one gone, the other still "
            "finds the earlier occurrence. Knock out both in the next step.",
        ),
        View(
            "experiments",
            {"model": INDUCTION, "section": "Knock out", "ko_decoder1_self_attn": ("head 1", "head 2")},
            "Knock out the induction heads",
            "With both layer-2 heads knocked out, accuracy on the repeated half falls from 1.00 to about 0.02: "
            "chance is 1/26 = 0.04. The loss jumps from 0.00 to about 4.",
            "The layer-1 heads are all still there. Why can't the model predict anything?",
            Choice(
                (
                    "Only layer-2 heads look from the current token to the token after its earlier occurrence",
                    "Knocking out any two heads breaks a model",
                    "The layer-1 heads are knocked out with them",
                ),
                0,
            ),
            "Predicting x[t+1] from an earlier copy needs a head that looks from the current token to the token "
            "after its earlier occurrence; only layer-2 heads do that.",
        ),
        View(
            "experiments",
            {"model": INDUCTION, "section": "Knock out", "ko_decoder0_self_attn": ("head 2",)},
            "Knock out the previous-token head",
            "Layer 1 · head 2 attends to the previous token. Without it, accuracy falls from 1.00 to about 0.64, "
            "though the induction heads themselves are untouched; yet 0.64 is far above chance (1/26 = 0.04).",
            "Accuracy falls to about 0.64, not to chance. What does that say about layer 1 · head 2?",
            Choice(
                (
                    "The induction heads use what it writes, but some of that reaches them another way",
                    "It alone writes each token's predecessor: without it the induction heads cannot work",
                    "It does nothing: the drop is noise",
                ),
                0,
            ),
            "The induction heads look for the key whose previous token equals the current one, and layer 1 · head 2 "
            "writes most of that 'previous token' into each position: without it, about a third of the predictions "
            "fail. But two in three stay right, so it is not the only way. Knock out layer 1 · head 1 as well: "
            "accuracy falls to about 0.12, though head 1 alone costs almost nothing (a later step).",
        ),
        View(
            "experiments",
            {"model": INDUCTION, "section": "Circuit", "head_a": "layer 1 · head 2", "head_b": "layer 2 · head 1"},
            "The stripe needs the previous-token head",
            "Layer 2 · head 1's diagonal stripe (each token attends to the token after its earlier occurrence) "
            "fades when layer 1 · head 2 is knocked out: its prefix-matching score falls from 0.98 to about 0.5.",
            "What does that say about the two heads?",
            Choice(
                (
                    "They form a circuit: the induction head's stripe depends on the previous-token head",
                    "Layer 2 · head 1 copies layer 1 · head 2's map",
                    "The induction head was never needed",
                ),
                0,
            ),
            "They form a circuit: layer 2 · head 1's stripe depends on what layer 1 · head 2 writes. What a knock-out "
            "cannot show is how layer 2 · head 1 reads it: its keys, its queries and its values all lose head 2's "
            "output at once. The usual account, keys that carry 'my previous token' matched by the current token's "
            "query, needs a finer test, such as patching only what the keys read (a later step).",
        ),
        View(
            "experiments",
            {"model": INDUCTION, "section": "Knock out", "ko_decoder0_self_attn": ("head 1",)},
            "A head that is not in the circuit",
            "Knock out layer 1 · head 1 instead: accuracy stays at about 0.98.",
            "Does a head that changes little when knocked out do nothing?",
            Choice(
                (
                    "Not necessarily: another head may do its job, or it matters for other inputs",
                    "Yes: a knock-out shows everything a head does",
                ),
                0,
            ),
            "Not necessarily: another head may do the same job (as the two induction heads do), or it may matter "
            "for inputs this task never shows. Knock-outs test what a head is needed for, here.",
        ),
        View(
            "experiments",
            {"model": INDUCTION, "section": "Patching"},
            "Patch it back",
            "The corrupted input changes the first letter of the repeated block, so at its second occurrence "
            "the model no longer predicts the letter that followed. Patching layer 1 · head 2 from the clean "
            "run restores about 0.91 of the logit difference. Patched one position at a time, it restores about "
            "0.94 at the letter right after the changed one and about 0.25 at the changed letter itself; "
            "nearly nothing anywhere else. Under the bars, the page says what the model then predicts.",
            "What does layer 1 · head 2 carry at each of those two places, and does the 0.25 bring the answer back?",
            Choice(
                (
                    "Right after: which letter came before. At the changed letter: a little of that letter itself, "
                    "and the answer does not come back there",
                    "At both: the letter the model should predict, a little of it at the changed letter",
                    "Nothing: patching acts one position late",
                ),
                0,
            ),
            "Right after the changed letter, the previous-token head writes which letter came before: the original "
            "in the clean run, the changed one in the corrupted run, and the induction heads look for exactly that "
            "(0.94: the model predicts x again). At the changed letter itself its query is that letter and it puts "
            "part of its weight on it, so the clean run's output there carries a little of the original letter, n. "
            "At the second n, the induction heads now find an n there, attend to it and copy the letter in that "
            "place: c. The model predicts c; z(x) does not rise (about 0.65 → 0.19) and z(h) falls (about 6.46 → "
            "1.45). The 0.25 is the difference z(x) − z(h) narrowing, not x coming back: a fraction restored "
            "measures one difference, so read what the model predicts too. Elsewhere the two runs give this head "
            "nearly the same output, so patching there restores almost nothing.",
        ),
        View(
            "experiments",
            {"model": INDUCTION, "section": "Patching", "patch_part": "keys", "patch_head": "layer 2 · head 2"},
            "Keys or queries?",
            "The same corrupted input, but each head now gets only its keys from the clean run: its queries and values "
            "stay the corrupted run's, and it computes its attention again from them. In the grid, the keys of "
            "layer 2 · head 2 alone restore about 0.74 of the logit difference, those of layer 2 · head 1 about 0.59. "
            "Patched one key position at a time, layer 2 · head 2's keys restore all of that at one key: the letter "
            "right after the changed one. The last chart patches each part of layer 2 · head 2 alone.",
            "Which of its parts does the induction head layer 2 · head 2 read what the corruption changed through: its "
            "keys or its queries?",
            Choice(("Its keys", "Its queries", "Both about equally"), 0),
            "Its keys: they restore about 0.74, its queries about 0.00 (its values about -0.03). The key at the letter "
            "after the changed one holds which letter came before it, written there by the previous-token head "
            "(layer 1 · head 2 attends from that letter to the changed one): in the corrupted run it names the changed "
            "letter, so the query of the repeated letter no longer matches it. The induction head reads the "
            "previous-token head through its keys, what Elhage et al. (2021) call K-composition.",
        ),
        View(
            "experiments",
            {"model": INDUCTION, "section": "Attribution"},
            "Direct is not all",
            "Direct logit attribution splits the logit of the predicted letter into what each part writes straight "
            "into the residual stream there. Layer 1 · head 2's direct share is about 0.21 of a logit of about "
            "10.4, yet patching it restores about 0.91 of the logit difference, of which about −0.02 directly (the "
            "table under the figures).",
            "Why is the previous-token head's direct share so small when patching it restores almost everything?",
            Choice(
                (
                    "The layer-2 heads read what it writes and write the answer: an effect direct attribution does "
                    "not count",
                    "Direct attribution is wrong for small heads",
                    "Patching overstates every head",
                ),
                0,
            ),
            "Its effect is indirect: it writes each token's predecessor, the induction heads read that and write "
            "the answer, and only their writing counts as direct. Direct attribution measures the last step alone; "
            "patching measures a head's whole effect, through the heads after it.",
        ),
    ),
)
