"""An encoder-decoder's inputs and outputs as tables: teacher forcing's shifted decoder input, the ids named
by the tokens seen with them, a distribution's most probable ids and a token's rank, a matrix labelled by
numbered tokens. Pure functions of arrays and token lists (pandas, numpy), shared by the page and its tests."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from transformer import BOS_ID
from transformer.tokenizer import SPECIALS


def shifted_right(tokens: tuple[str, ...], ids: tuple[int, ...]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Teacher forcing's decoder input: [<s>] + target[:-1] (same length as the target)."""
    return (SPECIALS[BOS_ID],) + tuple(tokens[:-1]), (BOS_ID,) + tuple(ids[:-1])


def teacher_forcing_table(target: tuple[str, ...], decoder_input: tuple[str, ...]) -> pd.DataFrame:
    """One row per target position: what the decoder reads there and what it must predict."""
    return pd.DataFrame(
        {
            "position": range(1, len(target) + 1),
            "decoder input (reads)": list(decoder_input),
            "target (must predict)": list(target),
        }
    )


def id_names(*token_lists: tuple[tuple[str, ...], tuple[int, ...]]) -> dict[int, str]:
    """Map ids back to the tokens seen with them (special tokens included); colliding tokens joined by " / "."""
    names: dict[int, list[str]] = {i: [t] for i, t in enumerate(SPECIALS)}
    for tokens, ids in token_lists:
        for token, token_id in zip(tokens, ids):
            seen = names.setdefault(token_id, [])
            if token not in seen:
                seen.append(token)
    return {i: " / ".join(ts) for i, ts in names.items()}


def top_k(
    probabilities: np.ndarray, k: int, names: dict[int, str], spell: Callable[[int], str] | None = None
) -> pd.DataFrame:
    """The ``k`` most probable ids of one position's distribution ``[V]``, most probable first, each named by
    ``names``, else by ``spell`` (a vocabulary's id -> piece), else "id N"."""
    k = max(1, min(int(k), probabilities.shape[-1]))
    order = np.argsort(-probabilities, kind="stable")[:k]
    return pd.DataFrame(
        {
            "token": [names[int(i)] if int(i) in names else spell(int(i)) if spell else f"id {int(i)}" for i in order],
            "id": order.astype(int),
            "probability": probabilities[order].astype(np.float32),
        }
    )


def rank_of(probabilities: np.ndarray, token_id: int) -> int:
    """1-based rank of ``token_id`` in a distribution ``[V]`` (1 = most probable)."""
    return int((probabilities > probabilities[token_id]).sum()) + 1


def numbered(tokens: tuple[str, ...]) -> list[str]:
    """Unique table labels "position: token" (positions from 1), so a repeated word stays its own row or column."""
    return [f"{i}: {t}" for i, t in enumerate(tokens, start=1)]


def matrix_frame(matrix: np.ndarray, rows: tuple[str, ...], cols: tuple[str, ...]) -> pd.DataFrame:
    """A ``[rows, cols]`` matrix as a table labelled by numbered tokens."""
    return pd.DataFrame(matrix, index=numbered(rows), columns=numbered(cols))
