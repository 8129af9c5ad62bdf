// The md problems of the mpi tests (test_mpi_md.cpp on the cpu backend, test_mpi_md_cuda.cpp on
// the cuda backend): LAMMPS's in.lj (tests/data/lj32k-*), seven atoms with one domain empty, a
// box too small for three domains; and the comparison of a run alone with one on many ranks.
#pragma once

#include "mpi_run.hpp"

namespace pairwise::mpitest {

inline std::filesystem::path write_file(const std::filesystem::path& file,
                                        const std::string& text) {
  std::ofstream(file) << text;
  return file;
}

// Runs `problem_text` on `ranks` (1: alone, no mpirun) into a fresh directory named by `tag`.
struct MdRun {
  std::filesystem::path dir;
  Result result;
};
inline MdRun run_md(const std::string& problem_text, const std::string& tag, int ranks) {
  const auto dir = fresh_dir("md-" + std::to_string(ranks) + "-" + tag);
  const auto problem = write_file(dir / "md.toml", problem_text);
  const std::string launch = ranks > 1 ? mpirun(ranks) : "";
  return {dir, shell(launch + binary() + " run " + problem.string() + " --output " + dir.string())};
}

// The thermo CSVs of two runs agree within `relative` (timings and the engine's own rebuild count
// left out).
inline void expect_same_thermo(const MdRun& a, const MdRun& b, double relative) {
  expect_same_csv(a.dir / "md.csv", b.dir / "md.csv", relative, {"wall_s", "Rebuilds"});
}

// Runs `problem_text` alone and on `ranks` and compares the thermo; returns the many-rank run.
inline MdRun expect_thermo_matches(const std::string& problem_text, const std::string& tag,
                                   int ranks, double relative) {
  const MdRun one = run_md(problem_text, tag, 1), many = run_md(problem_text, tag, ranks);
  EXPECT_EQ(one.result.code, 0) << one.result.output;
  EXPECT_EQ(many.result.code, 0) << many.result.output;
  if (one.result.code != 0 || many.result.code != 0) return many;
  const std::string& log = many.result.output;
  EXPECT_NE(log.find(std::to_string(ranks) + " ranks (MPI"), std::string::npos) << log;
  EXPECT_NE(log.find("atoms per rank"), std::string::npos) << log;
  expect_same_thermo(one, many, relative);
  return many;
}

inline std::string lammps_in_lj(int steps = 100, const std::string& backend = "cpu",
                                const std::string& precision = "double") {
  return "workload = \"md\"\n[system]\ndata_file = \"" + std::string(PAIRWISE_TEST_DATA) +
         "/lj32k-initial.data.gz\"\n[force_field]\nstyle = \"cut\"\ncutoff = 2.5\n"
         "[neighbor]\nskin = 0.3\n[integrator]\ndt = 0.005\nsteps = " +
         std::to_string(steps) + "\n[run]\nbackend = \"" + backend + "\"\nprecision = \"" +
         precision + "\"\n[output]\nthermo_every = 10\nprogress = false\n";
}

// 7 atoms in a 9σ box, all below z = 6: on 3 ranks (domains 1x1x3, 3σ thick) the top domain starts
// empty; the atom at z = 4.4 moving up at 2.5 σ/τ migrates into it, the one at z = 0.2 interacts
// across the periodic boundary. `overlap`: atom 2 0.3σ from atom 1 (the run blows up at once).
inline std::string seven_atoms(const std::filesystem::path& dir, const std::string& thermostat,
                               const std::string& backend = "cpu", bool overlap = false) {
  write_file(dir / "seven.data",
             "seven atoms\n\n7 atoms\n1 atom types\n\n0 9 xlo xhi\n0 9 ylo yhi\n0 9 zlo zhi\n\n"
             "Masses\n\n1 1.0\n\nPair Coeffs\n\n1 1.0 1.0\n\nAtoms # atomic\n\n"
             "1 1 4.0 4.0 1.0 0 0 0\n2 1 " +
                 std::string(overlap ? "4.3" : "5.1") +
                 " 4.0 1.0 0 0 0\n3 1 4.0 5.1 1.0 0 0 0\n"
                 "4 1 4.0 4.0 2.1 0 0 0\n5 1 5.1 5.1 2.1 0 0 0\n6 1 4.5 4.5 4.4 0 0 0\n"
                 "7 1 4.6 4.6 0.2 0 0 0\n\nVelocities\n\n"
                 "1 0.3 -0.2 0.1\n2 -0.4 0.1 0.0\n3 0.2 0.5 -0.3\n4 -0.1 -0.1 0.2\n"
                 "5 0.0 0.3 -0.4\n6 0.1 0.0 2.5\n7 0.2 -0.3 -0.6\n");
  return "workload = \"md\"\n[system]\ndata_file = \"" + (dir / "seven.data").string() + "\"\n" +
         (overlap ? "allow_overlap = true\n" : "") +
         "[force_field]\nstyle = \"shift\"\ncutoff = 2.5\n[neighbor]\nskin = 0.3\n"
         "[integrator]\ndt = 0.005\nsteps = 200\nthermostat = \"" +
         thermostat + "\"\n" + (thermostat == "none" ? "" : "temperature = 1.0\n") +
         "[run]\nbackend = \"" + backend + "\"\nprecision = \"double\"\n" +
         "[output]\nthermo_every = 20\nprogress = false\nfinal_data = \"final.data\"\n";
}

// A run that blows up (seven_atoms with `overlap`) on `ranks`: every rank exits non-zero without
// hanging, with the message of the run alone ("the simulation blew up (...) by step 20, atom id
// 1").
inline void expect_blow_up_is_a_clear_error(const std::string& backend, int ranks) {
  const auto dir = fresh_dir("md-blow-up-" + backend);
  const std::string problem = seven_atoms(dir, "none", backend, true);
  const MdRun one = run_md(problem, "blow-up-" + backend, 1);
  EXPECT_NE(one.result.code, 0) << one.result.output;
  const std::string& text = one.result.output;
  const std::size_t at = text.find("the simulation blew up");
  ASSERT_NE(at, std::string::npos) << text;
  const std::string message = text.substr(at, text.find('\n', at) - at);
  const MdRun many = run_md(problem, "blow-up-" + backend, ranks);
  EXPECT_NE(many.result.code, 0) << many.result.output;
  EXPECT_NE(many.result.code, 124) << "the ranks hung:\n" << many.result.output;
  EXPECT_NE(many.result.output.find(message + " (rank "), std::string::npos) << message << "\n"
                                                                             << many.result.output;
}

// fcc 4x4x4 cells at ρ = 0.8442: a 6.72σ box; 3 ranks would cut 2.24σ slabs < rc + skin = 2.8σ,
// 2 ranks fit (3.36σ slabs).
inline std::string thin_fcc(const std::string& backend) {
  return "workload = \"md\"\n[system]\nlattice = \"fcc\"\ncells = \"4 4 4\"\n[integrator]\n"
         "steps = 10\n[run]\nbackend = \"" +
         backend + "\"\n[output]\nprogress = false\n";
}

// thin_fcc on 3 ranks is a clear error on every rank (no hang); on 2 ranks it runs.
inline void expect_thin_domain_is_a_clear_error(const std::string& backend) {
  const auto dir = fresh_dir("md-thin-" + backend);
  const auto problem = write_file(dir / "thin.toml", thin_fcc(backend));
  const Result r =
      shell(mpirun(3) + binary() + " run " + problem.string() + " --output " + dir.string(), 60);
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.code, 124) << "the ranks hung:\n" << r.output;
  EXPECT_NE(r.output.find("thinner than the cutoff plus skin"), std::string::npos) << r.output;
  const Result two =
      shell(mpirun(2) + binary() + " run " + problem.string() + " --output " + dir.string(), 60);
  EXPECT_EQ(two.code, 0) << two.output;
}

}  // namespace pairwise::mpitest
