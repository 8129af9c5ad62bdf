// The md engine across ranks: spatial domain decomposition as LAMMPS and HOOMD-blue do it.
//
// The box is cut into a px × py × pz grid of domains (the factorization of the rank count with
// the smallest domain surface whose domains are all at least r_list = rc + skin wide; none:
// a clear error). Each rank owns the atoms inside its domain and holds, as ghosts, copies of
// every atom within r_list of its faces, received in three stages (x, then y with the x ghosts,
// then z), each from the two neighbours along that axis, shifted by a box length across the
// periodic boundary (a single domain along an axis sends to itself: its periodic images).
// Between rebuilds only the ghosts' positions travel (forward communication, the same lists);
// the rebuild test (Liu et al.'s d1 + d2 > skin, the two largest displacements over every rank)
// is decided globally, so every rank rebuilds at the same step as one rank would. At a rebuild,
// atoms that left their domain migrate to the neighbour now owning them, then the ghost lists
// and the neighbour list (local pairs once, local atoms against every ghost, within r_list) are
// rebuilt. Local pairs use Newton's third law; a pair with a ghost is computed by both ranks that
// hold it, each for its own atom (no reverse communication), its energy and virial counting half
// on each side. Thermo is
// reduced across ranks. The thermostats' random streams are keyed by atom id and step
// (engine/dynamics.hpp), so they do not depend on the decomposition.
//
// Precision as the cpu engine: positions and velocities in double, pair arithmetic in P from
// displacements taken in double, forces and energies accumulated in Acc.
#include "md/domain_engine.hpp"
#include "md/domain_grid.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include "pairwise/error.hpp"
#include "pairwise/physics/lj_styles.hpp"

namespace pairwise::md {
namespace {

using parallel::Communicator;

// An atom crossing to another rank (migration).
struct AtomRecord {
  double x, y, z, vx, vy, vz, fx, fy, fz;
  int type, ix, iy, iz, slot;
  std::uint32_t id;
};
// A ghost as it first arrives (rebuild); later only its position travels.
struct GhostRecord {
  double x, y, z;
  int type, slot;
};
struct Position {
  double x, y, z;
};

template <class P, class Acc>
class DomainEngine final : public MdEngine {
 public:
  DomainEngine(const EngineOptions& o, Communicator& comm) : options_(o), comm_(comm) {}
  BackendKind backend() const override { return BackendKind::cpu; }
  Precision precision() const override { return options_.precision; }
  std::string device_name() const override { return name_; }
  EngineStats stats() const override { return stats_; }

  void set_state(const System& s) override {
    table_ = build_pair_table(s.ff);
    refuse_custom_pairs(table_);
    params_.resize(table_.params.size());
    any_sf_ = false;
    for (std::size_t k = 0; k < params_.size(); ++k) {
      params_[k] = physics::lj_pair_params_cast<P>(table_.params[k]);
      any_sf_ = any_sf_ || table_.params[k].f_shift != 0;
    }
    r_list_ = table_.max_cutoff + options_.skin;
    grid_ = DomainGrid(s.box, r_list_, comm_.size(), comm_.rank());
    // Every rank reads the whole system and keeps the atoms of its domain.
    const Atoms& a = s.atoms;
    total_ = a.size();
    clear_local();
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a.type[i] < 1 || a.type[i] > table_.types)
        throw Error("unknown atom type " + std::to_string(a.type[i]),
                    "atom id " + std::to_string(a.id[i]));
      AtomRecord rec{a.x[i], a.y[i],    a.z[i],  a.vx[i], a.vy[i], a.vz[i], 0,      0,
                     0,      a.type[i], a.ix[i], a.iy[i], a.iz[i], int(i),  a.id[i]};
      wrap(rec);
      if (owner(rec) == grid_.coord) append(rec);
    }
    rebuild(false);
    compute_forces();
    describe_load();
  }

  void get_state(System& s) override {
    std::vector<AtomState> mine(n_);
    for (std::size_t k = 0; k < n_; ++k) {
      AtomRecord rec = record(k);
      wrap(rec);
      mine[k] = {rec.x, rec.y, rec.z, rec.vx, rec.vy, rec.vz, rec.ix, rec.iy, rec.iz, rec.slot};
    }
    gather_state(comm_, mine, s);
  }

  void advance(std::uint64_t first_step, int steps) override {
    const engine::DynamicsOptions& o = options_.dynamics;
    for (int k = 0; k < steps; ++k) {
      const std::uint64_t step = first_step + std::uint64_t(k);
      // engine::dynamics_step, split so that atoms can migrate between the drift and the forces.
      engine::half_kick(arrays(), o.dt);
      if (o.thermostat == engine::Thermostat::langevin) {
        engine::drift(arrays(), 0.5 * o.dt);
        engine::langevin_o(arrays(), o, step);
        engine::drift(arrays(), 0.5 * o.dt);
      } else {
        engine::drift(arrays(), o.dt);
      }
      if (rebuild_needed())
        rebuild(true);
      else
        forward_ghost_positions();
      compute_forces();
      engine::half_kick(arrays(), o.dt);
      if (o.thermostat == engine::Thermostat::andersen) engine::andersen(arrays(), o, step);
    }
  }

  Thermo thermo() override {
    double sums[3] = {engine::kinetic_energy(arrays()), potential_, virial_};
    comm_.allreduce_sum(std::span<double>(sums, 3));
    return {sums[0], sums[1], sums[2]};
  }

  std::uint32_t first_bad_atom(double max_speed) override {
    std::int64_t slot = std::numeric_limits<std::int64_t>::max();
    std::uint32_t id = 0;
    for (std::size_t k = 0; k < n_; ++k) {
      const double v2 = vx_[k] * vx_[k] + vy_[k] * vy_[k] + vz_[k] * vz_[k];
      const bool finite =
          std::isfinite(x_[k]) && std::isfinite(y_[k]) && std::isfinite(z_[k]) && std::isfinite(v2);
      if ((!finite || v2 > max_speed * max_speed) && slot_[k] < slot) slot = slot_[k], id = id_[k];
    }
    return first_bad_on_any_rank(comm_, slot, id);
  }

  void forces(std::vector<double>& fx, std::vector<double>& fy, std::vector<double>& fz) override {
    std::vector<AtomForce> mine(n_);
    for (std::size_t k = 0; k < n_; ++k) mine[k] = {fx_[k], fy_[k], fz_[k], slot_[k]};
    gather_forces(comm_, mine, total_, fx, fy, fz);
  }

  std::vector<std::pair<int, int>> neighbor_pairs() override {
    std::vector<std::pair<int, int>> mine;
    for (std::size_t i = 0; i < n_; ++i)
      for (int e = list_start_[i]; e < list_start_[i + 1]; ++e)
        mine.push_back({slot_[i], slot_[std::size_t(list_[std::size_t(e)])]});
    return gather_pairs(comm_, std::move(mine));
  }

 private:
  // ---- local storage: slots [0, n_) are this rank's atoms, [n_, n_ + ghosts) the ghosts -----

  void clear_local() {
    for (auto* v : {&x_, &y_, &z_, &vx_, &vy_, &vz_, &fx_, &fy_, &fz_, &inv_mass_}) v->clear();
    for (auto* v : {&type_, &ix_, &iy_, &iz_, &slot_}) v->clear();
    id_.clear();
    n_ = 0;
  }
  void append(const AtomRecord& a) {
    x_.push_back(a.x), y_.push_back(a.y), z_.push_back(a.z);
    vx_.push_back(a.vx), vy_.push_back(a.vy), vz_.push_back(a.vz);
    fx_.push_back(a.fx), fy_.push_back(a.fy), fz_.push_back(a.fz);
    type_.push_back(a.type), ix_.push_back(a.ix), iy_.push_back(a.iy), iz_.push_back(a.iz);
    slot_.push_back(a.slot), id_.push_back(a.id);
    inv_mass_.push_back(table_.inv_mass[std::size_t(a.type - 1)]);
    ++n_;
  }
  AtomRecord record(std::size_t k) const {
    return {x_[k],  y_[k],    z_[k],  vx_[k], vy_[k], vz_[k],   fx_[k], fy_[k],
            fz_[k], type_[k], ix_[k], iy_[k], iz_[k], slot_[k], id_[k]};
  }
  engine::DynamicsArrays arrays() {
    return {n_,         x_.data(),  y_.data(),  z_.data(),  vx_.data(),       vy_.data(),
            vz_.data(), fx_.data(), fy_.data(), fz_.data(), inv_mass_.data(), id_.data()};
  }

  void wrap(AtomRecord& a) const { grid_.wrap(a.x, a.y, a.z, a.ix, a.iy, a.iz); }
  std::array<int, 3> owner(const AtomRecord& a) const { return grid_.owner(a.x, a.y, a.z); }

  // ---- rebuild: migration, ghosts, neighbour list -------------------------------------------

  // Liu et al.'s test over every rank: the two largest displacements since the last build.
  bool rebuild_needed() {
    double d1 = 0, d2 = 0;
    for (std::size_t k = 0; k < n_; ++k) {
      const double dx = x_[k] - x0_[k], dy = y_[k] - y0_[k], dz = z_[k] - z0_[k];
      const double d = std::sqrt(dx * dx + dy * dy + dz * dz);
      if (d > d1)
        d2 = d1, d1 = d;
      else if (d > d2)
        d2 = d;
    }
    return rebuild_needed_on_any_rank(comm_, d1, d2, options_.skin);
  }

  void rebuild(bool migrate_atoms) {
    if (migrate_atoms) migrate();
    exchange_ghosts();
    build_list();
    x0_.assign(x_.begin(), x_.begin() + long(n_));
    y0_.assign(y_.begin(), y_.begin() + long(n_));
    z0_.assign(z_.begin(), z_.begin() + long(n_));
    ++stats_.rebuilds;
  }

  // Wraps the local atoms and sends those outside the domain to the neighbour owning them, one
  // axis at a time (an atom crosses at most one face per axis between rebuilds: it moved less than
  // the skin, and a domain is wider than that).
  void migrate() {
    std::vector<AtomRecord> atoms(n_);
    for (std::size_t k = 0; k < n_; ++k) {
      atoms[k] = record(k);
      wrap(atoms[k]);
    }
    for (int d = 0; d < 3; ++d) {
      if (grid_.n[d] == 1) continue;
      std::vector<AtomRecord> stay, down, up;
      for (const AtomRecord& a : atoms) {
        const int c = owner(a)[d];
        if (c == grid_.coord[d])
          stay.push_back(a);
        else if (c == (grid_.coord[d] + grid_.n[d] - 1) % grid_.n[d])
          down.push_back(a);
        else if (c == (grid_.coord[d] + 1) % grid_.n[d])
          up.push_back(a);
        else
          throw Error("atom id " + std::to_string(a.id) +
                          " crossed more than one domain between two neighbour-list builds",
                      "md domain decomposition");
      }
      const int low = grid_.neighbour(d, -1), high = grid_.neighbour(d, +1);
      auto from_high = parallel::exchange(comm_, down, low, high);
      auto from_low = parallel::exchange(comm_, up, high, low);
      stay.insert(stay.end(), from_high.begin(), from_high.end());
      stay.insert(stay.end(), from_low.begin(), from_low.end());
      atoms.swap(stay);
    }
    clear_local();
    for (const AtomRecord& a : atoms) append(a);
  }

  // Three stages (x, y, z): the atoms (local and ghosts of earlier stages) within r_list of the
  // low face go to the low neighbour, those within r_list of the high face to the high one,
  // shifted by ∓L across the periodic boundary. The send lists are kept for the forward
  // communication of positions until the next rebuild.
  void exchange_ghosts() {
    const std::size_t held = n_;
    for (auto* v : {&x_, &y_, &z_}) v->resize(held);
    type_.resize(held), slot_.resize(held);
    for (int d = 0; d < 3; ++d) {
      const std::vector<double>& coord = d == 0 ? x_ : d == 1 ? y_ : z_;
      for (int side = 0; side < 2; ++side) send_[d][side].clear();
      const std::size_t count = coord.size();
      for (std::size_t k = 0; k < count; ++k) {
        if (coord[k] < grid_.lo[d] + r_list_) send_[d][0].push_back(int(k));
        if (coord[k] >= grid_.hi[d] - r_list_) send_[d][1].push_back(int(k));
      }
      for (int side = 0; side < 2; ++side) {
        std::vector<GhostRecord> out;
        out.reserve(send_[d][side].size());
        const Position s = shift(d, side);
        for (int k : send_[d][side])
          out.push_back({x_[k] + s.x, y_[k] + s.y, z_[k] + s.z, type_[k], slot_[k]});
        const int to = grid_.neighbour(d, side == 0 ? -1 : +1),
                  from = grid_.neighbour(d, side == 0 ? +1 : -1);
        const auto in = parallel::exchange(comm_, out, to, from);
        received_[d][side] = in.size();
        for (const GhostRecord& g : in) {
          x_.push_back(g.x), y_.push_back(g.y), z_.push_back(g.z);
          type_.push_back(g.type), slot_.push_back(g.slot);
        }
      }
    }
  }

  Position shift(int d, int side) const {
    const double s = grid_.shift(d, side);
    return {d == 0 ? s : 0, d == 1 ? s : 0, d == 2 ? s : 0};
  }

  // The positions of the same ghosts, in the same order, as atoms moved since the rebuild.
  void forward_ghost_positions() {
    std::size_t next = n_;
    for (int d = 0; d < 3; ++d)
      for (int side = 0; side < 2; ++side) {
        const Position s = shift(d, side);
        std::vector<Position> out;
        out.reserve(send_[d][side].size());
        for (int k : send_[d][side]) out.push_back({x_[k] + s.x, y_[k] + s.y, z_[k] + s.z});
        std::vector<Position> in(received_[d][side]);
        comm_.sendrecv(std::as_bytes(std::span<const Position>(out)),
                       grid_.neighbour(d, side == 0 ? -1 : +1),
                       std::as_writable_bytes(std::span<Position>(in)),
                       grid_.neighbour(d, side == 0 ? +1 : -1));
        for (const Position& p : in) x_[next] = p.x, y_[next] = p.y, z_[next] = p.z, ++next;
      }
  }

  // The neighbour list: for every local atom, the local atoms after it and every ghost within
  // r_list, found through cells at least r_list wide over the domain plus its ghost shell.
  void build_list() {
    const std::size_t held = x_.size();
    std::array<int, 3> cells{};
    std::array<double, 3> origin{}, width{};
    for (int d = 0; d < 3; ++d) {
      origin[d] = grid_.lo[d] - r_list_;
      const double extent = grid_.hi[d] - grid_.lo[d] + 2 * r_list_;
      cells[d] = std::max(1, int(extent / r_list_));
      width[d] = extent / cells[d];
    }
    auto cell_of = [&](std::size_t k, int d) {
      const double c = d == 0 ? x_[k] : d == 1 ? y_[k] : z_[k];
      return std::clamp(int((c - origin[d]) / width[d]), 0, cells[d] - 1);
    };
    const std::size_t ncell = std::size_t(cells[0]) * cells[1] * cells[2];
    std::vector<int> cell_start(ncell + 1, 0), cell_atoms(held), home(held);
    for (std::size_t k = 0; k < held; ++k) {
      home[k] = cell_of(k, 0) + cells[0] * (cell_of(k, 1) + cells[1] * cell_of(k, 2));
      ++cell_start[std::size_t(home[k]) + 1];
    }
    std::partial_sum(cell_start.begin(), cell_start.end(), cell_start.begin());
    {
      std::vector<int> fill(cell_start.begin(), cell_start.end() - 1);
      for (std::size_t k = 0; k < held; ++k) cell_atoms[std::size_t(fill[home[k]]++)] = int(k);
    }
    const double r2_list = r_list_ * r_list_;
    auto for_each_candidate = [&](std::size_t i, auto&& visit) {
      const int cx = cell_of(i, 0), cy = cell_of(i, 1), cz = cell_of(i, 2);
      for (int z = std::max(0, cz - 1); z <= std::min(cells[2] - 1, cz + 1); ++z)
        for (int y = std::max(0, cy - 1); y <= std::min(cells[1] - 1, cy + 1); ++y)
          for (int x = std::max(0, cx - 1); x <= std::min(cells[0] - 1, cx + 1); ++x) {
            const std::size_t c = std::size_t(x + cells[0] * (y + cells[1] * z));
            for (int e = cell_start[c]; e < cell_start[c + 1]; ++e) {
              const int j = cell_atoms[std::size_t(e)];
              // Local pairs once (j > i), every ghost.
              if (std::size_t(j) <= i) continue;
              const double dx = x_[i] - x_[j], dy = y_[i] - y_[j], dz = z_[i] - z_[j];
              if (dx * dx + dy * dy + dz * dz < r2_list) visit(j);
            }
          }
    };
    list_start_.assign(n_ + 1, 0);
    const std::ptrdiff_t n = std::ptrdiff_t(n_);
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
      int count = 0;
      for_each_candidate(std::size_t(i), [&](int) { ++count; });
      list_start_[std::size_t(i) + 1] = count;
    }
    std::partial_sum(list_start_.begin(), list_start_.end(), list_start_.begin());
    list_.resize(std::size_t(list_start_[n_]));
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < n; ++i) {
      int at = list_start_[std::size_t(i)];
      for_each_candidate(std::size_t(i), [&](int j) { list_[std::size_t(at++)] = j; });
    }
  }

  // ---- forces ---------------------------------------------------------------------------------

  void compute_forces() {
    any_sf_ ? pair_forces<true>() : pair_forces<false>();
  }

  // Local pairs are in the list once (Newton's third law: both atoms get the force, the pair its
  // whole energy); a pair with a ghost is computed by both ranks holding it, each for its own atom
  // and half the energy and virial. Each thread scatters into its own force buffer and the
  // buffers are summed in thread order, so a run is deterministic for a given thread count.
  template <bool SF>
  void pair_forces() {
    const int T = table_.types;
    const std::ptrdiff_t n = std::ptrdiff_t(n_);
    const std::size_t stride = 3 * n_;
    buffer_.resize(std::size_t(omp_get_max_threads()) * stride);
    Acc pe = 0, vir = 0;
#pragma omp parallel reduction(+ : pe, vir)
    {
      const int nt = omp_get_num_threads();
      Acc* b = buffer_.data() + std::size_t(omp_get_thread_num()) * stride;
      std::fill(b, b + stride, Acc(0));
#pragma omp for schedule(static)
      for (std::ptrdiff_t i = 0; i < n; ++i) {
        const physics::LjPairParams<P>* row = params_.data() + std::size_t(type_[i] - 1) * T;
        Acc fxi = 0, fyi = 0, fzi = 0;
        for (int e = list_start_[std::size_t(i)]; e < list_start_[std::size_t(i) + 1]; ++e) {
          const std::size_t j = std::size_t(list_[std::size_t(e)]);
          const P dx = P(x_[i] - x_[j]), dy = P(y_[i] - y_[j]), dz = P(z_[i] - z_[j]);
          const P r2 = dx * dx + dy * dy + dz * dz;
          const physics::LjPairParams<P>& p = row[type_[j] - 1];
          if (!(r2 < p.rc2)) continue;
          const auto term = physics::lj_truncated<SF>(r2, p);
          const P fr = term.force_over_r2;
          fxi += Acc(fr * dx), fyi += Acc(fr * dy), fzi += Acc(fr * dz);
          if (j < n_) {
            Acc* bj = b + 3 * j;
            bj[0] -= Acc(fr * dx), bj[1] -= Acc(fr * dy), bj[2] -= Acc(fr * dz);
            pe += Acc(term.energy), vir += Acc(fr * r2);
          } else {
            pe += Acc(0.5) * Acc(term.energy), vir += Acc(0.5) * Acc(fr * r2);
          }
        }
        Acc* bi = b + 3 * std::size_t(i);
        bi[0] += fxi, bi[1] += fyi, bi[2] += fzi;
      }
#pragma omp for schedule(static)
      for (std::ptrdiff_t i = 0; i < n; ++i) {
        Acc sx = 0, sy = 0, sz = 0;
        for (int u = 0; u < nt; ++u) {
          const Acc* bu = buffer_.data() + std::size_t(u) * stride + 3 * std::size_t(i);
          sx += bu[0], sy += bu[1], sz += bu[2];
        }
        fx_[std::size_t(i)] = double(sx), fy_[std::size_t(i)] = double(sy);
        fz_[std::size_t(i)] = double(sz);
      }
    }
    potential_ = double(pe), virial_ = double(vir);
  }

  // "cpu (4 threads per rank), domains 2x1x1, atoms per rank 15980 to 16020; 2 ranks ..."
  void describe_load() {
    name_ = "cpu (" + std::to_string(cpu_threads()) + " threads per rank), " +
            describe_domains(comm_, grid_, n_);
    if (comm_.size() > 1) name_ += "; " + parallel::describe_ranks(0);
  }

  EngineOptions options_;
  Communicator& comm_;
  std::string name_ = "cpu domains";
  DomainGrid grid_;
  PairTable table_;
  std::vector<physics::LjPairParams<P>> params_;
  bool any_sf_ = false;
  double r_list_ = 0;
  std::size_t total_ = 0, n_ = 0;
  std::vector<double> x_, y_, z_, vx_, vy_, vz_, fx_, fy_, fz_, inv_mass_, x0_, y0_, z0_;
  std::vector<int> type_, ix_, iy_, iz_, slot_;
  std::vector<std::uint32_t> id_;
  std::array<std::array<std::vector<int>, 2>, 3> send_;
  std::array<std::array<std::size_t, 2>, 3> received_{};
  std::vector<int> list_start_, list_;
  std::vector<Acc> buffer_;  // per-thread force accumulators (3 per local atom)
  double potential_ = 0, virial_ = 0;
  EngineStats stats_;
};

}  // namespace

std::unique_ptr<MdEngine> make_domain_engine(BackendKind backend, const EngineOptions& o,
                                             parallel::Communicator& comm) {
  if (backend == BackendKind::cuda) return make_cuda_domain_engine(o, comm);
  if (backend != BackendKind::cpu)
    throw Error("md across ranks runs the cpu or the cuda backend's domain engine (got " +
                    std::string(to_string(backend)) + ")",
                "--backend");
  switch (o.precision) {
    case Precision::single:
      return std::make_unique<DomainEngine<float, float>>(o, comm);
    case Precision::mixed:
      return std::make_unique<DomainEngine<float, double>>(o, comm);
    case Precision::double_:
      return std::make_unique<DomainEngine<double, double>>(o, comm);
  }
  throw Error("unknown precision");
}

#ifndef PAIRWISE_HAVE_CUDA
std::unique_ptr<MdEngine> make_cuda_domain_engine(const EngineOptions&, parallel::Communicator&) {
  throw Error("this build has no CUDA backend", "--backend cuda");
}
#endif

}  // namespace pairwise::md
