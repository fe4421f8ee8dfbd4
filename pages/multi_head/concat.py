"""The multi-head page's "Concat × W^O" section: the heads concatenated and projected by W^O.

Every number is read from the model's own forward record (``<stack>.layers.<i>.self_attn.heads``
and ``.out``) and its own ``w_o`` parameters; the page only rearranges and draws them, and
checks that the recorded output is Concat(heads) W^O + b^O.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from analysis.head_concat import block_norms, concat_heads, head_parts, output_projection, projection_gap
from ui.cache import cached_figure
from ui.forward import run_model, stack_of
from ui.charts import chart
from ui.formulas import formula
from viz.head_concat import (
    attention_output_figure,
    concat_figure,
    head_outputs_figure,
    output_weight_figure,
    symmetric_limit,
)

TOLERANCE = 1e-4  # float32 rounding of a d_model-long sum stays far below this


FINDINGS = ("heads", "concat", "w_o", "output")


def findings(heads: np.ndarray, concat: np.ndarray, weight: np.ndarray, d_head: int) -> dict[str, str]:
    """Each figure's finding, the ending of its title (heads numbered from 1): the head whose values are the largest
    (``heads [H, T, d_k]``), Concat's columns by head, the head whose block of W^O has the largest norm, and the
    head whose part of the output, ‖head_i W^O_i‖, is the largest against the smallest."""
    largest = np.abs(heads).reshape(len(heads), -1).max(1)
    blocks, parts = block_norms(weight, d_head), head_parts(concat, weight, d_head)
    loud, big, most, least = (
        int(np.argmax(largest)),
        int(np.argmax(blocks)),
        int(np.argmax(parts)),
        int(np.argmin(parts)),
    )
    return {
        "heads": f": head {loud + 1}'s values are the largest (|x| up to {largest[loud]:.2f})",
        "concat": f": head i's {d_head} columns from {d_head}(i − 1), the numbers above unchanged",
        "w_o": f": head {big + 1}'s rows have the largest norm ({blocks[big]:.2f})",
        "output": f": head {most + 1} adds the most (‖head<sub>{most + 1}</sub> W<sup>O</sup><sub>{most + 1}</sub>‖ = "
        f"{parts[most]:.2f}, head {least + 1} the least, {parts[least]:.2f})",
    }


def concat_section(loaded, ids: tuple[int, ...], tokens: list[str], layer: int, options: dict) -> None:
    """Layer ``layer`` (1-based) of the model ``loaded`` on token ``ids``: head_i = A_i V_i
    ``[T, d_k]`` side by side, Concat ``[T, d_model]``, W^O ``[d_model, d_model]`` and the output
    ``[T, d_model]``, with the formula and a numerical check. ``options`` go to every chart (the toolbar's image format)."""
    stack, index = stack_of(loaded.kind), layer - 1
    name = f"{stack}.layers.{index}.self_attn"
    internals = run_model(loaded.spec, tuple(ids), internals=True).internals
    heads, output = internals[f"{name}.heads"], internals[f"{name}.out"]  # [H, T, d_k], [T, d_model]
    projection = output_projection(loaded.module, stack, index)
    concat = concat_heads(heads)
    count, length, d_head = heads.shape
    d_model = concat.shape[1]
    bias = projection.bias is not None
    laid = (
        f"**Concat** lays the {count} heads side by side into one ${length} \\times {d_model}$ matrix (the same "
        "numbers: head $i$ fills columns $(i-1)d_k$ to $i\\,d_k - 1$). **$W^O$** then mixes them: row $r$ of $W^O$ "
        "multiplies column $r$ of Concat, so head $i$ meets only its own block of rows, $W^O_i$, and every output "
        "dimension is a sum over all heads."
        if count > 1
        else f"With one head, **Concat** is that head's ${length} \\times {d_model}$ matrix itself, and **$W^O$** "
        "mixes its columns: every output dimension is a sum over them."
    )
    limit = symmetric_limit(heads)  # heads and Concat share one colour range: the same numbers
    prefix = f"Layer {layer} · "
    found = findings(heads, concat, projection.weight, d_head) if count > 1 else dict.fromkeys(FINDINGS, "")
    chart(
        cached_figure(
            head_outputs_figure,
            heads,
            tokens,
            prefix
            + f"{count} heads · head<sub>i</sub> = A<sub>i</sub> V<sub>i</sub>, each [{length} × {d_head}]"
            + found["heads"],
            limit,
        ),
        key="heads_out",
        **options,
    )
    st.markdown(
        f"Each head returns a $T \\times d_k$ matrix, here ${length} \\times {d_head}$: its weighted sum of "
        f"values. {laid}" + (" The model adds a bias $b^O$ to every row." if bias else " This model has no bias.")
    )
    formula(
        r"\mathrm{MultiHead}(Q,K,V) = \mathrm{Concat}(\mathrm{head}_1,\dots,\mathrm{head}_{%d})\,W^O%s"
        r" \allowbreak = \sum_{i=1}^{%d} \mathrm{head}_i\,W^O_i%s,"
        % (count, " + b^O" if bias else "", count, " + b^O" if bias else ""),
        r"\mathrm{head}_i = A_i V_i",
    )
    chart(
        cached_figure(
            concat_figure,
            concat,
            tokens,
            d_head,
            prefix + f"Concat(head<sub>1</sub> … head<sub>{count}</sub>) [{length} × {d_model}]" + found["concat"],
            limit,
        ),
        key="concat",
        **options,
    )
    left, right = st.columns([2, 3])
    with left:
        chart(
            cached_figure(
                output_weight_figure,
                projection.weight,
                d_head,
                prefix + f"W<sup>O</sup> [{d_model} × {d_model}]" + found["w_o"],
            ),
            key="w_o",
            **options,
        )
    with right:
        chart(
            cached_figure(
                attention_output_figure,
                output,
                tokens,
                prefix
                + "output = Concat · W<sup>O</sup>"
                + (" + b<sup>O</sup>" if bias else "")
                + f" [{length} × {d_model}]"
                + found["output"],
            ),
            key="mh_out",
            **options,
        )
    gap = projection_gap(concat, projection, output)
    check = (
        f"Check: the output drawn is the model's own (its forward record); recomputing "
        f"$\\mathrm{{Concat}} \\cdot W^O{' + b^O' if bias else ''}$ from the heads drawn gives the same "
        f"{length} × {d_model} numbers, largest difference {gap:.1e}"
    )
    (st.success if gap <= TOLERANCE else st.error)(check + (" (float rounding)." if gap <= TOLERANCE else "."))
    st.caption(
        f"Shapes: {count} × [{length} × {d_head}] → Concat [{length} × {d_model}] → "
        f"· $W^O$ [{d_model} × {d_model}] → output [{length} × {d_model}]. "
        "Frames and labels give each head its colour; the output mixes the heads, so it has no blocks. "
        "Colours: blue negative, red positive, white 0 (the heads and Concat share one range)."
    )
