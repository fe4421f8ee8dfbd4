"""Positional encoding's sentences on the sinusoids, checked against the table rebuilt here from the paper's formula
and against what the figures draw: how fast the pairs turn (Curves) and how the similarity falls with the offset
(Similarity), at the defaults and with the base, d_model and number of positions moved."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from tests.apptest_helpers import assert_no_exception, chart_by_title, decode_array, run_page, title_text

PAGE = "pages/positional_encoding/page.py"
SETTINGS = [
    {},
    {"base": "10", "d_model": "16"},
    {"base": "1"},
    {"d_model": "2", "positions": "40"},
    {"d_model": "65", "positions": "8", "base": "500"},
]


def sinusoids(positions: int, d_model: int, base: float) -> np.ndarray:
    """The paper's table [P, d]: PE[pos, 2i] = sin(pos / base^(2i/d)), PE[pos, 2i+1] = cos(the same)."""
    pos = np.arange(positions, dtype=np.float64)[:, None]
    dims = np.arange(d_model)
    angle = pos / float(base) ** ((dims - dims % 2) / d_model)
    return np.where(dims % 2 == 0, np.sin(angle), np.cos(angle))


def settings_of(query: dict) -> tuple[int, int, float]:
    return int(query.get("positions", 100)), int(query.get("d_model", 64)), float(query.get("base", 10000))


def markdown_with(at, start: str) -> str:
    return next(m.value for m in at.markdown if start in m.value)


@pytest.mark.parametrize("query", SETTINGS)
def test_the_pairs_speeds_and_the_slowest_pairs_turn_are_the_formulas(query):
    at = run_page(PAGE, {"section": "Curves", **query})
    assert_no_exception(at)
    positions, d_model, base = settings_of(query)
    pairs = (d_model + 1) // 2
    waves = 2 * math.pi * base ** (2 * np.arange(pairs) / d_model)
    drawn = decode_array(chart_by_title(at, "Wavelength per pair")["data"][0]["y"]).astype(np.float64)
    np.testing.assert_allclose(drawn, waves, rtol=1e-5)
    text = markdown_with(at, "one clock hand")
    table_at = run_page(PAGE, {"section": "Table", **query})  # the table beside its own sentence
    table = markdown_with(table_at, "Read a row for one position's vector")
    table_title = chart_by_title(table_at, "Dims 0–1 repeat every")
    pe = decode_array(table_title["data"][0]["z"]).astype(np.float64)
    table_title = title_text(table_title)
    assert table_title.startswith(f"Dims 0–1 repeat every {waves[0]:.1f} positions")
    if pairs == 1:
        assert table_title == f"Dims 0–1 repeat every {waves[0]:.1f} positions"
    elif base == 1:
        assert table_title.endswith(", and so does every pair")
    else:
        last = f"{d_model - 2}–{d_model - 1}" if d_model % 2 == 0 else f"{d_model - 1}"
        turning = int((waves <= positions).sum())
        assert table_title.endswith(
            f"dims {last} every {waves[-1]:,.0f}: {turning} of {pairs} pairs turn fully in these {positions}"
        )
    np.testing.assert_allclose(pe, sinusoids(positions, d_model, base), atol=1e-5)
    full = 2 * (d_model // 2)  # the columns of whole (sin, cos) pairs
    sines, cosines = np.diff(pe[:, 0:full:2], axis=0), np.diff(pe[:, 1:full:2], axis=0)
    chord = np.hypot(sines, cosines).mean(0)  # each pair's step from row to row: 2 sin(ω_i / 2)
    if pairs == 1:
        assert "only one pair" in text and "one speed" in table
    elif base == 1:
        assert "the same speed" in text and "the same speed" in table and np.ptp(chord) < 1e-6
    else:
        assert "each later pair more slowly" in text and "further right change more and more slowly" in table
        assert np.all(np.diff(chord) < 0)  # the drawn columns: every pair steps less than the one before
        said = re.search(
            r"pair i = (\d+) \((.*?)\), has a wavelength of ([\d,.]+) positions, so from position 0 to "
            r"(\d+) it turns by ([\d,.]+)° \(([\d.e-]+) of a full turn\)",
            text,
        )
        assert said, text
        assert int(said[1]) == pairs - 1 and int(said[4]) == positions - 1
        assert said[2].startswith(f"dimensions {d_model - 2} and" if d_model % 2 == 0 else f"dimension {d_model - 1}")
        assert float(said[3].replace(",", "")) == pytest.approx(waves[-1], rel=5e-3)
        turned = 360 * (positions - 1) / waves[-1]
        assert float(said[5].replace(",", "")) == pytest.approx(turned, rel=5e-3)
        assert float(said[6]) == pytest.approx(turned / 360, rel=0.05)


def rises_again(profile: np.ndarray) -> int:
    """How many times the profile turns from falling to rising (its strict local minima)."""
    tol = 1e-6 * abs(profile[0])
    return sum(
        1 for k in range(1, len(profile) - 1) if profile[k] < profile[k - 1] - tol and profile[k] < profile[k + 1] - tol
    )


@pytest.mark.parametrize("query", SETTINGS)
def test_the_similarity_profile_is_described_by_its_own_numbers(query):
    at = run_page(PAGE, {"section": "Similarity", **query})
    assert_no_exception(at)
    positions, d_model, base = settings_of(query)
    pe = sinusoids(positions, d_model, base)
    profile = np.array([np.mean(np.sum(pe[: positions - k] * pe[k:], axis=1)) for k in range(positions)])
    spec = chart_by_title(at, "Similarity against distance")
    drawn = next(decode_array(t["y"]) for t in spec["data"] if t.get("name") == "mean over pos").astype(np.float64)
    np.testing.assert_allclose(drawn, profile, atol=1e-4 * profile[0])
    # the title: whether the offset alone sets the dot product (its spread over p), its start and its lowest point
    spread = max(float(np.ptp(np.sum(pe[: positions - k] * pe[k:], axis=1))) for k in range(positions))
    said = re.search(r": (.+); ([\d.]+) at k = 0, lowest (−?[\d.]+) at k = (\d+)$", title_text(spec))
    alone = "the offset alone sets it" if spread < 1e-3 else f"it moves with p too, by up to {spread:.2f}"
    assert said[1] == alone and (spread < 1e-6) == (d_model % 2 == 0)
    assert float(said[2]) == pytest.approx(profile[0], abs=0.051) and int(said[4]) == int(np.argmin(profile))
    assert float(said[3].replace("−", "-")) == pytest.approx(profile.min(), abs=0.051)
    text = markdown_with(at, "It is largest at offset")
    said = re.search(r"It is largest at offset (\d+) \(([\d.]+)", text)
    assert int(said[1]) == int(np.argmax(profile)) == 0 and float(said[2]) == pytest.approx(profile[0], rel=1e-3)
    assert ("= $d_{model}/2$" in text) == (d_model % 2 == 0)
    if d_model % 2 == 0:
        assert profile[0] == pytest.approx(d_model / 2)
    assert profile[1:].max() < profile[0]  # lower at every other offset
    rises = rises_again(profile)
    if rises == 0:  # a short stretch of offsets: the ripples have not begun
        assert np.all(np.diff(profile) < 0) and f"only falls over the {positions} offsets drawn" in text
        return
    assert "does not fall **monotonically**" in text
    count = re.search(r"it rises again (once|\d+ times)", text)[1]
    assert (1 if count == "once" else int(count.split()[0])) == rises
    half = positions // 2
    far = half + int(np.argmax(profile[half:]))
    reach = re.search(
        rf"at offsets {half} to {positions - 1} it still reaches ([\d.]+)% of its peak \(offset (\d+)\)", text
    )
    assert reach, text
    assert float(reach[1]) / 100 == pytest.approx(profile[far] / profile[0], abs=1e-4) and int(reach[2]) == far
    if base == 1 or d_model == 2:  # one speed: the similarity comes back all the way, it never dies away
        assert profile[far] / profile[0] > 0.99


def test_the_built_in_text_says_the_dot_product_is_smaller_far_apart_but_not_steadily():
    """The training text's sentence on the sinusoids' dot product, against the paper's table (d_model 64, 64
    positions): it is below its peak at every offset from 1 on and far below it at the largest, yet it rises
    again at many offsets."""
    from transformer.text_corpus import CORPUS_PATH

    text = " ".join(CORPUS_PATH.read_text(encoding="utf-8").split())
    assert "Far apart it is smaller overall, but not steadily." in text
    assert "falls as the positions move apart" not in text
    table = sinusoids(64, 64, 10000.0)
    dots = table[1:] @ table[0]  # offsets 1 .. 63 from position 0
    peak = table[0] @ table[0]
    assert (dots < peak).all() and dots[-8:].mean() < 0.75 * peak
    assert int((np.diff(dots) > 0).sum()) >= 10  # it rises again, many times
    assert "In principle a model could then learn to attend to the token three places back" in text


def test_with_rotary_encoding_the_scores_still_depend_on_the_tokens():
    """The offset lesson's answer: rotary encoding makes a score's dependence on position relative (the same at
    every pair of positions k apart), while it still depends on the two vectors rotated."""
    import torch

    from transformer.positional import apply_rotary
    from lessons.catalogue import LESSONS

    answer = next(lesson for lesson in LESSONS if lesson.id == "offset").views[0].answer
    assert "still depend on the tokens" in answer and "makes them one" not in answer
    generator = torch.Generator().manual_seed(0)
    q, k, other = (torch.randn(1, 1, 1, 16, generator=generator) for _ in range(3))

    def score(query, key, at_query: int, at_key: int) -> float:
        return float(apply_rotary(query, start=at_query)[0, 0, 0] @ apply_rotary(key, start=at_key)[0, 0, 0])

    assert math.isclose(score(q, k, 7, 4), score(q, k, 13, 10), rel_tol=1e-5)  # offset 3 at both pairs
    assert not math.isclose(score(q, k, 7, 4), score(q, other, 7, 4), rel_tol=1e-2)  # another key's content
