"""Models brought from a local folder (BERT, DistilBERT, GPT-2 in Hugging Face's format) against ``transformers``.

Every expected value comes from ``transformers`` (``BertModel``, ``DistilBertModel``,
``GPT2LMHeadModel`` with eager attention, and ``PreTrainedTokenizerFast`` reading the same
``tokenizer.json``), never from the package: each folder is made here from random weights
(``tests/byo_folders.py``) and loaded with ``load_pretrained(folder)``. Attention maps, last
hidden states and logits agree to 1e-5, token ids exactly, on texts with emoji, accents and CJK
and on a right-padded batch (every row and column compared, padding included).
"""

import pytest
import torch

from tests.byo_folders import END, bert_folder, distilbert_folder, gpt2_folder
import transformers
from transformer import BPETokenizer, DecoderOnly, EncoderOnly, WordPieceTokenizer, batch_tensors, load_pretrained
from transformer import generate

ATOL = 1e-5
TEXTS = [
    "The cat sat on the mat because it was tired.",
    "Emoji 😀👍🏽 and CJK 日本語の文章, accents: café naïve Zürich résumé Ελληνικά!",
    "Attention is all you need.",
]
ENCODERS = {
    "bert": lambda folder: bert_folder(folder),
    "bert-one-token-type-tanh-gelu": lambda folder: bert_folder(
        folder,
        token_types=1,
        hidden_act="gelu_new",
        hidden_size=48,
        num_attention_heads=6,
        num_hidden_layers=3,
        intermediate_size=96,
    ),
    "distilbert": lambda folder: distilbert_folder(folder),
}


def reference_tokenizer(folder):
    return transformers.PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))


@pytest.fixture(scope="module", params=list(ENCODERS))
def encoder(request, tmp_path_factory):
    """(name, transformers' model, our model, our tokenizer, transformers' tokenizer)."""
    hf_model, folder = ENCODERS[request.param](tmp_path_factory.mktemp(request.param))
    model, tokenizer = load_pretrained(folder)
    return request.param, hf_model, model, tokenizer, reference_tokenizer(folder)


@pytest.fixture(scope="module", params=["tied", "untied"])
def gpt2(request, tmp_path_factory):
    hf_model, folder = gpt2_folder(tmp_path_factory.mktemp(f"gpt2-{request.param}"), tied=request.param == "tied")
    model, tokenizer = load_pretrained(str(folder))
    return hf_model, model, tokenizer, reference_tokenizer(folder)


def assert_same_attention(ours, theirs) -> None:
    names = ours.names()
    assert len(names) == len(theirs) > 0
    for name, expected in zip(names, theirs):
        torch.testing.assert_close(ours.weights[name], expected, atol=ATOL, rtol=0, msg=name)


def encoder_batch(tokenizer, texts):
    return batch_tensors([tokenizer.encode_text(text) for text in texts])


def run_encoders(name, hf_model, model, tensors):
    hf_inputs = {"input_ids": tensors["input_ids"], "attention_mask": tensors["attention_mask"].long()}
    ours_inputs = dict(hf_inputs)
    if name == "bert":  # token types only where the model has them (two kinds)
        hf_inputs["token_type_ids"] = ours_inputs["token_type_ids"] = tensors["token_type_ids"]
    with torch.inference_mode():
        theirs = hf_model(**hf_inputs, output_attentions=True)
        ours = model(**ours_inputs, return_attention=True)
    return ours, theirs


# ---- BERT and DistilBERT ---------------------------------------------------------------------------


def test_encoder_is_our_encoder_only_model(encoder):
    name, hf_model, model, tokenizer, _ = encoder
    assert isinstance(model, EncoderOnly) and isinstance(tokenizer, WordPieceTokenizer)
    assert not model.training and not any(p.requires_grad for p in model.parameters())
    assert sum(p.numel() for p in model.parameters()) == sum(
        p.numel() for p in hf_model.parameters() if not p.dtype.is_complex
    ) - _pooler(hf_model)


def _pooler(hf_model) -> int:
    pooler = getattr(hf_model, "pooler", None)
    return 0 if pooler is None else sum(p.numel() for p in pooler.parameters())


@pytest.mark.parametrize("text", TEXTS, ids=["plain", "emoji-cjk-accents", "short"])
def test_encoder_matches_transformers_on_one_text(encoder, text):
    name, hf_model, model, tokenizer, reference = encoder
    pieces = tokenizer.encode_text(text)
    assert list(pieces.ids) == reference(text, truncation=True, max_length=tokenizer.max_tokens)["input_ids"]
    assert pieces.tokens == tuple(reference.convert_ids_to_tokens(list(pieces.ids)))
    ours, theirs = run_encoders(name, hf_model, model, pieces.tensors())
    assert_same_attention(ours.attention, theirs.attentions)
    torch.testing.assert_close(ours.hidden, theirs.last_hidden_state, atol=ATOL, rtol=0)


def test_encoder_matches_transformers_on_a_padded_batch(encoder):
    name, hf_model, model, tokenizer, _ = encoder
    tensors = encoder_batch(tokenizer, TEXTS)
    assert not tensors["attention_mask"].all()
    ours, theirs = run_encoders(name, hf_model, model, tensors)
    assert_same_attention(ours.attention, theirs.attentions)
    torch.testing.assert_close(ours.hidden, theirs.last_hidden_state, atol=ATOL, rtol=0)


@pytest.mark.parametrize("encoder", ["bert"], indirect=True)  # token types exist in the two-type BERT only
def test_bert_with_token_types_matches_on_a_pair(encoder):
    name, hf_model, model, tokenizer, reference = encoder
    pieces = tokenizer.encode_pair(TEXTS[0], TEXTS[1])
    expected = reference(
        TEXTS[0], TEXTS[1], truncation=True, max_length=tokenizer.max_tokens, return_token_type_ids=True
    )
    assert list(pieces.ids) == expected["input_ids"] and list(pieces.type_ids) == expected["token_type_ids"]
    assert set(pieces.type_ids) == {0, 1}
    ours, theirs = run_encoders(name, hf_model, model, pieces.tensors())
    assert_same_attention(ours.attention, theirs.attentions)
    torch.testing.assert_close(ours.hidden, theirs.last_hidden_state, atol=ATOL, rtol=0)


def test_encoder_parity_can_fail(encoder):
    """The comparison is sharp: one LayerNorm bias moved by 1e-3 breaks it."""
    name, hf_model, model, tokenizer, _ = encoder
    tensors = encoder_batch(tokenizer, TEXTS[:1])
    bias = model.encoder.layers[-1].norm1.bias
    with torch.no_grad():
        bias.add_(1e-3)
    try:
        ours, theirs = run_encoders(name, hf_model, model, tensors)
        with pytest.raises(AssertionError):
            torch.testing.assert_close(ours.hidden, theirs.last_hidden_state, atol=ATOL, rtol=0)
    finally:
        with torch.no_grad():
            bias.sub_(1e-3)


# ---- GPT-2 -----------------------------------------------------------------------------------------


def gpt2_batch(tokenizer, texts):
    end = tokenizer.encode([END])[0]
    return batch_tensors([tokenizer.encode_text(text) for text in texts], pad_id=end)


def run_gpt2(hf_model, model, ids, mask):
    with torch.inference_mode():
        theirs = hf_model(input_ids=ids, attention_mask=mask.long(), output_attentions=True)
        ours = model(ids, key_mask=mask[:, None, None, :], return_attention=True)
    return ours, theirs


def test_gpt2_is_our_decoder_only_model(gpt2):
    hf_model, model, tokenizer, _ = gpt2
    assert isinstance(model, DecoderOnly) and isinstance(tokenizer, BPETokenizer)
    c = model.config
    assert (c.norm_first, c.activation, c.positional, c.output_bias, c.d_ff) == (
        True,
        "gelu_tanh",
        "learned",
        False,
        128,
    )
    assert sum(p.numel() for p in model.parameters()) == sum(p.numel() for p in hf_model.parameters())


@pytest.mark.parametrize("text", TEXTS, ids=["plain", "emoji-cjk-accents", "short"])
def test_gpt2_matches_transformers_on_one_text(gpt2, text):
    hf_model, model, tokenizer, reference = gpt2
    pieces = tokenizer.encode_text(text)
    expected = reference(text, truncation=True, max_length=tokenizer.max_tokens)["input_ids"]
    assert list(pieces.ids) == expected and not any(pieces.special)
    assert pieces.tokens == tuple(reference.convert_ids_to_tokens(expected))
    assert tokenizer.decode(pieces.ids) == reference.decode(expected)
    tensors = pieces.tensors()
    ours, theirs = run_gpt2(hf_model, model, tensors["input_ids"], tensors["attention_mask"])
    assert_same_attention(ours.attention, theirs.attentions)
    torch.testing.assert_close(ours.logits, theirs.logits, atol=ATOL, rtol=0)


def test_gpt2_matches_transformers_on_a_padded_batch(gpt2):
    hf_model, model, tokenizer, _ = gpt2
    tensors = gpt2_batch(tokenizer, TEXTS)
    mask = tensors["attention_mask"]
    assert not mask.all()
    ours, theirs = run_gpt2(hf_model, model, tensors["input_ids"], mask)
    assert_same_attention(ours.attention, theirs.attentions)
    torch.testing.assert_close(ours.logits, theirs.logits, atol=ATOL, rtol=0)
    with torch.inference_mode():
        hidden = hf_model.transformer(input_ids=tensors["input_ids"], attention_mask=mask.long()).last_hidden_state
    torch.testing.assert_close(ours.hidden, hidden, atol=ATOL, rtol=0)


def test_gpt2_long_text_is_cut_at_the_cap(gpt2):
    _, _, tokenizer, reference = gpt2
    text = " ".join(TEXTS * 6)
    pieces = tokenizer.with_max_tokens(40).encode_text(text)
    assert list(pieces.ids) == reference(text, truncation=True, max_length=40)["input_ids"]
    assert len(pieces) == 40 and pieces.cut_from == len(reference(text)["input_ids"]) > 40


@pytest.mark.parametrize("prompt", TEXTS[:2], ids=["plain", "emoji-cjk-accents"])
def test_gpt2_greedy_generation_matches_transformers(gpt2, prompt):
    hf_model, model, tokenizer, _ = gpt2
    ids = list(tokenizer.with_max_tokens(24).encode_text(prompt).ids)  # room for 20 more in 64 positions
    end = tokenizer.encode([END])[0]
    assert_same_greedy_tokens(hf_model, model, ids, end)


def assert_same_greedy_tokens(hf_model, model, ids: list[int], end: int, new: int = 20) -> None:
    """Greedy generation of ``new`` tokens after ``ids`` gives transformers' tokens, with the KV cache and without."""
    with torch.inference_mode():
        expected = hf_model.generate(
            torch.tensor([ids]),
            attention_mask=torch.ones(1, len(ids), dtype=torch.long),
            max_new_tokens=new,
            do_sample=False,
            num_beams=1,
            eos_token_id=end,
            pad_token_id=end,
        )[0, len(ids) :].tolist()
    if end in expected:  # transformers pads after the end; the end itself is the last token
        expected = expected[: expected.index(end) + 1]
    for use_cache in (True, False):
        ours = generate(model, ids, new, strategy="greedy", eos_id=end, use_cache=use_cache)
        assert list(ours.tokens) == expected, use_cache
    assert len(expected) >= 1


def test_gpt2_parity_can_fail(gpt2):
    """One attention bias moved by 1e-3 breaks the logits' comparison."""
    hf_model, model, tokenizer, _ = gpt2
    tensors = tokenizer.encode_text(TEXTS[0]).tensors()
    bias = model.decoder.layers[0].self_attn.w_v.bias
    with torch.no_grad():
        bias.add_(1e-3)
    try:
        ours, theirs = run_gpt2(hf_model, model, tensors["input_ids"], tensors["attention_mask"])
        with pytest.raises(AssertionError):
            torch.testing.assert_close(ours.logits, theirs.logits, atol=ATOL, rtol=0)
    finally:
        with torch.no_grad():
            bias.sub_(1e-3)
