// Potential maps of trajectories and periodic cells (issue 17): the DCD, XYZ and LAMMPS dump
// readers (DCD checked against MDAnalysis as an independent writer and reader), trajectory maps
// against the single-frame maps they combine, periodic maps against a brute-force sum over
// images, .dx.gz read back by GridDataFormats, and bad trajectories failing with the frame named
// and no map written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "core/config.hpp"
#include "core/io/lammps_data.hpp"
#include "core/io/opendx.hpp"
#include "core/io/trajectory.hpp"
#include "error_message.hpp"
#include "pairwise/error.hpp"
#include "pairwise/physics/coulomb_potential.hpp"
#include "potmap/frames.hpp"
#include "potmap/run.hpp"

namespace {

using pairwise::test::error_of;

namespace fs = std::filesystem;
using namespace pairwise;
using namespace pairwise::potmap;

fs::path temp_dir() {
  static int n = 0;
  const fs::path d = fs::temp_directory_path() /
                     ("pw_traj_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

bool have_python_module(const char* module) {
  return std::system(("/usr/bin/python3 -c 'import " + std::string(module) + "' >/dev/null 2>&1")
                         .c_str()) == 0;
}

// Frames of a small water box, jittered (positions exactly representable in float32, as DCD
// stores them), in a cell of `edge` Å.
std::vector<io::TrajectoryFrame> jittered_frames(const Atoms& base, int frames, double edge,
                                                 unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-0.3, 0.3);
  std::vector<io::TrajectoryFrame> out(static_cast<std::size_t>(frames));
  for (int f = 0; f < frames; ++f) {
    auto& fr = out[std::size_t(f)];
    for (std::size_t i = 0; i < base.size(); ++i) {
      fr.x.push_back(double(float(base.x[i] + u(rng))));
      fr.y.push_back(double(float(base.y[i] + u(rng))));
      fr.z.push_back(double(float(base.z[i] + u(rng))));
    }
    fr.has_cell = true;
    fr.cell_length = {edge, edge, edge};
    fr.index = f;
  }
  return out;
}

void write_dcd(const fs::path& p, const std::vector<io::TrajectoryFrame>& frames,
               io::DcdWriteOptions o) {
  io::DcdWriter w(p, frames.front().size(), long(frames.size()), o);
  for (const auto& f : frames) w.write(f);
  w.close();
}

void write_pqr(const fs::path& p, const Atoms& a) {
  std::ofstream out(p);
  char line[200];
  for (std::size_t i = 0; i < a.size(); ++i) {
    std::snprintf(line, sizeof line, "ATOM %zu %s WAT %zu %.9g %.9g %.9g %.4f 1.5\n", i + 1,
                  a.q[i] < 0 ? "OH2" : "H1", i / 3 + 1, a.x[i], a.y[i], a.z[i], a.q[i]);
    out << line;
  }
}

// A .npy of float64 values (the header is skipped by its length field).
std::vector<double> read_npy_f8(const fs::path& p, std::string* header = nullptr) {
  std::ifstream in(p, std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), {});
  const std::size_t len = std::uint8_t(all[8]) | (std::size_t(std::uint8_t(all[9])) << 8);
  if (header) *header = all.substr(10, len);
  std::vector<double> v((all.size() - 10 - len) / 8);
  std::memcpy(v.data(), all.data() + 10 + len, v.size() * 8);
  return v;
}

TEST(PotmapTrajectory, DcdRoundTripsInBothByteOrders) {
  const auto d = temp_dir();
  const auto frames = jittered_frames(water_box(10, 3), 3, 10.0, 1);
  for (const bool big : {false, true}) {
    for (const bool cell : {false, true}) {
      const auto p = d / "t.dcd";
      write_dcd(p, frames, {big, cell});
      auto r = io::open_trajectory(p);
      EXPECT_NE(r->describe().find(big ? "big" : "little"), std::string::npos) << r->describe();
      io::TrajectoryFrame f;
      for (const auto& want : frames) {
        ASSERT_TRUE(r->next(f));
        EXPECT_EQ(f.x, want.x);
        EXPECT_EQ(f.y, want.y);
        EXPECT_EQ(f.z, want.z);
        EXPECT_EQ(f.has_cell, cell);
        if (cell) EXPECT_EQ(f.cell_length, want.cell_length);
      }
      EXPECT_FALSE(r->next(f));
    }
  }
  fs::remove_all(d);
}

TEST(PotmapTrajectory, DcdWrittenByMDAnalysisReadsBackExactly) {
  if (!have_python_module("MDAnalysis")) GTEST_SKIP() << "MDAnalysis (python3-mdanalysis) missing";
  const auto d = temp_dir();
  // Ours (big-endian, with a cell), for MDAnalysis to read.
  const auto ours = jittered_frames(water_box(8, 2), 2, 8.0, 3);
  write_dcd(d / "ours.dcd", ours, {true, true});
  // One Python run: MDAnalysis writes 4 frames of 5 atoms (float32 values) with a 20 x 21 x 22 Å
  // cell and the expected values as text, and reads ours back.
  std::string script = R"(
import numpy as np, warnings
warnings.filterwarnings('ignore')
import MDAnalysis as mda
from MDAnalysis.coordinates.DCD import DCDWriter
rng = np.random.default_rng(7)
with DCDWriter('mda.dcd', n_atoms=5) as w:
    u = mda.Universe.empty(5, trajectory=True)
    with open('expected.txt', 'w') as out:
        for f in range(4):
            pos = (rng.random((5, 3)) * 20 - 2).astype(np.float32)
            u.atoms.positions = pos
            u.dimensions = [20, 21, 22, 90, 90, 90]
            w.write(u.atoms)
            out.write(' '.join(repr(float(v)) for v in pos.ravel()) + '\n')
u = mda.Universe.empty(N, trajectory=False)
u.load_new('ours.dcd', format='DCD')
with open('read.txt', 'w') as out:
    for ts in u.trajectory:
        out.write(' '.join(repr(float(v)) for v in ts.positions.ravel()) + ' ' +
                  ' '.join(repr(float(v)) for v in ts.dimensions) + '\n')
)";
  script.replace(script.find("N,"), 1, std::to_string(ours[0].size()));
  std::ofstream(d / "w.py") << script;
  ASSERT_EQ(std::system(("cd '" + d.string() + "' && /usr/bin/python3 w.py").c_str()), 0);
  auto r = io::open_trajectory(d / "mda.dcd");
  std::ifstream expected(d / "expected.txt");
  io::TrajectoryFrame f;
  int frames = 0;
  for (std::string line; std::getline(expected, line); ++frames) {
    ASSERT_TRUE(r->next(f)) << frames;
    std::istringstream s(line);
    for (std::size_t i = 0; i < 5; ++i) {
      double x, y, z;
      s >> x >> y >> z;
      EXPECT_EQ(f.x[i], x);
      EXPECT_EQ(f.y[i], y);
      EXPECT_EQ(f.z[i], z);
    }
    ASSERT_TRUE(f.has_cell);
    EXPECT_EQ(f.cell_length, (std::array<double, 3>{20, 21, 22}));
  }
  EXPECT_EQ(frames, 4);
  EXPECT_FALSE(r->next(f));

  // And MDAnalysis read ours back exactly.
  std::ifstream read(d / "read.txt");
  for (const auto& want : ours) {
    std::string line;
    ASSERT_TRUE(std::getline(read, line));
    std::istringstream s(line);
    for (std::size_t i = 0; i < want.size(); ++i) {
      double x, y, z;
      s >> x >> y >> z;
      EXPECT_EQ(x, want.x[i]);
      EXPECT_EQ(y, want.y[i]);
      EXPECT_EQ(z, want.z[i]);
    }
    double dims[6];
    for (double& v : dims) s >> v;
    EXPECT_EQ(dims[0], 8.0);
    EXPECT_EQ(dims[5], 90.0);
  }
  fs::remove_all(d);
}

TEST(PotmapTrajectory, LammpsDumpAsMdWritesItAndXyz) {
  const auto d = temp_dir();
  io::LammpsData data;
  data.lo = {-1, -2, -3};
  data.hi = {9, 8, 7};
  const std::uint32_t ids[3] = {3, 1, 2};  // unordered, as several ranks write them
  for (int i = 0; i < 3; ++i) {
    data.id.push_back(ids[i]);
    data.type.push_back(1);
    data.x.push_back(0.5 * i), data.y.push_back(1.25 * i), data.z.push_back(-0.75 * i);
    data.vx.push_back(0), data.vy.push_back(0), data.vz.push_back(0);
  }
  {
    std::ofstream out(d / "t.lammpstrj");
    io::write_lammps_dump_frame(out, 0, data);
    io::write_lammps_dump_frame(out, 100, data);
  }
  auto r = io::open_trajectory(d / "t.lammpstrj");
  io::TrajectoryFrame f;
  for (int k = 0; k < 2; ++k) {
    ASSERT_TRUE(r->next(f));
    EXPECT_TRUE(f.has_cell);
    EXPECT_EQ(f.cell_origin, (std::array<double, 3>{-1, -2, -3}));
    EXPECT_EQ(f.cell_length, (std::array<double, 3>{10, 10, 10}));
    for (int i = 0; i < 3; ++i) {
      const std::size_t at = ids[i] - 1;
      EXPECT_EQ(f.x[at], 0.5 * i);
      EXPECT_EQ(f.y[at], 1.25 * i);
      EXPECT_EQ(f.z[at], -0.75 * i);
    }
  }
  EXPECT_FALSE(r->next(f));

  std::ofstream(d / "t.xyz") << "2\nLattice=\"5 0 0 0 6 0 0 0 7\"\nO 1 2 3\nH 4 5 6.5\n"
                             << "2\nframe 1\nO 1.5 2 3\nH 4 5 6\n";
  auto x = io::open_trajectory(d / "t.xyz");
  ASSERT_TRUE(x->next(f));
  EXPECT_TRUE(f.has_cell);
  EXPECT_EQ(f.cell_length, (std::array<double, 3>{5, 6, 7}));
  EXPECT_EQ(f.z[1], 6.5);
  ASSERT_TRUE(x->next(f));
  EXPECT_FALSE(f.has_cell);
  EXPECT_EQ(f.x[0], 1.5);
  EXPECT_FALSE(x->next(f));
  fs::remove_all(d);
}

// The config of a trajectory map of `traj` with topology `pqr` to `out`, double precision.
PotmapConfig trajectory_config(const fs::path& pqr, const fs::path& traj, const fs::path& out,
                               BackendKind backend) {
  PotmapConfig c;
  c.input = pqr;
  c.trajectory = traj;
  c.output = out;
  c.spacing = 1.0;
  c.padding = 3.0;
  c.map.cutoff = 6.0;
  c.map.exclusion = 0.5;
  c.map.precision = Precision::double_;
  c.units = Units::kcal_per_mol_e;
  c.backend = backend;
  return c;
}

// The trajectory maps (avg, min, max, with --frames) equal the combination of the single-frame
// maps computed one by one (and, periodic, of the frames' image sets), within 1e-12.
void check_trajectory_against_single_frames(BackendKind backend, bool periodic) {
  const auto d = temp_dir();
  const Atoms base = water_box(12, 5);
  write_pqr(d / "top.pqr", base);
  const Atoms topology = load_atoms([&] {
    PotmapConfig c;
    c.input = d / "top.pqr";
    return c;
  }());
  const auto frames = jittered_frames(base, 5, 12.0, 9);
  write_dcd(d / "t.dcd", frames, {false, periodic});
  for (const Combine combine : {Combine::average, Combine::minimum, Combine::maximum}) {
    auto c = trajectory_config(d / "top.pqr", d / "t.dcd", d / "map.npy", backend);
    c.combine = combine;
    parse_frame_range("1:4:2", c);  // frames 1 and 3
    std::ostringstream log;
    ASSERT_EQ(run_potmap(c, log), 0) << log.str();
    const auto got = read_npy_f8(d / "map.npy");
    // The single-frame maps.
    Lattice lattice;
    std::vector<double> acc;
    long n = 0;
    for (const int k : {1, 3}) {
      Atoms a = topology;
      a.x = frames[std::size_t(k)].x, a.y = frames[std::size_t(k)].y,
      a.z = frames[std::size_t(k)].z;
      Cell cell;
      cell.length = {12, 12, 12};
      if (n == 0) lattice = periodic ? lattice_of_cell(cell, 1.0) : lattice_around(a, 1.0, 3.0);
      if (periodic) a = periodic_images(a, cell, lattice, c.map.cutoff);
      const auto r = compute_map(backend, a, lattice, c.map);
      combine_into(acc, r.values, combine, n++);
    }
    ASSERT_EQ(got.size(), acc.size());
    const double f = unit_factor(c.units);
    double worst = 0;
    for (std::size_t i = 0; i < acc.size(); ++i) {
      const double want = (combine == Combine::average ? acc[i] / 2 : acc[i]) * f;
      worst = std::max(worst, std::abs(got[i] - want) / std::max(1.0, std::abs(want)));
    }
    EXPECT_LE(worst, 1e-12) << to_string(combine);
  }
  fs::remove_all(d);
}

TEST(PotmapTrajectory, MapEqualsCombinedSingleFrameMaps) {
  check_trajectory_against_single_frames(BackendKind::cpu, false);
  check_trajectory_against_single_frames(BackendKind::cpu, true);
}

TEST(PotmapTrajectoryCuda, MapEqualsCombinedSingleFrameMaps) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  check_trajectory_against_single_frames(BackendKind::cuda, false);
  check_trajectory_against_single_frames(BackendKind::cuda, true);
}

// The periodic map against V(p) = Σ_j Σ_n q_j s(r)/r over explicit image shifts n, for a cutoff
// below half the cell (minimum image) and one above the cell (several shells).
void check_periodic_against_image_sum(BackendKind backend) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-3.0, 11.0);  // some atoms outside the cell
  Atoms atoms;
  for (int i = 0; i < 24; ++i) atoms.push_back(u(rng), u(rng), u(rng), i % 2 ? 0.5 : -0.5);
  Cell cell;
  cell.length = {8.0, 7.0, 9.0};
  for (const double rc : {3.4, 11.0}) {
    const Lattice l = lattice_of_cell(cell, 0.75);
    MapOptions o;
    o.cutoff = rc;
    o.precision = Precision::double_;
    const Atoms images = periodic_images(atoms, cell, l, rc);
    const auto got = compute_map(backend, images, l, o).values;
    double worst = 0;
    const double rc2 = rc * rc;
    for (std::size_t i = 0; i < l.counts[0]; ++i) {
      for (std::size_t j = 0; j < l.counts[1]; ++j) {
        for (std::size_t k = 0; k < l.counts[2]; ++k) {
          const double p[3] = {l.coord(0, i), l.coord(1, j), l.coord(2, k)};
          double v = 0;
          for (std::size_t a = 0; a < atoms.size(); ++a) {
            for (int nx = -4; nx <= 4; ++nx) {
              for (int ny = -4; ny <= 4; ++ny) {
                for (int nz = -4; nz <= 4; ++nz) {
                  const double dx = p[0] - atoms.x[a] - nx * 8.0;
                  const double dy = p[1] - atoms.y[a] - ny * 7.0;
                  const double dz = p[2] - atoms.z[a] - nz * 9.0;
                  const double r2 = dx * dx + dy * dy + dz * dz;
                  if (r2 >= rc2 || r2 == 0) continue;
                  const double s = 1 - r2 / rc2;
                  v += atoms.q[a] * s * s / std::sqrt(r2);
                }
              }
            }
          }
          const double g = got[(i * l.counts[1] + j) * l.counts[2] + k];
          worst = std::max(worst, std::abs(g - v) / std::max(1e-3, std::abs(v)));
        }
      }
    }
    EXPECT_LE(worst, 1e-11) << "rc " << rc;
    if (rc < 4) EXPECT_LT(images.size(), 27 * atoms.size());
  }
}

TEST(PotmapPeriodic, MatchesBruteForceImageSum) {
  check_periodic_against_image_sum(BackendKind::reference);
  check_periodic_against_image_sum(BackendKind::cpu);
}

TEST(PotmapPeriodicCuda, MatchesBruteForceImageSum) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  check_periodic_against_image_sum(BackendKind::cuda);
}

TEST(PotmapTrajectory, DxGzReadsBackInGridDataFormats) {
  if (!have_python_module("gridData")) GTEST_SKIP() << "GridDataFormats missing";
  const auto d = temp_dir();
  io::ScalarGrid g;
  g.origin = {-1.5, 0.25, 3};
  g.spacing = {0.5, 0.5, 0.5};
  g.counts = {70, 60, 50};  // several compressed blocks
  std::mt19937 rng(3);
  std::normal_distribution<double> n;
  for (std::size_t i = 0; i < g.size(); ++i) g.values.push_back(n(rng) * 1e-3);
  io::write_dx_gz(d / "g.dx.gz", g);
  const std::string cmd = "cd '" + d.string() +
                          "' && /usr/bin/python3 -c \"from gridData import Grid\nimport numpy as "
                          "np\ng = Grid('g.dx.gz')\nnp.save('back.npy', "
                          "np.ascontiguousarray(g.grid, dtype='<f8'))\"";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const auto back = read_npy_f8(d / "back.npy");
  EXPECT_EQ(back, g.values);
  fs::remove_all(d);
}

TEST(PotmapTrajectory, BadTrajectoriesNameTheFrameAndWriteNoMap) {
  const auto d = temp_dir();
  const Atoms base = water_box(8, 2);
  write_pqr(d / "top.pqr", base);
  const auto frames = jittered_frames(base, 4, 8.0, 4);
  write_dcd(d / "good.dcd", frames, {});
  const auto size = fs::file_size(d / "good.dcd");
  const std::size_t frame_bytes = 3 * (base.size() * 4 + 8);
  auto run = [&](const fs::path& traj, const fs::path& top) {
    auto c = trajectory_config(top, traj, d / "map.dx", BackendKind::cpu);
    std::ostringstream log;
    return error_of([&] { run_potmap(c, log); });
  };
  // Truncated: the last frame loses 10 bytes.
  fs::copy_file(d / "good.dcd", d / "cut.dcd");
  fs::resize_file(d / "cut.dcd", size - 10);
  std::string e = run(d / "cut.dcd", d / "top.pqr");
  EXPECT_NE(e.find("frame 3"), std::string::npos) << e;
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(d / "map.dx"));
  // A wrong record marker in frame 1 (its y record).
  fs::copy_file(d / "good.dcd", d / "marker.dcd");
  {
    std::fstream f(d / "marker.dcd", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(std::streamoff(size - 3 * frame_bytes + base.size() * 4 + 8));
    const std::int32_t bad = 12345;
    f.write(reinterpret_cast<const char*>(&bad), 4);
  }
  e = run(d / "marker.dcd", d / "top.pqr");
  EXPECT_NE(e.find("frame 1"), std::string::npos) << e;
  EXPECT_NE(e.find("bad record marker of the y record"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(d / "map.dx"));
  // A topology of another size.
  Atoms fewer = base;
  for (auto* v : {&fewer.x, &fewer.y, &fewer.z, &fewer.q}) v->resize(v->size() - 3);
  write_pqr(d / "fewer.pqr", fewer);
  e = run(d / "good.dcd", d / "fewer.pqr");
  EXPECT_NE(e.find("frame 0"), std::string::npos) << e;
  EXPECT_NE(e.find("atoms, the topology"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(d / "map.dx"));
  // A truncated XYZ frame.
  std::ofstream(d / "t.xyz") << "2\nc\nO 1 2 3\nH 4 5 6\n2\nc\nO 1 2 3\n";
  Atoms two;
  two.push_back(1, 2, 3, -1);
  two.push_back(4, 5, 6, 1);
  write_pqr(d / "two.pqr", two);
  e = run(d / "t.xyz", d / "two.pqr");
  EXPECT_NE(e.find("frame 1: truncated"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(d / "map.dx"));
  for (const auto& entry : fs::directory_iterator(d)) {
    EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << entry.path();
  }
  fs::remove_all(d);
}

TEST(PotmapTrajectory, AllFramesAsA4DNpy) {
  const auto d = temp_dir();
  const Atoms base = water_box(8, 2);
  write_pqr(d / "top.pqr", base);
  write_dcd(d / "t.dcd", jittered_frames(base, 3, 8.0, 4), {false, true});
  auto c = trajectory_config(d / "top.pqr", d / "t.dcd", d / "all.npy", BackendKind::cpu);
  c.combine = Combine::all;
  std::ostringstream log;
  ASSERT_EQ(run_potmap(c, log), 0);
  std::string header;
  const auto all = read_npy_f8(d / "all.npy", &header);
  EXPECT_NE(header.find("'shape': (           3, 8, 8, 8)"), std::string::npos) << header;
  EXPECT_EQ(all.size(), 3u * 512u);
  c.combine = Combine::average;
  c.output = d / "avg.npy";
  ASSERT_EQ(run_potmap(c, log), 0);
  const auto avg = read_npy_f8(d / "avg.npy");
  for (std::size_t i = 0; i < avg.size(); ++i) {
    EXPECT_NEAR(avg[i], (all[i] + all[512 + i] + all[1024 + i]) / 3,
                1e-12 * (1 + std::abs(avg[i])));
  }
  fs::remove_all(d);
}

// The TOML form ([trajectory]) of examples/potmap-trajectory.toml: the periodic XYZ trajectory's
// average equals the mean of its frames' maps computed one by one.
TEST(PotmapTrajectory, TomlExampleEqualsMeanOfFrameMaps) {
  const fs::path example =
      fs::path(PAIRWISE_TEST_DATA) / ".." / ".." / "examples" / "potmap-trajectory.toml";
  auto config = config::Config::load(example);
  PotmapConfig c = read_potmap_config(config);
  EXPECT_EQ(c.combine, Combine::average);
  EXPECT_EQ(c.trajectory.filename(), "water64.xyz");
  const auto d = temp_dir();
  c.output = d / "avg.npy";
  c.map.precision = Precision::double_;
  c.backend = BackendKind::cpu;
  std::ostringstream log;
  ASSERT_EQ(run_potmap(c, log), 0) << log.str();
  const auto got = read_npy_f8(d / "avg.npy");
  const Atoms topology = load_atoms(c);
  auto reader = io::open_trajectory(c.trajectory);
  io::TrajectoryFrame f;
  std::vector<double> acc;
  long n = 0;
  Lattice lattice;
  while (reader->next(f)) {
    ASSERT_TRUE(f.has_cell);
    Cell cell;
    cell.length = f.cell_length;
    if (n == 0) lattice = lattice_of_cell(cell, c.spacing);
    Atoms a = topology;
    a.x = f.x, a.y = f.y, a.z = f.z;
    combine_into(acc,
                 compute_map(BackendKind::cpu, periodic_images(a, cell, lattice, c.map.cutoff),
                             lattice, c.map)
                     .values,
                 Combine::average, n++);
  }
  EXPECT_EQ(n, 8);
  ASSERT_EQ(got.size(), acc.size());
  const double u = unit_factor(c.units);
  for (std::size_t i = 0; i < acc.size(); ++i) {
    ASSERT_NEAR(got[i], acc[i] / double(n) * u, 1e-12 * (1 + std::abs(got[i]))) << i;
  }
  fs::remove_all(d);
}

}  // namespace
