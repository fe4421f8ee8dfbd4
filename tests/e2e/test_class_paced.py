"""In real browsers, a class at its own pace: the teacher, on a lesson's step, lets the class go at its own pace; a
student (with a nickname) walks to another step and answers, sees their own answer judged at once, and the teacher's
board shows where they are and their answer; the export holds it. The teacher pauses the class (the student's page is
held: "Eyes on the teacher") and resumes it, brings everyone back (the student follows the teacher's screen again)
and sends them off again: the student is back at their own step. A reload comes back to the same step, and so does
another device given the seat the student's first one shows."""

from __future__ import annotations

import csv
import io
import re

from lessons.catalogue import lesson_by_id
from tests.e2e.accessibility_check import accessibility_violations
from tests.e2e.conftest import assert_no_exception, new_page, wait_idle
from tests.e2e.test_class import (
    CHECK_TIMEOUT_MS,
    LESSON,
    answer_first_choice,
    chart_title,
    query,
    seconds_until,
    teach_lesson_step,
)

STEP = "() => new URLSearchParams(location.search).get('step')"


def _on_step(page, step: int) -> float:
    return seconds_until(page, f"() => ({STEP})() === '{step}' && document.body.innerText.includes('step {step} of')")


def test_a_class_at_its_own_pace_with_the_board_pause_and_the_export(browser, server_url):
    teacher, student, device = new_page(browser), new_page(browser), new_page(browser)  # device: the student's other
    try:
        code = teach_lesson_step(teacher, student, server_url)
        _on_step(student, 1)  # following: the teacher's step

        teacher.get_by_role("button", name="Let the class go at its own pace").click()
        student.get_by_text("At your own pace").first.wait_for(timeout=CHECK_TIMEOUT_MS)
        student.get_by_role("button", name="Your name:").click()
        student.get_by_label("Your name for the teacher").fill("Ada *L*")
        student.get_by_label("Your name for the teacher").press("Enter")
        student.get_by_role("button", name="Your name: Ada *L*").wait_for(timeout=CHECK_TIMEOUT_MS)
        student.keyboard.press("Escape")
        student.get_by_role("link", name="Next").click()
        _on_step(student, 2)
        assert query(teacher)["step"] == ["1"]  # the teacher stays where they are
        answer_first_choice(student)
        # at their own pace, a student's own answer is judged at once (nobody else's is shown)
        student.get_by_text("Answer:").first.wait_for(timeout=CHECK_TIMEOUT_MS)

        seconds_until(teacher, *chart_title("Where the class is: the latest step of 1 student"))
        names = teacher.locator("[data-testid=stExpander]", has_text="The students by name (1)")
        ada = names.locator("td", has_text="Ada *L*")  # as typed, never Markdown, on the teacher's own screen
        ada.wait_for(timeout=CHECK_TIMEOUT_MS)
        teacher.get_by_text("1 student, 1 with the class open now").wait_for(timeout=CHECK_TIMEOUT_MS)
        assert accessibility_violations(teacher) == [] and accessibility_violations(student) == []  # WCAG A and AA
        with teacher.expect_download() as download:
            teacher.get_by_role("button", name="Export the answers (CSV)").click()
        assert download.value.suggested_filename == f"class-{code}-heads.csv"
        rows = list(csv.DictReader(io.StringIO(open(download.value.path(), encoding="utf-8").read())))
        assert [(row["name"], row["step"], row["latest step"]) for row in rows] == [
            ("Ada *L*", str(s), "2") for s in (1, 2, 3)
        ]
        answered = [row for row in rows if row["answer"]]
        judged = "yes" if lesson_by_id(LESSON).views[1].ask.is_right(0) else "no"  # the first option of step 2
        assert len(answered) == 1 and answered[0]["step"] == "2" and answered[0]["right"] == judged

        teacher.get_by_role("button", name="Pause the class").click()
        student.get_by_text("Eyes on the teacher").wait_for(timeout=CHECK_TIMEOUT_MS)
        assert student.get_by_role("link", name="Next").is_hidden()  # the page and its controls, hidden while paused
        assert student.locator("[data-testid=stMain] .st-key-heads").is_hidden()
        assert accessibility_violations(student) == []
        teacher.get_by_role("button", name="Resume the class").click()

        _on_step(student, 2)
        student.get_by_text("Answer:").first.wait_for(timeout=CHECK_TIMEOUT_MS)  # their answer kept

        teacher.get_by_role("button", name="Bring everyone back").click()
        student.get_by_text("Following the teacher").first.wait_for(timeout=CHECK_TIMEOUT_MS)
        _on_step(student, 1)  # the teacher's screen again
        teacher.get_by_role("button", name="Let the class go at its own pace").click()
        student.get_by_text("At your own pace").first.wait_for(timeout=CHECK_TIMEOUT_MS)
        _on_step(student, 2)  # where they left

        student.reload()
        wait_idle(student)
        _on_step(student, 2)
        student.get_by_role("button", name="Your name: Ada *L*").wait_for(timeout=CHECK_TIMEOUT_MS)

        # another device with the same join link: the seat shown on the first brings the student to their step
        student.get_by_role("button", name="Your name: Ada *L*").click()
        shown = student.get_by_text("Your seat:").first.inner_text(timeout=CHECK_TIMEOUT_MS)
        seat = re.search(r"Your seat: ([A-Z0-9]{3}-[A-Z0-9]{3})", shown).group(1)
        device.goto(f"{server_url}/?room={code}")
        _on_step(device, 1)  # a new student starts at the first step
        device.get_by_role("button", name="Your name:").click()
        device.get_by_label("Go on from another device: its seat").fill(seat)
        device.get_by_label("Go on from another device: its seat").press("Enter")
        _on_step(device, 2)
        device.get_by_role("button", name="Your name: Ada *L*").wait_for(timeout=CHECK_TIMEOUT_MS)
        assert_no_exception(device)
        assert_no_exception(student)
        assert_no_exception(teacher)
    finally:
        for page in (teacher, student, device):
            page.context.close()
