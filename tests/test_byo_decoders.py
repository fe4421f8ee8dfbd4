"""Today's decoders from a local folder (Llama, SmolLM-like Llama 3, Mistral, Qwen2, Qwen3) against ``transformers``.

Every expected value comes from ``transformers`` (the ``*ForCausalLM`` classes with eager
attention, and ``PreTrainedTokenizerFast`` on the same ``tokenizer.json``); each folder is made
here from random weights (``tests/byo_decoders.py``) and read with ``load_pretrained(folder)``.
Attention maps (the query heads, grouped keys repeated) and logits agree to 1e-5, on one text
and on a right-padded batch (every row compared, padding included), and greedy generation
continues with the same tokens, with and without the KV cache.
"""

import pytest
import torch

from tests.byo_decoders import DECODERS, decoder_folder
from tests.test_byo_models import TEXTS, assert_same_attention, assert_same_greedy_tokens, reference_tokenizer
from transformer import BPETokenizer, DecoderOnly, batch_tensors, load_pretrained

ATOL = 1e-5


@pytest.fixture(scope="module", params=list(DECODERS))
def decoder(request, tmp_path_factory):
    """(name, transformers' model, our model, our tokenizer, transformers' tokenizer, end id)."""
    hf_model, folder, end = decoder_folder(tmp_path_factory.mktemp(request.param), request.param)
    model, tokenizer = load_pretrained(folder)
    return request.param, hf_model, model, tokenizer, reference_tokenizer(folder), end


def run_both(hf_model, model, ids, mask):
    with torch.inference_mode():
        theirs = hf_model(input_ids=ids, attention_mask=mask.long(), output_attentions=True)
        ours = model(ids, attention_mask=mask, return_attention=True)
    return ours, theirs


def test_a_folder_becomes_our_decoder_with_todays_block(decoder):
    name, hf_model, model, tokenizer, _, _ = decoder
    assert isinstance(model, DecoderOnly) and isinstance(tokenizer, BPETokenizer)
    c, hf = model.config, hf_model.config
    assert (c.norm, c.activation, c.positional, c.norm_first, c.bias) == ("rmsnorm", "swiglu", "rotary", True, False)
    head_dim = getattr(hf, "head_dim", None) or hf.hidden_size // hf.num_attention_heads
    assert (c.num_heads, c.kv_heads, c.d_head) == (hf.num_attention_heads, hf.num_key_value_heads, head_dim)
    assert (c.d_head != c.d_model // c.num_heads) == (name == "qwen3")
    assert c.qk_norm == (name == "qwen3") and c.qkv_bias == (name == "qwen2")
    assert c.attention_window == (4 if name == "mistral" else None)
    assert (c.rope_scaling or ("default",))[0] == ("llama3" if name == "llama3-smollm" else "default")
    assert sum(p.numel() for p in model.parameters()) == sum(p.numel() for p in hf_model.parameters())
    assert not model.training and not any(p.requires_grad for p in model.parameters())


@pytest.mark.parametrize("text", TEXTS, ids=["plain", "emoji-cjk-accents", "short"])
def test_decoder_matches_transformers_on_one_text(decoder, text):
    name, hf_model, model, tokenizer, reference, _ = decoder
    pieces = tokenizer.encode_text(text)
    expected = reference(text, truncation=True, max_length=tokenizer.max_tokens)["input_ids"]
    assert list(pieces.ids) == expected
    assert pieces.tokens == tuple(reference.convert_ids_to_tokens(expected))
    tensors = pieces.tensors()
    ours, theirs = run_both(hf_model, model, tensors["input_ids"], tensors["attention_mask"])
    assert ours.attention.weights["decoder.layers.0.self_attn"].shape[1] == hf_model.config.num_attention_heads
    assert_same_attention(ours.attention, theirs.attentions)
    torch.testing.assert_close(ours.logits, theirs.logits, atol=ATOL, rtol=0)


def rows_with_a_key(mask: torch.Tensor, window: int | None) -> torch.Tensor:
    """``[B, L]``: True where query i sees a real key j (j <= i, and i - j < window if there is one). A padding
    query past a window of padding sees none: transformers spreads it evenly over every key, the package
    gives it zeros, and neither is read."""
    length = mask.shape[1]
    i, j = torch.arange(length)[:, None], torch.arange(length)[None, :]
    allowed = (j <= i) & ((i - j) < (window or length))
    return (allowed[None] & mask.bool()[:, None, :]).any(-1)


def test_decoder_matches_transformers_on_a_right_padded_batch(decoder):
    name, hf_model, model, tokenizer, _, end = decoder
    tensors = batch_tensors([tokenizer.encode_text(text) for text in TEXTS], pad_id=end)
    mask = tensors["attention_mask"]
    assert not mask.all()
    ours, theirs = run_both(hf_model, model, tensors["input_ids"], mask)
    read = rows_with_a_key(mask, getattr(hf_model.config, "sliding_window", None))
    assert read.all() == (name != "mistral")
    for layer, expected in zip(ours.attention.names(), theirs.attentions):
        weights = ours.attention.weights[layer]
        torch.testing.assert_close(weights.transpose(1, 2)[read], expected.transpose(1, 2)[read], atol=ATOL, rtol=0)
        assert (weights.transpose(1, 2)[~read] == 0).all()
    torch.testing.assert_close(ours.logits[read], theirs.logits[read], atol=ATOL, rtol=0)


@pytest.mark.parametrize("prompt", TEXTS[:2], ids=["plain", "emoji-cjk-accents"])
def test_greedy_generation_matches_transformers(decoder, prompt):
    name, hf_model, model, tokenizer, _, end = decoder
    ids = list(tokenizer.with_max_tokens(30).encode_text(prompt).ids)
    assert_same_greedy_tokens(hf_model, model, ids, end)


@pytest.mark.parametrize("decoder", ["mistral"], indirect=True)
def test_the_sliding_window_hides_keys_older_than_four(decoder):
    name, _, model, tokenizer, _, _ = decoder
    ours = model(tokenizer.encode_text(TEXTS[0]).tensors()["input_ids"], return_attention=True)
    weights = ours.attention.weights["decoder.layers.1.self_attn"][0, 0]
    query, key = torch.tril_indices(*weights.shape, offset=-4)
    assert weights.shape[0] > 8 and (weights[query, key] == 0).all()
    assert (weights.diagonal(-3) > 0).all()


def test_parity_can_fail(decoder):
    """One RMSNorm gain moved by 1e-3 breaks the logits' comparison."""
    name, hf_model, model, tokenizer, _, _ = decoder
    tensors = tokenizer.encode_text(TEXTS[0]).tensors()
    gain = model.decoder.layers[0].norm2.weight
    with torch.no_grad():
        gain.add_(1e-3)
    try:
        ours, theirs = run_both(hf_model, model, tensors["input_ids"], tensors["attention_mask"])
        with pytest.raises(AssertionError):
            torch.testing.assert_close(ours.logits, theirs.logits, atol=ATOL, rtol=0)
    finally:
        with torch.no_grad():
            gain.sub_(1e-3)
