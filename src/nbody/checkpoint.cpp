#include "nbody/checkpoint.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/checkpoint.hpp"
#include "nbody/integrators.hpp"
#include "pairwise/error.hpp"

namespace pairwise::nbody {

namespace {

void read_array(CheckpointReader& r, std::vector<double>& v, std::size_t n) {
  v = r.f64s();
  if (v.size() != n)
    throw Error("checkpoint array of " + std::to_string(v.size()) + " values, expected " +
                    std::to_string(n),
                r.where());
  for (double x : v)
    if (!std::isfinite(x)) throw Error("checkpoint holds a non-finite value", r.where());
}

void save_forces(CheckpointWriter& w, const Forces& f) {
  for (const auto* v : {&f.ax, &f.ay, &f.az, &f.jx, &f.jy, &f.jz, &f.pot}) w.f64s(*v);
}

void load_forces(CheckpointReader& r, Forces& f, std::size_t n, bool with_jerk) {
  for (auto* v : {&f.ax, &f.ay, &f.az}) read_array(r, *v, n);
  for (auto* v : {&f.jx, &f.jy, &f.jz}) read_array(r, *v, with_jerk ? n : 0);
  f.pot = r.f64s();  // φ is not carried between steps; any size
}

}  // namespace

void IntegratorBase::save_checkpoint(CheckpointWriter& w) const {
  w.f64(time_);
  w.u64(stats_.steps), w.u64(stats_.particle_steps), w.f64(stats_.interactions);
  const Particles& p = state_;
  for (const auto* v : {&p.m, &p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz}) w.f64s(*v);
  save_extra(w);
}

void IntegratorBase::load_checkpoint(CheckpointReader& r) {
  time_ = r.f64();
  if (!std::isfinite(time_) || time_ < 0) throw Error("checkpoint time out of range", r.where());
  stats_.steps = r.u64(), stats_.particle_steps = r.u64(), stats_.interactions = r.f64();
  const std::size_t n = state_.size();
  Particles& p = state_;
  for (auto* v : {&p.m, &p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz}) read_array(r, *v, n);
  potential_valid_ = false;
  load_extra(r);
}

void LeapfrogIntegrator::save_extra(CheckpointWriter& w) const {
  save_forces(w, forces_);
}
void LeapfrogIntegrator::load_extra(CheckpointReader& r) {
  load_forces(r, forces_, state_.size(), forces_.jx.size() > 0);
}

void HermiteIntegrator::save_extra(CheckpointWriter& w) const {
  save_forces(w, forces_);
  w.f64(next_dt_);
}
void HermiteIntegrator::load_extra(CheckpointReader& r) {
  load_forces(r, forces_, state_.size(), true);
  next_dt_ = r.f64();
  if (!(next_dt_ > 0 && next_dt_ <= 1e300)) throw Error("checkpoint step out of range", r.where());
}

void BlockHermiteIntegrator::save_extra(CheckpointWriter& w) const {
  for (const auto* v :
       {&terms_.ax, &terms_.ay, &terms_.az, &terms_.jx, &terms_.jy, &terms_.jz, &terms_.t, &dt_})
    w.f64s(*v);
}
void BlockHermiteIntegrator::load_extra(CheckpointReader& r) {
  const std::size_t n = state_.size();
  for (auto* v :
       {&terms_.ax, &terms_.ay, &terms_.az, &terms_.jx, &terms_.jy, &terms_.jz, &terms_.t, &dt_})
    read_array(r, *v, n);
  schedule_ = BlockSchedule(options_.dt_max);
  for (std::size_t i = 0; i < n; ++i) {
    if (!(dt_[i] >= options_.dt_min && dt_[i] <= options_.dt_max) || terms_.t[i] != time_)
      throw Error("checkpoint block step of particle " + std::to_string(i) +
                      " out of range or not synchronized",
                  r.where());
    schedule_.assign(static_cast<int>(i), terms_.t[i], dt_[i]);
  }
  // The kernel's j-particles as the interrupted run had them after its last diagnostic row.
  kernel_.set_particles(state_);
  kernel_.set_hermite_terms(terms_);
}

std::string nbody_config_text(const RunConfig& rc, BackendKind backend) {
  std::ostringstream t;
  t << "system.initial = " << to_string(rc.initial) << "\n";
  switch (rc.initial) {
    case InitialKind::plummer:
    case InitialKind::uniform_sphere:
      t << "system.n = " << rc.n << "\n"
        << "system.seed = " << rc.seed << "\n";
      break;
    case InitialKind::kepler:
      t << "system.eccentricity = " << config_number(rc.eccentricity) << "\n"
        << "system.semi_major_axis = " << config_number(rc.semi_major_axis) << "\n";
      break;
    case InitialKind::file:
      t << "system.file = " << rc.file.string() << "\n";
      break;
  }
  const auto& o = rc.integrator;
  t << "system.eps = " << config_number(rc.eps) << "\n"
    << "integrator.integrator = " << to_string(o.kind) << "\n"
    << "integrator.dt = " << config_number(o.dt) << "\n"
    << "integrator.eta = " << config_number(o.eta) << "\n"
    << "integrator.dt_max = " << config_number(o.dt_max) << "\n"
    << "integrator.dt_min = " << config_number(o.dt_min) << "\n"
    << "run.backend = " << to_string(backend) << "\n"
    << "run.precision = " << to_string(rc.precision) << "\n"
    << "output.interval = " << config_number(rc.output.interval) << "\n";
  return t.str();
}

void write_nbody_checkpoint(const std::filesystem::path& path, const std::string& config_text,
                            const NbodyCheckpointInfo& info, const Integrator& integrator) {
  CheckpointWriter w;
  write_checkpoint_header(w, "nbody", config_text);
  w.i64(info.row), w.u64(info.csv_bytes), w.f64(info.e0);
  integrator.save_checkpoint(w);
  w.save(path);
}

NbodyCheckpointInfo read_nbody_checkpoint(const std::filesystem::path& path,
                                          const std::string& config_text, Integrator& integrator) {
  CheckpointReader r = CheckpointReader::load(path);
  return read_nbody_checkpoint(r, config_text, integrator);
}

NbodyCheckpointInfo read_nbody_checkpoint(CheckpointReader& r, const std::string& config_text,
                                          Integrator& integrator) {
  check_checkpoint_header(r, "nbody", config_text);
  NbodyCheckpointInfo info;
  info.row = r.i64(), info.csv_bytes = r.u64(), info.e0 = r.f64();
  if (info.row < 0) throw Error("checkpoint row is negative", r.where());
  integrator.load_checkpoint(r);
  r.expect_end();
  return info;
}

}  // namespace pairwise::nbody
