// State and dynamics shared by the two host engines (reference and cpu): structure-of-arrays
// state in double, the shared dynamics module (engine/dynamics.hpp) for the step, positions
// wrapped into the box after every drift. Subclasses provide the forces.
#pragma once

#include <array>
#include <vector>

#include "md/engine.hpp"

namespace pairwise::md {

class HostEngine : public MdEngine {
 public:
  explicit HostEngine(const EngineOptions& o) : options_(o) {}
  Precision precision() const override { return options_.precision; }
  std::string device_name() const override;
  void set_state(const System& s) override;
  void get_state(System& s) override;
  void advance(std::uint64_t first_step, int steps) override;
  Thermo thermo() override;
  std::uint32_t first_bad_atom(double max_speed) override;
  void forces(std::vector<double>& fx, std::vector<double>& fy, std::vector<double>& fz) override;
  void save_checkpoint(CheckpointWriter& w, System& s) override;
  void load_checkpoint(CheckpointReader& r, System& s) override;
  bool exact_restart() const override { return true; }

 protected:
  // Fills fx, fy, fz, potential_, virial_ for the current (wrapped) positions.
  virtual void compute_forces() = 0;
  // Called by set_state after the state is loaded, before the first compute_forces().
  virtual void prepare() {}
  // Checkpoint state of a subclass (neighbour list, counters). load_extra must leave the forces of
  // the loaded state computed exactly as the interrupted run had them (default: compute_forces()).
  virtual void save_extra(CheckpointWriter&) {}
  virtual void load_extra(CheckpointReader&) { compute_forces(); }
  void wrap();
  engine::DynamicsArrays arrays();
  // Applies a permutation: new slot k holds old slot perm[k] (all per-atom arrays and slot_).
  void permute(const std::vector<int>& perm);
  std::size_t n() const { return x_.size(); }

  EngineOptions options_;
  Box box_;
  std::array<double, 3> length_{};
  PairTable table_;
  std::vector<double> x_, y_, z_, vx_, vy_, vz_, fx_, fy_, fz_, inv_mass_;
  std::vector<int> type_, ix_, iy_, iz_;
  std::vector<std::uint32_t> id_;
  std::vector<int> slot_;  // set_state index of each storage slot
  bool wrap_each_step_ =
      true;  // false: the subclass wraps when it wants (positions may leave the box)
  double potential_ = 0, virial_ = 0;
};

}  // namespace pairwise::md
