"""The controls of a page for ``bench/browser.py``: how to find every visible, enabled control of a page's
main area outside forms, and one change of each kind (slider, select, radio, segmented control, toggle,
multiselect, number input)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from playwright.sync_api import TimeoutError as PlaywrightTimeout


# The visible, enabled controls in the page's main area: kind, label, and the label's occurrence.
CONTROLS_JS = """
() => {
  const kinds = {stSlider: "slider", stSelectbox: "select", stRadio: "radio", stButtonGroup: "segmented",
                 stCheckbox: "toggle", stMultiSelect: "multiselect", stNumberInput: "number"};
  const found = [], seen = {};
  const main = document.querySelector("[data-testid=stMain]") || document;
  for (const el of main.querySelectorAll(Object.keys(kinds).map(k => `[data-testid=${k}]`).join(","))) {
    if (!el.checkVisibility() || el.querySelector("input:disabled")) continue;  // hidden, or off for now
    if (el.closest("[data-testid=stForm]")) continue;  // in a form: no rerun until it is submitted
    const label = (el.querySelector("[data-testid=stWidgetLabel]")?.innerText || "").trim();
    const testid = el.dataset.testid, key = testid + "|" + label;
    seen[key] = (seen[key] ?? -1) + 1;
    found.push({testid, kind: kinds[testid], label, occurrence: seen[key]});
  }
  return found;
}
"""


@dataclass
class Control:
    """One widget, found again on every change by its test id, label and the label's occurrence."""

    testid: str
    kind: str
    label: str
    occurrence: int
    memory: dict = field(default_factory=dict)  # the value to come back to, a removed tag

    def locate(self, page):
        """The widget's element now, or None when the page no longer shows it."""
        widgets = page.locator(f"[data-testid=stMain] [data-testid={self.testid}]")
        matches = [
            i
            for i, text in enumerate(
                widgets.evaluate_all(
                    "els => els.map(e => (e.querySelector('[data-testid=stWidgetLabel]')?.innerText || '').trim())"
                )
            )
            if text == self.label
        ]
        return widgets.nth(matches[self.occurrence]) if len(matches) > self.occurrence else None


Change = Callable[[], None]


def slider_change(page, widget, control: Control, nudge: int) -> Change | None:
    """One arrow key on the (first) thumb: right, then back left; at an end, the other way."""
    handle = widget.locator("input[type=range]").first
    value, low, high = handle.evaluate("e => [Number(e.value), Number(e.min), Number(e.max)]")
    if low == high:
        return None
    key = "ArrowLeft" if value >= high or (nudge % 2 and value > low) else "ArrowRight"
    handle.focus()
    return lambda: page.keyboard.press(key)


def _other_choice(texts: list[str], current: int, control: Control, nudge: int) -> int | None:
    """Index of the option to pick: a neighbour of the current one, then back to the first value seen."""
    home = control.memory.setdefault("home", texts[current])
    if nudge % 2 and home in texts and texts[current] != home:
        return texts.index(home)
    target = current + 1 if current + 1 < len(texts) else current - 1
    return target if 0 <= target != current else None


def open_dropdown(page, widget):
    """Click the widget's Open button until its list shows (a first click may close a list still open)."""
    for _ in range(2):
        widget.locator("button[aria-label=Open]").click(timeout=5_000)
        listbox = page.locator("[role=listbox]").last
        try:
            listbox.wait_for(timeout=2_500)
            return listbox
        except PlaywrightTimeout:
            continue
    raise PlaywrightTimeout("the dropdown did not open")


def select_change(page, widget, control: Control, nudge: int) -> Change | None:
    """Open the dropdown (not timed), then click another option."""
    options = open_dropdown(page, widget).locator("[role=option]")
    states = options.evaluate_all("els => els.map(e => [e.innerText.trim(), e.getAttribute('aria-selected')])")
    texts = [text for text, _ in states]
    current = next((i for i, (_, selected) in enumerate(states) if selected == "true"), 0)
    target = _other_choice(texts, current, control, nudge) if texts else None
    if target is None:
        page.keyboard.press("Escape")
        return None
    option = options.nth(target)
    option.scroll_into_view_if_needed()
    return option.click


def radio_change(page, widget, control: Control, nudge: int) -> Change | None:
    """Click another option of a radio group."""
    options = widget.locator("[data-testid=stRadioOption]")
    states = options.evaluate_all("els => els.map(e => [e.innerText.trim(), e.dataset.selected === 'true'])")
    current = next((i for i, (_, selected) in enumerate(states) if selected), 0)
    target = _other_choice([text for text, _ in states], current, control, nudge)
    return None if target is None else options.nth(target).click


def segmented_change(page, widget, control: Control, nudge: int) -> Change | None:
    """Click another button of a segmented control or pills (the active one's test id ends in Active)."""
    buttons = widget.locator("button")
    states = buttons.evaluate_all(
        "els => els.map(e => [e.innerText.trim(), (e.dataset.testid || '').endsWith('Active')"
        " || e.getAttribute('aria-checked') === 'true'])"
    )
    current = next((i for i, (_, selected) in enumerate(states) if selected), 0)
    target = _other_choice([text for text, _ in states], current, control, nudge)
    return None if target is None else buttons.nth(target).click


def toggle_change(page, widget, control: Control, nudge: int) -> Change | None:
    """Click the toggle or checkbox (each click flips it)."""
    return widget.locator("label").first.click


def multiselect_change(page, widget, control: Control, nudge: int) -> Change | None:
    """Remove the last chosen option, then choose it again (opening and filtering the dropdown is not timed)."""
    removed = control.memory.pop("removed", None)
    if removed is None:
        remove = widget.locator("button[aria-label^='Remove ']")
        if not remove.count():
            return None
        control.memory["removed"] = remove.last.get_attribute("aria-label").removeprefix("Remove ")
        return remove.last.click
    listbox = open_dropdown(page, widget)
    widget.locator("input").first.fill(removed)  # the list is virtualised: filter it down to that option
    return listbox.get_by_role("option", name=removed, exact=True).click


def number_change(page, widget, control: Control, nudge: int) -> Change | None:
    """Click the + button, then the - button (at a limit, whichever is enabled)."""
    up, down = (widget.locator(f"[data-testid=stNumberInputStep{side}]") for side in ("Up", "Down"))
    first, second = (down, up) if nudge % 2 else (up, down)
    button = first if first.is_enabled() else second
    return button.click if button.is_enabled() else None


CHANGES = {
    "slider": slider_change,
    "select": select_change,
    "radio": radio_change,
    "segmented": segmented_change,
    "toggle": toggle_change,
    "multiselect": multiselect_change,
    "number": number_change,
}
