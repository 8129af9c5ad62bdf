"""All-pairs LJ + Coulomb molecules in implicit solvent: pairwise.ljc.Simulation, globule().

Example (the globule of examples/ljc-globule.toml under Langevin dynamics):
    import pairwise.ljc as ljc
    mol = ljc.globule(256, seed=1)
    sim = ljc.Simulation(mol["positions"], mol["charges"], mol["sigmas"], mol["epsilons"],
                         mol["masses"], bonds=mol["bonds"], bond_params=mol["bond_params"],
                         exclusions=mol["exclusions"], dielectric="sigmoidal",
                         thermostat="langevin", temperature=300.0)
    rows = sim.run(1000, thermo_every=100)
"""

from ._pairwise import ljc as _ljc

Simulation = _ljc.Simulation
globule = _ljc.globule
read_molecule = _ljc.read_molecule


def simulation_of(molecule, **settings):
    """A Simulation of a molecule dict (globule() or read_molecule()) with keyword settings."""
    keys = ("velocities", "bonds", "bond_params", "exclusions")
    extra = {k: molecule[k] for k in keys if molecule.get(k) is not None and len(molecule[k])}
    return Simulation(molecule["positions"], molecule["charges"], molecule["sigmas"],
                      molecule["epsilons"], molecule["masses"], **extra, **settings)


__all__ = ["Simulation", "globule", "read_molecule", "simulation_of"]
