// Session 25 (issue 15), the lead for block steps. Build: g++ -O2 FILE.cpp; run: ./a.out N T
// [active fraction]. Near fraction of (active-target block, 32-source group) pairs for block steps:
// N in the unit sphere, a random 1 % active, both in the 10-bit Morton order; target blocks of T
// consecutive active particles; near when the boxes are closer than kappa times the larger
// half-diagonal.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>
using namespace std;
static uint32_t spread(uint32_t v) {
  v &= 0x3ff;
  v = (v | (v << 16)) & 0x030000ff;
  v = (v | (v << 8)) & 0x0300f00f;
  v = (v | (v << 4)) & 0x030c30c3;
  v = (v | (v << 2)) & 0x09249249;
  return v;
}
struct Box {
  float l[3], h[3], r;
};
template <class F>
vector<Box> boxes(int n, int b, F pos) {
  int nb = (n + b - 1) / b;
  vector<Box> out(nb);
  for (int t = 0; t < nb; t++) {
    Box B{{1e9, 1e9, 1e9}, {-1e9, -1e9, -1e9}, 0};
    for (int i = t * b; i < min(n, (t + 1) * b); i++)
      for (int c = 0; c < 3; c++) {
        float v = pos(i, c);
        B.l[c] = min(B.l[c], v);
        B.h[c] = max(B.h[c], v);
      }
    float r2 = 0;
    for (int c = 0; c < 3; c++) r2 += 0.25f * (B.h[c] - B.l[c]) * (B.h[c] - B.l[c]);
    B.r = sqrt(r2);
    out[t] = B;
  }
  return out;
}
int main(int argc, char** argv) {
  int N = atoi(argv[1]), T = atoi(argv[2]);
  double frac = argc > 3 ? atof(argv[3]) : 0.01;
  mt19937_64 rng(1);
  uniform_real_distribution<double> U(-1, 1);
  vector<array<double, 3>> x;
  while ((int)x.size() < N) {
    array<double, 3> p{U(rng), U(rng), U(rng)};
    if (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] <= 1) x.push_back(p);
  }
  double lo[3] = {1e9, 1e9, 1e9}, hi[3] = {-1e9, -1e9, -1e9};
  for (auto& p : x)
    for (int c = 0; c < 3; c++) lo[c] = min(lo[c], p[c]), hi[c] = max(hi[c], p[c]);
  double ext = max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
  vector<uint32_t> k(N);
  vector<int> o(N);
  iota(o.begin(), o.end(), 0);
  for (int i = 0; i < N; i++) {
    uint32_t kk = 0;
    for (int c = 0; c < 3; c++) {
      uint32_t v = (uint32_t)min(max((x[i][c] - lo[c]) * 1024 / ext, 0.0), 1023.0);
      kk |= spread(v) << c;
    }
    k[i] = kk;
  }
  stable_sort(o.begin(), o.end(), [&](int a, int b) { return k[a] < k[b]; });
  vector<int> act;
  bernoulli_distribution A(frac);
  for (int i = 0; i < N; i++)
    if (A(rng)) act.push_back(o[i]);  // in Morton order
  auto sg = boxes(N, 32, [&](int i, int c) { return float(x[o[i]][c]); });
  auto tb = boxes(int(act.size()), T, [&](int i, int c) { return float(x[act[i]][c]); });
  for (float kappa : {1.f, 2.f}) {
    long long near = 0, all = 0;
    for (auto& a : tb)
      for (auto& g : sg) {
        float d2 = 0;
        for (int c = 0; c < 3; c++) {
          float q = max(0.f, max(g.l[c] - a.h[c], a.l[c] - g.h[c]));
          d2 += q * q;
        }
        float rr = kappa * max(a.r, g.r);
        near += d2 < rr * rr;
        all++;
      }
    printf("N=%d active=%zu target blocks of %d: kappa %g near fraction %.4f\n", N, act.size(), T,
           kappa, double(near) / all);
  }
}
