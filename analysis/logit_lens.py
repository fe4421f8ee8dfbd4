"""Read a decoder-only model's prediction inside it: the logit lens and direct logit attribution.

Logit lens: the residual stream ``r_s [L, d]`` after the embeddings and after each layer goes through
the final LayerNorm (pre-LN models; post-LN layers end in their own) and the unembedding:

    p_s = softmax(LN_f(r_s) W_U^T + b_U),

so each stage's best guess can be read; the last stage is the model's own output.

Direct logit attribution: the residual stream is a sum of what each part wrote into it (the
embeddings, each head's ``head_h W^O_h``, the attention biases, each feed-forward layer). With every
LayerNorm's scale frozen at the value it had in the pass, ``LN(x) = gamma * (x - mean(x)) / sigma + beta``
is linear in ``x``, so each part's share of the logit of token ``t`` at position ``i`` is

    part -> [every later LayerNorm, frozen] -> . W_U[t],

and the shares of all parts plus the offsets (LayerNorm betas, the unembedding bias) add up to the
logit exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch


def _decoder_only(model: torch.nn.Module, what: str) -> None:
    if model.kind != "decoder-only" or model.generator is None:
        raise ValueError(
            f"{what} reads a decoder-only model's next-token prediction; this model is "
            f"{model.kind}{' without an output head' if model.generator is None else ''}. "
            f"Pick a decoder-only model."
        )


@dataclass(frozen=True)
class Lens:
    """Per stage (``stages``: "embeddings", "layer 1", ...) and position: the top token id ``[S, L]``, its
    probability ``[S, L]``, and the probability of the model's final prediction ``[S, L]``."""

    stages: tuple[str, ...]
    top: np.ndarray
    top_probability: np.ndarray
    final_probability: np.ndarray


def _read_out(model: torch.nn.Module, residual: torch.Tensor) -> torch.Tensor:
    """Logits of a residual stream: final LayerNorm (when the stack has one), then the unembedding."""
    norm = model.decoder.norm
    return model.generator(residual if norm is None else norm(residual))


@torch.inference_mode()
def logit_lens(model: torch.nn.Module, ids: list[int]) -> Lens:
    """The logit lens of a decoder-only model on one input."""
    _decoder_only(model, "the logit lens")
    out = model(torch.tensor([ids]), return_internals=True)
    internals = out.attention.internals
    layers = len(model.decoder.layers)
    streams = [internals["decoder.embed"]] + [
        internals[f"decoder.layers.{i}.after_feed_forward"] for i in range(layers)
    ]
    probabilities = torch.stack([torch.softmax(_read_out(model, r)[0], -1) for r in streams])  # [S, L, V]
    final = out.logits[0].argmax(-1)  # [L]
    top_probability, top = probabilities.max(-1)
    final_probability = probabilities.gather(-1, final[None, :, None].expand(len(streams), -1, 1))[..., 0]
    stages = ("embeddings", *(f"layer {i + 1}" for i in range(layers)))
    return Lens(stages, top.numpy(), top_probability.float().numpy(), final_probability.float().numpy())


@dataclass(frozen=True)
class Attribution:
    """Shares of one logit: ``heads [layers, H]``, the other parts by name, and the logit itself."""

    heads: np.ndarray
    others: dict[str, float]
    logit: float

    @property
    def total(self) -> float:
        return float(self.heads.sum() + sum(self.others.values()))


def _frozen_norm(parts: dict[str, torch.Tensor], norm: torch.nn.Module, stream: torch.Tensor) -> None:
    """Apply ``norm`` with its scale frozen at ``stream``'s to every part (in place), and add its beta as a part.

    LayerNorm: gamma (part - mean(part)) / sigma, sigma = sqrt(var(stream) + eps); RMSNorm (no centring, no beta):
    gamma part / sqrt(mean(stream^2) + eps). Frozen, either is linear in the parts, so the shares still add up."""
    rms = isinstance(norm, torch.nn.RMSNorm)
    spread = stream.pow(2).mean(-1, keepdim=True) if rms else stream.var(-1, unbiased=False, keepdim=True)
    sigma = torch.sqrt(spread + norm.eps)
    gamma = norm.weight if norm.weight is not None else torch.ones(stream.shape[-1])
    for key, part in parts.items():
        parts[key] = gamma * (part if rms else part - part.mean(-1, keepdim=True)) / sigma
    if getattr(norm, "bias", None) is not None:
        parts["LayerNorm offsets"] = parts.get("LayerNorm offsets", 0) + norm.bias.expand_as(stream)


def _add(parts: dict[str, torch.Tensor], key: str, value: torch.Tensor) -> None:
    parts[key] = parts[key] + value if key in parts else value


@torch.inference_mode()
def direct_logit_attribution(model: torch.nn.Module, ids: list[int], position: int, token: int) -> Attribution:
    """Each part's share of the logit of ``token`` at ``position`` (0-based) of a decoder-only model."""
    _decoder_only(model, "attribution")
    out = model(torch.tensor([ids]), return_internals=True)
    internals = {k: v[0] for k, v in out.attention.internals.items()}  # batch row 0: [L, ...]
    parts: dict[str, torch.Tensor] = {"embeddings": internals["decoder.embed"]}
    layers = model.decoder.layers
    heads_count, d_head = model.config.num_heads, model.config.d_head
    for i, layer in enumerate(layers):
        prefix = f"decoder.layers.{i}"
        heads = internals[f"{prefix}.self_attn.heads"]  # [H, L, d_head]
        w_o = layer.self_attn.w_o
        for h in range(heads_count):
            parts[f"head {i}.{h}"] = heads[h] @ w_o.weight[:, h * d_head : (h + 1) * d_head].T
        if w_o.bias is not None:
            _add(parts, "attention biases", w_o.bias.expand(len(ids), -1))
        if not layer.norm_first:
            _frozen_norm(parts, layer.norm1, internals[f"{prefix}.norm1.in"])
        if layer.feed_forward is not None:
            parts[f"feed-forward {i + 1}"] = internals[f"{prefix}.feed_forward.out"]
            if not layer.norm_first:
                _frozen_norm(parts, layer.norm2, internals[f"{prefix}.norm2.in"])
    if model.decoder.norm is not None:
        last = (
            internals[f"decoder.layers.{len(layers) - 1}.after_feed_forward"]
            if len(layers)
            else internals["decoder.embed"]
        )
        _frozen_norm(parts, model.decoder.norm, last)
    generator = model.generator
    unembed = (generator.embedding[0].weight if generator.tied else generator.weight)[token]  # [d]
    shares = {key: float(part[position] @ unembed) for key, part in parts.items()}
    grid = np.array(
        [[shares.pop(f"head {i}.{h}") for h in range(heads_count)] for i in range(len(layers))], dtype=np.float64
    ).reshape(len(layers), heads_count)
    if generator.bias is not None:
        shares["unembedding bias"] = float(generator.bias[token])
    others = (
        {"feed-forward": sum(v for k, v in shares.items() if k.startswith("feed-forward"))}
        if any(k.startswith("feed-forward") for k in shares)
        else {}
    )
    others.update({k: v for k, v in shares.items() if not k.startswith("feed-forward")})
    return Attribution(grid, others, float(out.logits[0, position, token]))
