"""Self-attention's sentences about word order, checked on the weights the page draws: without positions and
without a causal mask, reordering the words only reorders the drawn weights; with the causal mask it does not."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tests.apptest_helpers import assert_no_exception, chart_by_title, decode_array, run_page, title_text
from tests.lesson_views import lesson_of, open_view, y_of
from ui.controls import POSITIONAL_LABELS
from ui.model_picker import shipped_label

PAGE = "pages/self_attention/page.py"
A, B = "the cat sat on the mat", "the mat sat on the cat"
PERMUTATION = [0, 5, 2, 3, 4, 1]  # B's token j is A's token PERMUTATION[j]


def drawn_weights(text: str, causal: bool) -> tuple[np.ndarray, list[str]]:
    at = run_page(PAGE, {"section": "Scores and softmax", "pe": "none", "causal": str(causal).lower(), "text": text})
    assert_no_exception(at)
    spec = chart_by_title(at, "Attention weights A")
    return np.nan_to_num(decode_array(spec["data"][0]["z"]).astype(np.float64)), spec["layout"]["yaxis"]["ticktext"]


def input_text(causal: bool) -> str:
    at = run_page(PAGE, {"section": "Q, K, V", "pe": "none", "causal": str(causal).lower(), "text": A})
    assert_no_exception(at)
    return " ".join(m.value for m in at.markdown)


@pytest.mark.parametrize("causal", [False, True])
def test_without_positions_word_order_is_told_apart_by_the_causal_mask_alone(causal):
    a, tokens_a = drawn_weights(A, causal)
    b, tokens_b = drawn_weights(B, causal)
    assert [tokens_a[i] for i in PERMUTATION] == tokens_b
    inverse = np.argsort(PERMUTATION)
    b_in_a_order = b[np.ix_(inverse, inverse)]
    gap = np.abs(a - b_in_a_order).max()
    text = input_text(causal)
    if causal:
        assert "the causal mask still tells positions apart" in text and "cannot tell word order" not in text
        assert gap > 0.05, gap  # not a reordered copy: the first row is all on itself, whatever the word
        assert a[0, 0] == pytest.approx(1.0, abs=1e-3) and b[0, 0] == pytest.approx(1.0, abs=1e-3)
    else:
        assert "no positional encoding and no causal mask, so the head cannot tell word order" in text
        assert gap < 2e-3, gap  # the same numbers, rows and columns reordered


def test_the_weights_are_said_to_mix_values_not_to_measure_influence():
    at = run_page(PAGE)
    text = " ".join(m.value for m in at.markdown)
    assert "how much of each value vector is mixed in" in text and "influences this one" not in text


def test_the_scaling_lesson_says_what_its_view_draws_and_that_learning_is_slow_not_impossible():
    answer = lesson_of("scaling").views[0].answer
    assert "still learns which keys to prefer, only from a weaker signal" in answer and "cannot learn" not in answer
    at = open_view("scaling", 0)
    note = next(c.value for c in at.caption if "softmax's Jacobian" in c.value)
    said = re.search(r"at d_k = 512, (\d\.\d\d) unscaled against (\d\.\d\d) scaled\.$", note)
    assert said and f"about {said[1]} unscaled against {said[2]} scaled at d_k = 512" in answer
    assert float(said[1]) / float(said[2]) == pytest.approx(0.2, abs=0.03)  # "about a fifth of the gradient"
    spec = chart_by_title(at, "Softmax peakedness vs d_k")
    unscaled = y_of(spec, "unscaled: q·k", 0), y_of(spec, "unscaled: q·k", 1)  # entropy, largest weight
    scaled = y_of(spec, "scaled: q·k / √d_k", 0), y_of(spec, "scaled: q·k / √d_k", 1)
    assert unscaled[0][-1] < 0.2 * unscaled[0][0] and unscaled[1][-1] > 0.9  # "climbs towards 1"
    assert np.ptp(scaled[0][1:]) < 0.2 and np.ptp(scaled[1][1:]) < 0.1  # "both stay level" (after d_k = 1)
    # the title states the largest weights at the largest d_k drawn, as the curves end
    d_k = int(
        spec["data"][0]["x"][-1] if isinstance(spec["data"][0]["x"], list) else decode_array(spec["data"][0]["x"])[-1]
    )
    title = spec["layout"]["title"]["text"]
    assert "without √d_k the softmax saturates" in title
    assert f"at d_k = {d_k} is {unscaled[1][-1]:.2f} unscaled, {scaled[1][-1]:.2f} scaled" in title


def test_minilm_is_said_to_be_pre_trained_and_then_fine_tuned_on_a_billion_pairs():
    at = run_page("pages/pretrained/page.py")
    text = " ".join(m.value for m in at.markdown)
    assert "first pre-trained on general text: it starts from MiniLM, a small model distilled from a larger" in text
    assert "It was then fine-tuned contrastively on about a billion sentence pairs" in text


@pytest.mark.parametrize(
    "query, named",
    [
        ({"pe": "learned (untrained)"}, "positional encoding learned (untrained)."),
        ({"model": shipped_label("copy")}, "positional encoding learned (trained with the model)."),
    ],
)
def test_a_learned_table_is_called_untrained_only_on_a_random_model(query, named):
    at = run_page(PAGE, query)
    assert_no_exception(at)
    caption = next(c.value for c in at.caption if c.value.startswith("Model: "))
    assert named in caption
    from transformer import load_checkpoint

    if "model" in query:  # the copy model's position table is not its initialisation: it was trained
        model, metadata = load_checkpoint(Path(__file__).resolve().parent.parent / "checkpoints" / "copy.safetensors")
        assert model.config.positional == "learned" and metadata.get("steps", 1) > 0


@pytest.mark.parametrize("merges", [None, "0", "10"])
def test_the_bpe_count_is_compared_with_the_characters_in_the_right_words(merges):
    at = run_page(PAGE, {"section": "Tokens", **({"merges": merges} if merges else {})})
    assert_no_exception(at)
    text = next(m.value for m in at.markdown if "BPE tokens:" in m.value)
    said = re.search(r"\*\*(\d+)\*\* BPE tokens: (fewer than|as many as|more than) its (\d+) characters", text)
    pieces, word, chars = int(said[1]), said[2], int(said[3])
    assert word == ("fewer than" if pieces < chars else "as many as" if pieces == chars else "more than")


def test_the_sentences_star_is_inside_the_entropy_axis_when_it_has_more_keys_than_the_curves():
    text = " ".join(["word"] + [f"w{i}" for i in range(29)])  # 30 tokens: a flat row's entropy ln 30 > ln 16
    at = run_page(PAGE, {"section": "Why scale", "text": text, "temp": "5.0"})
    assert_no_exception(at)
    spec = chart_by_title(at, "Softmax peakedness vs d_k")
    star = next(t for t in spec["data"] if t.get("marker", {}).get("symbol") == "star")
    entropy = float(decode_array(star["y"])[0]) if isinstance(star["y"], dict) else float(star["y"][0])
    assert entropy > np.log(16)  # above the curves' uniform line
    low, high = spec["layout"]["yaxis"]["range"]
    assert low <= entropy <= high


@pytest.mark.parametrize("causal", [False, True])
def test_the_scores_step_names_the_mask_the_map_draws(causal):
    at = run_page(PAGE, {"section": "Scores and softmax", **({"causal": "true"} if causal else {})})
    assert_no_exception(at)
    text = next(m.value for m in at.markdown if m.value.startswith("**3 · Scores"))
    weights = np.nan_to_num(decode_array(chart_by_title(at, "Attention weights")["data"][0]["z"]).astype(float))
    above = weights[np.triu_indices(len(weights), 1)]  # the keys after each query
    if causal:
        assert "the causal mask hides the keys after each query" in text and not above.any()
    else:
        assert "no mask hides a key" in text and (above > 0).all()


def test_the_first_step_says_the_embedding_is_looked_up_then_scaled_and_the_encoder_layer_is_named():
    at = run_page(PAGE, {"section": "Q, K, V"})
    text = next(m.value for m in at.markdown if m.value.startswith("**1 · Token vectors.**"))
    assert "is looked up, scaled by $\\sqrt{d_{model}}$, and gets its position's vector added" in text
    at = run_page(PAGE, {"model": shipped_label("reverse")})
    assert_no_exception(at)
    caption = next(c.value for c in at.caption if c.value.startswith("Model: "))
    assert "; layer 1 of 2 of its encoder, head 1 of 2," in caption


@pytest.mark.parametrize("pe", ["none", "sinusoidal", "rotary", "alibi"])
def test_the_token_vectors_step_is_one_well_formed_sentence_for_every_encoding(pe):
    """Step 1 names the look-up, the √d_model scaling and, only for an encoding added to the input, the position's
    vector: no stray comma before a full stop, whatever the encoding."""
    at = run_page(PAGE, {"section": "Q, K, V", "pe": POSITIONAL_LABELS[pe], "text": A})
    assert_no_exception(at)
    assert at.selectbox(key="pe").value == pe
    step = next(m.value for m in at.markdown if m.value.startswith("**1 · Token vectors.**"))
    assert not re.search(r",\s*[.,]", step), step
    first_sentence = step.split("**1 · Token vectors.** ", 1)[1].split(". ")[0]
    assert first_sentence.startswith("Each token's embedding is looked up, scaled by $\\sqrt{d_{model}}$")
    assert ("position's vector added" in first_sentence) == (pe == "sinusoidal")


@pytest.mark.parametrize("query", [{}, {"causal": "true", "d_model": "128", "heads": "2"}])
def test_the_score_maps_share_one_colour_range_and_the_caption_gives_it(query):
    """Raw and scaled scores drawn on one range, ±max|raw|: the scaled map's colours pale by √d_k."""
    at = run_page(PAGE, {"section": "Scores and softmax", **query})
    assert_no_exception(at)
    raw_spec, scaled_spec = chart_by_title(at, "Raw scores"), chart_by_title(at, "Scaled scores")
    raw = decode_array(raw_spec["data"][0]["z"]).astype(float)
    scaled = decode_array(scaled_spec["data"][0]["z"]).astype(float)
    limit = np.nanmax(np.abs(np.concatenate([raw[np.isfinite(raw)], scaled[np.isfinite(scaled)]])))
    specs = [raw_spec, scaled_spec] + ([chart_by_title(at, "Masked scores")] if query else [])
    for spec in specs:
        assert (spec["data"][0]["zmin"], spec["data"][0]["zmax"]) == pytest.approx((-limit, limit), rel=1e-5)
    caption = next(c.value for c in at.caption if c.value.startswith("The score maps share one colour range"))
    root = float(re.search(r"√d_k = ([\d.]+)", caption)[1])
    d_k = round(root**2)
    assert int(query.get("d_model", 64)) % d_k == 0 and f"√d_k = {np.sqrt(d_k):.2f}" in caption
    np.testing.assert_allclose(
        scaled[np.isfinite(scaled)], raw[np.isfinite(scaled)] / np.sqrt(d_k), rtol=1e-4, atol=1e-5
    )
    assert f"±{limit:.2f}" in caption
    finite = raw[np.isfinite(raw)]
    minus = lambda value: f"{value:.2f}".replace("-", "−")  # noqa: E731  (as the colour bar writes it)
    assert title_text(raw_spec).endswith(f": from {minus(finite.min())} to {minus(finite.max())}")
    low, high = finite.min() / np.sqrt(d_k), finite.max() / np.sqrt(d_k)  # the formula's shrink, τ = 1
    said = re.search(r": from (−?[\d.]+) to (−?[\d.]+)$", title_text(scaled_spec))
    drawn_low, drawn_high = (float(text.replace("−", "-")) for text in said.groups())
    assert drawn_low == pytest.approx(low, abs=0.006) and drawn_high == pytest.approx(high, abs=0.006)
    weights = decode_array(chart_by_title(at, "Attention weights A")["data"][0]["z"]).astype(float)
    means = np.nan_to_num(weights).mean(0)  # [T]: each key's weight, on average over the queries
    tokens = chart_by_title(at, "Attention weights A")["layout"]["xaxis"]["ticktext"]
    assert title_text(chart_by_title(at, "Attention weights A")).endswith(
        f": the key read the most is “{tokens[int(means.argmax())]}” ({means.max():.2f} of a row on average)"
    )
