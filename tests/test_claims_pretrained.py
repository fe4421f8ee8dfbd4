"""A real pretrained model's sentences, checked against MiniLM's own weights and tokens computed here:

- Head roles: the sentence on the scales of the raw scores (the middle half of the heads' entropy ratios, how many
  heads reach a previous-token weight of 0.3) and the count of heads with no clear role, at the default text and
  another; the strongest "same word" head, named only when a word is split (at the default text none is, and every
  head scores 0);
- All heads: the bright first column of weight parked on [CLS] is named only when [CLS] is drawn;
- Head view and Two sentences: the questions about *it*, *animal* and *street* are asked only of texts that hold
  them (the default), and otherwise say where the two sentences differ, from their tokens.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

from tests.apptest_helpers import assert_no_exception, chart_by_title, chart_specs, run_page
from transformer import load_pretrained

PAGE = "pages/pretrained/page.py"
DEFAULT = "The animal didn't cross the street because it was too tired"
OTHER = "Paris is the capital of France, and Berlin is the capital of Germany; both cities are large."


@pytest.fixture(scope="module")
def minilm():
    import ui.runtime  # noqa: F401  (one torch thread, as the pages run it)

    return load_pretrained()


def scores(minilm, text: str) -> dict[str, np.ndarray]:
    """Per head [72]: the previous-token weight, the row entropy over ln T, the same-word weight and the largest
    z-score over the five roles (previous, next, sink, same word, broad), by hand from the model's attention on
    ``text``."""
    model, tokenizer = minilm
    pieces = tokenizer.with_max_tokens(128).encode_text(text)
    with torch.inference_mode():
        out = model(torch.tensor([pieces.ids]), return_attention=True)
    t = len(pieces.ids)
    a = out.attention.stacked("encoder")[:, 0].numpy().astype(np.float64).reshape(72, t, t)  # layer-major
    i = np.arange(1, t)
    previous, following = a[:, i, i - 1].mean(-1), a[:, i - 1, i].mean(-1)
    sink = a[:, :, np.asarray(pieces.special, dtype=bool)].sum(-1).mean(-1)
    broad = (-(a * np.log(np.where(a > 0, a, 1.0))).sum(-1) / np.log(t)).mean(-1)
    words = list(pieces.word_ids)
    same = np.array([[words[q] is not None and words[q] == words[k] and q != k for k in range(t)] for q in range(t)])
    rows = same.any(-1)
    same_word = (a[:, rows] * same[rows]).sum(-1).mean(-1) if rows.any() else np.zeros(72)
    table = np.stack([previous, following, sink, same_word, broad], axis=-1)
    spread = table.std(0)
    z = np.where(spread > 1e-9, (table - table.mean(0)) / np.where(spread > 1e-9, spread, 1.0), -np.inf)
    return {"previous": previous, "broad": broad, "same word": same_word, "standing": z.max(-1)}


@pytest.mark.parametrize("text", [DEFAULT, OTHER])
def test_the_scales_of_the_raw_scores_and_the_unclear_heads_are_counted_on_this_text(minilm, text):
    at = run_page(PAGE, {"section": "Head roles", **({} if text == DEFAULT else {"text": text})})
    assert_no_exception(at)
    expected = scores(minilm, text)
    note = next(m.value for m in at.markdown if m.value.startswith("The raw scores are not on one scale"))
    said = re.search(
        r"on this text the middle half of the heads have an entropy ratio between ([\d.]+) and ([\d.]+), "
        r"while (\d+) of the 72 heads reach a previous-token weight of 0\.3\)",
        note,
    )
    assert said, note
    low, high = np.percentile(expected["broad"], [25, 75])
    assert float(said[1]) == pytest.approx(low, abs=0.006) and float(said[2]) == pytest.approx(high, abs=0.006)
    assert int(said[3]) == int((expected["previous"] >= 0.3).sum())
    unclear = next(m.value for m in at.markdown if "no clear role" in m.value and "On this text" in m.value)
    assert int(re.search(r"On this text that is (\d+) of the 72 heads", unclear)[1]) == int(
        (expected["standing"] < 1.0).sum()
    )
    if text == DEFAULT:  # the Head roles lesson's answer, on its view: "0.6 is ordinary, 0.3 is rare"
        assert low < 0.6 < high and int(said[3]) <= 72 // 10


def ordinary_tokens(minilm, text: str) -> list[str]:
    """The WordPiece tokens of ``text`` without [CLS] and [SEP], from the tokenizer itself."""
    _, tokenizer = minilm
    pieces = tokenizer.with_max_tokens(128).encode_text(text)
    return [t for t, special in zip(pieces.tokens, pieces.special) if not special]


def split_words(minilm, text: str) -> int:
    """How many words of ``text`` the tokenizer cuts into more than one piece."""
    _, tokenizer = minilm
    words = [w for w in tokenizer.with_max_tokens(128).encode_text(text).word_ids if w is not None]
    return sum(1 for w in set(words) if words.count(w) > 1)


@pytest.mark.parametrize("text", [DEFAULT, "Tokenization happens everywhere"])
def test_the_strongest_same_word_head_is_named_only_when_a_word_is_split(minilm, text):
    at = run_page(PAGE, {"section": "Head roles", "role": "same word", "text": text})
    assert_no_exception(at)
    titles = [spec["layout"]["title"]["text"] for spec in chart_specs(at)]
    same_word = scores(minilm, text)["same word"]
    if text == DEFAULT:  # no word of the default text is split: every head scores 0 and none is named
        assert split_words(minilm, text) == 0 and (same_word == 0).all()
        assert not any("the strongest “same word” head" in title for title in titles), titles
        note = " ".join(i.value for i in at.info)
        assert "All 72 heads score 0 on “same word” (no word of this text is split into pieces)" in note
        assert "no head is the strongest, so none is drawn" in note
        return
    assert split_words(minilm, text) >= 1 and (same_word > 0).all()
    layer, head = divmod(int(same_word.argmax()), 12)
    expected = f"Layer {layer + 1} · head {head + 1} · the strongest “same word” head ({same_word.max():.2f})"
    assert expected in titles, titles
    assert not any("score 0" in i.value for i in at.info)


@pytest.mark.parametrize("hide", [False, True])
def test_the_cls_column_is_named_only_when_cls_is_drawn(hide):
    at = run_page(PAGE, {"section": "All heads", **({"hide": "true"} if hide else {})})
    assert_no_exception(at)
    text = next(m.value for m in at.markdown if m.value.startswith("All 72 heads at once"))
    spec = chart_by_title(at, "6 layers × 12 heads")
    keys = " ".join(str(label) for label in spec["data"][0]["x"])  # the tiles' key columns, as the hover names them
    assert ("[CLS]" in keys) is not hide  # [CLS] is a column of the tiles only when not hidden
    assert ("a bright first column (attention parked on `[CLS]`)" in text) is not hide, text
    assert ("[CLS] and [SEP] are hidden here, so weight parked on them is not drawn" in text) is hide, text
    assert "a diagonal just below the main one (the previous token)" in text


@pytest.mark.parametrize("text", [DEFAULT, "Dogs bark loudly at night"])
def test_the_head_views_question_names_it_and_animal_only_when_both_are_tokens(minilm, text):
    at = run_page(PAGE, {"section": "Head view", **({} if text == DEFAULT else {"text": text})})
    assert_no_exception(at)
    said = next(m.value for m in at.markdown if m.value.startswith("Left, one head"))
    tokens = ordinary_tokens(minilm, text)
    both = "it" in tokens and "animal" in tokens
    assert both is (text == DEFAULT)
    assert ("Which heads link *it* to *animal*?" in said) is both, said
    assert ("animal" in said) is both, said


def two_sentences_text(at) -> str:
    """The Two sentences section's question (the one Markdown line about the two sentences)."""
    return next(m.value for m in at.markdown if "two sentences" in m.value)


@pytest.mark.parametrize(
    "query",
    [
        {},
        {"word": "animal"},
        {"first": "I love pizza", "second": "I hate pizza", "word": "pizza"},
        {"first": "I love pizza", "second": "The stock market crashed"},
    ],
)
def test_the_two_sentences_question_holds_for_the_sentences_shown(minilm, query):
    at = run_page(PAGE, {"section": "Two sentences", **query})
    assert_no_exception(at)
    said = two_sentences_text(at)
    first = ordinary_tokens(minilm, query.get("first", DEFAULT))
    second = ordinary_tokens(minilm, query.get("second", DEFAULT.replace("tired", "wide")))
    word = query.get("word", "it")
    changed = [i for i, (a, b) in enumerate(zip(first, second)) if a != b]
    if not query:  # the default pair and word: the classic question, and it holds
        assert len(first) == len(second) and changed == [len(first) - 1]  # only the last word differs
        assert (first[-1], second[-1]) == ("tired", "wide")
        assert all(w in first and w in second for w in ("it", "animal", "street"))
        assert said.startswith("The classic pair: only the last word differs, *tired* or *wide*"), said
        assert "In which heads does **it** look at *animal* in one and *street* in the other?" in said
        return
    assert "classic" not in said and "look at *animal*" not in said and "*street*" not in said, said
    if word not in first or word not in second:  # no figure: the word is not in both sentences
        assert at.warning and not chart_specs(at)
        assert said.startswith("Two sentences and a word of both"), said
        return
    assert len(first) == len(second) and len(changed) == 1  # one token differs, by hand
    (i,) = changed
    where = "at the end" if i == len(first) - 1 else "in one place"
    assert f"The sentences differ only {where}: *{first[i]}* in the first, *{second[i]}* in the second." in said
    assert f"In which heads does **{word}** look at different tokens in the two?" in said


@pytest.mark.parametrize("long", [False, True])
def test_the_head_view_offers_its_hover_only_where_the_figure_carries_it(long):
    """ "Point at a query's name" is said where the figure holds what the browser needs to light a query's lines:
    not for all 12 heads of a long text."""
    query = {"section": "Head view"}
    if long:
        query.update(text=" ".join(["the cat sat on the mat"] * 14), hv_head="all heads")
    at = run_page(PAGE, query)
    assert_no_exception(at)
    said = next(m.value for m in at.markdown if m.value.startswith("Left, one head"))
    figure = chart_by_title(at, "head view")
    assert ("Point at a query's name to light its lines" in said) is (not long), said
    assert ("links" in figure["layout"].get("meta", {})) is (not long)
