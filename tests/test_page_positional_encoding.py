"""The Positional encoding page draws the formulas: curves, table, similarity, M_k, RoPE, ALiBi, word order."""

import math
import re

import numpy as np
import pytest

from tests.apptest_helpers import (
    assert_no_exception,
    assert_projector_fonts,
    chart_by_title,
    chart_specs,
    decode_array,
    run_page,
    title_text,
)

PAGE = "pages/positional_encoding/page.py"
SECTIONS = ("Curves", "Table", "Similarity", "Offset map", "Schemes", "Word order")
SCHEMES = ("Learned", "Rotary (RoPE)", "ALiBi", "None")


def formula(positions: int, d_model: int, base: float) -> np.ndarray:
    """PE[pos, 2i] = sin(pos / base^(2i/d)), PE[pos, 2i+1] = cos(same), in float64."""
    pos = np.arange(positions)[:, None]
    dims = np.arange(d_model)[None, :]
    angle = pos / base ** ((dims - dims % 2) / d_model)
    return np.where(dims % 2 == 0, np.sin(angle), np.cos(angle))


def no_nan_anywhere(at) -> None:
    for spec in chart_specs(at):
        for trace in spec["data"]:
            for field in ("z", "y", "x"):
                if field in trace and trace[field] is not None:
                    values = decode_array(trace[field])
                    if values.dtype.kind == "f":
                        assert np.isfinite(values).all(), (spec["layout"]["title"]["text"], field)


@pytest.fixture(scope="module")
def default_page():
    at = run_page(PAGE)
    assert_no_exception(at)
    return at


def section(name: str, **params) -> object:
    """The page with the tab ``name`` open (the URL's ``section``), other params as given."""
    at = run_page(PAGE, {"section": name, **params})
    assert_no_exception(at)
    return at


def test_only_the_open_tab_is_drawn(default_page):
    titles = [spec["layout"]["title"]["text"] for spec in chart_specs(default_page)]
    # the curves' title states what they show, from the paper's wavelengths 2π · 10000^(2i/64) of pairs 1 and 12
    first, last = 2 * math.pi * 10000 ** (2 / 64), 2 * math.pi * 10000 ** (24 / 64)
    assert titles == [
        f"PE against position: the higher the pair, the slower it turns (pair 1 repeats every {first:.1f} "
        f"positions, pair 12 every {last:.1f})",
        # each pair's wavelength is the one before's times 10000^(2/64): from 2π to 2π · 10000^(62/64)
        f"Wavelength per pair: each pair ×{10000 ** (2 / 64):.2f} the one before, from {2 * math.pi:.1f} to "
        f"{2 * math.pi * 10000 ** (62 / 64):,.0f} positions",
    ]
    # the table's: the wavelengths of pairs 1 and 32, and how many pairs (2π · 10000^(2i/64) <= 100) turn in 100
    waves = 2 * math.pi * 10000 ** (np.arange(32) * 2 / 64)
    assert [spec["layout"]["title"]["text"] for spec in chart_specs(section("Table"))] == [
        f"Dims 0–1 repeat every 6.3 positions, dims 62–63 every {waves[-1]:,.0f}: "
        f"{(waves <= 100).sum()} of 32 pairs turn fully in these 100"
    ]
    assert len(chart_specs(section("Offset map"))) == 2


def test_curves_and_table_match_the_formula(default_page):
    pe = formula(100, 64, 10000.0)
    curves = chart_by_title(default_page, "PE against position")
    assert len(curves["data"]) == 6
    # small multiples: a panel a pair, the sine and the cosine of pair i on the same one
    panels = {trace["yaxis"] for trace in curves["data"]}
    assert [trace["yaxis"] for trace in curves["data"]] == ["y", "y", "y2", "y2", "y3", "y3"] and len(panels) == 3
    for trace in curves["data"]:
        dim = int(trace["name"].split()[1])
        assert np.allclose(decode_array(trace["y"]), pe[:, dim], atol=1e-5)
    table = decode_array(chart_by_title(section("Table"), "Dims 0–1 repeat every")["data"][0]["z"])
    assert table.shape == (100, 64) and np.allclose(table, pe, atol=1e-5)
    wavelengths = decode_array(chart_by_title(default_page, "Wavelength per pair")["data"][0]["y"])
    assert np.allclose(wavelengths, 2 * math.pi * 10000.0 ** (np.arange(0, 64, 2) / 64), rtol=1e-5)


@pytest.mark.parametrize("base", ["10000", "1"])
def test_the_positions_shown_are_a_dotted_line_named_in_the_legend_and_ticks_are_powers_of_ten(base):
    """The 100 positions shown are a dotted line across every pair, named in the legend (no label on the plot, where
    it would lie over the line or the curve); base 1 turns every pair at 2π, and the title says so."""
    figure = chart_by_title(section("Curves", base=base), "Wavelength per pair")
    (line,) = [trace for trace in figure["data"] if trace["name"] == "100 positions shown"]
    assert decode_array(line["y"]).tolist() == [100, 100] and line["line"]["dash"] == "dot"
    assert decode_array(line["x"]).tolist() == [0, 31]
    assert figure["layout"].get("showlegend", True) and not figure["layout"].get("annotations")
    assert figure["layout"]["yaxis"]["type"] == "log" and figure["layout"]["yaxis"]["dtick"] == 1
    if base == "1":
        assert title_text(figure) == f"Wavelength per pair: every pair repeats every {2 * math.pi:.1f} positions"


def test_similarity_depends_on_the_offset_only():
    default_page = section("Similarity")
    sim = decode_array(chart_by_title(default_page, "PE[p]·PE[q] for all positions")["data"][0]["z"])
    omega = 10000.0 ** (-np.arange(0, 64, 2) / 64)
    offsets = np.arange(100)[:, None] - np.arange(100)[None, :]
    expected = np.cos(offsets[..., None] * omega).sum(-1)
    assert np.allclose(sim, expected, atol=1e-3)
    title = title_text(chart_by_title(default_page, "PE[p]·PE[q] for all positions"))
    said = re.fullmatch(
        r"PE\[p\]·PE\[q\] for all positions: (\S+) where p = q, (\S+) one apart, lowest (\S+) at (\d+) apart",
        title,
    )
    by_offset = np.cos(np.arange(100)[:, None] * omega).sum(-1)  # [k]: Σ_i cos(k ω_i), constant along diagonal k
    lowest = int(np.argmin(by_offset[1:])) + 1
    assert said is not None, title
    assert int(said[4]) == lowest and np.allclose(
        [float(x) for x in said.groups()[:3]], [32.0, by_offset[1], by_offset[lowest]], atol=0.051
    )
    band = chart_by_title(default_page, "Similarity against distance")["data"]
    assert np.allclose(decode_array(band[0]["y"]), decode_array(band[1]["y"]), atol=1e-3)


def test_similarity_is_symmetric_in_the_offset_and_not_monotone():
    at = section("Similarity")
    sim = decode_array(chart_by_title(at, "PE[p]·PE[q] for all positions")["data"][0]["z"]).astype(np.float64)
    np.testing.assert_allclose(sim, sim.T, atol=1e-4)  # offsets k and -k give the same value
    mean = decode_array(chart_by_title(at, "Similarity against distance")["data"][2]["y"]).astype(np.float64)
    assert mean[0] == pytest.approx(32.0, abs=1e-3) and mean[1:].max() < mean[0]  # d_model / 2 at offset 0
    step = np.sign(np.diff(mean))
    rises = int(((step[:-1] < 0) & (step[1:] > 0)).sum())  # a fall followed by a rise
    assert rises >= 2, rises  # it rises again, many times


def test_shift_map_is_the_rotation_and_is_verified():
    default_page = section("Offset map")
    k = 5
    m_k = decode_array(chart_by_title(default_page, "M_5")["data"][0]["z"])
    for i in range(32):
        theta = k * 10000.0 ** (-2 * i / 64)
        block = m_k[2 * i : 2 * i + 2, 2 * i : 2 * i + 2]
        assert np.allclose(block, [[math.cos(theta), math.sin(theta)], [-math.sin(theta), math.cos(theta)]], atol=1e-6)
    pe = formula(100, 64, 10000.0)
    assert np.abs(pe[k:] - pe[:-k] @ m_k.T.astype(np.float64)).max() < 1e-5
    drawn = chart_by_title(default_page, "PE[10 + 5]")
    vectors = drawn["data"]
    assert np.allclose(decode_array(vectors[0]["y"]), decode_array(vectors[1]["y"]), atol=1e-5)
    gap = float(re.search(r": the same vector, (\S+) apart at most$", title_text(drawn))[1])
    assert gap == pytest.approx(np.abs(pe[15] - pe[10] @ m_k.T.astype(np.float64)).max(), abs=1e-6)
    metric = [m for m in default_page.metric if "M_5" in m.label][0]
    assert float(metric.value) < 1e-5


def test_word_order_is_a_permutation_without_position_only():
    default_page = section("Word order")
    table = default_page.dataframe[-2].value if len(default_page.dataframe) > 1 else None
    frames = [df.value for df in default_page.dataframe if "permuted copy?" in df.value.columns]
    assert frames, table
    verdict = dict(zip(frames[0]["positional encoding"], frames[0]["permuted copy?"]))
    assert verdict["none"] == "yes" and verdict["sinusoidal (paper)"] == "no"
    figure = chart_by_title(default_page, "Attention of")
    none_a, none_b, sin_a, sin_b = (decode_array(t["y"]).astype(float) for t in figure["data"])
    assert np.allclose(none_a, none_b, atol=1e-5)
    assert not np.allclose(sin_a, sin_b, atol=1e-3)
    # the title says so, with the largest gap of the drawn bars
    assert title_text(figure).endswith(
        f": the same in both orders with none, up to {np.abs(sin_a - sin_b).max():.2f} apart with sinusoidal (paper)"
    )
    no_nan_anywhere(default_page)


@pytest.mark.parametrize(
    "params",
    [
        {
            "d_model": "2",
            "positions": "8",
            "base": "1",
            "k": "7",
            "pos": "7",
            "wo_layers": "1",
            "wo_d": "8",
            "wo_heads": "8",
            "seed": "9999",
            "lseed": "9999",
            "rope_d": "2",
            "alibi_h": "1",
        },
        {"d_model": "3", "positions": "8", "base": "1", "k": "0", "pos": "0", "dims": ""},
        {
            "d_model": "255",
            "positions": "256",
            "base": "1000000",
            "k": "255",
            "alibi_h": "16",
            "rope_d": "128",
            "wo_pe": "rotary",
            "wo_d": "512",
            "wo_heads": "16",
            "wo_layers": "4",
            "wo_layer": "4",
            "wo_head": "15",
        },
    ],
)
def test_extremes_and_odd_d_model(params):
    for name in SECTIONS:
        for scheme in SCHEMES if name == "Schemes" else SCHEMES[:1]:
            at = section(name, scheme=scheme, **params)
            assert chart_specs(at) or name == "Curves" and params.get("dims") == ""
            no_nan_anywhere(at)
    at = section("Offset map", **params)
    d_model = int(params["d_model"])
    k = int(params["k"])
    title = f"M_{k}"
    spec = chart_by_title(at, title)
    assert decode_array(spec["data"][0]["z"]).shape == (min(d_model, 64),) * 2
    if d_model % 2 and d_model <= 64:
        overlay = decode_array(spec["data"][1]["z"])
        assert overlay[-1, -1] == 1 and overlay.sum() == 1  # the lone sine cell is grey, never a number
    metric = [m for m in at.metric if title in m.label][0]
    assert float(metric.value) < 1e-4


def test_shared_link_restores_the_view():
    params = {
        "d_model": "33",
        "positions": "40",
        "base": "1",
        "dims": ["0", "32"],
        "k": "3",
        "alibi_h": "3",
        "text_b": "The cat sat on the mat",
    }
    at = run_page(PAGE, params)
    assert_no_exception(at)
    assert at.slider(key="d_model").value == 33 and at.slider(key="positions").value == 40
    assert at.number_input(key="base").value == 1
    assert at.multiselect(key="dims").value == [0, 32]
    pe = formula(40, 33, 1.0)
    curves = chart_by_title(at, "PE against position: every pair repeats every 6.3 positions")["data"]  # 2π, base 1
    assert [t["name"].split()[1] for t in curves] == ["0", "32"]
    assert np.allclose(decode_array(curves[1]["y"]), pe[:, 32], atol=1e-5)
    at = section("Offset map", **params)
    assert at.slider(key="k").value == 3 and chart_by_title(at, "M_3")
    at = section("Schemes", scheme="ALiBi", **params)
    assert at.slider(key="alibi_h").value == 3 and at.slider(key="d_model").value == 33
    assert len(chart_by_title(at, "ALiBi bias against distance")["data"]) == 3
    slopes = [2.0**-4, 2.0**-8, 2.0**-2]  # 2 heads' slopes, then every other of 4 heads'
    for trace, slope in zip(chart_by_title(at, "ALiBi bias against distance")["data"], slopes):
        assert math.isclose(float(decode_array(trace["y"])[1]), -slope, rel_tol=1e-6)


@pytest.mark.parametrize(
    "name, scheme",
    [
        ("Curves", "Learned"),
        ("Table", "Learned"),
        ("Similarity", "Learned"),
        ("Offset map", "Learned"),
        ("Schemes", "Learned"),
        ("Schemes", "Rotary (RoPE)"),
        ("Schemes", "ALiBi"),
        ("Word order", "Learned"),
    ],
)
def test_every_tab_is_readable_on_a_projector(name, scheme):
    specs = chart_specs(section(name, scheme=scheme))
    assert specs
    for spec in specs:
        assert_projector_fonts(spec)


def test_numbers_are_built_only_when_their_expander_is_open(default_page):
    assert not default_page.dataframe
    at = section("Table", pe_numbers="true")
    assert np.allclose(at.dataframe[0].value.to_numpy(), formula(16, 64, 10000.0), atol=1e-5)
    slopes = section("Schemes", scheme="ALiBi", slopes="true").dataframe[0].value
    assert np.allclose(slopes["slope m_h"], 2.0 ** (-np.arange(1, 9)), rtol=1e-6)


@pytest.mark.parametrize("d_model, signed", [("64", False), ("4", True)])
def test_the_similarity_is_diverging_only_where_it_has_both_signs(d_model, signed):
    """PE[p]·PE[q] = Σ_i cos((p − q) ω_i): at d_model 64 it stays between about 10.8 and 32 over 100 positions, drawn on
    a sequential scale over that range; at d_model 4 it dips below 0, drawn on the diverging scale centred on 0."""
    at = section("Similarity", d_model=d_model)
    trace = chart_by_title(at, "PE[p]·PE[q] for all positions")["data"][0]
    pe = formula(100, int(d_model), 10000.0)
    similarity = pe @ pe.T
    assert (similarity.min() < 0) == signed
    if signed:
        assert trace["zmid"] == 0 and "zmin" not in trace
    else:
        assert trace["zmin"] == pytest.approx(similarity.min(), abs=1e-3)
        assert trace["zmax"] == pytest.approx(similarity.max(), abs=1e-3) and "zmid" not in trace
    # the rotation M_0 is the identity, all at least 0, but a rotation is signed: it keeps the diverging scale
    rotation = chart_by_title(section("Offset map", d_model=d_model, k="0"), "M_0")["data"][0]
    assert rotation["zmid"] == 0 and "zmin" not in rotation
