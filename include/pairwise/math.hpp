// Small math helpers shared by host and device evaluators.
#pragma once

#include <cmath>

#include "pairwise/hd.hpp"

namespace pairwise {

// 1/sqrt(x). On the device the float version is the special-function unit's approximate rsqrt
// (MUFU.RSQ, 2 ulp, flushes denormals): one issue slot instead of a correctly rounded sequence.
PW_HD float rsqrt(float x) {
#if defined(__CUDA_ARCH__)
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#else
  return 1.0f / std::sqrt(x);
#endif
}

PW_HD double rsqrt(double x) {
#if defined(__CUDA_ARCH__)
  return ::rsqrt(x);
#else
  return 1.0 / std::sqrt(x);
#endif
}

template <class T>
PW_HD T fmadd(T a, T b, T c) {
#if defined(__CUDA_ARCH__)
  return fma(a, b, c);
#else
  return a * b + c;  // the compiler contracts this to an FMA where the target has one
#endif
}

}  // namespace pairwise
