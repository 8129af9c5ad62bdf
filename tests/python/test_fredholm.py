"""pairwise.fredholm: Python == CLI (nodes CSV), exact and analytic solutions, errors."""

import numpy as np
import pytest

import pairwise.fredholm as fr
from conftest import BACKENDS, read_csv, rel_err

CONFIG = """workload = "fredholm"
[domain]
b = 1.0
n = 120
[equation]
kernel = "square_well"
k = 1.5
u0 = 4.0
l_max = 2
[run]
backend = "cpu"
[output]
grid_points = 0
"""


def test_config_equals_cli(tmp_path, cli):
    (tmp_path / "well.toml").write_text(CONFIG)
    cli("fredholm", "well.toml")
    ref = read_csv(tmp_path / "well.nodes.csv")
    p = fr.read_config(str(tmp_path / "well.toml"))
    assert p["l_max"] == 2 and p["backend"] == "cpu" and p["precision"] == "double"
    eq = p["equation"]
    for l in range(3):
        eq.l = l
        r = fr.solve(eq, method=p["method"], tolerance=p["tolerance"], backend=p["backend"],
                     precision=p["precision"])
        assert rel_err(r.points[:, 0], ref["t"]) <= 1e-15
        assert rel_err(r.weights, ref["w"]) <= 1e-15
        assert rel_err(r.values, ref["f_%d" % l]) <= 1e-12


@pytest.mark.parametrize("backend", BACKENDS)
def test_square_well_phase_shifts_match_analytic(backend):
    for l in range(4):
        eq = fr.Equation(kernel="square_well", k=1.5, u0=4.0, l=l, n=160)
        r = fr.solve(eq, backend=backend)
        assert r.residual < 1e-12
        delta = fr.phase_shift(eq, r)
        exact = fr.phase_shift_analytic(l, 1.5, 4.0, 1.0)
        assert abs(np.remainder(delta - exact + np.pi / 2, np.pi) - np.pi / 2) < 1e-9


def test_exact_solution_and_interpolant():
    """K = e^{ts}, h = e^t - (e^{t+1} - 1)/(t + 1) on [0, 1]: f = e^t."""
    eq = fr.Equation(kernel="exp_ts", rhs="exp_ts_smooth", n=16)
    t = np.linspace(0, 1, 11)
    r = fr.solve(eq, backend="reference", at=t)
    assert r.values.dtype == np.float64 and not r.values.flags.writeable
    assert np.max(np.abs(r.values - np.exp(r.points[:, 0]))) < 1e-13
    assert np.max(np.abs(r.at_values - np.exp(t))) < 1e-12
    direct = fr.solve(eq, method="direct", backend="cpu")
    assert rel_err(direct.values, r.values) < 1e-13


def test_errors():
    with pytest.raises(ValueError, match="unknown kernel"):
        fr.solve(fr.Equation(kernel="yukawa"))
    with pytest.raises(ValueError, match="positive number of nodes"):
        fr.solve(fr.Equation(n=0))
    with pytest.raises(ValueError, match="direct solver is for N <= 6000"):
        fr.solve(fr.Equation(n=7000), method="direct")
    with pytest.raises(ValueError, match="unknown precision"):
        fr.solve(fr.Equation(), precision="quad")
    with pytest.raises(ValueError, match=r"at must have shape"):
        fr.solve(fr.Equation(dim=2, kernel="gaussian"), at=np.zeros((3, 3)))


def test_docstrings():
    for obj in [fr, fr.Equation, fr.Result, fr.solve, fr.phase_shift, fr.phase_shift_analytic,
                fr.read_config]:
        assert obj.__doc__ and len(obj.__doc__) > 40, obj
