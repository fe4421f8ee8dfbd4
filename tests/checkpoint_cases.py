"""The checkpoint cases the checkpoint tests share: one small model of each kind (saved once a module by the
``saved`` fixture, tests/conftest.py)."""

from transformer import HashTokenizer, TransformerConfig, VocabTokenizer

WORDS = tuple(f"w{i}" for i in range(20))
CASES = {
    "encoder-decoder": (
        TransformerConfig(d_model=16, num_heads=2, d_ff=32, src_vocab_size=40, tgt_vocab_size=48, max_len=16),
        HashTokenizer(vocab_size=40),
    ),
    "encoder-decoder-rotary-tied": (
        TransformerConfig(
            d_model=8,
            num_heads=2,
            d_ff=16,
            positional="rotary",
            norm_first=True,
            output_head="tied",
            src_vocab_size=30,
            tgt_vocab_size=30,
            max_len=16,
        ),
        HashTokenizer(30, "char"),
    ),
    "decoder-only": (
        TransformerConfig(
            d_model=12,
            num_heads=3,
            num_decoder_layers=2,
            d_ff=24,
            positional="learned",
            output_head="tied",
            tgt_vocab_size=24,
            max_len=16,
        ),
        VocabTokenizer(WORDS),
    ),
    "encoder-only": (
        TransformerConfig(
            d_model=16,
            num_heads=4,
            num_encoder_layers=2,
            d_ff=32,
            positional="learned",
            embed_scale=False,
            type_vocab_size=2,
            embed_norm=True,
            activation="gelu",
            layer_norm_eps=1e-12,
            bias=False,
            output_head="tied",
            src_vocab_size=24,
            max_len=16,
        ),
        VocabTokenizer(WORDS, "char"),
    ),
}
EXTRA = {"task": "copy", "steps": 120, "metrics": {"accuracy": 0.75, "loss": [2.5, 1.25]}, "seed": 3, "name": "tiny"}


def kind_of(case: str) -> str:
    return next(kind for kind in ("encoder-decoder", "decoder-only", "encoder-only") if case.startswith(kind))
