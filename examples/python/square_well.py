"""Partial-wave scattering on an attractive square well (radius 1, depth K0^2 = 4): the phase
shifts delta_l(k) for l = 0..3 from the Fredholm equation (points) against the analytic ones from
matching at r = R (lines) (pairwise.fredholm).

    PYTHONPATH=build/cpu/python python3 examples/python/square_well.py [-o square_well.png]
"""

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import pairwise.fredholm as fr  # noqa: E402


def wrap(delta):
    """Phase shifts modulo pi, in (-pi/2, pi/2]."""
    return np.remainder(np.asarray(delta) + np.pi / 2, np.pi) - np.pi / 2


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-o", "--output", default="square_well.png")
    parser.add_argument("--backend", default="auto")
    args = parser.parse_args()

    u0, radius = 4.0, 1.0
    ks = np.linspace(0.25, 6.0, 24)
    fine = np.linspace(0.2, 6.0, 300)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    worst = 0.0
    for l in range(4):
        numeric = []
        for k in ks:
            eq = fr.Equation(kernel="square_well", k=float(k), u0=u0, l=l, n=120,
                             upper=(radius, 1.0, 1.0))
            numeric.append(fr.phase_shift(eq, fr.solve(eq, backend=args.backend)))
        exact = [fr.phase_shift_analytic(l, float(k), u0, radius) for k in ks]
        worst = max(worst, float(np.max(np.abs(wrap(np.array(numeric) - exact)))))
        line = [fr.phase_shift_analytic(l, float(k), u0, radius) for k in fine]
        (drawn,) = ax.plot(fine, wrap(line), lw=1, label="l = %d analytic" % l)
        ax.plot(ks, wrap(numeric), "o", color=drawn.get_color(), ms=4)
    print("largest |delta_numeric - delta_analytic| (mod pi): %.2e" % worst)
    ax.set_xlabel("k")
    ax.set_ylabel("delta_l (mod pi)")
    ax.set_title("square well, K0^2 = %g, R = %g: Nystrom (points) vs analytic (lines)" %
                 (u0, radius))
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print("wrote", args.output)


if __name__ == "__main__":
    main()
