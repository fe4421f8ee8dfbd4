"""Knock-out sweeps, patching, the logit lens, attribution and the hand-built head, against hand computations."""

from pathlib import Path

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from analysis.handmade_head import HeadRecipe, handmade_pattern
from analysis.knockout import knockout_sweep, pair_effect, task_score
from analysis.logit_lens import direct_logit_attribution, logit_lens
from analysis.patching import patching_run, restored_by_head, restored_by_part, restored_by_position
from analysis.resample import resample_batch, resample_ids, resample_record
from transformer import Ablate, Patch, TransformerConfig, build_model, load_checkpoint, make_task, score_heads

CHECKPOINT = Path(__file__).resolve().parent.parent / "checkpoints" / "induction.safetensors"
LAYER1, LAYER2 = "decoder.layers.0.self_attn", "decoder.layers.1.self_attn"


@pytest.fixture(scope="module")
def induction():
    model, _ = load_checkpoint(CHECKPOINT)
    task = make_task("induction")
    return model, task, task.batch(64, torch.Generator().manual_seed(0), "val")


TODAYS_BLOCK = dict(
    norm="rmsnorm", activation="swiglu", positional="rotary", bias=False, num_kv_heads=1, head_dim=10, qk_norm=True
)


def small(norm_first: bool, output_head: str = "linear", feed_forward: bool = True, **block):
    config = TransformerConfig(
        d_model=24,
        num_heads=3,
        num_decoder_layers=3,
        d_ff=40,
        dropout=0.0,
        max_len=20,
        tgt_vocab_size=17,
        norm_first=norm_first,
        output_head=output_head,
        feed_forward=feed_forward,
        **block,
    )
    return build_model(config, seed=5, kind="decoder-only")


IDS = [4, 9, 3, 12, 7, 4, 9, 3, 12, 16, 5]


@pytest.mark.parametrize(
    "model",
    [small(True), small(False), small(True, "tied"), small(False, feed_forward=False)],
    ids=["pre-LN", "post-LN", "pre-LN tied", "post-LN attention-only"],
)
def test_the_logit_lens_last_stage_is_the_models_output(model):
    lens = logit_lens(model, IDS)
    with torch.inference_mode():
        probabilities = torch.softmax(model(torch.tensor([IDS])).logits[0], -1)
    assert lens.stages[0] == "embeddings" and len(lens.stages) == 4
    np.testing.assert_array_equal(lens.top[-1], probabilities.argmax(-1).numpy())
    np.testing.assert_allclose(lens.top_probability[-1], probabilities.max(-1).values.numpy(), atol=1e-6)
    np.testing.assert_allclose(lens.final_probability[-1], lens.top_probability[-1], atol=1e-6)


@pytest.mark.parametrize(
    "model",
    [
        small(True),
        small(False),
        small(True, "tied"),
        small(False, feed_forward=False),
        small(True, **TODAYS_BLOCK),
        small(False, **TODAYS_BLOCK),
    ],
    ids=["pre-LN", "post-LN", "pre-LN tied", "post-LN attention-only", "pre-RMSNorm GQA", "post-RMSNorm GQA"],
)
def test_attributions_of_all_parts_sum_to_the_logit(model):
    with torch.inference_mode():
        logits = model(torch.tensor([IDS])).logits[0]
    for position, token in ((0, 3), (6, 11), (10, int(logits[10].argmax()))):
        shares = direct_logit_attribution(model, IDS, position, token)
        assert shares.heads.shape == (3, 3)
        assert shares.total == pytest.approx(float(logits[position, token]), abs=1e-4)
        assert shares.logit == pytest.approx(float(logits[position, token]), abs=1e-6)


def test_in_an_attention_only_pre_ln_model_a_heads_share_is_its_output_through_the_final_norm(induction):
    """One head's share, by hand: its slice of the concatenation times its columns of W^O, centred, divided
    by the final LayerNorm's sigma of the whole residual stream, times gamma, dotted with W_U[token]."""
    model, task, _ = induction
    ids = task.encode_user_input("qzalgorithmalgorithmalgorithm")
    position, token = 15, 8
    record = model(torch.tensor([ids]), return_internals=True).attention.internals
    heads = record[f"{LAYER2}.heads"][0, 1, position]  # [d_head]
    d_head = model.config.d_head
    w_o = model.decoder.layers[1].self_attn.w_o.weight[:, d_head : 2 * d_head]
    part = w_o @ heads
    residual = record["decoder.layers.1.after_feed_forward"][0, position]
    norm = model.decoder.norm
    sigma = torch.sqrt(residual.var(unbiased=False) + norm.eps)
    expected = float(((part - part.mean()) / sigma * norm.weight).detach() @ model.generator.weight[token].detach())
    shares = direct_logit_attribution(model, ids, position, token)
    assert shares.heads[1, 1] == pytest.approx(expected, abs=1e-5)


def test_logit_lens_and_attribution_refuse_other_architectures():
    encoder = build_model(TransformerConfig(d_model=16, num_heads=2, src_vocab_size=20), kind="encoder-only")
    for read in (lambda: logit_lens(encoder, [4, 5]), lambda: direct_logit_attribution(encoder, [4, 5], 0, 1)):
        with pytest.raises(ValueError, match="decoder-only"):
            read()


def test_the_sweep_is_each_heads_knock_out_minus_none(induction):
    model, _, batch = induction
    calls = []
    effect = knockout_sweep(
        [LAYER1, LAYER2],
        2,
        lambda iv: task_score(model, batch, iv).accuracy,
        progress=lambda done, total: calls.append((done, total)),
    )
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]
    with torch.inference_mode():

        def accuracy(interventions):
            logits = model(batch.inputs, interventions=interventions).logits
            right = logits.argmax(-1)[batch.loss_mask] == batch.targets[batch.loss_mask]
            return float(right.float().mean())

        for layer, name in enumerate([LAYER1, LAYER2]):
            for head in range(2):
                expected = accuracy([Ablate(name, [head])]) - accuracy([])
                assert effect[layer, head] == pytest.approx(expected, abs=1e-6)


def test_task_score_loss_is_the_cross_entropy_on_the_masked_positions(induction):
    model, _, batch = induction
    with torch.inference_mode():
        logits = model(batch.inputs, interventions=[Ablate(LAYER2, [0])]).logits
    expected = F.cross_entropy(logits[batch.loss_mask], batch.targets[batch.loss_mask])
    assert task_score(model, batch, [Ablate(LAYER2, [0])]).loss == pytest.approx(float(expected), rel=1e-6)


def test_the_induction_circuit(induction):
    """The claims of the "Test a circuit" lesson, on the shipped checkpoint: two layer-2 induction heads, a
    layer-1 previous-token head (head 2) they read from, and a layer-1 head (head 1) that matters little."""
    model, task, batch = induction
    record = model(batch.inputs, return_attention=True).attention
    previous, prefix = score_heads(task, record, batch, "previous-token"), score_heads(task, record, batch)
    assert previous[0].argmax() == 1 and previous[0, 1] > 0.85
    assert (prefix[1] > 0.9).all()
    chance = 1 / 26
    full = task_score(model, batch).accuracy
    assert full > 0.99
    assert task_score(model, batch, [Ablate(LAYER2, [0, 1])]).accuracy < 2 * chance
    assert task_score(model, batch, [Ablate(LAYER1, [1])]).accuracy < full - 0.3
    assert task_score(model, batch, [Ablate(LAYER1, [0])]).accuracy > full - 0.05
    pair = pair_effect(
        model,
        batch,
        (LAYER1, 1),
        (LAYER2, 0),
        lambda rec, p: score_heads(task, rec, batch, p)[1, 0],
        ("prefix matching",),
    )
    assert pair.scores_before["prefix matching"] - pair.scores_after["prefix matching"] > 0.3


def test_patching_restores_through_the_previous_token_head_at_the_changed_tokens_successor(induction):
    model, task, _ = induction
    clean = task.encode_user_input("qphnxodajfbnxodajfbnxodajfbnxoda")
    corrupted = task.encode_user_input("qphcxodajfbnxodajfbnxodajfbnxoda")  # the block's first letter n -> c
    position = 11  # the second n: predicts x
    run = patching_run(model, clean, corrupted, position)
    assert task.symbols([run.answer]) == ["x"]
    grid = restored_by_head(model, run, [LAYER1, LAYER2])
    with torch.inference_mode():  # one cell by hand
        logits = model(torch.tensor([corrupted]), interventions=[Patch(LAYER2, [1], run.source)]).logits[0, position]
        clean_logits = model(torch.tensor([clean])).logits[0, position]
        corrupt_logits = model(torch.tensor([corrupted])).logits[0, position]

    def diff(z):
        return float(z[run.answer] - z[run.foil])

    expected = (diff(logits) - diff(corrupt_logits)) / (diff(clean_logits) - diff(corrupt_logits))
    assert grid[1, 1] == pytest.approx(expected, abs=1e-5)
    assert grid[0, 1] > 0.7
    by_position = restored_by_position(model, run, LAYER1, 1)
    assert int(np.argmax(by_position)) == 4 and by_position[4] > 0.7  # "x", right after the changed letter


def test_patching_says_what_to_change(induction):
    model, task, _ = induction
    clean = task.encode_user_input("qphnxodajfbnxodajfbn")
    with pytest.raises(ValueError, match="same length"):
        patching_run(model, clean, clean[:-1], 5)
    with pytest.raises(ValueError, match="by 0.00, less than 1"):
        patching_run(model, clean, clean, 12)
    with pytest.raises(ValueError, match="outside"):
        patching_run(model, clean, clean, 40)
    encoder = build_model(TransformerConfig(d_model=16, num_heads=2, src_vocab_size=30), kind="encoder-only")
    with pytest.raises(ValueError, match="decoder-only"):
        patching_run(encoder, clean, clean, 3)


@pytest.mark.parametrize(
    "recipe",
    [
        HeadRecipe(),
        HeadRecipe(same_token=1.5, back=0.0, sharpness=3.0),
        HeadRecipe(same_token=-1.0, back=2.0, offset=3, first_token=1.0, sharpness=7.5),
        HeadRecipe(sharpness=0.0),
    ],
)
def test_the_hand_built_head_attends_by_the_formula(recipe):
    ids = [5, 8, 6, 5, 9, 8, 6, 5, 7]
    weights = handmade_pattern(recipe, ids, vocab=12, positions=16)
    t = np.array(ids)
    i, j = np.arange(len(ids))[:, None], np.arange(len(ids))[None, :]
    scores = recipe.sharpness * (
        recipe.same_token * (t[:, None] == t[None, :])
        + recipe.back * (j == i - recipe.offset)
        + recipe.first_token * (j == 0)
    )
    scores = np.where(j <= i, scores, -np.inf)
    expected = np.exp(scores - scores.max(1, keepdims=True))
    expected /= expected.sum(1, keepdims=True)
    np.testing.assert_allclose(weights, expected, atol=1e-6)


def test_a_hand_built_head_refuses_a_bad_recipe():
    with pytest.raises(ValueError, match="offset"):
        HeadRecipe(offset=0)
    with pytest.raises(ValueError, match="sharpness"):
        HeadRecipe(sharpness=-1.0)


def test_patching_a_part_of_a_head_restores_what_that_part_alone_restores(induction):
    """The grid, the bars by position and the bars by part read one set of numbers: each the fraction of the
    logit difference the part restores, recomputed here from the logits of a pass patched with ``Patch``."""
    model, task, _ = induction
    clean = task.encode_user_input("qphnxodajfbnxodajfbnxodajfbnxoda")
    corrupted = task.encode_user_input("qphcxodajfbnxodajfbnxodajfbnxoda")
    run = patching_run(model, clean, corrupted, 11)
    parts = restored_by_part(model, run, LAYER2, 1)
    assert list(parts) == ["output", "q", "k", "v"]
    for part, value in parts.items():
        assert restored_by_head(model, run, [LAYER1, LAYER2], part)[1, 1] == pytest.approx(value, abs=1e-6)
        with torch.inference_mode():
            z = model(torch.tensor([corrupted]), interventions=[Patch(LAYER2, [1], run.source, part=part)]).logits
        difference = float(z[0, 11, run.answer] - z[0, 11, run.foil])
        expected = (difference - run.corrupted_difference) / (run.clean_difference - run.corrupted_difference)
        assert value == pytest.approx(expected, abs=1e-6)
    keys = restored_by_position(model, run, LAYER2, 1, "k")
    assert int(np.argmax(keys)) == 4  # the key right after the changed letter (position 3)
    with torch.inference_mode():
        z = model(
            torch.tensor([corrupted]), interventions=[Patch(LAYER2, [1], run.source, positions=[4], part="k")]
        ).logits
    assert keys[4] == pytest.approx(run.restored(z), abs=1e-6)


def test_resample_ablation_draws_other_examples_of_the_task_laid_out_alike(induction):
    model, task, batch = induction
    other = resample_batch(task, batch, 1)
    assert other.inputs.shape == batch.inputs.shape and (other.inputs != batch.inputs).float().mean() > 0.5
    assert torch.equal(resample_batch(task, batch, 0).inputs, batch.inputs)  # the seed of the batch: itself
    copy = make_task("copy")
    short = copy.batch(8, torch.Generator().manual_seed(3), "val")
    drawn = resample_batch(copy, short, 5)
    assert drawn.inputs.shape == short.inputs.shape and not torch.equal(drawn.inputs, short.inputs)
    typed = tuple(copy.encode_user_input("word"))  # 4 letters and the separator <s>
    ids = resample_ids(copy, typed, 2)
    assert len(ids) == 5 and ids[-1] == typed[-1] and min(ids[:-1]) > typed[-1] and list(ids) != list(typed)
    with pytest.raises(ValueError, match="no example laid out like"):
        resample_ids(copy, tuple(copy.encode_user_input("ab")), 2)  # copy strings have 4 to 10 letters
    source = resample_record(model, other)
    swept = knockout_sweep(
        [LAYER1, LAYER2], 2, lambda iv: task_score(model, batch, iv).accuracy, "resample", source=source
    )
    with torch.inference_mode():
        patched = task_score(model, batch, [Patch(LAYER1, [1], source)]).accuracy
    assert swept[0, 1] == pytest.approx(patched - task_score(model, batch).accuracy, abs=1e-6)
