#include "md/checkpoint.hpp"

#include <cstdio>
#include <sstream>

#include "core/checkpoint.hpp"
#include "pairwise/error.hpp"

namespace pairwise::md {

namespace {

std::string g17(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

std::string md_config_text(const MdRunConfig& rc, BackendKind backend) {
  std::ostringstream t;
  if (!rc.data_file.empty()) {
    t << "system.data_file = " << rc.data_file.string() << "\n";
  } else {
    t << "system.lattice = " << rc.lattice << "\n"
      << "system.density = " << g17(rc.density) << "\n"
      << "system.cells = " << rc.cells[0] << " " << rc.cells[1] << " " << rc.cells[2] << "\n"
      << "system.temperature = " << g17(rc.temperature) << "\n"
      << "system.velocity_seed = " << rc.velocity_seed << "\n"
      << "force_field.mass = " << g17(rc.mass) << "\n"
      << "force_field.epsilon = " << g17(rc.epsilon) << "\n"
      << "force_field.sigma = " << g17(rc.sigma) << "\n";
  }
  t << "force_field.style = " << to_string(rc.style) << "\n"
    << "force_field.cutoff = " << g17(rc.cutoff) << "\n"
    << "force_field.mixing = " << (rc.mixing == Mixing::geometric ? "geometric" : "arithmetic")
    << "\n";
  for (const auto& p : rc.pairs)
    t << "force_field.pair_" << p.i << "_" << p.j << " = " << g17(p.epsilon) << " " << g17(p.sigma)
      << " " << g17(p.cutoff) << "\n";
  const auto& d = rc.dynamics;
  t << "neighbor.skin = " << g17(rc.skin) << "\n"
    << "neighbor.sort_every = " << rc.sort_every << "\n"
    << "neighbor.capacity = " << rc.capacity << "\n"
    << "integrator.dt = " << g17(d.dt) << "\n"
    << "integrator.thermostat = " << engine::to_string(d.thermostat) << "\n"
    << "integrator.temperature = " << g17(d.kT) << "\n"
    << "integrator.gamma = " << g17(d.gamma) << "\n"
    << "integrator.nu = " << g17(d.nu) << "\n"
    << "integrator.seed = " << d.seed << "\n"
    << "run.backend = " << to_string(backend) << "\n"
    << "run.precision = " << to_string(rc.precision) << "\n";
  return t.str();
}

void write_md_checkpoint(const std::filesystem::path& path, const std::string& config_text,
                         const MdCheckpointInfo& info, MdEngine& engine, System& s) {
  CheckpointWriter w;
  write_checkpoint_header(w, "md", config_text);
  w.i64(info.step), w.u64(info.csv_bytes), w.u64(info.dump_bytes);
  engine.save_checkpoint(w, s);
  w.save(path);
}

MdCheckpointInfo read_md_checkpoint(const std::filesystem::path& path,
                                    const std::string& config_text, MdEngine& engine, System& s) {
  CheckpointReader r = CheckpointReader::load(path);
  return read_md_checkpoint(r, config_text, engine, s);
}

MdCheckpointInfo read_md_checkpoint(CheckpointReader& r, const std::string& config_text,
                                    MdEngine& engine, System& s) {
  check_checkpoint_header(r, "md", config_text);
  MdCheckpointInfo info;
  info.step = r.i64(), info.csv_bytes = r.u64(), info.dump_bytes = r.u64();
  if (info.step < 0) throw Error("checkpoint step is negative", r.where());
  engine.load_checkpoint(r, s);
  r.expect_end();
  return info;
}

}  // namespace pairwise::md
