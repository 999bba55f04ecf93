"""The examples a researcher starts from (examples/) run headless (matplotlib's Agg) and write what
they say they write; each run small enough for CI."""
import os
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

EXAMPLES = [
    ("phase_diagram.py", ["--betas", "3", "--seeds", "1"], "phase_diagram.png"),
    ("precision_trap.py", [], "precision_trap.png"),
    ("own_conjecture.py", ["--instances", "2"], os.path.join("report", "report.tex")),
]


@pytest.mark.parametrize("script,args,output", EXAMPLES)
def test_the_example_runs_and_writes_its_output(script, args, output):
    pytest.importorskip("matplotlib")
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, MPLBACKEND="Agg")
        run = subprocess.run([sys.executable, os.path.join(ROOT, "examples", script), "--out", out, *args],
                             capture_output=True, text=True, env=env, timeout=600)
        assert run.returncode == 0, run.stderr
        assert os.path.getsize(os.path.join(out, output)) > 0
