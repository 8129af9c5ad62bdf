// The cpu engine: OpenMP over atoms, cell list (counting sort along a Morton curve) + half Verlet
// list with skin, rebuilt when the two largest displacements since the last build exceed the skin
// (Liu et al.), atoms reordered along the curve every `sort_every` steps (at the next rebuild).
// Each thread accumulates the Newton's-third-law half of the pair forces in its own buffer; the
// buffers are summed in a fixed order, so a run is deterministic for a given thread count.
//
// Precision: positions and velocities are double for all three modes (the dynamics module's host
// loops); pair arithmetic is P (float for single and mixed, double for double) from minimum-image
// displacements taken in double; forces and energies are accumulated in Acc (float for single,
// double otherwise).
#include <omp.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>

#include "core/checkpoint.hpp"
#include "engine/cell_list.hpp"
#include "engine/formula/program.hpp"
#include "md/custom_force_field.hpp"
#include "md/domain_engine.hpp"
#include "md/host_engine.hpp"
#include "pairwise/error.hpp"

namespace pairwise::md {
namespace {

// The LJ terms of m displacements (cut or shift style), in a loop the compiler vectorizes; built
// twice, for AVX2 and for the baseline x86-64, and picked at run time (target_clones), so the
// binary still runs on any x86-64 CPU.
template <class P>
inline void lj_block_impl(const P* __restrict__ dx, const P* __restrict__ dy,
                          const P* __restrict__ dz, int m, P a, P b, P rc2, P u_shift,
                          P* __restrict__ fr, P* __restrict__ en, P* __restrict__ r2out) {
  for (int k = 0; k < m; ++k) {
    const P r2 = dx[k] * dx[k] + dy[k] * dy[k] + dz[k] * dz[k];
    const bool inside = r2 < rc2;
    const P r2inv = P(1) / (inside ? r2 : P(1));
    const P r6inv = r2inv * r2inv * r2inv;
    const P rep = a * r6inv;
    fr[k] = inside ? r6inv * (P(12) * rep - P(6) * b) * r2inv : P(0);
    en[k] = inside ? r6inv * (rep - b) - u_shift : P(0);
    r2out[k] = r2;
  }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PW_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PW_CLONES
#endif

PW_CLONES void lj_block(const float* dx, const float* dy, const float* dz, int m, float a, float b,
                        float rc2, float u_shift, float* fr, float* en, float* r2) {
  lj_block_impl(dx, dy, dz, m, a, b, rc2, u_shift, fr, en, r2);
}
PW_CLONES void lj_block(const double* dx, const double* dy, const double* dz, int m, double a,
                        double b, double rc2, double u_shift, double* fr, double* en, double* r2) {
  lj_block_impl(dx, dy, dz, m, a, b, rc2, u_shift, fr, en, r2);
}

template <class P, class Acc>
class CpuEngine final : public HostEngine {
 public:
  using HostEngine::HostEngine;
  BackendKind backend() const override { return BackendKind::cpu; }
  std::string device_name() const override {
    return "cpu (" + std::to_string(cpu_threads()) + " threads)";
  }
  EngineStats stats() const override {
    EngineStats s = stats_;
    s.rebuilds = list_.rebuilds, s.regrows = list_.regrows, s.capacity = list_.capacity;
    return s;
  }

  std::vector<std::pair<int, int>> neighbor_pairs() override {
    auto pairs = engine::list_pairs(list_);
    for (auto& [i, j] : pairs) {
      i = slot_[std::size_t(i)], j = slot_[std::size_t(j)];
      if (i > j) std::swap(i, j);
    }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
  }

 protected:
  void prepare() override {
    wrap_each_step_ = false;  // wrapped at rebuilds only: the shifted list stays exact between
    r_list_ = table_.max_cutoff + options_.skin;
    // Cells at least r_list wide, radius-1 half stencil: measured on in.lj (32,000 atoms, one core)
    // a little faster than half-width cells with the radius-2 stencil (fewer candidates, but 63
    // cells of ~3 atoms each per atom instead of 14 of ~24).
    radius_ = 1;
    grid_ = engine::make_cell_grid(box_.lo, length_, r_list_);
    params_.resize(table_.params.size());
    any_sf_ = false;
    for (std::size_t k = 0; k < params_.size(); ++k) {
      params_[k] = physics::lj_pair_params_cast<P>(table_.params[k]);
      any_sf_ = any_sf_ || table_.params[k].f_shift != 0;
    }
    if (options_.neighbor_capacity > 0) list_.capacity = options_.neighbor_capacity;
    rebuild(true);
  }

  void compute_forces() override {
    ++steps_since_sort_;
    const auto [d1, d2] = engine::two_largest_displacements(
        n(), x_.data(), y_.data(), z_.data(), x0_.data(), y0_.data(), z0_.data(), length_);
    if (d1 + d2 > options_.skin) {
      wrap();
      rebuild(options_.sort_every > 0 && steps_since_sort_ >= options_.sort_every);
    }
    if (table_.custom)
      list_.shifted ? pair_forces_custom<true>() : pair_forces_custom<false>();
    else if (list_.shifted && table_.types == 1 && !any_sf_)
      pair_forces_one_type();
    else if (list_.shifted)
      any_sf_ ? pair_forces<true, true>() : pair_forces<false, true>();
    else
      any_sf_ ? pair_forces<true, false>() : pair_forces<false, false>();
  }

  // The list is rebuilt from the positions of its last build (x0), in the saved storage order and
  // capacity, so it holds the same entries in the same order: the forces, and every later step,
  // are bitwise those of the interrupted run.
  void save_extra(CheckpointWriter& w) override {
    w.f64s(x0_), w.f64s(y0_), w.f64s(z0_);
    w.i64(steps_since_sort_), w.i64(list_.capacity), w.i64(list_.rebuilds), w.i64(list_.regrows);
    w.i64(stats_.reorders);
  }
  void load_extra(CheckpointReader& r) override {
    x0_ = r.f64s(), y0_ = r.f64s(), z0_ = r.f64s();
    if (x0_.size() != n() || y0_.size() != n() || z0_.size() != n())
      throw Error("checkpoint neighbour-list positions do not match the atom count", r.where());
    const std::vector<double>* x0[3] = {&x0_, &y0_, &z0_};
    for (int d = 0; d < 3; ++d)
      for (double v : *x0[d])
        if (!(v >= box_.lo[d] && v < box_.hi[d]))  // also false for NaN
          throw Error("checkpoint neighbour-list position outside the box", r.where());
    const std::int64_t since_sort = r.i64(), capacity = r.i64(), rebuilds = r.i64(),
                       regrows = r.i64(), reorders = r.i64();
    if (capacity < 1 || capacity > (1 << 20) || since_sort < 0)
      throw Error("checkpoint neighbour-list state out of range", r.where());
    list_.capacity = int(capacity);
    std::vector<double> x = std::move(x_), y = std::move(y_), z = std::move(z_);
    x_ = x0_, y_ = y0_, z_ = z0_;  // build from the positions of the last build (x0 = them again)
    rebuild(false);
    x_ = std::move(x), y_ = std::move(y), z_ = std::move(z);
    list_.rebuilds = int(rebuilds), list_.regrows = int(regrows);
    stats_.reorders = reorders;
    steps_since_sort_ = int(since_sort) - 1;  // compute_forces() counts the step again
    compute_forces();
  }

 private:
  void rebuild(bool sort) {
    engine::build_cell_list(grid_, n(), x_.data(), y_.data(), z_.data(), cells_);
    if (sort) {
      permute(cells_.order);
      engine::build_cell_list(grid_, n(), x_.data(), y_.data(), z_.data(), cells_);
      ++stats_.reorders;
      steps_since_sort_ = 0;
    }
    if (!engine::build_half_list_shifted(grid_, cells_, n(), x_.data(), y_.data(), z_.data(),
                                         r_list_, list_, radius_)) {
      // Only a grid of fewer than 3 cells a side gets here (radius 2 is chosen only when it fits).
      if (radius_ != 1)
        throw Error("internal: no neighbor list for the cell grid", "md cpu engine");
      engine::build_neighbor_list(grid_, cells_, n(), x_.data(), y_.data(), z_.data(), r_list_,
                                  true, list_);
    }
    x0_ = x_, y0_ = y_, z0_ = z_;
  }

  // The 27 periodic image offsets of a shifted list, shift[axis][c] = (c_axis - 1) L_axis with
  // c = c_x + 3 c_y + 9 c_z (the image code each neighbour entry carries).
  using PeriodicShifts = std::array<std::array<double, 27>, 3>;
  PeriodicShifts periodic_shifts() const {
    PeriodicShifts shift{};
    for (int c = 0; c < 27; ++c) {
      shift[0][c] = (c % 3 - 1) * length_[0];
      shift[1][c] = (c / 3 % 3 - 1) * length_[1];
      shift[2][c] = (c / 9 - 1) * length_[2];
    }
    return shift;
  }

  template <bool SF, bool Shifted>
  void pair_forces() {
    const PeriodicShifts shift = periodic_shifts();
    const std::array<double, 3> box = length_;
    const std::ptrdiff_t count = std::ptrdiff_t(n());
    const int threads = omp_get_max_threads();
    buffer_.resize(std::size_t(threads) * 3 * n());
    packed_.resize(n());
    const int T = table_.types;
    const int cap = list_.capacity;
    const int* nb_count = list_.count.data();
    const int* nb = list_.index.data();
    const physics::LjPairParams<P>* params = params_.data();
    Pos* pk = packed_.data();
    Acc pe = 0, vir = 0;
#pragma omp parallel reduction(+ : pe, vir)
    {
      const int t = omp_get_thread_num();
      const int nt = omp_get_num_threads();
      Acc* b = buffer_.data() + std::size_t(t) * 3 * n();  // (fx, fy, fz) per atom
      std::fill(b, b + 3 * n(), Acc(0));
#pragma omp for schedule(static)
      for (std::ptrdiff_t i = 0; i < count; ++i) pk[i] = {x_[i], y_[i], z_[i], type_[i] - 1};
#pragma omp for schedule(static)
      for (std::ptrdiff_t i = 0; i < count; ++i) {
        const double xi = pk[i].x, yi = pk[i].y, zi = pk[i].z;
        const physics::LjPairParams<P>* row = params + std::size_t(pk[i].type) * T;
        Acc fxi = 0, fyi = 0, fzi = 0;
        const int* list = nb + std::size_t(i) * cap;
        for (int k = 0; k < nb_count[i]; ++k) {
          int j = list[k];
          P dx, dy, dz;
          neighbor_displacement<Shifted>(pk, xi, yi, zi, shift, box, j, dx, dy, dz);
          const P r2 = dx * dx + dy * dy + dz * dz;
          const physics::LjPairParams<P>& p = T == 1 ? row[0] : row[pk[j].type];
          // Branch-free cutoff: the pair terms of pairs beyond rc are selected away.
          const bool inside = r2 < p.rc2;
          const auto term = physics::lj_truncated<SF>(inside ? r2 : P(1), p);
          const P fr = inside ? term.force_over_r2 : P(0);
          fxi += Acc(fr * dx), fyi += Acc(fr * dy), fzi += Acc(fr * dz);
          Acc* bj = b + 3 * std::size_t(j);
          bj[0] -= Acc(fr * dx), bj[1] -= Acc(fr * dy), bj[2] -= Acc(fr * dz);
          pe += inside ? Acc(term.energy) : Acc(0);
          vir += Acc(fr * r2);
        }
        Acc* bi = b + 3 * std::size_t(i);
        bi[0] += fxi, bi[1] += fyi, bi[2] += fzi;
      }
      reduce_thread_buffers(count, nt);  // after the implicit barrier of the pair loop
    }
    potential_ = double(pe), virial_ = double(vir);
  }

  // One atom type, cut or shift style, shifted list (LAMMPS's in.lj): per atom i, the neighbors'
  // displacements are gathered into short arrays (scalar), the LJ terms computed over them in a
  // loop the compiler vectorizes (4 floats or 2 doubles an instruction), then the forces
  // scattered (scalar). Same arithmetic as pair_forces, in another order of accumulation.
  void pair_forces_one_type() {
    const PeriodicShifts shift = periodic_shifts();
    const std::ptrdiff_t count = std::ptrdiff_t(n());
    const int threads = omp_get_max_threads();
    buffer_.resize(std::size_t(threads) * 3 * n());
    packed_.resize(n());
    const int cap = list_.capacity;
    const int* nb_count = list_.count.data();
    const int* nb = list_.index.data();
    const physics::LjPairParams<P> p = params_[0];
    Pos* pk = packed_.data();
    Acc pe = 0, vir = 0;
#pragma omp parallel reduction(+ : pe, vir)
    {
      const int t = omp_get_thread_num();
      const int nt = omp_get_num_threads();
      Acc* b = buffer_.data() + std::size_t(t) * 3 * n();
      std::fill(b, b + 3 * n(), Acc(0));
      const std::size_t ucap = std::size_t(cap);
      std::vector<P> ddx(ucap), ddy(ucap), ddz(ucap), dfr(ucap), den(ucap), dr2(ucap);
      std::vector<int> dj(ucap);
#pragma omp for schedule(static)
      for (std::ptrdiff_t i = 0; i < count; ++i) pk[i] = {x_[i], y_[i], z_[i], type_[i] - 1};
#pragma omp for schedule(static)
      for (std::ptrdiff_t i = 0; i < count; ++i) {
        const double xi = pk[i].x, yi = pk[i].y, zi = pk[i].z;
        const int m = nb_count[i];
        const int* list = nb + std::size_t(i) * cap;
        P* __restrict__ vx = ddx.data();
        P* __restrict__ vy = ddy.data();
        P* __restrict__ vz = ddz.data();
        P* __restrict__ vfr = dfr.data();
        P* __restrict__ ven = den.data();
        P* __restrict__ vr2 = dr2.data();
        for (int k = 0; k < m; ++k) {
          const int c = list[k] & 31, j = list[k] >> 5;
          dj[std::size_t(k)] = j;
          vx[k] = P(xi - (pk[j].x + shift[0][c]));
          vy[k] = P(yi - (pk[j].y + shift[1][c]));
          vz[k] = P(zi - (pk[j].z + shift[2][c]));
        }
        lj_block(vx, vy, vz, m, p.a, p.b, p.rc2, p.u_shift, vfr, ven, vr2);
        Acc fxi = 0, fyi = 0, fzi = 0;
        for (int k = 0; k < m; ++k) {
          const P fr = vfr[k];
          Acc* bj = b + 3 * std::size_t(dj[std::size_t(k)]);
          fxi += Acc(fr * vx[k]), fyi += Acc(fr * vy[k]), fzi += Acc(fr * vz[k]);
          bj[0] -= Acc(fr * vx[k]), bj[1] -= Acc(fr * vy[k]), bj[2] -= Acc(fr * vz[k]);
          pe += Acc(ven[k]);
          vir += Acc(fr * vr2[k]);
        }
        Acc* bi = b + 3 * std::size_t(i);
        bi[0] += fxi, bi[1] += fyi, bi[2] += fzi;
      }
      reduce_thread_buffers(count, nt);
    }
    potential_ = double(pe), virial_ = double(vir);
  }

  // Custom pairs (formula or table, md/custom_force_field.hpp): the pairs inside their cutoff are
  // gathered into one bucket per type pair; a full bucket (Program::batch pairs) is evaluated at
  // once by the pair's compiled program (vectorized per instruction), then its forces scattered
  // into the thread's buffer (both atoms: Newton's third law on the half list).
  template <bool Shifted>
  void pair_forces_custom() {
    const PeriodicShifts shift = periodic_shifts();
    const std::array<double, 3> box = length_;
    const std::ptrdiff_t count = std::ptrdiff_t(n());
    const int threads = omp_get_max_threads();
    buffer_.resize(std::size_t(threads) * 3 * n());
    packed_.resize(n());
    const int T = table_.types;
    const int cap = list_.capacity;
    const int* nb_count = list_.count.data();
    const int* nb = list_.index.data();
    const CustomPairs& custom = *table_.custom;
    Pos* pk = packed_.data();
    Acc pe = 0, vir = 0;
#pragma omp parallel reduction(+ : pe, vir)
    {
      constexpr int B = formula::Program::batch;
      const int t = omp_get_thread_num();
      const int nt = omp_get_num_threads();
      Acc* b = buffer_.data() + std::size_t(t) * 3 * n();
      std::fill(b, b + 3 * n(), Acc(0));
      struct Bucket {
        std::vector<P> r2, dx, dy, dz, en, fr;
        std::vector<int> i, j;
        int m = 0;
      };
      std::vector<Bucket> buckets(std::size_t(T) * T);
      for (auto& bk : buckets) {
        for (auto* v : {&bk.r2, &bk.dx, &bk.dy, &bk.dz, &bk.en, &bk.fr}) v->resize(B);
        bk.i.resize(B), bk.j.resize(B);
      }
      std::vector<P> scratch;
      Acc pe_t = 0, vir_t = 0;
      auto flush = [&](Bucket& bk, int ti, int tj) {
        custom.at(ti + 1, tj + 1).batch(bk.r2.data(), bk.m, bk.en.data(), bk.fr.data(), scratch);
        for (int k = 0; k < bk.m; ++k) {
          const P fr = bk.fr[std::size_t(k)];
          const P fx = fr * bk.dx[std::size_t(k)], fy = fr * bk.dy[std::size_t(k)],
                  fz = fr * bk.dz[std::size_t(k)];
          Acc* bi = b + 3 * std::size_t(bk.i[std::size_t(k)]);
          Acc* bj = b + 3 * std::size_t(bk.j[std::size_t(k)]);
          bi[0] += Acc(fx), bi[1] += Acc(fy), bi[2] += Acc(fz);
          bj[0] -= Acc(fx), bj[1] -= Acc(fy), bj[2] -= Acc(fz);
          pe_t += Acc(bk.en[std::size_t(k)]);
          vir_t += Acc(fr * bk.r2[std::size_t(k)]);
        }
        bk.m = 0;
      };
#pragma omp for schedule(static)
      for (std::ptrdiff_t i = 0; i < count; ++i) pk[i] = {x_[i], y_[i], z_[i], type_[i] - 1};
#pragma omp for schedule(static)
      for (std::ptrdiff_t i = 0; i < count; ++i) {
        const double xi = pk[i].x, yi = pk[i].y, zi = pk[i].z;
        const int ti = pk[i].type;
        const int* list = nb + std::size_t(i) * cap;
        for (int k = 0; k < nb_count[i]; ++k) {
          int j = list[k];
          P dx, dy, dz;
          neighbor_displacement<Shifted>(pk, xi, yi, zi, shift, box, j, dx, dy, dz);
          const P r2 = dx * dx + dy * dy + dz * dz;
          const int tj = pk[j].type;
          const std::size_t pair = std::size_t(ti) * T + tj;
          if (!(r2 < P(table_.params[pair].rc2))) continue;
          Bucket& bk = buckets[pair];
          const std::size_t m = std::size_t(bk.m);
          bk.r2[m] = r2, bk.dx[m] = dx, bk.dy[m] = dy, bk.dz[m] = dz;
          bk.i[m] = int(i), bk.j[m] = j;
          if (++bk.m == B) flush(bk, ti, tj);
        }
      }
      for (int ti = 0; ti < T; ++ti)
        for (int tj = 0; tj < T; ++tj)
          if (buckets[std::size_t(ti) * T + tj].m) flush(buckets[std::size_t(ti) * T + tj], ti, tj);
      pe += pe_t, vir += vir_t;
#pragma omp barrier
      reduce_thread_buffers(count, nt);
    }
    potential_ = double(pe), virial_ = double(vir);
  }

  // Called by every thread of a parallel region after the pair loop's barrier: the forces are the
  // per-thread buffers (nt of 3 n() accumulators) summed in thread order, so the result does not
  // depend on the schedule.
  void reduce_thread_buffers(std::ptrdiff_t count, int nt) {
#pragma omp for schedule(static)
    for (std::ptrdiff_t i = 0; i < count; ++i) {
      Acc sx = 0, sy = 0, sz = 0;
      for (int u = 0; u < nt; ++u) {
        const Acc* bu = buffer_.data() + std::size_t(u) * 3 * n() + 3 * std::size_t(i);
        sx += bu[0], sy += bu[1], sz += bu[2];
      }
      fx_[i] = double(sx), fy_[i] = double(sy), fz_[i] = double(sz);
    }
  }

  struct Pos {
    double x, y, z;
    int type;
  };

  // x_i - x_j of neighbour entry `j` (decoded to the atom index in place), in the pair precision P:
  // with a shifted list the entry is (j << 5) | image code and the image's offset is added to x_j
  // (no minimum image needed); else the minimum image of the difference in the box `L` (by value:
  // a copy the force loop's stores cannot alias).
  template <bool Shifted>
  static void neighbor_displacement(const Pos* pk, double xi, double yi, double zi,
                                    const PeriodicShifts& shift, const std::array<double, 3> L,
                                    int& j, P& dx, P& dy, P& dz) {
    if constexpr (Shifted) {
      const int c = j & 31;
      j >>= 5;
      dx = P(xi - (pk[j].x + shift[0][c]));
      dy = P(yi - (pk[j].y + shift[1][c]));
      dz = P(zi - (pk[j].z + shift[2][c]));
    } else {
      dx = P(engine::minimum_image(xi - pk[j].x, L[0]));
      dy = P(engine::minimum_image(yi - pk[j].y, L[1]));
      dz = P(engine::minimum_image(zi - pk[j].z, L[2]));
    }
  }
  std::vector<Pos> packed_;
  double r_list_ = 0;
  int radius_ = 1;  // half-stencil radius in cells
  engine::CellGrid grid_;
  engine::CellList cells_;
  engine::NeighborList list_;
  std::vector<double> x0_, y0_, z0_;
  std::vector<physics::LjPairParams<P>> params_;
  std::vector<Acc> buffer_;
  bool any_sf_ = false;
  int steps_since_sort_ = 0;
  EngineStats stats_;
};

}  // namespace

std::unique_ptr<MdEngine> make_cpu_engine(const EngineOptions& o) {
  switch (o.precision) {
    case Precision::single:
      return std::make_unique<CpuEngine<float, float>>(o);
    case Precision::mixed:
      return std::make_unique<CpuEngine<float, double>>(o);
    case Precision::double_:
      return std::make_unique<CpuEngine<double, double>>(o);
  }
  throw Error("unknown precision");
}

std::unique_ptr<MdEngine> make_md_engine(BackendKind backend, const EngineOptions& o) {
  // Many ranks: spatial domain decomposition (domain_engine.cpp, cuda_domain_engine.cu).
  // PAIRWISE_MD_DOMAINS=1 takes it on one rank too (a 1x1x1 grid whose ghosts are the periodic
  // images: the decomposition's own cost against the one-rank engines, docs/distributed.md).
  const char* domains = std::getenv("PAIRWISE_MD_DOMAINS");
  if (parallel::Communicator& comm = parallel::world();
      comm.size() > 1 || (domains && *domains == '1'))
    return make_domain_engine(backend, o, comm);
  switch (backend) {
    case BackendKind::reference:
      return make_reference_engine(o);
    case BackendKind::cpu:
      return make_cpu_engine(o);
    case BackendKind::cuda:
      return make_cuda_engine(o);  // formulas: NVRTC kernels (md/cuda_custom_pair.hpp)
    case BackendKind::automatic:
      break;
  }
  throw Error("make_md_engine: the backend must be resolved first");
}

#ifndef PAIRWISE_HAVE_CUDA
std::unique_ptr<MdEngine> make_cuda_engine(const EngineOptions&) {
  throw Error("this build has no CUDA backend", "--backend cuda");
}
#endif

}  // namespace pairwise::md
