"""Masked language modelling (BERT's pre-training) on the text task's corpus, one character a token.

A share of the positions (``MASK_RATE`` = 15 %) is chosen in every window; of those, 80 % are replaced by the
``[MASK]`` token, 10 % by a random symbol and 10 % kept, and the model predicts the original symbol at each
chosen position from both sides (an encoder-only model, no causal mask). The loss is the cross-entropy over
the chosen positions only:

    L = -(1/|M|) * sum_{i in M} log p_theta(x_i | x with M corrupted)

The vocabulary is the corpus' symbols followed by ``[MASK]``, a symbol no typed text can produce (a user's text
is split into single characters). ``fill_in`` asks a trained model for the distribution of one blank.
"""

from __future__ import annotations

import time

import torch
from torch import nn
from torch.nn import functional as F

from .config import TransformerConfig
from .seeding import build_model
from .text_corpus import TextSource, text_source
from .tokenizer import SPECIALS, VocabTokenizer
from .vision_training import clipped_step, learning_rate_at

MASK = "[MASK]"
MASK_RATE, REPLACE_SHARE, RANDOM_SHARE = 0.15, 0.8, 0.1  # BERT's choice of positions and what becomes of them
CONTEXT = 64


def masked_lm_tokenizer(source: TextSource | None = None) -> VocabTokenizer:
    """The corpus' symbols (ids 4 ..) and ``[MASK]`` last."""
    source = text_source() if source is None else source
    return VocabTokenizer((*source.vocabulary, MASK), "char")


def mask_id(tokenizer: VocabTokenizer) -> int:
    """The id of ``[MASK]``."""
    return len(SPECIALS) + tokenizer.vocabulary.index(MASK)


def masked_lm_config(**changes) -> TransformerConfig:
    """The shipped masked model's size: the shipped text model's (2 layers, 2 heads, d_model 64, rotary)."""
    vocab = masked_lm_tokenizer().vocab_size
    settings = dict(
        d_model=64,
        num_heads=2,
        num_encoder_layers=2,
        num_decoder_layers=2,
        d_ff=128,
        dropout=0.1,
        positional="rotary",
        max_len=128,
        norm_first=True,
        src_vocab_size=vocab,
        tgt_vocab_size=vocab,
    )
    return TransformerConfig(**{**settings, **changes})


def corrupt(
    ids: torch.Tensor, generator: torch.Generator, mask: int, symbols: range, rate: float = MASK_RATE
) -> tuple[torch.Tensor, torch.Tensor]:
    """(inputs ``[B, L]``, chosen ``[B, L]`` bool) for windows ``ids [B, L]``.

    Each position is chosen with probability ``rate`` (at least one a window); a chosen position becomes
    ``mask`` with probability 0.8, a symbol drawn uniformly from ``symbols`` with 0.1, and stays with 0.1.
    """
    chosen = torch.rand(ids.shape, generator=generator) < rate
    none = ~chosen.any(dim=1)
    if none.any():
        first = torch.randint(0, ids.shape[1], (int(none.sum()),), generator=generator)
        chosen[none.nonzero().squeeze(1), first] = True
    fate = torch.rand(ids.shape, generator=generator)
    random_ids = torch.randint(symbols.start, symbols.stop, ids.shape, generator=generator)
    inputs = torch.where(chosen & (fate < REPLACE_SHARE), torch.full_like(ids, mask), ids)
    inputs = torch.where(chosen & (fate >= REPLACE_SHARE) & (fate < REPLACE_SHARE + RANDOM_SHARE), random_ids, inputs)
    return inputs, chosen


def masked_lm_loss(model: nn.Module, inputs: torch.Tensor, targets: torch.Tensor, chosen: torch.Tensor) -> torch.Tensor:
    """The mean cross-entropy of the model's logits at the chosen positions against the original ids."""
    logits = model(inputs).logits
    return F.cross_entropy(logits[chosen], targets[chosen])


def held_out_metrics(
    model: nn.Module, source: TextSource, tokenizer: VocabTokenizer, seed: int = 0, windows: int = 256
) -> dict:
    """Loss and accuracy at masked positions of ``windows`` held-out windows, corrupted with a fixed seed."""
    generator = torch.Generator().manual_seed(10_000 + seed)
    ids = source.windows(windows, CONTEXT - 1, generator, "val")
    inputs, chosen = corrupt(ids, generator, mask_id(tokenizer), range(len(SPECIALS), mask_id(tokenizer)))
    was_training = model.training
    model.eval()
    with torch.inference_mode():
        logits = model(inputs).logits[chosen]
    model.train(was_training)
    targets = ids[chosen]
    return {
        "val_loss": float(F.cross_entropy(logits, targets)),
        "val_accuracy": float((logits.argmax(-1) == targets).float().mean()),
    }


def train_masked_lm(
    config: TransformerConfig | None = None,
    seed: int = 0,
    steps: int = 3000,
    batch_size: int = 32,
    learning_rate: float = 3e-3,
    warmup: int = 50,
    eval_every: int = 500,
) -> tuple[nn.Module, VocabTokenizer, list[dict]]:
    """(the trained encoder-only model in eval mode, its tokenizer, its history) after ``steps`` AdamW steps
    on windows of ``CONTEXT`` characters of the built-in corpus' training split, corrupted by ``corrupt``.
    The rate warms up over ``warmup`` steps and decays by a cosine (``learning_rate_at``). A history row at
    every ``eval_every`` steps and the last: ``step``, ``train_loss`` (mean since the last row),
    ``val_loss``, ``val_accuracy`` (``held_out_metrics``) and ``seconds``."""
    source = text_source()
    tokenizer = masked_lm_tokenizer(source)
    config = masked_lm_config() if config is None else config
    if config.src_vocab_size != tokenizer.vocab_size:
        raise ValueError(
            f"src_vocab_size must be {tokenizer.vocab_size}, the corpus' symbols, the specials and "
            f"{MASK}; got {config.src_vocab_size}."
        )
    start = time.perf_counter()
    model = build_model(config, seed, "encoder-only").train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.0)
    data, dropout = torch.Generator().manual_seed(2 * seed + 1), torch.Generator().manual_seed(2 * seed + 3)
    symbols = range(len(SPECIALS), mask_id(tokenizer))
    history, losses = [], []
    for step in range(steps):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate_at(step, steps, learning_rate, warmup)
        torch.manual_seed(int(torch.randint(0, 2**62, (1,), generator=dropout)))
        ids = source.windows(batch_size, CONTEXT - 1, data, "train")
        inputs, chosen = corrupt(ids, data, mask_id(tokenizer), symbols)
        losses.append(clipped_step(model, optimizer, masked_lm_loss(model, inputs, ids, chosen)))
        if (step + 1) % eval_every == 0 or step + 1 == steps:
            history.append(
                {
                    "step": step + 1,
                    "train_loss": sum(losses) / len(losses),
                    **held_out_metrics(model, source, tokenizer, seed),
                    "seconds": time.perf_counter() - start,
                }
            )
            losses = []
    return model.eval(), tokenizer, history


def fill_in(model: nn.Module, ids: list[int] | torch.Tensor, position: int, mask: int) -> torch.Tensor:
    """``[V]`` probabilities of the symbol at ``position`` (0-based) of ``ids`` with that position replaced by
    ``mask``: ``softmax(z_position)`` of one bidirectional pass."""
    inputs = torch.as_tensor(ids, dtype=torch.long).clone().reshape(1, -1)
    if not 0 <= position < inputs.shape[1]:
        raise ValueError(f"position {position} is outside the {inputs.shape[1]} tokens.")
    inputs[0, position] = mask
    with torch.inference_mode():
        return torch.softmax(model(inputs).logits[0, position].float(), dim=-1)
