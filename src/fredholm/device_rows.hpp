// A backend's Nyström product with its vector and its rows in device memory (the cuda backend),
// so that RowBlockMatvec (row_block_matvec.hpp) all-gathers on the GPUs (GpuCollectives: NCCL
// when it loads) instead of through host memory. Pointers are device pointers; every call is
// ordered on device_stream() and returns without waiting, but for copy(..., wait = true).
// Values of S are laid out as on the host (complex: re, im interleaved).
#pragma once

#include <cstddef>

namespace pairwise::fredholm {

template <class S>
class DeviceRows {
 public:
  virtual ~DeviceRows() = default;
  virtual void* device_stream() = 0;
  // The whole vector g the next apply_device_rows() multiplies: N values of S.
  virtual S* device_vector() = 0;
  // From now on the targets of apply_device_rows() are the nodes [begin, end) (uploaded once).
  virtual void set_device_rows(std::size_t begin, std::size_t end) = 0;
  // The rows [begin, end) of the product of device_vector(): end - begin values of S at the
  // returned pointer, valid until the next call.
  virtual const S* apply_device_rows() = 0;
  // Scratch of at least `bytes`, kept between calls (it moves when a larger size is asked for).
  virtual void* device_scratch(std::size_t bytes) = 0;
  // cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault) on the stream (host or device pointers);
  // `wait`: then synchronizes the stream.
  virtual void copy(void* dst, const void* src, std::size_t bytes, bool wait) = 0;
};

}  // namespace pairwise::fredholm
