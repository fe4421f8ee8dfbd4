"""Which URL keys each page's controls read, found by running every page and each of its sections (AppTest),
also with a model of another kind where the page draws other controls for it (``OTHER_MODELS``), and asking
Streamlit which query parameters its widgets are bound to; a lesson view whose settings name a key not found so
far is run too (a control shown only under another control's value). ``ui/rooms/url_schema.json`` holds
the result; ``python scripts/url_schema.py`` writes it again, and a test checks it is current.

A number inside a key (``ko_decoder0_self_attn``: a control per layer) is written ``#``, so a model with
more layers fits the same schema.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_FILE = ROOT / "ui" / "rooms" / "url_schema.json"
APP = str(ROOT / "app.py")
# Pages whose controls depend on the kind of model picked: the shipped checkpoint of each other kind to run too.
OTHER_MODELS = {
    "pages/experiments/page.py": ("digits_vit", "text_mlm", "translation"),  # a ViT's digits; an encoder's two
    # sentences; a translation model's English and its cross-attention knock-outs
    "pages/encoder_decoder/page.py": ("reverse",),  # a trained model's dropout rate
}
# Controls shown only under another control's value that no lesson view opens: a view that shows them, per page.
SHOWN_UNDER = {
    "pages/experiments/page.py": ({"section": "Knock out", "how": "resample"},),
    "pages/self_attention/page.py": ({"table": "true"},),  # the matrix of the open numbers table
    "pages/multi_head/page.py": ({"section": "Compare", "cmp": "one head, two sentences"},),
    "pages/positional_encoding/page.py": ({"section": "Schemes", "scheme": "Rotary (RoPE)"},),
}


def general(key: str) -> str:
    """A key with each run of digits as ``#``."""
    return re.sub(r"\d+", "#", key)


def _bound_keys(at) -> set[str]:
    from ui.streamlit_internals import bound_url_keys

    return bound_url_keys(at)


def _sections(at) -> list[str]:
    """The options of the page's row of sections (its ``section`` control), if it has one."""
    for group in at.get("button_group"):
        if group.key == "section":
            return list(group.options)
    return []


def page_keys(page_path: str, url_path: str) -> set[str]:
    """The URL keys bound on the page ``page_path`` (opened at ``url_path``) in its default view and in each of its
    sections."""
    from testing.apptest import opened_at

    def run(query: dict[str, str]):
        at = opened_at(APP, url_path, timeout=120)
        for key, value in query.items():
            at.query_params[key] = value
        return at.run()

    first = run({})
    keys = _bound_keys(first)
    for section in _sections(first):
        keys |= _bound_keys(run({"section": section}))
    for shipped in OTHER_MODELS.get(page_path, ()):  # a model of another kind draws other controls
        from ui.model_picker import shipped_label

        model = {"model": shipped_label(shipped)}
        keys |= _bound_keys(run(model))
        for section in _sections(first):
            keys |= _bound_keys(run({**model, "section": section}))
    for settings in SHOWN_UNDER.get(page_path, ()):  # e.g. the resample seed, shown for resample ablation only
        keys |= _bound_keys(run(settings))
    for settings in _lesson_settings(page_path):  # a control shown only under another's value (ALiBi's heads)
        if {general(key) for key in settings} - {general(key) for key in keys}:
            keys |= _bound_keys(run(settings))
    return {general(key) for key in keys}


def _lesson_settings(page_path: str) -> list[dict[str, str]]:
    """The URL settings of every lesson view on the page ``page_path`` (a shipped model by its picker label)."""
    from lessons.catalogue import LESSONS, Shipped
    from ui.model_picker import shipped_label

    def text(value) -> str:
        return shipped_label(value.name) if isinstance(value, Shipped) else str(value)

    return [
        {key: text(value) for key, value in view.settings.items() if not isinstance(value, tuple)}
        for lesson in LESSONS
        for view in lesson.views
        if page_path.split("/")[1] == view.page
    ]


def build_schema() -> dict[str, list[str]]:
    """URL path -> sorted keys, for every page of the navigation."""
    from ui.pages_index import PAGES

    return {page.url_path: sorted(page_keys(page.path, page.url_path)) for page in PAGES}


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    SCHEMA_FILE.write_text(json.dumps(build_schema(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {SCHEMA_FILE}")
