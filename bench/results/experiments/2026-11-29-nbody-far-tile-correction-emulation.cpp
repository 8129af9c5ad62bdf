// Session 25 (issue 15): can far tile pairs take single precision's displacement (1 FADD a
// coordinate) if a first-order correction per (target, source tile) removes the error the tile's
// sources share? Emulated on the CPU: a Plummer sphere (masses 1/N, eps^2 = 1e-4) in a 10-bit
// Morton order, tiles of B = 256 consecutive particles with their boxes (centre c_J, half-diagonal
// r_J); a tile pair is far when the boxes' distance is at least kappa r_J (the fourth pass's test).
// Near pairs always take the double-single displacement. Far pairs, schemes:
//   hi:           d = fl(xj_hi - xi_hi)                            (single precision's loop)
//   hi+corr:      hi, plus T(D) (S_J - M_J lo_i) per target and tile, T the tidal tensor of the
//                 softened 1/r at D = c_J - x_i, S_J = sum_j m_j lo_j, M_J = sum_j m_j
//   centre:       d = fl(x_j - c_J) - fl(x_i - c_J)                (the fourth pass)
//   centre+corr:  centre, plus T(D) (E_J - M_J e_iJ), e the residuals of those roundings
//   hi,near-folds: hi, and the near tiles' double-single float sums folded into double every
//                 `fold` terms (32 by default) instead of 256
// As in the Newton-3 kernel, the pair of tiles (I, K) is the tile pair (min, max): its column
// tile C = max(I, K) gives the centre of `centre`, and a particle's terms from one tile are summed
// in float (fmaf, 256 terms: the kernel's targets fold their float sums every 256 sources and a
// source's sums run over the 256 targets of a row tile), then added in double. Pair terms in
// float; rms relative acceleration error against double over `targets` sampled particles (every
// (N / targets)-th in the order).
// Build: g++ -O2 -fopenmp -ffp-contract=off 2026-11-29-nbody-far-tile-correction-emulation.cpp
// Run: ./a.out N targets [random|morton] [fold] [target_only_folds]
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>
using namespace std;
static uint64_t spread(uint64_t v) {
  v &= 0x1fffff;
  v = (v | v << 32) & 0x1f00000000ffffULL;
  v = (v | v << 16) & 0x1f0000ff0000ffULL;
  v = (v | v << 8) & 0x100f00f00f00f00fULL;
  v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
  v = (v | v << 2) & 0x1249249249249249ULL;
  return v;
}
struct P {
  double x[3];
};
constexpr int B = 256;
constexpr double kKappa[] = {0, 1, 2, 4};  // 0: every off-diagonal tile pair far
constexpr int nK = 4;
int main(int argc, char** argv) {
  const int N = atoi(argv[1]), T = atoi(argv[2]);
  const int fold = argc > 4 ? atoi(argv[4]) : 32;  // near tiles' float sums: terms between folds
  // A fifth argument 1: only the targets' sums (the row tile's) fold every `fold` terms.
  const bool target_only_folds = argc > 5 && atoi(argv[5]) == 1;
  mt19937_64 rng(12345);
  uniform_real_distribution<double> U(0, 1);
  vector<P> p(N);
  for (auto& q : p) {
    double r;
    do r = 1 / sqrt(pow(U(rng), -2.0 / 3) - 1);
    while (r > 20);
    double z = 2 * U(rng) - 1, ph = 2 * M_PI * U(rng), s = sqrt(1 - z * z);
    const double rs = r * 3 * M_PI / 16;  // Henon units, as nbody::make_plummer
    q.x[0] = rs * s * cos(ph), q.x[1] = rs * s * sin(ph), q.x[2] = rs * z;
  }
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  for (auto& q : p)
    for (int c = 0; c < 3; c++) lo[c] = min(lo[c], q.x[c]), hi[c] = max(hi[c], q.x[c]);
  vector<uint64_t> key(N);
  vector<int> ord(N);
  iota(ord.begin(), ord.end(), 0);
  for (int i = 0; i < N; i++) {
    uint64_t k = 0;
    for (int c = 0; c < 3; c++)
      k |= spread(uint64_t((p[i].x[c] - lo[c]) / (hi[c] - lo[c] + 1e-300) * 1023.999)) << c;
    key[i] = k;
  }
  // A third argument "random" keeps the generated order (the double-single default's, unsorted).
  if (!(argc > 3 && string(argv[3]) == "random"))
    sort(ord.begin(), ord.end(), [&](int a, int b) { return key[a] < key[b]; });
  {
    vector<P> q(N);
    for (int i = 0; i < N; i++) q[i] = p[ord[i]];
    p.swap(q);
  }
  const double m = 1.0 / N, eps2 = 1e-4;
  const float feps2 = float(eps2), fm = float(m);
  vector<float> h(3 * N), l(3 * N);
  for (int i = 0; i < N; i++)
    for (int c = 0; c < 3; c++) {
      h[3 * i + c] = float(p[i].x[c]);
      l[3 * i + c] = float(p[i].x[c] - double(h[3 * i + c]));
    }
  const int nb = (N + B - 1) / B;
  vector<double> bc(3 * nb), br(nb), bmin(3 * nb), bmax(3 * nb), S(3 * nb), E(3 * nb), M(nb);
  vector<float> sj(3 * N), ej(3 * N);  // sources' offsets from their tile's centre, residuals
  for (int J = 0; J < nb; J++) {
    for (int c = 0; c < 3; c++) bmin[3 * J + c] = 1e300, bmax[3 * J + c] = -1e300;
    for (int j = J * B; j < min(N, (J + 1) * B); j++)
      for (int c = 0; c < 3; c++)
        bmin[3 * J + c] = min(bmin[3 * J + c], p[j].x[c]),
                     bmax[3 * J + c] = max(bmax[3 * J + c], p[j].x[c]);
    double r2 = 0;
    for (int c = 0; c < 3; c++) {
      bc[3 * J + c] = 0.5 * (bmin[3 * J + c] + bmax[3 * J + c]);
      r2 += pow(0.5 * (bmax[3 * J + c] - bmin[3 * J + c]), 2);
    }
    br[J] = sqrt(r2);
    M[J] = 0;
    for (int c = 0; c < 3; c++) S[3 * J + c] = E[3 * J + c] = 0;
    for (int j = J * B; j < min(N, (J + 1) * B); j++) {
      M[J] += m;
      for (int c = 0; c < 3; c++) {
        const double off = p[j].x[c] - bc[3 * J + c];
        sj[3 * j + c] = float(off);
        ej[3 * j + c] = float(off - double(sj[3 * j + c]));
        S[3 * J + c] += m * l[3 * j + c];
        E[3 * J + c] += m * ej[3 * j + c];
      }
    }
  }
  auto box_distance = [&](int I, int J) {
    double d2 = 0;
    for (int c = 0; c < 3; c++) {
      const double g =
          max({0.0, bmin[3 * J + c] - bmax[3 * I + c], bmin[3 * I + c] - bmax[3 * J + c]});
      d2 += g * g;
    }
    return sqrt(d2);
  };
  // Per target: the accelerations of the schemes for each kappa.
  const char* names[] = {"double-single", "hi",          "hi+corr",
                         "centre",        "centre+corr", "hi,near-folds"};
  constexpr int nS = 6;
  double se[nK][nS] = {}, far_pairs[nK] = {};
  const int stride = max(1, N / T);
  vector<int> targets;
  for (int i = stride / 2; i < N; i += stride) targets.push_back(i);
#pragma omp parallel for schedule(dynamic, 1)
  for (int t = 0; t < int(targets.size()); t++) {
    const int i = targets[t], I = i / B;
    double ref[3] = {0, 0, 0}, acc[nK][nS][3] = {}, farc[nK] = {};
    for (int J = 0; J < nb; J++) {
      float a_ds[3] = {0, 0, 0}, a_hi[3] = {0, 0, 0}, a_ce[3] = {0, 0, 0};  // float sums
      // double-single with its float sums folded into double every `fold` terms (near tiles)
      float a_f[3] = {0, 0, 0};
      double a_dsf[3] = {0, 0, 0};
      int since_fold = 0;
      const int C = max(I, J);  // the column tile: its centre for `centre`
      float ti[3];
      double eti[3];
      for (int c = 0; c < 3; c++) {
        const double off = p[i].x[c] - bc[3 * C + c];
        ti[c] = float(off), eti[c] = off - double(ti[c]);
      }
      for (int j = J * B; j < min(N, (J + 1) * B); j++) {
        double d[3];
        for (int c = 0; c < 3; c++) d[c] = p[j].x[c] - p[i].x[c];
        const double s2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2, ri = 1 / sqrt(s2);
        for (int c = 0; c < 3; c++) ref[c] += m * ri * ri * ri * d[c];
        auto term = [&](const float* f, float* a) {
          const float s2f = fmaf(f[0], f[0], fmaf(f[1], f[1], fmaf(f[2], f[2], feps2)));
          const float r = 1.0f / sqrtf(s2f), w = fm * (r * r * r);
          for (int c = 0; c < 3; c++) a[c] = fmaf(w, f[c], a[c]);
        };
        float f[3];
        for (int c = 0; c < 3; c++)
          f[c] = (h[3 * j + c] - h[3 * i + c]) + (l[3 * j + c] - l[3 * i + c]);
        term(f, a_ds);
        term(f, a_f);
        // target_only_folds: a source's sums (i in the column tile, J < I) keep 256 terms
        if (++since_fold == (target_only_folds && J < I ? B : fold)) {
          for (int c = 0; c < 3; c++) a_dsf[c] += a_f[c], a_f[c] = 0;
          since_fold = 0;
        }
        for (int c = 0; c < 3; c++) f[c] = h[3 * j + c] - h[3 * i + c];
        term(f, a_hi);
        for (int c = 0; c < 3; c++) {  // the offsets from the column tile's centre
          const float s = C == J ? sj[3 * j + c] : float(p[j].x[c] - bc[3 * C + c]);
          f[c] = s - ti[c];
        }
        term(f, a_ce);
      }
      // T(D) v for D = c_J - x_i: v / s^3 - 3 D (D.v) / s^5, s^2 = |D|^2 + eps^2
      double D[3];
      for (int c = 0; c < 3; c++) D[c] = bc[3 * J + c] - p[i].x[c];
      const double s2 = D[0] * D[0] + D[1] * D[1] + D[2] * D[2] + eps2, s = sqrt(s2);
      auto tidal = [&](const double* v, double* out) {
        const double dv = D[0] * v[0] + D[1] * v[1] + D[2] * v[2];
        for (int c = 0; c < 3; c++) out[c] = v[c] / (s2 * s) - 3 * D[c] * dv / (s2 * s2 * s);
      };
      double v_hi[3], v_ce[3], c_hi[3], c_ce[3], EJ[3] = {0, 0, 0};
      if (C == J) {
        for (int c = 0; c < 3; c++) EJ[c] = E[3 * J + c];
      } else {  // tile J's residuals against the column tile I's centre
        for (int j = J * B; j < min(N, (J + 1) * B); j++)
          for (int c = 0; c < 3; c++) {
            const double off = p[j].x[c] - bc[3 * C + c];
            EJ[c] += m * (off - double(float(off)));
          }
      }
      for (int c = 0; c < 3; c++) {
        v_hi[c] = S[3 * J + c] - M[J] * double(l[3 * i + c]);
        v_ce[c] = EJ[c] - M[J] * eti[c];
      }
      tidal(v_hi, c_hi), tidal(v_ce, c_ce);
      const double dist = box_distance(I, J);
      for (int k = 0; k < nK; k++) {
        const bool far = J != I && dist >= kKappa[k] * br[C];
        if (far) farc[k] += min(N, (J + 1) * B) - J * B;
        for (int c = 0; c < 3; c++) {
          acc[k][0][c] += a_ds[c];
          acc[k][1][c] += far ? a_hi[c] : a_ds[c];
          acc[k][2][c] += far ? a_hi[c] + c_hi[c] : a_ds[c];
          acc[k][3][c] += far ? a_ce[c] : a_ds[c];
          acc[k][4][c] += far ? a_ce[c] + c_ce[c] : a_ds[c];
          acc[k][5][c] += far ? a_hi[c] : a_dsf[c] + a_f[c];
        }
      }
    }
    const double r2 = ref[0] * ref[0] + ref[1] * ref[1] + ref[2] * ref[2];
#pragma omp critical
    for (int k = 0; k < nK; k++) {
      far_pairs[k] += farc[k];
      for (int s = 0; s < nS; s++) {
        double e2 = 0;
        for (int c = 0; c < 3; c++) e2 += pow(acc[k][s][c] - ref[c], 2);
        se[k][s] += e2 / r2;
      }
    }
  }
  const double nt = double(targets.size());
  for (int k = 0; k < nK; k++) {
    printf("N=%d targets=%d kappa=%g far pairs %.1f %%:", N, int(nt), kKappa[k],
           100 * far_pairs[k] / (nt * N));
    for (int s = 0; s < nS; s++) printf("  %s %.3e", names[s], sqrt(se[k][s] / nt));
    printf("\n");
  }
}
