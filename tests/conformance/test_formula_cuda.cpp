// The GPU path of formulas (issue 13), first piece: CUDA source generated from the graph of an md
// pair potential, compiled at run time by NVRTC (dlopen'd), cached on disk, loaded with the driver
// API, and evaluated over 100,000 distances against the double reference (double: 1e-12, float:
// 2e-5); compile time at first use and from the cache reported (and written as a benchmark JSON
// record when PAIRWISE_FORMULA_BENCH_JSON names a file). Skips without a CUDA device.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "engine/formula/cuda_source.hpp"
#include "engine/formula/nvrtc_loader.hpp"
#include "engine/formula/pair_potential.hpp"

namespace {

using namespace pairwise::formula;

template <class T>
double max_error(const PairPotential& p, const std::string& type, const std::string& cache,
                 CompiledKernel* first, CompiledKernel* second) {
  const std::string src = cuda_pair_eval_kernel(p.graph, p.energy, p.force_over_r, "pw_lj", type);
  setenv("PAIRWISE_KERNEL_CACHE", cache.c_str(), 1);
  *first = compile_cuda_source(src);
  *second = compile_cuda_source(src);
  EXPECT_FALSE(first->from_cache);
  EXPECT_TRUE(second->from_cache);
  EXPECT_EQ(first->cubin, second->cubin);
  const int n = 100000;
  std::vector<T> r2(n), e(n), fr(n);
  for (int i = 0; i < n; ++i) r2[std::size_t(i)] = T(0.64 + (6.25 - 0.64) * i / n);
  DeviceKernel k(*second, "pw_lj");
  const auto d_r2 = DeviceKernel::alloc(n * sizeof(T)), d_e = DeviceKernel::alloc(n * sizeof(T)),
             d_fr = DeviceKernel::alloc(n * sizeof(T));
  DeviceKernel::upload(d_r2, r2.data(), n * sizeof(T));
  int count = n;
  void* args[] = {(void*)&d_r2, (void*)&d_e, (void*)&d_fr, &count};
  k.launch(n, args);
  DeviceKernel::download(e.data(), d_e, n * sizeof(T));
  DeviceKernel::download(fr.data(), d_fr, n * sizeof(T));
  for (auto ptr : {d_r2, d_e, d_fr}) DeviceKernel::free(ptr);
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    double re = 0, rf = 0;
    p.reference(double(r2[std::size_t(i)]), re, rf);
    worst = std::max({worst, std::abs(e[std::size_t(i)] - re) / std::max(1.0, std::abs(re)),
                      std::abs(fr[std::size_t(i)] - rf) / std::max(1.0, std::abs(rf))});
  }
  return worst;
}

TEST(FormulaCuda, NvrtcKernelMatchesReferenceAndCaches) {
  if (const std::string why = cuda_driver_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  const PairPotential p = compile_pair_potential({"4*epsilon*(s6^2 - s6); s6 = (sigma/r)^6",
                                                  {{"epsilon", 1}, {"sigma", 1}},
                                                  2.5,
                                                  Truncation::shifted_force});
  const std::string cache =
      (std::filesystem::temp_directory_path() / ("pw_kernels_" + std::to_string(::getpid())))
          .string();
  std::filesystem::remove_all(cache);
  CompiledKernel d1, d2, f1, f2;
  const double ed = max_error<double>(p, "double", cache, &d1, &d2);
  const double ef = max_error<float>(p, "float", cache, &f1, &f2);
  EXPECT_LT(ed, 1e-12);
  EXPECT_LT(ef, 2e-5);
  std::printf(
      "formula LJ kernel, sm_%d: NVRTC first use %.3f s (double) %.3f s (float), from the "
      "cache %.2f ms / %.2f ms; max error double %.2e, float %.2e\n",
      d1.arch, d1.seconds, f1.seconds, 1e3 * d2.seconds, 1e3 * f2.seconds, ed, ef);
  if (const char* json = std::getenv("PAIRWISE_FORMULA_BENCH_JSON"); json && *json) {
    std::ofstream out(json);
    out << "[\n";
    const CompiledKernel* ks[] = {&d1, &d2, &f1, &f2};
    const char* cases[] = {"compile_first_use_double", "compile_from_cache_double",
                           "compile_first_use_float", "compile_from_cache_float"};
    for (int c = 0; c < 4; ++c)
      out << "  {\"suite\": \"formula\", \"case\": \"" << cases[c]
          << "\", \"backend\": \"cuda\", \"device\": \"sm_" << d1.arch
          << "\", \"metric\": \"time\", \"value\": " << ks[c]->seconds
          << ", \"unit\": \"s\", \"params\": {\"formula\": \"LJ shifted_force, rc 2.5\", "
             "\"cubin_bytes\": "
          << ks[c]->cubin.size() << "}}" << (c < 3 ? ",\n" : "\n");
    out << "]\n";
  }
  std::filesystem::remove_all(cache);
}

}  // namespace
