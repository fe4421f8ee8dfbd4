"""What a figure shows, for its title: computed from the numbers the figure draws (numpy and the package's
statistics; no Streamlit), shared by the pages that draw them."""

from __future__ import annotations

import numpy as np

from analysis.head_stats import head_stats
from viz.labels import tick_label


def standout_heads(weights: np.ndarray, first_token: str | None) -> str:
    """The heads that stand out in ``weights`` ``[L, H, T, T]`` (rows sum to 1), as a title's ending: the head
    that puts the most on the previous token (mean over queries i >= 2 of a_{i,i-1}) and, when the first key is a
    token (``first_token`` its name; None when the figure's first column is not one token), the head that puts the
    most on it (mean over queries of a_{i,1}); each with that mean. Nothing for fewer than two tokens."""
    if weights.shape[-1] < 2:
        return ""
    stats = head_stats(np.nan_to_num(weights))
    said = []
    first = None if first_token is None else f"“{tick_label(first_token)}”"  # a token is text, never markup
    for column, what in (("on previous token", "the previous token"), ("on first token", first)):
        if what is None:
            continue
        best = stats.loc[stats[column].idxmax()]
        said.append(f"layer {best['layer']:.0f} · head {best['head']:.0f} the most on {what} ({best[column]:.2f})")
    return ": " + ", ".join(said) + " of a row on average"


def most_read_key(weights: np.ndarray, tokens: list[str]) -> str:
    """The key ``weights`` ``[T, T]`` (rows sum to 1; masked cells NaN or 0) put the most on, as a title's ending:
    the largest mean over queries of a_{i,j}, with that mean."""
    means = np.nan_to_num(np.asarray(weights, np.float64)).mean(0)  # [T]
    key = int(means.argmax())
    return f": the key read the most is “{tick_label(tokens[key])}” ({means[key]:.2f} of a row on average)"


def focus_finding(weights: np.ndarray) -> str:
    """What a layer's heads ``[H, Lq, Lk]`` do differently, as a title's ending: the head whose rows put the most on
    their strongest key (the mean over queries of max_j A_ij) and the head that puts the least, with those means
    (every head as focused where the two read the same); nothing for a single head."""
    if weights.shape[0] < 2:
        return ""
    strongest = np.nan_to_num(weights).max(-1).mean(-1)  # [H]
    most, least = int(strongest.argmax()), int(strongest.argmin())
    if round(float(strongest[most]), 2) == round(float(strongest[least]), 2):  # as written, no head stands out
        return f": every head as focused (a row's largest weight {strongest[most]:.2f} on average)"
    return (
        f": head {most + 1} the most focused (a row's largest weight {strongest[most]:.2f} on average), "
        f"head {least + 1} the broadest ({strongest[least]:.2f})"
    )


def diagonal_finding(similarity: np.ndarray) -> str:
    """How a position similarity ``[P, P]`` falls with the offset k = q - p, as a title's ending: the mean along the
    main diagonal, along the first one off it, and the lowest diagonal's mean with its offset; said to be means
    unless every diagonal is constant (as for sinusoidal encodings of an even d_model, whose main one is d_model / 2)."""
    means = [float(np.diagonal(similarity, k).mean()) for k in range(len(similarity))]  # [P], k = 0 .. P - 1
    if len(means) < 2:
        return f": {means[0]:.1f} for its one position"
    lowest = int(np.argmin(means[1:])) + 1
    constant = all(np.ptp(np.diagonal(similarity, k)) < 1e-3 for k in range(len(similarity)))  # rounding apart
    return f": {means[0]:.1f} where p = q, {means[1]:.1f} one apart, lowest {means[lowest]:.1f} at {lowest} apart" + (
        "" if constant else " (means along the diagonals)"
    )


def strongest_line(weights: np.ndarray, tokens: list[str], heads: list[int], query: int | None) -> str:
    """The strongest line a head view draws, as a title's ending: the largest a_ij over the heads ``heads`` of a
    layer's ``weights [H, T, T]`` (over query ``query``'s row alone when one is picked), with its query, key and
    head (1-based, named when several are drawn) and that weight."""
    shown = np.nan_to_num(np.asarray(weights, np.float64)[heads])  # [h, T, T]
    queries = [query] if query is not None else list(range(shown.shape[1]))
    head, row, key = np.unravel_index(int(shown[:, queries].argmax()), shown[:, queries].shape)
    which = "" if len(heads) == 1 else f" in head {heads[head] + 1}"
    line = f"“{tick_label(tokens[queries[row]])}” → “{tick_label(tokens[key])}”"
    return f": the strongest line {line}{which} ({shown[head, queries[row], key]:.2f})"


def ink_finding(shares: np.ndarray, inked: np.ndarray, names: list[str] | None = None) -> str:
    """How much of a query's weight over an image's patches falls on the digit, as a title's ending: ``shares``
    (one per map, ``names`` naming them when there are several) from ``analysis.vision.ink_share`` over the
    inked patches ``inked [g, g]``; the map that puts the most there."""
    count, patches = int(inked.sum()), inked.size
    if count in (0, patches):
        return ": no patch holds ink" if count == 0 else ": every patch holds ink"
    best = int(np.argmax(shares))
    who = "" if names is None else f"{names[best]} puts the most on the digit, "
    return f": {who}{shares.flat[best]:.0%} of its patch weight on the {count} of {patches} patches with ink"


def value_range(values: np.ndarray) -> str:
    """The range of a map's finite values (masked cells, -inf or NaN, left out), as a title's ending, negative
    numbers with a minus sign as the colour bar writes them."""
    finite = np.asarray(values, np.float64)[np.isfinite(values)]
    if not finite.size:
        return ": every cell masked"
    low, high = (f"{value:.2f}".replace("-", "−") for value in (finite.min(), finite.max()))
    return f": from {low} to {high}"
