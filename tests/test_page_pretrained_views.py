"""The pretrained page's Sentence pairs (against Hugging Face's BertModel, mean-pooled as sentence-transformers
does), its head view and its overview's title, each checked against all-MiniLM-L6-v2's own weights."""

import numpy as np
import pytest
import torch

from tests.apptest_helpers import chart_by_title, decode_array, title_text
from tests.test_page_pretrained import TEXT, as_the_pages_run_it, model_weights, page


@pytest.fixture(scope="module")
def minilm():
    return as_the_pages_run_it()


def test_sentence_pairs_draw_the_contrastive_softmax_of_hugging_faces_mean_pooled_embeddings():
    import transformers
    from torch.nn import functional as F

    from tests.test_pretrained import FOLDER

    pairs = [
        ("A man is playing a guitar.", "Someone plays an instrument."),
        ("The cat sleeps on the sofa.", "A kitten is napping on the couch."),
        ("It is raining in the city.", "Rain is falling on the town."),
    ]
    at = page({"section": "Sentence pairs", "scale": "5", "pairs": "\n".join(f"{a} | {b}" for a, b in pairs)})
    tokenizer = transformers.AutoTokenizer.from_pretrained(FOLDER)
    bert = transformers.BertModel.from_pretrained(FOLDER).eval()

    def embed(sentences):  # sentence-transformers' recipe: mean of the last hidden states, then unit length
        batch = tokenizer(list(sentences), padding=True, return_tensors="pt")
        with torch.inference_mode():
            hidden = bert(**batch).last_hidden_state
        mask = batch["attention_mask"][..., None].float()
        return F.normalize((hidden * mask).sum(1) / mask.sum(1), dim=-1)

    logits = 5 * embed(a for a, _ in pairs) @ embed(b for _, b in pairs).T
    spec = chart_by_title(at, "Which second sentence each first one picks")
    np.testing.assert_allclose(decode_array(spec["data"][0]["z"]), F.softmax(logits, -1).numpy(), atol=1e-4)
    own = int((logits.argmax(-1) == torch.arange(3)).sum())  # by Hugging Face's BERT
    assert title_text(spec) == (
        f"Which second sentence each first one picks: {own} of 3 pick their own pair (softmax of 5 · cosine)"
    )
    loss = F.cross_entropy(logits, torch.arange(3)).item()
    caption = at.caption[-1].value
    assert f"is {loss:.3g};" in caption and f"log 3 = {np.log(3):.3f}" in caption
    right = int((logits.argmax(-1) == torch.arange(3)).sum())
    assert caption.startswith(f"{right} of 3 first sentences")


@pytest.mark.parametrize(
    "pairs, says",
    [("one | pair", "at least two pairs"), ("no bar here", "split by “|”"), ("a | \n b | c", "split by “|”")],
)
def test_sentence_pairs_say_what_to_change(pairs, says):
    at = page({"section": "Sentence pairs", "pairs": pairs})
    assert any(says in info.value for info in at.info)


def test_the_head_view_opens_on_the_head_that_links_it_to_animal_and_draws_its_query_in_every_head(minilm):
    """Beside one head large, where the query looks in all 12 heads of the layer ([T, H], from the model's own
    weights); the page opens on *it* and on the head with the largest weight from *it* to *animal*, which the
    title names with that weight."""
    weights, _, pieces = model_weights(minilm, TEXT)
    tokens = list(pieces.tokens)
    it, animal = tokens.index("it"), tokens.index("animal")
    expected = int(np.argmax(weights[0][:, it, animal]))
    at = page({"section": "Head view"})
    assert at.selectbox(key="hv_query").value == it and at.selectbox(key="hv_head").value == expected
    spec = chart_by_title(at, "“it” → “animal”: head")
    assert f"head {expected + 1} the most, {weights[0][expected, it, animal]:.2f}" in spec["layout"]["title"]["text"]
    drawn = np.asarray(decode_array(spec["data"][0]["z"]), dtype=np.float64)
    np.testing.assert_allclose(drawn, weights[0][:, it, :].T, atol=1e-6)
    assert [str(x) for x in spec["layout"]["xaxis"]["ticktext"]] == [str(h) for h in range(1, 13)]
    line = weights[0][expected, it]  # [T]: the one head drawn, from "it" to every key
    strongest = int(np.argmax(line))
    assert title_text(chart_by_title(at, f"Layer 1 · head {expected + 1} · head view")) == (
        f"Layer 1 · head {expected + 1} · head view: the strongest line “it” → “{tokens[strongest]}” "
        f"({line[strongest]:.2f})"
    )


def test_the_head_view_of_another_query_names_the_key_it_looks_at_most_past_cls_and_sep(minilm):
    weights, _, pieces = model_weights(minilm, TEXT, cap=128)
    tokens = list(pieces.tokens)
    query = tokens.index("street")
    at = page({"section": "Head view", "hv_query": f"{query + 1}: street", "layer": "3"})
    ordinary = [j for j, t in enumerate(tokens) if t not in ("[CLS]", "[SEP]")]
    block = weights[2][:, query, ordinary]
    head, at_key = np.unravel_index(int(np.argmax(block)), block.shape)
    key = tokens[ordinary[at_key]]
    spec = chart_by_title(at, "“street” looks most at")
    assert f"“{key}”: head {head + 1}, {block[head, at_key]:.2f}" in spec["layout"]["title"]["text"]


def standouts(weights: np.ndarray) -> tuple[tuple[int, int, float], tuple[int, int, float]]:
    """(layer, head, mean) from 1 of the head that puts the most on the previous token (queries 2..T) and of the
    head that puts the most on the first token (every query), by the definition, from ``weights`` [L, H, T, T]."""
    length = weights.shape[-1]
    previous = np.mean([weights[..., i, i - 1] for i in range(1, length)], axis=0)  # [L, H]
    first = np.mean([weights[..., i, 0] for i in range(length)], axis=0)
    picks = []
    for means in (previous, first):
        layer, head = np.unravel_index(np.argmax(means), means.shape)
        picks.append((layer + 1, head + 1, float(means[layer, head])))
    return picks[0], picks[1]


def test_the_overviews_title_names_the_heads_on_the_previous_token_and_on_cls(minilm):
    weights, _, _ = model_weights(minilm, TEXT)
    (pl, ph, pv), (fl, fh, fv) = standouts(weights)
    title = chart_by_title(page({"section": "All heads"}), "6 layers × 12 heads")["layout"]["title"]["text"]
    plain = title.replace("<br>", " ")
    assert f"layer {pl} · head {ph} the most on the previous token ({pv:.2f})" in plain, plain
    assert f"layer {fl} · head {fh} the most on “[CLS]” ({fv:.2f})" in plain, plain
    hidden = page({"section": "All heads", "hide": "true"})
    plain = title_text(chart_by_title(hidden, "6 layers × 12 heads"))
    assert "the previous token" in plain and "[CLS]" not in plain  # the first column drawn is not [CLS]
