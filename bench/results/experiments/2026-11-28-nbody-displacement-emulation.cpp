// Session 21 (issue 15): the accuracy of FP32 displacement schemes for nbody's mixed precision,
// emulated on the CPU. A Plummer sphere (N particles, masses 1/N, eps^2 = 1e-4) in a 10-bit Morton
// order; accelerations with the pair terms in float and the sums in double (only the displacement
// differs between schemes), rms relative error against double:
//   double-single: d = (xj_hi - xi_hi) + (xj_lo - xi_lo)        (3 FADD a coordinate and pair)
//   lane-cluster:  the kI consecutive targets of a lane share the origin O = x of their first;
//                  D = fl((xj_hi - O_hi) + (xj_lo - O_lo)) once a step, d = D - delta_k
//                  (1 FADD a pair, single's count, plus 3/kI)
//   single:        d = xj_hi - xi_hi
// Build: g++ -O2 -fopenmp -ffp-contract=off 2026-11-28-nbody-displacement-emulation.cpp; run:
// ./a.out N kI [offset of the cluster] [float sums of this many sources, then double (0: none)].
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>
using namespace std;
struct P {
  double x[3];
};
static uint64_t spread(uint64_t v) {
  v &= 0x1fffff;
  v = (v | v << 32) & 0x1f00000000ffffULL;
  v = (v | v << 16) & 0x1f0000ff0000ffULL;
  v = (v | v << 8) & 0x100f00f00f00f00fULL;
  v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
  v = (v | v << 2) & 0x1249249249249249ULL;
  return v;
}
int main(int argc, char** argv) {
  int N = atoi(argv[1]);
  int kI = atoi(argv[2]);
  double off = argc > 3 ? atof(argv[3]) : 0;
  int sumlen = argc > 4 ? atoi(argv[4]) : 0;
  mt19937_64 rng(12345);
  uniform_real_distribution<double> U(0, 1);
  vector<P> p(N);
  for (int i = 0; i < N; i++) {
    double r;
    do {
      double X = U(rng);
      r = 1 / sqrt(pow(X, -2.0 / 3) - 1);
    } while (r > 20);
    double z = 2 * U(rng) - 1, ph = 2 * M_PI * U(rng), s = sqrt(1 - z * z);
    p[i].x[0] = r * s * cos(ph) + off;
    p[i].x[1] = r * s * sin(ph) + off;
    p[i].x[2] = r * z + off;
  }
  // Morton order over the bounding box (10 bits)
  double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
  for (auto& q : p)
    for (int c = 0; c < 3; c++) {
      lo[c] = min(lo[c], q.x[c]);
      hi[c] = max(hi[c], q.x[c]);
    }
  vector<uint64_t> key(N);
  vector<int> ord(N);
  iota(ord.begin(), ord.end(), 0);
  for (int i = 0; i < N; i++) {
    uint64_t k = 0;
    for (int c = 0; c < 3; c++) {
      uint64_t v = uint64_t((p[i].x[c] - lo[c]) / (hi[c] - lo[c] + 1e-300) * 1023.999);
      k |= spread(v) << c;
    }
    key[i] = k;
  }
  sort(ord.begin(), ord.end(), [&](int a, int b) { return key[a] < key[b]; });
  vector<P> q(N);
  for (int i = 0; i < N; i++) q[i] = p[ord[i]];
  p.swap(q);
  const double m = 1.0 / N, eps2 = 1e-4;
  const float feps2 = float(eps2), fm = float(m);
  vector<float> h(3 * N), l(3 * N);
  for (int i = 0; i < N; i++)
    for (int c = 0; c < 3; c++) {
      h[3 * i + c] = float(p[i].x[c]);
      l[3 * i + c] = float(p[i].x[c] - double(h[3 * i + c]));
    }
  // reference
  vector<double> ar(3 * N, 0.0);
#pragma omp parallel for schedule(dynamic, 64)
  for (int i = 0; i < N; i++) {
    double a[3] = {0, 0, 0};
    for (int j = 0; j < N; j++) {
      double d[3];
      for (int c = 0; c < 3; c++) d[c] = p[j].x[c] - p[i].x[c];
      double s2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
      double ri = 1 / sqrt(s2);
      double w = m * ri * ri * ri;
      for (int c = 0; c < 3; c++) a[c] += w * d[c];
    }
    for (int c = 0; c < 3; c++) ar[3 * i + c] = a[c];
  }
  const char* names[] = {"double-single", "lane-cluster", "single"};
  for (int scheme = 0; scheme < 3; scheme++) {
    double se = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : se)
    for (int i = 0; i < N; i++) {
      int o = (i / kI) * kI;  // lane origin: the lane's first target
      float del[3];
      for (int c = 0; c < 3; c++)
        del[c] = (h[3 * i + c] - h[3 * o + c]) + (l[3 * i + c] - l[3 * o + c]);
      double a[3] = {0, 0, 0};
      float fa[3] = {0, 0, 0};
      int cnt = 0;
      for (int j = 0; j < N; j++) {
        float d[3];
        for (int c = 0; c < 3; c++) {
          if (scheme == 0)
            d[c] = (h[3 * j + c] - h[3 * i + c]) + (l[3 * j + c] - l[3 * i + c]);
          else if (scheme == 1) {
            float D = (h[3 * j + c] - h[3 * o + c]) + (l[3 * j + c] - l[3 * o + c]);
            d[c] = D - del[c];
          } else
            d[c] = h[3 * j + c] - h[3 * i + c];
        }
        float s2 = fmaf(d[0], d[0], fmaf(d[1], d[1], fmaf(d[2], d[2], feps2)));
        float ri = 1.0f / sqrtf(s2);
        float w = fm * (ri * ri * ri);
        if (sumlen == 0) {
          for (int c = 0; c < 3; c++) a[c] += double(w * d[c]);
        } else {
          for (int c = 0; c < 3; c++) fa[c] = fmaf(w, d[c], fa[c]);
          if (++cnt == sumlen) {
            for (int c = 0; c < 3; c++) {
              a[c] += fa[c];
              fa[c] = 0;
            }
            cnt = 0;
          }
        }
      }
      for (int c = 0; c < 3; c++) a[c] += fa[c];
      double e2 = 0, r2 = 0;
      for (int c = 0; c < 3; c++) {
        e2 += (a[c] - ar[3 * i + c]) * (a[c] - ar[3 * i + c]);
        r2 += ar[3 * i + c] * ar[3 * i + c];
      }
      se += e2 / r2;
    }
    printf("N=%d kI=%d off=%g sumlen=%d %-14s rms rel acc err %.3e\n", N, kI, off, sumlen,
           names[scheme], sqrt(se / N));
  }
}
