"""The translation model on the pages: which models translate, what they write, and their held-out quality.

A checkpoint translates when its metadata says ``task="translation"`` (the shipped English-to-French model,
or one trained on the Train page). Translations are deterministic, so each is computed once per (model,
source, beams, knock-outs) and shared by every session (``ui.cache.computation``), read-only.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import runtime  # noqa: F401  (torch threads are set before any torch work)
import torch

from analysis.bleu import Quality, corpus_quality
from transformer import Ablate, translation_split
from transformer.spec import ModelSpec
from transformer.translation import translate_ids

from .cache import computation
from .models import LoadedModel, load_model

SAMPLE_SIZE = 24  # held-out sentences a page translates to show BLEU live
KNOCKED = tuple[tuple[str, tuple[int, ...]], ...]  # ((record name, heads from 0), ...), hashable


def is_translation(loaded: LoadedModel | None) -> bool:
    """Whether a loaded model is a translation checkpoint (its metadata's task)."""
    return loaded is not None and loaded.metadata.get("task") == "translation"


def languages(loaded: LoadedModel) -> tuple[str, str]:
    """The model's source and target languages, as named in its metadata (English and French by default)."""
    names = {"en": "English", "fr": "French"}
    pair = loaded.metadata.get("languages") or {}
    return names.get(pair.get("source"), "English"), names.get(pair.get("target"), "French")


@computation
def translation(spec: ModelSpec, source: tuple[int, ...], num_beams: int = 4, knocked: KNOCKED = ()) -> tuple[int, ...]:
    """The ids the model writes for ``source``: beam search with the paper's length penalty (α = 0.6), greedy
    for one beam; the end token included when it wrote one. ``knocked`` heads are zeroed at every step."""
    interventions = tuple(Ablate(name, heads) for name, heads in knocked if heads)
    with torch.inference_mode():
        return translate_ids(load_model(spec).module, source, num_beams, interventions=interventions)


@dataclass(frozen=True)
class SampleResult:
    """A held-out sample translated: the English, the model's French, every reference, and the corpus scores."""

    english: tuple[str, ...]
    translations: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]
    quality: Quality


def held_out_sample(size: int = SAMPLE_SIZE) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """``size`` held-out English sentences spread evenly over the split (which runs from short to long), with
    their references."""
    held_out = translation_split().held_out
    step = len(held_out) / size
    picks = [int(i * step + step / 2) for i in range(size)]
    return tuple(held_out.english[i] for i in picks), tuple(held_out.references[i] for i in picks)


@computation
def sample_quality(spec: ModelSpec, num_beams: int, knocked: KNOCKED = (), size: int = SAMPLE_SIZE) -> SampleResult:
    """The held-out sample (``held_out_sample``) translated with ``num_beams`` beams and the ``knocked`` heads,
    and its corpus BLEU and chrF against every reference."""
    loaded = load_model(spec)
    english, references = held_out_sample(size)
    written = []
    for sentence in english:
        ids = tuple(loaded.tokenizer.encode(loaded.tokenizer.tokenize(sentence)))
        written.append(loaded.tokenizer.decode(translation(spec, ids, num_beams, knocked)))
    return SampleResult(english, tuple(written), references, corpus_quality(written, references))
