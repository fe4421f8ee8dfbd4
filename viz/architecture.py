"""A Graphviz (DOT) map of an encoder-decoder Transformer, with the data's shape at each step."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ArchitectureSpec:
    """What the diagram needs to know; ``src_len`` and ``tgt_len`` label the shapes; ``positions`` is the note on
    how positions enter beside the embeddings (``transformer.PositionalScheme.diagram``, ``\\n`` a line break)."""

    num_encoder_layers: int = 2
    num_decoder_layers: int = 2
    d_model: int = 64
    num_heads: int = 4
    d_ff: int = 256
    positions: str = "+ sinusoidal PE"
    norm_first: bool = False
    vocab_size: int = 4096
    src_len: int = 6
    tgt_len: int = 5


def _box(name: str, label: str, fill: str) -> str:
    return f'  {name} [label="{label}", fillcolor="{fill}"];'


def architecture_dot(spec: ArchitectureSpec) -> str:
    """The paper's figure as DOT: inputs at the bottom, output probabilities at the top.

    Edge labels give the tensor shape flowing along them, e.g. [6 x 64] for six
    source tokens of d_model = 64. Labels are broken into short lines, so that the diagram is narrow enough to
    read at 10 px on a phone, and a stack's name sits at its left, clear of the arrow into its middle.
    """
    s, t, d = spec.src_len, spec.tgt_len, spec.d_model
    norm = "pre-LN" if spec.norm_first else "post-LN"
    pe = spec.positions
    lines = [
        "digraph transformer {",
        "  rankdir=BT; nodesep=0.3; ranksep=0.35;",
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=14, color="#333333"];',
        '  edge [fontname="Helvetica", fontsize=14, color="#555555"];',
        _box("src", f"source tokens\\n{s} ids", "#ffffff"),
        _box("tgt", f"target tokens,\\nshifted right\\n{t} ids", "#ffffff"),
        _box("src_emb", f"embedding\\nx sqrt({d})\\n{pe}", "#fde9c9"),
        _box("tgt_emb", f"embedding\\nx sqrt({d})\\n{pe}", "#fde9c9"),
        "  subgraph cluster_enc {",
        f'    label="Encoder\\n{spec.num_encoder_layers} x layer\\n({norm})"; labeljust="l";'
        ' style="rounded"; color="#1f4e9e";'
        ' fontname="Helvetica"; fontsize=14;',
        _box(
            "enc_attn", f"multi-head\\nself-attention\\n{spec.num_heads} heads\\nx d_k={d // spec.num_heads}", "#dbe8fb"
        ),
        _box("enc_norm1", "add & norm", "#eeeeee"),
        _box("enc_ff", f"feed-forward\\n{d} -> {spec.d_ff} -> {d}", "#dff3e3"),
        _box("enc_norm2", "add & norm", "#eeeeee"),
        "  }",
        "  subgraph cluster_dec {",
        f'    label="Decoder\\n{spec.num_decoder_layers} x layer\\n({norm})"; labeljust="l";'
        ' style="rounded"; color="#a33b20";'
        ' fontname="Helvetica"; fontsize=14;',
        _box("dec_self", "masked multi-head\\nself-attention\\n(causal)", "#dbe8fb"),
        _box("dec_norm1", "add & norm", "#eeeeee"),
        _box("dec_cross", "multi-head\\ncross-attention\\nQ from decoder,\\nK V from encoder", "#e8dcf7"),
        _box("dec_norm2", "add & norm", "#eeeeee"),
        _box("dec_ff", f"feed-forward\\n{d} -> {spec.d_ff} -> {d}", "#dff3e3"),
        _box("dec_norm3", "add & norm", "#eeeeee"),
        "  }",
        _box("linear", f"linear\\n{d} -> {spec.vocab_size}", "#fde9c9"),
        _box("softmax", "softmax\\noutput\\nprobabilities", "#ffffff"),
        f'  src -> src_emb [label=" [{s}]"];',
        f'  src_emb -> enc_attn [label=" [{s} x {d}]"];',
        "  enc_attn -> enc_norm1; enc_norm1 -> enc_ff; enc_ff -> enc_norm2;",
        f'  tgt -> tgt_emb [label=" [{t}]"];',
        f'  tgt_emb -> dec_self [label=" [{t} x {d}]"];',
        "  dec_self -> dec_norm1; dec_norm1 -> dec_cross; dec_cross -> dec_norm2;",
        "  dec_norm2 -> dec_ff; dec_ff -> dec_norm3;",
        f'  enc_norm2 -> dec_cross [label=" memory\\n [{s} x {d}]", color="#1f4e9e", fontcolor="#1f4e9e"];',
        f'  dec_norm3 -> linear [label=" [{t} x {d}]"];',
        f'  linear -> softmax [label=" [{t} x {spec.vocab_size}]"];',
        "}",
    ]
    return "\n".join(lines)
