"""The charts' text alternatives (ui/chart_description.js) and their numbers as tables and CSV (ui/chart_numbers.js),
under Node's own test runner: tests/js/chart_description.test.js and chart_numbers.test.js."""

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_node_tests(name: str) -> str:
    node = shutil.which("node")
    assert node, "Node.js runs the browser's own code (scripts/test.sh installs it)"
    done = subprocess.run(
        [node, "--test", str(ROOT / "tests" / "js" / name)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    return done.stdout


def test_the_text_alternatives_say_what_each_chart_holds():
    assert "# pass 7" in run_node_tests("chart_description.test.js")


def test_the_numbers_of_a_chart_are_tables_named_by_its_labels_and_csv():
    assert "# pass 8" in run_node_tests("chart_numbers.test.js")
