"""Translating sentences with an encoder-decoder: beam search with the paper's length penalty, then detokenised.

"Attention Is All You Need" (section 6.1) decodes with beam search, 4 beams and a length penalty α = 0.6,
the penalty of Google's neural machine translation (Wu et al. 2016): a hypothesis Y scores
log P(Y | X) / lp(Y), lp(Y) = ((5 + |Y|) / 6)^α, and the search writes at most |X| + 50 tokens.
``translate`` runs exactly that (``generate`` with ``strategy="beam"``, ``penalty="gnmt"``) on each sentence
and joins the chosen pieces back into text; ``num_beams=1`` is greedy decoding.
"""

from __future__ import annotations

from collections.abc import Sequence

from torch import nn

from .generation import generate
from .subword import WORD_START
from .tokenizer import UNK

EXTRA_TOKENS = 50  # the paper's output budget: the source's length + 50


def source_ids(model: nn.Module, tokenizer, sentence: object, number: int = 1) -> list[int]:
    """The source's ids for ``model``, or a ValueError that says what to change about sentence ``number``."""
    if not isinstance(sentence, str):
        raise ValueError(f"sentence {number} is a {type(sentence).__name__}, not text; give strings.")
    pieces = tokenizer.tokenize(sentence) if sentence.strip() else []
    if not pieces:
        raise ValueError(f"sentence {number} is empty; type an English sentence.")
    if len(pieces) > model.config.max_len:
        raise ValueError(
            f"sentence {number} has {len(pieces)} pieces; this model reads at most {model.config.max_len}: "
            "shorten it or split it into sentences."
        )
    if all(piece in (UNK, WORD_START) for piece in pieces):
        raise ValueError(f"sentence {number} has no character the model knows; type it in English.")
    return tokenizer.encode(pieces)


def translate(
    model: nn.Module,
    tokenizer,
    sentences: Sequence[str],
    num_beams: int = 4,
    length_penalty: float = 0.6,
    max_new_tokens: int | None = None,
) -> list[str]:
    """Each sentence translated: beam search over ``num_beams`` hypotheses scored by
    ``log P / ((5 + |Y|) / 6) ** length_penalty``, at most ``max_new_tokens`` tokens (None: the source's
    pieces + 50, within the model's positions), the chosen pieces decoded to text (the end token left out).

    ``model`` is an encoder-decoder in eval mode; ``tokenizer`` has ``tokenize``, ``encode`` and ``decode``
    (the checkpoint's subword tokenizer). A sentence that is not a string, is empty or is longer than the
    model reads is a ValueError naming it; so are bad settings."""
    if getattr(model, "kind", None) != "encoder-decoder":
        raise ValueError("translate needs an encoder-decoder model (a translation checkpoint).")
    if isinstance(sentences, str) or not isinstance(sentences, Sequence):
        raise ValueError("sentences must be a list of strings (one sentence: [sentence]).")
    if isinstance(num_beams, bool) or not isinstance(num_beams, int) or num_beams < 1:
        raise ValueError(f"num_beams must be a whole number >= 1, got {num_beams!r}.")
    if max_new_tokens is not None and (
        isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 1
    ):
        raise ValueError(f"max_new_tokens must be a whole number >= 1 or None, got {max_new_tokens!r}.")
    sources = [source_ids(model, tokenizer, sentence, number) for number, sentence in enumerate(sentences, 1)]
    return [tokenizer.decode(translate_ids(model, ids, num_beams, length_penalty, max_new_tokens)) for ids in sources]


def translate_ids(
    model: nn.Module,
    ids: Sequence[int],
    num_beams: int = 4,
    length_penalty: float = 0.6,
    max_new_tokens=None,
    interventions: tuple = (),
) -> tuple[int, ...]:
    """The ids ``translate`` writes for one source (its ids): the chosen beam's tokens, the end token included
    when the search ended with it. Settings as for ``translate``; ``interventions``, heads knocked out to zeros
    (``Ablate``) at every step."""
    budget = len(ids) + EXTRA_TOKENS if max_new_tokens is None else max_new_tokens
    result = generate(
        model,
        list(ids),
        budget,
        strategy="beam",
        num_beams=num_beams,
        length_penalty=length_penalty,
        penalty="gnmt",
        interventions=interventions,
    )
    return result.tokens
