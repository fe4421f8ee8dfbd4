"""The training page: Step trains, a learning-rate change keeps the weights, a new task starts a new model,
a fast fixture reaches its target, the result joins the model picker; the server-wide queue of trainings."""

from pathlib import Path

import numpy as np
import pytest

from pages.train.slots import TrainingSlots
from tests.apptest_helpers import assert_no_exception, chart_by_title, chart_specs, run_page
from transformer import (
    HashTokenizer,
    TrainingSetup,
    TransformerConfig,
    build_model,
    default_setup,
    save_checkpoint,
)

PAGE = "pages/train/page.py"
FAST = {"task": "copy", "kind": "decoder-only", "layers": "2", "heads": "2", "d_model": "32", "steps": "1000"}


def trainer(at):
    return at.session_state["trainer"]


def shown_step(at) -> int:
    """The step the progress bar shows ("step N of at most M")."""
    text = at.get("progress")[0].proto.text
    assert text.startswith("step "), text
    return int(text.split()[1])


def press(at, key):
    at.button(key=key).click()
    at.run()
    assert_no_exception(at)
    return at


def test_page_opens_on_induction_at_step_zero():
    at = run_page(PAGE)
    assert_no_exception(at)
    assert at.selectbox(key="task").value == "induction" and shown_step(at) == 0
    assert not at.button(key="train").disabled and at.button(key="pause").disabled
    assert at.select_slider(key="d_ff").disabled  # "attention only" is on: no feed-forward width to choose
    at.toggle(key="attn_only").set_value(False).run()
    assert_no_exception(at)
    assert not at.select_slider(key="d_ff").disabled


def test_sessions_share_the_untrained_model_until_they_train():
    from pages.train.live import untrained_trainer

    first, second = run_page(PAGE, FAST), run_page(PAGE, FAST)
    assert "trainer" not in first.session_state and "trainer" not in second.session_state
    press(first, "step")
    own = trainer(first)
    assert own.step == 10 and shown_step(first) == 10
    second.run()
    assert shown_step(second) == 0 and "trainer" not in second.session_state
    shared = untrained_trainer(own.setup)  # what the second session shows: untouched by the first one's steps
    assert shared is not own and shared.step == 0 and len(shared.history) == 1
    assert own.history[0]["val_loss"] == shared.history[0]["val_loss"]  # the same seed: the same untrained model


def probe_maps(at) -> list[str]:
    titles = [spec["layout"]["title"]["text"] for spec in chart_specs(at)]
    return [title for title in titles if "the probe input" in title]


def test_the_probe_map_is_drawn_once_before_and_after_training():
    at = run_page(PAGE, FAST)
    assert len(probe_maps(at)) == 1  # step 0: the live view's
    press(at, "step")
    press(at, "step")  # step 20: a second snapshot, so the scrubber shows
    assert len(trainer(at).snapshots) == 2 and at.select_slider(key="snap").value == 20
    maps = probe_maps(at)
    assert len(maps) == 1 and maps[0].startswith("Step 20 · the probe input"), maps  # the scrubber's, not twice
    weights = list(trainer(at).snapshots[-1].weights.values())[-1]  # [H, T, T]: the map shown, the last attention
    focus = weights.max(-1).mean(-1)  # a row's largest weight, on average, per head
    most, least = int(np.argmax(focus)), int(np.argmin(focus))
    assert maps[0].endswith(
        f": head {most + 1} the most focused (a row's largest weight {focus[most]:.2f} on average), head "
        f"{least + 1} the broadest ({focus[least]:.2f})"
    ), maps[0]


def test_the_curves_legend_names_the_loss_lines_inside_the_loss_panel():
    from viz.training import curves_figure

    fig = curves_figure((0, 20, 40), (4.0, 3.0, 2.0), (4.2, 3.1, 2.5), (0.1, 0.5, 0.9), 0.95, "copy")
    legend = fig.layout.legend
    # the loss panel's top left (the plot's left edge, side by side or stacked), in one row, its lines named
    assert (legend.x, legend.xanchor, legend.y, legend.yanchor, legend.orientation) == (0.0, "left", 1.0, "top", "h")
    assert [t.name for t in fig.data if t.showlegend is not False] == ["train loss", "held-out loss"]
    assert tuple(fig.layout.yaxis.range) == pytest.approx((0.0, 4.2 / 0.8))  # the top fifth free of lines


def test_step_trains_and_a_learning_rate_change_keeps_the_weights():
    at = run_page(PAGE, FAST)
    press(at, "step")
    first = trainer(at)
    assert first.step == 10 and first.history
    weights = {k: v.clone() for k, v in first.model.state_dict().items()}
    at.select_slider(key="lr").set_value(1e-3)
    at.run()
    assert trainer(at) is first and first.step == 10  # same run, same weights
    assert all((weights[k] == v).all() for k, v in first.model.state_dict().items())
    assert first.optimizer.param_groups[0]["lr"] == pytest.approx(1e-3) or first.setup.learning_rate == 1e-3
    at.select_slider(key="heads").set_value(1)
    at.run()
    assert "trainer" not in at.session_state and shown_step(at) == 0  # another architecture: a new model


def test_a_fast_fixture_reaches_its_target_and_joins_the_picker():
    at = run_page(PAGE, {**FAST, "d_model": "32", "keep": "true"})
    for _ in range(60):
        press(at, "step")
        if trainer(at).done:
            break
    run = trainer(at)
    assert run.done and run.history[-1]["val_accuracy"] >= run.task.target, run.history[-1]
    assert chart_by_title(at, "copy · 2 layers × 2 heads")
    last = run.snapshots[-1].step
    assert at.select_slider(key="snap").value == last
    press(at, "play")  # from the first snapshot; the timer then moves the slider on by itself
    assert at.session_state["playing"] and at.select_slider(key="snap").value == 0
    assert chart_by_title(at, "Step 0 · the probe input")
    press(at, "play_pause")
    assert not at.session_state["playing"]
    press(at, "use")
    at.switch_page("pages/multi_head/page.py")
    at.run()
    assert_no_exception(at)
    assert any(option.startswith("copy-2L2H") for option in at.selectbox(key="model").options)


def test_the_queue_admits_a_fixed_number_and_forgets_closed_sessions():
    slots = TrainingSlots(capacity=2, timeout=3.0)
    assert slots.admit("a", now=0.0) == 0 and slots.admit("b", now=0.1) == 0
    assert slots.admit("c", now=0.2) == 1 and slots.admit("d", now=0.3) == 2  # one more than the cap waits
    slots.leave("a")
    assert slots.admit("c", now=0.4) == 0 and slots.admit("d", now=0.5) == 1
    assert slots.admit("d", now=5.0) == 0  # b and c stopped asking (a closed tab): their slots are free


def upload(at, name: str, data: bytes):
    at.file_uploader(key="resume_upload").set_value((name, data, "application/octet-stream"))
    at.run()
    assert_no_exception(at)
    return at


def test_a_shipped_checkpoint_opens_with_its_settings_and_copies_the_users_input():
    at = run_page(PAGE, {"keep": "true"})
    upload(at, "copy.safetensors", (Path(__file__).parents[1] / "checkpoints" / "copy.safetensors").read_bytes())
    run = trainer(at)
    assert run.task.name == "copy" and run.step > 0 and run.done
    assert at.selectbox(key="task").value == "copy" and at.select_slider(key="d_model").value == run.setup.d_model
    assert any("is open at step" in s.value for s in at.success)
    at.text_input(key="try").set_value("abcd")
    at.run()
    assert_no_exception(at)
    # the copy task: the input, then <s>, then the same letters and </s>
    assert at.text[0].value.endswith("a b c d </s>")
    layout = chart_by_title(at, "Your input and the model's output")["layout"]
    shown = ["a", "b", "c", "d", "&lt;s&gt;", "a", "b", "c", "d", "&lt;/s&gt;"]
    assert layout["yaxis"]["ticktext"][: len(shown)] == shown  # a step per row: the input, then its own output


def test_a_bad_upload_says_what_is_wrong_and_keeps_the_run(tmp_path):
    at = run_page(PAGE, {**FAST, "keep": "true"})
    press(at, "step")
    before = trainer(at)
    upload(at, "junk.safetensors", b"not a checkpoint at all")
    assert "junk.safetensors was not opened" in at.error[0].value and trainer(at) is before
    bare = tmp_path / "bare.safetensors"  # a valid model file without training settings
    config = TransformerConfig(d_model=16, num_heads=2, d_ff=32, num_decoder_layers=1, tgt_vocab_size=20, max_len=16)
    save_checkpoint(build_model(config, 0, "decoder-only"), bare, {"tokenizer": HashTokenizer(20)})
    upload(at, "bare.safetensors", bare.read_bytes())
    assert "not saved by the Train page" in at.error[0].value and trainer(at) is before and before.step == 10


def test_the_text_box_takes_no_more_than_the_text_task_reads():
    at = run_page(PAGE, {"task": "text"})
    assert_no_exception(at)
    assert at.text_area(key="corpus").proto.max_chars == 100_000  # the text task's cap (transformer/text_corpus.py)
    with pytest.raises(ValueError, match="at most 100000"):
        TrainingSetup(task="text", text="ab " * 33_334)


def test_the_papers_recipe_is_offered_with_its_schedule_drawn_and_trains_with_adam():
    import math

    import numpy as np
    import torch

    from tests.apptest_helpers import decode_array

    at = run_page(PAGE, {"recipe": "the paper (Adam)", "warmup": "50", "steps": "500"})
    assert_no_exception(at)
    assert at.selectbox(key="recipe").value == "paper"
    assert at.select_slider(key="lr").disabled and at.select_slider(key="wd").disabled
    spec = chart_by_title(at, "The learning rate at each step")
    paper = next(trace for trace in spec["data"] if trace["name"] == "the paper's schedule")
    steps, rates = decode_array(paper["x"]).astype(float), decode_array(paper["y"]).astype(float)
    expected = 64**-0.5 * np.minimum(steps**-0.5, steps * 50**-1.5)  # d_model 64, warm-up 50, s = step
    np.testing.assert_allclose(rates, expected, rtol=1e-6)
    assert all(trace["mode"] == "lines" for trace in spec["data"])  # 500 steps: a line, not 500 markers each
    assert f"{64**-0.5 * 50**-0.5:.3g}" in " ".join(c.value for c in at.caption)
    press(at, "step")
    optimizer = trainer(at).optimizer
    assert type(optimizer) is torch.optim.Adam and optimizer.param_groups[0]["betas"] == (0.9, 0.98)
    assert math.isclose(optimizer.param_groups[0]["eps"], 1e-9)


def test_the_papers_schedule_without_warm_up_says_what_to_change():
    at = run_page(PAGE, {"recipe": "the paper (Adam)", "warmup": "0"})
    assert_no_exception(at)
    assert any("warm-up of at least 1 step" in error.value for error in at.error)


def test_both_recipes_train_side_by_side_from_the_same_weights_and_the_caption_reads_the_drawn_curves():
    import math

    import numpy as np

    from tests.apptest_helpers import decode_array
    from transformer import make_task

    at = run_page(PAGE, {**FAST, "warmup": "20", "recipes": "true"})
    at.button(key="compare_recipes").click().run(timeout=120)
    assert_no_exception(at)
    curves = {}
    for title in ("Held-out loss, both recipes", "Held-out accuracy, both recipes"):
        spec = chart_by_title(at, title)
        assert [trace["name"] for trace in spec["data"]] == ["AdamW", "the paper (Adam)"]
        curves[title] = {trace["name"]: (decode_array(trace["x"]), decode_array(trace["y"])) for trace in spec["data"]}
    losses = curves["Held-out loss, both recipes"]
    assert losses["AdamW"][1][0] == losses["the paper (Adam)"][1][0]  # step 0: the same weights, the same batches
    assert losses["AdamW"][0][-1] == 300
    caption = at.caption[-1].value
    for name, (steps, accuracy) in curves["Held-out accuracy, both recipes"].items():
        met = steps[accuracy >= 0.99]  # the copy task's target
        said = f"met the target at step {int(met[0])}" if len(met) else "did not meet the target in 300 steps"
        assert f"{name[0].upper()}{name[1:]} {said}" in caption
    classes = make_task("copy", "decoder-only").vocab_size
    assert f"= {-math.log(0.9 + 0.1 / classes):.3f}, not 0" in caption and f"over the {classes} outputs" in caption
    assert np.isfinite(losses["the paper (Adam)"][1]).all()


def test_the_recipes_are_compared_only_with_a_warm_up():
    at = run_page(PAGE, {**FAST, "warmup": "0", "recipes": "true"})
    assert_no_exception(at)
    assert not [button for button in at.button if button.key == "compare_recipes"]
    assert any("set the warm-up steps above 0" in info.value for info in at.info)


def test_keeping_the_model_and_the_two_recipes_are_built_only_when_opened():
    """Closed, the two parts after the run send no element, so a setting does not redraw them; a link opens them."""
    closed = run_page(PAGE, FAST)
    assert_no_exception(closed)
    labels = [expander.label for expander in closed.expander]
    assert any(label.startswith("Keep the model") for label in labels)
    assert any(label.startswith("Two recipes on this model") for label in labels)
    assert not {button.key for button in closed.button} & {"use", "compare_recipes"}
    assert not closed.get("download_button") and not closed.get("file_uploader")
    opened = run_page(PAGE, {**FAST, "keep": "true", "recipes": "true"})
    assert_no_exception(opened)
    keys = {widget.key for widget in opened.button}
    assert {"use", "compare_recipes"} <= keys and len(opened.get("download_button")) == 1
    assert len(opened.get("file_uploader")) == 1


def test_the_settings_line_names_the_setup_the_run_uses():
    """Every setting but the task is behind a button; the line under it names them, at the task's recommended
    settings and after settings have moved (each value as the URL set it)."""
    at = run_page(PAGE)
    assert_no_exception(at)
    line = next(c.value for c in at.caption if c.value.startswith("induction:"))
    base = default_setup("induction")
    assert f"{base.layers} layers, {base.heads} heads, d_model = {base.d_model}, attention only" in line, line
    assert f"{base.max_steps} steps, seed {base.seed}." in line, line
    at = run_page(PAGE, {**FAST, "attn_only": "false", "d_ff": "128", "batch": "16", "seed": "3"})
    assert_no_exception(at)
    line = next(c.value for c in at.caption if c.value.startswith("copy:"))
    assert line.startswith(
        r"copy: decoder-only (GPT-style): source \<s\> target \</s\>; 2 layers, 2 heads, d_model = 32, d_ff = 128, "
        "pre-LN,"
    ), line
    assert "batch 16," in line and "1000 steps, seed 3." in line, line
