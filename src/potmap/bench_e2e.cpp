// The end-to-end cases of `pairwise bench potmap` (issue 17): the water-box map timed as a whole
// process (`pairwise potmap ... -o map.npy | .dx | .dx.gz`: start, CUDA context, reading, map,
// writing), and trajectory maps of a generated DCD (the input's atoms jittered by up to 0.2 Å a
// frame), averaged at 1 Å and 0.5 Å, timed as a whole process (frames/s including reading).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <random>

#include "core/bench_json.hpp"
#include "core/io/trajectory.hpp"
#include "pairwise/error.hpp"
#include "potmap/bench.hpp"
#include "potmap/run_config.hpp"

namespace pairwise::potmap {

namespace {

// Wall-clock seconds of `pairwise <args>` (this executable), output to /dev/null.
double time_process(const std::string& args) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string cmd = "'" + self + "' " + args + " > /dev/null 2>&1";
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = std::system(cmd.c_str());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // std::system ignores SIGINT in this process while the child runs: a Ctrl-C ends the child
  // alone. Passed on, the suite stops as for a signal to itself (core/bench_json.hpp).
  if (rc != -1 && WIFSIGNALED(rc)) {
    const int sig = WTERMSIG(rc);
    if (sig == SIGINT || sig == SIGTERM || sig == SIGUSR1 || sig == SIGXCPU) {
      std::raise(sig);
      throw BenchStopped{};
    }
  }
  if (rc != 0) throw Error("end-to-end case failed: " + cmd, "bench potmap");
  return s;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

void run_e2e_cases(const BenchOptions& o, const Atoms& atoms, const E2eRecorder& record) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("pw_e2e_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  struct RemoveDir {  // also when a stop signal ends the cases early (BenchStopped)
    fs::path path;
    ~RemoveDir() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  } remove_dir{dir};
  const std::string backend = " --backend " + std::string(to_string(o.backend));
  const std::string map_flags = " --spacing 0.5 --padding 0.5 --cutoff 12 --exclusion 1" + backend;
  for (const char* ext : {"npy", "dx", "dx.gz"}) {
    const std::string out = (dir / (std::string("map.") + ext)).string();
    const std::string args = "potmap '" + o.input + "' -o '" + out + "'" + map_flags;
    time_process(args);  // warm: page cache, driver
    std::vector<double> t;
    for (int r = 0; r < std::max(3, o.repeats); ++r) t.push_back(time_process(args));
    const double m = median_of(t);
    record(std::string("e2e-") + ext, atoms.size(), "wall_time", m, "s", m,
           {{"command", "pairwise " + args},
            {"output_bytes", fs::file_size(out)},
            {"statistic", "median"},
            {"runs", t},
            {"timed",
             "the whole process (std::system): start, CUDA context, reading, map, "
             "writing"}});
  }
  if (o.e2e_frames <= 0) return;
  // The trajectory: the atoms jittered (uniform ±0.2 Å a coordinate, seeded), with the unit cell
  // of the bench's water box (100 Å; ignored by the non-periodic cases, --no-periodic).
  const fs::path dcd = dir / "traj.dcd";
  {
    io::DcdWriteOptions wo;
    wo.unit_cell = true;
    io::DcdWriter w(dcd, atoms.size(), o.e2e_frames, wo);
    std::mt19937 rng(17);
    std::uniform_real_distribution<double> u(-0.2, 0.2);
    io::TrajectoryFrame f;
    f.x.resize(atoms.size()), f.y.resize(atoms.size()), f.z.resize(atoms.size());
    f.cell_length = {100.0, 100.0, 100.0};
    for (long k = 0; k < o.e2e_frames; ++k) {
      for (std::size_t i = 0; i < atoms.size(); ++i) {
        f.x[i] = atoms.x[i] + u(rng), f.y[i] = atoms.y[i] + u(rng), f.z[i] = atoms.z[i] + u(rng);
      }
      w.write(f);
    }
    w.close();
  }
  struct Case {
    const char* name;
    double spacing;
    bool periodic;
  };
  for (const Case k :
       {Case{"e2e-trajectory-1A", 1.0, false}, Case{"e2e-trajectory-0.5A", 0.5, false},
        Case{"e2e-trajectory-periodic-1A", 1.0, true},
        Case{"e2e-trajectory-periodic-0.5A", 0.5, true}}) {
    const std::string out = (dir / "avg.npy").string();
    const std::string args = "potmap --topology '" + o.input + "' --trajectory '" + dcd.string() +
                             "' -o '" + out + "' --spacing " + std::to_string(k.spacing) +
                             " --padding 0.5 --cutoff 12 --exclusion 1 --combine avg" +
                             (k.periodic ? "" : " --no-periodic") + backend;
    const double s = time_process(args);
    record(k.name, atoms.size(), "frames_per_second", double(o.e2e_frames) / s, "1/s", s,
           {{"command", "pairwise " + args},
            {"frames", o.e2e_frames},
            {"dcd_bytes", fs::file_size(dcd)},
            {"periodic", k.periodic},
            {"timed",
             "the whole process, once: start, CUDA context, reading every frame of the "
             "DCD (page cache warm: just written), maps, average, writing"}});
  }
}

}  // namespace pairwise::potmap
