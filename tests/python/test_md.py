"""pairwise.md: Python == CLI, the LAMMPS reproduction of tests/data, errors, callbacks."""

import gzip
import math

import numpy as np
import pytest

import pairwise
import pairwise.md as md
from conftest import BACKENDS, DATA, read_csv, rel_err

CONFIG = """workload = "md"
[system]
lattice = "fcc"
density = 0.8442
cells = "4 4 4"
temperature = 1.44
[force_field]
style = "shifted_force"
cutoff = 2.5
[integrator]
dt = 0.005
steps = 40
thermostat = "langevin"
temperature = 1.0
seed = 11
[run]
backend = "cpu"
precision = "double"
[output]
thermo_every = 10
final_data = "final.data"
progress = false
"""


def read_data_atoms(path):
    """ids and positions, velocities of a LAMMPS data file written by pairwise."""
    text = open(path).read().split("\n")
    atoms, vel = {}, {}
    section = None
    for line in text:
        parts = line.split()
        if not parts:
            continue
        if parts[0].isalpha():
            section = parts[0]
            continue
        if section == "Atoms" and len(parts) >= 5:
            atoms[int(parts[0])] = [float(v) for v in parts[2:5]]
        elif section == "Velocities" and len(parts) == 4:
            vel[int(parts[0])] = [float(v) for v in parts[1:4]]
    ids = sorted(atoms)
    return np.array([atoms[i] for i in ids]), np.array([vel[i] for i in ids])


def test_from_config_equals_cli(tmp_path, cli):
    (tmp_path / "melt.toml").write_text(CONFIG)
    cli("run", "melt.toml")
    ref = read_csv(tmp_path / "melt.csv")
    sim = md.Simulation.from_config(str(tmp_path / "melt.toml"))
    assert sim.backend == "cpu" and sim.precision == "double" and len(sim) == 256
    thermo = sim.run(sim.configured_steps, thermo_every=sim.configured_thermo_every)
    assert list(thermo["step"]) == list(ref["Step"])
    for ours, theirs in [("temperature", "Temp"), ("potential", "E_pair"), ("total", "TotEng"),
                         ("pressure", "Press")]:
        assert rel_err(thermo[ours], ref[theirs]) <= 1e-12, ours
    x, v = read_data_atoms(tmp_path / "final.data")
    state = sim.state()
    assert rel_err(state["positions"], x) <= 1e-12
    assert rel_err(state["velocities"], v) <= 1e-12


def test_arrays_equal_config(tmp_path):
    """The same system from numpy arrays (float64 and float32 positions) and from the config."""
    (tmp_path / "melt.toml").write_text(CONFIG)
    by_config = md.Simulation.from_config(str(tmp_path / "melt.toml"))
    system = md.lattice("fcc", 0.8442, 4, temperature=1.44)
    kw = dict(style="shifted_force", backend="cpu", precision="double", thermostat="langevin",
              temperature=1.0, seed=11)
    sim = md.Simulation(system["positions"], system["box"], velocities=system["velocities"], **kw)
    f0 = sim.compute_forces()
    assert f0["forces"].shape == (256, 3)
    assert f0["potential"] == pytest.approx(by_config.compute_forces()["potential"], rel=1e-12)
    assert np.abs(f0["forces"].sum(axis=0)).max() < 1e-10  # Newton's third law
    sim.run(40)
    by_config.run(40)
    assert rel_err(sim.state()["positions"], by_config.state()["positions"]) <= 1e-12
    single = md.Simulation(system["positions"].astype(np.float32), system["box"], **kw)
    assert len(single) == 256


def test_forces_are_minus_energy_gradient():
    """F = -dU/dx by central differences on a small disordered system (reference backend)."""
    rng = np.random.default_rng(3)
    system = md.lattice("sc", 0.5, 6, temperature=0.0)
    x = system["positions"] + rng.normal(0, 0.05, system["positions"].shape)
    sim = md.Simulation(x, system["box"], backend="reference", style="shifted_force")
    f = sim.compute_forces()["forces"]
    h = 1e-5
    for i, d in [(0, 0), (5, 1), (17, 2)]:
        xp, xm = x.copy(), x.copy()
        xp[i, d] += h
        xm[i, d] -= h
        sim.set_state(xp)
        up = sim.compute_forces()["potential"]
        sim.set_state(xm)
        um = sim.compute_forces()["potential"]
        assert f[i, d] == pytest.approx(-(up - um) / (2 * h), rel=1e-6, abs=1e-7)


def lammps_thermo():
    rows = {}
    table = False
    for line in open(DATA / "lj32k-ref.log"):
        if line.startswith("Step Temp"):
            table = True
            continue
        if table:
            parts = line.split()
            try:
                step, temp, epair, _, etotal, press = (float(v) for v in parts[:6])
            except ValueError:
                break
            rows[int(step)] = (temp, epair, etotal, press)
    return rows


@pytest.mark.parametrize("backend", BACKENDS)
def test_lammps_reproduction(backend):
    """tests/external/test_md_lammps.cpp through Python: LAMMPS's thermo of bench/in.lj from its
    exact initial state, step 0 to 1e-8 (double), steps 10..100 to 1e-4."""
    ref = lammps_thermo()
    assert len(ref) == 11
    sim = md.Simulation.from_data_file(str(DATA / "lj32k-initial.data.gz"), cutoff=2.5,
                                       backend=backend, precision="double")
    thermo = sim.run(100, thermo_every=10)
    for k, step in enumerate(thermo["step"]):
        temp, epair, etotal, press = ref[int(step)]
        tol = 1e-8 if step == 0 else 1e-4
        assert thermo["potential"][k] == pytest.approx(epair, rel=tol)
        assert thermo["total"][k] == pytest.approx(etotal, rel=tol)
        assert thermo["pressure"][k] == pytest.approx(press, rel=tol)
        assert thermo["temperature"][k] == pytest.approx(temp, rel=tol)


def test_callbacks_get_views_every_k_steps():
    system = md.lattice("fcc", 0.8442, 4, temperature=1.0)
    sim = md.Simulation(system["positions"], system["box"], velocities=system["velocities"],
                        backend="cpu")
    seen = []

    def callback(step, positions, velocities):
        assert positions.shape == (256, 3) and positions.dtype == np.float64
        assert not positions.flags.writeable and positions.flags.c_contiguous
        seen.append((step, positions.copy()))

    sim.run(25, callback=callback, every=10)
    assert [s for s, _ in seen] == [10, 20, 25]
    assert np.array_equal(seen[-1][1], sim.state()["positions"])


def test_raising_callback_stops_the_run():
    system = md.lattice("fcc", 0.8442, 4, temperature=1.0)
    sim = md.Simulation(system["positions"], system["box"], velocities=system["velocities"],
                        backend="cpu")

    class Stop(Exception):
        pass

    def callback(step, positions, velocities):
        if step == 20:
            raise Stop("enough at %d" % step)

    with pytest.raises(Stop, match="enough at 20"):
        sim.run(100, callback=callback, every=10)
    assert sim.step == 20
    sim.run(5)  # still usable
    assert sim.step == 25


def test_bad_arrays_raise_value_error():
    system = md.lattice("fcc", 0.8442, 4)
    x, box = system["positions"], system["box"]
    with pytest.raises(ValueError, match=r"positions must have shape \(N, 3\), got \(256, 2\)"):
        md.Simulation(x[:, :2].copy(), box)
    with pytest.raises(ValueError, match="dtype float32 or float64"):
        md.Simulation(x.astype(np.int64), box)
    with pytest.raises(ValueError, match="C-contiguous"):
        md.Simulation(np.asfortranarray(x), box)
    bad = x.copy()
    bad[7, 1] = math.nan
    with pytest.raises(ValueError, match="finite"):
        md.Simulation(bad, box)
    with pytest.raises(ValueError, match=r"velocities must have shape \(256, 3\), got \(10, 3\)"):
        md.Simulation(x, box, velocities=np.zeros((10, 3)))


def test_bad_parameters_raise_value_error_with_the_cli_messages(tmp_path):
    system = md.lattice("fcc", 0.8442, 4)
    x, box = system["positions"], system["box"]
    with pytest.raises(ValueError, match="unknown backend"):
        md.Simulation(x, box, backend="gpu")
    with pytest.raises(ValueError, match="box length"):
        md.Simulation(x, box, cutoff=3.5)  # the CLI's "box length ... < 2 (rc + skin)"
    with pytest.raises(ValueError, match="thermostat"):
        md.Simulation(x, box, thermostat="berendsen")
    with pytest.raises(ValueError, match="atoms overlap at start"):
        md.Simulation(np.zeros((2, 3)), (10.0, 10.0, 10.0))
    (tmp_path / "typo.toml").write_text('workload = "md"\n[integrator]\nstesp = 3\n')
    with pytest.raises(ValueError, match="did you mean 'steps'"):
        md.Simulation.from_config(str(tmp_path / "typo.toml"))


def test_blow_up_raises_runtime_error():
    system = md.lattice("fcc", 0.8442, 4)
    x = system["positions"].copy()
    x[1] = x[0] + [0.3, 0, 0]  # two atoms at 0.3 sigma: the repulsion launches them
    sim = md.Simulation(x, system["box"], backend="cpu", allow_overlap=True, dt=0.01)
    with pytest.raises(pairwise.Error, match="blew up"):
        sim.run(50, thermo_every=1)
    assert issubclass(pairwise.Error, RuntimeError)


def test_docstrings():
    for obj in [md, md.Simulation, md.lattice, md.Simulation.run, md.Simulation.compute_forces,
                md.Simulation.from_config, md.Simulation.from_data_file, md.Simulation.state,
                md.Simulation.thermo, md.Simulation.set_state]:
        assert obj.__doc__ and len(obj.__doc__) > 40, obj
