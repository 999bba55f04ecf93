"""[B] Thm 6.8 from Python: from a pairwise orthogonal start every inner product follows the
gamma ODE. The ODE is solved independently (mpmath's Taylor-series odefun at 25 digits), and the
simulated inner products must agree within the run's own measured error."""
import numpy as np

import attnflow


def gamma_sa(beta, n, times):
    import mpmath

    mpmath.mp.dps = 25
    b = mpmath.mpf(beta)
    g = mpmath.odefun(lambda t, y: 2 * mpmath.exp(b * y) * (1 - y) * ((n - 1) * y + 1) /
                      (mpmath.exp(b) + (n - 1) * mpmath.exp(b * y)), 0, 0)
    return np.array([float(g(mpmath.mpf(float(t)))) for t in times])


def test_an_orthogonal_start_follows_the_gamma_ode():
    n, d, beta = 4, 6, 1.5
    tr = attnflow.simulate({"model": "sa-sphere", "n": n, "d": d, "beta": beta, "Q": "identity", "K": "identity",
                            "V": "identity", "init": {"kind": "orthogonal", "seed": 7},
                            "time": {"t_end": 4, "samples": 41}, "method": "dopri5", "rtol": 1e-11,
                            "atol": 1e-13, "verify": True}, progress=False)
    gram = np.einsum("sik,sjk->sij", tr.x, tr.x)
    off = gram[:, ~np.eye(n, dtype=bool)]  # (samples, n(n-1)) inner products
    deviation = np.max(np.abs(off - gamma_sa(beta, n, tr.t)[:, None]))
    # |<x_i, x_j> error| <= 2 sqrt(d) max|x| (per-coordinate error) + rounding.
    bound = 2 * np.sqrt(d) * tr.error_estimate + 1e-14
    assert tr.error_estimate < 1e-8
    assert deviation <= bound, (deviation, bound)
    # The curve moves: gamma rises from 0 toward 1, so agreement is not agreement at a constant.
    assert off[0].max() < 1e-14 and off[-1].min() > 0.5
