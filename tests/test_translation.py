"""Translation: the Tatoeba split, the shared subword vocabulary, the paper's training recipe and ``translate``.

``translate`` is checked against decoding written out here with plain forward passes (no KV cache): greedy
for one beam; for four beams, against every continuation scored by log P / ((5 + |Y|) / 6) ** 0.6 where a
tiny model's vocabulary makes the search exhaustive."""

import gzip
import math

import pytest
import torch

from transformer import (
    ATTRIBUTION,
    BOS_ID,
    EOS_ID,
    SubwordTokenizer,
    TransformerConfig,
    build_model,
    load_checkpoint,
    save_checkpoint,
    train_subword_tokenizer,
    translate,
    translation_split,
    word_starts,
)
from analysis.bleu import corpus_quality, reference_streams
from transformer.translation_data import TATOEBA_PATH
from transformer.training import paper_rate
from transformer.translation_training import TranslationPlan, epoch_batches, encode_pairs, train_translator


@pytest.fixture(scope="module")
def split():
    return translation_split()


@pytest.fixture(scope="module")
def tokenizer(split):
    return train_subword_tokenizer((text for pair in split.train[:4000] for text in pair), 800)


def test_the_split_holds_out_every_translation_of_a_held_out_sentence(split):
    with gzip.open(TATOEBA_PATH, "rt", encoding="utf-8") as file:
        lines = [line.rstrip("\n").split("\t") for line in file]
    assert len(lines) == 73_734
    held = set(split.held_out.english)
    assert len(held) == len(split.held_out) == 1500
    assert not held & {english for english, _ in split.train}
    assert len(split.train) + sum(len(refs) for refs in split.held_out.references) == len(lines)
    translations: dict[str, list[str]] = {}  # every line's French, by its English
    for english, french in lines:
        translations.setdefault(english, []).append(french)
    for english, references in zip(split.held_out.english, split.held_out.references):
        assert sorted(references) == sorted(translations[english])
    assert translation_split.__wrapped__() == split  # seeded: the same split when drawn again
    assert "CC BY 2.0 FR" in ATTRIBUTION and "Tatoeba" in ATTRIBUTION


def test_bleu_reads_every_reference(split):
    # A translation equal to a sentence's second reference scores 100; with only the first reference it does not.
    index = next(i for i, refs in enumerate(split.held_out.references) if len(refs) > 1 and len(refs[1].split()) > 3)
    refs = split.held_out.references[index]
    assert corpus_quality([refs[1]], [refs]).bleu == pytest.approx(100.0)
    assert corpus_quality([refs[1]], [refs[:1]]).bleu < 100.0
    streams = reference_streams([("a b",), ("c d", "e f")])
    assert streams == [["a b", "c d"], [None, "e f"]]


def test_the_pieces_join_back_into_the_text(tokenizer):
    for text in ("I'm cold.", "Je suis très fatigué, merci !", "Qu'est-ce que c'est ?", "Tom isn't here."):
        pieces = tokenizer.tokenize(text)
        assert "".join(pieces).replace("▁", " ").strip() == text
        assert tokenizer.decode(tokenizer.encode(pieces)) == text
    assert tokenizer.tokenize("merci !")[-1] == "▁!"  # the space before French punctuation stays with it
    assert tokenizer.tokenize("Pigé\u202f?") == tokenizer.tokenize("Pigé ?")  # a narrow no-break space is a space
    assert tokenizer.tokenize("e\u0301t\u00e9") == tokenizer.tokenize("\u00e9t\u00e9")  # NFC
    assert tokenizer.encode(["<pad>", "<s>", "</s>", "<unk>"]) == [0, 1, 2, 3]
    assert "<unk>" in tokenizer.tokenize("猫")


def test_word_starts_group_pieces_into_the_words_as_typed():
    assert word_starts(["▁I", "'", "m", "▁cold", "."]) == [True, False, False, True, False]
    assert word_starts(["ab", "▁c"]) == [True, True]


def test_the_tokenizer_travels_in_the_checkpoint(tmp_path, tokenizer):
    config = TransformerConfig(
        d_model=16, num_heads=2, num_encoder_layers=1, num_decoder_layers=1, d_ff=16,
        src_vocab_size=tokenizer.vocab_size, tgt_vocab_size=tokenizer.vocab_size,
        share_embeddings=True, output_head="tied",
    )  # fmt: skip
    model = build_model(config, seed=1)
    save_checkpoint(model, tmp_path / "t.safetensors", {"tokenizer": tokenizer, "task": "translation"})
    loaded, metadata = load_checkpoint(tmp_path / "t.safetensors")
    assert isinstance(metadata["tokenizer"], SubwordTokenizer)
    assert metadata["tokenizer"] == tokenizer and metadata["task"] == "translation"
    assert metadata["tokenizer"].tokenize("A red car.") == tokenizer.tokenize("A red car.")
    with pytest.raises(ValueError, match="subword"):
        SubwordTokenizer('{"model": {"type": "WordLevel", "vocab": {}, "unk_token": "x"}}')


def test_the_papers_rate_rises_then_falls_as_one_over_the_root():
    d, warmup = 128, 800
    assert paper_rate(0, d, warmup) == pytest.approx(d**-0.5 * warmup**-1.5)
    assert paper_rate(warmup - 1, d, warmup) == pytest.approx(d**-0.5 * warmup**-0.5)
    assert paper_rate(4 * warmup - 1, d, warmup) == pytest.approx(paper_rate(warmup - 1, d, warmup) / 2)


def test_batches_cover_every_pair_once_within_the_token_budget(split, tokenizer):
    data = encode_pairs(tokenizer, split.train[:3000])
    batches = epoch_batches(data, 600, torch.Generator().manual_seed(0))
    assert sorted(i for batch in batches for i in batch) == list(range(len(data.pairs)))
    for batch in batches:
        longest = max(len(data.pairs[i][0]) + len(data.pairs[i][1]) + 1 for i in batch)
        assert len(batch) == 1 or longest * len(batch) <= 600


def test_training_repeats_bit_for_bit_and_lowers_the_loss(split):
    plan = TranslationPlan(vocab_size=300, d_model=32, num_heads=2, layers=1, d_ff=32, epochs=2, max_pairs=400)
    first, second = train_translator(split, plan), train_translator(split, plan)
    assert [row["train_loss"] for row in first.history] == [row["train_loss"] for row in second.history]
    for name, tensor in first.model.state_dict().items():
        assert torch.equal(tensor, second.model.state_dict()[name]), name
    assert first.history[-1]["train_loss"] < first.history[0]["train_loss"]
    assert first.model.config.share_embeddings and first.model.config.output_head == "tied"


def tiny_translator(tokenizer, seed: int, vocab_cut: int | None = None):
    config = TransformerConfig(
        d_model=16, num_heads=2, num_encoder_layers=1, num_decoder_layers=1, d_ff=32, dropout=0.0, max_len=32,
        src_vocab_size=tokenizer.vocab_size, tgt_vocab_size=tokenizer.vocab_size,
        share_embeddings=True, output_head="tied",
    )  # fmt: skip
    model = build_model(config, seed=seed).eval()
    with torch.no_grad():
        model.tgt_embed.tokens.weight.mul_(6.0)  # sharper distributions: the end token comes within a few steps
    return model


def plain_log_probs(model, source: list[int], rows: list[list[int]]) -> torch.Tensor:
    with torch.inference_mode():
        logits = model(torch.tensor([source] * len(rows)), torch.tensor(rows)).logits[:, -1]
    return torch.log_softmax(logits.double(), -1)


@pytest.mark.parametrize("seed", (0, 1, 2))
def test_one_beam_is_greedy_decoding_by_plain_passes(tokenizer, seed):
    model = tiny_translator(tokenizer, seed)
    sentence = "The cat is black."
    source = tokenizer.encode(tokenizer.tokenize(sentence))
    out = [BOS_ID]
    for _ in range(len(source) + 50):
        if len(out) > model.config.max_len:
            break
        out.append(int(plain_log_probs(model, source, [out])[0].argmax()))
        if out[-1] == EOS_ID:
            break
    assert translate(model, tokenizer, [sentence], num_beams=1) == [tokenizer.decode(out[1:])]


def gnmt_best(model, source: list[int], vocab: list[int], depth: int) -> tuple[float, tuple[int, ...]]:
    """The best continuation of at most ``depth`` tokens over ``vocab`` (+ the end token), by
    log P / ((5 + |Y|) / 6) ** 0.6, every continuation scored by plain passes."""
    best, frontier = (-math.inf, ()), [((), 0.0)]
    for level in range(depth):
        rows = plain_log_probs(model, source, [[BOS_ID, *tokens] for tokens, _ in frontier])
        going_on = []
        for (tokens, total), log_p in zip(frontier, rows):
            for token in [*vocab, EOS_ID]:
                extended, value = tokens + (token,), total + float(log_p[token])
                if token == EOS_ID or level == depth - 1:
                    best = max(best, (value / ((5 + len(extended)) / 6) ** 0.6, extended))
                else:
                    going_on.append((extended, value))
        frontier = going_on
    return best


def test_four_beams_find_the_gnmt_optimum_when_the_search_is_exhaustive(tokenizer):
    # Four tokens besides the end token are possible (every other logit is -inf): with 4 beams and 2 new
    # tokens the beams hold every prefix.
    model = tiny_translator(tokenizer, seed=3)
    allowed = [10, 11, 12, 13]
    impossible = [t for t in range(tokenizer.vocab_size) if t not in allowed and t != EOS_ID]

    def only_allowed(module, inputs, logits):
        logits = logits.clone()
        logits[..., impossible] = float("-inf")
        return logits

    model.generator.register_forward_hook(only_allowed)
    sentence = "Go."
    source = tokenizer.encode(tokenizer.tokenize(sentence))
    score, tokens = gnmt_best(model, source, allowed, 2)
    assert math.isfinite(score) and set(tokens) & set(allowed)  # the best writes a word, not the end token alone
    got = translate(model, tokenizer, [sentence], num_beams=4, max_new_tokens=2)
    assert got == [tokenizer.decode(tokens)]


@pytest.mark.parametrize(
    "sentences, message",
    [
        ([""], "sentence 1 is empty"),
        (["Hello.", "   "], "sentence 2 is empty"),
        (["Hello.", 3], "sentence 2 is a int"),
        ("Hello.", "list of strings"),
        ([" ".join(["word"] * 40)], "at most 32"),
        (["猫猫"], "no character the model knows"),
    ],
)
def test_bad_input_says_what_to_change(tokenizer, sentences, message):
    model = tiny_translator(tokenizer, seed=0)
    with pytest.raises(ValueError, match=message):
        translate(model, tokenizer, sentences)


def test_bad_settings_and_models_are_refused(tokenizer):
    model = tiny_translator(tokenizer, seed=0)
    with pytest.raises(ValueError, match="num_beams"):
        translate(model, tokenizer, ["Hi."], num_beams=0)
    with pytest.raises(ValueError, match="max_new_tokens"):
        translate(model, tokenizer, ["Hi."], max_new_tokens=0)
    decoder = build_model(TransformerConfig(), kind="decoder-only")
    with pytest.raises(ValueError, match="encoder-decoder"):
        translate(decoder, tokenizer, ["Hi."])


def test_a_knocked_out_head_acts_at_every_step_with_and_without_the_cache(tokenizer):
    # Greedy decoding by plain passes, each with layer 1's cross-attention heads zeroed, against translate_ids.
    from transformer import Ablate, generate
    from transformer.translation import translate_ids

    model = tiny_translator(tokenizer, seed=1)
    with torch.no_grad():
        model.tgt_embed.tokens.weight.div_(2.0)  # embeddings 3 x as drawn: here the source changes the output
    source = tokenizer.encode(tokenizer.tokenize("The cat is black."))
    knocked = (Ablate("decoder.layers.0.cross_attn", (0, 1)),)
    out = [BOS_ID]
    with torch.inference_mode():
        for _ in range(12):
            logits = model(torch.tensor([source]), torch.tensor([out]), interventions=knocked).logits[0, -1]
            out.append(int(logits.argmax()))
            if out[-1] == EOS_ID:
                break
    assert translate_ids(model, source, 1, max_new_tokens=12, interventions=knocked) == tuple(out[1:])
    assert translate_ids(model, source, 1, max_new_tokens=12) != tuple(out[1:])  # the knock-out changes something
    assert generate(model, source, 12, use_cache=False, interventions=knocked).tokens == tuple(out[1:])
    with pytest.raises(ValueError, match="zero ablations"):
        generate(model, source, 3, interventions=(Ablate("decoder.layers.0.cross_attn", (0,), how="mean"),))
