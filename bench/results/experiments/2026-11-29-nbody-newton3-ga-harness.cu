// Session 28 (issue 15): a stand-alone timing harness for single precision's Newton-3 GA kernel
// (general masses, or equal with -DV_UNIT=1), with pair-term variants (-DV_PAIR=n, below) and
// register caps (-DV_MAXREG=n: __maxnreg__ in place of the block count). Prints T interactions/s
// (N^2 counted, best and mean of the repeats, CUDA events around the kernel alone) and the largest
// relative error of a and phi against a double CPU sum on 16 targets. Results:
// 2026-11-29-NVIDIA-H200-nbody-general-mass-caps.txt. Build (n3k.cuh: a copy of
// src/nbody/cuda_newton3_kernel.cuh at git 8acafd5 with `constexpr int kUnroll = V_UNROLL;` and
// V_UNROLL defaulting to 8):
//   nvcc -DPAIRWISE_HAVE_CUDA=1 -Iinclude -Isrc -I<dir of n3k.cuh> -O3 -DNDEBUG -arch=sm_90
//        --expt-relaxed-constexpr -std=c++20 -DV_PAIR=6 -DV_MAXREG=144 harness.cu -o harness
//   ./harness [N = 262144] [repeats = 5]
// V_PAIR = 0 is PlummerPair::pair (at 8acafd5 φ from the force weights for general masses; in the
// session's calls 1-3, against b62964f's header, the m·(1/s) form).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
#include "n3k.cuh"
namespace engine = pairwise::engine;
namespace physics = pairwise::physics;
using namespace pairwise::nbody::cuda;

#ifndef V_PAIR
#define V_PAIR 0
#endif
#ifndef V_UNIT
#define V_UNIT 0
#endif
#ifndef MINB
#define MINB newton3::kMinBlocks<false, true, (V_UNIT != 0), 0, 8>
#endif

struct VPair : PlummerPair {
  template <bool kPot, bool kGuard, bool kUnit>
  static __device__ __forceinline__ void pair(F dx, F dy, F dz, F m_i, F m_j, F s2, Stage q,
                                              physics::Accel<F>& ai, physics::Accel<F>& aj) {
#if V_PAIR == 0
    PlummerPair::pair<kPot, kGuard, kUnit>(dx, dy, dz, m_i, m_j, s2, q, ai, aj);
#elif V_PAIR == 1  // j side first
    const F q3 = q * (q * q);
    const F wi = m_i * q3, wj = m_j * q3;
    aj.ax = fmaf(-wi, dx, aj.ax);
    aj.ay = fmaf(-wi, dy, aj.ay);
    aj.az = fmaf(-wi, dz, aj.az);
    aj.pot = fmaf(-m_i, q, aj.pot);
    ai.ax = fmaf(wj, dx, ai.ax);
    ai.ay = fmaf(wj, dy, ai.ay);
    ai.az = fmaf(wj, dz, ai.az);
    ai.pot = fmaf(-m_j, q, ai.pot);
#elif V_PAIR == 2  // pots adjacent (q reused in slot B), then the forces interleaved by component
    const F q3 = q * (q * q);
    ai.pot = fmaf(-m_j, q, ai.pot);
    aj.pot = fmaf(-m_i, q, aj.pot);
    const F wi = m_i * q3, wj = m_j * q3;
    ai.ax = fmaf(wj, dx, ai.ax);
    aj.ax = fmaf(-wi, dx, aj.ax);
    ai.ay = fmaf(wj, dy, ai.ay);
    aj.ay = fmaf(-wi, dy, aj.ay);
    ai.az = fmaf(wj, dz, ai.az);
    aj.az = fmaf(-wi, dz, aj.az);
#elif V_PAIR == 3  // d in slot A (reused across i and j), weight in slot B
    const F q3 = q * (q * q);
    const F wi = -(m_i * q3), wj = m_j * q3;
    ai.ax = fmaf(dx, wj, ai.ax);
    aj.ax = fmaf(dx, wi, aj.ax);
    ai.ay = fmaf(dy, wj, ai.ay);
    aj.ay = fmaf(dy, wi, aj.ay);
    ai.az = fmaf(dz, wj, ai.az);
    aj.az = fmaf(dz, wi, aj.az);
    ai.pot = fmaf(q, -m_j, ai.pot);
    aj.pot = fmaf(q, -m_i, aj.pot);
#elif V_PAIR == 4  // q^3 via q2 with the masses: wj = (m_j q) q2 (t-form on one side only)
    const F q2 = q * q;
    const F tj = m_j * q;
    const F wj = tj * q2, wi = m_i * (q2 * q);
    ai.pot -= tj;
    aj.pot = fmaf(-m_i, q, aj.pot);
    ai.ax = fmaf(wj, dx, ai.ax);
    ai.ay = fmaf(wj, dy, ai.ay);
    ai.az = fmaf(wj, dz, ai.az);
    aj.ax = fmaf(-wi, dx, aj.ax);
    aj.ay = fmaf(-wi, dy, aj.ay);
    aj.az = fmaf(-wi, dz, aj.az);
#elif V_PAIR == 5  // phi_i -= m_j/s as w_j s^2 (w_j = m_j/s^3 reused from the force FFMAs)
    const F q3 = q * (q * q);
    const F wi = m_i * q3, wj = m_j * q3;
    ai.ax = fmaf(wj, dx, ai.ax);
    ai.ay = fmaf(wj, dy, ai.ay);
    ai.az = fmaf(wj, dz, ai.az);
    ai.pot = fmaf(-wj, s2, ai.pot);
    aj.ax = fmaf(-wi, dx, aj.ax);
    aj.ay = fmaf(-wi, dy, aj.ay);
    aj.az = fmaf(-wi, dz, aj.az);
    aj.pot = fmaf(-wi, s2, aj.pot);
#elif V_PAIR == 6  // as 5, the potential first
    const F q3 = q * (q * q);
    const F wi = m_i * q3, wj = m_j * q3;
    ai.pot = fmaf(-wj, s2, ai.pot);
    ai.ax = fmaf(wj, dx, ai.ax);
    ai.ay = fmaf(wj, dy, ai.ay);
    ai.az = fmaf(wj, dz, ai.az);
    aj.pot = fmaf(-wi, s2, aj.pot);
    aj.ax = fmaf(-wi, dx, aj.ax);
    aj.ay = fmaf(-wi, dy, aj.ay);
    aj.az = fmaf(-wi, dz, aj.az);
#elif V_PAIR == 7  // as 5 with the source side's weight negated once (-w_i in a register)
    const F q3 = q * (q * q);
    const F wi = -m_i * q3, wj = m_j * q3;
    ai.ax = fmaf(wj, dx, ai.ax);
    ai.ay = fmaf(wj, dy, ai.ay);
    ai.az = fmaf(wj, dz, ai.az);
    ai.pot = fmaf(-wj, s2, ai.pot);
    aj.ax = fmaf(wi, dx, aj.ax);
    aj.ay = fmaf(wi, dy, aj.ay);
    aj.az = fmaf(wi, dz, aj.az);
    aj.pot = fmaf(wi, s2, aj.pot);
#elif V_PAIR == 8  // as 6, the source side first
    const F q3 = q * (q * q);
    const F wi = m_i * q3, wj = m_j * q3;
    aj.pot = fmaf(-wi, s2, aj.pot);
    aj.ax = fmaf(-wi, dx, aj.ax);
    aj.ay = fmaf(-wi, dy, aj.ay);
    aj.az = fmaf(-wi, dz, aj.az);
    ai.pot = fmaf(-wj, s2, ai.pot);
    ai.ax = fmaf(wj, dx, ai.ax);
    ai.ay = fmaf(wj, dy, ai.ay);
    ai.az = fmaf(wj, dz, ai.az);
#elif V_PAIR == 9  // as 6 with q^3 = (q q) q
    const F q3 = (q * q) * q;
    const F wi = m_i * q3, wj = m_j * q3;
    ai.pot = fmaf(-wj, s2, ai.pot);
    ai.ax = fmaf(wj, dx, ai.ax);
    ai.ay = fmaf(wj, dy, ai.ay);
    ai.az = fmaf(wj, dz, ai.az);
    aj.pot = fmaf(-wi, s2, aj.pot);
    aj.ax = fmaf(-wi, dx, aj.ax);
    aj.ay = fmaf(-wi, dy, aj.ay);
    aj.az = fmaf(-wi, dz, aj.az);
#endif
  }
};

#ifdef V_MAXREG
#define V_BOUNDS __maxnreg__(V_MAXREG)
#else
#define V_BOUNDS __launch_bounds__(128, MINB)
#endif
template <int kUnused>
__global__ void V_BOUNDS harness_kernel(const Newton3Args a, const Newton3Grid g) {
  newton3::newton3_body<VPair, false, true, false, (V_UNIT != 0), 0, 8>(a, g);
}
template __global__ void harness_kernel<0>(const Newton3Args, const Newton3Grid);

#define CK(x)                                                      \
  do {                                                             \
    cudaError_t e = (x);                                           \
    if (e != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); \
      std::exit(1);                                                \
    }                                                              \
  } while (0)

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 262144;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  const double eps2 = 1e-4;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1), um(0.5, 1.5);
  std::vector<float4> pos(n);
  for (int i = 0; i < n; ++i) {
    double x, y, z;
    do x = u(rng), y = u(rng), z = u(rng);
    while (x * x + y * y + z * z > 1);
    const double m = V_UNIT ? 1.0 : um(rng);
    pos[i] = make_float4(float(x), float(y), float(z), float(m));
  }
  float4* d_pos;
  CK(cudaMalloc(&d_pos, sizeof(float4) * n));
  CK(cudaMemcpy(d_pos, pos.data(), sizeof(float4) * n, cudaMemcpyHostToDevice));
  const size_t words = size_t(kComponents) * engine::kExactWords * n;
  unsigned long long* d_exact;
  CK(cudaMalloc(&d_exact, words * 8));
  int per_sm = 0, sms = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, harness_kernel<0>, 128, 0));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, harness_kernel<0>));
  const int blocks = per_sm * sms;
  Newton3Grid g;
  g.nb = (n + 255) / 256;
  g.n_tiles = engine::triangle_tiles(g.nb);
  g.warps = std::min<long long>(g.n_tiles, (long long)blocks * 4);
  Newton3Args a;
  a.jpos = d_pos;
  a.exact = d_exact;
  a.eps2 = eps2;
  a.n_j = n;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  double best = 1e30, total = 0;
  for (int r = 0; r <= reps; ++r) {
    CK(cudaMemset(d_exact, 0, words * 8));
    CK(cudaEventRecord(e0));
    harness_kernel<0><<<blocks, 128>>>(a, g);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r > 0) best = std::min(best, double(ms)), total += ms;
  }
  std::vector<unsigned long long> ex(words);
  CK(cudaMemcpy(ex.data(), d_exact, words * 8, cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int t = 0; t < 16; ++t) {
    const int i = int((long long)t * 104729 % n);
    double ref[4] = {0, 0, 0, 0};
    const float4 pi = pos[i];
    for (int j = 0; j < n; ++j) {
      const double dx = double(pos[j].x) - pi.x, dy = double(pos[j].y) - pi.y,
                   dz = double(pos[j].z) - pi.z;
      const double s2 = dx * dx + dy * dy + dz * dz + double(float(eps2));
      const double q = 1 / std::sqrt(s2), w = pos[j].w * q * q * q;
      ref[0] += w * dx, ref[1] += w * dy, ref[2] += w * dz, ref[3] -= pos[j].w * q;
    }
    const double amag = std::sqrt(ref[0] * ref[0] + ref[1] * ref[1] + ref[2] * ref[2]);
    for (int c = 0; c < 4; ++c) {
      const double v = engine::exact_value(
          reinterpret_cast<const long long*>(ex.data()) + size_t(c) * engine::kExactWords * n + i,
          n);
      const double scale = c < 3 ? amag : std::fabs(ref[3]);
      worst = std::max(worst, std::fabs(v - ref[c]) / scale);
    }
  }
  const double n2 = double(n) * n;
  std::printf("V_PAIR=%d regs=%d blocks/SM=%d best %.4f T/s mean %.4f T/s err %.2e\n", V_PAIR,
              fa.numRegs, per_sm, n2 / (best * 1e-3) / 1e12, n2 / (total / reps * 1e-3) / 1e12,
              worst);
  return worst < 1e-4 ? 0 : 2;
}
