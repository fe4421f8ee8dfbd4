"""Hugging Face ``config.json`` files (BERT, DistilBERT, GPT-2, the Llama family) as ``TransformerConfig``s.

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

Llama, Mistral, Qwen2 and Qwen3 (SmolLM is a Llama) are today's decoder: pre-norm with
RMSNorm, rotary positions (RoPE, base ``rope_theta``), a gated SwiGLU feed-forward, grouped-query
attention, no biases (Qwen2: on Q, K and V), the output matrix tied or not:

    a_i = x_i + MultiHead(RMSNorm_1(x_i)),   x_{i+1} = a_i + (SiLU(h W_gate) * h W_up) W_down,  h = RMSNorm_2(a_i)

Mistral adds a sliding window, Qwen3 an RMSNorm on each head's queries and keys and its own
``head_dim``; Llama 3.1 scales RoPE's slow frequencies (``rope_scaling`` type "llama3").

Dropout is 0 (the models are for inference). An option the package cannot express
exactly is a ValueError that says which and what is supported.
"""

from __future__ import annotations

from .config import TransformerConfig

SUPPORTED_TYPES = ("bert", "distilbert", "gpt2", "llama", "mistral", "qwen2", "qwen3")
LLAMA_FAMILY = ("llama", "mistral", "qwen2", "qwen3")
ROPE_TYPES = ("default", "linear", "llama3")
# the gate's activation in a gated feed-forward -> ours (SiLU gates SwiGLU, tanh-GELU GeGLU)
GATED = {"silu": "swiglu", "swish": "swiglu", "gelu_pytorch_tanh": "geglu", "gelu_new": "geglu"}
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


_LLAMA_SIZES = {
    "hidden_size": "d_model",
    "num_attention_heads": "num_heads",
    "num_hidden_layers": "num_decoder_layers",
    "intermediate_size": "d_ff",
    "max_position_embeddings": "max_len",
    "vocab_size": "tgt_vocab_size",
}


def _rope(hf_config: dict) -> tuple[float, tuple | None]:
    """(base, rope_scaling) from ``rope_parameters`` (transformers 5) or ``rope_theta`` and
    ``rope_scaling`` (earlier files); a type the package cannot compute is a ValueError naming it."""
    rope = hf_config.get("rope_parameters") or hf_config.get("rope_scaling") or {}
    if not isinstance(rope, dict) or any(isinstance(value, dict) for value in rope.values()):
        raise ValueError("rope parameters per layer type are not supported; one RoPE for every layer is.")
    base = float(rope.get("rope_theta", hf_config.get("rope_theta", 10000.0)))
    kind = rope.get("rope_type", rope.get("type", "default"))
    if kind not in ROPE_TYPES:
        raise ValueError(f"rope_scaling type {kind!r} is not supported; the package computes {', '.join(ROPE_TYPES)}.")
    partial = rope.get("partial_rotary_factor", hf_config.get("partial_rotary_factor", 1.0))
    if partial not in (None, 1, 1.0):
        raise ValueError(f"partial_rotary_factor={partial!r} is not supported; RoPE turns every dimension of a head.")
    if kind == "default":
        return base, None
    if kind == "linear":
        return base, ("linear", rope.get("factor"))
    original = rope.get("original_max_position_embeddings", hf_config.get("max_position_embeddings"))
    numbers = (rope.get("factor"), rope.get("low_freq_factor"), rope.get("high_freq_factor"), original)
    return base, ("llama3", *numbers)


def _window(hf_config: dict, model_type: str) -> int | None:
    """The sliding window every layer uses (Mistral's ``sliding_window``; Qwen's when every layer slides),
    None for full attention; windows on some layers only are a ValueError."""
    window = hf_config.get("sliding_window")
    if model_type == "mistral":
        return window
    if model_type == "llama" or window is None:
        return None
    layers = hf_config["num_hidden_layers"]
    kinds = hf_config.get("layer_types") or [
        "sliding_attention"
        if hf_config.get("use_sliding_window") and i >= hf_config.get("max_window_layers", 0)
        else "full_attention"
        for i in range(layers)
    ]
    if set(kinds) == {"full_attention"}:
        return None
    if set(kinds) == {"sliding_attention"}:
        return window
    raise ValueError("sliding windows on some layers only are not supported; one window for every layer is.")


def llama_config(hf_config: dict) -> TransformerConfig:
    """The ``TransformerConfig`` of a Llama, Mistral, Qwen2 or Qwen3 ``config.json`` (SmolLM is a Llama):
    pre-norm RMSNorm (``rms_norm_eps``), RoPE (``rope_theta``, scaled by type "linear" or "llama3"),
    the gated feed-forward (``hidden_act`` SiLU: SwiGLU), grouped-query attention
    (``num_key_value_heads``), ``head_dim``, no biases but Qwen2's on Q, K and V, Qwen3's q/k norm,
    Mistral's sliding window, the output matrix tied when ``tie_word_embeddings``."""
    if not isinstance(hf_config, dict) or hf_config.get("model_type") not in LLAMA_FAMILY:
        raise ValueError(f"model_type must be one of {LLAMA_FAMILY} here.")
    model_type = hf_config["model_type"]
    sizes = _sizes(hf_config, _LLAMA_SIZES)
    act = hf_config.get("hidden_act", "silu")
    if act not in GATED:
        raise ValueError(f"hidden_act={act!r} is not supported; the gated feed-forward takes {sorted(GATED)}.")
    _refuse_flags(hf_config, ("mlp_bias",), "the feed-forward has no biases in the Llama family here.")
    if model_type != "qwen2":
        _refuse_flags(hf_config, ("attention_bias",), "attention without biases (or Qwen2's Q, K, V biases) loads.")
    base, scaling = _rope(hf_config)
    head_dim = hf_config.get("head_dim", 128 if model_type == "qwen3" else None)
    if head_dim == sizes["d_model"] // sizes["num_heads"] and sizes["d_model"] % sizes["num_heads"] == 0:
        head_dim = None
    return TransformerConfig(
        **sizes,
        src_vocab_size=sizes["tgt_vocab_size"],
        num_kv_heads=hf_config.get("num_key_value_heads") or sizes["num_heads"],
        head_dim=head_dim,
        dropout=0.0,
        positional="rotary",
        pe_base=base,
        rope_scaling=scaling,
        activation=GATED[act],
        norm="rmsnorm",
        norm_first=True,
        layer_norm_eps=float(hf_config.get("rms_norm_eps", 1e-6)),
        bias=False,
        qkv_bias=model_type == "qwen2",
        qk_norm=model_type == "qwen3",
        attention_window=_window(hf_config, model_type),
        embed_scale=False,
        embed_norm=False,
        output_head="tied" if hf_config.get("tie_word_embeddings", False) else "linear",
        output_bias=False,
    )


CONFIGS = {
    "bert": bert_config,
    "distilbert": distilbert_config,
    "gpt2": gpt2_config,
    **{model_type: llama_config for model_type in LLAMA_FAMILY},
}
