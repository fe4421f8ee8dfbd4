"""Per-call interventions on heads' outputs: knock-outs and patches, checked against hand computations."""

import threading

import pytest
import torch
from torch.nn import functional as F

from transformer import Ablate, Patch, TransformerConfig, build_model

CONFIG = TransformerConfig(
    d_model=16,
    num_heads=4,
    num_encoder_layers=2,
    num_decoder_layers=2,
    d_ff=32,
    dropout=0.0,
    src_vocab_size=30,
    tgt_vocab_size=30,
    max_len=16,
)
PRE_LN = TransformerConfig(**{**CONFIG.to_dict(), "norm_first": True, "feed_forward": False})


def run(model, tokens, **kwargs):
    """A forward pass of any of the three architectures on ``tokens`` (the target too, for encoder-decoder)."""
    with torch.inference_mode():
        if model.kind == "encoder-decoder":
            return model(tokens, tokens[:, :5], **kwargs)
        return model(tokens, **kwargs)


def tokens(batch=2, length=9, seed=0):
    return torch.randint(4, 30, (batch, length), generator=torch.Generator().manual_seed(seed))


KINDS_AND_NAMES = [
    ("decoder-only", "decoder.layers.1.self_attn"),
    ("encoder-only", "encoder.layers.0.self_attn"),
    ("encoder-decoder", "decoder.layers.0.cross_attn"),
    ("encoder-decoder", "encoder.layers.1.self_attn"),
]


@pytest.mark.parametrize("kind, name", KINDS_AND_NAMES)
def test_ablating_nothing_is_bit_identical(kind, name):
    model, x = build_model(CONFIG, seed=1, kind=kind), tokens()
    plain = run(model, x)
    for asks in ({}, {"return_attention": True}, {"return_internals": True}):
        baseline = run(model, x, **asks)
        out = run(
            model,
            x,
            interventions=[Ablate(name, []), Patch(name, [], baseline.attention or plain)]
            if asks.get("return_internals")
            else [Ablate(name, [])],
            **asks,
        )
        assert torch.equal(out.logits, baseline.logits)
        assert torch.equal(out.hidden, baseline.hidden)
    assert torch.equal(run(model, x, interventions=[Ablate(name, ())]).logits, plain.logits)


@pytest.mark.parametrize("kind, name", KINDS_AND_NAMES)
def test_patching_a_pass_with_its_own_record_changes_nothing(kind, name):
    model, x = build_model(CONFIG, seed=2, kind=kind), tokens()
    source = run(model, x, return_internals=True)
    patched = run(model, x, return_internals=True, interventions=[Patch(name, [0, 1, 2, 3], source.attention)])
    assert torch.equal(patched.logits, source.logits)


def test_zero_ablation_equals_the_concatenation_with_that_head_zeroed_times_w_o():
    """Independently: take the clean pass's heads of the last layer, zero head 2's slice of
    Concat(head_1..head_4), apply W^O by hand, add the residual, then the final norm and the unembedding."""
    model, x = build_model(PRE_LN, seed=3, kind="decoder-only"), tokens()
    name = "decoder.layers.1.self_attn"
    clean = run(model, x, return_internals=True).attention.internals
    heads = clean[f"{name}.heads"].clone()  # [B, H, L, d_head]
    heads[:, 2] = 0.0
    concat = heads.transpose(1, 2).reshape(x.shape[0], x.shape[1], PRE_LN.d_model)
    w_o = model.decoder.layers[1].self_attn.w_o
    residual = clean["decoder.layers.1.input"] + concat @ w_o.weight.T + w_o.bias
    final = F.layer_norm(
        residual, (PRE_LN.d_model,), model.decoder.norm.weight, model.decoder.norm.bias, PRE_LN.layer_norm_eps
    )
    expected = final @ model.generator.weight.T + model.generator.bias
    ablated = run(model, x, interventions=[Ablate(name, [2])])
    torch.testing.assert_close(ablated.logits, expected, atol=1e-5, rtol=1e-5)


def test_mean_ablation_replaces_a_head_by_its_mean_over_batch_and_positions():
    model, x = build_model(CONFIG, seed=4, kind="decoder-only"), tokens()
    name = "decoder.layers.0.self_attn"
    clean = run(model, x, return_internals=True).attention.internals[f"{name}.heads"]
    given = run(model, x, return_internals=True, interventions=[Ablate(name, [1], how="mean")]).attention.internals[
        f"{name}.heads"
    ]
    expected = clean.clone()
    expected[:, 1] = clean[:, 1].mean(dim=(0, 1))  # one d_head vector: the mean over batch and positions
    torch.testing.assert_close(given, expected)


def test_mean_ablation_of_a_head_with_a_constant_output_changes_nothing():
    """W_V's rows for head 0 set to zero and its bias to a constant: every value vector, hence every
    weighted sum of them (rows of A sum to 1), is that constant."""
    model, x = build_model(CONFIG, seed=5, kind="decoder-only"), tokens()
    attn = model.decoder.layers[0].self_attn
    with torch.no_grad():
        attn.w_v.weight[: attn.d_head] = 0.0
        attn.w_v.bias[: attn.d_head] = torch.linspace(-1.0, 1.0, attn.d_head)
    plain = run(model, x)
    ablated = run(model, x, interventions=[Ablate("decoder.layers.0.self_attn", [0], how="mean")])
    torch.testing.assert_close(ablated.logits, plain.logits, atol=1e-6, rtol=1e-6)
    zeroed = run(model, x, interventions=[Ablate("decoder.layers.0.self_attn", [0], how="zero")])
    assert not torch.allclose(zeroed.logits, plain.logits, atol=1e-3)


def test_the_record_shows_the_computed_weights_and_the_given_outputs():
    model, x = build_model(CONFIG, seed=6, kind="encoder-decoder"), tokens()
    name = "decoder.layers.1.cross_attn"
    clean = run(model, x, return_internals=True).attention
    out = run(model, x, return_internals=True, interventions=[Ablate(name, [0, 3])]).attention
    assert torch.equal(out.weights[name], clean.weights[name])
    assert out.internals[f"{name}.heads"][:, [0, 3]].abs().max() == 0
    assert torch.equal(out.internals[f"{name}.heads"][:, [1, 2]], clean.internals[f"{name}.heads"][:, [1, 2]])


def test_patching_one_position_changes_that_query_row_only():
    model = build_model(CONFIG, seed=7, kind="decoder-only")
    clean, corrupt = tokens(seed=8), tokens(seed=9)
    name = "decoder.layers.0.self_attn"
    source = run(model, clean, return_internals=True).attention
    base = run(model, corrupt, return_internals=True).attention.internals[f"{name}.heads"]
    given = run(
        model, corrupt, return_internals=True, interventions=[Patch(name, [2], source, positions=[4])]
    ).attention.internals[f"{name}.heads"]
    changed = (given != base).any(dim=-1)  # [B, H, L]
    assert changed[:, 2, 4].all() and changed.sum() == changed[:, 2, 4].sum()
    assert torch.equal(given[:, 2, 4], source.internals[f"{name}.heads"][:, 2, 4])


def test_a_batch_of_one_source_patches_every_row_of_a_batch():
    model = build_model(CONFIG, seed=7, kind="decoder-only")
    name = "decoder.layers.1.self_attn"
    source = run(model, tokens(batch=1, seed=1), return_internals=True).attention
    given = run(
        model, tokens(batch=3), return_internals=True, interventions=[Patch(name, [0], source)]
    ).attention.internals[f"{name}.heads"]
    for row in range(3):
        assert torch.equal(given[row, 0], source.internals[f"{name}.heads"][0, 0])


def test_bad_interventions_say_what_to_change():
    model, x = build_model(CONFIG, seed=1, kind="decoder-only"), tokens()
    source = run(model, tokens(length=7), return_internals=True).attention
    cases = [
        ([Ablate("decoder.layers.7.self_attn", [0])], "not an attention sublayer"),
        ([Ablate("decoder.layers.0.self_attn", [4])], "head 4 does not exist"),
        ([Patch("decoder.layers.0.self_attn", [0], source)], "same length"),
        (
            [Patch("decoder.layers.0.self_attn", [0], run(model, x, return_internals=True).attention, positions=[9])],
            "past the input",
        ),
        (["not an intervention"], "Ablate or Patch"),
    ]
    for interventions, message in cases:
        with pytest.raises(ValueError, match=message):
            run(model, x, interventions=interventions)
    with pytest.raises(ValueError, match="how="):
        Ablate("decoder.layers.0.self_attn", [0], how="noise")
    with pytest.raises(ValueError, match="return_internals=True"):
        Patch("decoder.layers.0.self_attn", [0], run(model, x, return_attention=True).attention)
    with pytest.raises(ValueError, match="counted from 0"):
        Ablate("decoder.layers.0.self_attn", [-1])


def test_nothing_is_stored_on_the_module():
    model, x = build_model(CONFIG, seed=1, kind="decoder-only"), tokens()
    before = {name: dict(vars(module)) for name, module in model.named_modules()}
    state = {k: v.clone() for k, v in model.state_dict().items()}
    run(model, x, interventions=[Ablate("decoder.layers.0.self_attn", [1], "mean")], return_internals=True)
    after = {name: dict(vars(module)) for name, module in model.named_modules()}
    assert before.keys() == after.keys()
    for name in before:
        assert before[name].keys() == after[name].keys(), name
    assert all(torch.equal(state[k], v) for k, v in model.state_dict().items())


def test_two_threads_intervening_differently_on_one_model_get_their_own_results():
    model = build_model(CONFIG, seed=11, kind="decoder-only")
    x = tokens(batch=4, length=12)
    plans = {
        i: [Ablate(f"decoder.layers.{i % 2}.self_attn", [i // 2], "zero" if i % 3 else "mean")] for i in range(6)
    }  # six different heads
    expected = {i: run(model, x, interventions=plan).logits for i, plan in plans.items()}
    results, errors = {}, []

    def worker(i):
        try:
            for _ in range(20):
                got = run(model, x, interventions=plans[i]).logits
                if not torch.equal(got, expected[i]):
                    errors.append(i)
            results[i] = got
        except Exception as error:
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in plans]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == len(plans)
    assert len({tuple(r.flatten()[:8].tolist()) for r in results.values()}) == len(plans)


def test_bias_false_reaches_the_final_norms_and_the_output_head():
    config = TransformerConfig(**{**CONFIG.to_dict(), "bias": False, "norm_first": True})
    for kind in ("encoder-decoder", "decoder-only", "encoder-only"):
        model = build_model(config, seed=0, kind=kind)
        biases = [name for name, _ in model.named_parameters() if name.endswith("bias")]
        assert biases == [], (kind, biases)


def test_the_decoder_only_stack_is_not_called_an_encoder():
    model = build_model(CONFIG, kind="decoder-only")
    assert "Encoder" not in type(model.decoder).__name__
