"""pairwise.nbody: Python == CLI (diagnostics and final snapshot), analytic checks, errors."""

import numpy as np
import pytest

import pairwise
import pairwise.nbody as nbody
from conftest import BACKENDS, read_csv, rel_err

CONFIG = """workload = "nbody"
[system]
initial = "plummer"
n = 256
seed = 5
eps = 0.02
[integrator]
integrator = "hermite_block"
eta = 0.02
dt_max = 0.0625
[run]
t_end = 0.5
backend = "cpu"
precision = "double"
[output]
interval = 0.125
progress = false
"""


def test_from_config_equals_cli(tmp_path, cli):
    (tmp_path / "p.toml").write_text(CONFIG)
    cli("run", "p.toml")
    ref = read_csv(tmp_path / "p.csv")
    sim = nbody.Simulation.from_config(str(tmp_path / "p.toml"))
    rows = sim.run_to(sim.configured_t_end, interval=sim.configured_interval)
    assert list(rows["time"]) == list(ref["t"])
    for ours, theirs in [("kinetic", "K"), ("potential", "W"), ("total", "E"), ("steps", "steps")]:
        assert rel_err(rows[ours], ref[theirs]) <= 1e-12, ours
    final = nbody.read_table(str(tmp_path / "p.final.txt"))
    state = sim.state()
    assert final["time"] == 0.5
    assert rel_err(state["positions"], final["positions"]) <= 1e-12
    assert rel_err(state["velocities"], final["velocities"]) <= 1e-12


@pytest.mark.parametrize("backend", BACKENDS)
def test_arrays_equal_generator_and_reference_forces(backend):
    p = nbody.plummer(200, seed=3)
    assert p["masses"].sum() == pytest.approx(1.0, rel=1e-14)
    sim = nbody.Simulation(p["masses"], p["positions"].astype(np.float64), p["velocities"],
                           backend=backend, precision="double", eps=0.05)
    ref = nbody.Simulation(p["masses"], p["positions"], p["velocities"], backend="reference",
                           eps=0.05)
    f, g = sim.compute_forces(), ref.compute_forces()
    assert rel_err(f["accelerations"], g["accelerations"]) <= 1e-12
    assert rel_err(f["potentials"], g["potentials"]) <= 1e-12
    # Plummer sphere in Henon units: E = -1/4 (softening and sampling move it by a few per cent).
    assert sim.diagnostics()["total"] == pytest.approx(-0.25, rel=0.1)


def test_kepler_period_returns_to_pericentre():
    p = nbody.kepler(0.5, 1.0)
    sim = nbody.Simulation(p["masses"], p["positions"], p["velocities"], backend="reference",
                           precision="double", eps=0.0, integrator="hermite", eta=0.005,
                           dt_max=1.0 / 64)
    period = 2 * np.pi  # sqrt(a^3 / (G M)) with a = 1, M = 1
    rows = sim.run_to(period, interval=period / 4)
    assert abs(rows["energy_error"][-1]) < 1e-6
    assert rel_err(sim.state()["positions"], p["positions"]) < 1e-4


def test_callback_and_errors():
    p = nbody.plummer(64, seed=2)
    sim = nbody.Simulation(p["masses"], p["positions"], p["velocities"], backend="cpu")
    times = []

    def callback(t, x, v):
        assert x.shape == (64, 3) and not x.flags.writeable
        times.append(t)
        if t >= 0.25:
            raise KeyError("stop")

    with pytest.raises(KeyError):
        sim.run_to(1.0, callback=callback, interval=0.0625)
    assert times == [0.0625, 0.125, 0.1875, 0.25] and sim.time == 0.25
    with pytest.raises(ValueError, match="multiple of dt_max"):
        sim.run_to(0.3)
    with pytest.raises(ValueError, match=r"positions must have shape \(64, 3\)"):
        nbody.Simulation(p["masses"], p["positions"][:10].copy())
    with pytest.raises(ValueError, match="unknown integrator"):
        nbody.Simulation(p["masses"], p["positions"], integrator="rk4")
    m = p["masses"].copy()
    m[3] = -1
    with pytest.raises(ValueError, match="mass"):
        nbody.Simulation(m, p["positions"])
    with pytest.raises(MemoryError):
        # 2^58 bytes per coordinate array: more than any 48-bit address space, so the allocation
        # fails at once (bad_alloc) even where memory is overcommitted.
        nbody.plummer(1 << 55)


def test_docstrings():
    for obj in [nbody, nbody.Simulation, nbody.plummer, nbody.kepler, nbody.read_table,
                nbody.Simulation.run_to, nbody.Simulation.compute_forces,
                nbody.Simulation.diagnostics, nbody.Simulation.from_config]:
        assert obj.__doc__ and len(obj.__doc__) > 40, obj
