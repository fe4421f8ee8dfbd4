"""Hugging Face ``config.json`` files of BERT, DistilBERT and GPT-2 as the package's ``TransformerConfig``.

BERT is the encoder of the paper with learned positions, token-type (segment)
embeddings, a LayerNorm after the embeddings, GELU and post-LN:

    x_0 = LN(E[ids] + P[pos] + T[types])
    a_i = LN(x_i + MultiHead(x_i, x_i, x_i))
    x_{i+1} = LN(a_i + GELU(a_i W_1 + b_1) W_2 + b_2)

which is ``TransformerConfig(positional="learned", embed_scale=False, type_vocab_size=2,
embed_norm=True, activation="gelu", norm_first=False)``. DistilBERT is the same
without token types (its LayerNorms' epsilon is fixed at 1e-12). GPT-2 is a causal
decoder with learned positions, no LayerNorm after the embeddings, pre-LN layers and a
final LayerNorm, GELU's tanh approximation and the token embedding reused as the
output matrix (no output bias):

    x_0 = E[ids] + P[pos]
    a_i = x_i + MultiHead(LN_1(x_i)),   x_{i+1} = a_i + FFN(LN_2(a_i))
    logits = LN_f(x_N) E^T

Dropout is 0 (the models are for inference). An option the package cannot express
exactly is a ValueError that says which and what is supported.
"""

from __future__ import annotations

from .config import TransformerConfig

SUPPORTED_TYPES = ("bert", "distilbert", "gpt2")
# Hugging Face's activation names -> ours: "gelu" is the exact erf GELU; gelu_new and
# gelu_pytorch_tanh are both 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
ACTIVATIONS = {"gelu": "gelu", "relu": "relu", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh"}

# config.json keys that must be present, and the package's field each becomes
_BERT_SIZES = {
    "hidden_size": "d_model",
    "num_attention_heads": "num_heads",
    "num_hidden_layers": "num_encoder_layers",
    "intermediate_size": "d_ff",
    "max_position_embeddings": "max_len",
    "vocab_size": "src_vocab_size",
    "type_vocab_size": "type_vocab_size",
}
_DISTILBERT_SIZES = {
    "dim": "d_model",
    "n_heads": "num_heads",
    "n_layers": "num_encoder_layers",
    "hidden_dim": "d_ff",
    "max_position_embeddings": "max_len",
    "vocab_size": "src_vocab_size",
}
_GPT2_SIZES = {
    "n_embd": "d_model",
    "n_head": "num_heads",
    "n_layer": "num_decoder_layers",
    "n_positions": "max_len",
    "vocab_size": "tgt_vocab_size",
}


def _model_type(hf_config: dict, expected: str) -> None:
    if not isinstance(hf_config, dict):
        raise ValueError("config.json must hold a JSON object.")
    model_type = hf_config.get("model_type", expected)
    if model_type != expected:
        raise ValueError(
            f"model_type={model_type!r} is not supported here; only {expected!r} configs load "
            f"(the supported model types are {', '.join(SUPPORTED_TYPES)})."
        )


def _sizes(hf_config: dict, required: dict[str, str]) -> dict:
    missing = [key for key in required if hf_config.get(key) is None]
    if missing:
        raise ValueError(
            f"config.json lacks {missing}; a {hf_config.get('model_type', 'bert')} config needs {sorted(required)}."
        )
    return {field: hf_config[key] for key, field in required.items()}


def _activation(hf_config: dict, key: str, default: str) -> str:
    act = hf_config.get(key, default)
    if not isinstance(act, str) or act not in ACTIVATIONS:
        raise ValueError(
            f"{key}={act!r} is not supported; the package has {sorted(ACTIVATIONS)} "
            f"(exact erf GELU, its tanh approximation, and ReLU)."
        )
    return ACTIVATIONS[act]


def _refuse_flags(hf_config: dict, flags: tuple[str, ...], why: str) -> None:
    for flag in flags:
        if hf_config.get(flag):
            raise ValueError(f"{flag}=true is not supported; {why}")


def bert_config(hf_config: dict) -> TransformerConfig:
    """The ``TransformerConfig`` of a BERT ``config.json`` (as a dict), or a ValueError saying what
    it has that the encoder cannot express (relative positions, a decoder, another model type)."""
    _model_type(hf_config, "bert")
    activation = _activation(hf_config, "hidden_act", "gelu")
    positions = hf_config.get("position_embedding_type", "absolute")
    if positions != "absolute":
        raise ValueError(
            f"position_embedding_type={positions!r} is not supported; only 'absolute' "
            f"(a learned table added to the embeddings) is."
        )
    _refuse_flags(hf_config, ("is_decoder", "add_cross_attention"), "only the bidirectional encoder loads.")
    sizes = _sizes(hf_config, _BERT_SIZES)
    if sizes["type_vocab_size"] in (0, False):
        raise ValueError("type_vocab_size must be at least 1: BERT always adds token-type embeddings.")
    return TransformerConfig(
        **sizes,
        tgt_vocab_size=sizes["src_vocab_size"],
        dropout=0.0,
        positional="learned",
        activation=activation,
        norm_first=False,
        layer_norm_eps=float(hf_config.get("layer_norm_eps", 1e-12)),
        embed_scale=False,
        embed_norm=True,
        output_head="none",
    )


def distilbert_config(hf_config: dict) -> TransformerConfig:
    """The ``TransformerConfig`` of a DistilBERT ``config.json``: BERT without token types.
    A sinusoidal position table (``sinusoidal_pos_embds``) is stored in the weights like a learned one."""
    _model_type(hf_config, "distilbert")
    activation = _activation(hf_config, "activation", "gelu")
    sizes = _sizes(hf_config, _DISTILBERT_SIZES)
    return TransformerConfig(
        **sizes,
        tgt_vocab_size=sizes["src_vocab_size"],
        dropout=0.0,
        positional="learned",
        activation=activation,
        norm_first=False,
        layer_norm_eps=1e-12,
        embed_scale=False,
        embed_norm=True,
        output_head="none",
    )


def gpt2_config(hf_config: dict) -> TransformerConfig:
    """The ``TransformerConfig`` of a GPT-2 ``config.json``: pre-LN, learned positions, the tanh GELU,
    ``d_ff = n_inner`` (4 d_model when null), the output matrix tied to the token embedding unless
    ``tie_word_embeddings`` is false, no output bias. Scores are divided by sqrt(d_k) unless
    ``scale_attn_weights`` is false; ``reorder_and_upcast_attn`` only changes the rounding order."""
    _model_type(hf_config, "gpt2")
    activation = _activation(hf_config, "activation_function", "gelu_new")
    _refuse_flags(hf_config, ("add_cross_attention",), "only the decoder without cross-attention loads.")
    _refuse_flags(
        hf_config,
        ("scale_attn_by_inverse_layer_idx",),
        "the package scales every layer's scores alike (by 1/sqrt(d_k), or not at all).",
    )
    sizes = _sizes(hf_config, _GPT2_SIZES)
    inner = hf_config.get("n_inner")
    return TransformerConfig(
        **sizes,
        src_vocab_size=sizes["tgt_vocab_size"],
        d_ff=4 * sizes["d_model"] if inner is None else inner,
        dropout=0.0,
        positional="learned",
        activation=activation,
        norm_first=True,
        scale_scores=bool(hf_config.get("scale_attn_weights", True)),
        layer_norm_eps=float(hf_config.get("layer_norm_epsilon", 1e-5)),
        embed_scale=False,
        embed_norm=False,
        output_head="tied" if hf_config.get("tie_word_embeddings", True) else "linear",
        output_bias=False,
    )


CONFIGS = {"bert": bert_config, "distilbert": distilbert_config, "gpt2": gpt2_config}
