"""Toy tasks and the trainer: well-formed batches, determinism, pause/continue, checkpoints, head scores.

Expected values are computed here from first principles (the task's rule applied in plain
Python, attention weights built by hand), never taken from the code under test.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
import torch

from transformer import (
    BOS_ID,
    EOS_ID,
    TASK_NAMES,
    Trainer,
    TrainingSetup,
    default_setup,
    load_checkpoint,
    make_task,
    save_checkpoint,
)
from transformer.text_corpus import CORPUS_PATH, SPACE

torch.set_num_threads(1)

LETTERS = "abcdefghijklmnopqrstuvwxyz"
TINY = TrainingSetup(task="copy", d_model=16, heads=2, d_ff=32, attention_only=False, batch_size=16, max_steps=200)
KINDS = [(name, "decoder-only") for name in TASK_NAMES] + [(n, "encoder-decoder") for n in ("copy", "reverse", "sort")]
RULES = {"copy": lambda s: list(s), "reverse": lambda s: list(reversed(s)), "sort": sorted}


def _letters(task, ids) -> list[str]:
    """Ids of a letters task back to letters (ids 0-3 are the specials, 4 = 'a')."""
    return [LETTERS[i - 4] for i in ids]


def _weights_equal(a: torch.nn.Module, b: torch.nn.Module) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))


def _losses(trainer: Trainer) -> list:
    return [(row["step"], row["train_loss"], row["val_loss"], row["val_accuracy"]) for row in trainer.history]


@pytest.mark.parametrize("name, kind", KINDS)
def test_batches_are_well_formed(name, kind):
    task = make_task(name, kind)
    batch = task.batch(24, torch.Generator().manual_seed(5))
    size = batch.inputs.shape[0]
    assert size == 24 and batch.loss_mask.dtype == torch.bool
    assert batch.targets.shape == batch.loss_mask.shape and batch.loss_mask.any()
    assert batch.inputs.dtype == batch.targets.dtype == torch.int64
    assert batch.inputs.max() < task.tokenizer.vocab_size and batch.inputs.min() >= 0
    assert len(batch.tokens) == size and all(len(row) == batch.inputs.shape[1] for row in batch.tokens)
    if kind == "encoder-decoder":
        assert batch.decoder_inputs.shape == batch.targets.shape
        assert (batch.decoder_inputs[:, 0] == BOS_ID).all() and (batch.targets[:, -1] == EOS_ID).all()
        assert torch.equal(batch.decoder_inputs[:, 1:], batch.targets[:, :-1])  # shifted right
        assert batch.inputs.shape[1] <= task.context and batch.targets.shape[1] <= task.context
        for b in range(size):
            source = _letters(task, batch.inputs[b].tolist())
            assert _letters(task, batch.targets[b, :-1].tolist()) == RULES[name](source)
        return
    assert batch.decoder_inputs is None and batch.inputs.shape[1] <= task.context
    assert torch.equal(batch.inputs[:, 1:], batch.targets[:, :-1])  # next-token targets
    if name in RULES:
        n = (batch.inputs.shape[1] - 1) // 2
        assert 4 <= n <= 10 and (batch.inputs[:, n] == BOS_ID).all() and (batch.targets[:, -1] == EOS_ID).all()
        expected_mask = torch.arange(2 * n + 1) >= n
        assert (batch.loss_mask == expected_mask).all()
        for b in range(size):
            source = _letters(task, batch.inputs[b, :n].tolist())
            assert _letters(task, batch.targets[b, n : 2 * n].tolist()) == RULES[name](source)
            assert batch.tokens[b] == source + ["<s>"] + RULES[name](source)


def test_random_layouts_vary_and_the_induction_mask_marks_repeats():
    copy, lengths_seen = make_task("copy"), torch.Generator().manual_seed(3)
    assert len({copy.batch(4, lengths_seen).inputs.shape[1] for _ in range(40)}) >= 4
    task = make_task("induction")
    generator = torch.Generator().manual_seed(1)
    first, second = task.batch(64, generator), task.batch(64, generator)
    assert not torch.equal(first.inputs, second.inputs)
    periods, starts = set(), set()
    for b in range(64):
        row = first.inputs[b].tolist() + [first.targets[b, -1].item()]
        assert all(4 <= t < 30 for t in row)  # letters only
        # the period: the smallest p with a repeating tail; the repeat starts at the first token seen before
        start = next(t for t in range(len(row)) if row[t] in row[:t])
        period = start - row.index(row[start])
        assert all(row[t] == row[t - period] for t in range(start, len(row)))
        assert len(set(row[:start])) == start  # all distinct before the repeat
        periods.add(period)
        starts.add(start - period)
        expected = [row[t] in row[:t] for t in range(32)]  # repeated tokens count
        assert first.loss_mask[b].tolist() == expected
    assert periods <= set(range(6, 15)) and len(periods) >= 5 and len(starts) >= 5


def test_text_batches_are_windows_of_their_split():
    task = make_task("text")
    corpus = SPACE.join(CORPUS_PATH.read_text(encoding="utf-8").lower().split())
    cut = int(len(corpus) * 0.9)
    generator = torch.Generator().manual_seed(0)
    for split, part in (("train", corpus[:cut]), ("val", corpus[cut:])):
        batch = task.batch(8, generator, split)
        assert batch.inputs.shape == (8, task.context) and batch.loss_mask.all()
        for b in range(8):
            window = "".join(task.symbols(batch.inputs[b].tolist() + [batch.targets[b, -1].item()]))
            assert window in part
    assert task.target > 1.0 and task.target_metric == "perplexity"


def test_the_built_in_text_is_tens_of_kb_of_plain_prose_and_its_target_beats_a_bigram_table():
    raw = CORPUS_PATH.read_text(encoding="utf-8")
    assert 40_000 <= len(raw) <= 100_000 and raw.isascii()
    assert set(raw.lower()) <= set(LETTERS + " \n',-.:;")  # a small alphabet, no digits
    corpus = SPACE.join(raw.lower().split())
    task = make_task("text")
    assert sorted(task.source.vocabulary) == sorted(set(corpus))  # every symbol has its own id
    cut = int(len(corpus) * 0.9)
    train, val = corpus[:cut], corpus[cut:]
    size = 4 + len(set(corpus))  # the specials and the alphabet
    pairs, firsts = Counter(zip(train, train[1:])), Counter(train[:-1])
    nll = -sum(math.log((pairs[(b, c)] + 1) / (firsts[b] + size)) for b, c in zip(val, val[1:])) / (len(val) - 1)
    bigram = math.exp(nll)
    assert 8 < bigram < 12 and task.target == round(0.65 * bigram, 2)
    assert make_task("text", text=raw + raw[:20_000]).source.vocabulary == task.source.vocabulary
    with pytest.raises(ValueError, match="at most 100000"):
        make_task("text", text="attention " * 10_001)


@pytest.mark.parametrize("name", ["induction", "copy", "reverse", "sort"])
def test_encode_user_input_round_trip(name):
    task = make_task(name)
    expected = list("helloworld") + (["<s>"] if name != "induction" else [])
    assert task.symbols(task.encode_user_input("Hello World")) == expected
    for bad in ("", "héllo", "abc1", "a" * (33 if name == "induction" else 11)):
        assert task.encode_user_input(bad) is None
    if name != "induction":
        assert make_task(name, "encoder-decoder").encode_user_input("hello") == [11, 8, 15, 15, 18]


def test_encode_user_input_text():
    task = make_task("text")
    assert "".join(task.symbols(task.encode_user_input("Attention  is\nall"))) == f"attention{SPACE}is{SPACE}all"
    assert task.encode_user_input("attention ☃") is None and task.encode_user_input("   ") is None


def test_unknown_tasks_and_kinds_are_value_errors():
    for bad in (
        lambda: make_task("translate"),
        lambda: make_task("induction", "encoder-decoder"),
        lambda: make_task("copy", "encoder-only"),
        lambda: make_task("copy", text="abc"),
        lambda: make_task("text", text="too short"),
        lambda: TrainingSetup(heads=3),
        lambda: TrainingSetup(task="text", kind="encoder-decoder"),
        lambda: TrainingSetup(learning_rate=0.0),
        lambda: TrainingSetup(dropout=1.0),
        lambda: TrainingSetup(task="text", text="short"),
    ):
        with pytest.raises(ValueError):
            bad()


def test_a_few_steps_lower_the_loss_deterministically():
    first, second = Trainer(TINY, eval_every=10), Trainer(TINY, eval_every=10)
    first.train(40)
    second.train(40)
    assert _losses(first) == _losses(second) and _weights_equal(first.model, second.model)
    assert first.history[-1]["val_loss"] < first.history[0]["val_loss"] - 0.3
    assert first.history[-1]["step"] == 40 and all(isinstance(r["train_loss"], float) for r in first.history)
    other_seed = Trainer(replace(TINY, seed=1), eval_every=10)
    other_seed.train(10)
    assert not _weights_equal(first.model, other_seed.model)


@pytest.mark.parametrize("dropout", [0.0, 0.3])
def test_pause_then_continue_is_the_same_run(dropout):
    setup = replace(TINY, dropout=dropout)
    paused, straight = Trainer(setup, eval_every=5), Trainer(setup, eval_every=5)
    paused.train(5)
    paused.train(5)
    straight.train(10)
    assert paused.step == straight.step == 10
    assert _losses(paused) == _losses(straight) and _weights_equal(paused.model, straight.model)
    assert [s.step for s in paused.snapshots] == [0]


def test_set_learning_rate_keeps_weights_and_optimiser_state_after_the_warmup_ramp():
    trainer, rates = Trainer(replace(TINY, warmup=4, learning_rate=0.004)), []
    for _ in range(5):
        trainer.train(1)
        rates.append(trainer.optimizer.param_groups[0]["lr"])
    assert rates == pytest.approx([0.001, 0.002, 0.003, 0.004, 0.004])
    before = {k: v.clone() for k, v in trainer.model.state_dict().items()}
    moments = [s["exp_avg"].clone() for s in trainer.optimizer.state.values()]
    trainer.set_learning_rate(1e-4)
    assert all(torch.equal(before[k], v) for k, v in trainer.model.state_dict().items())
    assert all(torch.equal(m, s["exp_avg"]) for m, s in zip(moments, trainer.optimizer.state.values()))
    trainer.train(1)
    assert trainer.optimizer.param_groups[0]["lr"] == pytest.approx(1e-4)
    with pytest.raises(ValueError):
        trainer.set_learning_rate(-1.0)


def test_snapshots_history_and_max_steps():
    trainer = Trainer(replace(TINY, max_steps=25), eval_every=10, snapshot_every=10)
    trainer.train(100)
    assert trainer.step == 25 and trainer.done
    assert [row["step"] for row in trainer.history] == [0, 10, 20, 25]
    assert [s.step for s in trainer.snapshots] == [0, 10, 20]
    length, weights = trainer.task.probe().inputs.shape[1], trainer.snapshots[-1].weights
    assert sorted(weights) == ["decoder.layers.0.self_attn", "decoder.layers.1.self_attn"]
    for array in weights.values():
        assert array.dtype == np.float32 and array.shape == (2, length, length)
        assert np.allclose(array.sum(-1), 1.0, atol=1e-5)
    row = trainer.history[-1]
    assert np.asarray(row["head_scores"]).shape == (2, 2)
    assert row["head_score"] == max(max(r) for r in row["head_scores"])
    assert "perplexity" not in row and row["seconds"] > 0


def test_checkpoint_bytes_load_and_give_the_same_logits():
    trainer = Trainer(replace(TINY, kind="encoder-decoder"))
    trainer.train(5)
    model, metadata = load_checkpoint(trainer.checkpoint_bytes("tiny copy"))
    assert metadata["task"] == "copy" and metadata["kind"] == "encoder-decoder" and metadata["steps"] == 5
    assert metadata["setup"] == trainer.setup.to_dict() and metadata["seed"] == 0 and metadata["name"] == "tiny copy"
    assert metadata["metrics"]["val_accuracy"] == trainer.history[-1]["val_accuracy"]
    assert metadata["tokenizer"] == trainer.task.tokenizer
    batch, _ = trainer.task.batch(4, torch.Generator().manual_seed(9)), trainer.model.eval()
    with torch.inference_mode():
        assert torch.equal(
            trainer.model(batch.inputs, batch.decoder_inputs).logits, model(batch.inputs, batch.decoder_inputs).logits
        )


def test_resume_goes_on_from_the_saved_weights_step_and_learning_rate():
    trainer = Trainer(TINY)
    trainer.train(30)
    trainer.set_learning_rate(1e-3)
    resumed = Trainer.resume(trainer.checkpoint_bytes("tiny"))
    assert resumed.setup == trainer.setup and resumed.step == 30 and resumed.learning_rate == 1e-3
    assert _weights_equal(resumed.model, trainer.model)
    assert resumed.history[-1]["val_loss"] == pytest.approx(
        trainer.evaluate()["val_loss"], rel=1e-5
    )  # same held-out set
    resumed.train(10)
    assert resumed.step == 40 and resumed.history[-1]["step"] == 40


def test_resume_refuses_a_model_without_training_settings(tmp_path):
    trainer = Trainer(TINY)
    path = tmp_path / "bare.safetensors"
    save_checkpoint(trainer.model, path, {"tokenizer": trainer.task.tokenizer})
    with pytest.raises(ValueError, match="not saved by the Train page"):
        Trainer.resume(path.read_bytes())


def test_a_tiny_model_learns_sort_within_bounded_steps_and_decodes_user_input():
    setup = TrainingSetup(
        task="sort", d_model=16, heads=2, d_ff=32, attention_only=False, learning_rate=1e-2, max_steps=1000
    )
    trainer = Trainer(setup)
    trainer.train(1000)  # ~400 steps, ~3 s here
    assert trainer.done and trainer.step < 1000
    assert trainer.history[-1]["val_accuracy"] >= trainer.task.target == 0.99
    generated, record = trainer.greedy(trainer.task.encode_user_input("brown"), max_new=8)
    assert trainer.task.symbols(generated) == ["b", "n", "o", "r", "w", "</s>"]
    assert record.weights["decoder.layers.1.self_attn"].shape[-1] == 5 + 1 + 6  # b r o w n <s> b n o r w </s>
    assert record.tokens == tuple("brown") + ("<s>",) + tuple("bnorw") + ("</s>",)
    assert trainer.model.training  # back to training mode


def test_greedy_encoder_decoder_and_window():
    trainer = Trainer(replace(TINY, kind="encoder-decoder"))
    generated, record = trainer.greedy([4, 5, 6], max_new=3)
    assert 1 <= len(generated) <= 3
    assert record.weights["decoder.layers.0.cross_attn"].shape[-2:] == (1 + len(generated), 3)
    induction = Trainer(replace(default_setup("induction"), d_model=16, max_steps=5))
    prompt = list(range(4, 30))
    generated, record = induction.greedy(prompt, max_new=10)  # 26 + 10 > 32: a sliding window
    assert len(generated) == 10 and record.weights["decoder.layers.0.self_attn"].shape[-1] == 36
    induction.model.eval()
    with torch.inference_mode():  # each step saw the last 32 tokens
        for i, token in enumerate(generated):
            context = (prompt + generated)[: 26 + i][-32:]
            assert int(induction.model(torch.tensor([context])).logits[0, -1].argmax()) == token
    with pytest.raises(ValueError):
        induction.greedy([], max_new=2)


def test_trained_models_take_inputs_as_long_as_the_pages_give():
    for name, kind in (("induction", "decoder-only"), ("reverse", "encoder-decoder")):
        trainer = Trainer(replace(default_setup(name), kind=kind, d_model=16, max_steps=2))
        assert trainer.config.max_len == 128 >= trainer.task.context
        tokens = torch.randint(4, 30, (1, 128))
        with torch.inference_mode():
            out = trainer.model(*([tokens] * (2 if kind == "encoder-decoder" else 1)), return_attention=True)
        assert torch.isfinite(out.logits).all()
