"""Fixtures of the Python tier: the CLI executable, tests/data and a helper that runs the CLI."""

import os
import pathlib
import subprocess

import pytest

import pairwise

SOURCE = pathlib.Path(os.environ.get("PAIRWISE_SOURCE", pathlib.Path(__file__).parents[2]))
DATA = pathlib.Path(os.environ.get("PAIRWISE_TEST_DATA", SOURCE / "tests" / "data"))
BACKENDS = ["cpu"] + (["cuda"] if pairwise.cuda_available() else [])


@pytest.fixture
def cli(tmp_path):
    """Runs `pairwise ARGS...` in tmp_path; returns the completed process (asserts exit 0)."""
    binary = os.environ.get("PAIRWISE_BINARY", "pairwise")

    def run(*args, check=True):
        p = subprocess.run([binary, *map(str, args)], cwd=tmp_path, capture_output=True, text=True)
        if check:
            assert p.returncode == 0, p.stdout + p.stderr
        return p

    return run


def read_csv(path):
    """A CSV with a header row as a dict of float columns."""
    import numpy as np

    lines = pathlib.Path(path).read_text().splitlines()
    names = lines[0].split(",")
    rows = np.array([[float(v) for v in line.split(",")] for line in lines[1:] if line])
    return {name: rows[:, k] for k, name in enumerate(names)}


def rel_err(a, b):
    """max |a - b| / max |b| (relative to the largest magnitude of b)."""
    import numpy as np

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-300))
