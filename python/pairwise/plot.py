"""Pictures of pairwise outputs with matplotlib.

  thermo(csv)        the thermo/diagnostic CSV of `pairwise run`: md (T, E_pair, TotEng, Press vs
                     Step), nbody (energy error vs t, K and W), ljc (T and E vs t_ps), or any CSV
                     (every column against the first)
  map_slice(path)    a slice of a potential map (.dx as APBS and `pairwise potmap` write it, or
                     .npy with origin and spacing given) with the atoms near the slice
  bench(json)        benchmark JSON of `pairwise bench ... --json`: rate vs N per case, backend
                     and precision, log-log, with peers' figures when given

From the shell:
  python3 -m pairwise.plot FILE.csv|FILE.dx|FILE.npy|FILE.json -o FILE.png [options]
"""

import argparse
import json
import pathlib
import sys

import numpy as np

__all__ = ["read_csv", "read_dx", "thermo", "map_slice", "bench", "main"]


def _pyplot():
    import matplotlib

    if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "ps", "cairo"):
        try:
            matplotlib.use("Agg")
        except Exception:  # an interactive session chose a backend already
            pass
    import matplotlib.pyplot as plt

    return plt


def read_csv(path):
    """A CSV with a header row (as `pairwise run` writes) as a dict of numpy float columns."""
    lines = [line for line in pathlib.Path(path).read_text().splitlines() if line.strip()]
    if len(lines) < 2:
        raise ValueError("%s: expected a header row and at least one data row" % path)
    names = lines[0].split(",")
    try:
        rows = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    except ValueError as e:
        raise ValueError("%s: %s" % (path, e)) from None
    if rows.shape[1] != len(names):
        raise ValueError("%s: %d columns in the header, %d in the rows" %
                         (path, len(names), rows.shape[1]))
    return {name: rows[:, k] for k, name in enumerate(names)}


def read_dx(path):
    """An OpenDX regular grid: (values (nx, ny, nz), origin (3,), spacing (3,), comments)."""
    counts = origin = None
    deltas, values, comments = [], [], []
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            if words[0] == "#":
                comments.append(line[1:].strip())
            elif line.startswith("object 1"):
                counts = [int(w) for w in words[-3:]]
            elif words[0] == "origin":
                origin = [float(w) for w in words[1:4]]
            elif words[0] == "delta":
                deltas.append([float(w) for w in words[1:4]])
            elif words[0] in ("object", "attribute", "component"):
                continue
            else:
                values.extend(float(w) for w in words)
    if counts is None or origin is None or len(deltas) != 3:
        raise ValueError("%s: not an OpenDX regular grid" % path)
    grid = np.array(values[: counts[0] * counts[1] * counts[2]]).reshape(counts)
    spacing = np.array([deltas[0][0], deltas[1][1], deltas[2][2]])
    return grid, np.array(origin), spacing, comments


def thermo(csv, ax=None, columns=None):
    """Draws a thermo/diagnostic CSV; returns the figure. `columns` picks the y columns."""
    plt = _pyplot()
    data = read_csv(csv) if not isinstance(csv, dict) else csv
    names = list(data)
    if "dE/E0" in data and columns is None:  # nbody
        fig, axes = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
        axes[0].semilogy(data["t"][1:], np.abs(data["dE/E0"][1:]), "o-")
        axes[0].set_ylabel("|E - E0| / |E0|")
        axes[0].set_title("energy error")
        for name in ("K", "W", "E"):
            axes[1].plot(data["t"], data[name], label=name)
        axes[1].set_xlabel("t (Henon units)")
        axes[1].legend()
        fig.tight_layout()
        return fig
    x = names[0]
    if columns is None:
        preferred = [["Temp", "E_pair", "TotEng", "Press"],  # md
                     ["T_K", "E", "U_lj", "U_coul"]]  # ljc
        columns = next(([c for c in p if c in data] for p in preferred
                        if all(c in data for c in p)),
                       [n for n in names[1:] if n not in ("wall_s", "Rebuilds")])
        if "t_ps" in data:
            x = "t_ps"
    if ax is not None:
        for c in columns:
            ax.plot(data[x], data[c], label=c)
        ax.set_xlabel(x)
        ax.legend()
        return ax.figure
    fig, axes = plt.subplots(len(columns), 1, figsize=(7, 1.8 * len(columns) + 1), sharex=True,
                             squeeze=False)
    for a, c in zip(axes[:, 0], columns):
        a.plot(data[x], data[c], ".-")
        a.set_ylabel(c)
    axes[-1, 0].set_xlabel(x)
    fig.tight_layout()
    return fig


def map_slice(path, axis="z", index=None, atoms=None, origin=(0, 0, 0), spacing=1.0, ax=None,
              units=None, width=1.0):
    """Draws the plane `index` (default: the middle) normal to `axis` of a .dx or .npy map (or a
    (values, origin, spacing) tuple), with the atoms (N, 3) (or a dict with positions and
    charges) lying within `width` Angstrom of the plane; returns the figure."""
    plt = _pyplot()
    if isinstance(path, tuple):
        values, origin, spacing = path
        comments = []
    elif str(path).endswith(".dx"):
        values, origin, spacing, comments = read_dx(path)
    else:
        values, comments = np.load(path), []
    origin = np.asarray(origin, dtype=float)
    spacing = np.broadcast_to(np.asarray(spacing, dtype=float), (3,))
    k = "xyz".index(axis)
    index = values.shape[k] // 2 if index is None else index
    plane = np.take(values, index, axis=k)
    u, v = [d for d in range(3) if d != k]
    extent = [origin[u], origin[u] + spacing[u] * (values.shape[u] - 1),
              origin[v], origin[v] + spacing[v] * (values.shape[v] - 1)]
    fig = ax.figure if ax is not None else plt.figure(figsize=(6.5, 5.5))
    ax = ax or fig.add_subplot(111)
    limit = np.percentile(np.abs(plane), 99) or 1.0
    image = ax.imshow(plane.T, origin="lower", extent=extent, cmap="RdBu_r", vmin=-limit,
                      vmax=limit, interpolation="nearest")
    if units is None:
        units = next((c.split(":", 1)[1].strip() for c in comments if c.startswith("units:")), "")
    fig.colorbar(image, ax=ax, label="potential" + (" (%s)" % units if units else ""))
    if atoms is not None:
        charges = None
        if isinstance(atoms, dict):
            atoms, charges = atoms["positions"], atoms.get("charges")
        atoms = np.asarray(atoms)
        level = origin[k] + index * spacing[k]
        near = np.abs(atoms[:, k] - level) < width
        colors = "k" if charges is None else np.where(np.asarray(charges)[near] > 0, "r", "b")
        ax.scatter(atoms[near, u], atoms[near, v], s=6, c=colors, edgecolors="none")
    ax.set_xlabel("xyz"[u] + " (A)")
    ax.set_ylabel("xyz"[v] + " (A)")
    ax.set_title("%s = %.2f A" % (axis, origin[k] + index * spacing[k]))
    fig.tight_layout()
    return fig


def bench(path, peers=None, ax=None):
    """Draws benchmark records (a JSON list, or JSON lines): value vs n for every (case, backend,
    precision), log-log. `peers`: a JSON list of {label, n, value} (e.g. the figures of
    docs/performance.md) drawn as black markers. Returns the figure."""
    plt = _pyplot()
    text = pathlib.Path(path).read_text().strip()
    records = json.loads(text) if text.startswith("[") else [json.loads(line)
                                                             for line in text.splitlines()]
    series = {}
    for r in records:
        if "n" not in r or "value" not in r:
            continue
        key = (r.get("case", ""), r.get("backend", ""), r.get("precision", ""))
        series.setdefault(key, []).append((float(r["n"]), float(r["value"])))
    if not series:
        raise ValueError("%s: no benchmark records with n and value" % path)
    fig = ax.figure if ax is not None else plt.figure(figsize=(7, 5))
    ax = ax or fig.add_subplot(111)
    for (case, backend, precision), points in sorted(series.items()):
        points.sort()
        n, value = zip(*points)
        ax.loglog(n, value, "o-", label="%s %s %s" % (case, backend, precision))
    if peers:
        marks = json.loads(pathlib.Path(peers).read_text()) if not isinstance(peers, list) else peers
        for p in marks:
            ax.loglog([p["n"]], [p["value"]], "k*", markersize=10)
            ax.annotate(p["label"], (p["n"], p["value"]), textcoords="offset points",
                        xytext=(4, 4), fontsize=8)
    first = records[0]
    ax.set_xlabel("N")
    ax.set_ylabel("%s (%s)" % (first.get("metric", "rate"), first.get("unit", "")))
    ax.set_title("%s on %s" % (first.get("suite", "benchmark"), first.get("device", "")))
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    return fig


def main(argv=None):
    """python3 -m pairwise.plot FILE -o FILE.png: the picture of a CSV, map or benchmark JSON."""
    parser = argparse.ArgumentParser(prog="python3 -m pairwise.plot", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", help="thermo CSV, .dx/.npy map or benchmark JSON")
    parser.add_argument("-o", "--output", required=True, help="the picture (.png, .pdf, .svg)")
    parser.add_argument("--columns", help="CSV: comma-separated columns to draw")
    parser.add_argument("--axis", default="z", choices="xyz", help="map: the slice normal")
    parser.add_argument("--index", type=int, help="map: the plane index (default: the middle)")
    parser.add_argument("--atoms", help="map: atoms to draw (.pqr or an 'x y z q' table)")
    parser.add_argument("--origin", help="npy map: the origin X,Y,Z (default 0,0,0)")
    parser.add_argument("--spacing", type=float, default=1.0, help="npy map: the spacing")
    parser.add_argument("--peers", help="bench: JSON list of {label, n, value}")
    args = parser.parse_args(argv)
    path = pathlib.Path(args.file)
    try:
        if path.suffix == ".csv":
            fig = thermo(path, columns=args.columns.split(",") if args.columns else None)
        elif path.suffix in (".dx", ".npy"):
            atoms = None
            if args.atoms:
                from . import potmap

                atoms = potmap.read_atoms(args.atoms)
            origin = [float(v) for v in args.origin.split(",")] if args.origin else (0, 0, 0)
            fig = map_slice(path, axis=args.axis, index=args.index, atoms=atoms, origin=origin,
                            spacing=args.spacing)
        elif path.suffix == ".json":
            fig = bench(path, peers=args.peers)
        else:
            raise ValueError("unknown file kind '%s' (expected .csv, .dx, .npy or .json)" %
                             path.suffix)
        fig.savefig(args.output, dpi=110)
    except (OSError, ValueError, KeyError) as e:
        print("error: %s, %s" % (e, path), file=sys.stderr)
        return 1
    print("wrote %s" % args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
