#!/usr/bin/env bash
# Installs the test tools (a Chromium for the browser tests, Redis and nginx included), runs the linter and the
# formatter's check, then the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# Compiled modules are kept (in __pycache__, which git ignores), where the environment would have Python compile them
# again in every process: the suite's workers, each app server the browser tests start, and each subprocess a
# test runs then read the project's compiled code (and pytest its rewritten tests) instead of compiling it each.
unset PYTHONDONTWRITEBYTECODE

python -m pip install --quiet --disable-pip-version-check --root-user-action=ignore -r requirements-dev.txt

# A browser for tests/e2e: Debian's Chromium where apt is available (root), otherwise
# Playwright's own download. CHROMIUM_PATH, if set, names a browser already installed.
if [ -z "${CHROMIUM_PATH:-}" ] && [ ! -x /usr/bin/chromium ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    python -m playwright install chromium
  fi
fi

# Redis and nginx (and Node.js) for the tests of several app servers sharing their rooms (testing/redis_server.py,
# testing/balancer.py): Debian's packages where apt is available (root); they run as the test's own
# processes on free local ports, not as system services.
missing_servers=()
command -v redis-server >/dev/null 2>&1 || missing_servers+=(redis-server)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing_servers+=(nginx)
# Node.js runs the browser's own checks under its test runner (tests/js/, from tests/test_figure_check.py).
command -v node >/dev/null 2>&1 || missing_servers+=(nodejs)
if [ "${#missing_servers[@]}" -gt 0 ] && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing_servers[@]}" >/dev/null
fi

# The linter and the formatter first (pyproject.toml): pyflakes, pycodestyle and bugbear over the whole tree,
# and every file as the formatter writes it.
python -m ruff check --no-cache .
python -m ruff format --check --no-cache .

# The suite on two workers, one a core (pytest-xdist; tests/conftest.py keeps a file's tests together and the
# browser tests in one group, and orders the groups: --no-loadscope-reorder keeps that order), then the tests that
# time themselves against a budget, alone. Each run lists its slowest tests (docs/performance.md,
# "The suite"); a run that the arguments leave empty is no failure.
either_passed_or_empty() {
  local status=0
  "$@" || status=$?
  [ "$status" -eq 0 ] || [ "$status" -eq 5 ] || exit "$status"
}
either_passed_or_empty python -m pytest -q -p no:cacheprovider -n 2 --dist loadgroup --no-loadscope-reorder -m "not serial" --durations=20 tests "$@"
either_passed_or_empty python -m pytest -q -p no:cacheprovider -m serial --durations=5 tests "$@"
