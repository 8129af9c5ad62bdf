"""The electrostatic potential of a 30 A box of TIP3P-charged water on a 0.5 A lattice (cutoff
12 A, exclusion radius 1 A): the z = middle slice with the atoms near it (pairwise.potmap and
pairwise.plot).

    PYTHONPATH=build/cpu/python python3 examples/python/water_potential.py [-o water_potential.png]
"""

import argparse

import pairwise.plot as plot
import pairwise.potmap as potmap


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-o", "--output", default="water_potential.png")
    parser.add_argument("--backend", default="auto")
    args = parser.parse_args()

    atoms = potmap.water_box(30.0, seed=1)
    grid = potmap.grid_around(atoms["positions"], atoms["charges"], spacing=0.5, padding=2.0)
    m = potmap.compute_map(atoms["positions"], atoms["charges"], cutoff=12.0, exclusion=1.0,
                           backend=args.backend, **grid)
    print("%d atoms, lattice %s, %s, %.3f s" % (len(atoms["charges"]), m["values"].shape,
                                                m["device"], m["seconds"]))
    fig = plot.map_slice((m["values"], m["origin"], m["spacing"]), axis="z", atoms=atoms,
                         units=m["units"], width=0.5)
    fig.axes[0].set_title("TIP3P water box, 30 A: potential at the middle z plane")
    fig.savefig(args.output, dpi=110)
    print("wrote", args.output)


if __name__ == "__main__":
    main()
