"""Model folders in Hugging Face's format, made here from random weights (nothing is downloaded).

Each folder is what ``save_pretrained(safe_serialization=True)`` writes for a small random
``BertModel``, ``DistilBertModel`` or ``GPT2LMHeadModel`` (``transformers`` is the reference
implementation), plus a ``tokenizer.json`` trained here with ``tokenizers``: a WordPiece one
for the BERT family, a byte-level BPE one for GPT-2. Weights are drawn wide (std 0.2, LayerNorm
gains in [0.5, 1.5], biases non-zero) so attention maps are peaked and a swapped tensor shows.
"""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before transformers / huggingface_hub read it: never go online
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from torch import nn

CORPUS = [
    "The cat sat on the mat because it was tired.",
    "Attention is all you need, and every head of every layer decides which words matter.",
    "Transformers read a whole sentence at once; the animal didn't cross the street.",
    "Café, naïve, Zürich, résumé, Ελληνικά, señor, crème brûlée.",
    "日本語の文章を読む。中文句子。한국어 문장.",
    "Emoji: 😀 👍🏽 🎉 and symbols © ™ → ∑.",
] * 4
SPECIAL_BERT = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
END = "<|endoftext|>"


def wordpiece_tokenizer(vocab_size: int = 160) -> Tokenizer:
    """A BERT-style uncased WordPiece tokenizer: [CLS] text [SEP], pairs with type ids 0 then 1, [PAD] = 0."""
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True, strip_accents=True, handle_chinese_chars=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    tokenizer.train_from_iterator(CORPUS, trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_BERT))
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    return tokenizer


def bpe_tokenizer(vocab_size: int = 320) -> Tokenizer:
    """A GPT-2-style byte-level BPE tokenizer (every byte in the vocabulary, no special tokens added)."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    tokenizer.train_from_iterator(
        CORPUS,
        trainers.BpeTrainer(
            vocab_size=vocab_size, special_tokens=[END], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
        ),
    )
    return tokenizer


def widen(model: nn.Module, seed: int) -> nn.Module:
    """Redraw every weight wide (see the module's docstring), seeded."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if "ln" in name.lower() or "layer_norm" in name.lower() or "layernorm" in name.lower():
                if name.endswith("weight"):
                    parameter.copy_(torch.rand(parameter.shape, generator=generator) + 0.5)
                else:
                    parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.3)
            elif name.endswith("bias"):
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.1)
            else:
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.2)
    return model.eval()


def save_folder(model: nn.Module, tokenizer: Tokenizer, folder: Path) -> Path:
    """``model.save_pretrained`` (safetensors) and ``tokenizer.json`` into ``folder``."""
    model.save_pretrained(folder, safe_serialization=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    return folder


def bert_folder(folder: Path, token_types: int = 2, hidden_act: str = "gelu", seed: int = 1, **sizes):
    """A random ``BertModel`` (2 layers x 4 heads, d 32 unless ``sizes`` say otherwise) and its folder."""
    import transformers

    tokenizer = wordpiece_tokenizer()
    config = transformers.BertConfig(
        **{
            "vocab_size": tokenizer.get_vocab_size(),
            "hidden_size": 32,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "intermediate_size": 64,
            "max_position_embeddings": 64,
            **sizes,
        },
        type_vocab_size=token_types,
        hidden_act=hidden_act,
        layer_norm_eps=1e-12,
        attn_implementation="eager",
    )
    torch.manual_seed(seed)
    model = widen(transformers.BertModel(config), seed)
    return model, save_folder(model, tokenizer, folder)


def distilbert_folder(folder: Path, seed: int = 2):
    """A random ``DistilBertModel`` (3 layers x 2 heads, d 32, hidden 80) and its folder."""
    import transformers

    tokenizer = wordpiece_tokenizer()
    config = transformers.DistilBertConfig(
        vocab_size=tokenizer.get_vocab_size(),
        dim=32,
        n_layers=3,
        n_heads=2,
        hidden_dim=80,
        max_position_embeddings=64,
        attn_implementation="eager",
    )
    torch.manual_seed(seed)
    model = widen(transformers.DistilBertModel(config), seed)
    return model, save_folder(model, tokenizer, folder)


def gpt2_folder(folder: Path, seed: int = 3, tied: bool = True, **sizes):
    """A random ``GPT2LMHeadModel`` (2 layers x 4 heads, d 32, 64 positions unless ``sizes`` say
    otherwise) and its folder; ``<|endoftext|>`` is its BOS, EOS and padding token."""
    import transformers

    tokenizer = bpe_tokenizer()
    end = tokenizer.token_to_id(END)
    config = transformers.GPT2Config(
        **{
            "vocab_size": tokenizer.get_vocab_size(),
            "n_embd": 32,
            "n_layer": 2,
            "n_head": 4,
            "n_positions": 64,
            **sizes,
        },
        bos_token_id=end,
        eos_token_id=end,
        pad_token_id=end,
        tie_word_embeddings=tied,
        attn_implementation="eager",
    )
    torch.manual_seed(seed)
    model = widen(transformers.GPT2LMHeadModel(config), seed)
    if tied:
        model.tie_weights()
    return model, save_folder(model, tokenizer, folder)


def folder_of_models(root: Path):
    """``root`` holding two model folders: ``tiny-gpt2`` (a GPT-2 that loads) and ``pickled-gpt2`` (the same
    with only ``pytorch_model.bin``, which the app must refuse). Returns the GPT-2's model and folder."""
    import shutil

    hf_model, folder = gpt2_folder(root / "tiny-gpt2")
    broken = shutil.copytree(folder, root / "pickled-gpt2")
    (broken / "model.safetensors").rename(broken / "pytorch_model.bin")
    return hf_model, folder
