"""Train every toy task with a fixed seed and write the shipped checkpoints, checkpoints/<task>.safetensors.

    python scripts/train_checkpoints.py [--tasks induction copy ... digits_vit] [--out checkpoints] [--steps N]

Each model starts from its task's ``default_setup`` (the page's defaults; reverse as an
encoder-decoder, trained long enough for its cross-attention to become a clear anti-diagonal),
trains a fixed number of steps past its target with a stepped learning rate (the last phases
at lower rates settle the weights) and is saved with its setup, steps, schedule and held-out
metrics in the file's metadata. ``--steps N`` trains each task N steps at its first rate instead
(a quick run). ``digits_vit`` is the Vision Transformer: ``digits_vit_config()`` trained by
``train_vision`` on the 8 x 8 digits' training split (``VISION_PLAN``: cosine-decayed AdamW, images
moved by up to a pixel), written to checkpoints/digits_vit.safetensors with its held-out accuracy.
``text_mlm`` is an encoder-only model of the text model's size trained by ``train_masked_lm`` (BERT's masked
language modelling) on the same corpus, written with its held-out accuracy at the masked positions.
``text_llama`` is the text task's model with today's decoder block (``block="llama"``: RMSNorm, SwiGLU,
no biases, one key-value head shared by both query heads), ``d_ff`` 88 so that its feed-forward holds about
as many weights as the classic one's (3 x 64 x 88 = 16,896 against 2 x 64 x 128 = 16,384), trained by the
text model's plan, seed and data: the two models differ only in their block.
``translation`` is the English-to-French encoder-decoder (``transformer.translation_training``: the paper's
recipe on the Tatoeba pairs, on ``TRANSLATION_THREADS`` threads), written with its held-out BLEU and chrF by
beam search (4 beams, the paper's length penalty α = 0.6) and by greedy decoding, and the data's licence.

What repeats: the data, the initial weights and dropout come from generators seeded by the setup,
and training runs on one thread with PyTorch's deterministic algorithms, so on one machine (the
same CPU, the same torch build) a rerun writes bit-identical weights and metrics; only the
timings in the metadata differ (tests/test_train_checkpoints.py runs it twice and compares).
What does not: on another CPU, or with another torch or BLAS build, the kernels round differently
(other vector instructions, another summation order) and training amplifies those last-bit
differences, so the weights differ (by up to 0.04 measured on another machine) and so may the
metrics' last digits. The shipped files are the reference; rerunning elsewhere makes new ones.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from transformer import (  # noqa: E402
    TASK_NAMES,
    Trainer,
    checkpoint_data,
    default_setup,
    digits_vit_config,
    train_vision,
)
from transformer.masked_lm import train_masked_lm  # noqa: E402
from transformer.translation import translate  # noqa: E402
from transformer.translation_data import ATTRIBUTION, DATA_NAME, LICENCE, translation_split  # noqa: E402
from transformer.translation_training import TrainedTranslator, TranslationPlan, train_translator  # noqa: E402
from analysis.bleu import corpus_quality  # noqa: E402

SEED = 0
# task -> (changes to the default setup, [(steps, learning rate), ...])
PLANS = {
    "induction": ({}, [(400, 3e-3), (200, 1e-3)]),
    "copy": ({}, [(800, 3e-3), (400, 1e-3)]),
    "reverse": (dict(kind="encoder-decoder", d_model=48, d_ff=96), [(1600, 3e-3), (500, 1e-3), (300, 3e-4)]),
    "sort": ({}, [(800, 3e-3), (400, 1e-3)]),
    "text": ({}, [(3000, 3e-3), (1000, 1e-3), (500, 3e-4)]),  # 49 KB of training text: longer than the others
}
# a checkpoint of another block for a task: name -> (its task, changes to that task's setup)
VARIANTS = {"text_llama": ("text", dict(block="llama", d_ff=88))}
VISION = "digits_vit"
VISION_PLAN = dict(steps=3000, learning_rate=3e-3, weight_decay=0.05, warmup=30, augment=True)
VISION_TARGET = 0.97
# The digits ViTs: the shipped model, and the same trained without position embeddings (a bag of patches),
# which the Vision Transformer page measures against it.
VISIONS = {VISION: digits_vit_config, f"{VISION}_nopos": lambda: digits_vit_config(positional="none")}
MASKED = "text_mlm"
MASKED_PLAN = dict(steps=6000, learning_rate=3e-3, warmup=50, batch_size=32)
TRANSLATION = "translation"
TRANSLATION_THREADS = 2  # the run repeats bit for bit with the same thread count on the same CPU and torch build


def deterministic() -> None:
    """One thread for every kernel and PyTorch's deterministic algorithms, before any training."""
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # already set in this process
        pass


def train(name: str, schedule: list[tuple[int, float]] | None = None) -> tuple[Trainer, float]:
    """The model of a task (or of a variant, ``VARIANTS``) trained by ``schedule`` ([(steps, learning
    rate), ...], by default its task's plan)."""
    task, variant = VARIANTS.get(name, (name, {}))
    changes, planned = PLANS[task]
    schedule = schedule or planned
    total = sum(steps for steps, _ in schedule)
    setup = replace(default_setup(task), seed=SEED, max_steps=total, **{**changes, **variant})
    trainer = Trainer(setup, eval_every=100, snapshot_every=100, stop_at_target=False)
    start = time.perf_counter()
    for steps, rate in schedule:
        trainer.set_learning_rate(rate)
        trainer.train(steps)
    return trainer, time.perf_counter() - start


def vision_checkpoint(steps: int | None = None, name: str = VISION) -> tuple[bytes, dict, float]:
    """(the file's bytes, the last history row, seconds) of the digits ViT ``name`` (``VISIONS``) trained by
    ``VISION_PLAN`` (``steps`` instead of its steps for a quick run)."""
    plan = {**VISION_PLAN, "steps": steps or VISION_PLAN["steps"]}
    start = time.perf_counter()
    model, history = train_vision(VISIONS[name](), seed=SEED, eval_every=500, **plan)
    seconds = time.perf_counter() - start
    target = VISION_TARGET if name == VISION else None  # the model without positions is there to compare
    metadata = {
        "name": name,
        "task": "digits",
        "steps": plan["steps"],
        "metrics": history[-1],
        "seed": SEED,
        "plan": plan,
        "target": target,
        "target_metric": "val_accuracy",
        "data": "transformer/data/digits.safetensors (held-out split)",
        "trained_by": "scripts/train_checkpoints.py",
    }
    return checkpoint_data(model, metadata), history[-1], seconds


def write_vision(out: Path, steps: int | None, name: str = VISION) -> None:
    """Train and write checkpoints/<name>.safetensors, and print its row of the table."""
    data, last, seconds = vision_checkpoint(steps, name)
    path = out / f"{name}.safetensors"
    path.write_bytes(data)
    config = VISIONS[name]()
    model = (
        f"vision, {config.num_encoder_layers}x{config.num_heads}, d {config.d_model}, {config.positional}, "
        f"patch {config.patch_size}"
    )
    print(
        f"| {path.name} | {model} | {last['step']} | {seconds:.1f} | accuracy {last['val_accuracy']:.4f} | "
        f"- | {len(data) / 1024:.0f} KB |",
        flush=True,
    )


def write_masked(out: Path, steps: int | None) -> None:
    """Train and write checkpoints/text_mlm.safetensors (``MASKED_PLAN``), and print its row of the table."""
    plan = {**MASKED_PLAN, "steps": steps or MASKED_PLAN["steps"]}
    start = time.perf_counter()
    model, tokenizer, history = train_masked_lm(seed=SEED, eval_every=500, **plan)
    seconds, last = time.perf_counter() - start, history[-1]
    metadata = {
        "name": MASKED,
        "objective": "masked language modelling",
        "data": "the text task's corpus",
        "steps": plan["steps"],
        "metrics": last,
        "seed": SEED,
        "plan": plan,
        "target_metric": "val_accuracy",
        "tokenizer": tokenizer,
        "trained_by": "scripts/train_checkpoints.py",
    }
    data = checkpoint_data(model, metadata)
    path = out / f"{MASKED}.safetensors"
    path.write_bytes(data)
    config = model.config
    print(
        f"| {path.name} | encoder-only, {config.num_encoder_layers}x{config.num_heads}, d {config.d_model}, "
        f"{config.positional} | {last['step']} | {seconds:.1f} | masked accuracy {last['val_accuracy']:.4f} | - | "
        f"{len(data) / 1024:.0f} KB |",
        flush=True,
    )


def translation_metadata(trained: TrainedTranslator, plan: TranslationPlan) -> dict:
    """The translation checkpoint's metadata: the task, languages, data and licence, the plan, the training
    history and time, and the held-out quality by beam search (the paper's: 4 beams, α = 0.6) and greedy."""
    held_out = translation_split().held_out
    start = time.perf_counter()
    beam = translate(trained.model, trained.tokenizer, list(held_out.english), num_beams=4, length_penalty=0.6)
    beam_seconds = time.perf_counter() - start
    greedy = translate(trained.model, trained.tokenizer, list(held_out.english), num_beams=1)
    quality = {
        name: corpus_quality(hypotheses, held_out.references)
        for name, hypotheses in (("beam", beam), ("greedy", greedy))
    }
    return {
        "name": TRANSLATION,
        "task": "translation",
        "languages": {"source": "en", "target": "fr"},
        "data": DATA_NAME,
        "data_licence": LICENCE,
        "attribution": ATTRIBUTION,
        "held_out_sentences": len(held_out),
        "bleu": round(quality["beam"].bleu, 2),
        "chrf": round(quality["beam"].chrf, 2),
        "greedy_bleu": round(quality["greedy"].bleu, 2),
        "greedy_chrf": round(quality["greedy"].chrf, 2),
        "decoding": "beam search, 4 beams, length penalty ((5 + |Y|) / 6) ** 0.6 (the paper's); BLEU by sacrebleu "
        "(13a tokenization) against every reference",
        "beam_ms_per_sentence": round(1000 * beam_seconds / len(held_out), 1),
        "plan": plan.to_dict(),
        "history": trained.history,
        "training_seconds": round(trained.seconds, 1),
        "threads": TRANSLATION_THREADS,
        "seed": plan.seed,
        "tokenizer": trained.tokenizer,
        "trained_by": "scripts/train_checkpoints.py",
    }


def write_translation(out: Path, trained: TrainedTranslator | None = None) -> None:
    """Train (unless ``trained`` is given) and write checkpoints/translation.safetensors; print its row."""
    plan = TranslationPlan()
    torch.set_num_threads(TRANSLATION_THREADS)
    if trained is None:
        trained = train_translator(translation_split(), plan, lambda row, model: print(row, flush=True))
    metadata = translation_metadata(trained, plan)
    data = checkpoint_data(trained.model, metadata)
    path = out / f"{TRANSLATION}.safetensors"
    path.write_bytes(data)
    config = trained.model.config
    print(
        f"| {path.name} | encoder-decoder, {config.num_encoder_layers}+{config.num_decoder_layers} layers x "
        f"{config.num_heads}, d {config.d_model} | {trained.history[-1]['step']} | {trained.seconds:.1f} | "
        f"BLEU {metadata['bleu']} (greedy {metadata['greedy_bleu']}), chrF {metadata['chrf']} | - | "
        f"{len(data) / 1024:.0f} KB |",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--tasks",
        nargs="*",
        default=[*TASK_NAMES, *VARIANTS, *VISIONS, MASKED, TRANSLATION],
        choices=[*TASK_NAMES, *VARIANTS, *VISIONS, MASKED, TRANSLATION],
    )
    parser.add_argument("--out", default=str(ROOT / "checkpoints"))
    parser.add_argument("--steps", type=int, help="train each task this many steps at its first rate (a quick run)")
    args = parser.parse_args()
    deterministic()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print("| checkpoint | model | steps | seconds | held-out | head score | size |\n|---|---|---|---|---|---|---|")
    for task in args.tasks:
        if task in VISIONS:
            write_vision(out, args.steps, task)
            continue
        if task == MASKED:
            write_masked(out, args.steps)
            continue
        if task == TRANSLATION:
            write_translation(out)
            continue
        planned = PLANS[VARIANTS.get(task, (task,))[0]][1]
        plan = [(args.steps, planned[0][1])] if args.steps else planned
        trainer, seconds = train(task, plan)
        schedule = [{"steps": steps, "learning_rate": rate} for steps, rate in plan]
        data = trainer.checkpoint_bytes(
            task, extra={"schedule": schedule, "trained_by": "scripts/train_checkpoints.py"}
        )
        path = out / f"{task}.safetensors"
        path.write_bytes(data)
        last, setup = trainer.history[-1], trainer.setup
        held_out = (
            f"perplexity {last['perplexity']:.2f} (target <= {trainer.task.target})"
            if trainer.task.name == "text"
            else f"accuracy {last['val_accuracy']:.4f}"
        )
        model = f"{setup.kind}, {setup.layers}x{setup.heads}, d {setup.d_model}, {setup.positional}, {setup.block}"
        print(
            f"| {path.name} | {model} | {trainer.step} | {seconds:.1f} | {held_out} | "
            f"{trainer.task.score_name} {last['head_score']:.2f} | {len(data) / 1024:.0f} KB |",
            flush=True,
        )


if __name__ == "__main__":
    main()
