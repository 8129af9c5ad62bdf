// Run-time compilation of generated CUDA source (issue 13): NVRTC and the CUDA driver API, both
// loaded with dlopen at run time (DESIGN.md, Dependencies), so this compiles with g++ alone and a
// binary without libnvrtc still runs everything else; a missing library is a clear error.
//
// libnvrtc: $PAIRWISE_NVRTC (a path; when set, the only one tried), else libnvrtc.so.13 / .12 / .so
// on the loader path, else the CUDA toolkit (/usr/local/cuda*/lib64) and pip's nvidia-cuda-nvrtc
// wheels (site-packages/nvidia/
// */lib). libcuda.so.1 from the driver.
// Kernels are cached on disk: $PAIRWISE_KERNEL_CACHE, else $XDG_CACHE_HOME/pairwise/kernels, else
// ~/.cache/pairwise/kernels; the file name is a 64-bit FNV-1a hash of (source, sm_XY, pairwise
// version); written to a temporary name and renamed, so a crash leaves no partial cubin.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pairwise::formula {

// Whether the driver and a device are there ("" if so, else why not).
std::string cuda_driver_unavailable_reason();

struct CompiledKernel {
  std::vector<char> cubin;
  double seconds = 0;       // NVRTC compile, or the cache read
  bool from_cache = false;  // found in the disk cache
  std::string cache_file;
  int arch = 0;  // e.g. 90
};

// Compiles `source` for the compute capability of device 0 (sm_XY), or reads it from the cache.
// Throws pairwise::Error (libnvrtc missing: which names it tried; a compile error: NVRTC's log).
CompiledKernel compile_cuda_source(const std::string& source, bool use_cache = true);

// A loaded module's kernel on device 0 (primary context).
// Whether libnvrtc loads ("" if so, else which names were tried).
std::string nvrtc_unavailable_reason();

// A program built from embedded headers (the kernels' own .cuh text, included by name) with
// template kernels named by C++ name expressions ("&ns::kernel<float, 4>"), whose mangled names
// NVRTC reports (CompiledKernel::lowered, in the order of the expressions; cached with the cubin).
struct CudaHeader {
  std::string name;  // as #included: "md/cuda_md_forces.cuh"
  std::string text;
};
struct CudaProgram {
  std::string source;
  std::vector<CudaHeader> headers;
  std::vector<std::string> name_expressions;
  std::vector<std::string> options;  // extra NVRTC options (e.g. "-prec-div=false")
  int arch = 0;                      // sm_XY; 0: device 0's
  bool use_cache = true;
};
struct CompiledProgram : CompiledKernel {
  std::vector<std::string> lowered;  // mangled names of the name expressions
};
// Compiles (or reads from the cache: the hash covers source, headers, expressions, options, arch
// and the pairwise version). Throws pairwise::Error as compile_cuda_source does. With arch != 0 no
// device is needed (what the CPU tests use to check that generated programs compile).
CompiledProgram compile_cuda_program(const CudaProgram& program);

// A loaded module's kernel on device 0 (primary context).
class DeviceKernel {
 public:
  DeviceKernel(const CompiledKernel& k, const std::string& name);
  // Enqueues one launch on `stream` (a CUstream / cudaStream_t; captured into a graph when the
  // stream is capturing) and returns at once.
  void launch_async(void* stream, unsigned grid, unsigned block, void** args) const;
  // Launches over n threads in blocks of 256 with `args` (pointers to the arguments), and waits.
  void launch(int n, void** args) const;
  // Blocks of `block` threads resident per multiprocessor (no dynamic shared memory).
  int max_active_blocks_per_sm(unsigned block) const;
  static unsigned long long alloc(std::size_t bytes);
  static void free(unsigned long long ptr);
  static void upload(unsigned long long dst, const void* src, std::size_t bytes);
  static void download(void* dst, unsigned long long src, std::size_t bytes);

 private:
  void* module_ = nullptr;
  void* function_ = nullptr;
};

}  // namespace pairwise::formula
