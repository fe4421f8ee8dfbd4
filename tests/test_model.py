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
        rec = model(src, torch.tensor([[1, 4], [1, 4]]), src_mask=padding_mask([3, 2]), return_attention=True).attention
    assert torch.all(rec.weights["decoder.layers.0.cross_attn"][1, :, :, 2] == 0)
    assert torch.all(rec.weights["encoder.layers.0.self_attn"][1, :, :, 2] == 0)


def test_same_seed_same_model_different_seed_different_model():
    cfg = TransformerConfig(d_model=16, num_heads=2, d_ff=32)
    a, b, c = build_model(cfg, 3), build_model(cfg, 3), build_model(cfg, 4)
    for (name, pa), (_, pb) in zip(a.named_parameters(), b.named_parameters()):
        assert torch.equal(pa, pb), name
    assert not all(torch.equal(pa, pc) for pa, pc in zip(a.parameters(), c.parameters()))


def test_weights_come_from_the_seed_not_the_global_rng():
    """Whatever the global RNG's state, the same seed gives the same weights."""
    config = TransformerConfig(d_model=8, num_heads=2, d_ff=8)
    torch.manual_seed(0)
    m1 = build_model(config, seed=9)
    torch.manual_seed(999)
    m2 = build_model(config, seed=9)
    assert all(torch.equal(p, q) for p, q in zip(m1.parameters(), m2.parameters()))


def test_weights_follow_the_documented_initialisation():
    """Linear weights Xavier-uniform, U(-a, a) with a = sqrt(6 / (fan_in + fan_out)) (variance a^2 / 3);
    embeddings N(0, 1 / d_model); biases 0; LayerNorm gains 1 and shifts 0."""
    model = build_model(TransformerConfig(d_model=64, num_heads=4, d_ff=256, src_vocab_size=2000), seed=5)
    weights = dict(model.named_parameters())
    for name, (fan_in, fan_out) in {
        "encoder.layers.0.self_attn.w_q.weight": (64, 64),
        "decoder.layers.1.feed_forward.linear1.weight": (64, 256),
    }.items():
        w, bound = weights[name], (6 / (fan_in + fan_out)) ** 0.5
        assert w.abs().max() <= bound and w.abs().max() > 0.99 * bound, name
        assert abs(w.std() / (bound / 3**0.5) - 1) < 0.05 and abs(w.mean()) < 0.02 * bound, name
    table = weights["src_embed.tokens.weight"]
    assert abs(table.std() * 64**0.5 - 1) < 0.01 and abs(table.mean()) < 0.005
    assert not torch.equal(table, weights["tgt_embed.tokens.weight"][:2000])
    for name, value in weights.items():
        if name.endswith("bias"):
            assert torch.all(value == 0), name
        elif ".norm" in name:
            assert torch.all(value == 1), name


@pytest.mark.parametrize("positional", ["sinusoidal", "learned", "rotary", "alibi", "none"])
@pytest.mark.parametrize("norm_first", [False, True])
def test_every_positional_scheme_runs_finite(positional, norm_first):
    cfg = TransformerConfig(
        d_model=12, num_heads=3, d_ff=16, positional=positional, norm_first=norm_first, activation="gelu"
    )
    model = build_model(cfg, seed=0)
    with torch.inference_mode():
        out = model(torch.randint(4, 99, (1, 6)), torch.randint(4, 99, (1, 3)), return_attention=True)
    assert torch.isfinite(out.logits).all()
    for w in out.attention.weights.values():
        assert torch.allclose(w.sum(-1), torch.ones(w.shape[:-1]), atol=1e-5)


def test_embedding_row_depends_only_on_the_word():
    tok = HashTokenizer()
    model = build_model(
        TransformerConfig(d_model=16, num_heads=2, d_ff=16, positional="none", num_encoder_layers=1), seed=0
    )
    ids_a = torch.tensor([tok.encode(tok.tokenize("the cat sat"))])
    ids_b = torch.tensor([tok.encode(tok.tokenize("the dog sat"))])
    with torch.inference_mode():
        ea, eb = model.src_embed(ids_a), model.src_embed(ids_b)
    assert torch.equal(ea[0, 0], eb[0, 0]) and torch.equal(ea[0, 2], eb[0, 2])
    assert not torch.equal(ea[0, 1], eb[0, 1])


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_record_numpy_is_float32(dtype):
    rec = ForwardRecord()
    weights = torch.tensor([[0.25, 0.75], [0.5, 0.5]], dtype=dtype).expand(2, 3, 2, 2)  # [B, H, Lq, Lk]
    rec.add("encoder.layers.0.self_attn", weights)
    arr = rec.numpy("encoder.layers.0.self_attn", batch=1)
    assert arr.dtype.name == "float32" and arr.shape == (3, 2, 2)
    assert arr.tolist() == [[[0.25, 0.75], [0.5, 0.5]]] * 3


def test_tokenizer_words_and_characters():
    assert words("The animal didn't cross.") == ["The", "animal", "didn't", "cross", "."]
    assert words("the the") == ["the", "the"]
    assert characters("e\u0301a") == ["\u00e9", "a"]
    assert characters("👍🏽!") == ["👍🏽", "!"]
    assert words("你好 world") == ["你", "好", "world"]
    assert words("שלום עולם") == ["שלום", "עולם"]
    # 4 + BLAKE2b-64(token, little-endian) mod (vocab_size - 4): the same ids in every process and release
    assert HashTokenizer(vocab_size=4096).encode(["cat", "the", "Attention", "cat"]) == [3007, 142, 460, 3007]
    assert HashTokenizer(vocab_size=100).encode(["cat", "the", "Attention"]) == [55, 34, 88]
    with pytest.raises(ValueError):
        HashTokenizer(level="byte")


def test_too_long_input_says_what_to_change():
    model = build_model(TransformerConfig(d_model=8, num_heads=2, d_ff=8, max_len=4), seed=0)
    with pytest.raises(ValueError, match="exceed max_len=4"):
        model(torch.randint(4, 99, (1, 5)), torch.randint(4, 99, (1, 2)))
