"""The reader's screen: every page figure first, and a phone or a tablet gets a compact page.

On every screen a page's explanation (``ui.presentation.explanation``) and its settings (``settings``) fold into
closed expanders above its sections, and a section's prose is written after its figure, so that the
first figure is on the first screen. A small ``st.components.v2`` component, mounted once above every page
(``ui.classroom_bar``), watches the browser window's width. While the window is narrower than
``COMPACT_BELOW_PX`` it tells the server so (one rerun, the first time and whenever the window crosses that width:
a tablet turned), and the pages lay their rows of controls and colour bars out for a small screen. Until the
browser has said anything, the page is laid out for a large screen, as it is on a desktop, where the
component never reports and never causes a rerun.

The component's stylesheet is the app's own (it is not isolated, so it applies to the whole page): a
formula wider than its column scrolls inside its own box, with a shadow at the edge that has more to
show; on a touch screen sliders get a thumb large enough to drag with a finger and rows of choices (a page's
sections, the heads to knock out) buttons large enough to tap.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

import streamlit as st

from viz.compact import COMPACT_BELOW_PX  # a tablet held upright (768 - 834 px) is compact; a laptop's 1280 px not

from .accessibility import CSS as ACCESSIBLE_CSS, JS as ACCESSIBLE_JS
from .cache import resource

PRESENT = "present"  # the URL key (and session state) of presentation mode
COMPACT = "screen_compact"  # session state: True once the browser has reported a compact window
KEY = "screen"
PHONE_PX = 640  # a phone: its sections one row that scrolls, its formulas set smaller (screen.js), its title smaller

_JS = (Path(__file__).parent / "screen.js").read_text(encoding="utf-8")
# The component's own element takes no room. A formula scrolls sideways in its box, and so does a page's row of
# sections on a phone (one row, not three), and "scroll shadows" (two backgrounds that scroll with the content,
# covering two that stay at the edges) show which edge has more; the open section is scrolled into the row's view.
# On a phone a formula wider than its box is first set smaller, down to 70 % of its size (``fitFormulas``). On a touch screen a slider's thumb is drawn 24 px wide (its whole 40 px row takes the finger), the
# buttons of a row of choices (sections, heads to knock out) are at least 40 px, and an element with a toolbar
# (a table's: columns, download, search, full screen), which a touch screen always shows 44 px above the element,
# keeps that strip free rather than covering what is above. On a phone a page's title is set smaller, which leaves
# more of the first screen to the figure; in presentation mode it is larger, with the rest of the page's text (the
# open section scrolls into view below it: ``show_section``). A Graphviz
# diagram's text is drawn at the size its layout was made for (viz.architecture's fontsize 14, in the diagram's own
# units, so it scales with the diagram), where Streamlit's style would draw every letter at 9.6 px.
CSS = """
.st-key-screen { display: none; }
[data-testid="stMainBlockContainer"] { padding-top: 4rem; }
[class*="st-key-lab_bottom_up"] { flex-direction: column-reverse; }
body.lab-presenting [class*="st-key-lab_figure_text"] [data-testid="stHorizontalBlock"] { flex-direction: column; }
body.lab-presenting [class*="st-key-lab_figure_text"] [data-testid="stColumn"] { width: 100%; flex: 1 1 auto; }
:root {
  --lab-scroll-shadows: linear-gradient(to right, #ffffff 30%, rgba(255, 255, 255, 0)),
              linear-gradient(to left, #ffffff 30%, rgba(255, 255, 255, 0)) 100% 0,
              radial-gradient(farthest-side at 0 50%, rgba(0, 0, 0, 0.22), rgba(0, 0, 0, 0)),
              radial-gradient(farthest-side at 100% 50%, rgba(0, 0, 0, 0.22), rgba(0, 0, 0, 0)) 100% 0;
}
.katex-display, .st-key-section [data-testid="stButtonGroup"] > div:has(> button) {
  background: var(--lab-scroll-shadows);
  background-repeat: no-repeat;
  background-size: 40px 100%, 40px 100%, 14px 100%, 14px 100%;
  background-attachment: local, local, scroll, scroll;
}
.katex-display { overflow-x: auto; overflow-y: hidden; padding-bottom: 4px; }
.st-key-section [data-testid="stButtonGroup"] > div[data-more="right"] {
  mask-image: linear-gradient(to right, #000 calc(100% - 56px), transparent); }
.st-key-section [data-testid="stButtonGroup"] > div[data-more="left"] {
  mask-image: linear-gradient(to left, #000 calc(100% - 56px), transparent); }
.st-key-section [data-testid="stButtonGroup"] > div[data-more="both"] {
  mask-image: linear-gradient(to right, transparent, #000 56px, #000 calc(100% - 56px), transparent); }
@media (pointer: coarse) {
  [data-testid="stSlider"] div:has(> div > input[type="range"]) { width: 24px; height: 24px; }
  [data-testid="stButtonGroup"] button { min-height: 40px; min-width: 40px; }
  [data-testid="stMain"] [data-testid="stElementContainer"]:has([data-testid="stElementToolbar"]) { margin-top: 28px; }
}
[data-testid="stGraphVizChart"] svg text { font-size: 14px; }
body.lab-presenting [data-testid="stMain"] h1 { font-size: 3.25rem; }
body.lab-presenting [data-testid="stMain"] :is([data-testid="stMarkdown"] :is(p, li),
  [data-testid="stCaptionContainer"] p, [data-testid="stExpander"] summary p,
  [data-testid="stAlert"] p) { font-size: 1.3rem; line-height: 1.45; }
body.lab-presenting [data-testid="stMain"] [data-testid="stWidgetLabel"] p { font-size: 1.15rem; }
body.lab-presenting [data-testid="stMain"] :is([data-testid="stButtonGroup"] button, [data-testid^="stBaseButton"],
  [data-testid="stPopover"] button) p,
body.lab-presenting [data-testid="stMain"] :is([data-baseweb="select"], input, textarea) { font-size: 1.15rem; }
body.lab-presenting [data-testid="stMain"] :is([data-testid="stSliderThumbValue"],
  [data-testid="stSliderTickBar"]) { font-size: 1.05rem; }
body.lab-presenting [data-testid="stMain"] :is(h2, h3) { font-size: 1.65rem; }
[data-testid="stMain"] h2 { font-size: 1.75rem; line-height: 1.2; padding: 0.75rem 0 1rem; }
@media (max-width: __PHONE_PX__px) {
  [data-testid="stMain"] h1 { font-size: 2rem; }
  .st-key-section [data-testid="stButtonGroup"] > div:has(> button) { flex-wrap: nowrap; overflow-x: auto; }
  .st-key-section [data-testid="stButtonGroup"] button { flex: 0 0 auto; }
  .st-key-lesson_steps [data-testid="stHorizontalBlock"] { flex-direction: column-reverse; }
  .st-key-lesson_steps [data-testid="stColumn"] { width: 100%; min-width: 100%; }
}
""".replace("__PHONE_PX__", str(PHONE_PX))


# Presentation mode: when a page or a section opens, the page scrolls so that its row of sections (or, on a page
# without sections, the row that runs it: Train's buttons) is at the top of the window, below Streamlit's header,
# with the controls and figure under it: a projector's first screen shows the figure, and the title and the folded
# settings are one scroll up. Later runs of the same section
# (a control changed) leave the scroll where the presenter put it. The content below may still be arriving: for
# ``SETTLE_MS`` the row is put back at the top whenever the page's length moved it, unless the reader scrolls.
_SHOW_SECTION_JS = """
export default function ({ data }) {
  if (data.view === null) { // not presenting: the next presented view scrolls again
    window.__labPresentedView = null;
    return;
  }
  const view = `${location.pathname}|${data.view}`;
  if (window.__labPresentedView === view) return;
  window.__labPresentedView = view;
  const started = performance.now();
  const main = document.querySelector('[data-testid=stMain]');
  if (!main) return;
  // The new section replaces the old one's elements: the page may be short for a moment, and the browser then
  // pulls the scroll back. For SETTLE_MS the row is put back at the top, until the reader scrolls themselves.
  let reader = false;
  const mine = () => { reader = true; };
  const events = ["wheel", "touchstart", "keydown", "mousedown"];
  events.forEach((name) => main.addEventListener(name, mine, { once: true, passive: true }));
  const settle = () => {
    const row = document.querySelector(`.st-key-${data.anchor}`);
    const late = performance.now() - started > data.settle_ms;
    if (reader || late || window.__labPresentedView !== view) {
      events.forEach((name) => main.removeEventListener(name, mine));
      return;
    }
    if (row) {
      const target = row.getBoundingClientRect().top - main.getBoundingClientRect().top + main.scrollTop
        - data.below_header;
      if (Math.abs(main.scrollTop - target) > 2) main.scrollTo({ top: Math.max(0, target) });
    }
    requestAnimationFrame(settle);
  };
  requestAnimationFrame(settle);
}
"""
HEADER_ROOM_PX = 64  # Streamlit's header (the sidebar's button) stays over the top of the page
SETTLE_MS = 3000  # how long after a section opens its row is kept at the top while the page below arrives


@resource()
def _section_shower():
    """The component that scrolls a presented section into view, once per process."""
    return st.components.v2.component(
        "attention_lab_show_section",
        js=_SHOW_SECTION_JS,
        css=".st-key-show_section { display: none; }",
        isolate_styles=False,
    )


def show_section(view: str, anchor: str = "section") -> None:
    """In presentation mode, scroll the element of key ``anchor`` (the row of sections) to the top of the window
    the first time this page shows ``view`` (the open section) (``_SHOW_SECTION_JS``); elsewhere nothing.

    Mounted in every mode, so that switching presentation mode changes no element before the figures: an element
    added above them would have the browser build every chart below it anew instead of redrawing it in place."""
    present = presenting()
    _section_shower()(
        key="show_section",
        data={
            "view": view if present else None,
            "anchor": anchor,
            "below_header": HEADER_ROOM_PX,
            "settle_ms": SETTLE_MS,
        },
        height=0,
    )


@resource()
def _watcher():
    """The component, once per process."""
    return st.components.v2.component(
        "attention_lab_screen", js=ACCESSIBLE_JS + "\n" + _JS, css=CSS + ACCESSIBLE_CSS, isolate_styles=False
    )


def _reported() -> None:
    """on_change of the component's state: remember what the browser said, for every later run."""
    st.session_state[COMPACT] = bool((st.session_state.get(KEY) or {}).get("compact", False))


def watch_screen() -> None:
    """Mount the component (once a run, above the page): it reports a compact window to the server."""
    _watcher()(
        key=KEY,
        data={"below": COMPACT_BELOW_PX, "phone": PHONE_PX, "compact": compact(), "present": presenting()},
        default={"compact": False},
        on_compact_change=_reported,
        height=0,
    )


def compact() -> bool:
    """True when the browser has said that its window is narrower than ``COMPACT_BELOW_PX``."""
    return bool(st.session_state.get(COMPACT, False))


def presenting() -> bool:
    """True when the URL (or the switch, which writes it) asks for presentation mode: a projector's screen."""
    value = st.session_state.get(PRESENT, st.query_params.get(PRESENT, "false"))
    return str(value).lower() in ("true", "1", "on", "yes")


def figure_then_text(key: str, gap: str = "small") -> tuple:
    """The places of a section's figure and of its explanation, side by side (3 : 2); in presentation mode the
    stylesheet puts the figure across the page and the explanation under it (the fonts grow 1.5 x: in three fifths
    of the page a figure's panels would be left small). The same elements in both modes, so switching the mode
    redraws each figure once, at its new width, and every control keeps its place. ``key`` names the pair on its
    page."""
    with st.container(key=f"lab_figure_text_{key}"):
        return tuple(st.columns([3, 2], gap=gap))


def settings(label: str = "Settings") -> AbstractContextManager:
    """Where a page's settings go: a closed expander above its sections, on every screen, so that the figure
    they set is on the first screen (open it to change them)."""
    return st.expander(label, expanded=False, icon=":material/tune:")


def settings_popover(label: str = "Model settings") -> AbstractContextManager:
    """A model's or a run's settings behind a button, their panel opening over the page. Streamlit builds a
    popover's widgets in the browser only once it is opened, so the page opens sooner (each control costs a
    navigation 3-6 ms: docs/performance.md "In the browser"); the server runs them on every run,
    so the URL, a link and a class's view hold every value as before."""
    return st.popover(label, icon=":material/tune:")


# A control bound to the URL must keep its place in the page's layout (its delta path) in every layout: when a
# run moves it (the screen reported compact, presentation mode switched on), the browser drops its old copy only
# after drawing the new one, and with the old copy goes the control's link to its URL key (Streamlit 1.67): the
# address would then stop following that control. So a place used in one layout only is still made, empty (it
# takes no room), in the others; ``tests/test_layout_places.py`` checks every page.


class FigureAboveControls:
    """A figure drawn after its controls are read, shown above them: the place is kept when this is made."""

    def __init__(self):
        self._above = st.container()

    def place(self):
        """The container the figure goes in."""
        return self._above


def one_then_pair() -> tuple:
    """Three places for controls: one row of three on a large screen; on a phone the first above the other two,
    which stay side by side (a phone's columns would stack, one control a line). The same layout on every screen
    (Streamlit's columns wrap below 640 px), so each control keeps its place."""
    first, rest = st.columns([1, 2])
    return (first, *rest.columns(2, wrap=False))


def parts_in_order(key: str, bottom_up: bool):
    """A container whose parts are drawn top to bottom and shown so, or with ``bottom_up`` shown the other way
    round: the order changes on the screen only, so each part's controls keep their places."""
    return st.container(key=f"lab_bottom_up_{key}" if bottom_up else f"lab_in_order_{key}")


def settings_row():
    """A row of controls, each as wide as the row allows, wrapping onto more lines on a narrow screen: one
    block for the row, where ``st.columns`` sends a block for each column too (each block is rendered again on
    every rerun of the row, so a row of six controls costs six blocks fewer)."""
    return st.container(horizontal=True)


def button_row(count: int) -> list:
    """Places for ``count`` buttons: one row of columns on a large screen; on a compact one a row that wraps,
    as many buttons a line as fit (a phone's columns would stack, one button a line)."""
    if not compact():
        return list(st.columns(count))
    row = st.container(horizontal=True)
    return [row] * count
