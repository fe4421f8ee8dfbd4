"""The models' embedding table: nn.Embedding's N(0, 1) on a real device, no draw on the meta device, where a folder's
model is built only to take the folder's weights; so loading all-MiniLM-L6-v2 in a fresh process imports no part
of PyTorch's compiler (that import alone took about 1.7 s of a 1.9 s first load)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import torch

from transformer.embedding import Embedding

ROOT = Path(__file__).resolve().parent.parent


def test_on_the_cpu_an_embedding_draws_a_standard_normal_table():
    torch.manual_seed(0)
    table = Embedding(2000, 64).weight.detach()
    assert abs(float(table.mean())) < 0.01 and abs(float(table.std()) - 1.0) < 0.01


def test_on_the_meta_device_it_has_the_shape_and_draws_nothing():
    with torch.device("meta"):
        table = Embedding(30522, 384)
    assert table.weight.is_meta and tuple(table.weight.shape) == (30522, 384)


def test_a_fresh_process_loads_minilm_without_importing_the_compiler():
    script = (
        "import sys; from transformer import load_pretrained; load_pretrained('all-MiniLM-L6-v2'); "
        "print('torch._dynamo' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "False"
