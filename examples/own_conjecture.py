"""A conjecture of one's own, stated in Python and checked like the catalogue's: [A] Thm 4.1 says
the rescaled tokens z = e^{-tV} x approach at most three parallel hyperplanes when V's top
eigenvalue is simple and strictly dominant (lambda_1 > |lambda_2|). With V = diag(-1, ..., -1, 1)
it is simple but not strictly dominant (|lambda_2| = lambda_1 = 1); conjecture: the last
coordinates of the rescaled tokens still end on at most three levels. The observable is a numpy function of each sample's tokens ("py:NAME"):
attnflow measures its error against the run's 100x tighter twin, applies the same tolerances,
verdicts and confirmation as to its own observables, runs the negative control, and writes the
LaTeX report.

    ./attnflow python examples/own_conjecture.py [--out DIR] [--instances 4]

Prints the verdict and writes DIR/results.json and DIR/report/report.tex (and report.pdf when
LaTeX is installed and --pdf is given)."""
import argparse
import os

import numpy as np

import attnflow


def spread_beyond_three_levels(x):
    """How far the last coordinates are from sitting on three levels: sorted, their total span
    minus the two largest gaps (the summed widths of the best three groups). 0 exactly when they
    take at most three values; Lipschitz in the tokens, so the run's error moves it little."""
    z = np.sort(x[:, -1])
    gaps = np.sort(np.diff(z))
    return float((z[-1] - z[0]) - gaps[-2:].sum()) if len(z) > 3 else 0.0


def statement(instances, d):
    return {
        "id": "own-three-levels",
        "kind": "conjecture",
        "source": "examples/own_conjecture.py",
        "statement": "With $V = \\mathrm{diag}(-1, \\dots, -1, 1)$ and $Q = K = I$ (top eigenvalue simple, "
                     "not strictly dominant), the last coordinates of the rescaled tokens end on at most "
                     "three levels.",
        "model": {"model": "sa-rescaled", "beta": 1, "Q": "identity", "K": "identity",
                  "V": {"diag": [-1] * (d - 1) + [1]}, "method": "dopri5", "rtol": 1e-10, "atol": 1e-12},
        "ensemble": {"instances": instances, "n": 8, "d": d, "start": "uniform-cube"},
        "horizon": {"t_end": 8, "samples": 81, "extend": {"factor": 2, "cap": 4}},
        "conclusion": [{"observable": "py:three_levels", "tends_to": 0}],
        "controls": [{"description": "V = diag(1, ..., 1, -1): the last direction repels, no levels form",
                      "override": {"model": {"V": {"diag": [1] * (d - 1) + [-1]}}}, "expected": "violated"}],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="out/examples/own-conjecture")
    parser.add_argument("--instances", type=int, default=4)
    parser.add_argument("--pdf", action="store_true")
    args = parser.parse_args()

    results = attnflow.check(statement=statement(args.instances, 3), out=args.out,
                             observables={"three_levels": spread_beyond_three_levels})
    check = results["checks"][0]
    print("verdict:", check["verdict"], "-", check["key_number"])
    for control in check["controls"]:
        print("control:", control["description"], "->", control["verdict"])
    report = attnflow.report(results, os.path.join(args.out, "report"), pdf=args.pdf)
    print("wrote", report["tex"])


if __name__ == "__main__":
    main()
