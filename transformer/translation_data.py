"""English-French sentence pairs from the Tatoeba Project, split into training and held-out sentences.

Source and licence: ``data/tatoeba-en-fr.tsv.gz`` holds 73,734 pairs ``English<TAB>French`` (UTF-8, gzip),
sentences and translations contributed by the members of the Tatoeba Project (https://tatoeba.org), as
manythings.org/anki publishes them (the first 76,037 lines of its ``fra.txt``, sorted by the length of the
English sentence). Licence: CC BY 2.0 FR (https://creativecommons.org/licenses/by/2.0/fr/). ``ATTRIBUTION``
is the line to name wherever the data, or a model trained on it, is described.

The split is by English sentence: many English sentences have several French translations (tu / vous,
gender), and every translation of a held-out English sentence is held out with it, so no held-out sentence
was seen in training; its translations are its references. The held-out sentences are drawn by a seeded
permutation of the distinct English sentences, so the split is the same on every machine.
"""

from __future__ import annotations

import gzip
import random
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

TATOEBA_PATH = Path(__file__).resolve().parent / "data" / "tatoeba-en-fr.tsv.gz"
DATA_NAME = "Tatoeba English-French sentence pairs (manythings.org/anki fra.txt, first 76,037 lines)"
LICENCE = "CC BY 2.0 FR"
ATTRIBUTION = "Sentence pairs from the Tatoeba Project (tatoeba.org), CC BY 2.0 FR"
SPLIT_SEED = 0
HELD_OUT_SENTENCES = 1500


@dataclass(frozen=True)
class HeldOut:
    """Held-out English sentences and, for each, every French translation in the data (its references)."""

    english: tuple[str, ...]
    references: tuple[tuple[str, ...], ...]

    def __len__(self) -> int:
        return len(self.english)


@dataclass(frozen=True)
class TranslationSplit:
    """``train``: (English, French) pairs; ``held_out``: the held-out English sentences with their references."""

    train: tuple[tuple[str, str], ...]
    held_out: HeldOut


def read_pairs(path: str | Path = TATOEBA_PATH) -> list[tuple[str, str]]:
    """Every (English, French) pair of the file, in its order; a line without exactly one tab is a ValueError."""
    pairs = []
    with gzip.open(path, "rt", encoding="utf-8") as file:
        for number, line in enumerate(file, 1):
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 2 or not all(field.strip() for field in fields):
                raise ValueError(f"{path}, line {number}: expected 'English<TAB>French'.")
            pairs.append((fields[0].strip(), fields[1].strip()))
    return pairs


@lru_cache(maxsize=2)
def translation_split(held_out: int = HELD_OUT_SENTENCES, seed: int = SPLIT_SEED) -> TranslationSplit:
    """The fixed split: ``held_out`` distinct English sentences (drawn by ``random.Random(seed)``) with all
    their translations held out, every other pair for training."""
    pairs = read_pairs()
    translations: dict[str, list[str]] = {}
    for english, french in pairs:
        translations.setdefault(english, []).append(french)
    distinct = list(translations)
    if not 0 < held_out < len(distinct):
        raise ValueError(f"held_out must be between 1 and {len(distinct) - 1}, got {held_out}.")
    chosen = set(random.Random(seed).sample(distinct, held_out))
    kept = sorted(chosen, key=distinct.index)
    return TranslationSplit(
        train=tuple((e, f) for e, f in pairs if e not in chosen),
        held_out=HeldOut(tuple(kept), tuple(tuple(translations[e]) for e in kept)),
    )
