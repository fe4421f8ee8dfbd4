"""One registry of positional schemes (transformer/positional_schemes.py): each record says where its scheme acts,
and the model, the config's checks, the controls, the diagram and the parameter count do as it says."""

from __future__ import annotations

import pytest
import torch

from analysis.parameters import closed_form_parameters, counted_parameters
from transformer import (
    POSITIONAL_ENCODINGS,
    POSITIONAL_SCHEMES,
    ForwardRecord,
    MultiHeadAttention,
    TransformerConfig,
    build_model,
    positional_scheme,
)
from transformer.positional import apply_rotary, sinusoidal_encoding
from transformer.positional_schemes import ATTENTION, EMBEDDING, NOWHERE
from ui.controls import POSITIONAL_LABELS, head_options


def test_the_registry_names_every_scheme_once_and_the_config_takes_exactly_those():
    names = [scheme.name for scheme in POSITIONAL_SCHEMES]
    assert names == list(POSITIONAL_ENCODINGS) == ["sinusoidal", "learned", "rotary", "alibi", "none"]
    assert len(set(POSITIONAL_LABELS.values())) == len(names) and set(POSITIONAL_LABELS) == set(names)
    with pytest.raises(ValueError, match="unknown; use one of"):
        TransformerConfig(positional="wavelet")


@pytest.mark.parametrize("name", POSITIONAL_ENCODINGS)
def test_a_scheme_acts_where_its_record_says(name):
    scheme = positional_scheme(name)
    torch.manual_seed(0)
    model = build_model(TransformerConfig(positional=name, d_model=16, num_heads=2, max_len=12, dropout=0.0)).eval()
    tokens = torch.tensor([[3, 5, 7, 9]])
    table = model.src_embed.position
    if scheme.acts_in == EMBEDDING:
        zeros = torch.zeros(1, 4, 16)
        assert table is not None and tuple(table(zeros).shape) == (1, 4, 16) and table(zeros).abs().sum() > 0
        assert (len(list(table.parameters())) > 0) == scheme.learned
    else:
        assert table is None and scheme.acts_in in (ATTENTION, NOWHERE)
    if name == "sinusoidal":  # the paper's table, exactly
        torch.testing.assert_close(table(torch.zeros(1, 4, 16))[0], sinusoidal_encoding(12, 16)[:4])
    # where positions act at all, swapping two source tokens changes more than their own two rows of the encoding
    swapped = tokens[:, [1, 0, 2, 3]]
    memory, memory_swapped = model.encode(tokens), model.encode(swapped)
    same_rows = torch.allclose(memory[:, [1, 0, 2, 3]], memory_swapped, atol=1e-5)
    assert same_rows == (scheme.acts_in == NOWHERE)


def test_rotary_needs_an_even_head_and_the_heads_control_offers_only_those():
    assert [s.name for s in POSITIONAL_SCHEMES if s.even_head] == ["rotary"]
    with pytest.raises(ValueError, match="must be even"):
        TransformerConfig(positional="rotary", d_model=12, num_heads=4)
    assert head_options(12, "rotary") == [1, 2, 3, 6] and head_options(12, "alibi") == [1, 2, 3, 4, 6, 12]


def test_only_a_learned_table_adds_parameters():
    configs = {name: TransformerConfig(positional=name) for name in POSITIONAL_ENCODINGS}
    totals = {name: sum(closed_form_parameters(config).values()) for name, config in configs.items()}
    for name, config in configs.items():  # the closed form against the model's own parameters
        assert sum(counted_parameters(build_model(config)).values()) == totals[name], name
    config = TransformerConfig()
    assert totals["learned"] - totals["sinusoidal"] == 2 * config.max_len * config.d_model  # source and target
    assert len({totals[name] for name in ("sinusoidal", "rotary", "alibi", "none")}) == 1


def test_the_diagrams_default_note_is_the_papers_scheme_as_the_registry_writes_it():
    from viz.architecture import ArchitectureSpec

    assert ArchitectureSpec().positions == positional_scheme("sinusoidal").diagram


@pytest.mark.parametrize("name", POSITIONAL_ENCODINGS)
def test_attention_turns_q_and_k_and_biases_the_scores_as_the_schemes_formula_says(name):
    """The scores a MultiHeadAttention keeps equal (R_i q_i)·(R_j k_j) / sqrt(d_k) + B_ij computed here from the
    formulas: RoPE's rotation for rotary, ALiBi's -m_h |i - j| for ALiBi, neither for the rest."""
    torch.manual_seed(1)
    attention = MultiHeadAttention(16, 4, positional=name).eval()
    x = torch.randn(1, 6, 16)
    record = ForwardRecord(keep_scores=True)
    attention(x, x, x, record=record)
    q = attention.split_heads(attention.w_q(x))
    k = attention.split_heads(attention.w_k(x))
    if name == "rotary":
        q, k = apply_rotary(q), apply_rotary(k)
    expected = q @ k.transpose(-2, -1) / 2.0  # sqrt(d_k) = sqrt(16 / 4)
    if name == "alibi":
        slopes = torch.tensor([2.0 ** (-8.0 * h / 4) for h in (1, 2, 3, 4)])
        distance = (torch.arange(6)[:, None] - torch.arange(6)[None, :]).abs().float()
        expected = expected - slopes[:, None, None] * distance
    torch.testing.assert_close(record.scores["attn"], expected, atol=1e-5, rtol=1e-5)
    scheme = positional_scheme(name)
    assert (scheme.rotate is not None, scheme.score_bias is not None) == (name == "rotary", name == "alibi")
    assert (scheme.acts_in == ATTENTION) == bool(scheme.rotate or scheme.score_bias) == bool(scheme.inside)
    assert (scheme.acts_in == EMBEDDING) == (scheme.table is not None) == bool(scheme.embedding_term)


def test_the_positional_page_offers_every_scheme_and_keeps_the_addresses_lessons_link_to():
    from analysis.positional import scheme_panels
    from pages.positional_encoding import schemes, word_order

    assert schemes.SCHEMES == ("Learned", "Rotary (RoPE)", "ALiBi", "None")  # the URL's values, in lessons' links
    assert set(schemes.DETAILS) == {s.name for s in POSITIONAL_SCHEMES} - {"sinusoidal"}
    assert list(scheme_panels(4, 6, 10000.0, 0)) == list(schemes.PANELS) == list(POSITIONAL_ENCODINGS)
    assert word_order.COMPARED == ("sinusoidal", "learned", "rotary", "alibi")
