"""Electrostatic potential maps of point charges on a lattice: compute_map and its helpers.

Example (the water box of examples/potmap-water.toml):
    import pairwise.potmap as potmap
    atoms = potmap.water_box(20.0, seed=1)
    grid = potmap.grid_around(atoms["positions"], atoms["charges"], spacing=0.5, padding=2.0)
    m = potmap.compute_map(atoms["positions"], atoms["charges"], cutoff=12.0, exclusion=1.0,
                           **grid)
    m["values"]   # (nx, ny, nz) in kT/e
"""

from ._pairwise import potmap as _potmap

water_box = _potmap.water_box
read_atoms = _potmap.read_atoms
grid_around = _potmap.grid_around
compute_map = _potmap.compute_map
read_config = _potmap.read_config

__all__ = ["water_box", "read_atoms", "grid_around", "compute_map", "read_config"]
