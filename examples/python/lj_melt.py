"""The LJ melt in miniature: an fcc crystal of 500 atoms at rho* = 0.8442 started at T* = 3.0
melts; T(t) from the thermo rows, and the radial distribution function g(r) computed in numpy from
snapshots that a callback collects every 100 steps (pairwise.md).

    PYTHONPATH=build/cpu/python python3 examples/python/lj_melt.py [-o lj_melt.png]
"""

import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import pairwise.md as md  # noqa: E402


def radial_distribution(frames, box_length, r_max, bins=120):
    """g(r) averaged over frames of (N, 3) positions in a cubic periodic box (minimum image)."""
    edges = np.linspace(0.0, r_max, bins + 1)
    counts = np.zeros(bins)
    n = frames[0].shape[0]
    for x in frames:
        d = x[:, None, :] - x[None, :, :]
        d -= box_length * np.round(d / box_length)
        r = np.sqrt((d ** 2).sum(axis=-1))[np.triu_indices(n, 1)]
        counts += np.histogram(r, bins=edges)[0]
    shell = 4.0 / 3.0 * np.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
    density = n / box_length ** 3
    ideal = shell * density * n / 2 * len(frames)
    return 0.5 * (edges[1:] + edges[:-1]), counts / ideal


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-o", "--output", default="lj_melt.png")
    parser.add_argument("--backend", default="auto")
    args = parser.parse_args()

    system = md.lattice("fcc", 0.8442, 5, temperature=3.0, seed=87287)
    sim = md.Simulation(system["positions"], system["box"], velocities=system["velocities"],
                        backend=args.backend, dt=0.005)
    length = system["box"][1][0] - system["box"][0][0]
    crystal = [system["positions"].copy()]
    frames = []

    def snapshot(step, positions, velocities):
        if step > 1000:  # after the melt
            frames.append(np.array(positions))

    thermo = sim.run(3000, callback=snapshot, every=100, thermo_every=50)
    r, g_liquid = radial_distribution(frames, length, 0.5 * length)
    _, g_crystal = radial_distribution(crystal, length, 0.5 * length)
    print("%d atoms on %s; T: %.3f -> %.3f; g(r) first peak %.2f at r = %.3f" %
          (len(sim), sim.backend, thermo["temperature"][0], thermo["temperature"][-1],
           g_liquid.max(), r[np.argmax(g_liquid)]))

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    a.plot(thermo["step"] * 0.005, thermo["temperature"], ".-")
    a.set_xlabel("t (tau)")
    a.set_ylabel("T*")
    a.set_title("LJ melt, N = %d, rho* = 0.8442" % len(sim))
    b.plot(r, g_liquid, label="liquid (steps 1100-3000, %d frames)" % len(frames))
    b.plot(r, g_crystal / 20, lw=0.8, alpha=0.7, label="fcc start (scaled 1/20)")
    b.axhline(1.0, color="k", lw=0.5)
    b.set_xlabel("r (sigma)")
    b.set_ylabel("g(r)")
    b.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print("wrote", args.output)


if __name__ == "__main__":
    main()
