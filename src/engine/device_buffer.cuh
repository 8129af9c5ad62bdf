// Device and page-locked host buffers, and the all-pairs engine's workspace (partial sums and
// ticket counters). Host code; needs the CUDA runtime headers (include from .cu files).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <utility>

#include "core/cuda_check.cuh"
#include "engine/all_pairs.hpp"

namespace pairwise::engine {

// One device allocation, freed on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }
  void release() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }
  // Grows to at least `bytes` (contents are not kept).
  void reserve(std::size_t bytes) {
    if (bytes <= bytes_) return;
    release();
    PW_CUDA_ALLOC(cudaMalloc(&ptr_, bytes), bytes);
    bytes_ = bytes;
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }
  void swap(DeviceBuffer& other) {
    std::swap(ptr_, other.ptr_);
    std::swap(bytes_, other.bytes_);
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Page-locked host staging memory (fast, truly asynchronous copies).
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  void reserve(std::size_t bytes) {
    if (bytes <= bytes_) return;
    if (ptr_) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    PW_CUDA_ALLOC(cudaMallocHost(&ptr_, bytes), bytes);
    bytes_ = bytes;
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// The partial-sum buffer and ticket counters of all_pairs_kernel launches on one stream.
class AllPairsWorkspace {
 public:
  // Makes room for `plan` with `partial_bytes` of partial sums (all_pairs_partial_bytes); new
  // ticket counters are zeroed on `stream` (each launch leaves them zero).
  void prepare(const AllPairsPlan& plan, std::size_t partial_bytes, cudaStream_t stream) {
    if (plan.splits > 1) partial_.reserve(partial_bytes);
    const std::size_t ticket_bytes = sizeof(unsigned) * std::size_t(std::max(plan.i_blocks, 1));
    if (ticket_bytes > tickets_.bytes()) {
      tickets_.reserve(ticket_bytes);
      PW_CUDA(cudaMemsetAsync(tickets_.as<void>(), 0, tickets_.bytes(), stream));
    }
  }
  void* partial() const { return partial_.as<void>(); }
  unsigned* tickets() const { return tickets_.as<unsigned>(); }
  std::size_t bytes() const { return partial_.bytes() + tickets_.bytes(); }

 private:
  DeviceBuffer partial_, tickets_;
};

}  // namespace pairwise::engine
