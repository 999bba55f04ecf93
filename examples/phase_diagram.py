"""[B] Fig. 3, the phase diagram: the fraction F(t, beta) of token pairs with <x_i, x_j> > 1 - delta,
for random starts on the sphere in dimension d >= n (nearly pairwise orthogonal), against the curve
gamma_beta(t) = 1 - delta of [B] Thm 6.8 (the orthogonal start's inner product, solved here by RK4).

    ./attnflow python examples/phase_diagram.py [--out DIR]

Writes DIR/phase_diagram.png and prints, per beta, t_delta from the gamma curve beside the time
at which F crosses 1/2, with the pairs the runs' error leaves undecided (counted, never guessed)."""
import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import attnflow  # noqa: E402

N, D, DELTA = 16, 16, 1e-3


def gamma_crossing(beta, n, delta, h=1e-3):
    """The t at which gamma_beta(t) = 1 - delta (SA: gamma' = 2 e^{b g}(1 - g)((n-1) g + 1) /
    (e^b + (n-1) e^{b g}), gamma(0) = 0), by classical RK4 with step h and linear interpolation."""
    def f(g):
        return 2 * np.exp(beta * g) * (1 - g) * ((n - 1) * g + 1) / (np.exp(beta) + (n - 1) * np.exp(beta * g))

    t, g = 0.0, 0.0
    while True:
        k1 = f(g)
        k2 = f(g + h / 2 * k1)
        k3 = f(g + h / 2 * k2)
        k4 = f(g + h * k3)
        g_next = g + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        if g_next >= 1 - delta:
            return t + h * (1 - delta - g) / (g_next - g)
        t, g = t + h, g_next


def fractions(beta, seed, t_end, samples):
    """F at each sample of one run, and the number of pairs its error leaves undecided."""
    tr = attnflow.simulate({"model": "sa-sphere", "n": N, "d": D, "beta": beta, "Q": "identity", "K": "identity",
                            "V": "identity", "init": {"kind": "uniform-sphere", "seed": seed},
                            "time": {"t_end": t_end, "samples": samples}, "method": "dopri5", "rtol": 1e-9,
                            "atol": 1e-11, "verify": True}, progress=False)
    gram = np.einsum("sik,sjk->sij", tr.x, tr.x)[:, ~np.eye(N, dtype=bool)]
    # An inner product is off by at most 2 sqrt(d) times the per-coordinate error (|x| = 1).
    error = 2 * np.sqrt(D) * tr.error_estimate + 1e-14
    undecided = int(np.sum(np.abs(gram - (1 - DELTA)) <= error))
    return tr.t, np.mean(gram > 1 - DELTA, axis=1), undecided


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="out/examples")
    parser.add_argument("--betas", type=int, default=11, help="grid points in beta on [0.5, 5.5]")
    parser.add_argument("--seeds", type=int, default=2, help="random starts per beta")
    args = parser.parse_args()

    betas = np.linspace(0.5, 5.5, args.betas)
    t_end, samples = 16.0, 161
    F = np.zeros((len(betas), samples))
    print("beta   t_delta(gamma)   t(F = 1/2)   undecided pairs")
    for b, beta in enumerate(betas):
        undecided = 0
        for seed in range(1, args.seeds + 1):
            t, f, u = fractions(float(beta), seed, t_end, samples)
            F[b] += f / args.seeds
            undecided += u
        half = t[np.argmax(F[b] >= 0.5)] if np.any(F[b] >= 0.5) else float("nan")
        print("{:4.2f}   {:14.3f}   {:10.2f}   {:d}".format(beta, gamma_crossing(beta, N, DELTA), half, undecided))

    os.makedirs(args.out, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6, 4))
    image = ax.imshow(F, origin="lower", aspect="auto", extent=[0, t_end, betas[0], betas[-1]], cmap="viridis",
                      vmin=0, vmax=1)
    fine = np.linspace(betas[0], betas[-1], 60)
    ax.plot([gamma_crossing(b, N, DELTA) for b in fine], fine, "w--", label=r"$\gamma_\beta(t) = 1 - \delta$")
    ax.set_xlabel("t")
    ax.set_ylabel(r"$\beta$")
    ax.set_title(r"pairs with $\langle x_i, x_j\rangle > 1 - \delta$ (n = d = {})".format(N))
    ax.legend(loc="upper left")
    fig.colorbar(image, ax=ax, label="fraction")
    path = os.path.join(args.out, "phase_diagram.png")
    fig.savefig(path, dpi=120, bbox_inches="tight")
    print("wrote", path)


if __name__ == "__main__":
    main()
