"""Is a teacher's view one that a page's controls can show? Checked before a student opens it.

``url_schema.json`` lists, for every page, the URL keys its controls read (``scripts/url_schema.py`` finds
them by running each page and section, and a test keeps the file current; a ``#`` stands for a number).
A view is refused when its page is unknown, when it has a key that no control of that page reads, or when
a value is longer than any control takes. A value inside a key's range is then the page's own business:
each control corrects a value outside its range to one it can show, as it does for a typed link.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

SCHEMA_FILE = Path(__file__).resolve().parent / "url_schema.json"
LESSON_KEYS = frozenset({"lesson", "step"})  # read by the lesson bar on every page
ROOM, TEACH = "room", "teach"  # a class's code, and its teacher's secret: on every page while in a class
CLASS_KEYS = (ROOM, TEACH)  # a shared view carries neither, nor does a teacher's published view
MAX_VALUES = 32  # values of one key (a row of toggles repeats its key)
MAX_VALUE_CHARS = 2_000  # the longest text box takes fewer


# URL path -> the keys (numbers as ``#``) its controls read; read once, when the module is imported
PAGE_KEYS: dict[str, frozenset[str]] = {
    page: frozenset(keys) for page, keys in json.loads(SCHEMA_FILE.read_text()).items()
}


def general_key(key: str) -> str:
    """A key as the schema writes it: each run of digits as ``#``."""
    return re.sub(r"\d+", "#", key)


def view_problem(page: str, query: dict[str, list[str]]) -> str | None:
    """What is wrong with showing ``query`` on ``page`` (None: nothing)."""
    keys = PAGE_KEYS.get(page)
    if keys is None:
        return f"there is no page “{str(page)[:40]}”"
    for key, values in query.items():
        if key not in LESSON_KEYS and general_key(key) not in keys:
            return f"the page {page} has no control “{str(key)[:40]}”"
        if not isinstance(values, list) or len(values) > MAX_VALUES:
            return f"“{key}” holds {len(values) if isinstance(values, list) else 'no list of'} values"
        if any(not isinstance(v, str) or len(v) > MAX_VALUE_CHARS for v in values):
            return f"a value of “{key}” is not text of at most {MAX_VALUE_CHARS} characters"
    return None
