"""pairwise.ljc: Python == CLI (thermo CSV), backends vs reference, F = -grad U, errors."""

import numpy as np
import pytest

import pairwise
import pairwise.ljc as ljc
from conftest import BACKENDS, read_csv, rel_err

CONFIG = """workload = "ljc"
[system]
molecule = "globule"
n = 200
seed = 4
[forcefield]
dielectric = "sigmoidal"
[integrator]
thermostat = "langevin"
dt = 1.0
temperature = 300.0
friction = 5.0
seed = 9
[run]
steps = 60
backend = "cpu"
precision = "double"
[output]
interval = 20
progress = false
"""


def test_from_config_equals_cli(tmp_path, cli):
    (tmp_path / "g.toml").write_text(CONFIG)
    cli("run", "g.toml")
    ref = read_csv(tmp_path / "g.csv")
    sim = ljc.Simulation.from_config(str(tmp_path / "g.toml"))
    assert len(sim) == 200 and sim.precision == "double"
    rows = sim.run(sim.configured_steps, thermo_every=sim.configured_interval)
    assert list(rows["step"]) == list(ref["step"])
    for ours, theirs in [("kinetic", "KE"), ("lj", "U_lj"), ("coulomb", "U_coul"),
                         ("bond", "U_bond"), ("total", "E"), ("temperature", "T_K")]:
        assert rel_err(rows[ours], ref[theirs]) <= 1e-12, ours


@pytest.mark.parametrize("backend", BACKENDS)
def test_forces_equal_reference(backend):
    mol = ljc.globule(300, seed=2)
    kw = dict(dielectric="linear")
    ref = ljc.simulation_of(mol, backend="reference", **kw).compute_forces()
    got = ljc.simulation_of(mol, backend=backend, precision="double", **kw).compute_forces()
    assert rel_err(got["forces"], ref["forces"]) <= 1e-12
    for term in ("lj", "coulomb", "bond"):
        assert got[term] == pytest.approx(ref[term], rel=1e-12)


def test_forces_are_minus_energy_gradient():
    mol = ljc.globule(40, seed=3)
    sim = ljc.simulation_of(mol, backend="reference", dielectric="sigmoidal")
    f = sim.compute_forces()["forces"]
    h = 1e-5
    for i, d in [(0, 0), (7, 1), (21, 2)]:
        energies = []
        for sign in (1, -1):
            x = mol["positions"].copy()
            x[i, d] += sign * h
            m = dict(mol, positions=x)
            e = ljc.simulation_of(m, backend="reference", dielectric="sigmoidal").compute_forces()
            energies.append(e["lj"] + e["coulomb"] + e["bond"])
        assert f[i, d] == pytest.approx(-(energies[0] - energies[1]) / (2 * h), rel=1e-6, abs=1e-6)


def test_langevin_holds_temperature_and_callbacks():
    mol = ljc.globule(128, seed=5)
    sim = ljc.simulation_of(mol, backend="cpu", thermostat="langevin", temperature=300.0,
                            friction=50.0, dt=2.0)
    steps = []
    rows = sim.run(600, callback=lambda s, x, v: steps.append(s), every=200, thermo_every=100)
    assert steps == [200, 400, 600]
    assert np.mean(rows["temperature"][2:]) == pytest.approx(300.0, rel=0.15)


def test_errors():
    mol = ljc.globule(16, seed=1)
    with pytest.raises(ValueError, match=r"charges must have shape \(16,\)"):
        ljc.Simulation(mol["positions"], mol["charges"][:5].copy(), mol["sigmas"],
                       mol["epsilons"], mol["masses"])
    with pytest.raises(ValueError, match="unknown dielectric"):
        ljc.simulation_of(mol, dielectric="water")
    bad = mol["masses"].copy()
    bad[2] = 0
    with pytest.raises(ValueError, match="mass"):
        ljc.simulation_of(dict(mol, masses=bad))
    x = mol["positions"].copy()
    x[1] = x[0]  # two atoms at the same place: infinite forces
    sim = ljc.simulation_of(dict(mol, positions=x, bonds=None, exclusions=None), backend="cpu")
    with pytest.raises(pairwise.Error, match="not finite"):
        sim.run(5)


def test_docstrings():
    for obj in [ljc, ljc.Simulation, ljc.globule, ljc.read_molecule, ljc.Simulation.run,
                ljc.Simulation.thermo, ljc.Simulation.compute_forces, ljc.simulation_of]:
        assert obj.__doc__ and len(obj.__doc__) > 40, obj
