"""Text generation, token by token: greedy, sampling (temperature, top-k, top-p) and beam search.

A decoder-only model continues ``ids`` (an empty prompt starts from ``<s>``); an encoder-decoder
reads ``ids`` as its source and writes from ``<s>``. Each step runs the model on what it has (with
the KV cache, only on the new token), reads the last position's logits ``z``, and picks:

- greedy: ``argmax z``;
- sample: a draw from ``softmax(z / T)`` cut to the top k and the top p and renormalised
  (``sampling.next_distribution``), from a generator seeded with ``seed``;
- beam: the ``num_beams`` best continuations by the sum of log-probabilities; the end token finishes
  a hypothesis, and finished and live ones compete by ``sum log p / lp(length)`` (``length`` the number
  of new tokens), with one of two length penalties (``PENALTIES``, ``penalty=``): "power",
  lp = length ** α (Hugging Face's), or "gnmt", lp = ((5 + length) / 6) ** α, the penalty of Google's
  neural machine translation (Wu et al. 2016), which "Attention Is All You Need" uses with α = 0.6.

It stops after the end token, after ``max_new_tokens``, or when the next step would read more
than the model's ``max_len`` tokens, and says which.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from .kv_cache import KVCache
from .sampling import Distribution, check_sampling, next_distribution
from .tokenizer import BOS_ID, EOS_ID

STRATEGIES = ("greedy", "sample", "beam")
# The length penalties lp(|Y|) that divide a hypothesis's sum of log-probabilities, by name.
PENALTIES = {
    "power": "|Y|^α",
    "gnmt": "((5 + |Y|) / 6)^α (GNMT; the paper's)",
}


def length_penalty_value(length: int, alpha: float, penalty: str = "power") -> float:
    """lp(|Y|) for ``length`` new tokens (at least 1): ``length ** alpha`` ("power") or
    ``((5 + length) / 6) ** alpha`` ("gnmt", Wu et al. 2016, eq. 14). Both are 1 at α = 0 and grow with
    the length for α > 0."""
    if penalty == "gnmt":
        return ((5 + length) / 6) ** alpha
    if penalty == "power":
        return max(1, length) ** alpha
    raise ValueError(f"penalty={penalty!r} is unknown; use one of {sorted(PENALTIES)}.")


@dataclass(frozen=True)
class Step:
    """One generated token: the distribution it was chosen from and the attention rows ``[H, t]`` of the
    position that predicted it, by record name (self- and, for an encoder-decoder, cross-attention)."""

    distribution: Distribution
    token: int
    attention: dict[str, torch.Tensor]


@dataclass(frozen=True)
class BeamNode:
    """A node of the beam search's tree: its step (from 0), its parent node (-1 for the start), its
    token, the sum of log-probabilities up to it, and whether it ended with the end token."""

    step: int
    parent: int
    token: int
    score: float
    finished: bool = False


@dataclass(frozen=True)
class Generation:
    """``tokens`` written after the ``prompt`` (the decoder's start for an encoder-decoder), the steps
    (greedy and sampling), why it stopped, and for beam search the tree and the chosen node."""

    prompt: tuple[int, ...]
    tokens: tuple[int, ...]
    steps: tuple[Step, ...]
    stopped: str
    beams: tuple[BeamNode, ...] = ()
    chosen: int = -1


class _Runner:
    """The model on the rows generated so far ``[R, t]``: logits ``[R, V]`` of the last position and, when
    ``attention`` (a step's record keeps them), its attention rows; with a cache, only the tokens it has not
    read yet go in."""

    def __init__(
        self,
        model: nn.Module,
        source: torch.Tensor | None,
        use_cache: bool,
        interventions: tuple = (),
        attention: bool = True,
    ):
        self.model, self.source, self.interventions, self.attention = model, source, interventions, attention
        self.cache = KVCache() if use_cache else None

    def __call__(self, rows: torch.Tensor) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        fed = rows if self.cache is None else rows[:, self.cache.positions :]
        asks = dict(return_attention=self.attention, cache=self.cache, interventions=self.interventions)
        if self.model.kind == "encoder-decoder":
            out = self.model(self.source.expand(rows.shape[0], -1), fed, **asks)
        else:
            out = self.model(fed, **asks)
        weights = out.attention.weights.items() if self.attention else ()
        rows_of_last = {name: w[:, :, -1, :] for name, w in weights if name.startswith("decoder.")}
        return out.logits[:, -1], rows_of_last

    def keep(self, rows: torch.Tensor) -> None:
        if self.cache is not None:
            self.cache.reorder(rows)


def _start(model: nn.Module, ids) -> tuple[list[int], torch.Tensor | None]:
    ids = [int(i) for i in ids]
    vocab = model.config.src_vocab_size if model.kind == "encoder-decoder" else model.config.tgt_vocab_size
    if any(not 0 <= i < vocab for i in ids):
        raise ValueError(f"token ids must be in 0..{vocab - 1}.")
    if model.kind == "encoder-decoder":
        if not ids:
            raise ValueError("an encoder-decoder needs a source: give at least one token.")
        if len(ids) > model.config.max_len:
            raise ValueError(f"the source has {len(ids)} tokens; this model reads at most {model.config.max_len}.")
        return [BOS_ID], torch.tensor([ids])
    if model.kind != "decoder-only":
        raise ValueError(f"a {model.kind} model does not generate text; use a decoder-only or an encoder-decoder.")
    return (ids or [BOS_ID]), None


@torch.inference_mode()
def generate(
    model: nn.Module,
    ids,
    max_new_tokens: int,
    strategy: str = "greedy",
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    num_beams: int = 3,
    seed: int = 0,
    use_cache: bool = True,
    length_penalty: float = 1.0,
    eos_id: int = EOS_ID,
    penalty: str = "power",
    interventions: tuple = (),
) -> Generation:
    """Generate up to ``max_new_tokens`` tokens (see the module's description). Bad settings: ValueError.
    ``length_penalty`` is α of the beam's length penalty ``penalty`` (a key of ``PENALTIES``).
    ``interventions``: zero ablations (``Ablate(name, heads)``) that act on every step's pass; a head knocked
    out to zeros gives the same output whether the step reads the KV cache or not, so the tokens do too (a mean
    or resample ablation depends on the positions a pass holds, and is refused)."""
    if any(getattr(intervention, "how", None) != "zero" for intervention in interventions):
        raise ValueError("generate takes zero ablations only (Ablate(name, heads, how='zero')).")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy={strategy!r} is unknown; use one of {STRATEGIES}.")
    if penalty not in PENALTIES:
        raise ValueError(f"penalty={penalty!r} is unknown; use one of {sorted(PENALTIES)}.")
    if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 0:
        raise ValueError(f"max_new_tokens must be a whole number >= 0, got {max_new_tokens!r}.")
    check_sampling(temperature, top_k, top_p)
    prompt, source = _start(model, ids)
    # a beam's nodes keep no attention rows: its passes keep none
    runner = _Runner(model, source, use_cache, tuple(interventions), attention=strategy != "beam")
    if strategy == "beam":
        if isinstance(num_beams, bool) or not isinstance(num_beams, int) or num_beams < 1:
            raise ValueError(f"num_beams must be a whole number >= 1, got {num_beams!r}.")
        score = _Penalty(length_penalty, penalty)
        return _beam_search(model, runner, prompt, max_new_tokens, num_beams, score, eos_id)
    generator = torch.Generator().manual_seed(int(seed))
    sequence, steps, stopped = list(prompt), [], "max_new_tokens"
    for _ in range(max_new_tokens):
        if len(sequence) > model.config.max_len:
            stopped = "max_len"
            break
        logits, attention = runner(torch.tensor([sequence]))
        if strategy == "greedy":
            distribution = next_distribution(logits[0], 0.0)
            token = int(logits[0].argmax())
        else:
            distribution = next_distribution(logits[0], temperature, top_k, top_p)
            token = int(torch.multinomial(distribution.probabilities, 1, generator=generator))
        steps.append(Step(distribution, token, {name: rows[0] for name, rows in attention.items()}))
        sequence.append(token)
        if token == eos_id:
            stopped = "end token"
            break
    return Generation(tuple(prompt), tuple(sequence[len(prompt) :]), tuple(steps), stopped)


@dataclass(frozen=True)
class _Hypothesis:
    """A beam: the tokens written after the prompt, their sum of log-probabilities and its node in the tree."""

    tokens: tuple[int, ...]
    score: float
    node: int


@dataclass(frozen=True)
class _Penalty:
    """A length penalty: α and the form of lp (a key of ``PENALTIES``)."""

    alpha: float
    form: str

    def lp(self, length: int) -> float:
        return length_penalty_value(length, self.alpha, self.form)


def _normalised(hypothesis: _Hypothesis, penalty: _Penalty) -> float:
    """The length-normalised score ``sum log p / lp(length)``, ``length`` the number of new tokens, the end
    token included (at least 1, so an empty continuation is not divided by 0)."""
    return hypothesis.score / penalty.lp(max(1, len(hypothesis.tokens)))


def _best_reachable(hypothesis: _Hypothesis, longest: int, penalty: _Penalty) -> float:
    """The highest normalised score a live hypothesis (sum ``s``, ``length`` new tokens) can still reach with
    at most ``longest`` new tokens: ``s / max(lp(length + 1), lp(longest))``.

    Each continuation to ``l`` tokens (``length < l <= longest``) adds log-probabilities ``<= 0``, so its sum
    is ``s' <= s <= 0`` and ``s' / lp(l) <= s / lp(l)``; dividing a number ``<= 0`` by a larger positive
    denominator brings it closer to 0, so the bound takes the largest ``lp(l)``. Both penalties are monotone
    in ``l`` (rising for α > 0, falling for α < 0), so that largest is at one end: ``lp(longest)`` or
    ``lp(length + 1)``. With α = 0 it is ``s``: no continuation beats it."""
    length = len(hypothesis.tokens)
    return hypothesis.score / max(penalty.lp(length + 1), penalty.lp(max(1, longest)))


def _settled(
    alive: list[_Hypothesis], finished: list[_Hypothesis], num_beams: int, longest: int, penalty: _Penalty
) -> bool:
    """Whether the search can stop: ``num_beams`` hypotheses have finished and no live one can beat the worst of
    them, ``max over alive of _best_reachable <= min over finished of s / lp(length)``."""
    if len(finished) < num_beams:
        return False
    worst = min(_normalised(hypothesis, penalty) for hypothesis in finished)
    return all(_best_reachable(hypothesis, longest, penalty) <= worst for hypothesis in alive)


def _extend(
    alive: list[_Hypothesis], log_p: torch.Tensor, num_beams: int, eos_id: int, step: int, nodes: list[BeamNode]
) -> tuple[list[_Hypothesis], list[int], list[_Hypothesis]]:
    """One step: the live hypotheses that go on, the rows of ``alive`` they come from, and those that end.

    The continuations are ranked by ``s + log p(token)``; of the first ``2 x num_beams`` the end token
    finishes its hypothesis only if it ranks among the first ``num_beams``, and the first ``num_beams`` other
    tokens go on. A token of log-probability ``-inf`` (impossible) is never taken. Each kept continuation
    becomes a node, appended to ``nodes``."""
    totals = torch.tensor([hypothesis.score for hypothesis in alive], dtype=torch.float64)[:, None] + log_p.double()
    ranked = totals.flatten().topk(min(2 * num_beams, totals.numel())).indices.tolist()  # best first
    going_on, parents, ended = [], [], []
    for rank, flat in enumerate(ranked):
        if len(going_on) == num_beams:
            break
        row, token = divmod(flat, totals.shape[1])
        score = float(totals[row, token])
        if not score > float("-inf") or (token == eos_id and rank >= num_beams):
            continue
        nodes.append(BeamNode(step, alive[row].node, token, score, token == eos_id))
        hypothesis = _Hypothesis(alive[row].tokens + (token,), score, len(nodes) - 1)
        if token == eos_id:
            ended.append(hypothesis)
        else:
            going_on.append(hypothesis)
            parents.append(row)
    return going_on, parents, ended


def _beam_search(
    model, runner: _Runner, prompt: list[int], max_new_tokens: int, num_beams: int, penalty: _Penalty, eos_id: int
) -> Generation:
    """Beam search, as in Hugging Face's ``BeamSearchScorer``: ``num_beams`` live hypotheses, ranked by their
    sum ``s`` of log-probabilities, and at most ``num_beams`` finished ones (ended by the end token), ranked by
    ``s / lp(length)`` (``_normalised``). At the end finished and live hypotheses compete by that
    normalised score and the best is returned (ties go to a finished one).

    The search stops early once ``num_beams`` have finished and no live hypothesis can beat the worst of them:
    with log p ``<= 0`` a continuation's normalised score is at most ``_best_reachable`` (``s / lp(longest)``
    for α >= 0), ``longest`` the most new tokens the search can write (the budget, or the
    model's ``max_len + 1`` minus the prompt). ``stopped`` says why the returned text ends."""
    longest = min(max_new_tokens, max(0, model.config.max_len + 1 - len(prompt)))
    nodes: list[BeamNode] = []
    alive, finished = [_Hypothesis((), 0.0, -1)], []
    ran_out = "max_new_tokens"
    for step in range(max_new_tokens):
        if len(prompt) + step > model.config.max_len:
            ran_out = "max_len"
            break
        if _settled(alive, finished, num_beams, longest, penalty):
            alive = []
            break
        logits, _ = runner(torch.tensor([prompt + list(hypothesis.tokens) for hypothesis in alive]))
        going_on, parents, ended = _extend(alive, torch.log_softmax(logits.float(), -1), num_beams, eos_id, step, nodes)
        finished = sorted(finished + ended, key=lambda h: _normalised(h, penalty), reverse=True)[:num_beams]
        if not going_on:  # nothing can follow: the last live beams stand only if none has finished
            alive = [] if finished else alive
            break
        runner.keep(torch.tensor(parents))
        alive = going_on
    best = max(finished + alive, key=lambda h: _normalised(h, penalty))
    stopped = "end token" if best.node >= 0 and nodes[best.node].finished else ran_out
    return Generation(tuple(prompt), best.tokens, (), stopped, tuple(nodes), best.node)
