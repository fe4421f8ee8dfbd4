"""The lessons: for each, its views in order; a view is a page, its URL settings and its teaching notes.

Settings are the query parameters a shared link carries (a selectbox's value is its shown label).
``Shipped("induction")`` stands for the model picker's label of a shipped checkpoint, which
holds the file's hash and is looked up when a link is made.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Shipped:
    """The model picker's entry for the shipped checkpoint ``checkpoints/<name>.safetensors``."""

    name: str


@dataclass(frozen=True)
class View:
    """One prepared view: ``page`` is a url path (``multi_head``), ``settings`` its URL state."""

    page: str
    settings: dict
    title: str
    notice: str
    question: str
    answer: str


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    summary: str
    views: tuple[View, ...]


LESSONS: tuple[Lesson, ...] = (
    Lesson("scaling", "Why divide by √d_k", "What the scaling in softmax(QKᵀ/√d_k) is for.", (
        View("self_attention", {"section": "Why scale"}, "Peakedness against d_k",
             "For random queries and keys the dot product q·k is a sum of d_k terms, so its spread grows like "
             "√d_k. Unscaled, the softmax gets more peaked as d_k grows; divided by √d_k it stays the same.",
             "What would happen to the gradients of a softmax that puts almost all its weight on one key?",
             "They nearly vanish: a saturated softmax barely changes when its inputs change, so the model "
             "cannot learn which keys to prefer. Scaling keeps the scores in the range where softmax is soft."),
        View("self_attention", {"section": "Scores and softmax", "scale": "false", "d_model": "128", "heads": "2"},
             "A wide head without the scaling",
             "With d_model = 128 in 2 heads (d_k = 64) and the division switched off, the scores are √64 = 8 "
             "times larger than the scaled ones, and most rows of the attention weights put more than 90 % of "
             "their weight on a single key.",
             "Switch 'divide by √d_k' back on: what happens to the rows?",
             "They spread out again: dividing by √d_k = 8 brings the scores' spread back to about 1, and on this "
             "sentence no row keeps more than 90 % of its weight on one key."),
    )),
    Lesson("heads", "One head or many heads", "Why the Transformer splits d_model into h heads.", (
        View("multi_head", {"heads": "1"}, "One head",
             "A single head sees all 64 dimensions and produces one map per layer: one way of relating "
             "the tokens.",
             "If a token needs to look at its verb and at its article at the same time, can one map do both?",
             "Only by splitting its weight between them: one softmax row has one total of 1 to share."),
        View("multi_head", {"heads": "8"}, "Eight heads of d_k = 8",
             "The same layer with 8 heads: 8 maps, each from its own W^Q and W^K on an 8-dimensional subspace. "
             "Each row of each map still sums to 1, and the maps differ.",
             "The parameter count of the layer did not change. Why not?",
             "W^Q, W^K and W^V are still d_model × d_model in total: h heads of d_model × d_k each, with "
             "d_k = d_model / h."),
        View("multi_head", {"heads": "4", "section": "Concat × W^O"}, "Concatenate, then W^O",
             "Each head's output A_i V_i is T × d_k; side by side they make one T × d_model matrix, and W^O "
             "mixes the heads back into the model's d_model dimensions.",
             "Why is W^O needed: why not keep the heads' outputs side by side?",
             "Side by side, head i only ever writes to its own d_k columns; W^O lets every output dimension "
             "combine what all the heads found (Concat · W^O = Σ_i head_i · W^O_i)."),
    )),
    Lesson("word-order", "Word order and positional encoding",
           "Without positions, attention cannot tell 'dog bites man' from 'man bites dog'.", (
        View("positional_encoding", {"section": "Word order"}, "Two sentences, same words",
             "Without positional encoding, a word attends to the other words with the same weights in both "
             "sentences; with the sinusoidal encoding the weights differ.",
             "Why does attention without positions give the same weights when the words are reordered?",
             "Each score is q_i·k_j, computed from the token vectors alone; reordering the tokens only "
             "reorders the rows and columns of the same numbers (attention is permutation-equivariant)."),
        View("positional_encoding", {"section": "Curves"}, "The sinusoidal encoding",
             "Each pair of dimensions is a sine and a cosine of one frequency; the frequencies fall "
             "geometrically from the first pair to the last, so every position gets a distinct vector.",
             "Why use many frequencies instead of one?",
             "One sine repeats after its wavelength, so far-apart positions would look alike; the slow "
             "dimensions tell positions apart over long ranges while the fast ones separate neighbours."),
    )),
    Lesson("offset", "The relative-offset property",
           "PE(pos + k) is a fixed rotation of PE(pos), whatever pos is.", (
        View("positional_encoding", {"section": "Offset map"}, "The offset map M_k",
             "For a fixed offset k there is one matrix M_k, made of 2 × 2 rotations, with "
             "PE(pos + k) = M_k · PE(pos) for every position.",
             "Why does it help a model that M_k does not depend on pos?",
             "One linear map expresses 'k tokens later' at every position, which is why the paper hoped a "
             "model could easily learn to attend by relative position. In a model the encoding is added to "
             "the token vectors before the projections, so the scores are not a function of the offset alone "
             "(rotary encoding makes them one)."),
        View("positional_encoding", {"section": "Offset map", "k": "1"}, "One step",
             "With k = 1 every pair of dimensions turns by its own angle ω_i; the slow pairs barely move.",
             "What does M_0 look like?",
             "The identity: an offset of 0 turns every pair by 0."),
    )),
    Lesson("causal", "The causal mask", "A decoder must not see the tokens it is about to predict.", (
        View("masks", {"section": "Causal"}, "The mask",
             "Query i may attend to keys 0..i only: the upper triangle is masked (grey), so of n² cells "
             "n(n+1)/2 are allowed.",
             "Why does training need this mask while the decoder already generates one token at a time?",
             "In training every position is predicted at once from the true sequence; without the mask a "
             "position could read the very token it has to predict."),
        View("masks", {"section": "Causal vs bidirectional"}, "Causal against bidirectional",
             "The same sentence through the same weights: with the mask, row i has weight only up to the "
             "diagonal, and its weights are renormalised over those keys; without it every key gets weight.",
             "Why is the first row of the causal map always a single 1?",
             "Query 0 may only see key 0, and a softmax over one score is 1."),
    )),
    Lesson("padding", "Padding and the fully masked row", "Batches pad short sentences; a row with no key needs care.", (
        View("masks", {"section": "Padding"}, "A padded batch",
             "Sentences are padded to the longest one; the key-padding mask hides the pad columns, so no "
             "real token attends to a pad.",
             "Why mask the pad keys rather than just ignore the pad rows' outputs?",
             "Real queries would otherwise give weight to pad keys and mix the pad's vector into real "
             "tokens' outputs."),
        View("masks", {"section": "Fully masked row"}, "A row with nothing allowed",
             "With left padding and a causal mask, the first query is a pad whose only allowed key is "
             "masked: every score of its row is −∞, and a plain softmax gives 0/0 = NaN. This package "
             "returns all zeros there; a finite −1e9 fill, as many implementations use, gives a uniform row.",
             "What should that row's weights be?",
             "Anything finite. All zeros is this package's choice (the pad's output is then 0); a −1e9 fill "
             "spreads the row evenly. Both are harmless, since no real token attends to a pad and the loss "
             "skips it. NaN is what must not happen: 0 × NaN is NaN, so it would reach the real tokens."),
    )),
    Lesson("encoder-decoder", "The whole encoder-decoder",
           "Three kinds of attention, add & norm, and a distribution over the next token.", (
        View("encoder_decoder", {"section": "Attention", "kind": "encoder self-attention"}, "Encoder self-attention",
             "Every source token attends to every source token, in every head of every layer: no cell is "
             "masked, and each row sums to 1 over the source.",
             "Why may the encoder look both ways when the decoder may not?",
             "The whole source is given before the translation starts, so every source token may use every "
             "other; the decoder is trained to predict each target token, so it must not read it."),
        View("encoder_decoder", {"section": "Attention", "kind": "decoder masked self-attention"},
             "Masked decoder self-attention",
             "The decoder reads the target shifted right behind <s>. Row t may attend to positions 0..t only "
             "(the grey upper triangle is masked), so the first row is a single 1 on <s>.",
             "At position t the decoder must predict target token t. Which target tokens can it see there?",
             "Tokens 0..t−1 only: its input at position t is target token t − 1 (shifted right), and the mask "
             "hides every later position, so the token it must predict is never among its inputs."),
        View("encoder_decoder", {"section": "Attention", "kind": "encoder-decoder cross-attention"},
             "Cross-attention",
             "Target positions (rows) attend to source tokens (columns): the map is rectangular, nothing is "
             "masked, and each row sums to 1 over the source.",
             "Where do the queries, keys and values come from in cross-attention?",
             "Queries from the decoder's sub-layer below, keys and values from the encoder's output (the "
             "memory), the same memory in every decoder layer: each target position reads the source."),
        View("encoder_decoder", {"section": "One layer"}, "One layer step by step",
             "The norm of each token's vector along the residual stream, and the mean and standard "
             "deviation of its features before and after each LayerNorm (after: 0 and 1).",
             "What would happen to the vectors' size over many layers without LayerNorm?",
             "Each residual add can grow it; LayerNorm brings every token back to mean 0 and standard "
             "deviation 1 (times its learned gain)."),
        View("encoder_decoder", {"section": "Output"}, "The next-token distribution",
             "The decoder's output at one position through the final linear layer and softmax: a "
             "probability for every word of the vocabulary (these weights are untrained, so it is flat).",
             "With teacher forcing, what is the decoder's input at position t?",
             "The true target tokens before t, shifted right behind a start token."),
        View("encoder_decoder", {"section": "Dropout", "dropout": "0.3"}, "Dropout, where it acts",
             "In training, dropout zeroes each attention weight and activation with probability p and "
             "multiplies the survivors by 1/(1 − p); a row of attention no longer sums to 1. Evaluation "
             "turns it off, and every other figure here is drawn that way.",
             "Why divide the survivors by 1 − p?",
             "So that the expected value stays the same: E[m·x/(1 − p)] = (1 − p)·x/(1 − p) = x, and the "
             "next layer sees activations of the same size in training and in evaluation."),
    )),
    Lesson("trained", "A trained model's heads", "An induction head, trained in seconds on this server.", (
        View("multi_head", {"model": Shipped("induction"), "text": "x q m v k z b x q m v k z b", "layer": "1"},
             "Layer 1: previous-token heads",
             "The model was trained on sequences that repeat. In layer 1 a head attends from each token to "
             "the token just before it: a bright line just below the diagonal.",
             "What does a token learn by copying its predecessor into its own vector?",
             "What came before it: later layers can now find 'the token that followed an earlier x'."),
        View("multi_head", {"model": Shipped("induction"), "text": "x q m v k z b x q m v k z b", "layer": "2"},
             "Layer 2: the induction head",
             "In the second half of the sequence, a layer-2 head attends from each token to the token after "
             "that token's earlier occurrence: a diagonal stripe 6 tokens back, one less than the period of 7.",
             "Why can't a one-layer model do this?",
             "It needs two steps: first each token stores its predecessor (layer 1), then a query matches "
             "that stored predecessor against the current token (layer 2). One layer has only one step."),
        View("train", {"task": "induction"}, "Train it yourself",
             "Press Train: after a quick first drop the loss falls slowly for a hundred-odd steps, then plunges "
             "within a few dozen steps (the phase change) as the induction head forms, and held-out accuracy "
             "jumps from below a half to nearly 1.",
             "Set layers to 1 and train again: what happens?",
             "The loss stalls (about 2 nats after all 1,000 steps, where two layers get close to 0), accuracy "
             "stays near 20 % and no head scores high on prefix matching: induction needs two layers."),
    )),
    Lesson("pretrained", "A real pretrained model's heads", "all-MiniLM-L6-v2: 72 heads that learned from real text.", (
        View("pretrained", {"section": "All heads"}, "Weight parked on [CLS]",
             "A bright first column in many tiles: on this sentence about 30 of the 72 heads give [CLS] more "
             "than half of each row's weight on average, while no head gives [SEP] even a quarter.",
             "Many heads put most of their weight on [CLS]. Why would a trained model do that?",
             "It works as a 'no-op': a head with nothing useful to read on this input parks its weight on a "
             "token whose value changes the output little. Which token serves depends on the model: in "
             "BERT-base it is mostly [SEP] (Clark et al., 2019)."),
        View("pretrained", {"section": "Head roles"}, "Head roles",
             "Every head scored for patterns people name: previous token, next token, [CLS]/[SEP] sink, same "
             "word, broad. The scores are not on one scale, so each head is coloured by the role in which it "
             "stands out most among the 72 heads (its largest z-score); no role takes half of the heads.",
             "Why compare a head with the other heads instead of reading its raw scores?",
             "The raw scores are on different scales: an entropy ratio of 0.6 is ordinary, a previous-token "
             "weight of 0.3 is rare. Ranked on raw scores, most heads would be called 'broad'."),
        View("pretrained", {"section": "Two sentences"}, "What does 'it' refer to?",
             "Only the last word differs (tired / wide). In layer 5, with 'wide', 'it' moves weight from "
             "'animal' towards 'street' in most heads, yet most heads still give 'animal' more than 'street'. "
             "Set the layer to 1 or 2: the two sentences' rows barely differ. The shift is relative and "
             "depends on the layer.",
             "Does this show the model working out what 'it' refers to?",
             "No. Attention weights say where information may flow, not what the model concluded or why "
             "(Jain & Wallace, 2019): the reading is spread over heads and layers, and a weight is not a "
             "coreference decision. The Experiments page tests what a head is needed for."),
    )),
    Lesson("circuit", "Test a circuit", "Knock out and patch the heads of the shipped induction model: two steps "
           "that only work together.", (
        View("experiments", {"model": Shipped("induction"), "section": "Importance"}, "Which heads matter",
             "Each head knocked out alone, the change in accuracy on 64 fresh sequences. Layer 1 · head 2 costs the "
             "most; each layer-2 head costs some; layer 1 · head 1 almost nothing.",
             "Knocking out one layer-2 head costs far less than you might expect from an 'induction head'. Why?",
             "There are two of them (both score above 0.9 on prefix matching): with one gone, the other still "
             "finds the earlier occurrence. Knock out both in the next step."),
        View("experiments", {"model": Shipped("induction"), "section": "Knock out",
                             "ko_decoder1_self_attn": ("head 1", "head 2")}, "Knock out the induction heads",
             "With both layer-2 heads knocked out, accuracy on the repeated half falls from 1.00 to about 0.02: "
             "chance is 1/26 = 0.04. The loss jumps from 0.00 to about 4.",
             "The layer-1 heads are all still there. Why can't the model predict anything?",
             "Predicting x[t+1] from an earlier copy needs a head that looks from the current token to the token "
             "after its earlier occurrence; only layer-2 heads do that."),
        View("experiments", {"model": Shipped("induction"), "section": "Knock out",
                             "ko_decoder0_self_attn": ("head 2",)}, "Knock out the previous-token head",
             "Layer 1 · head 2 attends to the previous token. Without it, accuracy falls to about 0.6, though "
             "the induction heads themselves are untouched.",
             "How can a layer-1 head matter to what the layer-2 heads do?",
             "The induction heads look for the key whose previous token equals the current one; layer 1 · head 2 "
             "is what writes 'my previous token' into each position. The next step shows it."),
        View("experiments", {"model": Shipped("induction"), "section": "Circuit", "head_a": "layer 1 · head 2",
                             "head_b": "layer 2 · head 1"}, "The stripe needs the previous-token head",
             "Layer 2 · head 1's diagonal stripe (each token attends to the token after its earlier occurrence) "
             "fades when layer 1 · head 2 is knocked out: its prefix-matching score falls from 0.98 to about 0.5.",
             "What does that say about the two heads?",
             "They form a circuit: layer 1 · head 2 writes each token's predecessor, and the induction head "
             "matches the current token against it. Neither does the task alone."),
        View("experiments", {"model": Shipped("induction"), "section": "Knock out",
                             "ko_decoder0_self_attn": ("head 1",)}, "A head that is not in the circuit",
             "Knock out layer 1 · head 1 instead: accuracy stays at about 0.98.",
             "Does a head that changes little when knocked out do nothing?",
             "Not necessarily: another head may do the same job (as the two induction heads do), or it may matter "
             "for inputs this task never shows. Knock-outs test what a head is needed for, here."),
        View("experiments", {"model": Shipped("induction"), "section": "Patching"}, "Patch it back",
             "The corrupted input changes the first letter of the repeated block, so at its second occurrence "
             "the model no longer predicts the letter that followed. Patching layer 1 · head 2 from the clean "
             "run restores about 0.9 of the logit difference, and by position it all happens at one place: the "
             "letter right after the changed one.",
             "Why is it that position, and not the position of the changed letter itself?",
             "The previous-token head at the next position is what reads the changed letter and writes it "
             "there; the induction head later looks for exactly that. Patching its output there restores the "
             "match."),
    )),
)
