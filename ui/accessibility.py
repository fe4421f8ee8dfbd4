"""What every page adds for a keyboard and a screen reader (WCAG 2.2 AA), carried by the screen's component
(``ui.screen``), which every page mounts: ``accessibility.js`` (list semantics for the sidebar's navigation,
scrolling regions reachable by keyboard) and ``CSS`` (a visible focus ring, readable labels of disabled controls,
a multiselect's text box never narrower than a 24 px target (WCAG 2.5.8; on a phone its chosen values leave it
15 px), motion reduced on request).
docs/accessibility.md says what is supported and what is known not to be."""

from __future__ import annotations

from pathlib import Path

JS = (Path(__file__).parent / "accessibility.js").read_text(encoding="utf-8")
FOCUS_COLOUR = "#1f4e9e"  # the theme's primary colour: 8.6:1 on white, 7.5:1 on the sidebar's #eef2f8
# A disabled control's label: Streamlit draws it at 40 % opacity (2.6:1); this grey keeps it lighter than the
# ink (#111) yet 7:1 on white and 6.2:1 on the sidebar, so it still reads
DISABLED_LABEL = "#595959"
CSS = f"""
body {{ --lab-accessible: 1; }}
:focus-visible {{
  outline-style: solid !important; outline-width: 3px !important; outline-color: {FOCUS_COLOUR} !important;
  outline-offset: 2px !important; }}
label[data-testid="stWidgetLabel"][disabled] {{ color: {DISABLED_LABEL} !important; }}
[data-testid="stMultiSelectTagsContainer"] input[role="combobox"] {{ min-width: 24px !important; }}
@media (prefers-reduced-motion: reduce) {{
  *, *::before, *::after {{
    animation-duration: 0.01ms !important; animation-iteration-count: 1 !important;
    transition-duration: 0.01ms !important; scroll-behavior: auto !important; }}
}}
"""
