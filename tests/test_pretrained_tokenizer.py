"""The package's WordPiece tokenizer (``transformer.wordpiece``) on all-MiniLM-L6-v2's tokenizer.json, against
Hugging Face's ``AutoTokenizer`` loaded offline from the same folder: ids, pairs, the cap, offsets, unknown pieces,
and the tokenizer as a value (hashable, the same after a round trip through pickle, shared across threads,
validated)."""

import os
import pickle
import threading
import unicodedata

os.environ["HF_HUB_OFFLINE"] = "1"  # before transformers / huggingface_hub read it: never go online
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import pytest

import transformers
from tests.test_pretrained import FOLDER, LONG, PAIR, SENTENCES, TEXT_IDS
from transformer import WordPieceTokenizer, load_pretrained


@pytest.fixture(scope="module")
def pretrained():
    return load_pretrained("all-MiniLM-L6-v2")


@pytest.fixture(scope="module")
def hf_tokenizer():
    return transformers.AutoTokenizer.from_pretrained(FOLDER)


def _folded(text: str) -> str:
    """What BERT uncased compares: lower case, accents (combining marks) removed."""
    return "".join(c for c in unicodedata.normalize("NFD", text.lower()) if unicodedata.category(c) != "Mn")


@pytest.mark.parametrize("text", SENTENCES + [LONG, ""], ids=TEXT_IDS)
def test_token_ids_match_hugging_face(pretrained, hf_tokenizer, text):
    tokenizer = pretrained[1]
    for cap in (128, 512):
        pieces = tokenizer.with_max_tokens(cap).encode_text(text)
        expected = hf_tokenizer(text, truncation=True, max_length=cap, return_offsets_mapping=True)
        assert list(pieces.ids) == expected["input_ids"]
        assert list(pieces.type_ids) == expected["token_type_ids"]
        assert [tuple(o) for o in expected["offset_mapping"]] == list(pieces.offsets)
        full = len(hf_tokenizer(text)["input_ids"])
        assert pieces.cut_from == (full if full > cap else None)
    pieces = tokenizer.encode_text(text)
    assert pieces.tokens == tuple(hf_tokenizer.convert_ids_to_tokens(list(pieces.ids)))
    assert pieces.tokens[0] == "[CLS]" and pieces.tokens[-1] == "[SEP]"


def test_long_text_is_cut_at_the_cap(pretrained, hf_tokenizer):
    pieces = pretrained[1].encode_text(LONG)
    assert len(pieces) == 128 and pieces.truncated and pieces.tokens[-1] == "[SEP]"
    assert pieces.cut_from == len(hf_tokenizer(LONG)["input_ids"]) > 200


def test_pair_ids_match_hugging_face(pretrained, hf_tokenizer):
    tokenizer = pretrained[1]
    for first, second, cap in (PAIR + (128,), (LONG, PAIR[1], 64), (PAIR[0], LONG, 40)):
        pieces = tokenizer.with_max_tokens(cap).encode_pair(first, second)
        expected = hf_tokenizer(first, second, truncation=True, max_length=cap)
        assert list(pieces.ids) == expected["input_ids"]
        assert list(pieces.type_ids) == expected["token_type_ids"]


@pytest.mark.parametrize("text", SENTENCES, ids=TEXT_IDS[:3])
def test_offsets_map_back_to_the_characters(pretrained, text):
    pieces = pretrained[1].encode_text(text)
    assert pieces.special == tuple(t in ("[CLS]", "[SEP]") for t in pieces.tokens)
    for i, token in enumerate(pieces.tokens):
        piece = pieces.piece_text(i)
        assert text[pieces.offsets[i][0] : pieces.offsets[i][1]] == piece
        if pieces.special[i]:
            assert piece == ""
        elif pieces.unknown[i]:
            assert token == "[UNK]" and piece.strip() == piece != ""
        else:
            assert pieces.continuation[i] == token.startswith("##")
            assert _folded(piece) == token.removeprefix("##")


def test_emoji_are_unknown_and_cjk_is_one_piece_per_character(pretrained):
    pieces = pretrained[1].encode_text(SENTENCES[1])
    unknown = [pieces.piece_text(i) for i in range(len(pieces)) if pieces.unknown[i]]
    assert unknown == ["😀👍🏽"]
    assert [t for t in pieces.tokens if t in "日本語の文章"] == list("日本語の文章")


def test_tokenizer_is_hashable_shareable_and_validated(pretrained):
    tokenizer = pretrained[1]
    assert hash(tokenizer) == hash(tokenizer.with_max_tokens(128)) and tokenizer == tokenizer.with_max_tokens(128)
    assert tokenizer != tokenizer.with_max_tokens(64)
    copy = pickle.loads(pickle.dumps(tokenizer))
    assert copy == tokenizer and copy.encode_text(LONG) == tokenizer.encode_text(LONG)
    assert tokenizer.encode(tokenizer.tokenize(SENTENCES[1])) == list(tokenizer.encode_text(SENTENCES[1]).ids)
    for bad in (0, 7, 513, 100.0, True):
        with pytest.raises(ValueError, match="max_tokens"):
            tokenizer.with_max_tokens(bad)
    expected = [tokenizer.encode_text(text) for text in SENTENCES + [LONG]]
    results, errors = [], []

    def work():
        try:
            for _ in range(20):
                results.append([tokenizer.encode_text(text) for text in SENTENCES + [LONG]] == expected)
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(results) == 80 and all(results)


def test_bad_tokenizer_json_is_a_value_error():
    with pytest.raises(ValueError, match="tokenizer.json"):
        WordPieceTokenizer("{not json")


# ---- (4) sentence embeddings ------------------------------------------------------------------------------
