"""Ctrl-C during a long call: KeyboardInterrupt in the caller, soon, and nothing half-written.
Each call runs in a child interpreter that is sent SIGINT once the call is under way."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHILD = r"""
import sys, time, attnflow
call = sys.argv[1]
print("started", flush=True)
t0 = time.monotonic()
try:
    if call == "simulate":
        attnflow.simulate({"model": "sa-sphere", "n": 48, "d": 8, "beta": 1, "Q": "identity", "K": "identity",
                           "V": "identity", "init": {"kind": "uniform-sphere", "seed": 1},
                           "time": {"t_end": 100000, "samples": 11}, "method": "dopri5", "rtol": 1e-13,
                           "atol": 1e-15}, progress=False)
    else:
        import json
        s = json.load(open(sys.argv[3]))
        s["ensemble"]["instances"] = 400
        attnflow.check(statement=s, out=sys.argv[2], jobs=1, progress=False)
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted after {:.1f} s".format(time.monotonic() - t0), flush=True)
"""


def interrupt(call, *args):
    env = dict(os.environ)
    proc = subprocess.Popen([sys.executable, "-c", CHILD, call, *args], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout.readline().strip() == "started"
    time.sleep(1.5)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    return proc.returncode, out.strip(), time.monotonic() - sent


def test_ctrl_c_stops_a_simulation_at_its_next_step():
    code, out, after = interrupt("simulate")
    assert code == 0 and out.startswith("interrupted"), out
    assert after < 5


def test_ctrl_c_stops_a_check_and_keeps_its_results_whole():
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = os.path.join(tmp, "check")
        code, out, after = interrupt("check", out_dir, os.path.join(ROOT, "checks/statements/hemisphere-collapse.json"))
        assert code == 0 and out.startswith("interrupted"), out
        assert after < 10
        # Whatever was written is whole JSON (written under a temporary name, then renamed), and
        # no temporary file is left behind.
        for name in os.listdir(out_dir) if os.path.isdir(out_dir) else []:
            assert not name.startswith(".tmp"), name
            if name.endswith(".json"):
                with open(os.path.join(out_dir, name)) as f:
                    json.load(f)
