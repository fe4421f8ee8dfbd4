"""The charts' text alternatives (ui/chart_description.js), under Node's own test runner: tests/js/chart_description.test.js."""

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_text_alternatives_say_what_each_chart_holds():
    node = shutil.which("node")
    assert node, "Node.js runs the browser's own code (scripts/test.sh installs it)"
    done = subprocess.run(
        [node, "--test", str(ROOT / "tests" / "js" / "chart_description.test.js")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "# pass 7" in done.stdout
