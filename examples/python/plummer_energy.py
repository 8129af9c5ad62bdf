"""A Plummer sphere of 1,024 stars in Henon units integrated to t = 2 with three integrators:
the relative energy error |E(t) - E0| / |E0| against time (pairwise.nbody).

    PYTHONPATH=build/cpu/python python3 examples/python/plummer_energy.py [-o plummer_energy.png]
"""

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import pairwise.nbody as nbody  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-o", "--output", default="plummer_energy.png")
    parser.add_argument("--backend", default="auto")
    args = parser.parse_args()

    p = nbody.plummer(1024, seed=1)
    runs = [("leapfrog dt = 1/256", dict(integrator="leapfrog", dt=1 / 256)),
            ("Hermite block steps, eta = 0.02", dict(integrator="hermite_block", eta=0.02)),
            ("Hermite block steps, eta = 0.005", dict(integrator="hermite_block", eta=0.005))]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, settings in runs:
        sim = nbody.Simulation(p["masses"], p["positions"], p["velocities"], eps=0.01,
                               backend=args.backend, precision="double", **settings)
        rows = sim.run_to(2.0, interval=1 / 16)
        error = np.abs(rows["energy_error"][1:])
        ax.semilogy(rows["time"][1:], error, label="%s (%d steps)" % (label, rows["steps"][-1]))
        print("%-34s max |dE/E0| = %.2e, E0 = %.6f" % (label, error.max(), rows["total"][0]))
    ax.set_xlabel("t (Henon units)")
    ax.set_ylabel("|E - E0| / |E0|")
    ax.set_title("Plummer sphere, N = 1024, eps = 0.01 (%s backend)" % sim.backend)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print("wrote", args.output)


if __name__ == "__main__":
    main()
