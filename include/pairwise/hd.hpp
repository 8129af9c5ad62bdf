// PW_HD marks functions callable from host and device code; plain inline under g++.
#pragma once

#if defined(__CUDACC__)
#define PW_HD __host__ __device__ __forceinline__
#else
#define PW_HD inline
#endif
