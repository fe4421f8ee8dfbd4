"""What decides a training run: ``TrainingSetup``, the recommended setup per task, and the model it trains."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from .config import TransformerConfig, from_known_fields
from .positional_schemes import positional_scheme
from .digits_task import DIGITS_TASK
from .tasks import TRAINING_TASKS, check_kind, make_task
from .vision_training import digits_vit_config

MODEL_MAX_LEN = 128  # the longest input the app's pages give a model (see model_config)
RECIPES = ("adamw", "paper")  # today's optimiser, and the paper's (Vaswani et al., 2017, section 5.3-5.4)
BLOCKS = ("classic", "llama")  # the layer's design: 2017's (LayerNorm, ReLU) or today's decoders' (Llama's)


@dataclass(frozen=True)
class TrainingSetup:
    """Everything that decides a training run; the same setup gives the same run.

    ``layers`` is the number of layers per stack (encoder and decoder alike), ``heads`` must
    divide ``d_model``; ``attention_only`` drops the feed-forward sublayers (``d_ff`` unused);
    ``warmup`` steps of linear warm-up; ``text`` the text task's corpus (None = built-in; other
    tasks ignore it). ``recipe``: "adamw" (AdamW at ``learning_rate`` after a linear warm-up) or "paper" (the
    paper's: Adam with β = (0.9, 0.98), ε = 1e-9, its schedule over ``warmup`` steps in place of
    ``learning_rate`` and ``weight_decay``, and label smoothing 0.1; see ``transformer.training``).
    ``block``: "classic" (LayerNorm, ReLU, biases, every head its own keys and values) or "llama"
    (today's decoder block: RMSNorm, SwiGLU with ``d_ff`` units, no biases, and grouped-query
    attention, ``heads / 2`` key-value heads when ``heads`` is even).
    Invalid values raise ValueError saying what to change.
    """

    task: str = "induction"
    kind: str = "decoder-only"
    layers: int = 2
    heads: int = 2
    d_model: int = 64
    d_ff: int = 256
    attention_only: bool = True
    positional: str = "learned"
    norm_first: bool = True
    learning_rate: float = 3e-3
    warmup: int = 20
    batch_size: int = 32
    weight_decay: float = 0.0
    dropout: float = 0.0
    seed: int = 0
    max_steps: int = 2000
    text: str | None = None
    recipe: str = "adamw"
    block: str = "classic"

    def __post_init__(self) -> None:
        check_kind(self.task, self.kind)
        if self.block not in BLOCKS:
            raise ValueError(f"block={self.block!r} is unknown; use one of {BLOCKS}.")
        if self.recipe not in RECIPES:
            raise ValueError(f"recipe={self.recipe!r} is unknown; use one of {RECIPES}.")
        if self.recipe == "paper" and self.warmup < 1:
            raise ValueError("the paper's schedule needs a warm-up of at least 1 step.")
        for name in ("layers", "heads", "d_model", "d_ff", "batch_size", "max_steps"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number >= 1, got {value!r}.")
        if isinstance(self.warmup, bool) or not isinstance(self.warmup, int) or self.warmup < 0:
            raise ValueError(f"warmup must be a whole number >= 0, got {self.warmup!r}.")
        if not (isinstance(self.learning_rate, (int, float)) and 0 < self.learning_rate <= 1):
            raise ValueError(f"learning_rate must be in (0, 1], got {self.learning_rate!r}.")
        if not 0 <= self.weight_decay < 1:
            raise ValueError(f"weight_decay must be in [0, 1), got {self.weight_decay!r}.")
        positional_scheme(self.positional)  # a ValueError that lists the known ones
        if self.text is not None and not isinstance(self.text, str):
            raise ValueError("text must be a string (or None for the built-in text).")
        model_config(self, context=1, vocab_size=5)  # head count, dropout, rotary pairs: the config's checks
        if self.task == "text":
            make_task("text", text=self.text)  # a text too short or too long fails here, not later

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> "TrainingSetup":
        """Build from a mapping (a checkpoint's metadata); an unknown key is a ValueError naming the valid ones."""
        return from_known_fields(cls, values, "setting")


_DEFAULTS = {
    "induction": dict(attention_only=True, d_model=64, heads=2, positional="rotary", max_steps=1000),
    "copy": dict(attention_only=False, d_model=64, heads=2, d_ff=128, max_steps=2000),
    "reverse": dict(attention_only=False, d_model=32, heads=2, d_ff=64, max_steps=2000),
    "sort": dict(attention_only=False, d_model=32, heads=2, d_ff=64, max_steps=2000),
    "text": dict(attention_only=False, d_model=64, heads=2, d_ff=128, positional="rotary", dropout=0.2, max_steps=2000),
    DIGITS_TASK: dict(
        kind="vision",
        attention_only=False,
        d_model=64,
        heads=4,
        d_ff=128,
        batch_size=128,
        weight_decay=0.01,
        max_steps=1000,
    ),
}


def default_setup(task: str) -> TrainingSetup:
    """The recommended settings for ``task`` (the page's defaults): decoder-only, 2 pre-LN layers, 2 heads.

    induction: attention-only (no feed-forward), d_model 64, rotary positions (learned ones need
    about 5x the steps to reach 99 %); copy: d_model 64, d_ff 128; reverse, sort: d_model 32,
    d_ff 64, learned positions; text: d_model 64, d_ff 128, rotary, dropout 0.2 (a text of tens
    of KB is memorised quickly without it). All: lr 3e-3, batch 32, 20 warm-up steps; at most 1000
    steps for induction, 2000 for the others (training stops earlier, at the target). digits: a Vision
    Transformer (kind "vision") of 2 layers of 4 heads, d_model 64, d_ff 128, learned positions, batch 128,
    weight decay 0.01, at most 1000 steps. Over seeds 0 to 7 it holds out 95 % after a median of 130 steps
    (60 to 320) and 6 s on one thread; batch 64 needed 290 steps (140 to 620) and 8 s.
    """
    if task not in _DEFAULTS:
        raise ValueError(f"task {task!r} is unknown; use one of {TRAINING_TASKS}.")
    return TrainingSetup(task=task, **_DEFAULTS[task])


def model_config(setup: TrainingSetup, context: int, vocab_size: int) -> TransformerConfig:
    """The model a setup trains, both vocabularies the task's, ``max_len = max(context, MODEL_MAX_LEN)``.

    Training uses at most ``context`` positions; the longer ``max_len`` lets every page of the app
    run the trained model on a user's text of up to 128 tokens, like a random model (rotary,
    ALiBi and sinusoidal positions cost nothing for it; a learned table's extra rows stay untrained).
    """
    if setup.task == DIGITS_TASK:  # a ViT on the 8 x 8 digits in 2 x 2 patches: no vocabulary, 17 tokens
        return digits_vit_config(
            d_model=setup.d_model,
            num_heads=setup.heads,
            num_encoder_layers=setup.layers,
            d_ff=setup.d_ff,
            dropout=setup.dropout,
            positional=setup.positional,
            norm_first=setup.norm_first,
            feed_forward=not setup.attention_only,
        )
    return TransformerConfig(
        d_model=setup.d_model,
        num_heads=setup.heads,
        num_encoder_layers=setup.layers,
        num_decoder_layers=setup.layers,
        d_ff=setup.d_ff,
        dropout=setup.dropout,
        positional=setup.positional,
        max_len=max(context, MODEL_MAX_LEN),
        norm_first=setup.norm_first,
        src_vocab_size=vocab_size,
        tgt_vocab_size=vocab_size,
        feed_forward=not setup.attention_only,
        **(llama_block(setup.heads) if setup.block == "llama" else {}),
    )


def llama_block(heads: int) -> dict:
    """``TransformerConfig`` fields of today's decoder block (``TrainingSetup.block == "llama"``)."""
    return dict(norm="rmsnorm", activation="swiglu", bias=False, num_kv_heads=heads // 2 if heads % 2 == 0 else None)
