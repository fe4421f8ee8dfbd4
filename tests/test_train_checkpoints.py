"""scripts/train_checkpoints.py repeats itself: two runs, in two processes with different hash seeds,
write bit-identical weights and the same metadata but for the timings (short runs of three tasks:
a decoder-only task, the encoder-decoder one and the text task with its vocabulary from the corpus)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import torch
from safetensors import safe_open

ROOT = Path(__file__).resolve().parent.parent
TASKS = ("induction", "reverse", "text")


def _read(path: Path) -> tuple[dict, dict]:
    """(tensors by name, metadata without the timings) of one written checkpoint."""
    with safe_open(str(path), framework="pt") as file:
        tensors = {name: file.get_tensor(name) for name in file.keys()}
        metadata = file.metadata()
    extra = json.loads(metadata["metadata"])
    extra["metrics"].pop("seconds")
    return tensors, {**metadata, "metadata": extra}


def test_two_short_runs_write_bit_identical_weights(tmp_path):
    runs = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"run{hash_seed}"
        command = [
            sys.executable,
            str(ROOT / "scripts" / "train_checkpoints.py"),
            "--tasks",
            *TASKS,
            "--steps",
            "12",
            "--out",
            str(out),
        ]
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        runs.append(
            (
                out,
                subprocess.Popen(
                    command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
                ),
            )
        )
    for out, process in runs:
        output, _ = process.communicate(timeout=300)
        assert process.returncode == 0, output
        assert sorted(path.name for path in out.iterdir()) == sorted(f"{task}.safetensors" for task in TASKS)
    for task in TASKS:
        (first, first_meta), (second, second_meta) = (_read(out / f"{task}.safetensors") for out, _ in runs)
        assert first.keys() == second.keys() and len(first) > 10
        for name in first:
            assert torch.equal(first[name], second[name]), f"{task}: {name} differs between two runs"
        assert first_meta == second_meta
        assert first_meta["metadata"]["steps"] == 12 and first_meta["metadata"]["schedule"][0]["steps"] == 12
