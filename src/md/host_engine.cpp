#include "md/host_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <numeric>

#include "core/checkpoint.hpp"
#include "md/periodic_images.hpp"
#include "pairwise/error.hpp"

namespace pairwise::md {

std::string HostEngine::device_name() const {
  return "host";
}

double MdEngine::time_steps(int steps) {
  const auto t0 = std::chrono::steady_clock::now();
  advance(1, steps);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / steps;
}

double pressure(const Thermo& t, double volume) {
  return (2.0 * t.kinetic + t.virial) / (3.0 * volume);
}

void HostEngine::set_state(const System& s) {
  box_ = s.box;
  for (int d = 0; d < 3; ++d) length_[d] = s.box.length(d);
  table_ = build_pair_table(s.ff);
  const auto& a = s.atoms;
  const std::size_t count = a.size();
  x_ = a.x, y_ = a.y, z_ = a.z, vx_ = a.vx, vy_ = a.vy, vz_ = a.vz;
  type_ = a.type, ix_ = a.ix, iy_ = a.iy, iz_ = a.iz, id_ = a.id;
  fx_.assign(count, 0), fy_.assign(count, 0), fz_.assign(count, 0);
  inv_mass_.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (type_[i] < 1 || type_[i] > table_.types)
      throw Error("unknown atom type " + std::to_string(type_[i]),
                  "atom id " + std::to_string(id_[i]));
    inv_mass_[i] = table_.inv_mass[std::size_t(type_[i] - 1)];
  }
  slot_.resize(count);
  std::iota(slot_.begin(), slot_.end(), 0);
  wrap();
  prepare();
  compute_forces();
}

void HostEngine::get_state(System& s) {
  auto& a = s.atoms;
  // Wrapped copies (the engine's own positions may lie outside the box between wraps).
  auto fold = [&](double x, int image, int d, double& out, int& out_image) {
    const double k = std::floor((x - box_.lo[d]) / length_[d]);
    out = x - k * length_[d];
    if (out >= box_.hi[d]) out = box_.lo[d];
    out_image = add_images(image, k);
  };
  for (std::size_t k = 0; k < n(); ++k) {
    const std::size_t i = std::size_t(slot_[k]);
    fold(x_[k], ix_[k], 0, a.x[i], a.ix[i]);
    fold(y_[k], iy_[k], 1, a.y[i], a.iy[i]);
    fold(z_[k], iz_[k], 2, a.z[i], a.iz[i]);
    a.vx[i] = vx_[k], a.vy[i] = vy_[k], a.vz[i] = vz_[k];
  }
}

void HostEngine::forces(std::vector<double>& fx, std::vector<double>& fy, std::vector<double>& fz) {
  fx.resize(n()), fy.resize(n()), fz.resize(n());
  for (std::size_t k = 0; k < n(); ++k) {
    const std::size_t i = std::size_t(slot_[k]);
    fx[i] = fx_[k], fy[i] = fy_[k], fz[i] = fz_[k];
  }
}

engine::DynamicsArrays HostEngine::arrays() {
  return {n(),        x_.data(),  y_.data(),  z_.data(),  vx_.data(),       vy_.data(),
          vz_.data(), fx_.data(), fy_.data(), fz_.data(), inv_mass_.data(), id_.data()};
}

void HostEngine::wrap() {
  double* xs[3] = {x_.data(), y_.data(), z_.data()};
  int* im[3] = {ix_.data(), iy_.data(), iz_.data()};
  const std::ptrdiff_t count = std::ptrdiff_t(n());
  for (int d = 0; d < 3; ++d) {
    const double L = length_[d], lo = box_.lo[d], hi = box_.hi[d];
    double* xd = xs[d];
    int* id = im[d];
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < count; ++i) {
      if (xd[i] >= hi) {
        xd[i] -= L, id[i] = add_images(id[i], 1);
        if (xd[i] >= hi) {  // moved more than a box length: fold fully
          const double k = std::floor((xd[i] - lo) / L);
          xd[i] -= k * L, id[i] = add_images(id[i], k);
        }
      } else if (xd[i] < lo) {
        xd[i] += L, id[i] = add_images(id[i], -1);
        if (xd[i] < lo) {
          const double k = std::floor((xd[i] - lo) / L);
          xd[i] -= k * L, id[i] = add_images(id[i], k);
        }
        if (xd[i] >= hi) xd[i] = lo;  // -tiny + L rounded up to L
      }
    }
  }
}

void HostEngine::permute(const std::vector<int>& perm) {
  auto apply = [&](auto& v) {
    auto copy = v;
    for (std::size_t k = 0; k < perm.size(); ++k) v[k] = copy[std::size_t(perm[k])];
  };
  apply(x_), apply(y_), apply(z_), apply(vx_), apply(vy_), apply(vz_);
  apply(fx_), apply(fy_), apply(fz_), apply(inv_mass_);
  apply(type_), apply(ix_), apply(iy_), apply(iz_), apply(id_), apply(slot_);
}

void HostEngine::advance(std::uint64_t first_step, int steps) {
  for (int k = 0; k < steps; ++k) {
    engine::dynamics_step(arrays(), options_.dynamics, first_step + std::uint64_t(k), [&] {
      if (wrap_each_step_) wrap();
      compute_forces();
    });
  }
}

Thermo HostEngine::thermo() {
  Thermo t;
  t.kinetic = engine::kinetic_energy(arrays());
  t.potential = potential_;
  t.virial = virial_;
  return t;
}

std::uint32_t HostEngine::first_bad_atom(double max_speed) {
  std::uint32_t bad = 0;
  std::size_t bad_slot = SIZE_MAX;
  for (std::size_t k = 0; k < n(); ++k) {
    const double v2 = vx_[k] * vx_[k] + vy_[k] * vy_[k] + vz_[k] * vz_[k];
    const bool finite =
        std::isfinite(x_[k]) && std::isfinite(y_[k]) && std::isfinite(z_[k]) && std::isfinite(v2);
    if ((!finite || v2 > max_speed * max_speed) && std::size_t(slot_[k]) < bad_slot)
      bad_slot = std::size_t(slot_[k]), bad = id_[k];
  }
  return bad;
}

namespace {

void expect_finite(const std::vector<double>& v, const CheckpointReader& r) {
  for (double x : v)
    if (!std::isfinite(x))
      throw Error("checkpoint holds a non-finite position or velocity", r.where());
}

template <class T>
void expect_size(const std::vector<T>& v, std::size_t n, const CheckpointReader& r) {
  if (v.size() != n)
    throw Error(
        "checkpoint has " + std::to_string(v.size()) + " atoms, the system " + std::to_string(n),
        r.where());
}

}  // namespace

void MdEngine::save_checkpoint(CheckpointWriter& w, System& s) {
  get_state(s);
  const auto& a = s.atoms;
  w.f64s(a.x), w.f64s(a.y), w.f64s(a.z), w.f64s(a.vx), w.f64s(a.vy), w.f64s(a.vz);
  w.i32s(a.ix), w.i32s(a.iy), w.i32s(a.iz);
}

void MdEngine::load_checkpoint(CheckpointReader& r, System& s) {
  auto& a = s.atoms;
  const std::size_t count = a.size();
  for (auto* v : {&a.x, &a.y, &a.z, &a.vx, &a.vy, &a.vz})
    *v = r.f64s(), expect_size(*v, count, r), expect_finite(*v, r);
  for (auto* v : {&a.ix, &a.iy, &a.iz}) *v = r.i32s(), expect_size(*v, count, r);
  set_state(s);
}

void HostEngine::save_checkpoint(CheckpointWriter& w, System&) {
  w.i32s(slot_);
  for (auto* v : {&x_, &y_, &z_, &vx_, &vy_, &vz_}) w.f64s(*v);
  for (auto* v : {&ix_, &iy_, &iz_}) w.i32s(*v);
  save_extra(w);
}

void HostEngine::load_checkpoint(CheckpointReader& r, System& s) {
  set_state(s);  // box, pair table, subclass set-up
  const std::size_t count = n();
  std::vector<int> slot = r.i32s();
  expect_size(slot, count, r);
  std::vector<char> seen(count, 0);
  for (int i : slot) {
    if (i < 0 || std::size_t(i) >= count || seen[std::size_t(i)])
      throw Error("checkpoint atom order is not a permutation", r.where());
    seen[std::size_t(i)] = 1;
  }
  for (auto* v : {&x_, &y_, &z_, &vx_, &vy_, &vz_})
    *v = r.f64s(), expect_size(*v, count, r), expect_finite(*v, r);
  for (auto* v : {&ix_, &iy_, &iz_}) *v = r.i32s(), expect_size(*v, count, r);
  slot_ = std::move(slot);
  const auto& a = s.atoms;
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t i = std::size_t(slot_[k]);
    type_[k] = a.type[i], id_[k] = a.id[i];
    inv_mass_[k] = table_.inv_mass[std::size_t(type_[k] - 1)];
  }
  load_extra(r);
}

}  // namespace pairwise::md
