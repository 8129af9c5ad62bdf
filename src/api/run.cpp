#include "api/run.hpp"

#include <filesystem>

#include "core/checkpoint.hpp"
#include "fredholm/run.hpp"
#include "ljc/run.hpp"
#include "md/run.hpp"
#include "nbody/run.hpp"
#include "pairwise/error.hpp"
#include "potmap/run.hpp"

namespace pairwise::api {

namespace {

int dispatch(config::Config& config, const std::string& restart_arg, std::ostream& out,
             std::ostream& err) {
  const auto root = config.root();
  const std::string workload = root.string("workload", "nbody");
  if (!restart_arg.empty() && workload != "md" && workload != "nbody" && workload != "ljc")
    throw Error("--restart is supported by the md, nbody and ljc workloads, not '" + workload + "'",
                "--restart " + restart_arg);
  const std::filesystem::path restart =
      restart_arg.empty() ? std::filesystem::path() : std::filesystem::absolute(restart_arg);
  if (workload == "nbody") {
    auto rc = nbody::read_run_config(config);
    rc.restart = restart;
    return nbody::run_nbody(rc, out);
  }
  if (workload == "potmap") return potmap::run_potmap(potmap::read_potmap_config(config), out);
  if (workload == "fredholm") return fredholm::run_fredholm(fredholm::read_run_config(config), out);
  if (workload == "ljc") {
    auto rc = ljc::read_run_config(config);
    rc.restart = restart;
    return ljc::run_ljc(rc, out, err);
  }
  if (workload == "md") {
    auto rc = md::read_md_config(config);
    rc.restart = restart;
    return md::run_md(rc, out);
  }
  const std::string known[] = {"nbody", "potmap", "fredholm", "ljc", "md"};
  root.fail("workload", "unknown workload '" + workload + "'" +
                            config::suggestion_suffix(workload, known) +
                            " (expected one of: nbody, potmap, fredholm, ljc, md)");
}

}  // namespace

int run_workload(config::Config& config, const std::string& restart, std::ostream& out,
                 std::ostream& err) {
  try {
    return dispatch(config, restart, out, err);
  } catch (const Error& e) {
    // A run that fails after writing a checkpoint (disk full, a GPU fault or out of memory, a
    // blow-up) says which checkpoint to continue from.
    const auto& ckpt = last_checkpoint_written();
    if (ckpt.empty()) throw;
    throw Error(e.message(), e.where() + (e.where().empty() ? "" : "; ") +
                                 "the last checkpoint is " + ckpt.string() +
                                 " (continue with --restart " + ckpt.string() + ")");
  }
}

}  // namespace pairwise::api
