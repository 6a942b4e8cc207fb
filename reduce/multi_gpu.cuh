// SPDX-License-Identifier: BSD-3-Clause
// tcr: Sum, Asum, Dot and Nrm2 of a vector split across the ranks of an NCCL communicator (one
// process or one thread per GPU). Every rank passes its own part and receives the result of the
// whole vector, the same bits on every rank:
//
//   size_t bytes = 0;
//   tcr::MultiGpuReduce::Sum(nullptr, bytes, d_part, d_out, n_part, comm, stream);  // size query
//   tcr::MultiGpuReduce::Sum(d_temp, bytes, d_part, d_out, n_part, comm, stream);   // the call
//
// How: each rank reduces its part with tcr::DeviceReduce into a partial state (not a rounded
// value), the states are exchanged with ncclAllGather (a few bytes per rank, not an allreduce of
// rounded values) and every rank merges all of them itself in rank order:
//   - Accuracy::compensated / ::fast: the part's unrounded pair (a tcr::df32 result for float
//     results of float-range inputs, which keeps DeviceReduce's float machinery; else tcr::dd),
//     merged by merge_sum_pairs / merge_norm_pairs (compensated/distributed.cuh). The result does
//     not depend on NCCL's algorithm, protocol or channel count (no NCCL arithmetic touches it),
//     and the single-GPU contracts of reduce/device.cuh hold for the whole vector, p ranks: float
//     result |res - s| <= 2u|s| + 2^-40 S + p 2^-150 (each df32 pair's lo rounds once, to float's
//     subnormal grid at worst, before the final rounding's half spacing 2^-150); double result
//     2u|s| + 2^-88 S for p < 2^16; Nrm2 relative u + 2^-40 (float), u + 2^-100 + (7p + 4) 2^-106
//     (double), plus the same floors. Proofs: compensated/distributed.cuh.
//   - Accuracy::reproducible / ::correctly_rounded: the part's exact partial
//     (tcr::exact_partial, compensated/exact.cuh), merged exactly and rounded once: the bits of
//     tcr::DeviceReduce over the whole vector on one GPU, whatever the number of ranks, the sizes
//     of their parts or the NCCL configuration. Sum, Asum, Dot and Nrm2 of every input type.
// Inputs: the floating-point types of DeviceReduce (e4m3, e5m2, half, bfloat16, float, double;
// iterators as there); d_out a device pointer to float or double. A rank whose part is empty
// (n = 0) takes part and is skipped by the merge; no elements at all gives +0.
//
// Launches on `stream`, in order: DeviceReduce's kernel, a one-thread kernel that stamps the part's
// size, ncclAllGather, a one-thread merge kernel that writes d_out. No host synchronisation, no
// allocation in the two-phase form; capturable in a CUDA graph where NCCL's collectives are.
// Every rank must make the same call (operation, types, options) with its own part, as for any
// NCCL collective; with one thread driving several GPUs, NCCL's group semantics do not fit (the
// merge kernel follows the allgather on the stream): use a thread or process per GPU.
//
// Errors: bad arguments (n < 0, a null d_out, a null input with n > 0, a null communicator (also
// at the size query), too-small temporary storage) give cudaErrorInvalidValue before anything is
// launched; nothing is written to d_out unless every step was enqueued. An NCCL failure gives
// cudaErrorUnknown (d_out is not written; the communicator's state is NCCL's: see
// ncclCommGetAsyncError).
// temp_storage_bytes depends on n, the types and the number of ranks, and never shrinks as n grows.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include "../compensated/distributed.cuh"
#include "../compensated/exact.cuh"
#include "device.cuh"

namespace tcr {
namespace detail {
namespace multi_gpu {

using device::op_kind;

// What each rank contributes: its part's state and its size (0: skipped by the merge).
template <class P>
struct alignas(16) part_record {
  P state;
  std::int64_t items = 0;
};

template <class X>
using value_of = std::remove_cv_t<typename std::iterator_traits<X>::value_type>;

// The exact partial of an operation on X (and Y): Sum and Asum sum values (double inputs: the
// double format), Dot and Nrm2 products (of two doubles where an operand is double).
template <op_kind Op, class X, class Y>
struct exact_state {
  static constexpr bool products = Op == op_kind::dot || Op == op_kind::nrm2;
  static constexpr bool doubles = std::is_same_v<X, double> || std::is_same_v<Y, double>;
  using type = exact_partial<
      std::conditional_t<products, std::conditional_t<doubles, double_products, float_products>,
                         std::conditional_t<std::is_same_v<X, double>, double, float>>>;
};
// The pair of the compensated modes: df32 for float results of float-range inputs (DeviceReduce's
// float machinery), else dd.
template <class X, class Y, class Out>
using pair_state = std::conditional_t<std::is_same_v<Out, float> && !std::is_same_v<X, double> &&
                                          !std::is_same_v<Y, double>,
                                      df32, dd>;

// A part's pair as a dd (a df32 exactly: dd::from_sum of its two floats).
__device__ inline dd as_dd(const dd& v) {
  return v;
}
__device__ inline dd as_dd(const df32& v) {
  return dd::from_sum(static_cast<double>(v.hi), static_cast<double>(v.lo));
}

template <class P>
__global__ void stamp_kernel(part_record<P>* g_mine, std::int64_t items) {
  g_mine->items = items;
}

// Every rank's record, merged in rank order into *g_out (one thread: a handful of small states).
template <op_kind Op, class P, class Out>
__global__ void merge_kernel(const part_record<P>* g_parts, int ranks, Out* g_out) {
  if constexpr (std::is_same_v<P, dd> || std::is_same_v<P, df32>) {
    const auto part = [g_parts](int i) {
      return distributed_part{as_dd(g_parts[i].state), g_parts[i].items == 0};
    };
    *g_out = Op == op_kind::nrm2 ? merge_norm_pairs<Out>(ranks, part)
                                 : merge_sum_pairs<Out>(ranks, part);
  } else {
    P acc{}; // the identity of exact_merge
    bool any = false;
    for (int i = 0; i < ranks; ++i) {
      if (g_parts[i].items == 0)
        continue;
      acc = exact_merge(acc, g_parts[i].state);
      any = true;
    }
    if (!any)
      *g_out = Out(0); // DeviceReduce's n = 0
    else if constexpr (Op == op_kind::nrm2)
      *g_out = exact_norm_of<Out>(acc);
    else
      *g_out = exact_finish<Out>(acc);
  }
}

// The part's state by tcr::DeviceReduce (the size query when d_temp_storage is null).
template <op_kind Op, class P, class XIt, class YIt>
cudaError_t local_state(void* d_temp_storage, std::size_t& temp_storage_bytes, XIt x, YIt y, P* out,
                        std::int64_t n, cudaStream_t stream, ReduceOptions options) {
  if constexpr (Op == op_kind::sum)
    return DeviceReduce::Sum(d_temp_storage, temp_storage_bytes, x, out, n, stream, options);
  else if constexpr (Op == op_kind::asum)
    return DeviceReduce::Asum(d_temp_storage, temp_storage_bytes, x, out, n, stream, options);
  else if constexpr (Op == op_kind::dot)
    return DeviceReduce::Dot(d_temp_storage, temp_storage_bytes, x, y, out, n, stream, options);
  else
    return DeviceReduce::Nrm2(d_temp_storage, temp_storage_bytes, x, out, n, stream, options);
}

inline constexpr std::size_t storage_align = 256;

inline std::size_t round_up(std::size_t b) {
  return (b + storage_align - 1) / storage_align * storage_align;
}

// Temporary storage: [ranks records][DeviceReduce's temporary storage], from a 256-byte boundary.
template <op_kind Op, class P, class Out, class XIt, class YIt>
cudaError_t run_with(void* d_temp_storage, std::size_t& temp_storage_bytes, XIt x, YIt y, Out* out,
                     std::int64_t n, ncclComm_t comm, cudaStream_t stream, ReduceOptions options) {
  int ranks = 0, rank = 0;
  if (comm == nullptr || ncclCommCount(comm, &ranks) != ncclSuccess ||
      ncclCommUserRank(comm, &rank) != ncclSuccess || ranks < 1 || rank < 0 || rank >= ranks)
    return cudaErrorInvalidValue;
  using record = part_record<P>;
  const std::size_t records = round_up(sizeof(record) * static_cast<std::size_t>(ranks));
  std::size_t local_bytes = 0;
  cudaError_t err = local_state<Op>(nullptr, local_bytes, x, y, static_cast<P*>(nullptr),
                                    n < 0 ? 0 : n, stream, options);
  if (err != cudaSuccess)
    return err;
  const std::size_t needed = storage_align + records + local_bytes;
  if (d_temp_storage == nullptr) {
    temp_storage_bytes = needed;
    return cudaSuccess;
  }
  if (n < 0 || out == nullptr || temp_storage_bytes < needed)
    return cudaErrorInvalidValue;
  const std::uintptr_t base =
      (reinterpret_cast<std::uintptr_t>(d_temp_storage) + storage_align - 1) / storage_align *
      storage_align;
  record* g_parts = reinterpret_cast<record*>(base);
  record* g_mine = g_parts + rank;
  // DeviceReduce checks the inputs (null with n > 0, alignment) before it launches anything.
  err = local_state<Op>(reinterpret_cast<void*>(base + records), local_bytes, x, y, &g_mine->state,
                        n, stream, options);
  if (err != cudaSuccess)
    return err;
  stamp_kernel<<<1, 1, 0, stream>>>(g_mine, n);
  if ((err = cudaPeekAtLastError()) != cudaSuccess)
    return err;
  if (ncclAllGather(g_mine, g_parts, sizeof(record), ncclUint8, comm, stream) != ncclSuccess)
    return cudaErrorUnknown;
  merge_kernel<Op, P><<<1, 1, 0, stream>>>(g_parts, ranks, out);
  return cudaPeekAtLastError();
}

template <op_kind Op, class XIt, class YIt, class Out>
cudaError_t run(void* d_temp_storage, std::size_t& temp_storage_bytes, XIt x, YIt y, Out* out,
                std::int64_t n, ncclComm_t comm, cudaStream_t stream, ReduceOptions options) {
  using X = value_of<XIt>;
  using Y = value_of<YIt>;
  static_assert(std::is_same_v<Out, float> || std::is_same_v<Out, double>,
                "tcr::MultiGpuReduce: the result is float or double (d_out: float* or double*)");
  static_assert(is_input_type_v<X> && is_input_type_v<Y>,
                "tcr::MultiGpuReduce: the inputs' value types must be e4m3, e5m2, half, bfloat16, "
                "float or double");
  if (comm == nullptr)
    return cudaErrorInvalidValue; // the size query too: it needs the number of ranks
  if (options.accuracy == Accuracy::reproducible ||
      options.accuracy == Accuracy::correctly_rounded) {
    return run_with<Op, typename exact_state<Op, X, Y>::type>(d_temp_storage, temp_storage_bytes, x,
                                                              y, out, n, comm, stream, options);
  }
  return run_with<Op, pair_state<X, Y, Out>>(d_temp_storage, temp_storage_bytes, x, y, out, n, comm,
                                             stream, options);
}

} // namespace multi_gpu
} // namespace detail

// The calls of tcr::DeviceReduce with the communicator after the item count; num_items is this
// rank's part.
struct MultiGpuReduce {
  template <class InputIt, class Out>
  static cudaError_t Sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                         Out* d_out, std::int64_t num_items, ncclComm_t comm,
                         cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::multi_gpu::run<detail::device::op_kind::sum>(
        d_temp_storage, temp_storage_bytes, d_in, d_in, d_out, num_items, comm, stream, options);
  }
  template <class InputIt, class Out>
  static cudaError_t Asum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                          Out* d_out, std::int64_t num_items, ncclComm_t comm,
                          cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::multi_gpu::run<detail::device::op_kind::asum>(
        d_temp_storage, temp_storage_bytes, d_in, d_in, d_out, num_items, comm, stream, options);
  }
  template <class InputIt, class Out>
  static cudaError_t Nrm2(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_x,
                          Out* d_out, std::int64_t num_items, ncclComm_t comm,
                          cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::multi_gpu::run<detail::device::op_kind::nrm2>(
        d_temp_storage, temp_storage_bytes, d_x, d_x, d_out, num_items, comm, stream, options);
  }
  template <class InputItX, class InputItY, class Out>
  static cudaError_t Dot(void* d_temp_storage, std::size_t& temp_storage_bytes, InputItX d_x,
                         InputItY d_y, Out* d_out, std::int64_t num_items, ncclComm_t comm,
                         cudaStream_t stream = 0, ReduceOptions options = {}) {
    return detail::multi_gpu::run<detail::device::op_kind::dot>(
        d_temp_storage, temp_storage_bytes, d_x, d_y, d_out, num_items, comm, stream, options);
  }
};

} // namespace tcr
