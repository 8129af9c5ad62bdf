"""Pair interactions from formulas and tables through the Python package (docs/formulas.md):
md (style='custom' | 'table'), nbody (potential=), ljc (custom=), potmap (phi=) and fredholm
(kernel_formula=) against the built-in interactions in double precision, central differences of
their energies and exact solutions."""

import numpy as np
import pytest

import pairwise
import pairwise.fredholm as fr
import pairwise.ljc as ljc
import pairwise.md as md
import pairwise.nbody as nbody
import pairwise.potmap as potmap
from conftest import BACKENDS, rel_err

LJ = "4*eps*(s6^2 - s6); s6 = (sig/r)^6"


def small_melt():
    """An fcc lattice with every atom displaced (a perfect lattice has zero forces)."""
    s = md.lattice("fcc", 0.8442, 4, temperature=1.44, seed=5)
    s["positions"] += np.random.default_rng(5).uniform(-0.08, 0.08, s["positions"].shape)
    return s


@pytest.mark.parametrize("backend", ["reference"] + BACKENDS)
@pytest.mark.parametrize("truncation", ["cut", "shifted_force"])
def test_md_formula_lj_equals_builtin(backend, truncation):
    s = small_melt()
    kw = dict(velocities=s["velocities"], backend=backend, precision="double", cutoff=2.5)
    builtin = md.Simulation(s["positions"], s["box"], style=truncation, **kw)
    custom = md.Simulation(s["positions"], s["box"], style="custom", energy=LJ,
                           parameters={"eps": 1.0, "sig": 1.0}, truncation=truncation, **kw)
    a, b = builtin.compute_forces(), custom.compute_forces()
    assert rel_err(b["forces"], a["forces"]) <= 1e-12
    assert b["potential"] == pytest.approx(a["potential"], rel=1e-12)
    ta, tb = builtin.run(20, thermo_every=10), custom.run(20, thermo_every=10)
    for key in ("potential", "total", "pressure"):
        assert rel_err(tb[key], ta[key]) <= 1e-11, key


def test_md_formula_combining_rules_equal_builtin_mixing():
    """Two types: per-type parameters combined by formulas == the built-in arithmetic mixing
    (eps geometric, sigma arithmetic, as LAMMPS's pair_modify mix arithmetic)."""
    s = small_melt()
    n = len(s["positions"])
    types = 1 + (np.arange(n) % 2)
    kw = dict(velocities=s["velocities"], types=types, backend="cpu", precision="double")
    builtin = md.Simulation(s["positions"], s["box"], style="cut", mixing="arithmetic",
                            pairs=[(1, 1, 1.0, 1.0), (2, 2, 0.5, 0.9)], **kw)
    custom = md.Simulation(s["positions"], s["box"], style="custom", energy=LJ,
                           type_parameters={1: {"e": 1.0, "s": 1.0}, 2: {"e": 0.5, "s": 0.9}},
                           combine={"eps": "sqrt(e1*e2)", "sig": "(s1 + s2)/2"}, **kw)
    a, b = builtin.compute_forces(), custom.compute_forces()
    assert rel_err(b["forces"], a["forces"]) <= 1e-12
    assert b["potential"] == pytest.approx(a["potential"], rel=1e-12)


def test_md_morse_forces_are_minus_energy_gradient():
    rng = np.random.default_rng(3)
    side = 4.0
    x = rng.uniform(0, side, (12, 3))
    sim = md.Simulation(x, (side, side, side), style="custom", cutoff=1.4, truncation="shift",
                        energy="D*(exp(-2*a*(r - r0)) - 2*exp(-a*(r - r0)))",
                        parameters={"D": 0.7, "a": 3.0, "r0": 0.9}, backend="reference",
                        precision="double", allow_overlap=True)
    f = sim.compute_forces()["forces"]
    h = 1e-6
    for i in range(0, 12, 3):
        for d in range(3):
            energies = []
            for sign in (1, -1):
                y = x.copy()
                y[i, d] += sign * h
                sim.set_state(y, np.zeros_like(y))
                energies.append(sim.compute_forces()["potential"])
            grad = (energies[0] - energies[1]) / (2 * h)
            assert -grad == pytest.approx(f[i, d], abs=1e-6 * max(1.0, abs(f[i, d])))


def write_lj_table(path, n=2000, r_lo=0.8, r_hi=2.5):
    """A LAMMPS pair_style table section LJ of 4 (r^-12 - r^-6), RSQ grid, as pair_write writes."""
    rsq = np.linspace(r_lo**2, r_hi**2, n)
    r = np.sqrt(rsq)
    e = 4 * (r**-12 - r**-6)
    f = 4 * (12 * r**-13 - 6 * r**-7)
    lines = ["# LJ", "", "LJ", f"N {n} RSQ {r_lo} {r_hi}", ""]
    lines += [f"{k + 1} {r[k]:.16e} {e[k]:.16e} {f[k]:.16e}" for k in range(n)]
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("style", ["linear", "spline"])
def test_md_table_reproduces_lj_cut(tmp_path, style):
    write_lj_table(tmp_path / "lj.table")
    s = small_melt()
    kw = dict(velocities=s["velocities"], backend="cpu", precision="double")
    builtin = md.Simulation(s["positions"], s["box"], style="cut", cutoff=2.5, **kw)
    table = md.Simulation(s["positions"], s["box"], style="table",
                          table={"file": str(tmp_path / "lj.table"), "keyword": "LJ",
                                 "style": style, "n": 2000}, **kw)
    a, b = builtin.compute_forces(), table.compute_forces()
    # The table's interpolation error: second order in the r^2 spacing (linear), far smaller
    # for the spline (docs/formulas.md gives the measured figures).
    assert rel_err(b["forces"], a["forces"]) <= (1e-3 if style == "linear" else 1e-6)
    assert b["potential"] == pytest.approx(a["potential"], rel=1e-3)


def test_md_formula_errors():
    s = small_melt()
    with pytest.raises(ValueError, match=r"unknown name 'sigm' at column \d+ in energy.*"
                                         r"did you mean 'sig'"):
        md.Simulation(s["positions"], s["box"], style="custom",
                      energy="4*eps*((sigm/r)^12 - (sig/r)^6)",
                      parameters={"eps": 1.0, "sig": 1.0})
    with pytest.raises(ValueError, match="energy, parameters, type_parameters and combine need"):
        md.Simulation(s["positions"], s["box"], energy=LJ)
    with pytest.raises(ValueError, match="the formula does not use 'D'"):
        md.Simulation(s["positions"], s["box"], style="custom", energy=LJ,
                      parameters={"eps": 1.0, "sig": 1.0}, pairs=[(1, 1, {"D": 2.0})])
    with pytest.raises(ValueError, match="table needs"):
        md.Simulation(s["positions"], s["box"], table={"file": "x", "keyword": "LJ"})


@pytest.mark.parametrize("backend", ["reference"] + BACKENDS)
def test_nbody_formula_plummer_equals_builtin(backend):
    p = nbody.plummer(256, 3)
    kw = dict(backend=backend, precision="double", eps=0.05)
    a = nbody.Simulation(p["masses"], p["positions"], p["velocities"], **kw)
    b = nbody.Simulation(p["masses"], p["positions"], p["velocities"],
                         potential="-1/sqrt(r^2 + eps^2)", **kw)
    fa, fb = a.compute_forces(), b.compute_forces()
    assert rel_err(fb["accelerations"], fa["accelerations"]) <= 1e-12
    assert rel_err(fb["potentials"], fa["potentials"]) <= 1e-12


def test_nbody_formula_accelerations_are_minus_potential_gradient():
    p = nbody.plummer(16, 7)
    m, x = p["masses"], p["positions"]
    phi = "-exp(-r/2)/sqrt(r^2 + eps^2)"

    def forces(y):
        return nbody.Simulation(m, y, backend="reference", precision="double", eps=0.1,
                                potential=phi).compute_forces()

    acc = forces(x)["accelerations"]
    h = 1e-6
    for i in (0, 5, 11):
        for d in range(3):
            u = []
            for sign in (1, -1):
                y = x.copy()
                y[i, d] += sign * h
                u.append(0.5 * np.dot(m, forces(y)["potentials"]))
            grad = (u[0] - u[1]) / (2 * h)
            assert acc[i, d] == pytest.approx(-grad / m[i], rel=1e-6, abs=1e-8)


def test_nbody_formula_error():
    p = nbody.plummer(8, 1)
    with pytest.raises(ValueError, match="unknown name 'epz'.*in potential.*did you mean 'eps'"):
        nbody.Simulation(p["masses"], p["positions"], potential="-1/sqrt(r^2 + epz^2)")


@pytest.mark.parametrize("backend", ["reference"] + BACKENDS)
def test_ljc_custom_coulomb_replaces_builtin(backend):
    """custom = Coulomb's law with custom_replaces=True == the built-in with every epsilon 0."""
    mol = ljc.globule(120, seed=6)
    mol["epsilons"] = np.zeros_like(mol["epsilons"])
    kw = dict(backend=backend, precision="double", scale14_lj=0.5, scale14_coulomb=0.5)
    ref = ljc.simulation_of(mol, **kw).compute_forces()
    got = ljc.simulation_of(mol, custom="332.0636*q1*q2/r", custom_replaces=True,
                            **kw).compute_forces()
    assert rel_err(got["forces"], ref["forces"]) <= 1e-12
    assert got["custom"] == pytest.approx(ref["coulomb"], rel=1e-12)
    assert got["lj"] == 0 and got["coulomb"] == 0


def test_ljc_custom_forces_are_minus_energy_gradient():
    mol = ljc.globule(30, seed=8)
    term = "A*exp(-r/(sigma1 + sigma2))*sqrt(epsilon1*epsilon2); A = 5"

    def terms(x):
        m = dict(mol, positions=x)
        return ljc.simulation_of(m, backend="reference", precision="double",
                                 custom=term).compute_forces()

    x = mol["positions"]
    f = terms(x)["forces"]
    h = 1e-5
    for i in (0, 13, 29):
        for d in range(3):
            e = []
            for sign in (1, -1):
                y = x.copy()
                y[i, d] += sign * h
                t = terms(y)
                e.append(t["lj"] + t["coulomb"] + t["bond"] + t["custom"])
            assert f[i, d] == pytest.approx(-(e[0] - e[1]) / (2 * h), rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("backend", ["reference", "cpu"])
def test_potmap_phi_formula(backend):
    atoms = potmap.water_box(8.0, seed=2)
    grid = potmap.grid_around(atoms["positions"], atoms["charges"], spacing=1.0, padding=1.0)
    kw = dict(backend=backend, precision="double", units="kcal/mol/e", **grid)
    coulomb = potmap.compute_map(atoms["positions"], atoms["charges"], **kw)
    as_formula = potmap.compute_map(atoms["positions"], atoms["charges"], phi="1/r", **kw)
    assert rel_err(as_formula["values"], coulomb["values"]) <= 1e-12
    # Debye-Hueckel against a numpy sum: V(p) = 332.0636 sum_a q_a exp(-r/l)/(eps_r r).
    dh = potmap.compute_map(atoms["positions"], atoms["charges"],
                            phi="exp(-r/l)/(eps_r*r); l = 7.8; eps_r = 78.5", **kw)
    o, h, c = np.array(grid["origin"]), grid["spacing"], grid["counts"]
    pts = o + h * np.stack(np.meshgrid(*[np.arange(k) for k in c], indexing="ij"), -1)
    r = np.linalg.norm(pts[..., None, :] - atoms["positions"], axis=-1)
    expect = 332.0636 * np.sum(atoms["charges"] * np.exp(-r / 7.8) / (78.5 * r), axis=-1)
    assert rel_err(dh["values"], expect) <= 1e-6


@pytest.mark.parametrize("backend", ["reference"] + BACKENDS)
def test_fredholm_formula_kernel_equals_builtin(backend):
    """kernel_formula = e^{ts} == the built-in exp_ts, with h as a formula == rhs exp_ts_smooth."""
    builtin = fr.Equation(kernel="exp_ts", rhs="exp_ts_smooth", n=24)
    custom = fr.Equation(kernel="custom", kernel_formula="exp(t*s)", n=24,
                         rhs_formula="exp(t) - (exp(t + 1) - 1)/(t + 1)")
    a = fr.solve(builtin, backend=backend)
    b = fr.solve(custom, backend=backend)
    assert rel_err(b.values, a.values) <= 1e-12
    assert np.max(np.abs(b.values - np.exp(b.points[:, 0]))) < 1e-12


@pytest.mark.parametrize("backend", ["reference"] + BACKENDS)
def test_fredholm_complex_formula_kernel_exact_solution(backend):
    """K = e^{i(t - s)}, h = e^{it}, lambda = 1/2 on [0, 1]: f = 2 e^{it} (the integral of
    e^{-is} f(s) is 2, so f = h + e^{it})."""
    eq = fr.Equation(kernel="custom", kernel_formula="cos(t - s)",
                     kernel_formula_imag="sin(t - s)", rhs_formula="cos(t)",
                     rhs_formula_imag="sin(t)", lam=0.5, n=12)
    r = fr.solve(eq, backend=backend)
    t = r.points[:, 0]
    assert np.iscomplexobj(r.values)
    assert np.max(np.abs(r.values - 2 * np.exp(1j * t))) < 1e-12


def test_fredholm_formula_errors(tmp_path):
    with pytest.raises(ValueError, match=r"unknown name 'u' at column \d+ in kernel_formula"):
        fr.solve(fr.Equation(kernel="custom", kernel_formula="exp(t*u)"), backend="cpu")
    with pytest.raises(ValueError, match="used with kernel = 'custom' only"):
        fr.solve(fr.Equation(kernel="exp_ts", kernel_formula="exp(t*s)"), backend="cpu")
    # read_config gives the formulas back.
    (tmp_path / "y.toml").write_text(
        'workload = "fredholm"\n[equation]\nkernel = "custom"\n'
        'kernel_formula = "exp(-abs(t - s))"\nlambda = 0.5\n')
    eq = fr.read_config(str(tmp_path / "y.toml"))["equation"]
    assert eq.kernel == "custom" and eq.kernel_formula == "exp(-abs(t - s))"
