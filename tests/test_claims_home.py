"""Home's sentences: the classroom sizes it names are the ones the pages' controls start at (read from each page's
controls, not from the constants), the √d_model scaling is not tied to word order, the opening says what runs the
models (the package's own code, all-MiniLM-L6-v2's weights loaded into it; not "a small model on every page"), and
the Vision page's summary says the ViT's positions are numbered in a line (one learned row a token), not 2-D."""

from __future__ import annotations

import re

from pathlib import Path

import pytest
import torch

from tests.apptest_helpers import RANDOM_MODEL, assert_no_exception, run_page
from ui.pages_index import PAGES

ROOT = Path(__file__).resolve().parent.parent


def home_caption() -> str:
    at = run_page("pages/home/page.py")
    assert_no_exception(at)
    return next(c.value for c in at.caption if "classroom sizes" in c.value)


def started_at(page: str, keys: tuple[str, ...], query: dict | None = None) -> list[int]:
    """The values the page's controls ``keys`` show when it opens with nothing in the URL (but ``query``)."""
    at = run_page(f"pages/{page}/page.py", query or {})
    assert_no_exception(at)
    found = {w.key: w.value for kind in ("slider", "select_slider") for w in at.get(kind)}
    return [int(found[key]) for key in keys]


def said(caption: str, where: str) -> list[int]:
    """The layers (both stacks'), d_model and heads the caption gives ``where``."""
    match = re.search(r"([\d + ]+) layers?, d_model = (\d+), (\d+) heads?[^;]*? on " + re.escape(where), caption)
    assert match, (where, caption)
    return [int(n) for n in match[1].split(" + ")] + [int(match[2]), int(match[3])]


@pytest.mark.parametrize(
    ("page", "where", "keys", "query"),
    [
        ("encoder_decoder", "the Encoder-decoder page", ("enc", "dec", "d_model", "heads"), {"model": RANDOM_MODEL}),
        ("multi_head", "Multi-head attention", ("layers", "d_model", "heads"), {"model": RANDOM_MODEL}),
        ("masks", "Multi-head attention, Masks", ("layers", "d_model", "heads"), None),
        (
            "positional_encoding",
            "Multi-head attention, Masks and Positional encoding's word order",
            ("wo_layers", "wo_d", "wo_heads"),
            {"section": "Word order"},
        ),
        ("self_attention", "Self-attention", ("layers", "d_model", "heads"), None),
    ],
)
def test_the_classroom_sizes_home_names_are_where_the_pages_start(page, where, keys, query):
    caption = home_caption()
    assert said(caption, where) == started_at(page, keys, query)
    if page == "encoder_decoder":
        d_ff = int(re.search(r"d_ff = (\d+) on the Encoder-decoder page", caption)[1])
        assert [d_ff] == started_at(page, ("d_ff",), query)


def test_the_embedding_scale_is_not_said_to_be_about_word_order():
    at = run_page("pages/home/page.py")
    text = " ".join(m.value for m in at.markdown)
    assert "has nothing to do with order" in text and "pre-softmax linear layer" in text
    assert "ignores word order, so the token embeddings are multiplied" not in text


def test_the_opening_says_what_runs_the_models():
    from transformer import EncoderOnly, load_pretrained

    at = run_page("pages/home/page.py")
    assert_no_exception(at)
    opening = next(m.value for m in at.markdown if m.value.startswith("See inside a Transformer"))
    assert "Every page runs a small model" not in opening
    assert "a real pretrained one, all-MiniLM-L6-v2, whose weights are loaded into that code" in opening
    assert "(on the Vision Transformer page, a digit you draw)" in opening
    model, _ = load_pretrained()  # the pretrained weights run in the package's own encoder
    assert isinstance(model, EncoderOnly) and type(model).__module__.startswith("transformer.")


def test_the_vision_summary_says_the_positions_are_a_line():
    from transformer import load_checkpoint

    summary = next(page.summary for page in PAGES if page.path == "pages/vision/page.py")
    assert "2-D position" not in summary
    assert "the position embeddings it learned for patches numbered in a line (1-D)" in summary
    assert "whether neighbours on the grid come out alike" in summary
    model, _ = load_checkpoint(ROOT / "checkpoints" / "digits_vit.safetensors")
    table = model.embed.position.table.weight  # one learned row a token: [CLS], then the patches 1..N
    side = model.config.image_size // model.config.patch_size
    assert isinstance(table, torch.nn.Parameter) and tuple(table.shape) == (1 + side * side, model.config.d_model)
