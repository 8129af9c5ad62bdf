// The frames of a trajectory across ranks (issue 14, docs/distributed.md): selected frame k goes to
// rank k mod P, which maps it whole on its own backend (no slabs) and folds it into its running
// sum, minimum or maximum; at the end one all-reduce of the lattice (sum, or max for the maximum
// and of the negated values for the minimum: exact) combines the ranks' partial maps, and rank 0
// writes. A rank that mapped no frame contributes the identity (0, +inf, -inf).
#pragma once

#include <memory>

#include "potmap/frames.hpp"

namespace pairwise::potmap {

class RankFrameMaps final : public FrameMaps {
 public:
  // Wraps this rank's accumulator (made by make_frame_maps on `backend`); combine is avg, min or
  // max; `points` is the lattice's size.
  RankFrameMaps(std::unique_ptr<FrameMaps> local, BackendKind backend, std::size_t points,
                Combine combine);
  // Maps a frame that belongs to this rank (its work is rank-local: no slabs).
  void add(const Atoms& atoms) override;
  // Collective (every rank calls it once, after its last frame): combines the ranks' partial maps;
  // afterwards frames() is the total over ranks and result() the combined map on every rank.
  void reduce();
  std::vector<double> result() override;
  std::vector<double> accumulated() override;  // combined over ranks (after reduce)
  std::string device() const override;

 private:
  std::unique_ptr<FrameMaps> local_;
  BackendKind backend_;
  std::size_t points_;
  Combine combine_;
  bool reduced_ = false;
  std::vector<double> combined_;  // the sum (average), minimum or maximum over every rank's frames
};

}  // namespace pairwise::potmap
