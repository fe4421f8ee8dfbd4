"""A small from-scratch Transformer whose attention modules return their weights."""

from .attention import MultiHeadAttention, attention_scores, masked_softmax, scaled_dot_product_attention
from .config import ACTIVATIONS, POSITIONAL_ENCODINGS, TransformerConfig, divisors
from .layers import DecoderLayer, EncoderLayer, FeedForward
from .masks import causal_mask, combine_masks, key_mask_from_tokens, padding_mask
from .model import Decoder, DecoderOnlyLM, Encoder, InputEmbedding, ModelOutput, Transformer
from .positional import (
    LearnedEncoding,
    SinusoidalEncoding,
    alibi_bias,
    alibi_slopes,
    apply_rotary,
    relative_shift_matrix,
    rotary_angles,
    sinusoid_wavelengths,
    sinusoidal_encoding,
)
from .record import AttentionRecord
from .seeding import build_model, init_parameters
from .tokenizer import BOS_ID, EOS_ID, PAD_ID, Tokenizer, characters, normalize, truncate, words

__all__ = [
    "ACTIVATIONS", "POSITIONAL_ENCODINGS", "AttentionRecord", "BOS_ID", "Decoder", "DecoderLayer",
    "DecoderOnlyLM", "EOS_ID", "Encoder", "EncoderLayer", "FeedForward", "InputEmbedding",
    "LearnedEncoding", "ModelOutput", "MultiHeadAttention", "PAD_ID", "SinusoidalEncoding",
    "Tokenizer", "Transformer", "TransformerConfig", "alibi_bias", "alibi_slopes", "apply_rotary",
    "attention_scores", "build_model", "causal_mask", "characters", "combine_masks", "divisors",
    "init_parameters", "key_mask_from_tokens", "masked_softmax", "normalize", "padding_mask",
    "relative_shift_matrix", "rotary_angles", "scaled_dot_product_attention", "sinusoid_wavelengths",
    "sinusoidal_encoding", "truncate", "words",
]
