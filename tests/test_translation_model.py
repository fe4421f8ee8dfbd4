"""The shipped translation model (checkpoints/translation.safetensors): what its metadata says, and its held-out
BLEU recomputed here with the paper's beam search against every reference (sacrebleu's own corpus_bleu)."""

from __future__ import annotations

from pathlib import Path

import pytest
import sacrebleu
import torch

from transformer import SubwordTokenizer, load_checkpoint, translate, translation_split

PATH = Path(__file__).resolve().parent.parent / "checkpoints" / "translation.safetensors"


@pytest.fixture(scope="module")
def shipped():
    model, metadata = load_checkpoint(PATH)
    return model, metadata


def test_the_checkpoint_is_small_and_says_what_it_is(shipped):
    model, metadata = shipped
    assert PATH.stat().st_size <= 15 * 2**20
    assert metadata["task"] == "translation" and metadata["languages"] == {"source": "en", "target": "fr"}
    assert metadata["data_licence"] == "CC BY 2.0 FR" and "Tatoeba" in metadata["attribution"]
    assert "tatoeba.org" in metadata["attribution"]
    assert isinstance(metadata["tokenizer"], SubwordTokenizer)
    config = model.config
    assert model.kind == "encoder-decoder" and config.share_embeddings and config.output_head == "tied"
    assert model.src_embed.tokens.weight is model.tgt_embed.tokens.weight  # one matrix, as the paper's
    assert metadata["training_seconds"] > 0 and metadata["threads"] == 2
    assert metadata["plan"]["epochs"] == len(metadata["history"])
    assert metadata["bleu"] >= 35 and metadata["chrf"] > metadata["bleu"]
    assert metadata["held_out_sentences"] == len(translation_split().held_out)


@pytest.mark.slow
def test_held_out_bleu_with_the_papers_beam_is_at_least_35_and_as_the_metadata_says(shipped):
    model, metadata = shipped
    torch.set_num_threads(1)
    held_out = translation_split().held_out
    translations = translate(model, metadata["tokenizer"], list(held_out.english), num_beams=4, length_penalty=0.6)
    most = max(len(refs) for refs in held_out.references)
    streams = [[refs[r] if r < len(refs) else None for refs in held_out.references] for r in range(most)]
    bleu = sacrebleu.corpus_bleu(translations, streams).score
    assert bleu >= 35
    assert bleu == pytest.approx(metadata["bleu"], abs=0.01)
    assert sacrebleu.corpus_chrf(translations, streams).score == pytest.approx(metadata["chrf"], abs=0.01)
