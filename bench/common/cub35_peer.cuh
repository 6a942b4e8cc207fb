// SPDX-License-Identifier: BSD-3-Clause
// tcr benchmarks: CUB of a newer CCCL than the toolkit's as a peer, in its own program
// (tcr_bench_cub35: device_bench_cub35_sum.cu, device_bench_cub35_dot.cu and the harness), built
// only with -DTCR_CUB35_INCLUDE=<dir>. <dir> is the include folder of the PyPI package
// nvidia-cuda-cccl 13.3.x (CCCL 3.5, headers only); it comes first on the include path (-I, ahead
// of the toolkit's CCCL 3.0.1, which nvcc searches as a system folder), and the compiler checks
// the version it got. tcr itself is never built against it.
//
// Methods (row names as in tcr_device_bench, so bench/report.py and bench/compare.py join them):
//   cub35                 the two-phase cub::DeviceReduce::Sum / TransformReduce of the classic
//                         API, default determinism (run_to_run: a fixed tree, two launches)
//   cub35.not_guaranteed  the environment API with
//                         cuda::execution::require(cuda::execution::determinism::not_guaranteed):
//                         one launch, blocks combine their partials with float atomics
//   cub35.gpu_to_gpu      the same with determinism::gpu_to_gpu (RFA, reproducible across GPUs)
// for Sum (f32, f64 through Sum; f16, bf16 through TransformReduce widening to float, as
// common/cub_peer.cuh does for CUB 3.0.1) and Dot (TransformReduce of the products). The
// environment API has no two-phase form: it asks the environment's memory resource for its
// temporary storage on every call. The resource given here keeps one buffer and only grows it in
// the untimed warm-up, so the timed calls allocate nothing, as in the two-phase calls.
#pragma once

#include <cub/device/device_reduce.cuh>
#include <cub/version.cuh>
#include <cuda/execution>
#include <cuda/memory_resource>
#include <cuda/std/execution>
#include <cuda/std/functional>
#include <cuda/stream_ref>
#include <thrust/iterator/counting_iterator.h>
#include <climits>
#include <cstdint>
#include <string>
#include <type_traits>
#include "common/cub_peer.cuh"
#include "common/harness.hpp"
#include "common/peer_ops.hpp"
#include "common/registry.hpp"

#if CCCL_VERSION < 3005000
#error                                                                                             \
    "tcr_bench_cub35 needs CCCL 3.5 or newer first on the include path (-DTCR_CUB35_INCLUDE=<dir>)"
#endif

namespace tcr::bench::cub35 {

using peer::product_at;
using peer::widen_op;
using peer::with_offset;

// The temporary storage of the environment API: one device buffer, grown (synchronously) when a
// call asks for more than it holds, never shrunk or freed while the program runs.
struct scratch_buffer {
  void* p = nullptr;
  std::size_t bytes = 0;
  void* get(std::size_t want) {
    if (want > bytes) {
      if (p != nullptr)
        cudaFree(p);
      p = nullptr;
      bytes = 0;
      const std::size_t grown = want < 4096 ? 4096 : want;
      if (cudaMalloc(&p, grown) != cudaSuccess) {
        cudaGetLastError();
        throw cuda_error("tcr_bench_cub35: cudaMalloc of the environment's temporary storage");
      }
      bytes = grown;
    }
    return p;
  }
};

inline scratch_buffer& scratch() {
  static scratch_buffer* s = new scratch_buffer; // never destroyed (CUDA may be torn down first)
  return *s;
}

// A cuda::mr::resource over scratch(): allocate hands out the one buffer, deallocate keeps it.
struct reuse_resource {
  void* allocate(::cuda::stream_ref, std::size_t bytes, std::size_t) const {
    return scratch().get(bytes);
  }
  void deallocate(::cuda::stream_ref, void*, std::size_t, std::size_t) const noexcept {}
  void* allocate_sync(std::size_t bytes, std::size_t) const { return scratch().get(bytes); }
  void deallocate_sync(void*, std::size_t, std::size_t) const noexcept {}
  bool operator==(const reuse_resource&) const noexcept { return true; }
  bool operator!=(const reuse_resource&) const noexcept { return false; }
};
static_assert(::cuda::mr::resource<reuse_resource>);

template <class Determinism>
auto make_env(cudaStream_t stream, Determinism d) {
  namespace ex = ::cuda::std::execution;
  return ex::env{::cuda::execution::require(d),
                 ex::prop{::cuda::get_stream, ::cuda::stream_ref{stream}},
                 ex::prop{::cuda::mr::get_memory_resource, reuse_resource{}}};
}

// A call through the environment API: the size query asks for nothing (the environment's
// resource provides the storage); call(env) enqueues the reduction on stream. A failed
// allocation of the resource comes back as cudaErrorMemoryAllocation.
template <class Determinism, class Call>
cudaError_t with_env(void* temp, std::size_t& bytes, cudaStream_t stream, Call&& call) {
  if (temp == nullptr) {
    bytes = 0;
    return cudaSuccess;
  }
  const auto env = make_env(stream, Determinism{});
  try {
    return call(env);
  } catch (const cuda_error&) {
    return cudaErrorMemoryAllocation;
  }
}

inline bench_case make(op_kind op, dtype t, const std::string& method, const std::string& note,
                       cudaError_t (*f)(void*, std::size_t&, const call_args&)) {
  bench_case c;
  c.op = op;
  c.type = t;
  c.method = method;
  c.note = note;
  c.call = f;
  return c;
}

// " (CCCL 3.5.0)": the version compiled against, for the case notes.
inline std::string version_note() {
  return " (CCCL " + std::to_string(CCCL_MAJOR_VERSION) + "." + std::to_string(CCCL_MINOR_VERSION) +
         "." + std::to_string(CCCL_PATCH_VERSION) + ")";
}

} // namespace tcr::bench::cub35
