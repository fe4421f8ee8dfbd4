"""The Train page's live translator under AppTest: it trains while running, draws its cross-attention on the probe
pair (recomputed here from the session's own model) beside the shipped model's, stops at its minute, says the BLEU
it reaches, and saves a checkpoint the other pages offer."""

import numpy as np
import torch

from tests.apptest_helpers import assert_no_exception, chart_by_title, decode_array, run_page
from transformer import BOS_ID, EOS_ID

PAGE = "pages/train/page.py"


def probe_by_hand(model, tokenizer, english: str, french: str) -> np.ndarray:
    """The cross-attention mean over layers and heads, pieces joined into words by "▁" (columns summed, rows
    averaged), written out here."""
    source = tokenizer.encode(tokenizer.tokenize(english))
    written = [*tokenizer.encode(tokenizer.tokenize(french)), EOS_ID]
    model.eval()
    with torch.inference_mode():
        out = model(torch.tensor([source]), torch.tensor([[BOS_ID, *written[:-1]]]), return_attention=True)
    model.train()
    names = [n for n in out.attention.weights if n.endswith("cross_attn")]
    mean = np.mean([out.attention.weights[n][0].numpy() for n in names], axis=(0, 1))

    def words(pieces):
        groups = []
        for i, piece in enumerate(pieces):
            if not groups or piece.startswith("▁") or piece == "</s>":
                groups.append([])
            groups[-1].append(i)
        return groups

    rows = words([*(tokenizer.id_to_piece(i) for i in written[:-1]), "</s>"])
    cols = words(tokenizer.tokenize(english))
    return np.array([[mean[r][:, c].sum(axis=1).mean() for c in cols] for r in rows])


def test_the_live_translator_trains_draws_its_alignment_and_saves_a_checkpoint():
    from pages.train.translator import LIVE_SECONDS, PROBE, RUN, STATE

    at = run_page(PAGE, {"translator": "true"})
    assert_no_exception(at)
    at.button(key="tr_train").click().run(timeout=120)
    at.run(timeout=120)  # a tick: another chunk of training
    assert_no_exception(at)
    state, run = at.session_state[STATE], at.session_state[RUN]
    assert run.step > 0 and 0 < state["seconds"] < LIVE_SECONDS
    drawn = chart_by_title(at, f"yours after {run.step} steps")
    expected = probe_by_hand(run.model, run.tokenizer, PROBE.english, PROBE.french)
    np.testing.assert_allclose(decode_array(drawn["data"][0]["z"]), expected, atol=1e-5)
    assert f"{expected.max(axis=1).mean():.0%} of a word's attention" in drawn["layout"]["title"]["text"]

    state["seconds"] = LIVE_SECONDS  # its minute is up: the next tick stops it and the page says what it reached
    at.run(timeout=120)
    at.run(timeout=120)
    assert_no_exception(at)
    assert not at.session_state["translator_running"]
    said = next(el.value for el in at.success if "greedy decoding reaches BLEU" in el.value)
    assert f"After {run.step} steps" in said
    at.button(key="tr_save").click().run(timeout=120)
    assert_no_exception(at)
    uploads = at.session_state["uploaded_checkpoints"]
    assert any(entry.metadata.get("task") == "translation" for _, entry in uploads.values())
