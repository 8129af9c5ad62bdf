"""examples/python/*.py each run (cpu backend) and write their PNG; pairwise.plot draws thermo
CSVs, maps and benchmark JSON from the shell and reports bad input."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import pairwise
from conftest import SOURCE

EXAMPLES = sorted((SOURCE / "examples" / "python").glob("*.py"))
PNG = b"\x89PNG\r\n\x1a\n"


def is_png(path, min_bytes=10000):
    data = pathlib.Path(path).read_bytes()
    return data[:8] == PNG and len(data) >= min_bytes


def run_python(args, cwd):
    # The package the tests import (the build tree's), also for the child process.
    package_root = str(pathlib.Path(pairwise.__file__).resolve().parents[1])
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=package_root)
    return subprocess.run([sys.executable, *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_every_example_is_listed():
    names = {p.stem for p in EXAMPLES}
    assert {"plummer_energy", "lj_melt", "water_potential", "square_well",
            "ljc_globule"} <= names


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_writes_its_png(example, tmp_path):
    out = tmp_path / (example.stem + ".png")
    p = run_python([example, "-o", out, "--backend", "cpu"], tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert is_png(out)


def test_plot_command_line(tmp_path, cli):
    (tmp_path / "melt.toml").write_text(
        'workload = "md"\n[system]\ncells = "4 4 4"\n[integrator]\nsteps = 20\n'
        '[run]\nbackend = "cpu"\n[output]\nthermo_every = 5\nprogress = false\n')
    cli("run", "melt.toml")
    cli("potmap", "--water-box", "10", "--spacing", "1", "--backend", "cpu", "-o", "w.dx")
    cli("potmap", "--water-box", "10", "--spacing", "1", "--backend", "cpu", "-o", "w.npy")
    bench = SOURCE / "bench" / "results" / "2026-11-22-NVIDIA-H200-nbody-equal-mass.json"
    for source, extra in [("melt.csv", []), ("w.dx", []), ("w.npy", ["--origin", "0,0,0"]),
                          (bench, [])]:
        out = tmp_path / (pathlib.Path(source).stem + ".png")
        p = run_python(["-m", "pairwise.plot", source, "-o", out, *extra], tmp_path)
        assert p.returncode == 0, p.stdout + p.stderr
        assert is_png(out, 5000), source
    (tmp_path / "bad.csv").write_text("a,b\n1,2,3\n")
    p = run_python(["-m", "pairwise.plot", "bad.csv", "-o", "bad.png"], tmp_path)
    assert p.returncode == 1 and p.stderr.startswith("error: ")
    assert not (tmp_path / "bad.png").exists()


def test_read_dx_round_trip(tmp_path, cli):
    import pairwise.plot as plot

    cli("potmap", "--water-box", "8", "--spacing", "1", "--backend", "cpu", "--precision",
        "double", "-o", "w.dx")
    cli("potmap", "--water-box", "8", "--spacing", "1", "--backend", "cpu", "--precision",
        "double", "-o", "w.npy")
    values, origin, spacing, comments = plot.read_dx(tmp_path / "w.dx")
    assert np.array_equal(values, np.load(tmp_path / "w.npy"))
    assert np.allclose(spacing, 1.0) and any(c.startswith("units:") for c in comments)
