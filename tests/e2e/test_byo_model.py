"""In a real browser: a GPT-2 folder named in ATTENTION_LAB_MODELS (made here from random weights) is offered by
the picker, picked, and drawn on Multi-head; a folder that cannot be loaded is named with its reason."""

from urllib.parse import parse_qs, urlparse

import pytest

from testing.server import start
from tests.byo_folders import folder_of_models
from tests.e2e.conftest import RANDOM_MULTI_HEAD, assert_no_exception, choose, unfold, wait_for_chart, wait_idle


@pytest.fixture(scope="module")
def byo_server(tmp_path_factory):
    """A server of its own, started with ATTENTION_LAB_MODELS naming a folder of two model folders."""
    root = tmp_path_factory.mktemp("models")
    hf_model, _ = folder_of_models(root)
    with pytest.MonkeyPatch.context() as patch:  # the server inherits the environment when it starts
        patch.setenv("ATTENTION_LAB_MODELS", str(root))
        patch.setenv("HF_HUB_CACHE", str(root / "no-cache"))
        server = start("app.py")
    try:
        yield server.wait_healthy().url, sum(p.numel() for p in hf_model.parameters())
    finally:
        server.stop()


def test_a_gpt2_folder_is_picked_and_drawn_on_multi_head(page, byo_server):
    url, parameters = byo_server
    label = f"tiny-gpt2 (GPT-2 · {parameters:,} parameters, decoder-only (GPT-style))"
    page.goto(f"{url}/{RANDOM_MULTI_HEAD}")
    wait_idle(page)
    wait_for_chart(page, "Layer 1 · 4 heads", timeout=20_000)
    warning = page.locator("[data-testid=stAlert]", has_text="Model folders not offered").first
    unfold(warning)  # the page's settings, folded
    assert "pickled-gpt2" in warning.inner_text() and "pytorch_model.bin" in warning.inner_text()

    choose(
        page, page.locator("[data-testid=stSelectbox]", has_text="model").first.locator("input[role=combobox]"), label
    )
    wait_for_chart(page, "Layer 1 · 4 heads · decoder (causal) self-attention", timeout=30_000)
    wait_idle(page)
    assert_no_exception(page)
    assert parse_qs(urlparse(page.url).query).get("model") == [label]
    assert page.get_by_text("Model: tiny-gpt2.").count() == 1
    assert page.locator(".js-plotly-plot .xtick text", has_text="Ġ").count() > 0  # its byte-level BPE pieces
