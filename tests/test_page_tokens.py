"""AppTest: the Self-attention page's Tokens section draws the sentence cut into characters, words, BPE pieces learned
from the training text and MiniLM's WordPiece pieces, the merges and how the counts move; read from the figures and
checked against the text itself, plain recounts and the tokenizers library."""

from __future__ import annotations

import html
from collections import Counter

import numpy as np
from tokenizers import Tokenizer

from tests.apptest_helpers import assert_no_exception, chart_by_title, decode_array, run_page, title_text
from transformer.pretrained import model_files
from transformer.text_corpus import CORPUS_PATH
from transformer.tokenizer import words

PAGE = "pages/self_attention/page.py"
SENTENCE = "The animal didn't cross the street because it was too tired"  # the page's default
CORPUS = CORPUS_PATH.read_text(encoding="utf-8")


def tokens(params=None):
    at = run_page(PAGE, {"section": "Tokens", **(params or {})})
    assert_no_exception(at)
    return at


def ways(at) -> dict[str, list[str]]:
    """Each way's pieces as drawn (bars ordered by line, then by position along it), by the row's name."""
    spec = chart_by_title(at, "Your sentence as tokens")
    axis = spec["layout"]["yaxis"]
    names = {int(v): html.unescape(t).split(" · ")[0] for v, t in zip(axis["tickvals"], axis["ticktext"])}
    counts = {html.unescape(t).split(" · ")[0]: int(t.split(" · ")[1]) for t in axis["ticktext"]}
    bars = []
    for trace in spec["data"]:
        ys, bases = decode_array(trace["y"]), decode_array(trace["base"])
        bars += [(int(y), float(b), html.unescape(text)) for y, b, text in zip(ys, bases, trace["text"])]
    out: dict[str, list[str]] = {}
    for y, _, text in sorted(bars):
        out.setdefault(names[y], []).append(text)
    assert {name: len(pieces) for name, pieces in out.items()} == counts  # the labels count what is drawn
    return out


def curve(at, name: str) -> tuple[np.ndarray, np.ndarray]:
    spec = chart_by_title(at, "As the merges grow")
    line = next(t for t in spec["data"] if t.get("name") == name)
    return decode_array(line["x"]).astype(float), decode_array(line["y"]).astype(float)


def test_tokens_is_a_section_of_its_own_and_a_link_without_a_section_still_opens_q_k_v():
    at = run_page(PAGE)
    assert_no_exception(at)
    row = next(group for group in at.get("button_group") if group.key == "section")
    assert "Tokens" in row.options and row.value == "Q, K, V"
    assert not [t for t in at.text_area if t.key == "bpe_text"]  # only the open section is built


def test_the_sentence_cut_four_ways_as_the_text_and_minilm_cut_it():
    drawn = ways(tokens())
    assert drawn["characters"] == list(SENTENCE.replace(" ", ""))
    assert drawn["words"] == [
        "The",
        "animal",
        "didn't",
        "cross",
        "the",
        "street",
        "because",
        "it",
        "was",
        "too",
        "tired",
    ]
    pieces = drawn["BPE"]  # joined and split at each </w>, the pieces give the words back
    assert "".join(pieces).split("</w>")[:-1] == drawn["words"]
    assert len(drawn["characters"]) > len(pieces) > len(drawn["words"])
    minilm = Tokenizer.from_file(str(model_files() / "tokenizer.json"))
    minilm.no_padding()
    assert drawn["WordPiece"] == minilm.encode(SENTENCE).tokens[1:-1]  # without [CLS] and [SEP]


def test_the_merges_are_the_most_frequent_pairs_with_their_counts():
    at = tokens({"merges": "20"})
    spec = chart_by_title(at, "The 20 merges learned, in order")
    labels = [html.unescape(t) for t in spec["layout"]["yaxis"]["ticktext"]]
    counts = decode_array(spec["data"][0]["x"]).astype(int)
    assert len(labels) == 20 and labels[0] == "1. e + </w> → e</w>"
    corpus_words = Counter(words(CORPUS))
    assert counts[0] == sum(n for word, n in corpus_words.items() if word.endswith("e"))  # words that end in e
    assert counts[2] == sum(n * sum(a == "t" and b == "h" for a, b in zip(w, w[1:])) for w, n in corpus_words.items())
    assert labels[2] == "3. t + h → th" and (np.diff(counts) <= 0).all()
    assert title_text(spec).endswith(f": the pairs seen {counts[0]} times down to {counts[-1]}")


def test_the_curves_the_vocabulary_grows_by_one_a_merge_and_the_tokens_never_rise():
    at = tokens()
    x, pieces = curve(at, "BPE")
    _, vocabulary = curve(at, "vocabulary")
    alphabet = len({c for word in words(CORPUS) for c in word}) + 1  # the letters and signs, and </w>
    np.testing.assert_array_equal(vocabulary, alphabet + x)
    assert (np.diff(pieces) <= 0).all() and pieces[0] == len(SENTENCE.replace(" ", "")) + 11  # letters + </w>s
    assert pieces[200] == len(ways(at)["BPE"]) == 31
    assert any("vocabulary of **252** pieces" in m.value for m in at.markdown) and alphabet + 200 == 252


def test_no_merges_is_characters_and_an_end_for_every_word():
    at = tokens({"merges": "0"})
    drawn = ways(at)
    assert drawn["BPE"] == [p for word in drawn["words"] for p in (*word, "</w>")]
    assert any("No merges yet" in i.value for i in at.info)


def test_an_edited_training_text_an_unseen_character_and_an_empty_text():
    at = tokens({"text": "low lower newest widest 東京 😀", "merges": "1000"})
    at.text_area(key="bpe_text").input("low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3).run()
    assert_no_exception(at)
    # Worked out by hand: Sennrich et al.'s five merges, then d est</w>, ..., and ties broken by the rule (the pair
    # first in code-point order: i + dest</w> before w + i); after 15 merges every word is one piece.
    spec = chart_by_title(at, "The 15 merges learned, in order")
    merges = [html.unescape(t).split(". ", 1)[1] for t in spec["layout"]["yaxis"]["ticktext"]]
    assert merges[:5] == ["e + s → es", "es + t → est", "est + </w> → est</w>", "l + o → lo", "lo + w → low"]
    assert merges[10:] == [
        "i + dest</w> → idest</w>",
        "w + idest</w> → widest</w>",
        "e + r → er",
        "er + </w> → er</w>",
        "low + er</w> → lower</w>",
    ]
    np.testing.assert_array_equal(decode_array(spec["data"][0]["x"]), [9, 9, 9, 7, 7, 6, 6, 6, 5, 3, 3, 3, 2, 2, 2])
    assert any("allows only 15 merges" in c.value for c in at.caption)
    drawn = ways(at)
    assert drawn["BPE"][:4] == ["low</w>", "lower</w>", "newest</w>", "widest</w>"] and "😀" in drawn["BPE"]
    spec = chart_by_title(at, "Your sentence as tokens")
    unknown = next(t for t in spec["data"] if t["name"].startswith("unknown"))
    assert sorted(html.unescape(t) for t in unknown["text"]) == sorted(["東", "京", "😀", "[UNK]"])
    at.text_area(key="bpe_text").input("").run()
    assert_no_exception(at)
    assert any("training text is empty" in i.value for i in at.info)


def test_the_training_text_box_takes_at_most_60000_characters_and_a_longer_link_is_cut_to_them():
    at = tokens()
    at.text_area(key="bpe_text").input("ab " * 30_000).run()
    assert_no_exception(at)
    assert len(at.text_area(key="bpe_text").value) <= 60_000  # a typed or pasted text stops at the cap
    linked = tokens({"bpe_text": "ab " * 30_000})
    assert linked.text_area(key="bpe_text").value == ("ab " * 30_000)[:60_000]
    assert_no_exception(linked)


def test_the_numbers_behind_the_figures_list_every_merge_up_to_the_chosen_count():
    at = tokens({"merges": "30", "table": "true"})
    table = at.dataframe[0].value
    assert list(table["merge"]) == list(range(1, 31)) and list(table.iloc[0][["left", "right", "new piece"]]) == [
        "e",
        "</w>",
        "e</w>",
    ]
    assert list(table["pair count"]) == sorted(table["pair count"], reverse=True)
