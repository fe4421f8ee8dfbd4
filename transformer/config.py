"""Hyperparameters of every model in the package, validated on construction."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from .positional_schemes import positional_scheme

ACTIVATIONS = ("relu", "gelu", "gelu_tanh", "swiglu", "geglu")
GATED_ACTIVATIONS = ("swiglu", "geglu")  # FFN(x) = (act(x W_gate) * x W_up) W_down
OUTPUT_HEADS = ("linear", "tied", "none")
NORMS = ("layernorm", "rmsnorm")
ROPE_SCALINGS = {  # rope_scaling[0] -> the numbers that follow it
    "linear": ("factor",),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"),
}


@dataclass(frozen=True)
class TransformerConfig:
    """All the knobs of an encoder-decoder, decoder-only or encoder-only Transformer.

    Frozen, so it can key a cache. ``d_model`` must split evenly into
    ``num_heads`` heads of ``d_head = d_model / num_heads`` dimensions.
    ``pe_base`` is the base of the sinusoids (10000 in the paper, ``l`` in the
    tutorials) and of the rotary frequencies. ``norm_first=False`` is the
    paper's post-LN layer; ``scale_scores`` divides QK^T by sqrt(d_k).

    The defaults are the paper's design (post-LN, ReLU, sinusoidal positions,
    embeddings scaled by sqrt(d_model)) at classroom sizes: 2 + 2 layers,
    d_model 64, 4 heads, d_ff 256, separate source and target embeddings and
    output matrix. The paper's base model is ``paper_base_config()``: N = 6,
    d_model 512, h = 8, d_ff 2048, one embedding matrix shared by the source, the
    target and the pre-softmax layer (``share_embeddings=True``,
    ``output_head="tied"``). ``share_embeddings`` needs one vocabulary
    (``src_vocab_size == tgt_vocab_size``); ``build_model`` ties the matrices.
    BERT is ``positional="learned"``,
    ``embed_scale=False`` (no sqrt(d_model) on the embeddings),
    ``type_vocab_size=2`` (token-type embeddings), ``embed_norm=True`` (a
    LayerNorm after the embeddings), ``activation="gelu"``, post-LN and
    ``layer_norm_eps=1e-12``. ``output_head`` is "linear" (its own matrix),
    "tied" (the token embedding's, transposed) or "none" (hidden states only);
    ``output_bias=False`` leaves its bias out (GPT-2's head has none).
    ``activation`` is ReLU, GELU (exact, with erf) or "gelu_tanh", GELU's tanh
    approximation 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), GPT-2's.
    An encoder-only model reads ``num_encoder_layers`` and ``src_vocab_size``, a
    decoder-only one ``num_decoder_layers`` and ``tgt_vocab_size``.
    ``feed_forward=False`` makes an attention-only model: its layers have no
    feed-forward sublayer (and no LayerNorm or dropout of their own for it), as in
    the two-layer models where induction heads were first found; ``d_ff`` is then unused.
    ``num_kv_heads`` (None = ``num_heads``) shares each key and value head among a group of
    ``num_heads / num_kv_heads`` query heads (1 = multi-query attention, a divisor = grouped-query);
    ``attention_window`` (None = full) lets each query of a causal self-attention see at most its
    ``w`` most recent keys, itself included (a sliding window).
    Today's decoders (Llama, Mistral, Qwen) change the block: ``norm="rmsnorm"`` normalises by the
    root mean square alone (no centring, no bias) where ``"layernorm"`` (the default) centres and
    scales; ``activation="swiglu"`` (or ``"geglu"``) gates the feed-forward,
    (SiLU(x W_gate) * x W_up) W_down, with ``d_ff`` units in each of its two input projections;
    ``head_dim`` (None = ``d_model / num_heads``) sets d_k on its own (Qwen3's heads are wider than
    ``d_model / num_heads``); ``qk_norm`` normalises each head's queries and keys (RMSNorm over d_k)
    before RoPE (Qwen3); ``qkv_bias`` (None = ``bias``) gives the Q, K and V projections their own
    bias setting (Qwen2 has them, its W^O does not); ``rope_scaling`` stretches RoPE's frequencies:
    ``("linear", factor)`` divides them all, ``("llama3", factor, low_freq_factor, high_freq_factor,
    original_max_position_embeddings)`` divides the slow ones only (Llama 3.1).
    A vision model (``build_model(..., kind="vision")``, a ViT) reads square images of
    ``channels`` x ``image_size`` x ``image_size`` pixels cut into non-overlapping
    ``patch_size`` x ``patch_size`` patches, ``(image_size / patch_size)^2`` tokens after its
    [CLS] token, and sorts them into ``num_classes`` classes; it uses ``num_encoder_layers`` and
    no vocabulary. The defaults (8 x 8 grey images, 2 x 2 patches, 10 classes) are the
    handwritten digits of ``transformer.digits``; the other kinds ignore these four fields.
    """

    d_model: int = 64
    num_heads: int = 4
    num_encoder_layers: int = 2
    num_decoder_layers: int = 2
    d_ff: int = 256
    dropout: float = 0.1
    positional: str = "sinusoidal"
    pe_base: float = 10000.0
    max_len: int = 128
    norm_first: bool = False
    activation: str = "relu"
    scale_scores: bool = True
    src_vocab_size: int = 4096
    tgt_vocab_size: int = 4096
    bias: bool = True
    layer_norm_eps: float = 1e-5
    embed_scale: bool = True
    type_vocab_size: int = 0
    embed_norm: bool = False
    output_head: str = "linear"
    feed_forward: bool = True
    share_embeddings: bool = False
    num_kv_heads: int | None = None
    attention_window: int | None = None
    output_bias: bool = True
    norm: str = "layernorm"
    head_dim: int | None = None
    qk_norm: bool = False
    qkv_bias: bool | None = None
    rope_scaling: tuple | None = None
    image_size: int = 8
    patch_size: int = 2
    channels: int = 1
    num_classes: int = 10

    def __post_init__(self) -> None:
        for name in (
            "d_model",
            "num_heads",
            "num_encoder_layers",
            "num_decoder_layers",
            "d_ff",
            "max_len",
            "src_vocab_size",
            "tgt_vocab_size",
            "image_size",
            "patch_size",
            "channels",
            "num_classes",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{name} must be a whole number, got {value!r}.")
            if value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}; raise it to 1 or more.")
        if (
            isinstance(self.type_vocab_size, bool)
            or not isinstance(self.type_vocab_size, int)
            or self.type_vocab_size < 0
        ):
            raise ValueError(
                f"type_vocab_size must be a whole number >= 0 (0 = no token types), got {self.type_vocab_size!r}."
            )
        if self.head_dim is None and self.d_model % self.num_heads:
            raise ValueError(
                f"d_model={self.d_model} is not divisible by num_heads={self.num_heads}; "
                f"choose num_heads from {divisors(self.d_model)} or change d_model."
            )
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout}.")
        scheme = positional_scheme(self.positional)  # a ValueError for an unknown one
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation={self.activation!r} is unknown; use one of {ACTIVATIONS}.")
        if not self.pe_base > 0:
            raise ValueError(f"pe_base must be positive, got {self.pe_base}.")
        if scheme.even_head and self.d_head % 2:
            raise ValueError(
                f"rotary encoding rotates pairs of dimensions, so d_model / num_heads "
                f"(= {self.d_head}) must be even; change d_model or num_heads."
            )
        if self.output_head not in OUTPUT_HEADS:
            raise ValueError(f"output_head={self.output_head!r} is unknown; use one of {OUTPUT_HEADS}.")
        if not isinstance(self.feed_forward, bool):
            raise ValueError(f"feed_forward must be True or False (False = attention-only), got {self.feed_forward!r}.")
        if not isinstance(self.output_bias, bool):
            raise ValueError(f"output_bias must be True or False, got {self.output_bias!r}.")
        self._check_efficient_attention()
        self._check_todays_block()
        if self.image_size % self.patch_size:
            raise ValueError(
                f"patch_size {self.patch_size} does not divide image_size {self.image_size}: "
                f"pick {spoken_list(divisors(self.image_size))}."
            )
        if not isinstance(self.share_embeddings, bool):
            raise ValueError(f"share_embeddings must be True or False, got {self.share_embeddings!r}.")
        if self.share_embeddings and self.src_vocab_size != self.tgt_vocab_size:
            raise ValueError(
                f"share_embeddings needs one vocabulary, but src_vocab_size={self.src_vocab_size} and "
                f"tgt_vocab_size={self.tgt_vocab_size}; make them equal or set share_embeddings=False."
            )
        if not self.layer_norm_eps > 0:
            raise ValueError(f"layer_norm_eps must be positive, got {self.layer_norm_eps}.")

    def _check_efficient_attention(self) -> None:
        for name in ("num_kv_heads", "attention_window"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ValueError(f"{name} must be a whole number >= 1 or None, got {value!r}.")
        if self.num_kv_heads is not None and self.num_heads % self.num_kv_heads:
            raise ValueError(
                f"num_kv_heads={self.num_kv_heads} must divide num_heads={self.num_heads} (each key-value "
                f"head serves a group of query heads); choose one of {divisors(self.num_heads)}."
            )

    def _check_todays_block(self) -> None:
        if self.norm not in NORMS:
            raise ValueError(f"norm={self.norm!r} is unknown; use one of {NORMS}.")
        if self.head_dim is not None and (
            isinstance(self.head_dim, bool) or not isinstance(self.head_dim, int) or self.head_dim < 1
        ):
            raise ValueError(
                f"head_dim must be a whole number >= 1 or None (= d_model / num_heads), got {self.head_dim!r}."
            )
        for name in ("qk_norm",):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}.")
        if self.qkv_bias is not None and not isinstance(self.qkv_bias, bool):
            raise ValueError(f"qkv_bias must be True, False or None (= bias), got {self.qkv_bias!r}.")
        if self.rope_scaling is not None:
            object.__setattr__(self, "rope_scaling", _rope_scaling(self.rope_scaling))

    @property
    def kv_heads(self) -> int:
        """Key-value heads: ``num_heads`` (multi-head), 1 (multi-query) or a divisor (grouped-query)."""
        return self.num_heads if self.num_kv_heads is None else self.num_kv_heads

    @classmethod
    def from_dict(cls, values: dict) -> "TransformerConfig":
        """Build from a mapping (e.g. a saved view); an unknown key is a ValueError naming the valid ones."""
        return from_known_fields(cls, values, "option")

    @property
    def d_head(self) -> int:
        """Dimensions per head, d_k = d_v = d_model / num_heads (or ``head_dim`` when set)."""
        return self.d_model // self.num_heads if self.head_dim is None else self.head_dim

    @property
    def attention_width(self) -> int:
        """Width of the concatenated heads, num_heads x d_head (= d_model unless ``head_dim`` is set)."""
        return self.num_heads * self.d_head

    def to_dict(self) -> dict:
        return asdict(self)


def _rope_scaling(value) -> tuple:
    """``rope_scaling`` as a tuple (a saved config holds a list), checked against ``ROPE_SCALINGS``."""
    if not isinstance(value, (tuple, list)) or not value or value[0] not in ROPE_SCALINGS:
        raise ValueError(
            f"rope_scaling={value!r} is unknown; use None or a tuple starting with one of {sorted(ROPE_SCALINGS)}."
        )
    names = ROPE_SCALINGS[value[0]]
    numbers = tuple(value[1:])
    if len(numbers) != len(names) or not all(
        isinstance(n, (int, float)) and not isinstance(n, bool) and n > 0 for n in numbers
    ):
        raise ValueError(f"rope_scaling {value[0]!r} takes {len(names)} positive numbers: {', '.join(names)}.")
    if value[0] == "llama3" and not numbers[2] > numbers[1]:
        raise ValueError("llama3 rope_scaling needs high_freq_factor > low_freq_factor.")
    return (value[0], *(float(n) for n in numbers))


def paper_base_config(vocab_size: int = 4096, max_len: int = 128) -> TransformerConfig:
    """The base model of "Attention Is All You Need" (its Table 3): N = 6 encoder and 6 decoder
    layers, d_model = 512, h = 8 heads of d_k = 64, d_ff = 2048, dropout 0.1, post-LN, ReLU,
    sinusoidal positions, and one ``vocab_size`` x d_model matrix shared by both embeddings and
    the pre-softmax linear layer. The paper reports about 65 M parameters with its shared vocabulary
    of about 37,000 byte-pair tokens (the closed form of ``analysis.parameters`` gives 63.1 M for
    37,000 ids); with this package's 4096-id hash vocabulary the model holds 46.2 M."""
    return TransformerConfig(
        d_model=512,
        num_heads=8,
        num_encoder_layers=6,
        num_decoder_layers=6,
        d_ff=2048,
        dropout=0.1,
        max_len=max_len,
        src_vocab_size=vocab_size,
        tgt_vocab_size=vocab_size,
        output_head="tied",
        share_embeddings=True,
    )


def from_known_fields(cls, values: dict, what: str):
    """``cls(**values)`` for a dataclass; an unknown key is a ValueError naming the valid ``what``s."""
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"unknown {what}(s) {unknown}; valid {what}s are {sorted(known)}.")
    return cls(**values)


def spoken_list(values: list) -> str:
    """``[1, 2, 4, 8]`` as "1, 2, 4 or 8" (one value alone as itself)."""
    words = [str(v) for v in values]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def divisors(n: int) -> list[int]:
    """The head counts that split ``n`` evenly, ascending."""
    return [h for h in range(1, n + 1) if n % h == 0]
