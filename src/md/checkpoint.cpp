#include "md/checkpoint.hpp"

#include <cstdio>
#include <sstream>

#include "core/checkpoint.hpp"
#include "pairwise/error.hpp"

namespace pairwise::md {

std::string md_config_text(const MdRunConfig& rc, BackendKind backend) {
  std::ostringstream t;
  if (!rc.data_file.empty()) {
    t << "system.data_file = " << rc.data_file.string() << "\n";
  } else {
    t << "system.lattice = " << rc.lattice << "\n"
      << "system.density = " << config_number(rc.density) << "\n"
      << "system.cells = " << rc.cells[0] << " " << rc.cells[1] << " " << rc.cells[2] << "\n"
      << "system.temperature = " << config_number(rc.temperature) << "\n"
      << "system.velocity_seed = " << rc.velocity_seed << "\n"
      << "force_field.mass = " << config_number(rc.mass) << "\n"
      << "force_field.epsilon = " << config_number(rc.epsilon) << "\n"
      << "force_field.sigma = " << config_number(rc.sigma) << "\n";
  }
  t << "force_field.style = " << to_string(rc.style) << "\n"
    << "force_field.cutoff = " << config_number(rc.cutoff) << "\n"
    << "force_field.mixing = " << (rc.mixing == Mixing::geometric ? "geometric" : "arithmetic")
    << "\n";
  for (const auto& p : rc.pairs)
    t << "force_field.pair_" << p.i << "_" << p.j << " = " << config_number(p.epsilon) << " "
      << config_number(p.sigma) << " " << config_number(p.cutoff) << "\n";
  const auto& d = rc.dynamics;
  t << "neighbor.skin = " << config_number(rc.skin) << "\n"
    << "neighbor.sort_every = " << rc.sort_every << "\n"
    << "neighbor.capacity = " << rc.capacity << "\n"
    << "integrator.dt = " << config_number(d.dt) << "\n"
    << "integrator.thermostat = " << engine::to_string(d.thermostat) << "\n"
    << "integrator.temperature = " << config_number(d.kT) << "\n"
    << "integrator.gamma = " << config_number(d.gamma) << "\n"
    << "integrator.nu = " << config_number(d.nu) << "\n"
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
