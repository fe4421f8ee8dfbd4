"""In a real browser: the model picker's "Upload a checkpoint" popover. A valid checkpoint is selected
(the URL's ``model`` changes) and drawn; a bad file gets an error saying what is wrong, never a
traceback; a checkpoint whose architecture does not fit a page is not offered there."""

from urllib.parse import parse_qs, urlparse

import pytest

from tests.e2e.conftest import (
    DRAWN_TITLES,
    unfold,
    RANDOM_MULTI_HEAD,
    assert_no_exception,
    open_options,
    requested_runs,
    wait_for_chart,
    wait_idle,
)
from lessons.model_labels import RANDOM

MODEL = "[data-testid=stSelectbox]"


@pytest.fixture(scope="module")
def tiny_gpt(tmp_path_factory):
    """A 2-head, d_model 16 decoder-only checkpoint saved by the package, as a user would upload it."""
    from transformer import HashTokenizer, TransformerConfig, build_model, save_checkpoint

    path = tmp_path_factory.mktemp("checkpoints") / "tiny-gpt.safetensors"
    model = build_model(TransformerConfig(d_model=16, num_heads=2, d_ff=32), 1, "decoder-only")
    save_checkpoint(model, str(path), {"tokenizer": HashTokenizer(4096), "task": "demo"})
    return path


def model_param(page) -> str | None:
    return parse_qs(urlparse(page.url).query).get("model", [None])[0]


def wait_for_title(page, text: str, timeout: float = 20_000) -> None:
    wait_for_chart(page, text, timeout=timeout)


def upload(page, path) -> None:
    """Open the picker's popover (in the page's folded settings) and hand ``path`` to its file uploader."""
    unfold(page.locator("button", has_text="Upload a checkpoint").first)
    page.get_by_role("button", name="Upload a checkpoint").click()
    uploader = page.locator("[data-testid=stPopoverBody] input[type=file]")
    uploader.wait_for(state="attached", timeout=10_000)
    before = requested_runs(page)
    uploader.set_input_files(str(path))
    wait_idle(page, after=before)  # the file is sent first, then the run it asks for


def open_multi_head(page, server_url) -> None:
    page.goto(f"{server_url}/{RANDOM_MULTI_HEAD}")
    wait_idle(page)
    wait_for_chart(page, "Layer 1 · 4 heads", timeout=20_000)
    assert model_param(page) == RANDOM  # not the page's own default: the link names it


def test_uploaded_checkpoint_is_selected_and_drawn(page, server_url, tiny_gpt):
    open_multi_head(page, server_url)
    upload(page, tiny_gpt)
    wait_for_title(page, "Layer 1 · 2 heads · decoder (causal) self-attention")
    assert_no_exception(page)
    assert (model_param(page) or "").startswith("tiny-gpt"), page.url
    picker = page.locator(MODEL, has_text="model").first.locator("input[role=combobox]")
    assert picker.input_value().startswith("tiny-gpt")
    titles = page.evaluate(DRAWN_TITLES)
    assert not any("4 heads" in t for t in titles), titles
    assert page.locator(".js-plotly-plot .xtick").count() > 0  # the tiles are drawn, not only the title
    assert page.locator("[data-testid=stAlert]", has_text="not a checkpoint").count() == 0


def test_bad_file_gets_an_error_not_a_traceback(page, server_url, tmp_path):
    bad = tmp_path / "bad.safetensors"
    bad.write_text("this is a text file, not a checkpoint\n")
    open_multi_head(page, server_url)
    upload(page, bad)
    page.keyboard.press("Escape")  # close the popover, which may cover the message
    alert = page.locator("[data-testid=stAlert]", has_text="bad.safetensors")
    alert.first.wait_for(timeout=15_000)
    assert "is not a checkpoint saved by this app" in alert.first.inner_text()
    assert_no_exception(page)
    assert model_param(page) == RANDOM  # the random model stays selected and drawn
    assert any("Layer 1 · 4 heads" in t for t in page.evaluate(DRAWN_TITLES))


def test_decoder_only_checkpoint_is_not_offered_on_encoder_decoder(page, server_url, tiny_gpt):
    open_multi_head(page, server_url)
    upload(page, tiny_gpt)
    wait_for_title(page, "2 heads · decoder (causal)")
    page.get_by_role("link", name="Encoder-decoder").first.click()
    wait_idle(page)
    wait_for_chart(page, "Cross-attention (all layers, mean of heads)", timeout=20_000)  # the translation model
    open_options(page, page.locator(MODEL, has_text="model").first.locator("input[role=combobox]"))
    options = page.get_by_role("option").all_inner_texts()
    page.keyboard.press("Escape")
    assert options and not any("tiny-gpt" in o for o in options), options
    assert_no_exception(page)


def test_a_checkpoint_that_does_not_fit_the_page_gets_a_message(page, server_url, tiny_gpt):
    page.goto(f"{server_url}/encoder_decoder")
    wait_idle(page)
    wait_for_chart(page, "Cross-attention (all layers, mean of heads)", timeout=30_000)  # the translation model
    upload(page, tiny_gpt)
    page.keyboard.press("Escape")
    alert = page.locator("[data-testid=stAlert]", has_text="which this page cannot show")
    alert.first.wait_for(timeout=15_000)
    assert_no_exception(page)
    assert model_param(page) is None
