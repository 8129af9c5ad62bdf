"""Lennard-Jones molecular dynamics (LAMMPS units lj): pairwise.md.Simulation and lattice().

Example:
    import pairwise.md as md
    system = md.lattice("fcc", 0.8442, 5, temperature=1.44)
    sim = md.Simulation(system["positions"], system["box"], velocities=system["velocities"])
    thermo = sim.run(100, thermo_every=10)
"""

from ._pairwise import md as _md

Simulation = _md.Simulation
lattice = _md.lattice

__all__ = ["Simulation", "lattice"]
