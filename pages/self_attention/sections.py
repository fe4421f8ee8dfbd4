"""What every section of the Self-attention page draws from (``HeadOnText``: one head of one model on the
user's tokens) and its first sections: Q, K, V; scores and softmax. The output and why the scores are scaled are
in output_and_scaling.py, why attention at all and the tokens in their own modules."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ui import runtime  # noqa: F401  (torch threads are set before any torch work)

from analysis.attention_steps import AttentionSteps
from transformer import TransformerConfig, positional_scheme
from transformer.positional_schemes import NOWHERE
from ui.cache import cached_figure
from ui.charts import chart
from ui.findings import most_read_key, value_range
from ui.formulas import formula
from ui.screen import figure_then_text
from viz.attention_steps import attention_weights_figure, qkv_figure, signed_matrix_figure


@dataclass(frozen=True)
class HeadOnText:
    """Everything a section draws: the model's ``config`` (``random``: a seeded random model), the
    ``layer`` and ``head`` shown (counted from 1, as on screen), the what-if settings (``scale``: divide by
    sqrt(d_k); ``temperature``), whether the model is ``causal``, the ``tokens`` [T] and the head's
    chain of matrices ``steps`` (X [T, d_model], Q, K, V [T, d_k], scores and weights [T, T]); ``text``, the
    sentence as typed."""

    config: TransformerConfig
    random: bool
    layer: int
    head: int
    scale: bool
    temperature: float
    causal: bool
    tokens: list[str]
    steps: AttentionSteps
    text: str = ""

    @property
    def n(self) -> int:
        return len(self.tokens)

    @property
    def d_model(self) -> int:
        return self.config.d_model

    @property
    def d_k(self) -> int:
        return self.config.d_head

    @property
    def matrix_height(self) -> int:
        """Height in px of a [T, T] or [T, d] matrix figure: 22 px a row, 300 to 620."""
        return int(min(620, max(300, 120 + 22 * self.n)))

    def signed(
        self,
        values: np.ndarray,
        rows,
        cols,
        title: str,
        col_name: str = "dim",
        mask: np.ndarray | None = None,
        limit: float | None = None,
    ) -> go.Figure:
        """A signed matrix figure (cached: the same inputs reuse the built figure); ``limit`` shares a colour range."""
        return cached_figure(signed_matrix_figure, values, rows, cols, title, col_name, mask, self.matrix_height, limit)


# Without positions, what tells word order apart: nothing (no mask), or the causal mask (by causal).
NO_POSITIONS = {
    False: " There is no positional encoding and no causal mask, so the head cannot tell word order: reordering "
    "the tokens only reorders the rows and columns of its weights.",
    True: " There is no positional encoding, but the causal mask still tells positions apart: the token at "
    "position i (from 1) sees only the i tokens up to itself, so reordering the tokens changes the weights themselves, not only their "
    "order.",
}


def dimension_labels(count: int) -> list[str]:
    """Column labels "0".."count-1" of a [T, count] matrix of vectors."""
    return [str(i) for i in range(count)]


def input_description(view: HeadOnText) -> tuple[str, str, str]:
    """What X is for the chosen layer and model: markdown, its formula, a short name for the title."""
    config, layer = view.config, view.layer
    scheme = positional_scheme(config.positional)
    pe = scheme.embedding_term
    scaled = "\\sqrt{d_{model}}" if config.embed_scale else ""
    types = " + E_{\\text{type}}" if config.type_vocab_size else ""
    embed = f"E_{{\\text{{tokens}}}}{scaled}{pe}{types}"
    embed = f"\\mathrm{{LN}}({embed})" if config.embed_norm else embed
    where = f" Position enters inside attention instead: {scheme.inside}." if scheme.inside else ""
    where = NO_POSITIONS[view.causal] if scheme.acts_in == NOWHERE else where
    if layer == 1:
        text = (
            "**1 · Token vectors.** Each token's embedding is looked up"
            + (", scaled by $\\sqrt{d_{model}}$" if config.embed_scale else "")
            + (
                (", and" if config.embed_scale else " and")
                + " gets its position's vector added, so that the same word at two positions gets two different "
                "vectors."
                if pe
                else "."
            )
            + where
        )
        parts = " + ".join(["token vectors"] + (["positions"] if pe else []) + (["types"] if types else []))
        name = f"LN({parts})" if config.embed_norm else ("token vectors + PE" if pe and not types else parts)
        x_latex = f"X = {embed}"
    else:
        text = (
            f"**1 · The layer's input.** Layer {layer} reads the output of layer {layer - 1}: each token's "
            "vector now mixes in the tokens it attended to before."
        )
        x_latex, name = f"X = \\text{{output of layer }} {layer - 1}", f"output of layer {layer - 1}"
    if config.norm_first:
        text += " This model is pre-LN, so W_Q, W_K and W_V read the vectors after LayerNorm 1."
        x_latex, name = f"\\mathrm{{LN}}_1({x_latex.split(' = ', 1)[1]})", f"LN₁({name})"
        x_latex = f"X = {x_latex}"
    return text, x_latex + " \\in \\mathbb{R}^{T \\times d_{model}}", name


def vectors_section(view: HeadOnText) -> None:
    """Step 1 and 2: token vectors X [T, d_model] and their projections Q, K, V [T, d_k]."""
    steps, tokens, n = view.steps, view.tokens, view.n
    left, right = figure_then_text("vectors")
    text, x_latex, name = input_description(view)
    with right:
        st.markdown(text)
        formula(x_latex)
        st.caption(f"Shape: T × d_model = {n} × {view.d_model}")
    with left:
        chart(
            view.signed(steps.x, tokens, dimension_labels(view.d_model), f"X: {name} · {n} × {view.d_model}"), key="x"
        )
    st.markdown(
        "**2 · Queries, keys and values.** Three learned matrices project every token vector: the "
        "**query** is what this token looks for, the **key** what it offers to be found by, the "
        "**value** what it passes on."
    )
    formula(projection_formula(view.config))
    chart(
        cached_figure(
            qkv_figure,
            steps.q,
            steps.k,
            steps.v,
            tokens,
            f"Queries, keys and values · each {n} × {view.d_k}" + own_key_finding(steps.q, steps.k),
            view.matrix_height,
        ),
        key="qkv",
    )


def own_key_finding(q: np.ndarray, k: np.ndarray) -> str:
    """How many queries of ``q`` ``[T, d_k]`` score their own key highest of all keys ``k`` ``[T, d_k]``
    (q_i · k_i = max_j q_i · k_j; W_Q and W_K differ, so a token need not match itself), for the title."""
    if len(q) < 2:
        return ""
    scores = np.asarray(q, np.float64) @ np.asarray(k, np.float64).T  # [T, T]
    own = int((scores.argmax(-1) == np.arange(len(q))).sum())
    return f": {own} of {len(q)} queries score their own token's key highest"


def projection_formula(config: TransformerConfig) -> str:
    """Q, K and V as this model computes them: with its biases (Qwen2's on Q, K and V only), RoPE's rotation of q
    and k, and Qwen3's RMSNorm N of each head's q and k before it."""
    in_bias = config.bias if config.qkv_bias is None else config.qkv_bias
    plain = [f"{name} = XW_{name}" + (f" + b_{name}" if in_bias else "") for name in "QKV"]
    if positional_scheme(config.positional).rotate:  # RoPE turns each query and key by its position first
        for i, (row, index, name) in enumerate((("q", "i", "Q"), ("k", "j", "K"))):
            inner = rf"W_{name}^\top x_{index}" + (f" + b_{name}" if in_bias else "")
            inner = rf"N({inner})" if config.qk_norm else f"({inner})"
            plain[i] = rf"{row}_{index} = R_{index}\,{inner}"
    return r",\quad ".join(plain) + r",\qquad W_Q, W_K, W_V \in \mathbb{R}^{d_{model}\times d_k}"


def shared_limit(*matrices: np.ndarray) -> float:
    """One colour range for maps meant to be compared: the largest finite |value| among them (1 if none)."""
    values = np.concatenate([np.ravel(m) for m in matrices]) if matrices else np.zeros(0)
    finite = np.abs(values[np.isfinite(values)])
    return float(finite.max()) if finite.size and finite.max() > 0 else 1.0


def scaled_scores_formula(scale: bool, positional: str) -> str:
    """The scores the softmax reads: QK^T, divided by sqrt(d_k) when ``scale``, with the positional scheme's bias
    on the scores (ALiBi's distance penalty -m|i - j|) where it adds one, all over the temperature tau."""
    scores = r"\frac{QK^\top}{\sqrt{d_k}}" if scale else r"QK^\top"
    bias_term = positional_scheme(positional).bias_term
    if bias_term:
        scores += " " + bias_term("", "i", "j").replace("-", "- ", 1)
    return r"\tilde S_{ij} = \Big(" + scores.replace("QK^\top", "(QK^\top)_{ij}") + r"\Big) \big/ \tau"


def scores_section(view: HeadOnText) -> None:
    """Step 3: raw scores Q K^T, scaled, masked and softmaxed, all [T, T]."""
    steps, tokens, n = view.steps, view.tokens, view.n
    scaled = "the scores are scaled by 1/√d_k" if view.scale else "the scores are left unscaled (switched off above)"
    masked = (
        "the causal mask hides the keys after each query"
        if view.causal
        else "no mask hides a key (every query sees every key)"
    )
    st.markdown(
        "**3 · Scores, scaling, mask and softmax.** Every query is compared with every key by a dot "
        f"product; {scaled}, {masked}, and a softmax turns each row "
        "into weights that sum to 1."
    )
    factor = "/ √d_k" if view.scale else ""
    # raw, scaled and masked scores on one colour range, so the shrink by 1/√d_k shows as paler colours
    limit = shared_limit(steps.raw, steps.scaled)
    titles = {
        "raw": (steps.raw, f"Raw scores Q Kᵀ · {n} × {n}"),
        "scaled": (steps.scaled, f"Scaled scores Q Kᵀ {factor} / τ (τ = {view.temperature:g}) · {n} × {n}"),
    }
    formulas = {
        "raw": r"S = QK^\top \in \mathbb{R}^{T\times T},\quad S_{ij} = q_i \cdot k_j",
        "scaled": scaled_scores_formula(view.scale, view.config.positional),
    }
    for column, (key, (scores, title)) in zip(st.columns(2), titles.items()):
        with column:
            formula(formulas[key])
            chart(
                view.signed(scores, tokens, tokens, title + value_range(scores), col_name="key", limit=limit),
                key=key,
            )
    st.caption(
        f"The score maps share one colour range, ±{limit:.2f}: "
        + (
            f"dividing by √d_k = {np.sqrt(view.config.d_head):.2f} shows as paler colours."
            if view.scale
            else "unscaled, the two maps are the same."
        )
    )
    left, right = st.columns(2)
    with left:
        if view.causal:
            formula(r"\tilde S_{ij} \leftarrow -\infty \text{ for } j > i \quad(\text{grey: masked})")
            chart(
                view.signed(
                    steps.scaled,
                    tokens,
                    tokens,
                    f"Masked scores (causal) · {n} × {n}",
                    col_name="key",
                    mask=steps.mask,
                    limit=limit,
                ),
                key="masked",
            )
        else:
            formula(r"\text{mask: none}")
            st.caption(
                "No mask: every query may attend to every key."
                + (
                    " Switch on the causal mask above to hide the future (the keys to the right of the diagonal)."
                    if view.random
                    else " This model is bidirectional."
                )
            )
    with right:
        formula(r"A = \mathrm{softmax}(\tilde S),\quad A_{ij} = \frac{e^{\tilde S_{ij}}}{\sum_{j'} e^{\tilde S_{ij'}}}")
        chart(
            cached_figure(
                attention_weights_figure,
                steps.weights,
                tokens,
                f"Attention weights A (each row sums to 1) · {n} × {n}" + most_read_key(steps.weights, tokens),
                mask=steps.mask if view.causal else None,
                height=view.matrix_height,
            ),
            key="weights",
        )
    difference = float(np.abs(steps.weights - steps.model_weights).max())
    if view.scale == view.config.scale_scores and view.temperature == 1.0:
        st.caption(
            f"These are the model's own weights for layer {view.layer}, head {view.head}: "
            f"max |A − A_model| = {difference:.1e} (float rounding)."
        )
    else:
        st.caption(
            f"A what-if: the model itself computes with{'' if view.config.scale_scores else 'out'} the "
            f"√d_k scaling and τ = 1; its own weights differ from these by up to {difference:.2f}."
        )
