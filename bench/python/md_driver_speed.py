"""A Python-driven md run against the CLI (issue 12): LAMMPS's LJ melt (32,000 atoms, fcc 20^3 at
rho* = 0.8442, T* = 1.44, rc 2.5, skin 0.3, NVE dt 0.005) stepped by pairwise.md.Simulation.run(100)
calls, and `pairwise run examples/lj-melt.toml` with the same steps and thermo every 100 steps.
Prints a table and writes benchmark JSON records (DESIGN.md, Benchmarks) to --json.

    python3 bench/python/md_driver_speed.py --cli build/cuda/apps/pairwise/pairwise \\
        --backend cuda --steps 10000 --json out.json
"""

import argparse
import datetime
import json
import pathlib
import re
import statistics
import subprocess
import tempfile
import time

import pairwise
import pairwise.md as md

CONFIG = """workload = "md"
[system]
lattice = "fcc"
density = 0.8442
cells = "20 20 20"
temperature = 1.44
velocity_seed = 87287
[force_field]
cutoff = 2.5
[neighbor]
skin = 0.3
[integrator]
dt = 0.005
steps = {steps}
[run]
backend = "{backend}"
precision = "{precision}"
[output]
thermo_every = 100
progress = false
"""


def python_rate(args):
    system = md.lattice("fcc", 0.8442, 20, temperature=1.44, seed=87287)
    sim = md.Simulation(system["positions"], system["box"], velocities=system["velocities"],
                        backend=args.backend, precision=args.precision)
    sim.run(100)  # warm-up: first list build, kernels loaded
    start = time.perf_counter()
    for _ in range(args.steps // 100):
        sim.run(100)
    seconds = time.perf_counter() - start
    return (args.steps // 100) * 100 / seconds, sim.device_name, sim.thermo()["temperature"]


def cli_rate(args, directory):
    path = pathlib.Path(directory) / "melt.toml"
    path.write_text(CONFIG.format(steps=args.steps + 100, backend=args.backend,
                                  precision=args.precision))
    start = time.perf_counter()
    out = subprocess.run([args.cli, "run", str(path)], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    m = re.search(r"done: (\d+) steps in ([0-9.]+) s \(([0-9.]+) timesteps/s", out.stdout)
    return float(m.group(3)), (args.steps + 100) / wall


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cli", required=True)
    parser.add_argument("--backend", default="cuda")
    parser.add_argument("--precision", default="mixed")
    parser.add_argument("--steps", type=int, default=10000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    py, cli, cli_wall = [], [], []
    with tempfile.TemporaryDirectory() as directory:
        for _ in range(args.repeats):
            rate, device, temperature = python_rate(args)
            py.append(rate)
            c, w = cli_rate(args, directory)
            cli.append(c)
            cli_wall.append(w)
    p, c = statistics.median(py), statistics.median(cli)
    print("device %s, %s precision, 32000 atoms, %d steps per measurement" %
          (device, args.precision, args.steps))
    print("python run(100) x %d: %s timesteps/s (median %.1f)" %
          (args.steps // 100, ", ".join("%.1f" % v for v in py), p))
    print("CLI (its integration timer): %s timesteps/s (median %.1f); CLI wall incl. setup %s" %
          (", ".join("%.1f" % v for v in cli), c, ", ".join("%.1f" % v for v in cli_wall)))
    print("python / CLI = %.4f (target >= 0.97)" % (p / c))
    if args.json:
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        common = dict(suite="python-md", backend=args.backend, precision=args.precision,
                      device=device, n=32000, metric="timesteps_per_second", unit="1/s",
                      git="api", date=date)
        records = [dict(common, case="python run(100) calls", value=p, time_s=args.steps / p,
                        params=dict(steps=args.steps, repeats=args.repeats, all=py,
                                    statistic="median", pairwise_version=pairwise.__version__)),
                   dict(common, case="cli pairwise run", value=c, time_s=args.steps / c,
                        params=dict(steps=args.steps + 100, repeats=args.repeats, all=cli,
                                    thermo_every=100, statistic="median",
                                    timer="the CLI's integration timer (advance() only)")),
                   dict(common, case="python / cli", value=p / c, metric="ratio", unit="1",
                        time_s=0, params=dict(target=0.97))]
        pathlib.Path(args.json).write_text(json.dumps(records, indent=2) + "\n")


if __name__ == "__main__":
    main()
