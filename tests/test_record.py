"""The forward record: internals by name, one record per call (thread-safe), encoder-only by hand, fused path."""

import math
import threading

import pytest
import torch
from torch.nn import functional as F

from transformer import TransformerConfig, build_model, causal_mask, padding_mask

TOL = 1e-5


def bert_like(**overrides) -> TransformerConfig:
    values = dict(
        d_model=12,
        num_heads=3,
        num_encoder_layers=2,
        d_ff=20,
        dropout=0.0,
        positional="learned",
        max_len=16,
        activation="gelu",
        embed_scale=False,
        type_vocab_size=2,
        embed_norm=True,
        layer_norm_eps=1e-12,
        src_vocab_size=50,
        tgt_vocab_size=50,
        output_head="tied",
    )
    return TransformerConfig(**{**values, **overrides})


def randomized(model):
    """Random LayerNorm gains and biases and Linear biases, so that a wrong wiring cannot pass."""
    g = torch.Generator().manual_seed(11)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("bias") or "norm" in name:
                p.copy_(torch.randn(p.shape, generator=g) * 0.3 + (1.0 if "norm" in name and "weight" in name else 0))
    return model


def layer_norm(x, ln):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return ln.weight * (x - mu) / torch.sqrt(var + ln.eps) + ln.bias


def test_encoder_only_equals_a_hand_computation():
    """BERT's equations written out with plain tensor ops on the model's own weights."""
    config = bert_like()
    model = randomized(build_model(config, seed=4, kind="encoder-only"))
    ids = torch.tensor([[5, 9, 2, 31, 7]])
    types = torch.tensor([[0, 0, 1, 1, 1]])
    real = torch.tensor([[True, True, True, True, False]])
    with torch.inference_mode():
        out = model(ids, attention_mask=real, token_type_ids=types, return_attention=True)
        emb = model.embed
        x = emb.tokens.weight[ids] + emb.position.table.weight[:5] + emb.token_types.weight[types]
        x = layer_norm(x, emb.norm)
        for i, layer in enumerate(model.encoder.layers):
            a = layer.self_attn
            h, dk = config.num_heads, config.d_head

            def heads(w, x=x, h=h, dk=dk):
                return (x @ w.weight.T + w.bias).view(1, 5, h, dk).transpose(1, 2)

            q, k, v = heads(a.w_q), heads(a.w_k), heads(a.w_v)
            scores = q @ k.transpose(-1, -2) / math.sqrt(dk)
            scores = scores.masked_fill(~real[:, None, None, :], float("-inf"))
            weights = torch.softmax(scores, -1)
            torch.testing.assert_close(
                out.attention.weights[f"encoder.layers.{i}.self_attn"], weights, atol=TOL, rtol=0
            )
            attn = (weights @ v).transpose(1, 2).reshape(1, 5, config.d_model) @ a.w_o.weight.T + a.w_o.bias
            x = layer_norm(x + attn, layer.norm1)
            ff = layer.feed_forward
            hidden = F.gelu(x @ ff.linear1.weight.T + ff.linear1.bias)
            x = layer_norm(x + hidden @ ff.linear2.weight.T + ff.linear2.bias, layer.norm2)
        logits = x @ emb.tokens.weight.T + model.generator.bias  # the tied head
    torch.testing.assert_close(out.hidden, x, atol=TOL, rtol=0)
    torch.testing.assert_close(out.logits, logits, atol=1e-4, rtol=0)
    assert "generator.weight" not in dict(model.named_parameters())


@pytest.mark.parametrize("norm_first", [False, True])
def test_internals_fit_together(norm_first):
    """The recorded steps compose: heads concatenated times W^O is the attention output; the residual
    stream before and after each sub-layer is what the layer's own wiring says; the output is the last step."""
    config = TransformerConfig(
        d_model=16, num_heads=4, num_encoder_layers=2, num_decoder_layers=2, d_ff=24, dropout=0.0, norm_first=norm_first
    )
    model = randomized(build_model(config, seed=1))
    src, tgt = torch.tensor([[4, 8, 15, 16]]), torch.tensor([[1, 23, 42]])
    with torch.inference_mode():
        out = model(src, tgt, return_internals=True)
        rec = out.attention.internals
        layer = model.encoder.layers[1]
        p = "encoder.layers.1"
        concat = rec[f"{p}.self_attn.heads"].transpose(1, 2).reshape(1, 4, 16)
        torch.testing.assert_close(layer.self_attn.w_o(concat), rec[f"{p}.self_attn.out"], atol=TOL, rtol=0)
        torch.testing.assert_close(rec[f"{p}.input"], rec["encoder.layers.0.after_feed_forward"])
        torch.testing.assert_close(layer(rec[f"{p}.input"]), rec[f"{p}.after_feed_forward"], atol=TOL, rtol=0)
        if norm_first:
            torch.testing.assert_close(rec[f"{p}.after_self_attn"], rec[f"{p}.input"] + rec[f"{p}.self_attn.out"])
            torch.testing.assert_close(rec[f"{p}.norm1.out"], layer.norm1(rec[f"{p}.input"]))
        else:
            torch.testing.assert_close(rec[f"{p}.norm1.in"], rec[f"{p}.input"] + rec[f"{p}.self_attn.out"])
            torch.testing.assert_close(rec[f"{p}.after_self_attn"], rec[f"{p}.norm1.out"])
        hidden = rec[f"{p}.feed_forward.hidden"]
        assert hidden.shape == (1, 4, 24) and (hidden >= 0).all()  # ReLU
        assert rec["decoder.layers.1.cross_attn.k"].shape == (1, 4, 4, 4)  # keys from the 4 source tokens
        torch.testing.assert_close(
            rec["decoder.layers.1.after_feed_forward"]
            if not norm_first
            else model.decoder.norm(rec["decoder.layers.1.after_feed_forward"]),
            out.hidden,
        )


def test_one_record_per_call_across_threads():
    """Two threads share one model with different inputs; neither record ever sees the other's values."""
    model = build_model(
        TransformerConfig(d_model=16, num_heads=2, num_decoder_layers=2, d_ff=32, dropout=0.0),
        seed=0,
        kind="decoder-only",
    )
    inputs = [torch.tensor([[5, 6, 7, 8, 9]]), torch.tensor([[40, 41, 42, 43, 44]])]
    with torch.inference_mode():
        expected = [model(x, return_internals=True).attention for x in inputs]
    barrier, failures = threading.Barrier(2), []

    def work(i):
        barrier.wait()
        for _ in range(30):
            with torch.inference_mode():
                record = model(inputs[i], return_internals=True).attention
            for name, tensor in expected[i].weights.items():
                if not torch.equal(record.weights[name], tensor):
                    failures.append((i, name))
            for name, tensor in expected[i].internals.items():
                if not torch.equal(record.internals[name], tensor):
                    failures.append((i, name))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures[:5]
    assert not any(isinstance(v, torch.Tensor) and v.dim() == 4 for v in vars(model).values())


@pytest.mark.parametrize("positional", ["sinusoidal", "rotary", "alibi"])
@pytest.mark.parametrize("kind", ["encoder-decoder", "decoder-only", "encoder-only"])
def test_fused_attention_gives_the_same_output(kind, positional, monkeypatch):
    """Without a record the model uses F.scaled_dot_product_attention; its logits equal the from-scratch path."""
    config = TransformerConfig(d_model=16, num_heads=4, d_ff=24, dropout=0.0, positional=positional)
    model = randomized(build_model(config, seed=2, kind=kind))
    ids = torch.tensor([[5, 9, 11, 13, 2], [7, 8, 0, 0, 0]])
    calls = []
    original = F.scaled_dot_product_attention
    monkeypatch.setattr(F, "scaled_dot_product_attention", lambda *a, **k: calls.append(1) or original(*a, **k))
    with torch.inference_mode():
        if kind == "encoder-decoder":
            args = (ids, torch.tensor([[1, 4, 6], [1, 5, 5]]))
            kwargs = dict(src_mask=padding_mask([5, 2]))
        elif kind == "decoder-only":
            args, kwargs = (ids,), dict(key_mask=padding_mask([5, 2]))
        else:
            args, kwargs = (ids,), dict(attention_mask=padding_mask([5, 2])[:, 0, 0])
        fused = model(*args, **kwargs)
        assert calls, "the fused kernel was not used"
        calls.clear()
        scratch = model(*args, **kwargs, return_attention=True)
        assert not calls, "the record path must compute its own weights"
    torch.testing.assert_close(fused.logits, scratch.logits, atol=TOL, rtol=0)


def test_fully_masked_rows_never_take_the_fused_path():
    """A row with no allowed key is zeros (the fused kernel would give NaN), with or without a record."""
    model = build_model(TransformerConfig(d_model=8, num_heads=2, d_ff=8, dropout=0.0), seed=0, kind="decoder-only")
    key_mask = torch.tensor([[False, True, True]])[:, None, None, :]  # query 0 may see only key 0: a pad
    with torch.inference_mode():
        out = model(torch.tensor([[0, 5, 6]]), key_mask=key_mask)
        recorded = model(torch.tensor([[0, 5, 6]]), key_mask=key_mask, return_attention=True)
    assert torch.isfinite(out.logits).all()
    torch.testing.assert_close(out.logits, recorded.logits)
    assert (recorded.attention.weights["decoder.layers.0.self_attn"][0, :, 0] == 0).all()
    assert causal_mask(3)[0].sum() == 1


def test_encoder_and_decoder_only_share_weights_for_one_seed():
    """The pages show one set of weights with and without the causal mask by building both kinds."""
    config = TransformerConfig(d_model=8, num_heads=2, num_encoder_layers=2, num_decoder_layers=2, d_ff=8)
    encoder, decoder = build_model(config, 5, "encoder-only"), build_model(config, 5, "decoder-only")
    a, b = list(encoder.state_dict().values()), list(decoder.state_dict().values())
    assert len(a) == len(b) and all(torch.equal(x, y) for x, y in zip(a, b))


def test_names_are_selected_by_stack_and_kind_in_record_order():
    from transformer.record import ForwardRecord, select_names

    names = [
        "encoder.layers.0.self_attn",
        "encoder.layers.1.self_attn",
        "decoder.layers.0.self_attn",
        "decoder.layers.0.cross_attn",
        "decoder.layers.1.self_attn",
        "decoder.layers.1.cross_attn",
    ]
    assert select_names(names, "decoder", "self_attn") == ["decoder.layers.0.self_attn", "decoder.layers.1.self_attn"]
    assert select_names(names, "decoder", "cross_attn") == [
        "decoder.layers.0.cross_attn",
        "decoder.layers.1.cross_attn",
    ]
    assert select_names(names, "encoder") == names[:2] and select_names(names, kind="cross_attn") == names[3::2]
    assert select_names(names) == names and select_names(names, "encoder", "cross_attn") == []
    assert select_names(["encoders.layers.0.self_attn", "encoder.layers.0.my_self_attn"], "encoder", "self_attn") == []
    record = ForwardRecord()
    for name in reversed(names):
        record.add(name, torch.zeros(1, 1, 1, 1))
    assert record.names("decoder", "self_attn") == ["decoder.layers.1.self_attn", "decoder.layers.0.self_attn"]


def test_an_attention_name_is_read_and_written_in_one_place():
    from transformer import AttentionName

    name = AttentionName.parse("decoder.layers.12.cross_attn")
    assert (name.stack, name.layer, name.kind) == ("decoder", 12, "cross_attn")
    assert str(name) == "decoder.layers.12.cross_attn"
    for bad in ("decoder.layers.x.self_attn", "decoder.norm", "encoder.layers.0.feed_forward", ""):
        with pytest.raises(ValueError, match="not an attention sublayer"):
            AttentionName.parse(bad)
