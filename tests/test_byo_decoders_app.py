"""Today's decoders brought from folders in the app: a Qwen3 (grouped keys, q/k norm, wide heads) and a Llama
whose tokenizer puts <s> first, offered and drawn where decoders fit, as ``transformers`` computes them."""

import pytest
import transformers

from tests.apptest_helpers import assert_no_exception, chart_by_title, decode_array, run_page
from tests.byo_decoders import decoder_folder
from tests.test_byo_app import assert_layer_two_drawn
from tests.test_byo_experiments_generate import assert_page_writes_greedy

TEXT = "The cat sat on the mat because it was tired."
PAGES = (
    "pages/self_attention/page.py",
    "pages/multi_head/page.py",
    "pages/masks/page.py",
    "pages/experiments/page.py",
    "pages/generate/page.py",
)


@pytest.fixture(scope="module")
def decoders(tmp_path_factory):
    """{name: (transformers' model, folder)} for a Qwen3 and a Llama in one folder of folders."""
    root = tmp_path_factory.mktemp("decoders")
    return {name: decoder_folder(root / name, name)[:2] for name in ("qwen3", "llama")}


@pytest.fixture
def offered(decoders, tmp_path, monkeypatch):
    import ui.local_models

    monkeypatch.setenv("ATTENTION_LAB_MODELS", str(next(iter(decoders.values()))[1].parent))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    ui.local_models._listing.clear()
    yield decoders
    ui.local_models._listing.clear()


def label(name: str, hf_model) -> str:
    parameters = sum(p.numel() for p in hf_model.parameters())
    architecture = {"qwen3": "Qwen3", "llama": "Llama"}[name]
    return f"{name} ({architecture} · {parameters:,} parameters, decoder-only (GPT-style))"


def reference_ids(folder, text: str) -> list[int]:
    return transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))(text)["input_ids"]


def test_a_qwen3_folder_is_drawn_on_multi_head_as_transformers_computes(offered):
    hf_model, folder = offered["qwen3"]
    at = run_page("pages/multi_head/page.py", {"model": label("qwen3", hf_model), "layer": "2", "text": TEXT})
    assert_no_exception(at)
    ids = reference_ids(folder, TEXT)
    assert_layer_two_drawn(at, hf_model, ids)


def test_the_sinks_section_names_the_tokenizers_first_token(offered):
    hf_model, folder = offered["llama"]
    at = run_page(
        "pages/multi_head/page.py", {"model": label("llama", hf_model), "text": TEXT, "section": "Attention sinks"}
    )
    assert_no_exception(at)
    assert reference_ids(folder, TEXT)[0] == hf_model.config.bos_token_id
    said = "“\\<s\\>”, a special token the tokenizer puts before every text"  # as typed: Markdown shows <s>
    assert any(said in m.value for m in at.markdown)


@pytest.mark.parametrize("name", ["qwen3", "llama"])
def test_each_decoder_is_offered_and_runs_on_every_page_for_decoders(offered, name):
    wanted = label(name, offered[name][0])
    for page in PAGES:
        at = run_page(page, {"model": wanted})
        assert_no_exception(at)
        assert at.selectbox(key="model").value == wanted, page
    assert wanted not in run_page("pages/encoder_decoder/page.py").selectbox(key="model").options


@pytest.mark.parametrize(
    "section", ("Knock out", "Importance", "Circuit", "Logit lens", "Attribution", "Build a head", "Patching")
)
def test_every_experiment_runs_on_qwen3(offered, section):
    at = run_page(
        "pages/experiments/page.py", {"model": label("qwen3", offered["qwen3"][0]), "input": TEXT, "section": section}
    )
    assert_no_exception(at)
    assert not at.error


def test_qwen3_writes_on_generate_as_transformers_computes(offered):
    hf_model, folder = offered["qwen3"]
    ids = reference_ids(folder, "the cat")
    at = run_page(
        "pages/generate/page.py",
        {"model": label("qwen3", hf_model), "prompt": "the cat", "section": "Compare", "new": "8"},
    )
    assert_no_exception(at)
    assert_page_writes_greedy(at, hf_model, folder, ids, 8)
    for section in ("Next token", "Attention", "KV cache", "Cost"):
        at = run_page("pages/generate/page.py", {"model": label("qwen3", hf_model), "section": section})
        assert_no_exception(at)
    heights = decode_array(
        chart_by_title(
            run_page("pages/generate/page.py", {"model": label("qwen3", hf_model), "prompt": "the cat"}), "Token 1"
        )["data"][0]["x"]
    )
    assert heights.size > 0
