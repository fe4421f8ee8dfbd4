"""The heads' outputs side by side: every head's tile names its first dimension, 0, and the last tile its last, as
Concat names each head's first column, so no tile is left without a scale."""

import numpy as np
import pytest

from viz.head_concat import head_outputs_figure


@pytest.mark.parametrize("count, width", [(2, 8), (12, 32)])
def test_every_heads_tile_names_its_first_dimension_and_the_last_tile_its_last(count, width):
    heads = np.random.default_rng(0).normal(size=(count, 3, width)).astype(np.float32)
    axis = head_outputs_figure(heads, ["a", "b", "c"], "heads").layout.xaxis
    assert list(axis.ticktext) == ["0"] * count + [str(width - 1)]
    # the columns named: each tile's first (a one-column gap between tiles) and the last tile's last
    firsts = [h * (width + 1) for h in range(count)]
    columns = list(head_outputs_figure(heads, ["a", "b", "c"], "heads").data[0].x)
    assert list(axis.tickvals) == [columns[f] for f in firsts] + [columns[firsts[-1] + width - 1]]


def test_w_os_colours_span_its_bulk_when_a_few_entries_stand_far_out_and_the_colour_bar_says_so():
    from viz.head_concat import output_weight_figure

    rng = np.random.default_rng(1)
    weight = rng.normal(0, 0.05, size=(64, 64)).astype(np.float32)
    plain = output_weight_figure(weight, 16, "W").data[0]
    assert plain.zmax == pytest.approx(np.abs(weight).max()) and plain.colorbar.ticktext is None  # Plotly's own ticks
    weight[3, 7] = 1.0  # one entry 20 standard deviations out, as in a trained model's W^O
    trace = output_weight_figure(weight, 16, "W").data[0]
    bulk = np.quantile(np.abs(weight), 0.995)
    assert trace.zmax == pytest.approx(bulk) and trace.zmin == pytest.approx(-bulk)
    assert trace.colorbar.ticktext[0] == f"≤ −{bulk:.2g}" and trace.colorbar.ticktext[-1] == f"≥ {bulk:.2g}"
    assert list(trace.colorbar.tickvals) == pytest.approx([-bulk, 0, bulk]) and trace.colorbar.ticktext[1] == "0"
    assert np.asarray(trace.z)[3, 7] == pytest.approx(1.0)  # the value itself is drawn (and hovered) unchanged


def test_minilms_w_o_is_drawn_over_its_bulk_in_codes():
    """all-MiniLM-L6-v2's layer-1 W^O: its largest |entry| is about 6 times the 99.5th percentile."""
    from transformer.pretrained import load_pretrained
    from viz.head_concat import output_weight_figure

    weight = load_pretrained()[0].encoder.layers[0].self_attn.w_o.weight.detach().numpy().T
    trace = output_weight_figure(weight, 32, "W").data[0]
    scale = int(trace.name == "W_O codes") and int(trace.hovertemplate.split("/ ")[1].split("<")[0])
    bulk = np.quantile(np.abs(weight.astype(np.float64)), 0.995)
    assert np.abs(weight).max() > 4 * bulk
    assert trace.zmax / scale == pytest.approx(bulk) and trace.colorbar.ticktext[-1].startswith("≥ ")
