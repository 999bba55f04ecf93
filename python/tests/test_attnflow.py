"""python/attnflow: the Python API runs what the command line runs. A numpy input and the file of
its 17-digit decimals give the same run; Trajectory.save writes what `attnflow simulate` writes;
check, hunt, prove and equilibrium return the commands' own results; bad input is an InputError
(a ValueError) of one line. Run by ctest as python_api (PYTHONPATH=build/<preset>/python)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import attnflow

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("ATTNFLOW_BIN", os.path.join(ROOT, "build", "release", "attnflow"))

POINTS = np.array([[1.0, 0.2, 0.1], [0.3, 1.0, -0.2], [-0.1, 0.4, 1.0], [0.5, 0.5, 0.5]])


def sphere_config(points):
    return {"model": "sa-sphere", "n": 4, "d": 3, "beta": 1, "Q": "identity", "K": "identity", "V": "identity",
            "init": {"kind": "explicit", "points": points}, "time": {"t_end": 2, "samples": 21},
            "method": "dopri5", "rtol": 1e-10, "atol": 1e-12, "verify": True}


def without_provenance(text):
    j = json.loads(text)
    j.pop("provenance", None)
    return j


class Simulate(unittest.TestCase):
    def test_numpy_in_and_out(self):
        tr = attnflow.simulate(sphere_config(POINTS))
        self.assertEqual(tr.t.shape, (21,))
        self.assertEqual(tr.x.shape, (21, 4, 3))
        self.assertEqual(tr.x.dtype, np.float64)
        self.assertEqual(tr.t[-1], 2.0)
        # The error is measured (a 100x tighter run), and the run is on the sphere up to that error:
        # dopri5 does not project, and a token whose every coordinate is within error_estimate of
        # the tighter run's is within sqrt(d) times it in norm (the tighter run drifts 1 % as far).
        self.assertIsInstance(tr.error_estimate, float)
        self.assertLess(tr.error_estimate, 1e-8)
        drift = np.max(np.abs(np.linalg.norm(tr.x, axis=2) - 1))
        self.assertLessEqual(drift, 1.02 * np.sqrt(3) * tr.error_estimate)
        self.assertEqual(tr.precision, "double")

    def test_a_numpy_input_and_its_decimal_file_are_one_run(self):
        decimals = [[format(v, ".17g") for v in row] for row in POINTS]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "config.json")
            with open(path, "w") as f:
                json.dump(sphere_config(decimals), f)
            from_file = attnflow.simulate(path)
            from_numpy = attnflow.simulate(sphere_config(POINTS))
            self.assertTrue(np.array_equal(from_file.x, from_numpy.x))
            # save() writes what the command writes (provenance aside: it dates the run).
            from_numpy.save(os.path.join(tmp, "py"))
            subprocess.run([BIN, "simulate", "--config", path, "--out", os.path.join(tmp, "cli")], check=True,
                           stdout=subprocess.DEVNULL)
            def read(*parts):
                with open(os.path.join(tmp, *parts)) as f:
                    return f.read()
            self.assertEqual(without_provenance(read("py", "trajectory.json")),
                             without_provenance(read("cli", "trajectory.json")))
            self.assertEqual(read("py", "trajectory.csv"), read("cli", "trajectory.csv"))
            again = attnflow.load(os.path.join(tmp, "py"))
            self.assertTrue(np.array_equal(again.x, from_numpy.x))
            self.assertTrue(np.array_equal(again.t, from_numpy.t))

    def test_above_double_the_decimals_are_kept(self):
        c = sphere_config(POINTS)
        c["precision"] = {"digits": 30}
        c["verify"] = False
        tr = attnflow.simulate(c)
        self.assertIsNotNone(tr.x_decimal)
        self.assertIsInstance(tr.x_decimal[-1][0][0], str)
        self.assertAlmostEqual(float(tr.x_decimal[-1][0][0]), tr.x[-1, 0, 0], places=15)
        try:
            import mpmath  # noqa: F401
        except ImportError:
            return
        m = tr.x_mp()[-1]
        self.assertEqual(m.rows, 4)

    def test_bad_input_is_one_line(self):
        bad = sphere_config(POINTS)
        bad["beta"] = "one"
        with self.assertRaises(attnflow.InputError) as e:
            attnflow.simulate(bad)
        self.assertIsInstance(e.exception, ValueError)
        self.assertNotIn("\n", str(e.exception))
        self.assertIn("beta", str(e.exception))
        with self.assertRaises(attnflow.InputError):
            attnflow.simulate(sphere_config(np.array([[1 + 1j, 0, 0]] * 4)))

    def test_diagnose(self):
        d = attnflow.diagnose(attnflow.simulate(sphere_config(POINTS)), what=["energy"])
        self.assertIn("energy", d)


class Commands(unittest.TestCase):
    def test_check_a_statement_given_as_a_dict(self):
        with open(os.path.join(ROOT, "checks/statements/hemisphere-collapse.json")) as f:
            s = json.load(f)
        s["ensemble"]["instances"] = 1
        s["controls"] = s["controls"][:1]
        results = attnflow.check(statement=s, seed=3)
        self.assertEqual(len(results["checks"]), 1)
        self.assertEqual(results["checks"][0]["verdict"], "holds")
        self.assertEqual(results["checks"][0]["controls"][0]["verdict"], "violated")

    def test_hunt_refutes_the_planted_claim(self):
        h, c = attnflow.hunt(os.path.join(ROOT, "checks/hunts/planted-antipodal-pair.json"), budget=40)
        self.assertTrue(h["found"])
        self.assertEqual((c["ensemble"]["n"], c["ensemble"]["d"]), (2, 2))
        h2, c2 = attnflow.hunt(os.path.join(ROOT, "checks/hunts/energy-monotone.json"), budget=5)
        self.assertFalse(h2["found"])
        self.assertIsNone(c2)

    def test_equilibrium_and_prove(self):
        cert = attnflow.equilibrium(os.path.join(ROOT, "proofs/equilibria/triangle-usa-beta-minus-1.json"))
        self.assertEqual(cert["stability"], "stable")
        proof = attnflow.prove(os.path.join(ROOT, "proofs/instances/prove4.json"))
        self.assertEqual(proof["outcome"], "proved")

    def test_catalogue(self):
        ids = [e["id"] for e in attnflow.catalogue()]
        self.assertIn("B-6.4", ids)


if __name__ == "__main__":
    result = unittest.main(argv=[sys.argv[0], "-v"], exit=False).result
    sys.exit(0 if result.wasSuccessful() else 1)
