"""What self-attention costs against a recurrence: steps one after another, and time measured at several lengths.

A recurrent layer, h_t = tanh(x_t W + h_{t-1} U + b), needs n - 1 steps one after another to carry the first
token's information to the n-th token, and step t cannot start before step t - 1 has finished. Self-attention
connects every pair of tokens in one step, out_i = sum_j a_ij v_j, and computes all n positions at once in a few
matrix products, at the price of n^2 scores per head, each a d_k-long dot product: O(n^2 d) work per layer
against the recurrence's O(n d^2) (the paper's Table 1).

``measure_cost`` times one layer of each on this machine, in CPU time of the calling thread with torch on one
thread: on a shared machine the wall clock also counts the time other programs hold the core, which stretches
long runs more than short ones and bends the fit. Every round times each length once, and a length's time is
its best round.
``fit_power_law`` fits t = c n^p by least squares on log t = log c + p log n; p is the measured exponent.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from analysis.timing_verdict import steady_side
from transformer import MultiHeadAttention

LENGTHS = (256, 512, 1024, 2048)


@dataclass(frozen=True)
class PowerLaw:
    """t = coefficient * n ** exponent."""

    exponent: float
    coefficient: float

    def __call__(self, n) -> np.ndarray:
        return self.coefficient * np.asarray(n, dtype=np.float64) ** self.exponent


def fit_power_law(lengths: Sequence[float], seconds: Sequence[float]) -> PowerLaw:
    """The least-squares line through (log n, log t) ``[L]`` each: its slope is the exponent p, and
    exp(intercept) the coefficient c of t = c n^p. Needs two or more distinct lengths and positive times."""
    n, t = np.asarray(lengths, dtype=np.float64), np.asarray(seconds, dtype=np.float64)
    if n.shape != t.shape or len(np.unique(n)) < 2:
        raise ValueError("a power law needs times at two or more distinct lengths")
    if (n <= 0).any() or (t <= 0).any() or not np.isfinite(t).all():
        raise ValueError("lengths and times must be positive and finite")
    slope, intercept = np.polyfit(np.log(n), np.log(t), 1)
    return PowerLaw(float(slope), float(math.exp(intercept)))


def sequential_steps(lengths: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Steps one after another that carry token 1's information to token n ``[L]`` each: a recurrence
    needs n - 1, self-attention 1 (every query reads every key directly)."""
    n = np.asarray(lengths, dtype=np.int64)
    return n - 1, np.ones_like(n)


@dataclass(frozen=True)
class CostMeasurement:
    """Seconds for one layer on one sequence of each length ``lengths [L]``: ``attention [L]`` (one head
    of width ``d_model``) and ``recurrence [L]`` (a tanh RNN of the same width), best of ``repeats`` rounds."""

    lengths: np.ndarray
    attention: np.ndarray
    recurrence: np.ndarray
    d_model: int
    repeats: int
    attention_rounds: np.ndarray | None = None  # [repeats, L]: each round's time, the best of which is ``attention``
    recurrence_rounds: np.ndarray | None = None  # [repeats, L], the same for the recurrence

    def exponent_range(self, layer: str) -> tuple[float, float]:
        """The lowest and highest exponent p fitted to one round's times of ``layer`` ("attention" or
        "recurrence"): how far a single measurement's slope moves."""
        rounds = getattr(self, f"{layer}_rounds")
        fits = [fit_power_law(self.lengths, times).exponent for times in rounds]
        return min(fits), max(fits)

    def attention_dearer(self) -> list[bool | None]:
        """At each length: True where attention took longer than the recurrence in every round (5 % clear),
        False where it took less in every round, None where the rounds do not agree (``steady_side``)."""
        ratios = self.attention_rounds / self.recurrence_rounds  # [repeats, L], both timed in the same round
        return [
            None if (side := steady_side(ratios[:, i], 1.0)) is None else not side for i in range(len(self.lengths))
        ]

    @property
    def attention_fit(self) -> PowerLaw:
        return fit_power_law(self.lengths, self.attention)

    @property
    def recurrence_fit(self) -> PowerLaw:
        return fit_power_law(self.lengths, self.recurrence)

    @property
    def scores(self) -> np.ndarray:
        """The attention scores a head computes at each length: n^2 ``[L]``."""
        return self.lengths.astype(np.int64) ** 2


def _round_times(
    layers: dict[str, Callable[[torch.Tensor], object]],
    inputs: dict[int, torch.Tensor],
    repeats: int,
    clock: Callable[[], float],
) -> dict[str, np.ndarray]:
    """Each layer's time at each length in each of ``repeats`` rounds ``[repeats, L]``, the layers timed in turn
    at each length; one untimed round first."""
    lengths = list(inputs)
    rounds = {name: np.zeros((repeats, len(lengths))) for name in layers}
    for round_ in range(repeats + 1):
        for i, n in enumerate(lengths):
            for name, layer in layers.items():
                start = clock()
                layer(inputs[n])
                if round_:  # round 0 warms up: allocations, first-call dispatch
                    rounds[name][round_ - 1, i] = clock() - start
    return rounds


def measure_cost(
    lengths: Sequence[int] = LENGTHS,
    d_model: int = 64,
    repeats: int = 7,
    seed: int = 0,
    clock: Callable[[], float] = time.thread_time,
) -> CostMeasurement:
    """Time one self-attention layer (``MultiHeadAttention(d_model, 1)``: Q, K, V, n^2 scores, softmax, the
    weighted sum and W^O) and one recurrent layer (``torch.nn.RNN``, tanh) on a random sequence
    ``[1, n, d_model]`` of each length, in inference mode, with torch on one thread (as the app runs it; the
    setting is put back after), by ``clock`` (seconds; the calling thread's CPU time by default)."""
    generator = torch.Generator().manual_seed(seed)
    torch_state = torch.random.get_rng_state()
    torch.manual_seed(seed)
    attention = MultiHeadAttention(d_model, 1).eval()
    recurrent = torch.nn.RNN(d_model, d_model, batch_first=True).eval()
    torch.random.set_rng_state(torch_state)  # the caller's random stream is left as it was
    inputs = {int(n): torch.randn(1, int(n), d_model, generator=generator) for n in lengths}
    layers = {"attention": lambda x: attention(x, x, x), "recurrence": recurrent}
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # all the work on the calling thread, whose CPU time is the clock
    try:
        with torch.inference_mode():
            rounds = _round_times(layers, inputs, max(1, int(repeats)), clock)
    finally:
        torch.set_num_threads(threads)
    return CostMeasurement(
        np.asarray(list(inputs), dtype=np.int64),
        rounds["attention"].min(axis=0),
        rounds["recurrence"].min(axis=0),
        d_model,
        max(1, int(repeats)),
        rounds["attention"],
        rounds["recurrence"],
    )
