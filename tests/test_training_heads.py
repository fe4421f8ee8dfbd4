"""Attention-only models and head scores: no feed-forward, their parameters counted, their checkpoints
round-tripped; the head scores of hand-built attention. Expected values are computed here, never taken from the
code under test."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from transformer import (
    ForwardRecord,
    TransformerConfig,
    build_model,
    load_checkpoint,
    make_task,
    save_checkpoint,
    score_heads,
)

torch.set_num_threads(1)


def test_attention_only_layers_have_no_feed_forward_and_count_parameters():
    d, vocab, max_len, layers = 16, 30, 12, 2
    config = TransformerConfig(
        d_model=d,
        num_heads=2,
        num_decoder_layers=layers,
        num_encoder_layers=layers,
        d_ff=64,
        positional="learned",
        norm_first=True,
        max_len=max_len,
        src_vocab_size=vocab,
        tgt_vocab_size=vocab,
        feed_forward=False,
        dropout=0.0,
    )
    model = build_model(config, seed=0, kind="decoder-only")
    assert not any("feed_forward" in n or "norm2" in n for n, _ in model.named_parameters())
    # embeddings V d + positions max_len d; per layer 4 (d^2 + d) + LayerNorm 2d; final LayerNorm 2d; head d V + V
    expected = vocab * d + max_len * d + layers * (4 * (d * d + d) + 2 * d) + 2 * d + d * vocab + vocab
    assert sum(p.numel() for p in model.parameters()) == expected
    full = build_model(replace(config, feed_forward=True), seed=0, kind="decoder-only")
    assert sum(p.numel() for p in full.parameters()) - expected == layers * (2 * d * 64 + 64 + d + 2 * d)
    with torch.inference_mode():
        internals = model(torch.randint(4, vocab, (2, 7)), return_internals=True).attention.internals
    for i in range(layers):
        assert torch.equal(
            internals[f"decoder.layers.{i}.after_feed_forward"], internals[f"decoder.layers.{i}.after_self_attn"]
        )
        assert f"decoder.layers.{i}.feed_forward.hidden" not in internals
    with pytest.raises(ValueError):
        TransformerConfig(feed_forward="no")


@pytest.mark.parametrize("norm_first", [True, False])
def test_attention_only_encoder_decoder_round_trips(tmp_path, norm_first):
    config = TransformerConfig(
        d_model=8,
        num_heads=2,
        d_ff=16,
        max_len=8,
        src_vocab_size=30,
        tgt_vocab_size=30,
        feed_forward=False,
        norm_first=norm_first,
    )
    model = build_model(config, seed=3, kind="encoder-decoder")
    assert model.decoder.layers[0].norm3 is None and model.encoder.layers[0].norm2 is None
    save_checkpoint(model, tmp_path / "attention-only.safetensors", {"tokenizer": make_task("copy").tokenizer})
    loaded, metadata = load_checkpoint(tmp_path / "attention-only.safetensors")
    assert metadata["config"].feed_forward is False
    src, tgt = torch.tensor([[4, 5, 6, 7]]), torch.tensor([[1, 4, 5]])
    with torch.inference_mode():
        a, b = model(src, tgt, return_attention=True), loaded(src, tgt, return_attention=True)
    assert torch.equal(a.logits, b.logits) and "decoder.layers.1.cross_attn" in b.attention.weights


def _one_hot_record(names: list[str], heads: int, length_q: int, length_k: int, keys: dict) -> ForwardRecord:
    """A record whose head 0 puts all weight on keys[q] (q -> key) and whose head 1 is uniform over 0..q."""
    record = ForwardRecord()
    for name in names:
        weights = torch.zeros(1, heads, length_q, length_k)
        for q in range(length_q):
            weights[0, 0, q, keys.get(q, 0)] = 1.0
            weights[0, 1, q, : min(q, length_k - 1) + 1] = 1.0 / (min(q, length_k - 1) + 1)
        record.add(name, weights)
    return record


def test_scores_of_hand_built_attention():
    names = ["decoder.layers.0.self_attn", "decoder.layers.1.self_attn"]
    induction = make_task("induction")
    probe = induction.probe()  # "qz" + "algorithm" repeated: period 9
    keys = {q: q - 9 + 1 for q in range(11, 32)}  # the token after the earlier occurrence
    scores = score_heads(induction, _one_hot_record(names, 2, 32, 32, keys), probe)
    assert scores.shape == (2, 2) and scores[:, 0] == pytest.approx([1.0, 1.0])
    # uniform head: per repeated query q the earlier copies of x[q] sit at q-9, q-18, q-27 when those are
    # >= 2 (positions 0 and 1 hold "q" and "z"), so the keys after them are q-8, q-17, q-26 when >= 3
    expected = np.mean([sum(1 for k in (q - 8, q - 17, q - 26) if k >= 3) / (q + 1) for q in range(11, 32)])
    assert scores[0, 1] == pytest.approx(expected, abs=1e-6)
    previous = score_heads(
        induction, _one_hot_record(names, 2, 32, 32, {q: q - 1 for q in range(1, 32)}), probe, "previous-token"
    )
    assert previous[:, 0] == pytest.approx([1.0, 1.0])

    reverse = make_task("reverse")
    probe = reverse.probe()  # "algorithm<s>mhtirogla": n = 9, queries 9..17
    mirrored = {9 + j: 8 - j for j in range(9)}  # writing output j: source n - 1 - j
    assert score_heads(reverse, _one_hot_record(names, 2, 19, 19, mirrored), probe)[:, 0] == pytest.approx([1, 1])
    just_read = {9 + j: 9 - j for j in range(1, 9)}  # the source copy of the letter just read
    assert score_heads(reverse, _one_hot_record(names, 2, 19, 19, just_read), probe)[:, 0] == pytest.approx([1, 1])
    same = {9 + j: j for j in range(9)}
    assert score_heads(reverse, _one_hot_record(names, 2, 19, 19, same), probe)[0, 0] < 0.3

    sort = make_task("sort", "encoder-decoder")  # cross-attention: queries 0..8 over "algorithm"
    rank = {q: "algorithm".index(letter) for q, letter in enumerate(sorted("algorithm"))}
    cross = ["decoder.layers.0.cross_attn", "decoder.layers.1.cross_attn"]
    assert score_heads(sort, _one_hot_record(cross, 2, 10, 9, rank), sort.probe())[:, 0] == pytest.approx([1, 1])
