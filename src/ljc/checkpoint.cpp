#include "ljc/checkpoint.hpp"

#include <cstdio>
#include <sstream>

#include "core/checkpoint.hpp"
#include "pairwise/error.hpp"

namespace pairwise::ljc {

std::string ljc_config_text(const RunConfig& rc, BackendKind backend) {
  std::ostringstream t;
  if (rc.from_file) {
    t << "system.file = " << rc.file.string() << "\n"
      << "system.pqr_epsilon = " << config_number(rc.pqr_epsilon) << "\n"
      << "system.pqr_bond_k = " << config_number(rc.pqr_bond_k) << "\n"
      << "system.parameters = " << rc.parameters.string() << "\n"
      << "system.pdb_bond_k = " << config_number(rc.pdb_bond_k) << "\n";
  } else {
    const auto& g = rc.globule;
    t << "system.n = " << g.n << "\n"
      << "system.seed = " << g.seed << "\n"
      << "system.spacing = " << config_number(g.spacing) << "\n"
      << "system.jitter = " << config_number(g.jitter) << "\n"
      << "system.charge = " << config_number(g.charge) << "\n"
      << "system.sigma = " << config_number(g.sigma) << "\n"
      << "system.epsilon = " << config_number(g.epsilon) << "\n"
      << "system.mass = " << config_number(g.mass) << "\n"
      << "system.bond_k = " << config_number(g.bond_k) << "\n"
      << "system.bonds = " << (g.bonds ? "true" : "false") << "\n"
      << "system.moves = " << g.moves << "\n";
  }
  const auto& f = rc.forcefield;
  t << "forcefield.dielectric = " << to_string(f.dielectric) << "\n"
    << "forcefield.epsilon = " << config_number(f.epsilon) << "\n"
    << "forcefield.linear_factor = " << config_number(f.linear_factor) << "\n"
    << "forcefield.sigmoidal = " << config_number(f.sigmoidal.alpha) << " "
    << config_number(f.sigmoidal.beta) << " " << config_number(f.sigmoidal.gamma) << " "
    << config_number(f.sigmoidal.delta) << "\n"
    << "forcefield.scale14_lj = " << config_number(f.scale14_lj) << "\n"
    << "forcefield.scale14_coulomb = " << config_number(f.scale14_coulomb) << "\n"
    << "integrator.langevin = " << (rc.langevin ? "true" : "false") << "\n"
    << "integrator.dt = " << config_number(rc.dt_fs) << "\n"
    << "integrator.temperature = " << config_number(rc.temperature) << "\n"
    << "integrator.friction = " << config_number(rc.friction_per_ps) << "\n"
    << "integrator.seed = " << rc.seed << "\n"
    << "run.backend = " << to_string(backend) << "\n"
    << "run.precision = " << to_string(rc.precision) << "\n"
    << "run.pair_kernel = " << to_string(rc.pair_kernel) << "\n"
    << "run.step_kernel = " << to_string(rc.step_kernel) << "\n";
  return t.str();
}

void write_ljc_checkpoint(const std::filesystem::path& path, const std::string& config_text,
                          const LjcCheckpointInfo& info, const Molecule& mol, const LjcForces& f) {
  CheckpointWriter w;
  write_checkpoint_header(w, "ljc", config_text);
  w.i64(info.step), w.u64(info.csv_bytes);
  w.f64(info.e0), w.f64(info.max_drift), w.f64(info.t_sum), w.i64(info.t_rows);
  for (const auto* v : {&mol.x, &mol.y, &mol.z, &mol.vx, &mol.vy, &mol.vz, &f.fx, &f.fy, &f.fz})
    w.f64s(*v);
  w.f64(f.lj), w.f64(f.coulomb), w.f64(f.bond);
  w.save(path);
}

LjcCheckpointInfo read_ljc_checkpoint(const std::filesystem::path& path,
                                      const std::string& config_text, Molecule& mol, LjcForces& f) {
  CheckpointReader r = CheckpointReader::load(path);
  return read_ljc_checkpoint(r, config_text, mol, f);
}

LjcCheckpointInfo read_ljc_checkpoint(CheckpointReader& r, const std::string& config_text,
                                      Molecule& mol, LjcForces& f) {
  check_checkpoint_header(r, "ljc", config_text);
  LjcCheckpointInfo info;
  info.step = r.i64(), info.csv_bytes = r.u64();
  info.e0 = r.f64(), info.max_drift = r.f64(), info.t_sum = r.f64(), info.t_rows = r.i64();
  if (info.step < 0) throw Error("checkpoint step is negative", r.where());
  const std::size_t n = mol.size();
  for (auto* v : {&mol.x, &mol.y, &mol.z, &mol.vx, &mol.vy, &mol.vz, &f.fx, &f.fy, &f.fz}) {
    *v = r.f64s();
    if (v->size() != n)
      throw Error("checkpoint has " + std::to_string(v->size()) + " atoms, the molecule " +
                      std::to_string(n),
                  r.where());
    for (double x : *v)
      if (!std::isfinite(x)) throw Error("checkpoint holds a non-finite value", r.where());
  }
  f.lj = r.f64(), f.coulomb = r.f64(), f.bond = r.f64();
  r.expect_end();
  return info;
}

}  // namespace pairwise::ljc
