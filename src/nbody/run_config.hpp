// The TOML schema of an N-body run (`workload = "nbody"`), documented key by key in README.md:
//   [system]      initial, n, seed, eccentricity, semi_major_axis, file, eps
//   [integrator]  integrator, dt, eta, dt_max, dt_min
//   [run]         t_end, backend, precision
//   [output]      directory, prefix, interval, snapshot_every, csv, final, progress, checkpoint,
//                 checkpoint_every
// Relative paths in the file are relative to the file's directory; the outputs go to
// output.directory (default: the config file's directory), named after output.prefix (default: the
// config file's stem), e.g. plummer.csv, plummer.snap.000004.txt, plummer.final.txt.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "core/config.hpp"
#include "nbody/custom_gravity.hpp"
#include "nbody/gravity_kernel.hpp"
#include "nbody/integrator.hpp"
#include "nbody/particles.hpp"
#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::nbody {

enum class InitialKind { plummer, uniform_sphere, kepler, file };
InitialKind parse_initial(std::string_view text);  // throws pairwise::Error
std::string_view to_string(InitialKind k);

struct RunConfig {
  std::string source;  // the config file, for messages

  // [system]
  InitialKind initial = InitialKind::plummer;
  std::size_t n = 1024;          // plummer, uniform_sphere
  std::uint64_t seed = 1;        // plummer, uniform_sphere
  double eccentricity = 0.5;     // kepler
  double semi_major_axis = 1.0;  // kepler
  std::filesystem::path file;    // file: a particle table (resolved against the config directory)
  double eps = 0.01;             // Plummer softening length ε (Hénon units); the kernels use ε²
  // [system] potential: φ(r) from a formula in r and eps (nbody/custom_gravity.hpp), or null.
  std::shared_ptr<const CustomGravity> custom = nullptr;

  IntegratorOptions integrator;  // [integrator]

  // [run]
  double t_end = 1.0;
  BackendKind backend = BackendKind::automatic;
  Precision precision = Precision::mixed;

  // [output]
  struct Output {
    std::filesystem::path directory;       // created if missing
    std::string prefix;                    // file name stem of the outputs
    double interval = 0.125;               // time between diagnostic rows
    std::int64_t snapshot_every = 0;       // a snapshot every K-th row (0: none)
    std::filesystem::path csv;             // empty: no CSV
    std::filesystem::path final_snapshot;  // empty: none
    bool progress = true;                  // progress bar on stderr when it is a terminal
    std::filesystem::path checkpoint;      // default <prefix>.ckpt
    std::int64_t checkpoint_every = 0;     // a checkpoint every K-th row (0: only on a signal)
  } output;
  std::filesystem::path restart;  // `--restart CKPT` (not a TOML key)

  // Snapshot k (the row at t = k × interval): "<directory>/<prefix>.snap.<k, 6 digits>.txt".
  std::filesystem::path snapshot_path(std::int64_t k) const;
};

// Reads the N-body keys from `config` (which must say workload = "nbody" or nothing), then rejects
// every key it did not read (Config::check_unused). Throws pairwise::Error with the key's location.
RunConfig read_run_config(config::Config& config);

// The initial particles the config asks for (generated or read from its file). `source` receives a
// description for messages: the file name or "[system] initial = 'plummer'".
Particles make_initial_conditions(const RunConfig& config, std::string* source = nullptr);
// The force kernel's options: precision, ε², the custom potential, the size of a generated model.
KernelOptions kernel_options(const RunConfig& config);

}  // namespace pairwise::nbody
