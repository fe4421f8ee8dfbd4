"""A lesson on writing text with a decoder: the next-token distribution, temperature, top-k and top-p, beam search
and the KV cache, on the shipped text model (a character-level model trained here on a small English text: its 37
tokens are letters, a few signs and "▁", the space)."""

from __future__ import annotations

from .kinds import Choice, Lesson, Number, Shipped, View

TEXT_MODEL = Shipped("text")
PROMPT = "the model "

ONE_TOKEN_AT_A_TIME = Lesson(
    "writing",
    "Writing one token at a time",
    "How a decoder writes: a distribution over its vocabulary at each step, reshaped by "
    "temperature, top-k and top-p, searched by beams, and sped up by the KV cache.",
    (
        View(
            "generate",
            {"model": TEXT_MODEL, "section": "Next token", "prompt": PROMPT, "strategy": "sample", "t": "1.0"},
            "A distribution over the vocabulary",
            "At every step the decoder turns its last position's vector into one logit z per token of its "
            "vocabulary, and softmax(z / τ) into probabilities: the bars, most probable first. A sampler draws the "
            "next token from them (the orange bar), appends it, and runs again.",
            "Set the temperature τ to 0.5. Does the tallest bar grow or shrink?",
            Choice(("It grows", "It shrinks", "It stays as it is"), 0),
            "It grows. Dividing the logits by τ < 1 stretches the gaps between them, and softmax turns larger gaps into "
            "a larger share for the most probable token; τ > 1 flattens the bars, and τ = 0 is greedy decoding.",
        ),
        View(
            "generate",
            {"model": TEXT_MODEL, "section": "Next token", "prompt": PROMPT, "strategy": "sample", "k": "3"},
            "top-k: only the k most probable",
            "With top-k = 3, every token but the three most probable is cut (grey bars). The three kept are "
            "renormalised, so their probabilities add up to 1 again (the black marks), and the next token is drawn "
            "from them alone.",
            "With top-k = 3, how many different tokens can be drawn at this step?",
            Number(3, unit="tokens"),
            "3: whatever the distribution, top-k keeps exactly k tokens (all of them when the vocabulary is smaller). "
            "A flat distribution loses many plausible tokens, a peaked one keeps unlikely ones: top-p adapts.",
        ),
        View(
            "generate",
            {"model": TEXT_MODEL, "section": "Next token", "prompt": PROMPT, "strategy": "sample", "p": "0.5"},
            "top-p: as many as it takes",
            "top-p (nucleus sampling) keeps the most probable tokens until their probabilities reach at least p = 0.5, "
            "and cuts the rest. The title counts the tokens kept. Step through the text with the token slider.",
            "Does top-p keep the same number of tokens at every step?",
            Choice(("No: as many as it takes to reach p", "Yes: always the same number"), 0),
            "No. Where the model is sure, one token may reach p on its own; where it is unsure (often at the first "
            "letter of a word), more are needed. Step through the text: the count in the title moves.",
        ),
        View(
            "generate",
            {"model": TEXT_MODEL, "section": "Compare", "prompt": PROMPT, "beams": "3", "new": "12"},
            "Beam search keeps several texts",
            "Greedy decoding takes the most probable token every time; beam search keeps the 3 best partial texts by "
            "their sum of log-probabilities, extends each by every token, and keeps the best 3 again. The tree draws "
            "what it kept at each generated token, the chosen text in orange.",
            "How many partial texts does the tree keep at each generated token, at most?",
            Number(3, unit="texts"),
            "3, the number of beams: the rank axis never goes past it. A beam can find a text more probable as a "
            "whole than greedy's, but it is a search, not a guarantee: the best text may be cut on the way.",
        ),
        View(
            "generate",
            {"model": TEXT_MODEL, "section": "KV cache", "prompt": PROMPT},
            "The KV cache",
            "Writing token t + 1 needs the keys and values of all t tokens before it, in every layer. They do not change "
            "once computed, so the decoder keeps them: the cache. The first figure is its size, by the formula in its "
            "title; the second the time for the next token with and without it, measured on this server.",
            "The cache grows by one K and one V per token and per layer. Is its size a straight line in t?",
            Choice(("Yes: linear in the number of tokens", "No: quadratic, like the attention scores"), 0),
            "Linear: 2 · layers · K/V heads · t · d_head numbers. The scores of one new query against t keys are t "
            "numbers too; it is the whole n × n score matrix, recomputed without the cache, that grows quadratically.",
        ),
    ),
)
