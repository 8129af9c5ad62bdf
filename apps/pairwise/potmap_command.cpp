// `pairwise potmap ATOMS -o MAP.dx [flags]`: an electrostatic potential map (src/potmap/run.hpp);
// `pairwise bench potmap`: its benchmark suite (src/potmap/bench.hpp).
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench_flags.hpp"
#include "commands.hpp"
#include "core/io/trajectory.hpp"
#include "pairwise/error.hpp"
#include "potmap/bench.hpp"
#include "potmap/run.hpp"

namespace pairwise::cli {

namespace {

struct PotmapArgs {
  std::string input, output, format = "auto", charges, units = "kT/e", backend = "auto",
                             precision = "single";
  double water_box = 0, spacing = 0.5, padding = 5.0, cutoff = 0, exclusion = 0, bin_size = 0;
  double device_memory_mib = 0;
  std::vector<double> origin;
  std::vector<std::size_t> counts;
  bool kahan = false, no_slabs = false;
  std::uint64_t seed = 1;
  std::string trajectory, topology, trajectory_format = "auto", frames, combine = "avg";
  std::vector<double> box;
  bool no_periodic = false;
};

int run(const PotmapArgs& a, CLI::App* sub) {
  potmap::PotmapConfig c;
  c.input = a.input;
  if (!a.topology.empty()) {
    if (!a.input.empty())
      throw Error("give the atoms either as INPUT or as --topology", "--topology");
    c.input = a.topology;
  }
  if (!a.trajectory.empty()) {
    c.trajectory = a.trajectory;
    c.trajectory_format = io::parse_trajectory_format(a.trajectory_format);
    if (!a.frames.empty()) potmap::parse_frame_range(a.frames, c);
    c.combine = potmap::parse_combine(a.combine);
  } else if (!a.frames.empty() || sub->count("--combine")) {
    throw Error("--frames and --combine need --trajectory", "--frames");
  }
  if (!a.box.empty()) {
    c.box_given = true;
    for (int i = 0; i < 3; ++i) c.box[std::size_t(i)] = a.box[std::size_t(i)];
  }
  c.periodic = !a.no_periodic;
  c.format = potmap::parse_input_format(a.format);
  c.charges = a.charges;
  c.water_box = a.water_box;
  c.seed = a.seed;
  if (c.input.empty() && c.water_box <= 0) {
    throw Error("no input: give an atom file or --water-box EDGE", "potmap");
  }
  c.spacing = a.spacing;
  c.padding = a.padding;
  if (sub->count("--origin") != sub->count("--counts")) {
    throw Error("an explicit lattice needs both --origin X,Y,Z and --counts NX,NY,NZ", "--origin");
  }
  if (!a.origin.empty()) {
    if (sub->count("--padding")) throw Error("--padding is not used with --origin", "--padding");
    c.explicit_lattice = true;
    for (int i = 0; i < 3; ++i) c.origin[std::size_t(i)] = a.origin[std::size_t(i)];
    for (int i = 0; i < 3; ++i) c.counts[std::size_t(i)] = a.counts[std::size_t(i)];
  }
  c.map.cutoff = a.cutoff;
  c.map.exclusion = a.exclusion;
  c.map.kahan = a.kahan;
  c.map.bin_size = a.bin_size;
  c.map.slabs = !a.no_slabs;
  c.map.device_memory_limit = std::size_t(a.device_memory_mib * 1048576.0);
  c.map.precision = parse_precision(a.precision);
  c.units = potmap::parse_units(a.units);
  c.backend = parse_backend(a.backend);
  c.output = a.output;
  return potmap::run_potmap(c, std::cout);
}

}  // namespace

Command add_potmap_command(CLI::App& app) {
  auto args = std::make_shared<PotmapArgs>();
  CLI::App* sub = app.add_subcommand(
      "potmap", "Electrostatic potential map of point charges on a lattice (OpenDX or .npy)");
  auto& a = *args;
  sub->add_option("input", a.input, "Atoms: .pqr, .pdb (with --charges) or an 'x y z q' table");
  sub->add_option("-o,--output", a.output, "The map: FILE.dx (OpenDX), FILE.dx.gz or FILE.npy")
      ->required();
  sub->add_option("--format", a.format, "Input format (default: by extension)")
      ->check(CLI::IsMember({"auto", "pqr", "pdb", "xyzq"}));
  sub->add_option(
      "--trajectory", a.trajectory,
      "Map the frames of a trajectory: LAMMPS dump, XYZ or DCD (atoms of the topology)");
  sub->add_option("--topology", a.topology,
                  "The atoms and charges of the trajectory's frames (.pqr, .pdb with --charges)");
  sub->add_option("--trajectory-format", a.trajectory_format, "auto | dcd | xyz | lammpstrj")
      ->check(CLI::IsMember({"auto", "dcd", "xyz", "lammpstrj", "dump"}));
  sub->add_option("--frames", a.frames,
                  "first:last:stride (0-based, last inclusive, parts optional; default all)");
  sub->add_option("--combine", a.combine,
                  "avg (default) | min | max | all (a 4-D .npy, or one .dx a frame)")
      ->check(CLI::IsMember({"avg", "min", "max", "all"}));
  sub->add_option("--box", a.box,
                  "Periodic cell LX,LY,LZ in Å (origin 0): periodic images within the cutoff")
      ->delimiter(',')
      ->expected(3);
  sub->add_flag("--no-periodic", a.no_periodic, "Ignore the trajectory's unit cell");
  sub->add_option("--charges", a.charges, "Charge table for PDB input: RESNAME ATOMNAME CHARGE");
  sub->add_option("--water-box", a.water_box,
                  "No input file: a generated TIP3P-charged water box of this edge (Å)");
  sub->add_option("--seed", a.seed, "Seed of the generated water box");
  sub->add_option("--spacing", a.spacing, "Lattice spacing in Å (default 0.5)");
  sub->add_option("--padding", a.padding, "Lattice margin around the atoms in Å (default 5)");
  sub->add_option("--origin", a.origin, "Explicit lattice origin X,Y,Z (Å), with --counts")
      ->delimiter(',')
      ->expected(3);
  sub->add_option("--counts", a.counts, "Explicit lattice counts NX,NY,NZ, with --origin")
      ->delimiter(',')
      ->expected(3);
  sub->add_option("--cutoff", a.cutoff,
                  "Cutoff rc in Å with s(r) = (1 - r²/rc²)² (default 0: direct summation)");
  sub->add_option("--exclusion", a.exclusion, "Zero the points closer than this to an atom (Å)");
  sub->add_flag("--kahan", a.kahan, "Compensated (Kahan) summation");
  sub->add_option("--units", a.units, "kT/e (at 298.15 K, default) | V | kcal/mol/e")
      ->check(CLI::IsMember({"kT/e", "V", "kcal/mol/e"}));
  sub->add_option("--backend", a.backend, "auto | reference | cpu | cuda")
      ->check(CLI::IsMember({"auto", "reference", "cpu", "cuda"}));
  sub->add_option("--precision", a.precision, "single (default) | mixed | double")
      ->check(CLI::IsMember({"single", "mixed", "double"}));
  sub->add_option("--bin-size", a.bin_size, "Atom bin edge of the cuda backend in Å");
  sub->add_option("--device-memory", a.device_memory_mib,
                  "Device memory for the lattice in MiB (default: what is free); larger "
                  "lattices are computed in slabs");
  sub->add_flag("--no-slabs", a.no_slabs, "Fail instead of splitting a lattice into slabs");
  return {sub, [args, sub] { return run(*args, sub); }};
}

}  // namespace pairwise::cli

namespace pairwise::cli {

Command add_potmap_bench(CLI::App& bench) {
  struct Args {
    BenchFlags flags;
    potmap::BenchOptions options;
    bool no_scaling = false;
  };
  auto a = std::make_shared<Args>();
  CLI::App* sub = bench.add_subcommand(
      "potmap", "Potential maps: the 100 Å water box cutoff map, direct summation, scaling");
  a->flags.add_json(sub);
  sub->add_option("--input", a->options.input,
                  "The water box (.pqr, e.g. watbox100.pqr; default: a generated 100 Å box)");
  a->flags.add_backend(sub);
  a->flags.add_repeats(sub);
  sub->add_option("--volumes", a->options.volumes, "Box volumes (Å³) of the scaling sweep")
      ->delimiter(',');
  a->flags.add_no_cpu(sub);
  sub->add_flag("--no-scaling", a->no_scaling, "Skip the scaling sweep");
  sub->add_flag("--e2e-only", a->options.e2e_only,
                "Only the end-to-end cases (whole `pairwise potmap` processes; need --input)");
  sub->add_option("--e2e-frames", a->options.e2e_frames,
                  "Frames of the end-to-end trajectory cases (default 1000; 0: none)");
  return {sub, [a] {
            potmap::BenchOptions o = a->options;
            a->flags.apply_to(o);
            o.scaling = !a->no_scaling;
            return potmap::run_potmap_bench(o);
          }};
}

}  // namespace pairwise::cli
