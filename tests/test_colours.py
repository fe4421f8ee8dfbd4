"""One meaning per colour: what a figure singles out (the token drawn, the beam's text, a highlighted position or
bar, the run after a knock-out) is orange, never the red of the diverging scale's positive half."""

import re

import numpy as np

from viz.encoder_decoder import top_k_bars
from viz.experiments import position_bars
from viz.generation import beam_tree, distribution_bars

from tests.figure_rules import attention_scale_defect, is_attention_weight, ranges_apart
from tests.app_figures import SHARES_EVERY_FIGURE

pytestmark = SHARES_EVERY_FIGURE

ORANGE, RED = "#dc5400", "#d62728"


def test_the_token_drawn_is_orange_among_grey_bars():
    probabilities = np.array([0.5, 0.3, 0.2], dtype=np.float32)
    figure = distribution_bars(["a", "b", "c"], probabilities, probabilities, np.array([True, True, False]), 1, "t")
    colours = list(figure.data[0].marker.color)
    assert colours.count(ORANGE) == 1 and RED not in colours
    assert set(colours) - {ORANGE} <= {"#7f7f7f", "#c8c8c8"}  # kept grey, cut the masked grey


def test_the_beams_text_is_drawn_orange():
    figure = beam_tree([0, 0, 1], [-1, -1, 0], ["a", "b", "c"], [-0.1, -0.5, -0.3], {0, 2}, "tree")
    strong = [trace for trace in figure.data if trace.mode == "lines" and trace.line.color == ORANGE]
    assert strong and not [trace for trace in figure.data if trace.mode == "lines" and trace.line.color == RED]


def test_a_highlighted_bar_or_position_is_orange():
    bars = top_k_bars(["x", "y", "z"], np.array([0.6, 0.3, 0.1]), "top", highlight=1)
    assert list(bars.data[0].marker.color).count(ORANGE) == 1
    positions = position_bars(np.array([1.0, 2.0, 3.0]), ["a", "b", "c"], "p", "v", highlight=[2])
    assert list(positions.data[0].marker.color)[2] == ORANGE and RED not in positions.data[0].marker.color


# Colour-vision deficiency, simulated as Machado, Oliveira and Fernandes (2009) do at full severity: a 3 x 3 matrix on
# linear RGB. Distances are CIE76 ΔE in L*a*b* (D65).
DEFICIENCIES = {
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
    "typical": np.eye(3).tolist(),
}


def _linear(hex_colour: str) -> np.ndarray:
    channels = np.array([int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)]) / 255.0
    return np.where(channels <= 0.04045, channels / 12.92, ((channels + 0.055) / 1.055) ** 2.4)


def _lab(linear: np.ndarray) -> np.ndarray:
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ linear
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _seen(hex_colour: str, deficiency: str) -> np.ndarray:
    return _lab(np.clip(np.array(DEFICIENCIES[deficiency]) @ _linear(hex_colour), 0.0, 1.0))


def _closest(colours, others=()) -> float:
    """The smallest ΔE between two of ``colours``, or one of them and one of ``others``, over every vision."""
    smallest = np.inf
    for deficiency in DEFICIENCIES:
        seen = [_seen(c, deficiency) for c in colours]
        pairs = [(a, b) for i, a in enumerate(seen) for b in seen[i + 1 :]]
        pairs += [(a, _seen(o, deficiency)) for a in seen for o in others]
        smallest = min(smallest, min(float(np.linalg.norm(a - b)) for a, b in pairs))
    return smallest


def test_the_head_colours_stay_apart_for_colour_blind_readers_and_from_the_colours_that_mean_something_else():
    from viz.style import ACCENT, HEAD_COLORS, MASKED_COLOR, NEUTRAL, OTHER_COLOR

    reserved = (ACCENT, OTHER_COLOR, MASKED_COLOR, "#ffffff", "#b2182b", "#d6604d")  # and the diverging reds
    assert len(set(HEAD_COLORS)) == 12
    assert _closest(HEAD_COLORS[:3], reserved) >= 17  # the heads of the small models: far apart
    assert _closest(HEAD_COLORS, reserved) >= 9  # all twelve of a pretrained layer
    assert _closest(HEAD_COLORS, (NEUTRAL,)) >= 9  # and from the grey of every series that is not a head
    for colour in HEAD_COLORS:  # a line or a head's name reads on white (3:1)
        r, g, b = _linear(colour)
        assert 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05) >= 3.0, colour
    tableau = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728")  # the common default fails the same measure
    assert _closest(tableau, reserved) < 9


def _scale_luminance(name: str) -> np.ndarray:
    """The relative luminance of Plotly's scale ``name`` at 1,001 evenly spaced points, sampled by Plotly."""
    import plotly.colors

    from tests.test_figure_contrast import luminance

    samples = plotly.colors.sample_colorscale(name, list(np.linspace(0, 1, 1001)))
    return np.array([luminance(plotly.colors.unlabel_rgb(c)) for c in samples])


def _ratio(a: float, b: float) -> float:
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


def test_the_attention_scale_grows_lighter_with_the_weight_and_a_weight_of_0_4_stands_at_3_to_1_against_0():
    """Order reads without hue (in grey, or with any colour-vision deficiency), and any weight from 0.4 of the
    scale up keeps 3:1 against a weight of 0 (WCAG 1.4.11's measure for a mark against what is next to it)."""
    from viz.style import ATTENTION_SCALE

    lum = _scale_luminance(ATTENTION_SCALE)
    assert np.diff(lum).min() > -3e-3  # rising, to within 8-bit channels' rounding
    assert all(_ratio(value, lum[0]) >= 3 for value in lum[400:])
    assert _ratio(lum[-1], lum[0]) > 10


def test_the_diverging_scale_darkens_away_from_0_on_both_sides_and_60_percent_of_the_range_stands_at_3_to_1():
    from viz.style import DIVERGING_SCALE

    lum = _scale_luminance(DIVERGING_SCALE)
    centre = lum[500]
    assert np.diff(lum[:501]).min() > -3e-3 and np.diff(lum[500:]).max() < 3e-3  # each half darker away from 0
    assert all(_ratio(value, centre) >= 3 for value in np.concatenate([lum[:201], lum[800:]]))


def test_the_accent_reads_at_3_to_1_and_stays_apart_from_the_head_colours_and_the_diverging_reds():
    from viz.style import ACCENT, HEAD_COLORS, MASKED_COLOR, OTHER_COLOR

    r, g, b = _linear(ACCENT)
    assert 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05) >= 3.0
    assert _closest([ACCENT], HEAD_COLORS) >= 17
    assert _closest([ACCENT], (OTHER_COLOR, MASKED_COLOR, "#b2182b", "#d6604d", "#f4a582", "#1f77b4")) >= 12
    assert _closest(["#e69f00"], ("#b2182b", "#d6604d", "#f4a582")) < 12  # the orange it replaced did not


def _maps():
    """(where, quantity, hover, colours, low, high) for every heatmap the app draws, ``where`` its view (page,
    section, presenting) and title; a heatmap on a shared colour axis reads its scale from the layout's axis."""
    from tests.app_figures import every_figure_the_app_draws

    for page, section, present, spec in every_figure_the_app_draws():
        for trace in spec["data"]:
            if trace.get("type") != "heatmap":
                continue
            shared = bool(trace.get("coloraxis"))
            scale = spec["layout"][trace["coloraxis"]] if shared else trace
            quantity = (((scale.get("colorbar") or {}).get("title") or {}).get("text") or "").strip().lower()
            low, high = (scale.get("cmin"), scale.get("cmax")) if shared else (trace.get("zmin"), trace.get("zmax"))
            where = (page, section, present, (spec["layout"].get("title") or {}).get("text"))
            colours = [colour for _, colour in scale["colorscale"]]
            yield where, quantity, trace.get("hovertemplate") or "", colours, low, high


def test_every_attention_weight_is_drawn_on_the_one_attention_scale():
    """Viridis on every page (the Vision page's maps included, whose digit is an outline over them), 0 at its dark
    end: no other hue for a weight anywhere, and no other quantity is called a weight."""
    found = [
        (where, colours, low)
        for where, quantity, hover, colours, low, _ in _maps()
        if is_attention_weight(quantity, hover)
    ]
    pages = {where[0] for where, _, _ in found}
    assert len(found) >= 40 and {"Vision Transformer", "Multi-head attention", "Experiments"} <= pages, pages
    assert not [
        (where, attention_scale_defect(colours, low))
        for where, colours, low in found
        if attention_scale_defect(colours, low)
    ]


def test_maps_of_one_quantity_in_one_view_share_one_colour_range():
    """Raw and scaled scores, masked and unmasked, a head with and without another: compared on the same colours."""
    views: dict[tuple, list] = {}
    for where, quantity, _, _, low, high in _maps():
        views.setdefault(where[:3], []).append((quantity, low, high))
    assert not {view: apart for view, maps in views.items() if (apart := ranges_apart(maps))}
    scores = [
        maps for view, maps in views.items() if view[:2] == ("Self-attention, step by step", "Scores and softmax")
    ]
    assert scores and all(sum(quantity == "score" for quantity, _, _ in maps) >= 2 for maps in scores)


def _number(text: str) -> bool:
    return re.fullmatch(r"[−+-]?\d+(\.\d+)?%?", text.strip()) is not None


def test_a_map_that_prints_every_cells_value_draws_no_colour_bar_to_repeat_it():
    """Patching's, Importance's, Attribution's and Knock out's grids (and any other): where the numbers are written
    on the cells, a colour bar says them a second time; the axis's title names the value instead."""
    from tests.app_figures import every_figure_the_app_draws

    printed = []
    for title, section, _, spec in every_figure_the_app_draws():
        texts = [t for t in spec["data"] if t.get("name") == "values" and t.get("mode") == "text"]
        if not texts or not all(_number(word) for t in texts for word in t.get("text") or []):
            continue
        printed.append((title, section))
        for trace in spec["data"]:
            if trace.get("type") == "heatmap":
                assert trace.get("showscale") is False, (title, section)
        if title == "Experiments":  # the grids of heads: the axis names what the cells hold
            assert spec["layout"]["xaxis"]["title"]["text"].startswith("each cell: "), section
    assert {section for _, section in printed} >= {"Importance", "Patching", "Attribution"}, printed


def test_the_rules_tell_a_second_range_and_a_weight_off_its_scale():
    import plotly.colors

    assert ranges_apart([("score", -10.8, 12.3), ("score", -3.8, 4.3), ("weight", 0, 1)]) == {
        "score": {(-10.8, 12.3), (-3.8, 4.3)}
    }
    assert ranges_apart([("score", -10.8, 12.3), ("score", -10.8001, 12.3), ("value", -1, 1), ("value", -2, 2)]) == {}
    viridis = list(plotly.colors.sequential.Viridis)
    assert attention_scale_defect(viridis, 0) is None and attention_scale_defect(viridis, None) is None
    assert attention_scale_defect(viridis, 0.2) and attention_scale_defect(list(plotly.colors.sequential.Plasma), 0)
