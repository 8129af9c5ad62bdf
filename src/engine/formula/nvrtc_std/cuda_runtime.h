// Under NVRTC the CUDA built-ins (int4, __ldg, __shfl_xor_sync, ...) need no header: the embedded
// <cuda_runtime.h> is empty.
#pragma once
