"""Programs the tests start besides the app (``redis-server``, ``nginx``): where they are, and what a test
does when one is missing.

Outside CI a missing program skips the test that needs it; under CI (``$CI`` set) it fails the test, since
scripts/test.sh installs every program and a skip there would hide a broken setup.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

# Debian puts nginx in /usr/sbin, which is not on every user's PATH
SYSTEM_FOLDERS = ("/usr/sbin", "/usr/local/sbin", "/sbin")


def program_path(name: str) -> str | None:
    """The executable ``name`` on the PATH or in a system folder, else None."""
    found = shutil.which(name)
    if found:
        return found
    for folder in SYSTEM_FOLDERS:
        candidate = Path(folder) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def missing(*programs: str) -> str | None:
    """Why a test cannot run here: the first of ``programs`` that is not installed, or None if all are."""
    for name in programs:
        if program_path(name) is None:
            return f"{name} is not installed (scripts/test.sh installs it)"
    return None


def require(*programs: str) -> None:
    """Skip the calling test when one of ``programs`` is not installed; under CI fail it instead."""
    reason = missing(*programs)
    if reason is None:
        return
    import pytest  # only tests call this; the benchmarks import the rest of testing/ without pytest

    if os.environ.get("CI"):
        pytest.fail(f"must run in CI: {reason}")
    pytest.skip(reason)
