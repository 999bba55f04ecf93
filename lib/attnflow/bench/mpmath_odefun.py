#!/usr/bin/env python3
"""The other side of the bench key mp30_vs_mpmath: mpmath's Taylor ODE solver,
odefun, on the same problem attnflow integrates, measured in the same run.

Usage: mpmath_odefun.py IN.json OUT.json
IN: {"digits", "tol", "beta", "n", "d", "t_end", "x0": [n*d decimal strings, token-major]}.
The field is sa-sphere with Q = K = V = I, written as attnflow's model defines it:
  dx_i/dt = y_i - <x_i, y_i> x_i / |x_i|^2,  y_i = sum_j softmax_j(beta <x_i, x_j>) x_j.
OUT: {"seconds": time of odefun and its evaluation at t_end (not the interpreter's start),
      "x": the state at t_end as decimal strings}."""
import json
import os
import sys
import time

from mpmath import mp, mpf, odefun, exp


def main():
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    mp.dps = int(spec["digits"])
    n, d = int(spec["n"]), int(spec["d"])
    beta = mpf(spec["beta"])
    x0 = [mpf(v) for v in spec["x0"]]

    def field(_t, x):
        tokens = [x[i * d:(i + 1) * d] for i in range(n)]
        out = []
        for i in range(n):
            logits = [beta * mp.fdot(tokens[i], tokens[j]) for j in range(n)]
            top = max(logits)
            weights = [exp(v - top) for v in logits]
            z = mp.fsum(weights)
            y = [mp.fsum(weights[j] * tokens[j][c] for j in range(n)) / z for c in range(d)]
            ip = mp.fdot(tokens[i], y) / mp.fdot(tokens[i], tokens[i])
            out.extend(y[c] - ip * tokens[i][c] for c in range(d))
        return out

    start = time.perf_counter()
    solution = odefun(field, 0, x0, tol=mpf(spec["tol"]))
    x = solution(mpf(spec["t_end"]))
    seconds = time.perf_counter() - start
    tmp = sys.argv[2] + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"seconds": seconds, "x": [mp.nstr(v, mp.dps + 5) for v in x]}, f)
    os.replace(tmp, sys.argv[2])


if __name__ == "__main__":
    main()
