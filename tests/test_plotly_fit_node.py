"""The chart fitting's JavaScript (ui/plotly_fit/) under Node's own test runner: tests/js/plotly_fit.test.js, on
the script as the browser gets it (``ui.plotly_in_place.fit_script``)."""

import shutil
import subprocess
from pathlib import Path

from ui.plotly_in_place import fit_script

ROOT = Path(__file__).resolve().parent.parent


def test_the_fitting_scripts_pass_their_node_tests(tmp_path):
    node = shutil.which("node")
    assert node, "Node.js runs the browser's code under test (scripts/test.sh installs it)"
    script = tmp_path / "plotly_fit.js"
    script.write_text(fit_script(), encoding="utf-8")
    done = subprocess.run(
        [node, "--test", str(ROOT / "tests" / "js" / "plotly_fit.test.js")],
        env={"PLOTLY_FIT": str(script)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
