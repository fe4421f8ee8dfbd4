"""Word order: which permutation turns one sentence's tokens into another's."""

from __future__ import annotations

from collections.abc import Sequence


def reorder_mapping(tokens_a: Sequence[str], tokens_b: Sequence[str]) -> tuple[int, ...] | None:
    """``perm`` with ``tokens_b[j] == tokens_a[perm[j]]``, or None if B is not a reordering of A.

    Tokens are compared exactly (the tokenizer is case-sensitive: "The" and "the"
    are different tokens). A repeated token is matched occurrence by occurrence,
    in order; its copies carry identical embeddings, so any matching is as good.
    """
    if sorted(tokens_a) != sorted(tokens_b):
        return None
    unused: dict[str, list[int]] = {}
    for i, token in enumerate(tokens_a):
        unused.setdefault(token, []).append(i)
    return tuple(unused[token].pop(0) for token in tokens_b)
