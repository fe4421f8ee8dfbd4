"""Beam search against an exhaustive search over every continuation, scored by plain passes (no KV cache).

With ``num_beams >= V ** (n - 1)`` the beams hold every live prefix of n new tokens over V tokens, so beam
search must return the best of all continuations by ``sum log p / lp(length)``, with either length penalty:
lp = length ** α, or GNMT's (the paper's) lp = ((5 + length) / 6) ** α."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from transformer import BOS_ID, EOS_ID, TransformerConfig, build_model, generate
from transformer.generation import length_penalty_value

FEW = settings(max_examples=4, deadline=None)


def tiny(kind: str, vocab: int, seed: int, end_bias: float = 0.0, max_len: int = 12):
    """A two-layer model over ``vocab`` tokens with sharp distributions; ``end_bias`` is added to the end
    token's logit."""
    config = TransformerConfig(
        d_model=8,
        num_heads=2,
        num_encoder_layers=2,
        num_decoder_layers=2,
        d_ff=16,
        dropout=0.0,
        max_len=max_len,
        src_vocab_size=vocab,
        tgt_vocab_size=vocab,
        positional="learned",
        norm_first=True,
    )
    model = build_model(config, seed=seed, kind=kind).eval()
    with torch.no_grad():
        model.generator.weight.mul_(4.0)
        model.generator.bias[EOS_ID] += end_bias
    return model


def forbid(model, tokens) -> None:
    """Make ``tokens`` impossible: their logits are -inf at every position."""

    def masked(module, inputs, logits):
        logits = logits.clone()
        logits[..., list(tokens)] = float("-inf")
        return logits

    model.generator.register_forward_hook(masked)


def request(kind: str) -> list[int]:
    """A decoder-only model's prompt, or an encoder-decoder's source."""
    return [BOS_ID, 0] if kind == "decoder-only" else [0, BOS_ID, 0]


def next_log_probabilities(model, ids: list[int], rows: list[list[int]]) -> list[list[float]]:
    """log softmax of the last position's logits for each row, from one plain pass without a cache."""
    with torch.inference_mode():
        if model.kind == "decoder-only":
            logits = model(torch.tensor(rows)).logits
        else:
            logits = model(torch.tensor([ids]).expand(len(rows), -1), torch.tensor(rows)).logits
    return torch.log_softmax(logits[:, -1].float(), -1).double().tolist()


def lp(length: int, alpha: float, penalty: str = "power") -> float:
    """The length penalties, written out from their definitions (Wu et al. 2016, eq. 14, for "gnmt")."""
    return length**alpha if penalty == "power" else ((5 + length) / 6) ** alpha


def exhaustive(model, ids: list[int], new_tokens: int, length_penalty: float, penalty: str = "power") -> list[tuple]:
    """Every continuation of at most ``new_tokens`` tokens, ended by the end token or by the budget, as
    ``(sum log p / lp(length), sum log p, tokens)``, best first; impossible tokens left out."""
    start = list(ids) if model.kind == "decoder-only" else [BOS_ID]
    ended, frontier = [], [((), 0.0)]
    for depth in range(new_tokens):
        rows = next_log_probabilities(model, ids, [start + list(tokens) for tokens, _ in frontier])
        going_on = []
        for (tokens, total), log_p in zip(frontier, rows):
            for token, value in enumerate(log_p):
                if value == -math.inf:
                    continue
                extended = (tokens + (token,), total + value)
                (ended if token == EOS_ID or depth == new_tokens - 1 else going_on).append(extended)
        frontier = going_on
    return sorted(
        ((total / lp(len(tokens), length_penalty, penalty), total, tokens) for tokens, total in ended), reverse=True
    )


def chain(out, node: int | None = None) -> tuple[int, ...]:
    """The tokens spelled by ``node`` (by default the chosen one) and its ancestors in the beam tree."""
    node, tokens = out.chosen if node is None else node, []
    while node >= 0:
        tokens.append(out.beams[node].token)
        node = out.beams[node].parent
    return tuple(reversed(tokens))


def finished_ranks(model, ids: list[int], out) -> list[int]:
    """Each finished node's rank among all continuations of the live beams of its step (those the tree did
    not end at the step before), the continuations scored by plain passes."""
    start = list(ids) if model.kind == "decoder-only" else [BOS_ID]
    ranks = []
    for step in sorted({node.step for node in out.beams if node.finished}):
        alive = (
            [-1]
            if step == 0
            else [index for index, node in enumerate(out.beams) if node.step == step - 1 and not node.finished]
        )
        rows = next_log_probabilities(model, ids, [start + list(chain(out, index)) for index in alive])
        totals = [
            (0.0 if index < 0 else out.beams[index].score) + value
            for index, log_p in zip(alive, rows)
            for value in log_p
        ]
        ranks += [
            sum(total > node.score + 1e-5 for total in totals)
            for node in out.beams
            if node.step == step and node.finished
        ]
    return ranks


def assert_optimal(out, optimum: list[tuple], length_penalty: float, penalty: str = "power") -> None:
    """``out`` is the exhaustive optimum: its tokens (or, on a tie to 1e-6, those of an equal one), its score to
    1e-5, spelled by the chosen node's chain, and stopped by the end token exactly when it ends with it."""
    best_normalised = optimum[0][0]
    ties = {tokens for normalised, _, tokens in optimum if normalised >= best_normalised - 1e-6}
    assert out.tokens in ties, (out.tokens, optimum[:3])
    total = out.beams[out.chosen].score
    assert total / lp(len(out.tokens), length_penalty, penalty) == pytest.approx(best_normalised, abs=1e-5)
    assert total == pytest.approx(dict((tokens, t) for _, t, tokens in optimum)[out.tokens], abs=1e-5)
    assert chain(out) == out.tokens
    assert (out.stopped == "end token") == (out.tokens[-1] == EOS_ID)


@pytest.mark.parametrize("use_cache", (True, False))
@pytest.mark.parametrize("penalty", ("power", "gnmt"))
@pytest.mark.parametrize("length_penalty", (0.0, 0.6, 1.0))
@pytest.mark.parametrize("end_reachable", (True, False))
@pytest.mark.parametrize("kind", ("decoder-only", "encoder-decoder"))
@FEW
@given(
    seed=st.integers(0, 10_000),
    shape=st.sampled_from([(3, 1), (3, 3), (4, 2), (4, 3), (5, 2), (5, 3)]),
    end_bias=st.sampled_from([0.0, 2.0]),
)
def test_enough_beams_find_the_exhaustive_optimum(
    kind, end_reachable, length_penalty, penalty, use_cache, seed, shape, end_bias
):
    vocab, new_tokens = shape
    model = tiny(kind, vocab, seed, end_bias)
    if not end_reachable:
        forbid(model, {EOS_ID})
    ids = request(kind)
    out = generate(
        model,
        ids,
        new_tokens,
        strategy="beam",
        num_beams=vocab ** (new_tokens - 1),
        length_penalty=length_penalty,
        penalty=penalty,
        use_cache=use_cache,
    )
    assert_optimal(out, exhaustive(model, ids, new_tokens, length_penalty, penalty), length_penalty, penalty)
    assert end_reachable or EOS_ID not in out.tokens


def test_a_finished_hypothesis_does_not_drop_the_better_live_ones():
    # The end token is admitted at step 0 with log p near -1e4; the live beams must still win at the end.
    model = tiny("decoder-only", 6, seed=0, end_bias=-1e4)
    out = generate(model, [BOS_ID, 5], 2, strategy="beam", num_beams=6)
    assert any(node.finished for node in out.beams) and EOS_ID not in out.tokens
    assert_optimal(out, exhaustive(model, [BOS_ID, 5], 2, 1.0), 1.0)


@pytest.mark.parametrize("seed", (1, 4, 5))
def test_only_an_end_token_among_the_first_num_beams_finishes_a_beam(seed):
    model = tiny("decoder-only", 5, seed, end_bias=1.5)
    out = generate(model, [BOS_ID, 0], 4, strategy="beam", num_beams=3)
    ranks = finished_ranks(model, [BOS_ID, 0], out)
    assert ranks and max(ranks) < 3, ranks
    assert chain(out) == out.tokens


@pytest.mark.parametrize("kind", ("decoder-only", "encoder-decoder"))
@pytest.mark.parametrize("use_cache", (True, False))
def test_an_impossible_token_is_never_in_the_tree(kind, use_cache):
    # Two possible tokens and the end token: fewer than 2 x num_beams candidates at every step.
    model = tiny(kind, 6, seed=3)
    forbid(model, {0, 1, 3})
    ids = request(kind)
    out = generate(model, ids, 3, strategy="beam", num_beams=4, use_cache=use_cache)
    assert not {0, 1, 3} & {node.token for node in out.beams}
    assert all(math.isfinite(node.score) for node in out.beams)
    assert_optimal(out, exhaustive(model, ids, 3, 1.0), 1.0)


def test_the_gnmt_penalty_is_the_papers_formula():
    # ((5 + |Y|) / 6) ** 0.6 by hand: |Y| = 1 gives 1, |Y| = 4 gives 1.5 ** 0.6 = 1.27542..., |Y| = 13 gives 3 ** 0.6.
    assert length_penalty_value(1, 0.6, "gnmt") == pytest.approx(1.0)
    assert length_penalty_value(4, 0.6, "gnmt") == pytest.approx(1.2754245006)
    assert length_penalty_value(13, 0.6, "gnmt") == pytest.approx(1.9331820449)
    assert length_penalty_value(4, 0.6, "power") == pytest.approx(2.2973967099)
    with pytest.raises(ValueError, match="gnmt"):
        length_penalty_value(4, 0.6, "paper")


@pytest.mark.parametrize("length_penalty", (0.0, 0.6, 1.0, 2.0))
def test_the_search_stops_early_only_when_no_live_beam_can_win(length_penalty):
    # The end token is likely: the finished beams settle the search before the budget of 6 new tokens, and no
    # continuation of a beam still live at that point, found by the exhaustive search, beats the returned one.
    model = tiny("decoder-only", 4, seed=0, end_bias=1.0)
    out = generate(model, [BOS_ID, 0], 6, strategy="beam", num_beams=2, length_penalty=length_penalty)
    last = max(node.step for node in out.beams)
    assert last < 5 and chain(out) == out.tokens
    returned = out.beams[out.chosen].score / len(out.tokens) ** length_penalty
    endings = exhaustive(model, [BOS_ID, 0], 6, length_penalty)
    for index, node in enumerate(out.beams):
        if node.step == last and not node.finished:
            prefix = chain(out, index)
            reachable = max(normalised for normalised, _, tokens in endings if tokens[: len(prefix)] == prefix)
            assert reachable <= returned + 1e-6, (prefix, reachable, returned)


def test_the_models_max_len_bounds_the_search_like_the_budget():
    model = tiny("decoder-only", 3, seed=5, max_len=6)
    forbid(model, {EOS_ID})
    ids = [BOS_ID, 0, 1, 0, 1]  # room for 2 new tokens: 5 + 2 = max_len + 1
    out = generate(model, ids, 6, strategy="beam", num_beams=3, length_penalty=0.6)
    assert_optimal(out, exhaustive(model, ids, 2, 0.6), 0.6)
    assert out.stopped == "max_len"


def test_no_new_tokens_returns_the_empty_continuation():
    out = generate(tiny("decoder-only", 4, seed=6), [BOS_ID, 3], 0, strategy="beam", num_beams=2)
    assert out.tokens == () and out.beams == () and out.chosen == -1 and out.stopped == "max_new_tokens"
