#include "potmap/rank_frames.hpp"

#include <cstdint>
#include <limits>
#include <span>

#include "pairwise/error.hpp"
#include "parallel/communicator.hpp"

namespace pairwise::potmap {

RankFrameMaps::RankFrameMaps(std::unique_ptr<FrameMaps> local, BackendKind backend,
                             std::size_t points, Combine combine)
    : local_(std::move(local)), backend_(backend), points_(points), combine_(combine) {
  if (combine == Combine::all) throw Error("frames across ranks need avg, min or max", "combine");
}

void RankFrameMaps::add(const Atoms& atoms) {
  parallel::RankLocalWork local;  // this frame's map is this rank's alone
  local_->add(atoms);
}

void RankFrameMaps::reduce() {
  parallel::Communicator& comm = parallel::world();
  const double inf = std::numeric_limits<double>::infinity();
  // The running combination, not divided by the frame count: the sum for an average.
  const long mine = local_->frames();
  combined_ = mine > 0 ? local_->accumulated() : std::vector<double>();
  if (combined_.empty()) {  // no frame on this rank: the identity of the combination
    combined_.assign(points_, combine_ == Combine::minimum   ? inf
                              : combine_ == Combine::maximum ? -inf
                                                             : 0.0);
  }
  std::span<double> values(combined_);
  switch (combine_) {
    case Combine::average:
      comm.allreduce_sum(values);  // the sum's order differs from one rank's: within rounding
      break;
    case Combine::maximum:
      comm.allreduce_max(values);
      break;
    case Combine::minimum:  // min(a, b) = -max(-a, -b), exactly
      for (double& v : combined_) v = -v;
      comm.allreduce_max(values);
      for (double& v : combined_) v = -v;
      break;
    case Combine::all:
      break;
  }
  std::int64_t total = mine;
  comm.allreduce_sum(std::span<std::int64_t>(&total, 1));
  frames_ = long(total);
  reduced_ = true;
}

std::vector<double> RankFrameMaps::accumulated() {
  if (!reduced_) throw Error("RankFrameMaps::accumulated before reduce", "potmap");
  return combined_;
}

std::vector<double> RankFrameMaps::result() {
  if (!reduced_) throw Error("RankFrameMaps::result before reduce", "potmap");
  std::vector<double> out = combined_;
  if (combine_ == Combine::average && frames_ > 0) {
    for (double& v : out) v /= double(frames_);
  }
  return out;
}

std::string RankFrameMaps::device() const {
  const std::string local = local_->device();
  return (local.empty() ? std::string("no frame on rank 0") : local) + "; " +
         parallel::describe_ranks(backend_ == BackendKind::cuda ? 1 : 0) +
         ", frames across ranks (frame k on rank k mod " +
         std::to_string(parallel::world().size()) + "), partial maps all-reduced";
}

}  // namespace pairwise::potmap
