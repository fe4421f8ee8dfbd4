"""generate: greedy, sampling and beam search, with and without the KV cache, against full passes."""

from pathlib import Path

import pytest
import torch

from transformer import EOS_ID, TransformerConfig, build_model, generate, load_checkpoint, make_task, next_distribution

CHECKPOINTS = Path(__file__).resolve().parent.parent / "checkpoints"


def small(kind: str, positional: str = "rotary", norm_first: bool = True, **fields):
    config = TransformerConfig(
        d_model=16,
        num_heads=4,
        num_encoder_layers=2,
        num_decoder_layers=2,
        d_ff=24,
        dropout=0.0,
        max_len=20,
        src_vocab_size=30,
        tgt_vocab_size=30,
        positional=positional,
        norm_first=norm_first,
        **fields,
    )
    return build_model(config, seed=2, kind=kind)


@pytest.mark.parametrize("positional", ("sinusoidal", "learned", "rotary", "alibi", "none"))
@pytest.mark.parametrize("kind", ("decoder-only", "encoder-decoder"))
@pytest.mark.parametrize("strategy", ("greedy", "sample"))
def test_the_cache_changes_neither_the_tokens_nor_the_logits(kind, positional, strategy):
    model = small(kind, positional, num_kv_heads=2)
    ids = [5, 9, 12, 7]
    kwargs = dict(strategy=strategy, temperature=1.3, top_k=12, seed=4)
    cached = generate(model, ids, 12, use_cache=True, **kwargs)
    plain = generate(model, ids, 12, use_cache=False, **kwargs)
    assert cached.tokens == plain.tokens and len(cached.steps) == len(plain.steps) > 0
    for a, b in zip(cached.steps, plain.steps):
        torch.testing.assert_close(a.distribution.logits, b.distribution.logits, atol=1e-5, rtol=1e-5)
        for name in a.attention:
            torch.testing.assert_close(a.attention[name], b.attention[name], atol=1e-5, rtol=1e-5)


def test_each_greedy_step_is_the_argmax_of_a_full_pass():
    model = small("decoder-only")
    out = generate(model, [4, 8], 6)
    sequence = [4, 8]
    with torch.inference_mode():
        for token in out.tokens:
            logits = model(torch.tensor([sequence])).logits[0, -1]
            assert token == int(logits.argmax())
            sequence.append(token)


def test_sampling_is_seeded_and_follows_the_cut_distribution():
    model = small("decoder-only")
    first = generate(model, [4, 8], 10, strategy="sample", temperature=2.0, top_k=3, seed=7)
    assert first.tokens == generate(model, [4, 8], 10, strategy="sample", temperature=2.0, top_k=3, seed=7).tokens
    others = {generate(model, [4, 8], 10, strategy="sample", temperature=2.0, top_k=3, seed=s).tokens for s in range(6)}
    assert len(others) > 1
    for step in first.steps:
        assert step.distribution.kept[step.token] and int(step.distribution.kept.sum()) == 3


def test_the_distribution_applies_temperature_top_k_and_top_p_by_the_formula():
    logits = torch.tensor([2.0, 1.0, 0.5, -1.0, 3.0])
    plain = torch.softmax(logits / 0.5, -1)
    cut = next_distribution(logits, temperature=0.5)
    torch.testing.assert_close(cut.tempered, plain)
    torch.testing.assert_close(cut.probabilities, plain)
    top2 = next_distribution(logits, temperature=0.5, top_k=2)
    assert top2.kept.tolist() == [True, False, False, False, True]
    torch.testing.assert_close(top2.probabilities[[0, 4]], plain[[0, 4]] / plain[[0, 4]].sum())
    probabilities = torch.softmax(logits, -1)  # 0.63, 0.23, 0.09, 0.03, 0.01 sorted
    ordered = probabilities.sort(descending=True).values
    nucleus = next_distribution(logits, top_p=float(ordered[0] + 0.01))  # needs the second token too
    assert int(nucleus.kept.sum()) == 2
    assert int(next_distribution(logits, top_p=float(ordered[0] - 0.01)).kept.sum()) == 1
    assert next_distribution(logits, top_p=1.0).kept.all() and next_distribution(logits, top_k=99).kept.all()
    assert next_distribution(logits, top_p=0.0).kept.tolist() == [False, False, False, False, True]
    greedy = next_distribution(logits, temperature=0.0)
    assert greedy.probabilities.tolist() == [0.0, 0.0, 0.0, 0.0, 1.0]
    for bad in (dict(temperature=-1.0), dict(top_k=0), dict(top_p=1.5)):
        with pytest.raises(ValueError):
            next_distribution(logits, **bad)


def test_one_beam_is_greedy_and_the_beam_score_is_the_sum_of_log_probabilities():
    model = small("decoder-only")
    assert generate(model, [6, 3, 9], 8, strategy="beam", num_beams=1).tokens == generate(model, [6, 3, 9], 8).tokens
    beam = generate(model, [6, 3, 9], 6, strategy="beam", num_beams=4)
    sequence, total = [6, 3, 9], 0.0
    with torch.inference_mode():
        for token in beam.tokens:
            log_p = torch.log_softmax(model(torch.tensor([sequence])).logits[0, -1], -1)
            total += float(log_p[token])
            sequence.append(token)
    assert beam.beams[beam.chosen].score == pytest.approx(total, abs=1e-4)
    node, path = beam.chosen, []
    while node >= 0:
        path.append(beam.beams[node].token)
        node = beam.beams[node].parent
    assert tuple(reversed(path)) == beam.tokens


def test_beam_search_with_and_without_the_cache_agrees():
    model = small("encoder-decoder", "sinusoidal", norm_first=False)
    cached = generate(model, [5, 6, 7, 8], 7, strategy="beam", num_beams=3)
    plain = generate(model, [5, 6, 7, 8], 7, strategy="beam", num_beams=3, use_cache=False)
    assert cached.tokens == plain.tokens
    assert [n.token for n in cached.beams] == [n.token for n in plain.beams]


def test_a_maximum_length_reverse_input_ends_with_the_end_token():
    model, _ = load_checkpoint(CHECKPOINTS / "reverse.safetensors")
    task = make_task("reverse", "encoder-decoder")
    out = generate(model, task.encode_user_input("abcdefghij"), 20)
    assert task.symbols(out.tokens) == list("jihgfedcba") + ["</s>"]
    assert out.tokens[-1] == EOS_ID and out.stopped == "end token"


def test_stops_at_the_models_max_len_and_says_so():
    model = small("decoder-only")
    out = generate(model, list(range(4, 18)), 50)
    assert len(out.prompt) + len(out.tokens) == 21 and out.stopped in ("max_len", "end token")
    empty = generate(model, [], 3)
    assert empty.prompt == (1,) and len(empty.tokens) <= 3


def test_bad_requests_say_what_to_change():
    model = small("decoder-only")
    for kwargs, message in (
        (dict(strategy="nucleus"), "strategy"),
        (dict(max_new_tokens=-1), "max_new_tokens"),
        (dict(temperature=-0.5), "temperature"),
        (dict(ids=[99]), "token ids"),
        (dict(strategy="beam", num_beams=0), "num_beams"),
    ):
        arguments = dict(ids=[4, 5], max_new_tokens=3) | kwargs
        with pytest.raises(ValueError, match=message):
            generate(model, **arguments)
    with pytest.raises(ValueError, match="does not generate"):
        generate(small("encoder-only"), [4, 5], 3)
