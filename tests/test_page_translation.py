"""The encoder-decoder page on the shipped translation model: what it writes and draws, against the model run
here (its checkpoint loaded afresh), with the word alignment and the hand-made links worked out by hand."""

import numpy as np
import pytest
import torch

from tests.apptest_helpers import assert_no_exception, chart_by_title, chart_specs, decode_array, run_page, title_text
from transformer import BOS_ID, EOS_ID, load_checkpoint, translate
from ui.markdown_text import as_typed

PAGE = "pages/encoder_decoder/page.py"
CHECKPOINT = "checkpoints/translation.safetensors"
SOURCE = "My sister has a red car."
REFERENCE = "Ma sœur a une voiture rouge."


@pytest.fixture(scope="module")
def shipped():
    model, metadata = load_checkpoint(CHECKPOINT)
    return model, metadata["tokenizer"]


def cross_attention(model, tokenizer, english: str, written: list[int]) -> np.ndarray:
    """``[L, H, T, S]``: the decoder reads <s> + written[:-1], so row t is the step that writes written[t]."""
    source = tokenizer.encode(tokenizer.tokenize(english))
    with torch.inference_mode():
        out = model(torch.tensor([source]), torch.tensor([[BOS_ID, *written[:-1]]]), return_attention=True)
    names = sorted(n for n in out.attention.weights if n.endswith("cross_attn"))
    return np.stack([out.attention.weights[n][0].numpy() for n in names])


def words_by_hand(pieces: list[str]) -> list[list[int]]:
    """The pieces' indices of each word as typed: a new word at each piece that starts with "▁" (or is </s>)."""
    words = []
    for i, piece in enumerate(pieces):
        if not words or piece.startswith("▁") or piece == "</s>" or pieces[i - 1] == "</s>":
            words.append([])
        words[-1].append(i)
    return words


def test_the_page_opens_on_the_translation_model_and_writes_its_beam_translation(shipped):
    model, tokenizer = shipped
    at = run_page(PAGE)
    assert_no_exception(at)
    assert at.session_state["model"].startswith("translation")
    assert at.session_state["section"] == "Translate"
    french = translate(model, tokenizer, [SOURCE])[0]
    greedy = translate(model, tokenizer, [SOURCE], num_beams=1)[0]
    shown = " ".join(el.value for el in at.markdown)
    assert f"beam search (4 beams):** {as_typed(french)}" in shown
    assert ("the same words" in shown) == (french == greedy)


def test_the_alignment_is_the_cross_attention_joined_into_words(shipped):
    model, tokenizer = shipped
    source = tokenizer.encode(tokenizer.tokenize(SOURCE))
    written = [*translate_ids_of(model, source)]
    maps = cross_attention(model, tokenizer, SOURCE, written)
    at = run_page(PAGE, {"tr_layer": "layer 2", "tr_head": "head 3"})
    assert_no_exception(at)
    drawn = decode_array(chart_by_title(at, "Cross-attention (layer 2, head 3)")["data"][0]["z"])
    pieces = [("</s>" if i == EOS_ID else tokenizer.id_to_piece(i)) for i in written]
    rows, cols = words_by_hand(pieces), words_by_hand(tokenizer.tokenize(SOURCE))
    expected = np.array([[maps[1, 2][r][:, c].sum(axis=1).mean() for c in cols] for r in rows])
    np.testing.assert_allclose(drawn, expected, atol=1e-5)
    np.testing.assert_allclose(drawn.sum(axis=1), 1.0, atol=1e-5)  # each row still a distribution over words

    at = run_page(PAGE, {"tr_pieces": "true"})
    drawn = decode_array(chart_by_title(at, "Cross-attention (all layers, mean of heads)")["data"][0]["z"])
    np.testing.assert_allclose(drawn, maps.mean(axis=(0, 1)), atol=1e-5)


def translate_ids_of(model, source):
    from transformer.generation import generate

    return generate(
        model, source, len(source) + 50, strategy="beam", num_beams=4, length_penalty=0.6, penalty="gnmt"
    ).tokens


def test_the_agreement_grid_counts_the_hand_links_each_head_reads_most(shipped):
    from analysis.alignment import ALIGNED_PAIRS

    model, tokenizer = shipped
    layers, heads = model.config.num_decoder_layers, model.config.num_heads
    hits, total = np.zeros((layers, heads)), 0
    for aligned in ALIGNED_PAIRS:
        written = [*tokenizer.encode(tokenizer.tokenize(aligned.french)), EOS_ID]
        maps = cross_attention(model, tokenizer, aligned.english, written)
        pieces = [("</s>" if i == EOS_ID else tokenizer.id_to_piece(i)) for i in written]
        rows, cols = words_by_hand(pieces), words_by_hand(tokenizer.tokenize(aligned.english))
        for layer in range(layers):
            for head in range(heads):
                for word, link in enumerate(aligned.links):
                    if link:
                        mass = [maps[layer, head][rows[word]][:, c].sum(axis=1).mean() for c in cols]
                        hits[layer, head] += int(np.argmax(mass)) in link
        total += sum(1 for link in aligned.links if link)
    at = run_page(PAGE, {"section": "Alignment"})
    assert_no_exception(at)
    spec = chart_specs(at)[0]
    np.testing.assert_allclose(decode_array(spec["data"][0]["z"]), hits / total, atol=1e-6)
    best = np.unravel_index(int((hits / total).argmax()), hits.shape)
    assert f"Layer {best[0] + 1}, head {best[1] + 1} agrees most" in spec["layout"]["title"]["text"]
    assert f"{(hits / total).max():.0%} of {total}" in spec["layout"]["title"]["text"]


def test_the_reference_bars_are_each_pieces_teacher_forced_probability(shipped):
    model, tokenizer = shipped
    source = tokenizer.encode(tokenizer.tokenize(SOURCE))
    target = tokenizer.encode(tokenizer.tokenize(REFERENCE))
    with torch.inference_mode():
        logits = model(torch.tensor([source]), torch.tensor([[BOS_ID, *target[:-1]]])).logits[0]
    expected = torch.softmax(logits, -1)[torch.arange(len(target)), torch.tensor(target)].numpy()
    at = run_page(PAGE, {"section": "Reference"})
    assert_no_exception(at)
    spec = chart_by_title(at, "Each piece of the reference")
    np.testing.assert_allclose(decode_array(spec["data"][0]["x"]), expected, atol=1e-5)
    weakest = tokenizer.tokenize(REFERENCE)[int(expected.argmin())]
    assert f"“{weakest}” (p = {expected.min():.3f})" in spec["layout"]["title"]["text"]


def test_a_random_model_has_no_translation_sections():
    at = run_page(PAGE, {"model": "random model (settings below)"})
    assert_no_exception(at)
    assert at.session_state["section"] == "Attention"
    assert "Translate" not in at.segmented_control(key="section").options


def test_the_output_bars_name_each_of_the_top_pieces_as_the_vocabulary_spells_it(shipped):
    """Every bar is named by its piece (not "id 839" for a piece the two sentences do not hold), and the axis's
    percentages carry no more decimals than its steps need."""
    model, tokenizer = shipped
    source = tokenizer.encode(tokenizer.tokenize(SOURCE))
    with torch.inference_mode():
        logits = model(torch.tensor([source]), torch.tensor([[BOS_ID]])).logits[0, 0]
    probabilities = torch.softmax(logits, -1).numpy()
    top = np.argsort(-probabilities, kind="stable")[:10]
    at = run_page(PAGE, {"section": "Output"})
    assert_no_exception(at)
    spec = chart_by_title(at, "Position 1 · top 10")
    np.testing.assert_allclose(decode_array(spec["data"][0]["x"]), probabilities[top], atol=1e-5)
    assert list(spec["layout"]["yaxis"]["ticktext"]) == [as_typed(tokenizer.id_to_piece(int(i))) for i in top]
    assert probabilities[top[0]] >= 0.1 and spec["layout"]["xaxis"]["tickformat"] == ".0%"
    target = tokenizer.encode(tokenizer.tokenize(REFERENCE))[0]  # position 1's target, the reference's first piece
    rank = 1 + int((probabilities > probabilities[target]).sum())
    first = f"“{as_typed(tokenizer.id_to_piece(int(top[0])))}” first ({probabilities[top[0]]:.2g})"
    piece = as_typed(tokenizer.id_to_piece(target))
    assert title_text(spec).endswith(
        f"the target “{piece}” first ({probabilities[top[0]]:.2g})"
        if rank == 1
        else f"{first}, the target “{piece}” rank {rank} ({probabilities[target]:.2g})"
    )
