"""A small from-scratch Transformer whose attention modules return their weights."""

from .bpe import BPETokenizer
from .attention import MultiHeadAttention, attention_scores, masked_softmax, scaled_dot_product_attention
from .checkpoint import MAX_CHECKPOINT_BYTES, checkpoint_data, checkpoint_info, load_checkpoint, save_checkpoint
from .checkpoint_metadata import hash_tokenizer
from .config import ACTIVATIONS, OUTPUT_HEADS, TransformerConfig, divisors
from .positional_schemes import NAMES as POSITIONAL_ENCODINGS
from .positional_schemes import SCHEMES as POSITIONAL_SCHEMES
from .positional_schemes import PositionalScheme, positional_scheme
from .head_scores import PATTERNS, score_heads
from .layers import DecoderLayer, EncoderLayer, FeedForward
from .masks import causal_mask, combine_masks, padding_mask
from .interventions import ABLATIONS, PARTS, Ablate, Patch
from .architectures import ARCHITECTURES
from .model import (
    Decoder,
    DecoderOnly,
    Encoder,
    EncoderOnly,
    InputEmbedding,
    ModelOutput,
    OutputHead,
    SelfAttentionStack,
    Transformer,
)
from .generation import PENALTIES, STRATEGIES, BeamNode, Generation, Step, generate, length_penalty_value
from .kv_cache import KVCache
from .sampling import Distribution, next_distribution
from .passes import attention_names
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
from .hf_folder import MAX_MODEL_BYTES, FolderModel, inspect_folder, load_folder
from .pretrained import (
    PRETRAINED_MODELS,
    bert_config,
    bert_from_tensors,
    bert_state_dict,
    load_bert_weights,
    load_pretrained,
    model_files,
    pretrained_tokenizer,
)
from .record import AttentionName, ForwardRecord
from .seeding import build_model, init_parameters
from .tasks import TASK_KINDS, TASK_NAMES, TRAINING_TASKS, Task, TaskBatch, make_task
from .digits_task import DIGITS_TASK, DigitsTask
from .tokenizer import (
    BOS_ID,
    EOS_ID,
    PAD_ID,
    UNK_ID,
    HashTokenizer,
    VocabTokenizer,
    characters,
    normalize,
    truncate,
    words,
)
from .tokenizer_reading import tokenizer_from_dict
from .training import Snapshot, Trainer, learning_rate_at
from .training_setup import RECIPES, TrainingSetup, default_setup
from .digits import Digits, load_digits
from .vision import PatchEmbedding, VisionTransformer, patch_count, patches
from .vision_training import classification_metrics, digits_vit_config, train_vision
from .wordpiece import WordPieces, WordPieceTokenizer, batch_tensors
from .subword import SubwordTokenizer, train_subword_tokenizer, word_starts
from .translation import translate
from .translation_data import ATTRIBUTION, HeldOut, TranslationSplit, translation_split

__all__ = [
    "ABLATIONS",
    "ACTIVATIONS",
    "ARCHITECTURES",
    "Ablate",
    "BOS_ID",
    "BPETokenizer",
    "FolderModel",
    "MAX_MODEL_BYTES",
    "Decoder",
    "DecoderLayer",
    "DecoderOnly",
    "EOS_ID",
    "Encoder",
    "AttentionName",
    "EncoderLayer",
    "EncoderOnly",
    "FeedForward",
    "ForwardRecord",
    "HashTokenizer",
    "InputEmbedding",
    "KVCache",
    "STRATEGIES",
    "BeamNode",
    "Generation",
    "Step",
    "generate",
    "length_penalty_value",
    "PENALTIES",
    "translate",
    "SubwordTokenizer",
    "train_subword_tokenizer",
    "word_starts",
    "ATTRIBUTION",
    "HeldOut",
    "TranslationSplit",
    "translation_split",
    "Distribution",
    "next_distribution",
    "LearnedEncoding",
    "MAX_CHECKPOINT_BYTES",
    "ModelOutput",
    "MultiHeadAttention",
    "OUTPUT_HEADS",
    "OutputHead",
    "PAD_ID",
    "PARTS",
    "PATTERNS",
    "Patch",
    "POSITIONAL_ENCODINGS",
    "POSITIONAL_SCHEMES",
    "PositionalScheme",
    "positional_scheme",
    "PRETRAINED_MODELS",
    "SelfAttentionStack",
    "SinusoidalEncoding",
    "Snapshot",
    "TASK_KINDS",
    "TASK_NAMES",
    "TRAINING_TASKS",
    "DIGITS_TASK",
    "DigitsTask",
    "Task",
    "TaskBatch",
    "Trainer",
    "TrainingSetup",
    "Transformer",
    "TransformerConfig",
    "UNK_ID",
    "VocabTokenizer",
    "WordPieceTokenizer",
    "WordPieces",
    "alibi_bias",
    "alibi_slopes",
    "apply_rotary",
    "attention_names",
    "attention_scores",
    "batch_tensors",
    "bert_config",
    "bert_from_tensors",
    "bert_state_dict",
    "build_model",
    "causal_mask",
    "characters",
    "inspect_folder",
    "load_folder",
    "checkpoint_data",
    "checkpoint_info",
    "combine_masks",
    "default_setup",
    "divisors",
    "hash_tokenizer",
    "init_parameters",
    "load_bert_weights",
    "load_checkpoint",
    "load_pretrained",
    "make_task",
    "masked_softmax",
    "model_files",
    "normalize",
    "padding_mask",
    "pretrained_tokenizer",
    "relative_shift_matrix",
    "rotary_angles",
    "save_checkpoint",
    "scaled_dot_product_attention",
    "score_heads",
    "sinusoid_wavelengths",
    "sinusoidal_encoding",
    "tokenizer_from_dict",
    "truncate",
    "words",
    "RECIPES",
    "learning_rate_at",
    "Digits",
    "PatchEmbedding",
    "VisionTransformer",
    "classification_metrics",
    "digits_vit_config",
    "load_digits",
    "patch_count",
    "patches",
    "train_vision",
]
