"""The lesson "The road from 2017": the changes from the paper's block to today's decoders (Llama, Mistral, Qwen),
each on the Encoder-decoder page's "Since 2017" section. Its answers are what those views draw
(tests/test_lessons_todays_block.py reads them off each view)."""

from __future__ import annotations

from .model_labels import RANDOM
from .kinds import Choice, Lesson, Number, View


def _part(part: str) -> dict:
    """A part of the "Since 2017" section, on the page's random model (d_model 64, 4 heads, 2 + 2 layers)."""
    return {"model": RANDOM, "section": "Since 2017", "road": part}


TODAYS_BLOCK = Lesson(
    "todays-block",
    "The road from 2017",
    "What today's decoders (Llama, Mistral, Qwen, SmolLM) changed in the paper's block, one change at a time: where "
    "the norm goes, RMSNorm, the gated feed-forward, RoPE, key-value heads shared by several query heads, and two "
    "small models trained here alike but for their blocks.",
    (
        View(
            "encoder_decoder",
            _part("Norm placement"),
            "Where the norm goes",
            "Two random six-layer decoders read the same tokens: one normalises after each residual sum (the "
            "paper), the other each sublayer's input (GPT-2 and every decoder since). The lines are the size (root "
            "mean square) of the residual stream after each layer.",
            "After six pre-LN layers, what is the residual stream's root mean square?",
            Number(2.50, tolerance=0.05),
            "2.50, up from 1.44 after the first layer: in pre-LN nothing normalises the stream itself, so what the "
            "layers add piles up, while post-LN brings it back to 1.00 after every sublayer. The plain sums carry "
            "the gradient straight to the first layers, which is why deep pre-LN stacks train without the "
            "paper's long warm-up.",
        ),
        View(
            "encoder_decoder",
            _part("RMSNorm"),
            "LayerNorm and RMSNorm",
            "The vector 3, 1, 4, 1, 5, 9 through both norms, gains 1 and no bias. Change it: both outputs always "
            "end at root mean square 1.",
            "Which of the two keeps the sign of every coordinate?",
            Choice(("RMSNorm", "LayerNorm", "Both", "Neither"), 0),
            "RMSNorm only divides by the root mean square (4.71 here), so 3, 1, 4, 1, 5, 9 stay positive. LayerNorm "
            "first removes the mean, 3.83, so 3, 1, 1 turn negative. One statistic instead of two, and no bias: "
            "Llama, Mistral and Qwen normalise this way.",
        ),
        View(
            "encoder_decoder",
            _part("SwiGLU"),
            "A gated feed-forward",
            "The feed-forward's weights at d_model 64: ReLU's two matrices with biases, SwiGLU's three at the same "
            "d_ff, and SwiGLU at two thirds of it.",
            "How many weights does SwiGLU hold at the same d_ff of 256?",
            Number(49152),
            "49,152 = 3 × 64 × 256: a gate matrix joins the two, against ReLU's 33,088. Llama takes d_ff at two "
            "thirds (8 d_model / 3 where the paper has 4 d_model), and at d_ff 171 the gated block holds 32,832, "
            "about ReLU's count: at equal weights it learns better.",
        ),
        View(
            "encoder_decoder",
            _part("RoPE"),
            "Positions as rotations",
            "The score of one query token and one key token at four pairs of positions, with the sinusoids added to "
            "the tokens (2017) and with RoPE's rotations (today).",
            "Under RoPE, how do the scores of the three pairs three positions apart compare?",
            Choice(("They are equal", "They fall as the positions grow", "They rise as the positions grow"), 0),
            "Equal (-1.44 each): RoPE turns q by its position m and k by n, and the dot product of two turned "
            "vectors depends on n − m alone. Added sinusoids mix position with content, and the same pairs score "
            "3.27 to 8.92.",
        ),
        View(
            "encoder_decoder",
            _part("Shared keys"),
            "Heads that share keys and values",
            "The KV cache after 1,024 tokens at the page's sizes (2 layers, 4 heads of 16 dimensions) for every "
            "number of key-value heads, from multi-head (4) to multi-query (1).",
            "What share of multi-head attention's cache does multi-query attention keep (in %)?",
            Number(25, unit="%"),
            "25 %: one key-value head instead of four, 256 KiB instead of 1,024. Grouped-query attention sits "
            "between (2 heads, 50 %): Llama 3, Mistral and Qwen share each key-value head among a group of query "
            "heads, which keeps their quality and cuts the memory every generated token reads.",
        ),
        View(
            "encoder_decoder",
            _part("Two trained blocks"),
            "Two blocks trained alike",
            "Two small decoders trained here on the same text with the same steps and seed, one with LayerNorm, "
            "ReLU and a key-value head per head, the other with Llama's block. Each map is one head of the chosen "
            "layer on the text; the table gives their held-out perplexity and the head that reads the previous "
            "character most.",
            "Which block predicts the held-out text better?",
            Choice(("The Llama block", "The LayerNorm + ReLU block", "They are exactly equal"), 0),
            "The Llama block, 4.08 against 4.14, with fewer weights (63,424 against 71,845): it shares one key-value "
            "head. Both learned a head that puts more than half of its weight on the previous character (the "
            "table names it). At this size the gap is small; the changes were made for models a thousand times "
            "larger.",
        ),
    ),
)
