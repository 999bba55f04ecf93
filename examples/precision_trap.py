"""The precision trap (THEORY.md; [A]'s remark): d = n = 2, V = Q = K = I, z(0) = (1, +-eps) in the
rescaled model. The half-gap b(t) between the two tokens freezes at a positive limit of order
eps exp(-1/(2 eps^2)): two clusters, not one. For eps = 0.12 the gap 2b ends near 2e-15, below
the resolution of double precision on tokens of norm 1 (16 eps = 3.6e-15): in double the two
tokens cannot be told apart, however accurate the run; at 60 digits they can. This script runs
both and plots b(t) against each precision's resolution.

    ./attnflow python examples/precision_trap.py [--out DIR] [--eps 0.12]

Writes DIR/precision_trap.png and prints b at the end of each run with attnflow's own reading
of the clusters (diagnose): the groups distinguishable at the run's precision, and its floor."""
import argparse
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import attnflow  # noqa: E402


def config(eps, t_end, precision, rtol):
    return {"model": "sa-rescaled", "n": 2, "d": 2, "beta": 1, "Q": "identity", "K": "identity", "V": "identity",
            "init": {"kind": "explicit", "points": [["1", eps], ["1", "-" + eps]]},
            "time": {"t_end": t_end, "samples": 201}, "method": "dopri5", "rtol": rtol, "atol": "1e-60",
            "precision": precision, "verify": False}


def half_gap(tr):
    """b(t) = |z_1,2 - z_2,2| / 2, from the decimals above double."""
    decimals = tr.x_decimal
    if decimals is not None:
        import mpmath

        return np.array([float(abs(mpmath.mpf(s[0][1]) - mpmath.mpf(s[1][1])) / 2) for s in decimals])
    return np.abs(tr.x[:, 0, 1] - tr.x[:, 1, 1]) / 2


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="out/examples")
    parser.add_argument("--eps", default="0.12", help="the start's half-gap, a decimal string")
    args = parser.parse_args()

    eps = float(args.eps)
    t_end = math.ceil(1 / (2 * eps * eps) + 15)  # well past the freeze
    runs = {"double": attnflow.simulate(config(args.eps, t_end, "double", "1e-12"), progress=False),
            "60 digits": attnflow.simulate(config(args.eps, t_end, {"digits": 60}, "1e-14"), progress=False)}
    print("predicted limit of b: of order eps exp(-1/(2 eps^2)) = {:.3g}".format(eps * math.exp(-1 / (2 * eps ** 2))))
    os.makedirs(args.out, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, tr in runs.items():
        b = half_gap(tr)
        final = attnflow.diagnose(tr, what=["clusters"], delta=1e-6)["clusters"]["final"]
        floor = float(final["floor"]["value"])
        print("{:9s}: 2b(T) = {:.4g}; resolution floor {:.3g}: {} distinguishable group(s)".format(
            name, 2 * b[-1], floor, final["distinguishable_groups"]))
        line, = ax.semilogy(tr.t, 2 * b, label="2b(t), " + name)
        ax.axhline(floor, color=line.get_color(), ls=":", label="resolution, " + name)
    ax.set_xlabel("t")
    ax.set_ylabel("gap 2b(t)")
    ax.set_title("two tokens, eps = {}".format(args.eps))
    ax.legend()
    path = os.path.join(args.out, "precision_trap.png")
    fig.savefig(path, dpi=120, bbox_inches="tight")
    print("wrote", path)


if __name__ == "__main__":
    main()
