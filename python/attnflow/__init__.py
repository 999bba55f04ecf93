"""attnflow from Python: simulate, diagnose, check, report, prove, hunt and certify equilibria,
numpy in and out. Each function runs the library behind the command of the same name — the same
configs, statements and outputs as the command line (docs/python.md).

Configs and statements are dicts with the JSON files' fields, or paths to such files. A numpy
array or number is accepted wherever the JSON takes numbers (points, weights) and is recorded as
17-digit decimals, so a numpy input and the file holding those decimals give the same output.
Bad input raises attnflow.InputError (a ValueError) with the command line's one-line message.
"""
import json
import os
import tempfile

import numpy as np

from . import _core
from ._core import InputError

__version__ = _core.version
__all__ = ["InputError", "Trajectory", "simulate", "load", "diagnose", "check", "report", "prove", "equilibrium",
           "hunt", "catalogue"]


def _decimal(x):
    return format(float(x), ".17g")


def _plain(value):
    """value with numpy arrays and scalars as JSON values: floats as 17-digit decimal strings."""
    if isinstance(value, np.ndarray):
        return _floats(value) if value.dtype.kind in "fc" else _plain(value.tolist())
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.floating):
        return _decimal(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def _floats(a):
    if np.iscomplexobj(a):
        raise InputError("a complex array: attnflow reads real numbers")
    if a.ndim == 0:
        return _decimal(a)
    return [_floats(row) for row in a]


def _text(config_or_path):
    """The JSON text of a config or statement given as a dict or as a path to a file."""
    if isinstance(config_or_path, (str, os.PathLike)):
        with open(config_or_path, "r", encoding="utf-8") as f:
            return f.read()
    if not isinstance(config_or_path, dict):
        raise InputError("a config or statement is a dict or a path to a JSON file")
    return json.dumps(_plain(config_or_path))


def _write_atomically(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class Trajectory:
    """A simulated run: t (samples,) and x (samples, n, d) as float64; error_estimate (the largest
    deviation from a 100x tighter run, or None), stats, precision, config; above double also
    x_decimal (the decimal strings) and x_mp() (mpmath matrices, when mpmath is importable).

    A run from simulate() holds its samples once, in x (and typed in the library until the
    Trajectory goes); trajectory.json is produced only when asked for: save(), diagnose(), data."""

    def __init__(self, t, x, header, run=None, text=None, csv=None, config=None):
        self._run, self._file_text, self._csv = run, text, csv
        self.t, self.x = t, x
        self.header = header
        self.config = config
        self.error_estimate = header.get("error_estimate")
        self.stats = header.get("stats")
        self.precision = header.get("precision")

    @property
    def _json_text(self):
        """trajectory.json's text (made on demand for a run, not kept)."""
        return self._file_text if self._run is None else self._run.files()[0]

    @property
    def data(self):
        """trajectory.json as a dict (parsed on demand: it holds every sample again)."""
        return json.loads(self._json_text)

    @property
    def x_decimal(self):
        """Above double, the samples' decimal strings; None in double."""
        if self._run is not None:
            return self._run.x_decimal()
        x = json.loads(self._file_text)["x"]
        return x if x and x[0] and isinstance(x[0][0][0], str) else None

    def x_mp(self):
        """The samples as mpmath matrices at the run's precision (strings read exactly)."""
        decimals = self.x_decimal
        if decimals is None:
            raise InputError("x_mp: the run is in double; use x")
        import mpmath
        return [mpmath.matrix(sample) for sample in decimals]

    def save(self, directory):
        """DIR/trajectory.json and DIR/trajectory.csv, byte for byte what `attnflow simulate` writes."""
        text, csv = self._run.files() if self._run is not None else (self._file_text, self._csv)
        _write_atomically(os.path.join(directory, "trajectory.json"), text)
        if csv is not None:
            _write_atomically(os.path.join(directory, "trajectory.csv"), csv)

    def __repr__(self):
        return "Trajectory(n={}, d={}, samples={}, precision={!r}, error_estimate={})".format(
            self.header.get("n"), self.header.get("d"), len(self.t), self.precision, self.error_estimate)


class _Progress:
    """Progress of a long call, as a tqdm bar when tqdm is importable, else one line on stderr
    rewritten in place (on a terminal or in a notebook; a log file gets none). Called by the
    library's waiting thread as (done, total, fraction, label)."""

    def __init__(self, unit):
        import sys
        self.unit, self.bar, self.shown, self.width = unit, None, False, 0
        self.visible = sys.stderr.isatty() or "ipykernel" in sys.modules
        try:
            import tqdm
            self.tqdm = tqdm.tqdm
        except ImportError:
            self.tqdm = None

    def __call__(self, done, total, fraction, label):
        if not self.visible:
            return
        if self.tqdm is not None:
            if self.bar is None:
                self.bar = self.tqdm(total=max(total, 1), unit=self.unit, leave=False)
            self.bar.n = done
            self.bar.set_postfix_str("{} {:.0%}".format(label, fraction), refresh=True)
            return
        import sys
        line = "attnflow: {} {}/{} ({} {:.0%})".format(self.unit, done, total, label, fraction)
        sys.stderr.write("\r" + line.ljust(self.width))
        sys.stderr.flush()
        self.width, self.shown = max(self.width, len(line)), True

    def close(self):
        if self.bar is not None:
            self.bar.close()
        elif self.shown:
            import sys
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()


def _with_progress(progress, unit, call):
    """call(report) with report a _Progress (progress=True) or None (progress=False)."""
    if not progress:
        return call(None)
    p = _Progress(unit)
    try:
        return call(p)
    finally:
        p.close()


def simulate(config, progress=True):
    """Integrates a config (dict or path) as `attnflow simulate` does → Trajectory. Ctrl-C stops it
    at the next step (KeyboardInterrupt); progress=False shows no progress."""
    run = _with_progress(progress, "run", lambda report: _core.simulate(_text(config), report))
    return Trajectory(run.t(), run.x(), json.loads(run.header()), run=run,
                      config=config if isinstance(config, dict) else json.loads(_text(config)))


def load(path):
    """A Trajectory from a trajectory.json (or the directory holding one)."""
    if os.path.isdir(path):
        path = os.path.join(path, "trajectory.json")
    with open(path, "r", encoding="utf-8") as f:
        text = f.read()
    data = json.loads(text)
    csv_path = os.path.join(os.path.dirname(path), "trajectory.csv")
    csv = None
    if os.path.exists(csv_path):
        with open(csv_path, "r", encoding="utf-8") as f:
            csv = f.read()
    t = np.array([float(v) for v in data["t"]], dtype=np.float64)
    x = np.array([[[float(v) for v in row] for row in sample] for sample in data["x"]], dtype=np.float64)
    header = {k: v for k, v in data.items() if k not in ("t", "x")}
    return Trajectory(t, x, header, text=text, csv=csv)


def diagnose(trajectory, what=(), delta=1e-6):
    """The diagnostics of `attnflow diagnose` (clusters, pairwise, energy, attention, hull,
    hemisphere, hyperplanes, lyapunov) of a Trajectory → dict."""
    text = trajectory._json_text if isinstance(trajectory, Trajectory) else _text(trajectory)
    return json.loads(_core.diagnose(text, list(what), float(delta)))


def check(suite=None, statement=None, only=(), jobs=0, seed=None, out=None, observables=None, progress=True):
    """Runs a suite (a name or a path) or statements (dicts or paths) as `attnflow check` does and
    returns its results (the dict of results.json), written to `out` (a temporary directory when
    None).

    observables: {NAME: f} for statements that name {"observable": "py:NAME"}; f maps a sample's
    tokens, an (n, d) float64 array, to a number (with f.precision = "mp", above double, an mpmath
    matrix at the run's digits). Its error at each sample is measured against the run's 100x
    tighter twin (|f(x) - f(x_twin)| plus f's own rounding), and the same tolerances, verdicts and
    confirmation apply as to the registry's observables. Ctrl-C stops the check before its next
    instance (KeyboardInterrupt; results.json keeps what finished)."""
    if (suite is None) == (statement is None):
        raise InputError("check: give suite= or statement= (one of them)")
    functions = dict(observables or {})
    with tempfile.TemporaryDirectory(prefix="attnflow-") as scratch:
        paths = []
        if statement is not None:
            items = statement if isinstance(statement, (list, tuple)) else [statement]
            for k, item in enumerate(items):
                if isinstance(item, dict):
                    p = os.path.join(scratch, "statement-{}.json".format(k))
                    with open(p, "w", encoding="utf-8") as f:
                        f.write(_text(item))
                    paths.append(p)
                else:
                    paths.append(os.fspath(item))
        directory = out if out is not None else os.path.join(scratch, "check")
        r = json.loads(_with_progress(progress, "check", lambda report: _core.check_suite(
            suite or "quick", paths, list(only), directory, int(jobs), seed, functions, report)))
    return r["results"]


def report(results, out, pdf=True):
    """report.tex (and report.pdf when `pdf` and LaTeX is installed) of a results dict in `out`."""
    return json.loads(_core.report(json.dumps(results), os.fspath(out), bool(pdf)))


def prove(config):
    """`attnflow prove`'s certificate (a dict) for a config (dict or path)."""
    return json.loads(_core.prove(_text(config)))


def equilibrium(config):
    """`attnflow equilibrium`'s certificate (a dict), or {"proved": False, "reason": ...}."""
    return json.loads(_core.equilibrium(_text(config)))


def hunt(statement, budget=0, seed=1, observables=None, progress=True):
    """`attnflow hunt` on a statement with a "search" block → (hunt dict, counterexample statement
    dict or None). observables: as for check."""
    functions = dict(observables or {})
    h, c = _with_progress(progress, "evaluation", lambda report: _core.hunt(
        _text(statement), int(budget), int(seed), functions, report))
    return json.loads(h), json.loads(c)


def catalogue():
    """The catalogue's checks: a list of {id, kind, source, summary}."""
    return json.loads(_core.catalogue())
