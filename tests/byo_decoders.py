"""Folders of today's decoders (Llama, Mistral, Qwen2, Qwen3) made here from random weights.

Each is what ``save_pretrained(safe_serialization=True)`` writes for a small random
``LlamaForCausalLM``, ``MistralForCausalLM``, ``Qwen2ForCausalLM`` or ``Qwen3ForCausalLM``
(``transformers`` is the reference), with a ``tokenizer.json`` trained here: byte-level BPE
(SmolLM, Llama 3, Qwen) or, for Llama 2 and Mistral, SentencePiece-style pieces ("▁" before a
word) with ``<s>`` put first. The sizes make every feature show on a short text: grouped and
multi-query heads, a head_dim apart from d_model / heads, a window of 4 keys, Llama 3's scaled
RoPE whose three kinds of frequency (kept, blended, divided) all occur.
"""

from __future__ import annotations

from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

from tests.byo_folders import CORPUS, END, bpe_tokenizer, save_folder

BOS, EOS, UNK = "<s>", "</s>", "<unk>"

_SIZES = {
    "vocab_size": 0,
    "hidden_size": 32,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "intermediate_size": 64,
    "max_position_embeddings": 64,
    "rms_norm_eps": 1e-6,
}
# name -> (transformers' class, config overrides, tokenizer: "bytes" or "pieces")
DECODERS = {
    "llama": ("LlamaForCausalLM", "LlamaConfig", {"tie_word_embeddings": False}, "pieces"),
    "llama3-smollm": (
        "LlamaForCausalLM",
        "LlamaConfig",
        {
            "hidden_size": 64,
            "num_key_value_heads": 1,
            "tie_word_embeddings": True,
            "rope_parameters": {
                "rope_type": "llama3",
                "rope_theta": 10000.0,
                "factor": 8.0,
                "low_freq_factor": 1.0,
                "high_freq_factor": 4.0,
                "original_max_position_embeddings": 32,
            },
        },
        "bytes",
    ),
    "mistral": ("MistralForCausalLM", "MistralConfig", {"sliding_window": 4, "tie_word_embeddings": False}, "pieces"),
    "qwen2": ("Qwen2ForCausalLM", "Qwen2Config", {"tie_word_embeddings": True}, "bytes"),
    "qwen3": ("Qwen3ForCausalLM", "Qwen3Config", {"head_dim": 16, "tie_word_embeddings": False}, "bytes"),
}


def piece_tokenizer(vocab_size: int = 320) -> Tokenizer:
    """A SentencePiece-style BPE (Llama 2, Mistral): "▁" marks a space, unknown bytes fall back to
    ``<0xNN>`` pieces, ``<s>`` is put before every text."""
    tokenizer = Tokenizer(models.BPE(unk_token=UNK, byte_fallback=True))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    tokenizer.decoder = decoders.Sequence([decoders.ByteFallback(), decoders.Metaspace(replacement="▁")])
    bytes_ = [f"<0x{i:02X}>" for i in range(256)]
    tokenizer.train_from_iterator(
        CORPUS, trainers.BpeTrainer(vocab_size=vocab_size + 256, special_tokens=[UNK, BOS, EOS, *bytes_])
    )
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{BOS} $A", pair=f"{BOS} $A {BOS} $B", special_tokens=[(BOS, tokenizer.token_to_id(BOS))]
    )
    return tokenizer


def randomised(model: torch.nn.Module, seed: int) -> torch.nn.Module:
    """Every weight redrawn, seeded: norm gains in [0.5, 1.5], biases N(0, 0.1), the rest N(0, 0.2)."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if "norm" in name and name.endswith("weight"):
                parameter.copy_(torch.rand(parameter.shape, generator=generator) + 0.5)
            else:
                std = 0.1 if name.endswith("bias") else 0.2
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * std)
    return model.eval()


def decoder_folder(folder: Path, name: str, seed: int = 5):
    """A random model of ``DECODERS[name]`` and its folder; returns (transformers' model, folder, end id)."""
    import transformers

    model_class, config_class, overrides, kind = DECODERS[name]
    tokenizer = piece_tokenizer() if kind == "pieces" else bpe_tokenizer()
    end = tokenizer.token_to_id(EOS if kind == "pieces" else END)
    config = getattr(transformers, config_class)(
        **{**_SIZES, "vocab_size": tokenizer.get_vocab_size(), **overrides},
        bos_token_id=tokenizer.token_to_id(BOS) if kind == "pieces" else end,
        eos_token_id=end,
        pad_token_id=end,
        attn_implementation="eager",
    )
    torch.manual_seed(seed)
    model = randomised(getattr(transformers, model_class)(config), seed)
    if config.tie_word_embeddings:
        model.tie_weights()
    return model, save_folder(model, tokenizer, folder), end
