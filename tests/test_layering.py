"""The import rules of DESIGN.md section 3: pages -> ui -> (viz, transformer)."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = {
    "transformer": {"streamlit", "plotly", "pandas", "ui", "viz", "pages"},
    "viz": {"streamlit", "torch", "transformer", "ui", "pages"},
    "ui": {"pages"},
}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_follow_the_layers(package):
    for path in sorted((ROOT / package).rglob("*.py")):
        bad = imported_roots(path) & FORBIDDEN[package]
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_no_user_html_escape_hatches():
    for folder in ("pages", "ui", "viz"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            for hatch in ("unsafe_allow_html=True", "st.html(", "components.html("):
                assert hatch not in text, f"{path.relative_to(ROOT)} uses {hatch}"


def test_files_stay_small():
    for folder in ("pages", "ui", "viz", "transformer"):
        for path in (ROOT / folder).rglob("*.py"):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            assert lines <= 330, f"{path.relative_to(ROOT)} has {lines} lines; split it"


def test_every_page_goes_through_the_navigation():
    """A page must call ui.routing.require_navigation() (see ui/routing.py) before anything else."""
    for path in sorted((ROOT / "pages").glob("*.py")):
        assert "\nrequire_navigation()\n" in path.read_text(encoding="utf-8"), path.name


def test_ui_modules_set_torch_threads_before_using_torch():
    for path in sorted((ROOT / "ui").glob("*.py")):
        if path.name in ("runtime.py", "__init__.py"):
            continue
        roots = imported_roots(path)
        if roots & {"torch", "transformer"}:
            assert "from . import runtime" in path.read_text(encoding="utf-8"), path.name


def test_home_page_does_not_load_torch():
    """The first page a fresh server shows draws without paying for the torch import."""
    import subprocess
    import sys

    code = ("import sys; from streamlit.testing.v1 import AppTest; "
            "at = AppTest.from_file('app.py').run(); "
            "assert not at.exception; print('torch' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.stdout.strip().splitlines()[-1] == "False", result.stdout + result.stderr
