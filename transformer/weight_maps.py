"""One table per architecture: how a Hugging Face checkpoint's tensor names become the package's.

A checkpoint of BERT, DistilBERT or GPT-2 names its tensors after its own modules
(``encoder.layer.3.attention.self.query.weight``, ``h.3.attn.c_attn.weight``); the
package's models name theirs after ours (``encoder.layers.3.self_attn.w_q.weight``).
A ``WeightMap`` says, for one architecture, which of their modules is which of ours,
outside the layers and inside layer i, which prefixes to drop (``bert.``,
``transformer.``) and which tensors have no place in our model (heads for other
tasks, stored buffers). Two things are more than a rename:

- GPT-2's ``Conv1D`` stores ``y = x W + b`` with ``W`` ``[in, out]``, the transpose of
  ``nn.Linear``'s ``[out, in]``: its 2-D weights inside a layer are transposed.
- GPT-2's ``attn.c_attn`` is Q, K and V fused into one ``[d, 3d]`` projection: its
  output is cut into three equal parts, ``w_q``, ``w_k`` and ``w_v``, in that order.
- Hugging Face's Llama family rotates the pairs (x[i], x[i + d_head/2]) of each head, the
  package the pairs (x[2i], x[2i+1]) (as RoFormer did). Reordering each head's output rows of
  W_Q and W_K (their biases, and Qwen3's q/k norm gains) from [first halves, second halves]
  to interleaved pairs makes one rotation the other: q . k is unchanged by the same reordering
  of both, so the attention, and all that follows, is the same.

``renamed`` works on any tensors, ``meta`` ones included, so the shapes a file's header
announces are checked against the model before a single weight is read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import torch

_PARAMETERS = {"weight": "weight", "bias": "bias", "gamma": "weight", "beta": "bias"}  # gamma/beta: old TF names
_TASK_HEADS = r"pooler\..*|cls\..*|classifier\..*|pre_classifier\..*|qa_outputs\..*"


@dataclass(frozen=True)
class WeightMap:
    """The names of one architecture's tensors, and ours.

    ``layers`` is (their list of layers, ours): ``("encoder.layer", "encoder.layers")``.
    ``modules`` maps their modules outside the layers to ours, ``layer_modules`` those
    inside one layer; a tuple of ours means a fused projection cut into equal parts
    along its outputs. ``unused`` matches names (prefix dropped) that are skipped.
    ``conv1d``: 2-D weights inside a layer are stored ``[in, out]`` and are transposed.
    """

    architecture: str
    prefixes: tuple[str, ...]
    layers: tuple[str, str]
    modules: Mapping[str, str]
    layer_modules: Mapping[str, str | tuple[str, ...]]
    unused: str = ""
    conv1d: bool = False
    rope_halves: int = 0  # d_head of a Llama-family model whose q and k rows are reordered into pairs
    _layer: re.Pattern = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_layer", re.compile(rf"^{re.escape(self.layers[0])}\.(\d+)\.(.+)\.(\w+)$"))

    def targets(self, name: str) -> list[str] | None:
        """Our names for one of their tensor names (prefix dropped): one, or several for a fused
        projection; [] for a skipped tensor; None when the name has no place in the model."""
        if self.unused and re.fullmatch(self.unused, name):
            return []
        layer = self._layer.match(name)
        if layer:
            ours, param = self.layer_modules.get(layer[2]), layer[3]
            prefix = f"{self.layers[1]}.{int(layer[1])}."
        else:
            module, _, param = name.rpartition(".")
            ours, prefix = self.modules.get(module), ""
        if ours is None or param not in _PARAMETERS:
            return None
        parts = ours if isinstance(ours, tuple) else (ours,)
        return [f"{prefix}{part}.{_PARAMETERS[param]}" for part in parts]

    def bare(self, name: str) -> str:
        """A name without the first of ``prefixes`` it starts with."""
        for prefix in self.prefixes:
            if name.startswith(prefix):
                return name[len(prefix) :]
        return name


_ROPE_ROWS = re.compile(r".*\.self_attn\.(w_q|w_k|q_norm|k_norm)\.(weight|bias)$")


def halves_to_pairs(tensor: torch.Tensor, d_head: int) -> torch.Tensor:
    """Each head's rows [x_0 .. x_{d/2-1}, x_{d/2} .. x_{d-1}] reordered to [x_0, x_{d/2}, x_1, x_{d/2+1}, ...]:
    ``[H * d_head, ...]`` (or ``[d_head]``) in, the same shape out."""
    half = d_head // 2
    order = torch.arange(d_head).view(2, half).t().reshape(-1)
    return tensor.reshape(-1, d_head, *tensor.shape[1:])[:, order].reshape(tensor.shape)


def renamed(tensors: Mapping[str, torch.Tensor], weights: WeightMap) -> dict[str, torch.Tensor]:
    """Their tensors under our names (transposed and cut where the table says so).

    A name with no place in the model, or two tensors for one of ours, is a ValueError naming it.
    """
    ours: dict[str, torch.Tensor] = {}
    for key, tensor in tensors.items():
        bare = weights.bare(key)
        targets = weights.targets(bare)
        if targets is None:
            raise ValueError(f"unexpected tensor {key!r}: it has no place in a {weights.architecture} model.")
        if weights.conv1d and tensor.dim() == 2 and weights._layer.match(bare):
            tensor = tensor.t()
        if len(targets) > 1 and tensor.shape[0] % len(targets):
            raise ValueError(
                f"tensor {key!r} of shape {tuple(tensor.shape)} cannot be cut into "
                f"{len(targets)} equal parts ({', '.join(targets)})."
            )
        for name, part in zip(targets, tensor.chunk(len(targets)) if len(targets) > 1 else (tensor,)):
            if weights.rope_halves and _ROPE_ROWS.match(name):
                if part.shape[0] % weights.rope_halves:
                    raise ValueError(f"tensor {key!r} of shape {tuple(part.shape)} does not hold whole heads.")
                part = halves_to_pairs(part, weights.rope_halves)
            if name in ours:
                raise ValueError(f"tensor {key!r} maps to {name!r}, which another tensor already filled.")
            ours[name] = part
    return ours


BERT = WeightMap(
    "BERT",
    ("bert.",),
    ("encoder.layer", "encoder.layers"),
    modules={
        "embeddings.word_embeddings": "embed.tokens",
        "embeddings.position_embeddings": "embed.position.table",
        "embeddings.token_type_embeddings": "embed.token_types",
        "embeddings.LayerNorm": "embed.norm",
    },
    layer_modules={
        "attention.self.query": "self_attn.w_q",
        "attention.self.key": "self_attn.w_k",
        "attention.self.value": "self_attn.w_v",
        "attention.output.dense": "self_attn.w_o",
        "attention.output.LayerNorm": "norm1",
        "intermediate.dense": "feed_forward.linear1",
        "output.dense": "feed_forward.linear2",
        "output.LayerNorm": "norm2",
    },
    unused=rf"{_TASK_HEADS}|embeddings\.position_ids",
)

DISTILBERT = WeightMap(
    "DistilBERT",
    ("distilbert.",),
    ("transformer.layer", "encoder.layers"),
    modules={
        "embeddings.word_embeddings": "embed.tokens",
        "embeddings.position_embeddings": "embed.position.table",
        "embeddings.LayerNorm": "embed.norm",
    },
    layer_modules={
        "attention.q_lin": "self_attn.w_q",
        "attention.k_lin": "self_attn.w_k",
        "attention.v_lin": "self_attn.w_v",
        "attention.out_lin": "self_attn.w_o",
        "sa_layer_norm": "norm1",
        "ffn.lin1": "feed_forward.linear1",
        "ffn.lin2": "feed_forward.linear2",
        "output_layer_norm": "norm2",
    },
    unused=rf"{_TASK_HEADS}|vocab_(transform|layer_norm|projector)\..*|embeddings\.position_ids",
)

GPT2 = WeightMap(
    "GPT-2",
    ("transformer.",),
    ("h", "decoder.layers"),
    modules={"wte": "embed.tokens", "wpe": "embed.position.table", "ln_f": "decoder.norm"},
    layer_modules={
        "ln_1": "norm1",
        "attn.c_attn": ("self_attn.w_q", "self_attn.w_k", "self_attn.w_v"),
        "attn.c_proj": "self_attn.w_o",
        "ln_2": "norm2",
        "mlp.c_fc": "feed_forward.linear1",
        "mlp.c_proj": "feed_forward.linear2",
    },
    unused=r"h\.\d+\.attn\.(bias|masked_bias)|lm_head\.weight",
    conv1d=True,
)

# GPT-2 with its own output matrix (tie_word_embeddings=false): lm_head is read, not skipped
GPT2_UNTIED = replace(
    GPT2, modules={**GPT2.modules, "lm_head": "generator"}, unused=r"h\.\d+\.attn\.(bias|masked_bias)"
)


def llama(d_head: int, tied: bool, qk_norm: bool = False) -> WeightMap:
    """The Llama family's names (Llama, SmolLM, Mistral, Qwen2; Qwen3 with ``qk_norm``), its heads of
    ``d_head`` reordered for the package's RoPE pairs; ``lm_head`` is read unless tied to the embedding."""
    norms = {"self_attn.q_norm": "self_attn.q_norm", "self_attn.k_norm": "self_attn.k_norm"} if qk_norm else {}
    rotary = r"(layers\.\d+\.self_attn\.)?rotary_emb\.inv_freq"
    return WeightMap(
        "Llama",
        ("model.",),
        ("layers", "decoder.layers"),
        modules={"embed_tokens": "embed.tokens", "norm": "decoder.norm", **({} if tied else {"lm_head": "generator"})},
        layer_modules={
            "input_layernorm": "norm1",
            "self_attn.q_proj": "self_attn.w_q",
            "self_attn.k_proj": "self_attn.w_k",
            "self_attn.v_proj": "self_attn.w_v",
            "self_attn.o_proj": "self_attn.w_o",
            **norms,
            "post_attention_layernorm": "norm2",
            "mlp.gate_proj": "feed_forward.gate",
            "mlp.up_proj": "feed_forward.linear1",
            "mlp.down_proj": "feed_forward.linear2",
        },
        unused=rf"{rotary}|lm_head\.weight" if tied else rotary,
        rope_halves=d_head,
    )
