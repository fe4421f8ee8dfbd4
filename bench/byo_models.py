"""What a model brought from a folder costs: GPT-2 small, BERT-base, DistilBERT-base and SmolLM2-135M sizes,
random weights.

    python bench/byo_models.py [--models "SmolLM2-135M" ...] [--no-server]

Each folder is written here as ``save_pretrained(safe_serialization=True)`` lays one out: a
``config.json`` of the real sizes, ``model.safetensors`` holding the package's own model of those
sizes (random weights from ``build_model``) under the checkpoint's tensor names and layout (the
tables of ``transformer.weight_maps``, turned around), and a small tokenizer beside it; nothing is
downloaded, and ``transformers`` is not used: that the package computes what it does on such
folders is checked by tests/test_byo_models.py; this measures only the package's own code.

In a fresh process per model, with one torch thread: the process's RSS before and after
``load_pretrained(folder)`` and its peak while loading (the weights file's pages, read through the
page cache, count while it is open), and the median forward pass at 128 tokens, with the attention
record and without; for today's decoder (SmolLM2-135M, a Llama) also a 64-token forward with every
attention map on two threads, the budget docs/performance.md states. Last, a real ``streamlit run app.py`` with
``ATTENTION_LAB_MODELS`` naming the folders: the server's RSS after Multi-head has drawn each
model in turn (one model from a folder is held at a time). Prints Markdown tables.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench.processes import memory_mb  # noqa: E402
from tests.byo_folders import bpe_tokenizer, wordpiece_tokenizer  # noqa: E402

# config.json of each model at its real size (transformers' defaults for GPT2Config, BertConfig and
# DistilBertConfig, the keys transformer.hf_configs reads)
SIZES = {
    "GPT-2 small": {
        "model_type": "gpt2",
        "vocab_size": 50257,
        "n_embd": 768,
        "n_layer": 12,
        "n_head": 12,
        "n_positions": 1024,
    },
    "BERT-base": {
        "model_type": "bert",
        "vocab_size": 30522,
        "hidden_size": 768,
        "num_hidden_layers": 12,
        "num_attention_heads": 12,
        "intermediate_size": 3072,
        "max_position_embeddings": 512,
        "type_vocab_size": 2,
    },
    "DistilBERT-base": {
        "model_type": "distilbert",
        "vocab_size": 30522,
        "dim": 768,
        "n_layers": 6,
        "n_heads": 12,
        "hidden_dim": 3072,
        "max_position_embeddings": 512,
    },
    "SmolLM2-135M": {  # HuggingFaceTB/SmolLM2-135M's config.json (a Llama)
        "model_type": "llama",
        "vocab_size": 49152,
        "hidden_size": 576,
        "intermediate_size": 1536,
        "num_hidden_layers": 30,
        "num_attention_heads": 9,
        "num_key_value_heads": 3,
        "max_position_embeddings": 8192,
        "rope_theta": 100000,
        "rms_norm_eps": 1e-5,
        "hidden_act": "silu",
        "tie_word_embeddings": True,
    },
}

MEASURE = r"""
import json, statistics, sys, time
from pathlib import Path
def rss(field="VmRSS"):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
import torch
tokens, threads = int(sys.argv[2]), int(sys.argv[3])
torch.set_num_threads(threads)
from transformer import load_pretrained
before = rss()
model, tokenizer = load_pretrained(sys.argv[1])
after, peak = rss(), rss("VmHWM")
ids = torch.randint(0, 300, (1, tokens), generator=torch.Generator().manual_seed(0))
times = {}
for record in (True, False):
    runs = []
    with torch.inference_mode():
        for _ in range(23):
            start = time.perf_counter()
            model(ids, return_attention=record)
            runs.append(time.perf_counter() - start)
    times[record] = statistics.median(runs[3:]) * 1000
print(json.dumps({"parameters": sum(p.numel() for p in model.parameters()), "before": before, "after": after,
                  "peak": peak, "with": times[True], "without": times[False]}))
"""


def checkpoint_tensors(state: dict, weight_map, layers: int) -> dict:
    """The model's tensors ``state`` under a checkpoint's names, in its layout: what ``weight_map`` reads
    back into ``state`` (``transformer.weight_maps.renamed`` turned around: fused projections joined,
    GPT-2's Conv1D weights transposed)."""
    import torch

    their_layers = [
        f"{weight_map.layers[0]}.{i}.{module}" for i in range(layers) for module in weight_map.layer_modules
    ]
    tensors = {}
    for module in [*weight_map.modules, *their_layers]:
        for parameter in ("weight", "bias"):
            name = f"{module}.{parameter}"
            ours = weight_map.targets(name)
            if ours and all(part in state for part in ours):
                tensor = torch.cat([state[part] for part in ours])
                if weight_map.conv1d and tensor.dim() == 2 and module in their_layers:
                    tensor = tensor.t()
                tensors[name] = tensor.contiguous()
    return tensors


def make_folders(root: Path, names) -> dict[str, Path]:
    """A folder per model of SIZES named in ``names``, in ``root``: config.json, model.safetensors and tokenizer.json.
    (A Llama's q and k rows stay in the package's order: with random weights, the order is one more draw.)"""
    from safetensors.torch import save_file

    from transformer import build_model
    from transformer.hf_configs import CONFIGS
    from transformer.weight_maps import BERT, DISTILBERT, GPT2, llama

    kinds = {
        "gpt2": ("decoder-only", lambda config: GPT2, bpe_tokenizer),
        "bert": ("encoder-only", lambda config: BERT, wordpiece_tokenizer),
        "distilbert": ("encoder-only", lambda config: DISTILBERT, wordpiece_tokenizer),
        "llama": ("decoder-only", lambda config: llama(config.d_head, config.output_head == "tied"), bpe_tokenizer),
    }
    folders = {}
    for name, hf_config in SIZES.items():
        if name not in names:
            continue
        kind, weight_map_of, tokenizer = kinds[hf_config["model_type"]]
        config = CONFIGS[hf_config["model_type"]](hf_config)
        weight_map = weight_map_of(config)
        layers = config.num_decoder_layers if kind == "decoder-only" else config.num_encoder_layers
        tensors = checkpoint_tensors(build_model(config, seed=0, kind=kind).state_dict(), weight_map, layers)
        folder = root / name.replace(" ", "-")
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(hf_config))
        save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
        tokenizer().save(str(folder / "tokenizer.json"))
        folders[name] = folder
    return folders


def measure(folder: Path, tokens: int = 128, threads: int = 1) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, str(folder), str(tokens), str(threads)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def server_rss(root: Path, folders: dict[str, Path]) -> dict[str, float]:
    """The server's RSS after Multi-head has drawn each model (the random model first)."""
    from playwright.sync_api import sync_playwright

    from testing.server import CHROMIUM_ARGS, IDLE, chromium_path, start
    from transformer import inspect_folder
    from lessons.model_labels import RANDOM
    from ui.model_picker import folder_label

    os.environ["ATTENTION_LAB_MODELS"] = str(root)
    os.environ["HF_HUB_CACHE"] = str(root / "no-cache")
    server = start("app.py").wait_healthy()
    found = {"start-up": memory_mb(server.pid)}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            for name, folder in [("random model", None), *folders.items()]:
                label = RANDOM if folder is None else folder_label(inspect_folder(folder))
                query = "?" + __import__("urllib.parse").parse.urlencode({"model": label})
                page.goto(f"{server.url}/multi_head{query}")
                page.wait_for_selector(".js-plotly-plot .gtitle", timeout=120_000)
                page.wait_for_selector(IDLE, timeout=120_000)
                found[name] = memory_mb(server.pid)
            browser.close()
    finally:
        server.stop()
    return found


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", default=list(SIZES), choices=list(SIZES))
    parser.add_argument("--no-server", action="store_true", help="leave out the streamlit server's RSS")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folders = make_folders(root, args.models)
        print(
            "| model | parameters | float32 weights (MB) | process RSS loaded (MB) | peak while loading (MB) "
            "| forward, 128 tokens, 1 thread, with attention (ms) | without (ms) |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, folder in folders.items():
            m = measure(folder)
            print(
                f"| {name} | {m['parameters'] / 1e6:.1f} M | {4 * m['parameters'] / 2**20:.0f} | "
                f"{m['after']:.0f} (+{m['after'] - m['before']:.0f}) | {m['peak']:.0f} | {m['with']:.1f} | "
                f"{m['without']:.1f} |"
            )
        decoders = [name for name in folders if SIZES[name]["model_type"] == "llama"]
        if decoders:
            print("\n| today's decoder | forward, 64 tokens, 2 threads, every attention map (ms) | without (ms) |")
            print("|---|---:|---:|")
            for name in decoders:
                m = measure(folders[name], tokens=64, threads=2)
                print(f"| {name} | {m['with']:.0f} | {m['without']:.0f} |")
        if args.no_server:
            return
        print()
        print("| server, after | RSS (MB) |")
        print("|---|---:|")
        for name, rss in server_rss(root, folders).items():
            print(f"| {name} | {rss:.0f} |")


if __name__ == "__main__":
    main()
