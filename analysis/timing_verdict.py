"""A verdict on measured times only where repeated measurements agree on it.

Times measured on a shared machine move from run to run: a single comparison (one variant against another, one
layer against another) can fall on either side of a threshold, and two servers, or one server a few minutes
apart, would then state opposite verdicts. ``steady_side`` compares paired measurements round by round (both
sides timed in the same round) and answers only when every round lands on the same side of the threshold, clear
of it by ``MARGIN``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

MARGIN = 0.05  # a round counts on one side when it is at least 5 % clear of the threshold


def steady_side(ratios: Sequence[float], threshold: float, margin: float = MARGIN) -> bool | None:
    """For the paired ratios ``[R]`` of R rounds (e.g. one variant's time over another's, measured in the same
    round): True when every ratio <= threshold (1 - margin), False when every ratio >= threshold (1 + margin),
    None when the rounds disagree or come within the margin of the threshold (no verdict)."""
    values = np.asarray(ratios, dtype=np.float64)
    if values.size == 0 or not np.isfinite(values).all():
        raise ValueError("a verdict needs one or more finite ratios")
    if (values <= threshold * (1 - margin)).all():
        return True
    if (values >= threshold * (1 + margin)).all():
        return False
    return None


def spread(values: Sequence[float]) -> str:
    """``"a to b"`` (two decimals) for the lowest and highest of ``values``, or the one value when they agree."""
    low, high = float(np.min(values)), float(np.max(values))
    return f"{low:.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f} to {high:.2f}"
