"""The layers of docs/architecture.md: pages -> ui -> (lessons, analysis, viz, transformer), analysis -> transformer."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = {
    "transformer": {"streamlit", "plotly", "pandas", "ui", "viz", "pages", "analysis"},
    "analysis": {"streamlit", "plotly", "ui", "viz", "pages"},
    "viz": {"streamlit", "torch", "transformer", "ui", "pages", "analysis"},
    "ui": {"pages"},
    # the course: its lessons, views, questions and their checks, as data (ui draws them)
    "lessons": {"streamlit", "plotly", "pandas", "torch", "ui", "pages", "viz", "analysis", "transformer", "classroom"},
    "classroom": {"streamlit", "ui", "pages", "viz", "analysis", "transformer", "torch", "plotly"},  # web and threads
    "testing": {"ui", "pages", "analysis", "viz", "transformer", "tests", "bench"},  # servers and browsers only
}


def imported_modules(path: Path) -> set[str]:
    """Full dotted names of the absolute imports of a file (``from ui import x`` counts as ``ui.x``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


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


def test_the_benchmarks_share_servers_and_browsers_with_the_browser_tests_through_testing():
    for path in sorted((ROOT / "bench").glob("*.py")):
        assert not [name for name in imported_modules(path) if name.startswith("tests.e2e")], path.name


def test_no_user_html_escape_hatches():
    for folder in ("pages", "ui", "viz", "analysis"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            for hatch in ("unsafe_allow_html=True", "st.html(", "components.html("):
                assert hatch not in text, f"{path.relative_to(ROOT)} uses {hatch}"


def test_files_stay_small():
    folders = ("pages", "ui", "viz", "transformer", "analysis", "classroom", "lessons", "tests", "testing", "bench")
    for folder in folders:
        for path in (ROOT / folder).rglob("*.py"):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            assert lines <= 330, f"{path.relative_to(ROOT)} has {lines} lines; split it"
    for path in [*(ROOT / "ui").rglob("*.js"), *(ROOT / "bench").rglob("*.js")]:  # the browser's side: the same cap
        lines = len(path.read_text(encoding="utf-8").splitlines())
        assert lines <= 330, f"{path.relative_to(ROOT)} has {lines} lines; split it"


def test_every_page_goes_through_the_navigation():
    """A page must call ui.routing.require_navigation() (see ui/routing.py) before anything else."""
    scripts = sorted((ROOT / "pages").glob("*/page.py"))
    assert scripts
    for path in scripts:
        assert "\nrequire_navigation()\n" in path.read_text(encoding="utf-8"), path.parent.name


def test_pages_are_folders_that_never_import_each_other():
    """pages/<name>/ holds page.py and that page's own sections; a page imports no other page's folder."""
    folders = {p.name for p in (ROOT / "pages").iterdir() if p.is_dir() and p.name != "__pycache__"}
    for address in (ROOT / "pages").glob("*.py"):  # only the first-request addresses of ui/routing.py
        assert address.stem in folders, f"{address.name}: a page is a folder pages/<name>/ with a page.py"
        body = ast.parse(address.read_text(encoding="utf-8")).body[1:]  # after the docstring
        assert [ast.unparse(node) for node in body] == [
            "from ui.routing import require_navigation",
            "require_navigation()",
        ], address.name
    for folder in sorted(p for p in (ROOT / "pages").iterdir() if p.is_dir() and p.name != "__pycache__"):
        assert (folder / "page.py").exists(), folder.name
        for path in folder.glob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pages"):
                    parts = node.module.split(".")
                    assert len(parts) > 1 and parts[1] == folder.name, f"{path.relative_to(ROOT)} imports {node.module}"


def test_ui_holds_only_parts_shared_by_several_pages():
    """Every ui module except the app-wide ones (runtime, routing, pages index, and what app.py draws around
    every page, with the ui modules those import) is used by two or more pages."""
    app_wide = {"__init__", "runtime", "routing", "pages_index"}
    around_every_page = {root.split(".")[1] for root in imported_modules(ROOT / "app.py") if root.startswith("ui.")}
    for name in list(around_every_page):
        if (ROOT / "ui" / name).is_dir():  # a package of app-wide parts (ui/rooms): all of it is app-wide
            continue
        text = (ROOT / "ui" / f"{name}.py").read_text(encoding="utf-8")
        around_every_page |= {
            line.split()[1].lstrip(".")
            for line in text.splitlines()
            if line.startswith("from .") and " import " in line
        }
    app_wide |= around_every_page
    users: dict[str, set[str]] = {}
    for path in (ROOT / "pages").rglob("*.py"):
        for root in imported_modules(path):
            if root.startswith("ui."):
                users.setdefault(root.split(".")[1], set()).add(path.parent.name)
    for path in sorted((ROOT / "ui").glob("*.py")):
        if path.stem in app_wide:
            continue
        used_by = set(users.get(path.stem, set()))
        for other in (ROOT / "ui").glob("*.py"):  # a shared part may be used through another shared part
            if f"from .{path.stem} import" in other.read_text(
                encoding="utf-8"
            ) or f"from ui.{path.stem} import" in other.read_text(encoding="utf-8"):
                used_by |= users.get(other.stem, set())
        assert len(used_by) >= 2, f"ui/{path.name} is used by {sorted(used_by)}: move it into that page's folder"


def project_imports(path: Path) -> set[Path]:
    """The project files a module imports when it is loaded (its module-level imports, absolute and relative,
    with the packages they pass through), e.g. ``from .models import x`` in ui/ gives ui/__init__.py and ui/models.py."""
    package = path.parent.relative_to(ROOT).parts
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            targets = [alias.name.split(".") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = (
                [*package[: len(package) - node.level + 1], *(node.module or "").split(".")]
                if node.level
                else node.module.split(".")
            )
            base = [part for part in base if part]
            targets = [[*base, alias.name] for alias in node.names]
        else:
            continue
        for parts in targets:
            for end in range(1, len(parts) + 1):
                for candidate in (
                    ROOT.joinpath(*parts[:end], "__init__.py"),
                    ROOT.joinpath(*parts[: end - 1], f"{parts[end - 1]}.py"),
                ):
                    if candidate.is_file():
                        found.add(candidate)
    return found


def loaded_with(path: Path) -> set[Path]:
    """The project files loading the module loads, directly or through the project modules it imports."""
    seen, todo = set(), [path]
    while todo:
        for imported in project_imports(todo.pop()) - seen:
            seen.add(imported)
            todo.append(imported)
    return seen


def loads_runtime(path: Path) -> bool:
    """True when loading the module loads ui/runtime.py first, directly or through the project modules it imports."""
    return ROOT / "ui" / "runtime.py" in loaded_with(path)


def test_project_imports_are_resolved_to_files():
    ui_models, forward = ROOT / "ui" / "models.py", ROOT / "ui" / "forward.py"
    assert ROOT / "ui" / "runtime.py" in project_imports(ui_models) and ui_models in project_imports(forward)
    assert loads_runtime(ROOT / "ui" / "model_picker.py") and not loads_runtime(ROOT / "lessons" / "catalogue.py")


def test_the_modules_of_ui_import_one_another_one_way():
    """No import cycle among the modules of ui/ (ui/rooms/ included): each can be read, and loaded, after the
    ones it uses. The chart of every page needs nothing of a class; ui/rooms/ builds on it."""
    modules = {path for path in (ROOT / "ui").rglob("*.py") if path.name != "__init__.py"}
    for path in sorted(modules):
        others = {imported for imported in project_imports(path) if imported in modules and imported != path}
        for other in others:
            assert path not in loaded_with(other), (
                f"{path.relative_to(ROOT)} and {other.relative_to(ROOT)} import each other"
            )
    assert not [path for path in loaded_with(ROOT / "ui" / "charts.py") if "rooms" in path.parts]


def test_ui_modules_set_torch_threads_before_using_torch():
    """Every ui or page module that uses torch loads ui/runtime.py (one torch thread) when it is loaded."""
    for path in sorted([*(ROOT / "ui").glob("*.py"), *(ROOT / "pages").rglob("*.py")]):
        if path.name in ("runtime.py", "__init__.py"):
            continue
        if imported_roots(path) & {"torch", "transformer"}:
            assert loads_runtime(path), f"{path.relative_to(ROOT)} uses torch without loading ui/runtime.py"


def test_home_page_does_not_load_torch():
    """The first page a fresh server shows draws without paying for the torch import."""
    import subprocess
    import sys

    code = (
        "import sys; from streamlit.testing.v1 import AppTest; "
        "at = AppTest.from_file('app.py').run(); "
        "assert not at.exception; print('torch' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.stdout.strip().splitlines()[-1] == "False", result.stdout + result.stderr


def test_every_browser_test_carries_the_e2e_marker():
    """``pytest -m "not e2e"`` (the quick loop) selects nothing in tests/e2e, and every test there is deselected."""
    import re
    import subprocess
    import sys

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            "not e2e",
            "tests/e2e",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 5, result.stdout + result.stderr  # 5: no test selected
    deselected = re.search(r"no tests collected \((\d+) deselected\)", result.stdout)
    assert deselected and int(deselected.group(1)) >= len(list((ROOT / "tests" / "e2e").glob("test_*.py")))


def imports_anywhere(path: Path) -> set[str]:
    """The modules of ``path``'s own package that it imports at any place (inside functions too), by file stem."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found |= {node.module.split(".")[0]} if node.module else {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(f"{path.parent.name}."):
            found.add(node.module.split(".")[1])
    return found - {path.stem}


@pytest.mark.parametrize("package", ["transformer", "analysis", "classroom", "viz"])
def test_no_two_modules_of_a_package_import_each_other_even_inside_a_function(package):
    """A cycle hidden in a function's import still ties two modules together: none in the packages."""
    modules = {path.stem: path for path in (ROOT / package).glob("*.py") if path.name != "__init__.py"}
    imported = {stem: imports_anywhere(path) & modules.keys() for stem, path in modules.items()}
    both_ways = sorted({tuple(sorted((a, b))) for a, uses in imported.items() for b in uses if a in imported[b]})
    assert both_ways == []
