#!/usr/bin/env python3
"""The scaling model of docs/distributed.md: per step (or per product), compute time on one GPU's
share of the work against the time of the messages that share needs, for P GPUs.

Inputs are the single-H200 figures of /work/shared/BENCHMARKS.md ("pairwise today") and link
figures (assumptions, stated in docs/distributed.md): NVLink 4 inside a node (HGX H200, 8 GPUs),
one 400 Gb/s InfiniBand NDR NIC per GPU between nodes.
  t_comm = alpha * hops + bytes / bandwidth,  efficiency = t_compute / (t_compute + t_comm)
(no overlap; with perfect overlap it is min(1, t_compute / t_comm)).
Run: /usr/bin/python3 bench/scaling_model.py
"""
import math

NVLINK_BW = 370e9  # B/s, NCCL all-gather/bus bandwidth inside an 8-GPU NVLink node
IB_BW = 45e9  # B/s per GPU, 400 Gb/s NDR less protocol overhead
NVLINK_ALPHA = 2e-6  # s per ring step inside a node
IB_ALPHA = 6e-6  # s per ring step between nodes
GPUS_PER_NODE = 8
PS = [1, 2, 4, 8, 64, 1024]


def allgather_time(total_bytes, p):
    """Hierarchical ring all-gather of total_bytes (each rank ends with all of it)."""
    if p == 1:
        return 0.0
    inside = min(p, GPUS_PER_NODE)
    nodes = math.ceil(p / GPUS_PER_NODE)
    t = (inside - 1) * NVLINK_ALPHA + total_bytes * (inside - 1) / inside / NVLINK_BW / max(nodes, 1)
    if nodes > 1:
        t += (nodes - 1) * IB_ALPHA + total_bytes * (nodes - 1) / nodes / IB_BW
    return t


def allreduce_time(total_bytes, p):
    """Ring all-reduce (reduce-scatter + all-gather) of total_bytes on every rank."""
    return 2 * allgather_time(total_bytes, p)


def halo_time(bytes_per_face_pair, p, messages=6):
    """Six neighbour messages per step (3 axes x 2 sides), NVLink inside a node, IB beyond."""
    if p == 1:
        return 0.0
    bw, alpha = (NVLINK_BW / 2, NVLINK_ALPHA * 2) if p <= GPUS_PER_NODE else (IB_BW, IB_ALPHA * 2)
    return messages * alpha + bytes_per_face_pair / bw


def row(name, p, compute, comm):
    eff = compute / (compute + comm) if compute + comm > 0 else 1
    overlap = min(1.0, compute / comm) if comm > 0 else 1.0
    print(f"{name:34s} P={p:5d}  compute {compute*1e3:9.3f} ms  comm {comm*1e3:8.3f} ms"
          f"  eff {eff:5.2f} (overlapped {overlap:4.2f})")


def nbody():
    n = 1 << 20
    # As implemented on cuda (src/nbody/cuda_ranks.hpp): the Newton-3 pair tiles shared, the exact
    # words (20 int64 per component; 4 components GA, 7 GAJ) all-reduced.
    for label, rate, bytes_per in [("nbody GA N=2^20 (tiles, words)", 2.87e12, 4 * 20 * 8),
                                   ("nbody GAJ N=2^20 (tiles, words)", 1.21e12, 7 * 20 * 8)]:
        for p in PS:
            row(label, p, n * n / rate / p, allreduce_time(n * bytes_per, p))
    # The same sums rounded to double before the all-reduce (not implemented: 20x fewer bytes).
    for label, rate, bytes_per in [("nbody GA N=2^20 (tiles, doubles)", 2.87e12, 4 * 8),
                                   ("nbody GAJ N=2^20 (tiles, doubles)", 1.21e12, 7 * 8)]:
        for p in PS:
            row(label, p, n * n / rate / p, allreduce_time(n * bytes_per, p))
    # A ring of j-particles (x, y, z, m fp32; + v for GAJ): the design alternative.
    for label, rate, bytes_per in [("nbody GA N=2^20 (j ring)", 2.87e12, 16),
                                   ("nbody GAJ N=2^20 (j ring)", 1.21e12, 32)]:
        for p in PS:
            row(label, p, n * n / rate / p, allgather_time(n * bytes_per, p))
    active = n // 100
    for p in PS:  # block steps: active particles: forces and predicted state, 14 doubles
        row("nbody block 1% N=2^20", p, active * n / 0.89e12 / p, allgather_time(active * 112, p))


def md_rate(n):
    """One H200, single precision, the single-GPU engine's atom-steps/s by atoms per GPU, linear
    between the measured sizes (session 18, git a9d5a75: `bench md` 1.143 G at 32,000 and 2.633 G
    at 256,000; 3.40 G at 2,048,000 and above, scripts/multi-gpu-bench's one-rank rows, 500 steps
    of the melt from the lattice)."""
    if n >= 2.048e6:
        return 3.40e9
    if n >= 2.56e5:
        return 2.633e9 + (3.40e9 - 2.633e9) * (n - 2.56e5) / (2.048e6 - 2.56e5)
    if n > 3.2e4:
        return 1.143e9 + (2.633e9 - 1.143e9) * (n - 3.2e4) / (2.56e5 - 3.2e4)
    return 1.143e9 * n / 3.2e4


def md():
    rho, r_list = 0.8442, 2.8
    rate = md_rate

    for label, total, weak in [("md in.lj 16,384,000 (strong)", 16_384_000, False),
                               ("md in.lj 2,048,000 per GPU (weak)", 2_048_000, True)]:
        for p in PS:
            n = total if weak else total / p
            side = (n / rho) ** (1 / 3)  # a cubic domain
            ghosts = rho * ((side + 2 * r_list) ** 3 - side ** 3) if p > 1 else 0
            compute = n / rate(n) * (1 + 0.5 * ghosts / n)  # pairs with ghosts, half list
            row(label, p, compute, halo_time(ghosts * 12, p))


def md_engine():
    """md with the cuda domain engine's own costs, calibrated on 4 H200s (session 16,
    PAIRWISE_MD_PROFILE=1 and the 1x1x1 engine, docs/distributed.md "Measured scaling"):
      step(P) = base(n) + test + axes * (forward(face) + (c0 + c1 * n) / interval)
    base(n): the domain engine's own step on one GPU, n / (own * md_rate(n)): own = 0.95 in
    session 16 (1x1x1: 705 us at 2,048,000 atoms), 1.0 since session 18's list build (the measured
    2- and 4-rank steps less this model's decomposition are within 2 % of the single-GPU
    engine's: 2,564 - 176 against 2,405 us strong on 2, 700 - 105 against 606 weak);
    test: the rebuild test's host all-gather, 13 us a step inside a node, plus an all-reduce's
    latency across nodes; per decomposed axis (1 on 2 GPUs, 2 on 4, 3 from 8): the forward
    exchange, 14 us + the face's ghosts (both sides, 16 B an atom) at 69 GB/s inside a node
    (24 us measured at 680 KB, 53 at 2.7 MB), IB's 12 us + 45 GB/s beyond; the rebuild's
    migration and ghost stages, c0 = 243 us + c1 = 23 us per million atoms a rebuild (290 us at
    2,048,000, 430 at 8,192,000), one rebuild in `interval` = 6.2 steps (in.lj's skin).
    Efficiency against the single-GPU engine at the whole size (strong) or per GPU (weak)."""
    rho, r_list, interval = 0.8442, 2.8, 6.2
    c0, c1 = 243e-6, 23e-12
    own = 1.0
    rate = md_rate

    def grid(p):  # domains per axis, the least surface for a cube cut P ways
        g = [1, 1, 1]
        k = 0
        while g[0] * g[1] * g[2] < p:
            g[2 - k % 3] *= 2
            k += 1
        return g

    for label, total, weak in [("md engine, 16,384,000 (strong)", 16_384_000, False),
                               ("md engine, 2,048,000 per GPU (weak)", 2_048_000, True)]:
        for p in PS:
            n = total if weak else total / p
            cube = (total * (p if weak else 1) / rho) ** (1 / 3)  # the whole box's side
            g = grid(p)
            sides = [cube / k for k in g]
            # One rank runs the single-GPU engine (no domains).
            base = n / (own * rate(n)) if p > 1 else n / rate(n)
            nodes = math.ceil(p / GPUS_PER_NODE)
            test = 0.0 if p == 1 else 13e-6 + (2 * math.log2(nodes) * IB_ALPHA if nodes > 1 else 0)
            comm = test
            for d in range(3):
                if g[d] == 1:
                    continue
                area = sides[(d + 1) % 3] * sides[(d + 2) % 3]
                face = 2 * area * r_list * rho * 16  # both sides' ghosts, bytes
                forward = 14e-6 + face / 69e9 if nodes == 1 else 2 * IB_ALPHA + face / IB_BW
                comm += forward + (c0 + c1 * n) / interval
            ideal = n / rate(total if not weak else n)  # the single-GPU engine's share
            eff = ideal / (base + comm)
            print(f"{label:36s} P={p:5d}  grid {g[0]}x{g[1]}x{g[2]}  step {(base + comm)*1e6:8.0f} us"
                  f"  (own {base*1e6:7.0f}, decomposition {comm*1e6:6.0f})  eff {eff:5.2f}")


def fredholm():
    n = 1 << 20
    for p in PS:
        row("fredholm matvec N=2^20", p, n * n / 4.04e12 / p, allgather_time(n * 8, p))


def potmap():
    points = 301 ** 3  # 150 A box, 0.5 A lattice
    gpu_s = 4.65e-3 * points / 201 ** 3  # the 100 A map's 4.65 ms, scaled by points
    for p in PS:  # one slab of x-planes per rank: at most 301 ranks get work
        planes = 301 / min(p, 301)
        halo = (planes * 0.5 + 2 * 12) / (planes * 0.5)  # atoms reaching a slab / its own
        compute = gpu_s / min(p, 301) * (0.7 + 0.3 * halo)  # 30 % of the time bins atoms
        # As built (src/potmap/cuda_map.cu, cuda_map_across_ranks): FP64 blocks of x-planes
        # (padded to the largest slab) all-gathered on the GPUs, 8 B per lattice point.
        row("potmap 150 A box (GPU time)", p, compute, allgather_time(points * 8, p))
    # A trajectory (src/potmap/rank_frames.cpp): frame k on rank k mod P, each rank maps whole
    # frames; one all-reduce of the FP64 partial map (sum, min or max) per run, not per frame.
    frames = 1000
    for p in PS:
        compute = math.ceil(frames / p) * gpu_s  # the busiest rank's frames
        row("potmap 1,000 frames of 150 A (run)", p, frames * gpu_s / p,
            compute - frames * gpu_s / p + allreduce_time(points * 8, p))


def measured(path="bench/results/2026-11-28-NVIDIA-H200-x4-{}.json"):
    """The measured points (4 H200s, session 15) beside the model: parallel efficiency
    rate(P) / (P * rate(1)) per case, and md projected to 8 GPUs from the measured step times."""
    import json
    import os
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    for suite in ("nbody", "fredholm", "md", "potmap"):
        records = json.load(open(os.path.join(here, path.format(suite))))
        by_case = {}
        for r in records:
            case = r["case"].split(" GPU")[0].rsplit(",", 1)[0] if suite in ("md", "potmap") else r["case"]
            ranks = r["params"].get("ranks", 1)
            n = r["n"] // ranks if "weak" in case else r["n"]  # weak: per GPU
            by_case.setdefault((case, n), {})[ranks] = r["value"]
        for (case, n), rates in sorted(by_case.items()):
            one = rates.get(1)
            if not one:
                continue
            effs = "  ".join(f"P={p}: {v / (p * one):5.3f}" for p, v in sorted(rates.items()))
            print(f"measured {suite:8s} {case:32s} N={n:>9}  {effs}")
    # md, weak at 2,048,000 atoms per GPU: the measured step times (the records' time_s); a 2x2x2
    # grid on 8 GPUs adds a third decomposed axis, projected to cost what the second one did.
    weak = [r for r in json.load(open(os.path.join(here, path.format("md"))))
            if "weak" in r["case"]]
    steps = {r["params"]["ranks"]: r["time_s"] for r in weak}
    steps[8] = steps[4] + (steps[4] - steps[2])
    for p in (1, 2, 4, 8):
        print(f"md weak 2,048,000/GPU  P={p}: step {steps[p]*1e6:6.0f} us, efficiency "
              f"{steps[1] / steps[p]:4.2f}" + ("  (projected)" if p == 8 else "  (measured)"))

if __name__ == "__main__":
    nbody()
    md()
    md_engine()
    fredholm()
    potmap()
    measured()
