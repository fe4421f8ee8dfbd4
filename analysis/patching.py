"""Activation patching: which heads carry the information a corruption destroys.

A clean input and a corrupted one of the same length (e.g. the first letter of a repeated block
changed) give different answers at one position. Measured by the logit difference

    LD = z[position, answer] - z[position, foil]

(``answer`` = the clean run's prediction, ``foil`` = the corrupted run's, or its runner-up when the
two agree), one head's output from the clean run is patched into the corrupted run and

    restored = (LD_patched - LD_corrupted) / (LD_clean - LD_corrupted)

is 0 when the head carries none of the difference and 1 when it alone restores the clean answer.
A head's ``part`` may be patched instead of its whole output ("output", ``A_h V_h``): its queries ("q"),
keys ("k") or values ("v") from the clean run, the rest of the head computed from the corrupted run's, which
tells through which of its inputs a head reads what the corruption changed.
Decoder-only models only (one token sequence in, a prediction per position out).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from analysis.logit_lens import direct_logit_attribution
from transformer import PARTS, Patch

# The least change of the logit difference a corruption must make for a fraction of it to mean anything: the
# fraction restored divides by this change, and a smaller one (numerical noise, or a prediction the corruption
# hardly touches) turns any patch into fractions far outside 0..1.
MIN_DIFFERENCE = 1.0  # logits


@dataclass(frozen=True)
class PatchingRun:
    """The clean and corrupted passes ``[1, L]`` at one ``position``: answer and foil ids, their logit
    differences, and the clean pass's record (internals) to patch from."""

    clean: torch.Tensor
    corrupted: torch.Tensor
    position: int
    answer: int
    foil: int
    clean_difference: float
    corrupted_difference: float
    source: object

    def restored(self, logits: torch.Tensor) -> float:
        """The fraction of the logit difference ``logits [1, L, V]`` restores (0 = corrupted, 1 = clean)."""
        difference = logit_difference(logits, self.position, self.answer, self.foil)
        return (difference - self.corrupted_difference) / (self.clean_difference - self.corrupted_difference)


def logit_difference(logits: torch.Tensor, position: int, answer: int, foil: int) -> float:
    """``z[position, answer] - z[position, foil]`` of batch row 0 of ``logits [B, L, V]``."""
    row = logits[0, position]
    return float(row[answer] - row[foil])


@torch.inference_mode()
def patching_run(model: torch.nn.Module, clean: list[int], corrupted: list[int], position: int) -> PatchingRun:
    """Both passes of a patching experiment at ``position`` (0-based). ValueError, with what to change,
    when the inputs differ in length, the position is outside them, or the corruption changes nothing there."""
    if model.kind != "decoder-only":
        raise ValueError(
            "patching on this page reads a decoder-only model's next-token logits; pick a decoder-only model."
        )
    if len(clean) != len(corrupted):
        raise ValueError(
            f"patching needs inputs of the same length: the clean input has {len(clean)} tokens "
            f"and the corrupted one {len(corrupted)}. Change the corrupted input's tokens, "
            f"not its length."
        )
    if not 0 <= position < len(clean):
        raise ValueError(f"position {position + 1} is outside the input's {len(clean)} tokens.")
    clean_ids, corrupted_ids = torch.tensor([clean]), torch.tensor([corrupted])
    clean_pass = model(clean_ids, return_internals=True)
    corrupted_logits = model(corrupted_ids).logits
    answer = int(clean_pass.logits[0, position].argmax())
    ranked = corrupted_logits[0, position].argsort(descending=True).tolist()
    foil = ranked[0] if ranked[0] != answer else ranked[1]
    clean_difference = logit_difference(clean_pass.logits, position, answer, foil)
    corrupted_difference = logit_difference(corrupted_logits, position, answer, foil)
    if abs(clean_difference - corrupted_difference) < MIN_DIFFERENCE:
        raise ValueError(
            f"the corruption moves the logit difference at position {position + 1} by "
            f"{abs(clean_difference - corrupted_difference):.2f}, less than {MIN_DIFFERENCE:g}: too "
            f"little for a fraction of it to be restored. Pick a position whose prediction depends "
            f"on the changed token, or change a token this prediction depends on."
        )
    return PatchingRun(
        clean_ids, corrupted_ids, position, answer, foil, clean_difference, corrupted_difference, clean_pass.attention
    )


@torch.inference_mode()
def restored_by_head(model: torch.nn.Module, run: PatchingRun, names: list[str], part: str = "output") -> np.ndarray:
    """``[len(names), H]`` float32: the fraction restored when each head's ``part`` alone is patched at every
    position."""
    heads = model.config.num_heads
    grid = np.zeros((len(names), heads), dtype=np.float32)
    for layer, name in enumerate(names):
        for head in range(heads):
            logits = model(run.corrupted, interventions=[Patch(name, [head], run.source, part=part)]).logits
            grid[layer, head] = run.restored(logits)
    return grid


@torch.inference_mode()
def restored_by_position(
    model: torch.nn.Module, run: PatchingRun, name: str, head: int, part: str = "output"
) -> np.ndarray:
    """``[L]`` float32: the fraction restored when one head's ``part`` is patched at one position at a time (a
    query position for the output and queries, a key position for keys and values)."""
    length = run.clean.shape[1]
    restored = np.zeros(length, dtype=np.float32)
    for position in range(length):
        patch = Patch(name, [head], run.source, positions=[position], part=part)
        restored[position] = run.restored(model(run.corrupted, interventions=[patch]).logits)
    return restored


@torch.inference_mode()
def restored_by_part(model: torch.nn.Module, run: PatchingRun, name: str, head: int) -> dict[str, float]:
    """The fraction restored when one head's output, queries, keys or values alone are patched at every
    position: part ("output", "q", "k", "v") -> fraction."""
    return {
        part: run.restored(model(run.corrupted, interventions=[Patch(name, [head], run.source, part=part)]).logits)
        for part in PARTS
    }


@dataclass(frozen=True)
class Prediction:
    """What a pass predicts at a patching run's position: the top token's id, z[answer] and z[foil]."""

    top: int
    answer_logit: float
    foil_logit: float


def _prediction(logits: torch.Tensor, run: PatchingRun) -> Prediction:
    row = logits[0, run.position]
    return Prediction(int(row.argmax()), float(row[run.answer]), float(row[run.foil]))


@torch.inference_mode()
def predictions_when_patched(
    model: torch.nn.Module, run: PatchingRun, name: str, head: int, positions: list[int], part: str = "output"
) -> tuple[Prediction, dict[int, Prediction]]:
    """The corrupted pass's prediction, and for each of ``positions`` (0-based) the prediction when one head's
    ``part`` alone is patched at that one position: a fraction restored is one difference, z[answer] - z[foil],
    which narrows when z[answer] rises or when z[foil] falls, whatever the pass then predicts."""
    corrupted = _prediction(model(run.corrupted).logits, run)
    patched = {
        position: _prediction(
            model(
                run.corrupted, interventions=[Patch(name, [head], run.source, positions=[position], part=part)]
            ).logits,
            run,
        )
        for position in positions
    }
    return corrupted, patched


@torch.inference_mode()
def direct_part_restored(model: torch.nn.Module, run: PatchingRun) -> np.ndarray:
    """``[layers, H]`` float32: the part of each head's fraction restored that reaches the logits straight.

    A head's direct effect on LD = z[answer] - z[foil] (``analysis.logit_lens.direct_logit_attribution``: what
    it writes into the residual stream at the run's position, read through the LayerNorms after it with their
    scales as they were, and the unembedding) is taken in the clean pass and in the corrupted one; its change,

        direct = (DLA_clean(answer - foil) - DLA_corrupted(answer - foil)) / (LD_clean - LD_corrupted),

    is on the same scale as ``restored_by_head``: patching the head's whole output restores ``direct`` through
    its own writing and the rest through the parts after it (later heads, feed-forward layers)."""

    def on_difference(ids: torch.Tensor) -> np.ndarray:
        tokens = ids[0].tolist()
        answer = direct_logit_attribution(model, tokens, run.position, run.answer).heads
        foil = direct_logit_attribution(model, tokens, run.position, run.foil).heads
        return answer - foil

    change = on_difference(run.clean) - on_difference(run.corrupted)
    return (change / (run.clean_difference - run.corrupted_difference)).astype(np.float32)
