#include "engine/formula/nvrtc_loader.hpp"

#include <dlfcn.h>
#include <glob.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pairwise/error.hpp"

namespace pairwise::formula {

namespace {

namespace fs = std::filesystem;
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;

struct Driver {
  void* lib = nullptr;
  std::string error;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(void**, CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(void*) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuModuleLoadData)(void**, const void*) = nullptr;
  CUresult (*cuModuleGetFunction)(void**, void*, const char*) = nullptr;
  CUresult (*cuLaunchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, void*, void**, void**) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr*, std::size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, std::size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, std::size_t) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int*, void*, int, std::size_t) = nullptr;
  int arch = 0;

  Driver() {
    lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      error = "the CUDA driver (libcuda.so.1) is not installed";
      return;
    }
    auto sym = [&](auto& f, const char* name) {
      f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(lib, name));
      if (!f) error = std::string("libcuda.so.1 lacks ") + name;
    };
    sym(cuInit, "cuInit"), sym(cuDeviceGet, "cuDeviceGet");
    sym(cuDeviceGetAttribute, "cuDeviceGetAttribute");
    sym(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    sym(cuCtxSetCurrent, "cuCtxSetCurrent"), sym(cuCtxSynchronize, "cuCtxSynchronize");
    sym(cuModuleLoadData, "cuModuleLoadData"), sym(cuModuleGetFunction, "cuModuleGetFunction");
    sym(cuLaunchKernel, "cuLaunchKernel"), sym(cuMemAlloc, "cuMemAlloc_v2");
    sym(cuMemFree, "cuMemFree_v2"), sym(cuMemcpyHtoD, "cuMemcpyHtoD_v2");
    sym(cuMemcpyDtoH, "cuMemcpyDtoH_v2"), sym(cuGetErrorString, "cuGetErrorString");
    sym(cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    if (!error.empty()) return;
    CUdevice dev = 0;
    void* ctx = nullptr;
    int major = 0, minor = 0;
    if (cuInit(0) != 0 || cuDeviceGet(&dev, 0) != 0) {
      error = "no CUDA device";
      return;
    }
    cuDeviceGetAttribute(&major, 75, dev);  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
    cuDeviceGetAttribute(&minor, 76, dev);  // ..._MINOR
    arch = 10 * major + minor;
    if (cuDevicePrimaryCtxRetain(&ctx, dev) != 0 || cuCtxSetCurrent(ctx) != 0)
      error = "cannot make the CUDA device's primary context current";
  }
  void check(CUresult r, const char* what) const {
    if (r == 0) return;
    const char* s = nullptr;
    cuGetErrorString(r, &s);
    throw Error(std::string(what) + " failed: " + (s ? s : "CUDA error " + std::to_string(r)));
  }
};

Driver& driver() {
  static Driver d;
  if (!d.error.empty()) throw Error(d.error, "formula CUDA kernels");
  return d;
}

struct Nvrtc {
  void* lib = nullptr;
  std::string tried;
  int (*create)(void**, const char*, const char*, int, const char* const*,
                const char* const*) = nullptr;
  int (*compile)(void*, int, const char* const*) = nullptr;
  int (*log_size)(void*, std::size_t*) = nullptr;
  int (*log)(void*, char*) = nullptr;
  int (*cubin_size)(void*, std::size_t*) = nullptr;
  int (*cubin)(void*, char*) = nullptr;
  int (*destroy)(void**) = nullptr;
  int (*add_name)(void*, const char*) = nullptr;
  int (*lowered_name)(void*, const char*, const char**) = nullptr;

  Nvrtc() {
    std::vector<std::string> names;
    // $PAIRWISE_NVRTC, when set, is the only candidate (what the user asked for, or nothing).
    if (const char* env = std::getenv("PAIRWISE_NVRTC"); env && *env) names.push_back(env);
    const bool named = !names.empty();
    if (!named)
      for (const char* n : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) names.push_back(n);
    for (const char* pattern : {"/usr/local/cuda*/lib64/libnvrtc.so*",
                                "/usr/local/lib/python3*/*-packages/nvidia/*/lib/libnvrtc.so*",
                                "/usr/lib/python3*/*-packages/nvidia/*/lib/libnvrtc.so*",
                                "/opt/*/lib/python3*/site-packages/nvidia/*/lib/libnvrtc.so*"}) {
      if (named) break;
      glob_t g{};
      if (::glob(pattern, 0, nullptr, &g) == 0)
        for (std::size_t k = 0; k < g.gl_pathc; ++k)
          if (std::string(g.gl_pathv[k]).find("builtins") == std::string::npos)
            names.push_back(g.gl_pathv[k]);
      globfree(&g);
    }
    for (const auto& n : names) {
      tried += (tried.empty() ? "" : ", ") + n;
      if ((lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
    }
    if (!lib) return;
    auto sym = [&](auto& f, const char* name) {
      f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(lib, name));
      if (!f) lib = nullptr, tried = std::string("it lacks ") + name;
    };
    sym(create, "nvrtcCreateProgram"), sym(compile, "nvrtcCompileProgram");
    sym(log_size, "nvrtcGetProgramLogSize"), sym(log, "nvrtcGetProgramLog");
    sym(cubin_size, "nvrtcGetCUBINSize"), sym(cubin, "nvrtcGetCUBIN");
    sym(destroy, "nvrtcDestroyProgram");
    sym(add_name, "nvrtcAddNameExpression"), sym(lowered_name, "nvrtcGetLoweredName");
  }
};

Nvrtc& nvrtc() {
  static Nvrtc n;
  if (!n.lib)
    throw Error("libnvrtc (NVIDIA's run-time compiler) was not found (tried " + n.tried +
                    "); set PAIRWISE_NVRTC to its path",
                "formula CUDA kernels");
  return n;
}

std::uint64_t fnv1a(const std::string& s, std::uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

fs::path cache_directory() {
  if (const char* env = std::getenv("PAIRWISE_KERNEL_CACHE"); env && *env) return env;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return fs::path(xdg) / "pairwise" / "kernels";
  const char* home = std::getenv("HOME");
  return fs::path(home && *home ? home : "/tmp") / ".cache" / "pairwise" / "kernels";
}

}  // namespace

std::string cuda_driver_unavailable_reason() {
  try {
    driver();
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

CompiledKernel compile_cuda_source(const std::string& source, bool use_cache) {
  CudaProgram p;  // no headers, name expressions or extra options; device 0's arch
  p.source = source;
  p.use_cache = use_cache;
  return compile_cuda_program(p);
}

std::string nvrtc_unavailable_reason() {
  try {
    nvrtc();
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

CompiledProgram compile_cuda_program(const CudaProgram& p) {
  const auto start = std::chrono::steady_clock::now();
  CompiledProgram k;
  k.arch = p.arch ? p.arch : driver().arch;
  const std::string arch = "sm_" + std::to_string(k.arch);
  std::string key = p.source + "|" + arch + "|" PAIRWISE_VERSION;
  for (const auto& h : p.headers) key += "|" + h.name + "|" + h.text;
  for (const auto& e : p.name_expressions) key += "|" + e;
  for (const auto& o : p.options) key += "|" + o;
  char name[32];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(fnv1a(key)));
  const fs::path file = cache_directory() / (std::string(name) + "." + arch + ".cubin");
  const fs::path names_file = cache_directory() / (std::string(name) + "." + arch + ".names");
  k.cache_file = file.string();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  if (p.use_cache) {
    std::ifstream in(file, std::ios::binary), names(names_file);
    if (in && names) {
      k.cubin.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      for (std::string line; std::getline(names, line);) k.lowered.push_back(line);
      if (!k.cubin.empty() && k.lowered.size() == p.name_expressions.size()) {
        k.from_cache = true;
        k.seconds = elapsed();
        return k;
      }
      k.cubin.clear(), k.lowered.clear();
    }
  }
  Nvrtc& n = nvrtc();
  std::vector<const char*> header_text, header_names;
  for (const auto& h : p.headers) header_text.push_back(h.text.c_str());
  for (const auto& h : p.headers) header_names.push_back(h.name.c_str());
  void* prog = nullptr;
  if (n.create(&prog, p.source.c_str(), "pairwise_kernel.cu", int(p.headers.size()),
               header_text.data(), header_names.data()) != 0)
    throw Error("nvrtcCreateProgram failed", "formula CUDA kernels");
  for (const auto& e : p.name_expressions) n.add_name(prog, e.c_str());
  const std::string arch_option = "--gpu-architecture=" + arch;
  std::vector<const char*> options = {arch_option.c_str(), "--std=c++17", "-default-device"};
  for (const auto& o : p.options) options.push_back(o.c_str());
  const int rc = n.compile(prog, int(options.size()), options.data());
  std::size_t size = 0;
  n.log_size(prog, &size);
  std::string log(size, '\0');
  if (size) n.log(prog, log.data());
  if (rc != 0) {
    n.destroy(&prog);
    throw Error("NVRTC could not compile the generated kernel: " + log, "formula CUDA kernels");
  }
  for (const auto& e : p.name_expressions) {
    const char* lowered = nullptr;
    if (n.lowered_name(prog, e.c_str(), &lowered) != 0 || !lowered) {
      n.destroy(&prog);
      throw Error("NVRTC has no kernel for " + e, "formula CUDA kernels");
    }
    k.lowered.emplace_back(lowered);
  }
  n.cubin_size(prog, &size);
  k.cubin.resize(size);
  n.cubin(prog, k.cubin.data());
  n.destroy(&prog);
  k.seconds = elapsed();
  if (p.use_cache) {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    const std::string tag = ".tmp" + std::to_string(::getpid());
    {
      std::ofstream out(names_file.string() + tag);
      for (const auto& l : k.lowered) out << l << "\n";
    }
    fs::rename(names_file.string() + tag, names_file, ec);
    {
      std::ofstream out(file.string() + tag, std::ios::binary);
      out.write(k.cubin.data(), std::streamsize(k.cubin.size()));
    }
    fs::rename(file.string() + tag, file, ec);  // the cubin last: it marks a complete entry
  }
  return k;
}

void DeviceKernel::launch_async(void* stream, unsigned grid, unsigned block, void** args) const {
  Driver& d = driver();
  d.check(d.cuLaunchKernel(function_, grid, 1, 1, block, 1, 1, 0, stream, args, nullptr),
          "cuLaunchKernel");
}

DeviceKernel::DeviceKernel(const CompiledKernel& k, const std::string& name) {
  Driver& d = driver();
  d.check(d.cuModuleLoadData(&module_, k.cubin.data()), "cuModuleLoadData");
  d.check(d.cuModuleGetFunction(&function_, module_, name.c_str()), "cuModuleGetFunction");
}

void DeviceKernel::launch(int n, void** args) const {
  Driver& d = driver();
  const unsigned blocks = unsigned((n + 255) / 256);
  d.check(d.cuLaunchKernel(function_, blocks, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr),
          "cuLaunchKernel");
  d.check(d.cuCtxSynchronize(), "the formula kernel");
}

int DeviceKernel::max_active_blocks_per_sm(unsigned block) const {
  Driver& d = driver();
  int blocks = 0;
  d.check(d.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, function_, int(block), 0),
          "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  return blocks;
}

unsigned long long DeviceKernel::alloc(std::size_t bytes) {
  CUdeviceptr p = 0;
  driver().check(driver().cuMemAlloc(&p, bytes), "cuMemAlloc");
  return p;
}
void DeviceKernel::free(unsigned long long ptr) {
  driver().cuMemFree(ptr);
}
void DeviceKernel::upload(unsigned long long dst, const void* src, std::size_t bytes) {
  driver().check(driver().cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}
void DeviceKernel::download(void* dst, unsigned long long src, std::size_t bytes) {
  driver().check(driver().cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}

}  // namespace pairwise::formula
