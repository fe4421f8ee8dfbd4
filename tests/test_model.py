import pytest
import torch

from transformer import (
    ForwardRecord,
    HashTokenizer,
    TransformerConfig,
    build_model,
    characters,
    padding_mask,
    words,
)


def test_encoder_decoder_record_names_and_shapes():
    cfg = TransformerConfig(d_model=16, num_heads=2, num_encoder_layers=3, num_decoder_layers=2, d_ff=32)
    model = build_model(cfg, seed=1)
    src, tgt = torch.randint(4, 100, (2, 5)), torch.randint(4, 100, (2, 4))
    with torch.inference_mode():
        out = model(src, tgt, return_attention=True, return_scores=True)
    rec = out.attention
    assert out.logits.shape == (2, 4, cfg.tgt_vocab_size)
    assert rec.names("encoder") == [f"encoder.layers.{i}.self_attn" for i in range(3)]
    assert rec.names("decoder", "cross_attn") == ["decoder.layers.0.cross_attn", "decoder.layers.1.cross_attn"]
    assert rec.weights["encoder.layers.0.self_attn"].shape == (2, 2, 5, 5)
    assert rec.weights["decoder.layers.1.self_attn"].shape == (2, 2, 4, 4)
    assert rec.weights["decoder.layers.1.cross_attn"].shape == (2, 2, 4, 5)
    assert rec.stacked("encoder").shape == (3, 2, 2, 5, 5)
    assert set(rec.scores) == set(rec.weights)
    dec_self = rec.weights["decoder.layers.0.self_attn"]
    assert torch.all(dec_self.triu(1) == 0)


def test_no_record_unless_asked():
    model = build_model(TransformerConfig(d_model=8, num_heads=2, d_ff=8), seed=0)
    assert model(torch.tensor([[5, 6]]), torch.tensor([[1]])).attention is None


def test_source_padding_reaches_cross_attention():
    cfg = TransformerConfig(d_model=16, num_heads=2, d_ff=32)
    model = build_model(cfg, seed=0)
    src = torch.tensor([[5, 6, 7], [8, 9, 0]])
    with torch.inference_mode():
        rec = model(src, torch.tensor([[1, 4], [1, 4]]), src_mask=padding_mask([3, 2]),
                    return_attention=True).attention
    assert torch.all(rec.weights["decoder.layers.0.cross_attn"][1, :, :, 2] == 0)
    assert torch.all(rec.weights["encoder.layers.0.self_attn"][1, :, :, 2] == 0)


def test_same_seed_same_model_different_seed_different_model():
    cfg = TransformerConfig(d_model=16, num_heads=2, d_ff=32)
    a, b, c = build_model(cfg, 3), build_model(cfg, 3), build_model(cfg, 4)
    for (name, pa), (_, pb), (_, pc) in zip(a.named_parameters(), b.named_parameters(), c.named_parameters()):
        assert torch.equal(pa, pb), name
    assert not all(torch.equal(pa, pc) for pa, pc in zip(a.parameters(), c.parameters()))


def test_weights_come_from_the_seed_not_the_global_rng():
    """Whatever the global RNG's state, the same seed gives the same weights; the first weight drawn is
    the first number of a local generator with that seed (Xavier-uniform: U(-a, a) = a (2 u - 1))."""
    config = TransformerConfig(d_model=8, num_heads=2, d_ff=8)
    torch.manual_seed(0)
    m1 = build_model(config, seed=9)
    torch.manual_seed(999)
    m2 = build_model(config, seed=9)
    assert all(torch.equal(p, q) for p, q in zip(m1.parameters(), m2.parameters()))
    first_linear = m1.encoder.layers[0].self_attn.w_q.weight
    bound = (6.0 / (8 + 8)) ** 0.5
    generator = torch.Generator().manual_seed(9)
    embeddings = 4096 * 8  # the source embedding table is drawn first, in name order
    torch.empty(embeddings).normal_(0.0, 1 / 8 ** 0.5, generator=generator)
    torch.empty(4096 * 8).normal_(0.0, 1 / 8 ** 0.5, generator=generator)  # then the target's
    expected = torch.empty(8, 8).uniform_(-bound, bound, generator=generator)
    torch.testing.assert_close(first_linear, expected)


@pytest.mark.parametrize("positional", ["sinusoidal", "learned", "rotary", "alibi", "none"])
@pytest.mark.parametrize("norm_first", [False, True])
def test_every_positional_scheme_runs_finite(positional, norm_first):
    cfg = TransformerConfig(d_model=12, num_heads=3, d_ff=16, positional=positional, norm_first=norm_first,
                            activation="gelu")
    model = build_model(cfg, seed=0)
    with torch.inference_mode():
        out = model(torch.randint(4, 99, (1, 6)), torch.randint(4, 99, (1, 3)), return_attention=True)
    assert torch.isfinite(out.logits).all()
    for w in out.attention.weights.values():
        assert torch.allclose(w.sum(-1), torch.ones(w.shape[:-1]), atol=1e-5)


def test_embedding_row_depends_only_on_the_word():
    tok = HashTokenizer()
    model = build_model(TransformerConfig(d_model=16, num_heads=2, d_ff=16, positional="none",
                                          num_encoder_layers=1), seed=0)
    ids_a = torch.tensor([tok.encode(tok.tokenize("the cat sat"))])
    ids_b = torch.tensor([tok.encode(tok.tokenize("the dog sat"))])
    with torch.inference_mode():
        ea, eb = model.src_embed(ids_a), model.src_embed(ids_b)
    assert torch.equal(ea[0, 0], eb[0, 0]) and torch.equal(ea[0, 2], eb[0, 2])
    assert not torch.equal(ea[0, 1], eb[0, 1])


def test_record_numpy_is_float32():
    rec = ForwardRecord()
    rec.add("encoder.layers.0.self_attn", torch.ones(1, 2, 3, 3) / 3)
    arr = rec.numpy("encoder.layers.0.self_attn")
    assert arr.dtype.name == "float32" and arr.shape == (2, 3, 3)


def test_tokenizer_words_and_characters():
    assert words("The animal didn't cross.") == ["The", "animal", "didn't", "cross", "."]
    assert words("the the") == ["the", "the"]
    assert characters("e\u0301a") == ["\u00e9", "a"]
    assert characters("👍🏽!") == ["👍🏽", "!"]
    assert words("你好 world") == ["你", "好", "world"]
    assert words("שלום עולם") == ["שלום", "עולם"]
    tok = HashTokenizer(vocab_size=4096)
    assert tok.encode(["cat"]) == tok.encode(["cat"]) and 4 <= tok.encode(["cat"])[0] < 4096
    with pytest.raises(ValueError):
        HashTokenizer(level="byte")


def test_too_long_input_says_what_to_change():
    model = build_model(TransformerConfig(d_model=8, num_heads=2, d_ff=8, max_len=4), seed=0)
    with pytest.raises(ValueError, match="exceed max_len=4"):
        model(torch.randint(4, 99, (1, 5)), torch.randint(4, 99, (1, 2)))
