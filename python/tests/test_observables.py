"""Statements whose observables are Python functions ("py:NAME"): the same runner, judge and
confirmation as the registry's observables, with the error measured against the run's tighter
twin. Run by pytest through ctest (python_api)."""
import copy
import json
import os

import numpy as np
import pytest

import attnflow

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def collapse_statement(observable):
    """[B] Thm 6.4 as data (checks/statements/hemisphere-collapse.json), one instance and the
    repulsive control, its D clause naming `observable`. (Its rate clause is left out: a rate fit's
    window starts where the values rise 1e4-fold above their tolerance, so two observables with
    different tolerances fit different windows of the same curve, whose local rate differs from
    the asymptotic 2 by O(D) ~ 1e-6 there, beyond the fit's confidence interval.)"""
    with open(os.path.join(ROOT, "checks/statements/hemisphere-collapse.json")) as f:
        s = json.load(f)
    s["ensemble"]["instances"] = 1
    s["conclusion"] = [{"observable": observable, "tends_to": 0}]
    return s


def one_minus_min_inner(x):
    """The registry's D, written in numpy: 1 - min over i != j of <x_i, x_j>."""
    g = x @ x.T
    np.fill_diagonal(g, np.inf)
    return 1.0 - g.min()


def run(statement, **kw):
    results = attnflow.check(statement=statement, seed=5, progress=False, **kw)
    return results["checks"][0]


def tolerances(result):
    """The tolerance of the clause's value at each sample (the figure's guide curve)."""
    figure = next(iter(result["figures"].values()))
    return np.array(figure["guides"][0]["y"])


def test_a_python_observable_gives_the_registrys_verdicts_and_errors():
    registry = run(collapse_statement("D"))
    python = run(collapse_statement("py:D"), observables={"D": one_minus_min_inner})
    assert python["verdict"] == registry["verdict"] == "holds"
    assert [c["verdict"] for c in python["controls"]] == [c["verdict"] for c in registry["controls"]] == ["violated"]
    reg = registry["evidence"]["instances"][0]["clauses"][0]
    py = python["evidence"]["instances"][0]["clauses"][0]
    # One function of the same tokens: the same distance at T, to the rounding of 1 - <x_i, x_j>.
    assert abs(py["distance_T"] - reg["distance_T"]) < 1e-15
    # The tolerance was measured, not assumed: positive at every sample, and within 10x of the
    # registry's (a sensitivity bound times the run's error estimate) at every sample.
    t_py, t_reg = tolerances(python), tolerances(registry)
    assert t_py.shape == t_reg.shape
    assert np.all(t_py > 0)
    assert np.all(t_py <= 10 * t_reg)


def test_the_error_is_measured_against_the_twin():
    # A function that amplifies its input's error a millionfold is given a tolerance a millionfold
    # wider wherever the run's error dominates: its value moves that much between the run and its
    # twin.
    s = collapse_statement("py:D")
    s["controls"] = []
    s["model"]["rtol"], s["model"]["atol"] = 1e-6, 1e-8  # the run's error, not rounding, dominates
    plain = tolerances(run(s, observables={"D": one_minus_min_inner}))
    loud = tolerances(run(s, observables={"D": lambda x: 1e6 * one_minus_min_inner(x)}))
    # After the start (exact in every run), the twin's difference dominates the rounding term...
    assert np.all(plain[1:] > 1e3 * plain[0])
    # ...and it is the function's own: a millionfold wider.
    assert np.allclose(loud[1:] / plain[1:], 1e6, rtol=1e-3)


def test_a_function_that_raises_is_one_line_naming_it():
    def broken(x):
        raise ZeroDivisionError("no")

    with pytest.raises(attnflow.InputError) as e:
        run(collapse_statement("py:D"), observables={"D": broken})
    assert "py:D" in str(e.value) and "ZeroDivisionError" in str(e.value)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), "text", "3.5", True, None])
def test_a_value_that_is_not_a_finite_number_is_one_line(value):
    with pytest.raises(attnflow.InputError) as e:
        run(collapse_statement("py:D"), observables={"D": lambda x: value})
    assert "py:D" in str(e.value)
    assert "\n" not in str(e.value)


def test_an_unknown_python_observable_is_bad_input():
    with pytest.raises(attnflow.InputError) as e:
        run(collapse_statement("py:D"))
    assert "py:D" in str(e.value)
    with pytest.raises(attnflow.InputError):
        run(collapse_statement("py:D"), observables={"D": 3})
    with pytest.raises(attnflow.InputError):
        run(collapse_statement("py:D-E"), observables={"D-E": one_minus_min_inner})


def test_the_function_sees_each_samples_tokens():
    seen = []

    def record(x):
        seen.append(np.array(x, copy=True))
        return one_minus_min_inner(x)

    s = collapse_statement("py:D")
    s["controls"] = []
    run(s, observables={"D": record})
    assert all(x.shape == (6, 3) and x.dtype == np.float64 for x in seen)
    assert all(np.allclose(np.linalg.norm(x, axis=1), 1, atol=1e-6) for x in seen)
    # Each sample of the run and of its twin (the start once: it carries no error).
    assert len(seen) >= 2 * 161 - 1


def test_above_double_an_mp_function_sees_mpmath_matrices():
    import mpmath

    seen = []

    def d_mp(x):
        seen.append(type(x))
        return 1 - min(mpmath.fsum(x[i, k] * x[j, k] for k in range(x.cols))
                       for i in range(x.rows) for j in range(x.rows) if i != j)

    d_mp.precision = "mp"
    s = collapse_statement("py:D")
    s["model"]["precision"] = {"digits": 30}
    s["model"]["rtol"], s["model"]["atol"] = "1e-20", "1e-22"
    s["horizon"] = {"t_end": 2, "samples": 5}
    s["conclusion"] = [{"observable": "py:D", "<=": 2}]
    s["controls"] = []
    result = run(s, observables={"D": d_mp})
    assert result["verdict"] == "holds"
    assert seen and all(t is mpmath.matrix for t in seen)


def test_a_check_started_inside_an_observable_is_refused_not_left_waiting():
    def nested(x):
        run(collapse_statement("py:D"), observables={"D": one_minus_min_inner})
        return one_minus_min_inner(x)

    with pytest.raises(attnflow.InputError) as e:
        run(collapse_statement("py:D"), observables={"D": nested})
    assert "py:D" in str(e.value)
