"""A 256-bead charged globule in implicit solvent (sigmoidal dielectric) under Langevin dynamics
at 300 K: the energy terms and the temperature against time (pairwise.ljc).

    PYTHONPATH=build/cpu/python python3 examples/python/ljc_globule.py [-o ljc_globule.png]
"""

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import pairwise.ljc as ljc  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-o", "--output", default="ljc_globule.png")
    parser.add_argument("--backend", default="auto")
    args = parser.parse_args()

    mol = ljc.globule(256, seed=1)
    sim = ljc.simulation_of(mol, backend=args.backend, dielectric="sigmoidal",
                            thermostat="langevin", temperature=300.0, friction=5.0, dt=2.0,
                            seed=7)
    rows = sim.run(3000, thermo_every=25)
    t = rows["time_ps"]
    print("%d atoms on %s: E %.1f -> %.1f kcal/mol, mean T (last half) %.1f K" %
          (len(sim), sim.backend, rows["total"][0], rows["total"][-1],
           np.mean(rows["temperature"][len(t) // 2:])))
    fig, (a, b) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    for name in ("total", "lj", "coulomb", "bond", "kinetic"):
        a.plot(t, rows[name], label=name)
    a.set_ylabel("energy (kcal/mol)")
    a.set_title("LJC globule, N = %d, sigmoidal dielectric, Langevin 300 K" % len(sim))
    a.legend(fontsize=8, ncol=3)
    b.plot(t, rows["temperature"])
    b.axhline(300.0, color="k", lw=0.5)
    b.set_xlabel("t (ps)")
    b.set_ylabel("T (K)")
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print("wrote", args.output)


if __name__ == "__main__":
    main()
