"""What every test module shares: the repository as the working folder and import root, and the fixtures several
modules use (a real Redis, models brought from folders, a saved checkpoint of each kind)."""

import collections
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.chdir(ROOT)


import pytest  # noqa: E402  (after the import root is set)
from streamlit import config as streamlit_config  # noqa: E402

# The shipped config keeps errors off the screen (ui/errors.py); the tests see each as it is.
streamlit_config.set_option("client.showErrorDetails", "full")

BROWSER_TESTS = ROOT / "tests" / "e2e"
if os.environ.get("PYTEST_XDIST_WORKER"):  # two workers on two cores (scripts/test.sh): one thread each
    import torch

    torch.set_num_threads(1)


def xdist_group(item) -> str:
    """The item's group: the browser tests' one group, the group its file names (test files that share what they
    read, collected once), else its file."""
    path = Path(item.path)
    if BROWSER_TESTS in path.parents:
        return "browser"
    named = item.get_closest_marker("xdist_group")
    return named.args[0] if named else str(path.relative_to(ROOT))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """For ``pytest -n 2 --dist loadgroup --no-loadscope-reorder`` (scripts/test.sh): a test file's tests go to one
    worker together, so its module fixtures are built once (and the files that share what they read, such as every
    figure the app draws, go together); the browser tests, which share one app server and one Chromium, go to one
    worker in one group. That group comes first, then the groups with a slow test, so that none is left running
    alone at the end, then the rest, the groups with the most tests first. (Two browser groups, one a worker, were
    no faster: the suite is bound by the two cores, and the browser tests' Chromium is most of their time.)"""
    groups = {item: xdist_group(item) for item in items}
    for item, group in groups.items():
        item.add_marker(pytest.mark.xdist_group(group))
    slow_groups = {group for item, group in groups.items() if item.get_closest_marker("slow")}
    tests_in = collections.Counter(groups.values())

    def order(item) -> tuple[int, int, str]:
        group = groups[item]
        if group == "browser":
            return 0, 0, group
        return 1 + (group not in slow_groups), -tests_in[group], group

    items.sort(key=order)


@pytest.fixture(scope="module")
def redis_server():
    """A real ``redis-server`` on a free local port for the module (the test fails, in CI, without one)."""
    from testing.installed import require
    from testing.redis_server import PROGRAM, redis_running

    require(PROGRAM)
    with redis_running() as server:
        yield server


@pytest.fixture
def running_redis(redis_server):
    """The module's Redis, running and empty; running again after the test whatever the test did to it."""
    import redis

    redis_server.start()
    client = redis.Redis.from_url(redis_server.url)
    try:
        client.flushall()
    finally:
        client.close()
    yield redis_server
    redis_server.start()


@pytest.fixture(scope="module")
def brought(tmp_path_factory):
    """A folder of model folders: a GPT-2 one that loads and one holding only a pickle (tests/byo_folders.py)."""
    from tests.byo_folders import folder_of_models

    root = tmp_path_factory.mktemp("models")
    return (root, *folder_of_models(root))


@pytest.fixture
def env(brought, tmp_path, monkeypatch):
    """``ATTENTION_LAB_MODELS`` names the folder of folders; the Hugging Face cache is an empty folder."""
    import ui.local_models

    monkeypatch.setenv("ATTENTION_LAB_MODELS", str(brought[0]))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    ui.local_models._listing.clear()
    yield brought
    ui.local_models._listing.clear()


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """{case: (model, path)}: one small model of each kind (tests/checkpoint_cases.py), each saved once."""
    from tests.checkpoint_cases import CASES, EXTRA, kind_of
    from transformer import build_model, save_checkpoint

    folder = tmp_path_factory.mktemp("checkpoints")
    result = {}
    for case, (config, tokenizer) in CASES.items():
        model = build_model(config, seed=7, kind=kind_of(case))
        save_checkpoint(model, folder / f"{case}.safetensors", {**EXTRA, "tokenizer": tokenizer})
        result[case] = model, folder / f"{case}.safetensors"
    return result
