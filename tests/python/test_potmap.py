"""pairwise.potmap: Python == CLI (.npy and .dx), backends vs reference, Coulomb's law, errors."""

import numpy as np
import pytest

import pairwise.potmap as potmap
from conftest import BACKENDS, rel_err

FLAGS = ["--water-box", "12", "--seed", "3", "--spacing", "0.8", "--padding", "2",
         "--cutoff", "6", "--exclusion", "1", "--backend", "cpu"]


@pytest.mark.parametrize("precision", ["double", "single"])
def test_equals_cli(tmp_path, cli, precision):
    cli("potmap", *FLAGS, "--precision", precision, "-o", "m.npy")
    ref = np.load(tmp_path / "m.npy")
    atoms = potmap.water_box(12.0, seed=3)
    grid = potmap.grid_around(atoms["positions"], atoms["charges"], spacing=0.8, padding=2.0)
    m = potmap.compute_map(atoms["positions"], atoms["charges"], cutoff=6.0, exclusion=1.0,
                           backend="cpu", precision=precision, output=str(tmp_path / "py.dx"),
                           **grid)
    assert m["values"].shape == ref.shape and m["units"] == "kT/e"
    if precision == "double":
        assert rel_err(m["values"], ref) <= 1e-12
    else:
        assert np.array_equal(m["values"].astype(np.float32), ref)
    assert (tmp_path / "py.dx").exists()


@pytest.mark.parametrize("backend", BACKENDS)
def test_backends_equal_reference(backend):
    atoms = potmap.water_box(10.0, seed=1)
    grid = potmap.grid_around(atoms["positions"], atoms["charges"], spacing=1.0, padding=1.0)
    ref = potmap.compute_map(atoms["positions"], atoms["charges"], backend="reference", **grid)
    got = potmap.compute_map(atoms["positions"], atoms["charges"], backend=backend,
                             precision="double", **grid)
    assert rel_err(got["values"], ref["values"]) <= 1e-12


def test_coulomb_law():
    """One charge of +1 e at the origin: phi = 332.0636 / r kcal/(mol e), direct summation."""
    x = np.zeros((1, 3))
    q = np.ones(1, dtype=np.float32)
    m = potmap.compute_map(x, q, origin=(1.0, 0.0, 0.0), spacing=1.0, counts=(4, 1, 1),
                           units="kcal/mol/e", backend="reference", precision="double")
    r = np.arange(1.0, 5.0)
    assert np.allclose(m["values"][:, 0, 0], 332.0636 / r, rtol=1e-5)


def test_errors():
    atoms = potmap.water_box(6.0)
    x, q = atoms["positions"], atoms["charges"]
    bad = q.copy()
    bad[0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        potmap.compute_map(x, bad, origin=(0, 0, 0), spacing=1.0, counts=(2, 2, 2))
    with pytest.raises(ValueError, match="spacing"):
        potmap.compute_map(x, q, origin=(0, 0, 0), spacing=0.0, counts=(2, 2, 2))
    with pytest.raises(ValueError, match="units"):
        potmap.compute_map(x, q, origin=(0, 0, 0), spacing=1.0, counts=(2, 2, 2), units="mV")
    with pytest.raises(ValueError, match=r"charges must have shape"):
        potmap.compute_map(x, q[:3].copy(), origin=(0, 0, 0), spacing=1.0, counts=(2, 2, 2))
    with pytest.raises(MemoryError):
        potmap.compute_map(x, q, origin=(0, 0, 0), spacing=1.0, counts=(100000, 100000, 100000),
                           backend="cpu")


def test_docstrings():
    for obj in [potmap, potmap.water_box, potmap.read_atoms, potmap.grid_around,
                potmap.compute_map, potmap.read_config]:
        assert obj.__doc__ and len(obj.__doc__) > 40, obj
