"""Parameters per component of an encoder-decoder, counted and in closed form, and its activation shapes.

The parameter counts come twice: counted from the model (``sum(p.numel())``) and
from a closed form in the hyperparameters, so each checks the other.
"""

from __future__ import annotations

import pandas as pd
import torch

from transformer import TransformerConfig, positional_scheme


def closed_form_parameters(config: TransformerConfig) -> dict[str, int]:
    """Parameters per component from the hyperparameters alone (b = 1 with biases, else 0).

    attention 4(d^2 + b d); feed-forward 2 d d_ff + b (d_ff + d); LayerNorm d + b d;
    embeddings V d (+ max_len d for a learned position table, + types d, + LayerNorm when asked);
    generator d V + b V (b V when tied to the embedding, 0 without a head);
    final LayerNorms d + b d per stack when pre-LN; an attention-only model has no feed-forward and one
    LayerNorm fewer per layer. With ``share_embeddings`` the source and target share one V d token
    matrix, counted once, under the source embedding.
    """
    d, f, b = config.d_model, config.d_ff, int(config.bias)
    attention = 4 * (d * d + b * d)
    ffn = 2 * d * f + b * (f + d) if config.feed_forward else 0  # attention-only: no FFN and no norm for it
    norm = d + b * d
    per_layer = 0 if config.feed_forward else 1
    table = config.max_len * d if positional_scheme(config.positional).learned else 0
    table += config.type_vocab_size * d + (d + b * d if config.embed_norm else 0)
    vocab = config.tgt_vocab_size
    generator = {"linear": d * vocab + b * vocab, "tied": b * vocab, "none": 0}[config.output_head]
    n_enc, n_dec = config.num_encoder_layers, config.num_decoder_layers
    final = norm if config.norm_first else 0
    return {
        "source embedding": config.src_vocab_size * d + table,
        "target embedding": (0 if config.share_embeddings else config.tgt_vocab_size * d) + table,
        "encoder self-attention": n_enc * attention,
        "encoder feed-forward": n_enc * ffn,
        "encoder LayerNorms": n_enc * (2 - per_layer) * norm + final,
        "decoder masked self-attention": n_dec * attention,
        "decoder cross-attention": n_dec * attention,
        "decoder feed-forward": n_dec * ffn,
        "decoder LayerNorms": n_dec * (3 - per_layer) * norm + final,
        "generator (linear to vocabulary)": generator,
    }


FORMULAS = {
    "source embedding": "V_src·d (+ max_len·d learned PE)",
    "target embedding": "V_tgt·d (+ max_len·d learned PE)",
    "encoder self-attention": "N_enc · 4(d² + d)",
    "encoder feed-forward": "N_enc · (2·d·d_ff + d_ff + d)",
    "encoder LayerNorms": "N_enc · 2 · 2d (+ 2d final, pre-LN)",
    "decoder masked self-attention": "N_dec · 4(d² + d)",
    "decoder cross-attention": "N_dec · 4(d² + d)",
    "decoder feed-forward": "N_dec · (2·d·d_ff + d_ff + d)",
    "decoder LayerNorms": "N_dec · 3 · 2d (+ 2d final, pre-LN)",
    "generator (linear to vocabulary)": "d·V_tgt + V_tgt",
}


def formulas(config: TransformerConfig) -> dict[str, str]:
    """``FORMULAS`` as they apply to ``config``: a shared target embedding and a tied or missing output layer
    have their own."""
    shared = (
        {"target embedding": "0: shared with the source (+ max_len·d learned PE)"} if config.share_embeddings else {}
    )
    generator = {"tied": "V_tgt (bias; W is the target embedding)", "none": "0 (no output layer)"}
    head = (
        {"generator (linear to vocabulary)": generator[config.output_head]} if config.output_head in generator else {}
    )
    return {**FORMULAS, **shared, **head}


def _component(name: str) -> str:
    """The table row a parameter's dotted name belongs to."""
    parts = name.split(".")
    if parts[0] in ("src_embed", "tgt_embed"):
        return "source embedding" if parts[0] == "src_embed" else "target embedding"
    if parts[0] == "generator":
        return "generator (linear to vocabulary)"
    stack = parts[0]  # encoder / decoder
    if parts[1] == "norm" or parts[3].startswith("norm"):
        return f"{stack} LayerNorms"
    kind = parts[3]
    if kind == "feed_forward":
        return f"{stack} feed-forward"
    if kind == "cross_attn":
        return "decoder cross-attention"
    return "encoder self-attention" if stack == "encoder" else "decoder masked self-attention"


def counted_parameters(model: torch.nn.Module) -> dict[str, int]:
    """``sum(p.numel())`` per component, by the parameter names of a ``Transformer``."""
    counts: dict[str, int] = {}
    for name, parameter in model.named_parameters():
        key = _component(name)
        counts[key] = counts.get(key, 0) + parameter.numel()
    return counts


def shape_table(config: TransformerConfig, src_len: int, tgt_len: int) -> pd.DataFrame:
    """The activation shape (batch of one left out) at each step of one forward pass."""
    d, h, dk, f, v = config.d_model, config.num_heads, config.d_head, config.d_ff, config.tgt_vocab_size
    s, t = src_len, tgt_len
    rows = [
        ("source token ids", (s,)),
        ("source embedding x sqrt(d_model) + PE", (s, d)),
        ("encoder: Q, K, V split into heads", (h, s, dk)),
        ("encoder self-attention weights", (h, s, s)),
        ("encoder: heads concatenated, times W^O", (s, d)),
        ("encoder feed-forward hidden units", (s, f)),
        ("encoder output (memory)", (s, d)),
        ("decoder input ids (target shifted right)", (t,)),
        ("target embedding x sqrt(d_model) + PE", (t, d)),
        ("decoder masked self-attention weights", (h, t, t)),
        ("cross-attention: Q from decoder", (h, t, dk)),
        ("cross-attention: K, V from memory", (h, s, dk)),
        ("cross-attention weights", (h, t, s)),
        ("decoder feed-forward hidden units", (t, f)),
        ("decoder output", (t, d)),
        ("logits and probabilities", (t, v)),
    ]
    return pd.DataFrame(
        {
            "step": [name for name, _ in rows],
            "shape": ["[" + " x ".join(map(str, shape)) + "]" for _, shape in rows],
            "dims": [shape for _, shape in rows],
        }
    )


def parameter_table(model: torch.nn.Module) -> pd.DataFrame:
    """Rows per component plus a total row: formula, closed-form count, count from the model."""
    config = model.config
    counted = counted_parameters(model)
    closed = closed_form_parameters(config)
    text = formulas(config)
    rows = [(name, text[name], closed[name], counted.get(name, 0)) for name in closed]
    rows.append(("total", "sum of the rows", sum(closed.values()), sum(p.numel() for p in model.parameters())))
    return pd.DataFrame(rows, columns=["component", "closed form", "closed-form count", "counted in the model"])
