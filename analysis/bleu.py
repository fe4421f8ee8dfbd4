"""Translation quality as the field reports it: corpus BLEU and chrF by sacrebleu, against every reference.

BLEU (Papineni et al. 2002) is the geometric mean of the modified n-gram precisions p_1..p_4 of the
translations against their references, times a brevity penalty BP = min(1, exp(1 - r / c)) (c the
translations' length, r the references' closest lengths): BLEU = 100 · BP · exp(sum_n log(p_n) / 4).
sacrebleu's default ("13a") tokenization and its corpus statistics make the number comparable with
published ones. chrF (Popović 2015) is the F-score (β = 2) of character n-grams up to 6.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sacrebleu


@dataclass(frozen=True)
class Quality:
    """Corpus BLEU and chrF (0-100), BLEU's four n-gram precisions (%) and its brevity penalty."""

    bleu: float
    chrf: float
    precisions: tuple[float, float, float, float]
    brevity_penalty: float
    sentences: int


def reference_streams(references: Sequence[Sequence[str]]) -> list[list[str]]:
    """Per-sentence reference lists as sacrebleu's streams: stream r holds each sentence's r-th reference,
    or None where a sentence has fewer (sacrebleu then uses the ones it has)."""
    most = max(len(refs) for refs in references)
    return [[refs[r] if r < len(refs) else None for refs in references] for r in range(most)]


def corpus_quality(translations: Sequence[str], references: Sequence[Sequence[str]]) -> Quality:
    """BLEU and chrF of ``translations`` against every reference of each sentence."""
    if len(translations) != len(references) or not translations:
        raise ValueError("give one list of references for each translation (at least one sentence).")
    streams = reference_streams(references)
    bleu = sacrebleu.corpus_bleu(list(translations), streams)
    chrf = sacrebleu.corpus_chrf(list(translations), streams)
    return Quality(
        float(bleu.score),
        float(chrf.score),
        tuple(float(p) for p in bleu.precisions),
        float(bleu.bp),
        len(translations),
    )


def sentence_bleu(translation: str, references: Sequence[str]) -> float:
    """One sentence's BLEU against its references (smoothed, as sacrebleu does for a sentence: its 'exp')."""
    return float(sacrebleu.sentence_bleu(translation, list(references)).score)
