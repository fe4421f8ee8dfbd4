"""The training page: Step trains, a learning-rate change keeps the weights, a new task starts a new model,
a fast fixture reaches its target, the result joins the model picker; the server-wide queue of trainings."""

import pytest

from pages.train.slots import TrainingSlots
from tests.apptest_helpers import assert_no_exception, chart_by_title, run_page

PAGE = "pages/train/page.py"
FAST = {"task": "copy", "kind": "decoder-only", "layers": "2", "heads": "2", "d_model": "32", "steps": "1000"}


def trainer(at):
    return at.session_state["trainer"]


def press(at, key):
    at.button(key=key).click()
    at.run()
    assert_no_exception(at)
    return at


def test_page_opens_on_induction_at_step_zero():
    at = run_page(PAGE)
    assert_no_exception(at)
    assert at.selectbox(key="task").value == "induction" and trainer(at).step == 0
    assert not at.button(key="train").disabled and at.button(key="pause").disabled


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
    at.selectbox(key="heads").set_value(1)
    at.run()
    assert trainer(at) is not first and trainer(at).step == 0  # another architecture: a new model


def test_a_fast_fixture_reaches_its_target_and_joins_the_picker():
    at = run_page(PAGE, {**FAST, "d_model": "32"})
    for _ in range(60):
        press(at, "step")
        if trainer(at).done:
            break
    run = trainer(at)
    assert run.done and run.history[-1]["val_accuracy"] >= run.task.target, run.history[-1]
    assert chart_by_title(at, "copy · 2 layers × 2 heads")
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
