"""What a model brought from a folder costs: GPT-2 small, BERT-base and DistilBERT-base sizes, random weights.

    python bench/byo_models.py

Each model is made here with ``transformers`` (random weights at the real sizes, saved with
``save_pretrained(safe_serialization=True)``, a small tokenizer beside it: nothing is
downloaded). Then, in a fresh process per model, with one torch thread: the process's RSS before
and after ``load_pretrained(folder)`` and its peak while loading (the weights file's pages, read
through the page cache, count while it is open), and the median forward pass
at 128 tokens, with the attention record and without. Last, a real ``streamlit run app.py`` with
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

from bench.memory import rss_mb  # noqa: E402
from tests.byo_folders import bpe_tokenizer, save_folder, wordpiece_tokenizer  # noqa: E402

MEASURE = r"""
import json, statistics, sys, time
from pathlib import Path
def rss(field="VmRSS"):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
import torch
torch.set_num_threads(1)
from transformer import load_pretrained
before = rss()
model, tokenizer = load_pretrained(sys.argv[1])
after, peak = rss(), rss("VmHWM")
ids = torch.randint(0, 300, (1, 128), generator=torch.Generator().manual_seed(0))
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


def make_folders(root: Path) -> dict[str, Path]:
    import torch
    import transformers

    torch.manual_seed(0)
    made = {
        "GPT-2 small": (transformers.GPT2LMHeadModel(transformers.GPT2Config()), bpe_tokenizer()),
        "BERT-base": (transformers.BertModel(transformers.BertConfig()), wordpiece_tokenizer()),
        "DistilBERT-base": (transformers.DistilBertModel(transformers.DistilBertConfig()), wordpiece_tokenizer()),
    }
    return {name: save_folder(model.eval(), tokenizer, root / name.replace(" ", "-"))
            for name, (model, tokenizer) in made.items()}


def measure(folder: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", MEASURE, str(folder)], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def server_rss(root: Path, folders: dict[str, Path]) -> dict[str, float]:
    """The server's RSS after Multi-head has drawn each model (default random model first)."""
    from playwright.sync_api import sync_playwright

    from testing.server import CHROMIUM_ARGS, IDLE, chromium_path, start
    from transformer import inspect_folder
    from ui.model_picker import folder_label

    os.environ["ATTENTION_LAB_MODELS"] = str(root)
    os.environ["HF_HUB_CACHE"] = str(root / "no-cache")
    server = start("app.py").wait_healthy()
    found = {"start-up": rss_mb(server.pid)}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            for name, folder in [("random model (default)", None), *folders.items()]:
                query = "" if folder is None else "?" + __import__("urllib.parse").parse.urlencode(
                    {"model": folder_label(inspect_folder(folder))})
                page.goto(f"{server.url}/multi_head{query}")
                page.wait_for_selector(".js-plotly-plot .gtitle", timeout=120_000)
                page.wait_for_selector(IDLE, timeout=120_000)
                found[name] = rss_mb(server.pid)
            browser.close()
    finally:
        server.stop()
    return found


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folders = make_folders(root)
        print("| model | parameters | float32 weights (MB) | process RSS loaded (MB) | peak while loading (MB) "
              "| forward, 128 tokens, 1 thread, with attention (ms) | without (ms) |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, folder in folders.items():
            m = measure(folder)
            print(f"| {name} | {m['parameters'] / 1e6:.1f} M | {4 * m['parameters'] / 2**20:.0f} | "
                  f"{m['after']:.0f} (+{m['after'] - m['before']:.0f}) | {m['peak']:.0f} | {m['with']:.1f} | "
                  f"{m['without']:.1f} |")
        print()
        print("| server, after | RSS (MB) |")
        print("|---|---:|")
        for name, rss in server_rss(root, folders).items():
            print(f"| {name} | {rss:.0f} |")


if __name__ == "__main__":
    main()
