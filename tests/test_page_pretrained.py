"""The pretrained-model page: the drawn attention is the model's, tokens read well, roles and embeddings are right,
and any text works. Expected values come from the package's model run here, or from hand computations."""

import re
import statistics

import numpy as np
import pytest
import torch

from analysis.head_roles import ROLES, block_mean, head_role_scores, strongest_roles, without_specials
from tests.apptest_helpers import (
    title_text,
    assert_no_exception,
    chart_by_title,
    chart_elements,
    chart_json,
    chart_specs,
    decode_array,
    head_tiles,
    run_page,
)
from transformer import load_pretrained

PAGE = "pages/pretrained/page.py"
TEXT = "The animal didn't cross the street because it was too tired"


def as_the_pages_run_it():
    """The model, run as the pages run it: on one torch thread (``ui.runtime``), so that its sums are added in
    the same order as the page's and agree to the last digits."""
    import ui.runtime  # noqa: F401  (sets the thread count on import)

    return load_pretrained()


@pytest.fixture(scope="module")
def minilm():
    return as_the_pages_run_it()


def model_weights(minilm, text, cap=128):
    model, tokenizer = minilm
    pieces = tokenizer.with_max_tokens(cap).encode_text(text)
    with torch.inference_mode():
        out = model(torch.tensor([pieces.ids]), return_attention=True)
    return out.attention.stacked("encoder")[:, 0].numpy(), out.hidden[0].numpy(), pieces


def page(params=None):
    at = run_page(PAGE, params or {})
    assert_no_exception(at)
    return at


def test_overview_draws_the_models_72_heads(minilm):
    at = page({"section": "All heads"})
    weights, _, _ = model_weights(minilm, TEXT)
    spec = chart_by_title(at, "6 layers × 12 heads")
    codes = decode_array(spec["data"][0]["z"]).astype(np.float64) / 1000
    t = weights.shape[-1]
    assert codes.shape == (6 * t, 12 * t)
    np.testing.assert_allclose(codes[2 * t : 3 * t, 11 * t : 12 * t], weights[2, 11], atol=0.0005 + 1e-7)


def test_one_layer_and_the_hidden_specials_switch(minilm):
    weights, _, pieces = model_weights(minilm, TEXT)
    at = page({"section": "One layer", "layer": "4", "hide": "true"})
    grid = chart_by_title(at, "Layer 4 · 12 heads")
    tiles = head_tiles(grid)
    keep = ~np.array(pieces.special)
    expected = weights[3][:, keep][:, :, keep]
    expected = expected / expected.sum(-1, keepdims=True)
    assert len(tiles) == 12 and tiles[0].shape == (13, 13)
    np.testing.assert_allclose(tiles[6], expected[6], atol=1e-5)
    assert "[CLS]" not in grid["layout"]["yaxis"]["ticktext"] and "[CLS]" not in grid["layout"]["xaxis"]["ticktext"]
    focus = expected.max(-1).mean(-1)  # [12]: a row's largest weight, on average over the drawn rows
    most, least = int(np.argmax(focus)), int(np.argmin(focus))
    assert title_text(grid) == (
        f"Layer 4 · 12 heads: head {most + 1} the most focused (a row's largest weight {focus[most]:.2f} on "
        f"average), head {least + 1} the broadest ({focus[least]:.2f})"
    )


def test_tokens_show_specials_continuations_and_unknowns():
    at = page({"section": "Tokens", "text": "Tokenization <b>happens</b> 😀 שלום"})
    spec = chart_by_title(at, "WordPiece tokens")
    text = [t for row in spec["data"][0]["text"] for t in row if t]
    assert text[0] == "[CLS]" and text[-1] == "[SEP]" and "[UNK]" in text
    assert any(t.startswith("##") for t in text) and "&lt;" in text  # markup shown as typed, escaped
    hover = " ".join(h for row in spec["data"][0]["customdata"] for h in row)
    assert "id 101" in hover and "characters “😀”" in hover
    whole = [t for t in text if not t.startswith("##") and t not in ("[CLS]", "[SEP]", "[UNK]")]
    counted = f"{len(whole)} start a word, {sum(t.startswith('##') for t in text)} continue one (##), 2 special"
    assert title_text(spec).endswith(f"{counted}, {text.count('[UNK]')} unknown")


def test_head_roles_table_and_the_strongest_head(minilm):
    weights, _, pieces = model_weights(minilm, TEXT)
    at = page({"section": "Head roles", "role": "previous token"})
    table = at.dataframe[0].value
    assert len(table) == 72 and list(table.columns[:2]) == ["layer", "head"]
    index = np.arange(1, weights.shape[-1])
    previous = weights[..., index, index - 1].mean(-1)  # [6, 12], by hand
    l, h = np.unravel_index(previous.argmax(), previous.shape)
    drawn = chart_by_title(at, "the strongest “previous token” head")
    assert f"Layer {l + 1} · head {h + 1}" in drawn["layout"]["title"]["text"]
    np.testing.assert_allclose(decode_array(drawn["data"][0]["z"]), weights[l, h], atol=1e-6)


def test_two_sentences_rows_and_cosine(minilm):
    at = page({"section": "Two sentences"})
    first, hidden_a, pa = model_weights(minilm, TEXT)
    second, hidden_b, pb = model_weights(minilm, TEXT.replace("tired", "wide"))
    spec = chart_by_title(at, "what “it” attends to")
    it = list(pa.tokens).index("it")
    np.testing.assert_allclose(decode_array(spec["data"][0]["z"]), first[4, :, it, :], atol=1e-6)
    said = []
    for which, weights, pieces in (("first", first, pa), ("second", second, pb)):
        rows = weights[4, :, list(pieces.tokens).index("it")]  # [12, T]: "it" in layer 5's heads
        plain = [j for j, special in enumerate(pieces.special) if not special]
        head, at_key = np.unravel_index(np.argmax(rows[:, plain]), (12, len(plain)))
        key = plain[at_key]
        said.append(f"in the {which} sentence “{pieces.tokens[key]}” the most (head {head + 1}, {rows[head, key]:.2f})")
    past = ", past [CLS] and [SEP]"  # the specials are drawn, and the finding reads the words only
    assert title_text(spec) == f"Layer 5 · what “it” attends to, head by head{past}: " + ", ".join(said)
    ea, eb = hidden_a.mean(0), hidden_b.mean(0)
    expected = float(ea @ eb / np.linalg.norm(ea) / np.linalg.norm(eb))
    assert float(at.metric[0].value) == pytest.approx(expected, abs=1e-3)
    hidden = chart_by_title(page({"section": "Two sentences", "hide": "true"}), "what “it” attends to")
    assert "[CLS]" not in title_text(hidden)  # nothing left out that the map draws


@pytest.mark.parametrize("text", ["", "a", "😀", "مرحبا بالعالم", "x " * 600, "<script>&amp;</script>"])
def test_any_text_works(text):
    at = page({"text": text, "section": "All heads", "cap": "512"})
    if not text.strip():
        assert at.info and not chart_specs(at)
        return
    for spec in chart_specs(at):
        for trace in spec["data"]:
            if "z" in trace:
                assert np.isfinite(decode_array(trace["z"]).astype(float)).all()
    if len(text) > 1000:
        assert at.warning  # 600 words: cut at 512 tokens, with a note
        assert len(json_bytes(at)) <= 1_000_000  # the pooled overview stays within the budget


def json_bytes(at) -> bytes:
    return b"".join(chart_json(el) for el in chart_elements(at))


def test_role_scores_by_hand():
    a = np.array([[[[0.5, 0.5, 0.0, 0.0], [0.1, 0.2, 0.7, 0.0], [0.0, 0.6, 0.2, 0.2], [0.25, 0.25, 0.25, 0.25]]]])
    special = [True, False, False, True]
    words = [None, 0, 0, None]  # positions 1 and 2 are pieces of one word
    row = head_role_scores(a, special, words).iloc[0]
    assert row["previous token"] == pytest.approx((0.1 + 0.6 + 0.25) / 3)
    assert row["next token"] == pytest.approx((0.5 + 0.7 + 0.2) / 3)
    assert row["[CLS]/[SEP] sink"] == pytest.approx((0.5 + 0.1 + 0.2 + 0.5) / 4)
    assert row["same word"] == pytest.approx((0.7 + 0.6) / 2)
    entropy = [-(p[p > 0] * np.log(p[p > 0])).sum() for p in a[0, 0]]
    assert row["broad"] == pytest.approx(np.mean(entropy) / np.log(4))
    assert row["strongest role"] == max(ROLES, key=lambda r: row[r]) and (row["layer"], row["head"]) == (1, 1)
    kept = without_specials(a, special)[0, 0]
    np.testing.assert_allclose(kept, [[0.2 / 0.9, 0.7 / 0.9], [0.6 / 0.8, 0.2 / 0.8]], atol=1e-6)
    pooled, labels, k = block_mean(np.tile(a, (1, 1, 1, 1)), ["a", "b", "c", "d"], max_cells=2)
    assert k == 2 and labels == ["0-1: a", "2-3: c"]
    np.testing.assert_allclose(pooled[0, 0], [[(0.5 + 0.5 + 0.1 + 0.2) / 2, 0.7 / 2], [(0.6 + 0.5) / 2, 0.9 / 2]])


def test_readings_are_shared_read_only_and_bounded_by_bytes(minilm):
    from pages.pretrained.numbers import MODEL
    from ui.cache import COMPUTATION_BYTES, COMPUTATIONS
    from ui.forward import encoder_reading

    weights, hidden, pieces = model_weights(minilm, TEXT)
    first = encoder_reading(MODEL, tuple(pieces.ids))
    np.testing.assert_allclose(first.weights, weights, atol=1e-6)
    np.testing.assert_allclose(first.hidden, hidden, atol=1e-5)
    assert encoder_reading(MODEL, tuple(pieces.ids)) is first  # every session gets the same arrays
    with pytest.raises(ValueError):
        first.weights[0, 0, 0, 0] = 1.0
    # three readings of 512 tokens hold 75 MB each: the cache keeps what fits its bound
    longs = [(101, *[1000 + offset + i % 50 for i in range(510)], 102) for offset in range(3)]
    kept = [encoder_reading(MODEL, ids) for ids in longs]
    assert all(reading.weights.nbytes == 6 * 12 * 512 * 512 * 4 for reading in kept)
    assert COMPUTATIONS.currsize <= COMPUTATION_BYTES < 3 * kept[0].weights.nbytes
    assert encoder_reading(MODEL, longs[0]) is not kept[0]  # the oldest was dropped to make room


def test_roles_are_compared_on_one_scale_by_hand():
    scores = np.array([[0.30, 0.60, 0.0], [0.10, 0.65, 0.0], [0.05, 0.80, 0.0]])  # previous, broad, a flat role
    z_previous = [
        (s - statistics.mean(column)) / statistics.pstdev(column) for column in [[0.30, 0.10, 0.05]] for s in column
    ]  # 1.39, -0.46, -0.93
    z_broad = [
        (s - statistics.mean(column)) / statistics.pstdev(column) for column in [[0.60, 0.65, 0.80]] for s in column
    ]  # -0.98, -0.39, 1.37
    assert z_previous[0] > z_broad[0] and z_broad[1] > z_previous[1] and z_broad[2] > z_previous[2]
    assert list(strongest_roles(scores)) == [0, 1, 1]  # raw scores would say "broad" for all three
    assert list(strongest_roles(scores[:1])) == [1]  # one head: nothing to compare with, the raw score decides


@pytest.mark.parametrize("text", [TEXT, "She sat by the window and read the old letter twice before she slept"])
def test_the_drawn_roles_are_each_heads_largest_z_score(minilm, text):
    weights, _, pieces = model_weights(minilm, text)
    words = [w for w in pieces.word_ids if w is not None]
    assert len(words) == len(set(words))  # no word split into pieces: "same word" is 0 in every head
    at = page({"section": "Head roles", **({} if text == TEXT else {"text": text})})
    spec = chart_by_title(at, "strongest role")
    bands = len(ROLES) + 1  # the roles, then "no clear role"
    drawn = np.floor(decode_array(spec["data"][0]["z"]).astype(np.float64) * bands).astype(int)  # [6, 12]
    w = weights.astype(np.float64).reshape(72, *weights.shape[2:])
    t = w.shape[-1]
    special = np.array(pieces.special)
    entropy = -(w * np.log(np.where(w > 0, w, 1))).sum(-1).mean(-1) / np.log(t)
    by_hand = np.stack(
        [
            np.mean([w[:, i, i - 1] for i in range(1, t)], 0),
            np.mean([w[:, i, i + 1] for i in range(t - 1)], 0),
            w[:, :, special].sum(-1).mean(-1),
            entropy,
        ],
        -1,
    )  # no word of this text is split
    z = (by_hand - by_hand.mean(0)) / by_hand.std(0)
    strongest = np.array([0, 1, 2, 4])[z.argmax(-1)]  # "same word" is 0 in every head: never chosen
    threshold = float(re.search(r"grey: below ([\d.]+), no clear role", spec["layout"]["title"]["text"])[1])
    expected = np.where(z.max(-1) < threshold, len(ROLES), strongest)  # below it, the grey band
    np.testing.assert_array_equal(drawn.ravel(), expected)
    labels = np.array(spec["data"][0]["text"], dtype=float).ravel()
    np.testing.assert_allclose(labels, z.max(-1), atol=0.051)
    assert np.bincount(expected, minlength=bands)[: len(ROLES)].max() < 36  # no role takes half of the heads
    unclear = int((expected == len(ROLES)).sum())
    assert threshold == 1.0 and 0 < unclear < 72
    assert any(
        f"is grey, **no clear role**. On this text that is {unclear} of the 72 heads" in m.value for m in at.markdown
    )
    # the legend names the bands the grid draws, the grey one included, and no other ("same word" is never drawn)
    named = [trace["name"] for trace in spec["data"][1:] if trace.get("mode") == "markers"]
    assert named == [(*ROLES, "no clear role")[band] for band in sorted(set(expected.ravel()))]


LONG = (
    "The animal didn't cross the street because it was too tired, and the driver who had stopped for it waited "
    "patiently while the cars behind him sounded their horns one after another until the light turned green "
    "again and everyone finally moved on towards the bridge over the slow brown river near the old mill."
)


@pytest.mark.parametrize(
    ("section", "text", "cap", "hide"),
    [("All heads", LONG, "128", "false"), ("One layer", LONG + " " + LONG, "256", "true")],
)
def test_pooled_cells_sum_the_keys_and_average_the_queries_so_rows_sum_to_one(minilm, section, text, cap, hide):
    weights, _, pieces = model_weights(minilm, text, cap=int(cap))
    if hide == "true":  # [CLS] and [SEP] dropped, each row renormalised (a row that was all on them stays blank)
        keep = ~np.array(pieces.special)
        weights = weights[..., keep, :][..., keep].astype(np.float64)
        total = weights.sum(-1, keepdims=True)
        weights = np.divide(weights, total, out=np.zeros_like(weights), where=total > 0)
    t = weights.shape[-1]
    at = page({"section": section, "text": text, "cap": cap, "hide": hide})
    note = next(c.value for c in at.caption if c.value.startswith("Long input"))
    k = int(re.search(r"a block of (\d+) queries puts on a block of \1 keys", note)[1])
    cells = 48 if section == "All heads" else 96
    assert k == -(-t // cells) > 1 and "summed over the keys and averaged over the queries, so each row" in note
    bins = -(-t // k)
    padded = np.pad(weights.astype(np.float64), [(0, 0), (0, 0), (0, bins * k - t), (0, bins * k - t)])
    blocks = padded.reshape(6, 12, bins, k, bins, k).sum(axis=(3, 5))
    expected = blocks / np.minimum(k, t - np.arange(bins) * k)[:, None]  # summed over keys, averaged over queries
    if section == "All heads":
        drawn = decode_array(chart_by_title(at, "6 layers × 12 heads")["data"][0]["z"]).astype(np.float64) / 1000
        heads = [drawn[l * bins : (l + 1) * bins, h * bins : (h + 1) * bins] for l in range(6) for h in range(12)]
        shown, tolerance = expected.reshape(72, bins, bins), 0.0005 * bins + 1e-6  # thousandths, rounded cell by cell
    else:
        heads = head_tiles(chart_by_title(at, "Layer 1 · 12 heads"))
        shown, tolerance = expected[0], 1e-3
    assert len(heads) == len(shown)
    for tile, cell in zip(heads, shown):
        np.testing.assert_allclose(tile, cell, atol=0.0005 + 1e-5)
    sums = np.concatenate([tile.sum(-1) for tile in heads])
    whole = int((np.abs(sums - 1) <= tolerance).sum())
    if whole == len(sums):
        assert "so each row still sums to 1 and" in note
    else:  # hidden [CLS] and [SEP]: blocks of blank rows sum to less, and the note counts them
        assert f"({whole} of the {len(sums)} rows here;" in note
