"""Direct-summation N-body gravity in Henon units: pairwise.nbody.Simulation and the generators.

Example:
    import pairwise.nbody as nbody
    p = nbody.plummer(1024, seed=1)
    sim = nbody.Simulation(p["masses"], p["positions"], p["velocities"], eps=0.01)
    rows = sim.run_to(1.0, interval=0.125)   # rows["energy_error"], rows["time"], ...
"""

from ._pairwise import nbody as _nbody

Simulation = _nbody.Simulation
plummer = _nbody.plummer
uniform_sphere = _nbody.uniform_sphere
kepler = _nbody.kepler
read_table = _nbody.read_table

__all__ = ["Simulation", "plummer", "uniform_sphere", "kepler", "read_table"]
