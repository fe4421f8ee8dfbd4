"""Every view of every lesson opens from its link, shows the lesson bar, and draws what its notes say.

The claims are checked on the drawn data (chart specs) against the formula or the property the
notes state, never against numbers from the code that drew them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.apptest_helpers import (assert_no_exception, chart_by_title, chart_specs, decode_array, head_tiles, run_page,
                                   tiles_of)
from ui.lesson_catalogue import LESSONS, Shipped
from ui.model_picker import shipped_label


def url_value(value) -> str | list[str]:
    """A setting as a link carries it: a shipped checkpoint by its picker label, several choices as a
    repeated key, anything else as text (written out here, not taken from ui.lessons)."""
    if isinstance(value, Shipped):
        return shipped_label(value.name)
    return [str(v) for v in value] if isinstance(value, tuple) else str(value)


def link_query(lesson, step: int) -> dict[str, str | list[str]]:
    """The query string a lesson link carries."""
    query = {key: url_value(value) for key, value in lesson.views[step].settings.items()}
    return {**query, "lesson": lesson.id, "step": str(step + 1)}


WIDGET_TYPES = ("selectbox", "select_slider", "slider", "toggle", "checkbox", "number_input", "text_input", "text_area",
                "button_group", "multiselect", "radio")


def widgets_by_key(at) -> dict:
    return {w.key: w for kind in WIDGET_TYPES for w in at.get(kind) if getattr(w, "key", None)}


def shown(widget):
    """What a control shows, as a link writes it: a choice as its label, a switch as true/false."""
    value = widget.value
    if type(widget).__name__ in ("Selectbox", "SelectSlider", "Radio"):
        return str(widget.format_func(value))
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return value


def open_view(lesson_id: str, step: int):
    lesson = lesson_of(lesson_id)
    at = run_page(f"pages/{lesson.views[step].page}/page.py", link_query(lesson, step))
    assert_no_exception(at)
    return at


def trace(spec: dict, name: str | None = None, index: int = 0) -> dict:
    matching = [t for t in spec["data"] if name is None or t.get("name") == name]
    return matching[index]


def z_of(spec: dict, name: str | None = None, index: int = 0) -> np.ndarray:
    return decode_array(trace(spec, name, index)["z"]).astype(np.float64)


def y_of(spec: dict, name: str, index: int = 0) -> np.ndarray:
    return decode_array(trace(spec, name, index)["y"]).astype(np.float64)


def head_maps(spec: dict) -> list[np.ndarray]:
    return head_tiles(spec)


def distinct_views() -> list[tuple[str, int]]:
    """Every view once: a view the Start here course borrows from a topic lesson is opened as that lesson's."""
    seen, views = set(), []
    for lesson in sorted(LESSONS, key=lambda lesson: lesson.id == "start"):  # the course last
        for step, view in enumerate(lesson.views):
            if id(view) not in seen:
                seen.add(id(view))
                views.append((lesson.id, step))
    return views


ALL_VIEWS = distinct_views()


def lesson_of(lesson_id: str):
    return next(lesson for lesson in LESSONS if lesson.id == lesson_id)


@pytest.mark.parametrize(("lesson_id", "step"), ALL_VIEWS)
def test_every_view_opens_with_the_lesson_bar_finite_figures_and_every_setting_offered_and_shown(lesson_id, step):
    """The lesson bar and finite figures; and a lesson link never carries a value its page cannot show: each
    setting's control is on the page, offers the value, and shows it after the link is opened (a value the page
    does not offer would be replaced)."""
    lesson = lesson_of(lesson_id)
    at = open_view(lesson_id, step)
    bar = f"**Lesson: {lesson.title}** · step {step + 1} of {len(lesson.views)}"
    assert any(m.value.startswith(bar) for m in at.markdown)
    specs = chart_specs(at)
    assert specs, "every lesson view draws a figure"
    for spec in specs:
        for t in spec["data"]:
            for axis in ("z", "y"):
                if axis in t and t[axis] is not None and not isinstance(t[axis], str):
                    values = decode_array(t[axis])
                    if values.dtype.kind == "f":
                        assert np.isfinite(values[~np.isnan(values)]).all()
    controls = widgets_by_key(at)
    assert not {"lesson", "step"} & set(controls), "a control bound to the lesson's own URL keys would take them over"
    assert at.query_params["step"] == str(step + 1)
    for key, value in link_query(lesson, step).items():
        if key in ("lesson", "step"):
            continue
        assert key in controls, f"{lesson_id} step {step + 1}: no control {key!r} on the page"
        control = controls[key]
        options = [str(o) for o in getattr(control, "options", None) or []]
        for one in ([value] if isinstance(value, str) else value):
            assert not options or one in options, (lesson_id, step + 1, key, one, options)
        if type(control).__name__ in ("Slider", "NumberInput"):
            assert control.min <= float(value) <= control.max and control.value == pytest.approx(float(value))
        else:
            assert shown(control) == value, (lesson_id, step + 1, key, shown(control), value)


def test_every_view_of_the_course_is_checked_once():
    course = lesson_of("start")
    checked = {id(lesson_of(lesson_id).views[step]) for lesson_id, step in ALL_VIEWS}
    assert all(id(view) in checked for view in course.views)
    assert len(ALL_VIEWS) == len({id(view) for lesson in LESSONS for view in lesson.views})


def test_scaling_unscaled_softmax_gets_peaked_with_d_k_and_scaled_stays():
    spec = chart_by_title(open_view("scaling", 0), "Softmax peakedness vs d_k")
    entropy = y_of(spec, "unscaled: q·k", 0), y_of(spec, "scaled: q·k / √d_k", 0)  # left panel
    top = y_of(spec, "unscaled: q·k", 1), y_of(spec, "scaled: q·k / √d_k", 1)  # right panel: the largest weight
    assert entropy[0][-1] < entropy[0][0] - 0.5 and top[0][-1] > top[0][0] + 0.2  # unscaled: ever more peaked
    assert np.ptp(entropy[1]) < 0.5 * (entropy[0][0] - entropy[0][-1])  # scaled: about the same at every d_k
    assert np.ptp(top[1]) < 0.5 * (top[0][-1] - top[0][0])


def test_unscaled_rows_of_a_wide_head_are_nearly_one_hot_and_scaled_ones_are_not():
    at = open_view("scaling", 1)
    assert any("d_k = d_model / h = 128 / 2 = 64" in c.value for c in at.caption)
    peaked = z_of(chart_by_title(at, "Attention weights A"))
    unscaled = z_of(chart_by_title(at, "Scaled scores"))
    on = run_page("pages/self_attention/page.py", {**link_query(lesson_of("scaling"), 1), "scale": "true"})
    soft, scaled = z_of(chart_by_title(on, "Attention weights A")), z_of(chart_by_title(on, "Scaled scores"))
    assert unscaled.std() / scaled.std() == pytest.approx(math.sqrt(64), rel=1e-3)  # √d_k times larger
    np.testing.assert_allclose(peaked.sum(1), 1.0, atol=2e-3)
    assert (peaked.max(1) > 0.9).mean() > 0.5  # most rows: over 90 % on one key
    assert (soft.max(1) <= 0.9).all()  # scaled: no row does


def test_one_head_then_eight_different_heads():
    at = open_view("heads", 0)
    assert at.select_slider(key="d_model").value == 64  # one head of all 64 dimensions
    one = head_maps(chart_by_title(at, "Layer 1 · 1 heads"))
    eight = head_maps(chart_by_title(open_view("heads", 1), "Layer 1 · 8 heads"))
    assert len(one) == 1 and len(eight) == 8
    for m in one + eight:
        np.testing.assert_allclose(m.sum(1), 1.0, atol=2e-3)
    assert max(np.abs(eight[0] - m).max() for m in eight[1:]) > 0.01


def test_without_positions_reordering_only_permutes_the_weights():
    at = open_view("word-order", 0)
    none = chart_by_title(at, "self-attention, none")
    sinusoidal = chart_by_title(at, "self-attention, sinusoidal")
    a, b = z_of(none, index=0), z_of(none, index=1)
    np.testing.assert_allclose(np.sort(a, axis=None), np.sort(b, axis=None), atol=2e-3)
    c, d = z_of(sinusoidal, index=0), z_of(sinusoidal, index=1)
    assert np.abs(np.sort(c, axis=None) - np.sort(d, axis=None)).max() > 0.01


def sinusoid(pos: int, d_model: int = 64, base: float = 10000.0) -> np.ndarray:
    i = np.arange(d_model // 2)
    angle = pos / base ** (2 * i / d_model)
    out = np.empty(d_model)
    out[0::2], out[1::2] = np.sin(angle), np.cos(angle)
    return out


def test_the_table_is_the_sinusoid_of_the_paper():
    table = z_of(chart_by_title(open_view("word-order", 1), "The whole table"))
    expected = np.stack([sinusoid(pos) for pos in range(100)])
    np.testing.assert_allclose(table, expected, atol=2e-3)


def test_the_frequencies_fall_geometrically_and_every_position_is_distinct():
    at = open_view("word-order", 1)
    wavelengths = y_of(chart_by_title(at, "Wavelength per pair"), "wavelength")
    np.testing.assert_allclose(wavelengths[1:] / wavelengths[:-1], 10000.0 ** (2 / 64), rtol=1e-4)
    table = z_of(chart_by_title(at, "The whole table"))
    distances = np.linalg.norm(table[:, None, :] - table[None, :, :], axis=-1)
    assert distances[~np.eye(len(table), dtype=bool)].min() > 0.1


def test_one_step_turns_each_pair_by_its_own_angle_and_the_slow_pairs_barely_move():
    m = z_of(chart_by_title(open_view("offset", 1), "M_1: PE[pos] → PE[pos + 1]"))
    for i in range(32):
        omega = 10000.0 ** (-2 * i / 64)
        np.testing.assert_allclose(m[2 * i:2 * i + 2, 2 * i:2 * i + 2],
                                   [[math.cos(omega), math.sin(omega)], [-math.sin(omega), math.cos(omega)]], atol=1e-5)
    np.testing.assert_allclose(m[-8:, -8:], np.eye(8), atol=2e-3)  # the four slowest pairs: nearly the identity


@pytest.mark.parametrize(("step", "k"), [(0, 5), (1, 1)])
def test_the_offset_map_moves_pe_10_to_pe_10_plus_k(step, k):
    spec = chart_by_title(open_view("offset", step), f"PE[10 + {k}] and M_{k} · PE[10]")
    np.testing.assert_allclose(y_of(spec, f"PE[{10 + k}]"), sinusoid(10 + k), atol=1e-4)
    np.testing.assert_allclose(y_of(spec, f"M_{k} · PE[10]"), sinusoid(10 + k), atol=1e-4)


def test_the_causal_mask_allows_the_lower_triangle():
    allowed = z_of(chart_by_title(open_view("causal", 0), "Causal mask for 8 tokens")) > 0.5
    np.testing.assert_array_equal(allowed, np.tril(np.ones((8, 8), dtype=bool)))
    assert allowed.sum() == 8 * 9 // 2


def test_causal_rows_stop_at_the_diagonal_and_the_first_row_is_one():
    at = open_view("causal", 1)
    causal = chart_by_title(at, "Causal (decoder")
    weights, masked = z_of(causal, index=0), z_of(causal, "masked")
    n = weights.shape[0]
    future = np.triu(np.ones((n, n), dtype=bool), 1)
    assert np.all(np.isnan(weights[future]) | (weights[future] == 0)) and np.all(~np.isnan(masked[future]))
    assert weights[0, 0] == pytest.approx(1.0, abs=1e-3)
    assert (z_of(chart_by_title(at, "Bidirectional")) > 0).all()


def test_padding_hides_the_pad_keys_of_shorter_sentences():
    mask = z_of(chart_by_title(open_view("padding", 0), "Key-padding mask of the batch")) > 0.5
    lengths = mask.sum(1)
    for row, length in zip(mask, lengths):
        assert row[:length].all() and not row[length:].any()  # real tokens first, then pads
    assert lengths.min() < mask.shape[1]


def test_the_fully_masked_row_is_all_zeros_here_and_uniform_with_a_finite_fill():
    at = open_view("padding", 1)
    weights = z_of(chart_by_title(at, "row 0 fully masked"), index=0)
    first = np.nan_to_num(weights[0], nan=0.0)
    assert (first == 0).all()
    others = np.nan_to_num(weights[1:], nan=0.0)
    np.testing.assert_allclose(others.sum(1), 1.0, atol=2e-3)
    table = next(df.value for df in at.dataframe if "method" in df.value.columns)
    keys = table.shape[1] - 2  # the method, the query, then one column per key
    row = lambda method: table[table["method"] == method].iloc[0, 2:].tolist()  # query 0, the pad
    assert row("torch.softmax on -inf") == ["NaN"] * keys
    assert [float(v) for v in row("masked_softmax")] == [0.0] * keys
    np.testing.assert_allclose([float(v) for v in row("torch.softmax on a -1e9 fill")], 1 / keys, atol=5e-4)


def tiles(spec: dict, count: int, shape: tuple[int, int]) -> list[np.ndarray]:
    return tiles_of(spec, count, shape)


def test_encoder_self_attention_rows_sum_to_one_in_every_head():
    spec = chart_by_title(open_view("encoder-decoder", 0), "all 4 heads · encoder self-attention")
    n = len(spec["layout"]["yaxis"]["ticktext"])
    for tile in tiles(spec, 4, (n, n)):
        assert np.isfinite(tile).all()  # nothing masked
        np.testing.assert_allclose(tile.sum(1), 1.0, atol=3e-3)


def test_masked_decoder_rows_stop_at_their_position_and_the_first_is_one_on_the_start_token():
    spec = chart_by_title(open_view("encoder-decoder", 1), "all 4 heads · decoder masked self-attention")
    labels = spec["layout"]["yaxis"]["ticktext"]
    n = len(labels)
    assert labels[0] == "&lt;s&gt;"
    future = np.triu(np.ones((n, n), dtype=bool), 1)
    masked = tiles_of(spec, 4, (n, n), trace=1)
    for tile, grey in zip(tiles(spec, 4, (n, n)), masked):
        assert (np.nan_to_num(tile[future]) == 0).all() and (grey[future] > 0).all() and (grey[~future] == 0).all()
        np.testing.assert_allclose(np.nan_to_num(tile).sum(1), 1.0, atol=3e-3)
        assert tile[0, 0] == pytest.approx(1.0, abs=1e-3)


def test_cross_attention_is_target_by_source_unmasked_and_sums_to_one_over_the_source():
    spec = chart_by_title(open_view("encoder-decoder", 2), "all 4 heads · encoder-decoder cross-attention")
    rows, cols = spec["layout"]["yaxis"]["ticktext"], spec["layout"]["xaxis"]["ticktext"]
    assert rows[0] == "&lt;s&gt;" and cols == ["the", "cat", "sat", "on", "the", "mat"]
    for tile in tiles(spec, 4, (len(rows), len(cols))):
        assert np.isfinite(tile).all() and (tile > 0).all()
        np.testing.assert_allclose(tile.sum(1), 1.0, atol=3e-3)


def test_layer_norm_gives_mean_zero_and_std_one():
    spec = chart_by_title(open_view("encoder-decoder", 3), "mean and std of each token, before and after LayerNorm")
    for index in range(2):
        np.testing.assert_allclose(y_of(spec, "mean after", index), 0.0, atol=1e-3)
        np.testing.assert_allclose(y_of(spec, "std after", index), 1.0, atol=2e-2)


def test_untrained_output_distribution_is_flat_and_sorted():
    bar = trace(chart_by_title(open_view("encoder-decoder", 4), "top 10 of 4096 next-token probabilities"))
    probabilities = decode_array(bar["x"] if bar.get("orientation") == "h" else bar["y"]).astype(np.float64)
    assert len(probabilities) == 10 and probabilities.sum() <= 1 + 1e-6
    assert sorted(probabilities, reverse=True) in (list(probabilities), list(probabilities[::-1]))
    assert probabilities.max() < 20 / 4096  # untrained: even the most likely of 4096 ids is near uniform


PERIOD = 7  # "x q m v k z b" twice


def test_the_trained_model_has_a_previous_token_head_in_layer_1():
    maps = head_maps(chart_by_title(open_view("trained", 0), "Layer 1 · 2 heads"))
    best = max(np.nan_to_num(np.diagonal(m, offset=-1)).mean() for m in maps)
    assert best > 0.5, best


def test_the_trained_model_has_an_induction_head_in_layer_2_six_tokens_back():
    maps = head_maps(chart_by_title(open_view("trained", 1), "Layer 2 · 2 heads"))
    n = maps[0].shape[0]
    rows = range(PERIOD, n)  # the second copy: token t repeats token t - 7; the next one is t - 6

    def stripe(m, back):
        return np.mean([np.nan_to_num(m[t, t - back]) for t in rows])

    best = max(maps, key=lambda m: stripe(m, PERIOD - 1))
    assert stripe(best, PERIOD - 1) > 0.5, stripe(best, PERIOD - 1)
    assert stripe(best, PERIOD - 1) > 5 * max(stripe(best, PERIOD), stripe(best, PERIOD + 1))  # not 7 or 8 back


def test_the_training_view_opens_on_induction_at_step_zero():
    at = open_view("trained", 2)
    assert at.selectbox(key="task").value == "induction" and at.get("progress")[0].proto.text.startswith("step 0 ")


def test_training_the_induction_task_falls_slowly_then_plunges():
    at = open_view("trained", 2)
    for _ in range(100):  # ten steps a press, until the run reaches its target
        at.button(key="step").click().run()
        if at.session_state["trainer"].done:
            break
    spec = chart_by_title(at, "induction")
    steps, loss = decode_array(trace(spec, "held-out loss")["x"]), y_of(spec, "held-out loss")
    accuracy = y_of(spec, "held-out accuracy")
    drops = -np.diff(loss)
    plunge = int(drops.argmax())  # the largest fall between two evaluations
    assert steps[-1] <= 1000 and accuracy[-1] >= 0.99
    assert plunge >= 3 and steps[plunge] - steps[1] >= 100  # after the first drop, a hundred-odd steps ...
    assert (drops[1:plunge] > -0.05).all() and loss[1] - loss[plunge] > 0.5  # ... of falling ...
    assert drops[1:plunge].max() < drops[plunge] / 3  # ... slowly, then the plunge
    assert accuracy[plunge] < 0.5  # before the plunge, and nearly 1 a few dozen steps later
    reached = int(np.argmax(accuracy >= 0.99))
    assert steps[reached] - steps[plunge] <= 60, (steps[plunge], steps[reached])


def test_many_minilm_heads_park_their_weight_on_cls_and_none_on_sep():
    spec = chart_by_title(open_view("pretrained", 0), "6 layers × 12 heads")
    codes = z_of(spec) / 1000  # weights stored as thousandths
    t = codes.shape[0] // 6
    heads = [codes[l * t:(l + 1) * t, h * t:(h + 1) * t] for l in range(6) for h in range(12)]
    on_cls = np.array([m[:, 0].mean() for m in heads])
    on_sep = np.array([m[:, -1].mean() for m in heads])
    assert 25 <= (on_cls > 0.5).sum() <= 35, (on_cls > 0.5).sum()  # "about 30 of the 72"
    assert on_sep.max() < 0.25


def test_the_strongest_previous_token_head_of_minilm_looks_one_token_back():
    at = open_view("pretrained", 1)
    roles = np.floor(z_of(chart_by_title(at, "strongest role")) * 5).astype(int)
    assert roles.shape == (6, 12) and np.bincount(roles.ravel(), minlength=5).max() < 36  # no role takes half
    spec = chart_by_title(at, "the strongest “previous token” head")
    score = float(spec["layout"]["title"]["text"].rsplit("(", 1)[1].rstrip(")"))
    weights = z_of(spec)
    measured = np.diagonal(weights, offset=-1)[1:-1].mean()  # queries after [CLS], before [SEP]
    assert score > 0.5 and math.isclose(measured, score, abs_tol=0.1), (measured, score)


def it_rows(at, layer: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """What “it” attends to in every head of ``layer``: [12, T] for the 'tired' and the 'wide' sentence."""
    if layer != 5:
        at.select_slider(key="cmp_layer").set_value(layer).run()
    spec = chart_by_title(at, "what “it” attends to")
    return z_of(spec, index=0), z_of(spec, index=1), list(trace(spec)["x"])


def test_the_shift_of_it_towards_street_is_relative_and_depends_on_the_layer():
    at = open_view("pretrained", 2)
    tired, wide, keys = it_rows(at, 5)
    assert tired.shape[0] == 12
    for rows in (tired, wide):
        np.testing.assert_allclose(rows.sum(1), 1.0, atol=3e-3)
    animal, street = keys.index("animal"), keys.index("street")
    lead_tired, lead_wide = tired[:, animal] - tired[:, street], wide[:, animal] - wide[:, street]
    assert (lead_wide < lead_tired).sum() >= 9  # 'wide' moves weight towards 'street' in most heads
    assert (lead_wide > 0).sum() >= 7  # ... yet most heads still favour 'animal'
    for layer in (1, 2):
        tired, wide, _ = it_rows(at, layer)
        assert np.abs(tired[:, [animal, street]] - wide[:, [animal, street]]).max() < 0.05  # barely differ


def test_concat_is_the_heads_side_by_side_and_the_output_is_concat_times_w_o():
    at = open_view("heads", 2)
    heads = z_of(chart_by_title(at, "4 heads · head"))
    concat = z_of(chart_by_title(at, "Concat(head"))
    w_o, output = z_of(chart_by_title(at, "W<sup>O</sup> [")), z_of(chart_by_title(at, "output = Concat"))
    d_k = concat.shape[1] // 4
    tiles = np.concatenate([heads[:, h * (d_k + 1): h * (d_k + 1) + d_k] for h in range(4)], axis=1)
    np.testing.assert_allclose(tiles, concat, atol=1e-6)
    residual = output - concat @ w_o  # what is left is the bias b^O, the same in every row
    np.testing.assert_allclose(residual, np.broadcast_to(residual[0], residual.shape), atol=2e-3)


def test_dropout_zeroes_some_weights_and_scales_the_rest_by_one_over_one_minus_p():
    spec = chart_by_title(open_view("encoder-decoder", 5), "before and after dropout (p = 0.3")
    before, after = z_of(spec, "before"), z_of(spec, "after")
    dropped = after == 0
    assert dropped.any() and not dropped.all()
    np.testing.assert_allclose(after[~dropped], before[~dropped] / 0.7, rtol=2e-3, atol=2e-4)
