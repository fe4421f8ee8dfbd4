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


def imports_the_compiler(work: str) -> bool:
    """Whether a fresh Python process that runs ``work`` (statements) has imported PyTorch's compiler."""
    script = f"import sys; {work}; print('torch._dynamo' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip() == "True"


def test_a_fresh_process_loads_minilm_without_importing_the_compiler():
    assert not imports_the_compiler("from transformer import load_pretrained; load_pretrained('all-MiniLM-L6-v2')")


def test_a_fresh_process_checks_the_shipped_checkpoints_without_importing_the_compiler():
    """Every shipped checkpoint is checked against a model built on the meta device (the picker lists them on a
    page's first run): the sinusoidal table of those models is computed on the CPU, so none of it imports PyTorch's
    compiler either."""
    assert not imports_the_compiler(
        "from pathlib import Path; from transformer.checkpoint import checkpoint_info; "
        "[checkpoint_info(p.read_bytes()) for p in sorted(Path('checkpoints').glob('*.safetensors'))]"
    )


def test_a_sinusoidal_table_is_the_formulas_on_the_cpu_and_only_its_shape_on_the_meta_device():
    from transformer.positional import SinusoidalEncoding, sinusoidal_encoding

    torch.testing.assert_close(SinusoidalEncoding(50, 16).table, sinusoidal_encoding(50, 16))
    with torch.device("meta"):
        encoding = SinusoidalEncoding(50, 16)
    assert encoding.table.is_meta and tuple(encoding.table.shape) == (50, 16)
