// SPDX-License-Identifier: BSD-3-Clause
// tcr block-level benchmark (shared by the block_bench_<type>.cu translation units, one per
// input type, so that a parallel build splits the kernels): each block reduces many tiles held in
// registers (BLOCK threads x N items), back to back on one TempStorage, filling the GPU
// (blocks = SMs x resident blocks).
//
// Variants per input type, BLOCK (128, 256, 512) and N (1, 4, 16):
//   cub_plain          cub::BlockReduce<float (double for f64)>::Sum of the widened items, plus
//                      the __syncthreads() CUB requires before its TempStorage is reused; result
//                      in thread 0 only (2 barriers per call)
//   cub_broadcast      cub_plain with tcr's contract: thread 0 stores the result to shared memory,
//                      barrier, every thread loads it, barrier (so all the storage may be reused
//                      on return)
//   tcr_fast_shuffle   tcr::BlockReduce<float (double)>, shuffle_tree: plain, not compensated
//   tcr_comp_shuffle   tcr::BlockReduce<tcr::neumaier<float (double)>>, shuffle_tree (Sum2)
//   tcr_comp_double    tcr::BlockReduce<tcr::double_carried<float>>, shuffle_tree (not f64)
//   tcr_comp_exact     tcr::BlockReduce<tcr::double_carried<float>>, tensor_core_exact (e4m3,
//                      e5m2)
//   tcr_comp_hybrid    each thread sums its items with tcr::neumaier<float> and hands
//                      double(sum) + double(comp) as a tcr::double_carried<float> to
//                      BlockReduce::Sum (not f64): Sum2 per thread, double merges
//   tcr_fast_shuffle_wt, tcr_comp_double_wt
//                      tcr_fast_shuffle and tcr_comp_double with tcr::BlockCombine::warp_totals
//                      (every other tcr variant uses the default, BlockCombine::raking)
//   cub_dot            cub::BlockReduce<float (double)>::Sum of the products x_i y_i (plain)
//   tcr_dot2           tcr::BlockReduce<tcr::dot2<float (double)>>::Dot
//   tcr_dot_double     tcr::BlockReduce<tcr::double_carried<float>>::Dot (not f64)
// (every tcr call delivers its result to every thread and ends with a barrier). The dot's y is
// x rotated by one item, so both operands come from the same registers.
//
// Counters (the CUB variants of a type, BLOCK and N run before the others; the registration
// order sees to that):
//   ns_per_iter        time of one loop iteration = one call in every resident block
//   blocks             grid size = SMs x resident blocks per SM (follows each kernel's registers)
//   blocks_per_sm      resident blocks per SM
//   ns_per_block_call  ns_per_iter / blocks: time per block-call at full occupancy (the inverse
//                      of the call throughput); the basis of the ratios below
//   vs_cub             ns_per_block_call / that of cub_plain (dots: of cub_dot)
//   vs_cub_broadcast   ns_per_block_call / that of cub_broadcast (tcr sums)
//
// What keeps the per-item work inside the timed loop: each iteration may replace the items by new
// ones, under a branch that ptxas cannot prove dead (the iteration index compared with `poison`,
// a kernel argument that is -1 at run time, so it is never taken). The items are then
// loop-variant, so their widening, per-thread sums, TwoSums and MMA packing are redone every
// iteration, as when a block reduces a new tile. The condition is uniform across the block, so no
// divergence handling is added around CUB's or tcr's shuffles (notes/block-cost.md).
// Timing: CUDA events around one launch, manual time.
//   tcr_bench_block --benchmark_out=block.json --benchmark_out_format=json
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cub/block/block_reduce.cuh>
#include <map>
#include <string>
#include <type_traits>
#include <vector>
#include <tcr/compensated/accumulators.cuh>
#include <tcr/compensated/block_sum.cuh>
#include <tcr/reduce/block.cuh>
#include "common/types.hpp"

namespace tcr_block_bench {

enum class variant {
  cub_plain,
  cub_broadcast,
  tcr_fast_shuffle,
  tcr_comp_shuffle,
  tcr_comp_double,
  tcr_comp_exact,
  tcr_comp_hybrid,
  tcr_fast_shuffle_wt,
  tcr_comp_double_wt,
  cub_dot,
  tcr_dot2,
  tcr_dot_double
};

inline const char* name_of(variant v) {
  switch (v) {
  case variant::cub_plain:
    return "cub_plain";
  case variant::cub_broadcast:
    return "cub_broadcast";
  case variant::tcr_fast_shuffle:
    return "tcr_fast_shuffle";
  case variant::tcr_comp_shuffle:
    return "tcr_comp_shuffle";
  case variant::tcr_comp_double:
    return "tcr_comp_double";
  case variant::tcr_comp_exact:
    return "tcr_comp_exact";
  case variant::tcr_comp_hybrid:
    return "tcr_comp_hybrid";
  case variant::tcr_fast_shuffle_wt:
    return "tcr_fast_shuffle_wt";
  case variant::tcr_comp_double_wt:
    return "tcr_comp_double_wt";
  case variant::cub_dot:
    return "cub_dot";
  case variant::tcr_dot2:
    return "tcr_dot2";
  case variant::tcr_dot_double:
    return "tcr_dot_double";
  }
  return "?";
}

// The input type's name as the device benchmarks write it (bench/common/types.hpp).
template <class In>
const char* type_name() {
  return tcr::bench::name(tcr::bench::dtype_of<In>());
}

#define CHECK_CUDA(x)                                                                              \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));      \
      std::abort();                                                                                \
    }                                                                                              \
  } while (0)

// The thread's W words of items: word j of thread t in block b is g_words[(b W + j) BLOCK + t]
// (warp-striped, so every load is coalesced).
template <int BLOCK, int W>
__device__ __forceinline__ void load_words(const uint32_t* g_words, uint32_t (&r_words)[W]) {
  const uint32_t* g_block = g_words + static_cast<long>(blockIdx.x) * W * BLOCK + threadIdx.x;
#pragma unroll
  for (int j = 0; j < W; ++j)
    r_words[j] = g_block[j * BLOCK];
}

// Reloads the items in the iteration `poison` (never, at run time: it is -1). ptxas cannot prove
// that, so it must treat the items as loop-variant and redo all per-item work each iteration
// (the barriers in every call keep it from forwarding the first loads to the reload).
// __nanosleep keeps this a branch: without it ptxas if-converts the body into W predicated loads
// per iteration (notes/block-cost.md section 2.4). Salting the reload (say, ^ it) would not lean
// on the barriers, but costs registers: 127 instead of 89 for cub_plain f32 N = 64. The loop must
// not be unrolled: in an unrolled pair ptxas may compute the second copy's per-item work only on
// the (never taken) reload path and reuse the first copy's otherwise (seen in SASS: cub_plain
// f64 N = 4, whose loop ptxas unrolled twice).
template <int BLOCK, int W>
__device__ __forceinline__ void launder(const uint32_t* g_words, uint32_t (&r_words)[W], int it,
                                        int poison) {
  if (it == poison) {
    load_words<BLOCK>(g_words, r_words);
    __nanosleep(1);
  }
}

__host__ __device__ constexpr bool is_cub(variant v) {
  return v == variant::cub_plain || v == variant::cub_broadcast || v == variant::cub_dot;
}
__host__ __device__ constexpr bool is_dot(variant v) {
  return v == variant::cub_dot || v == variant::tcr_dot2 || v == variant::tcr_dot_double;
}

template <variant V, class In>
struct variant_types {
  using Plain = std::conditional_t<std::is_same_v<In, double>, double, float>;
  using T = std::conditional_t<
      V == variant::tcr_comp_shuffle, tcr::neumaier<Plain>,
      std::conditional_t<
          V == variant::tcr_dot2, tcr::dot2<Plain>,
          std::conditional_t<V == variant::tcr_comp_double || V == variant::tcr_comp_double_wt ||
                                 V == variant::tcr_comp_hybrid || V == variant::tcr_comp_exact ||
                                 V == variant::tcr_dot_double,
                             tcr::double_carried<float>, Plain>>>;
  static constexpr tcr::BlockCombine combine =
      V == variant::tcr_fast_shuffle_wt || V == variant::tcr_comp_double_wt
          ? tcr::BlockCombine::warp_totals
          : tcr::BlockCombine::raking;
  static constexpr tcr::BlockReduceAlgorithm algorithm =
      V == variant::tcr_comp_exact ? tcr::BlockReduceAlgorithm::tensor_core_exact
                                   : tcr::BlockReduceAlgorithm::shuffle_tree;
};

template <variant V, class In, int BLOCK, int N>
__global__ void __launch_bounds__(BLOCK)
    block_bench_kernel(const In* g_in, double* g_out, int iters, int poison) {
  static_assert((N * sizeof(In)) % 4 == 0 || N * sizeof(In) < 4, "N items: whole 32-bit words");
  constexpr int W = (N * sizeof(In) + 3) / 4;
  using Types = variant_types<V, In>;
  using Plain = typename Types::Plain;
  const uint32_t* g_words = reinterpret_cast<const uint32_t*>(g_in);
  uint32_t r_words[W]; // [W] the thread's N items, packed
  load_words<BLOCK>(g_words, r_words);
  Plain total = 0;
  if constexpr (is_cub(V)) {
    using BR = cub::BlockReduce<Plain, BLOCK>;
    __shared__ typename BR::TempStorage s_reduce;
    __shared__ Plain s_result;
#pragma unroll 1 // unrolled copies could reuse the previous copy's per-item work (see launder)
    for (int it = 0; it < iters; ++it) {
      launder<BLOCK>(g_words, r_words, it, poison);
      In items[N];
      std::memcpy(items, r_words, sizeof(items));
      Plain wide[N];
#pragma unroll
      for (int i = 0; i < N; ++i) {
        wide[i] = tcr::widen<Plain>(items[i]);
        if constexpr (V == variant::cub_dot)
          wide[i] *= tcr::widen<Plain>(items[(i + 1) % N]);
      }
      const Plain r = BR(s_reduce).Sum(wide); // valid in thread 0
      if constexpr (V != variant::cub_broadcast) {
        total += r;
        __syncthreads(); // CUB: required before s_reduce is reused
      } else {
        if (threadIdx.x == 0)
          s_result = r;
        __syncthreads(); // s_result written (and thread 0 done with s_reduce)
        total += s_result;
        __syncthreads(); // every thread has read s_result: all storage reusable, as in tcr
      }
    }
  } else {
    using BR = tcr::BlockReduce<typename Types::T, BLOCK, Types::algorithm, Types::combine>;
    __shared__ typename BR::TempStorage s_reduce;
#pragma unroll 1 // unrolled copies could reuse the previous copy's per-item work (see launder)
    for (int it = 0; it < iters; ++it) {
      launder<BLOCK>(g_words, r_words, it, poison);
      In items[N];
      std::memcpy(items, r_words, sizeof(items));
      if constexpr (is_dot(V)) {
        In ys[N];
#pragma unroll
        for (int i = 0; i < N; ++i)
          ys[i] = items[(i + 1) % N];
        total += tcr::result(BR(s_reduce).Dot(items, ys));
      } else if constexpr (V == variant::tcr_comp_hybrid) {
        tcr::neumaier<float> r_thread;
#pragma unroll
        for (int i = 0; i < N; ++i)
          r_thread.add(items[i]);
        tcr::double_carried<float> r_mine;
        r_mine.sum = __dadd_rn(double(r_thread.sum), double(r_thread.comp));
        total += tcr::result(BR(s_reduce).Sum(r_mine));
      } else {
        total += tcr::result(BR(s_reduce).Sum(items));
      }
    }
  }
  if (threadIdx.x == 0)
    g_out[blockIdx.x] = double(total);
}

// Seconds per block-call of the CUB baselines, by "type/threads/N/variant".
inline std::map<std::string, double>& cub_call_seconds() {
  static std::map<std::string, double> m;
  return m;
}

template <variant V, class In, int BLOCK, int N>
void run(benchmark::State& state) {
  auto kernel = block_bench_kernel<V, In, BLOCK, N>;
  int device = 0, sms = 0, per_sm = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, BLOCK, 0));
  per_sm = per_sm > 0 ? per_sm : 1;
  const int blocks = sms * per_sm;
  const int iters = static_cast<int>(state.range(0));
  const int poison = -1; // no iteration has this index: the launder's branch is never taken
  constexpr int W = (N * sizeof(In) + 3) / 4;
  const std::size_t n = std::size_t(blocks) * BLOCK * W * 4 / sizeof(In);
  // Data: values 1 + i/1024, rounded to In (only the speed matters here).
  std::vector<In> host(n);
  for (std::size_t i = 0; i < n; ++i)
    host[i] = In(float(1.0 + double(i % 1024) / 1024.0));
  In* d_in = nullptr;
  double* d_out = nullptr;
  CHECK_CUDA(cudaMalloc(&d_in, n * sizeof(In)));
  CHECK_CUDA(cudaMalloc(&d_out, blocks * sizeof(double)));
  CHECK_CUDA(cudaMemcpy(d_in, host.data(), n * sizeof(In), cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  kernel<<<blocks, BLOCK>>>(d_in, d_out, iters, poison); // warm-up
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  double sum_s = 0;
  long count = 0;
  for (auto _ : state) {
    CHECK_CUDA(cudaEventRecord(start));
    kernel<<<blocks, BLOCK>>>(d_in, d_out, iters, poison);
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    state.SetIterationTime(ms / 1e3);
    sum_s += ms / 1e3;
    ++count;
  }
  CHECK_CUDA(cudaGetLastError());
  const double mean_s = count ? sum_s / count : 0;
  // Every iteration is one call in each of the `blocks` blocks: compare per block-call, since
  // `blocks` follows each kernel's occupancy.
  const double call_s = mean_s / (double(iters) * blocks);
  const std::string key =
      std::string(type_name<In>()) + "/T:" + std::to_string(BLOCK) + "/N:" + std::to_string(N);
  if (is_cub(V))
    cub_call_seconds()[key + "/" + name_of(V)] = call_s;
  state.counters["ns_per_iter"] = mean_s * 1e9 / iters;
  state.counters["blocks"] = blocks;
  state.counters["blocks_per_sm"] = per_sm;
  state.counters["ns_per_block_call"] = call_s * 1e9;
  const auto ratio_to = [&](variant base, const char* counter) {
    const auto it = cub_call_seconds().find(key + "/" + name_of(base));
    if (it != cub_call_seconds().end() && it->second > 0)
      state.counters[counter] = call_s / it->second;
  };
  if (is_dot(V)) {
    if (V != variant::cub_dot)
      ratio_to(variant::cub_dot, "vs_cub");
  } else {
    if (V != variant::cub_plain)
      ratio_to(variant::cub_plain, "vs_cub");
    if (!is_cub(V))
      ratio_to(variant::cub_broadcast, "vs_cub_broadcast");
  }
  state.SetItemsProcessed(state.iterations() * int64_t(iters) * int64_t(n));
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFree(d_out));
}

inline constexpr int kernel_iters = 512;

template <variant V, class In, int BLOCK, int N>
void add() {
  const std::string name = std::string("block/") + type_name<In>() + "/T:" + std::to_string(BLOCK) +
                           "/N:" + std::to_string(N) + "/" + name_of(V);
  benchmark::RegisterBenchmark(name.c_str(), run<V, In, BLOCK, N>)
      ->Arg(kernel_iters)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

template <class In, int BLOCK, int N>
void add_shape() {
  constexpr bool f64 = std::is_same_v<In, double>;
  add<variant::cub_plain, In, BLOCK, N>(); // first: the others report vs_cub against it
  add<variant::cub_broadcast, In, BLOCK, N>();
  add<variant::tcr_fast_shuffle, In, BLOCK, N>();
  add<variant::tcr_fast_shuffle_wt, In, BLOCK, N>();
  add<variant::tcr_comp_shuffle, In, BLOCK, N>();
  if constexpr (!f64) {
    add<variant::tcr_comp_double, In, BLOCK, N>();
    add<variant::tcr_comp_double_wt, In, BLOCK, N>();
    add<variant::tcr_comp_hybrid, In, BLOCK, N>();
  }
  if constexpr (tcr::detail::is_fp8_v<In>)
    add<variant::tcr_comp_exact, In, BLOCK, N>();
  add<variant::cub_dot, In, BLOCK, N>();
  add<variant::tcr_dot2, In, BLOCK, N>();
  if constexpr (!f64)
    add<variant::tcr_dot_double, In, BLOCK, N>();
}

// Every shape of one input type; called from that type's translation unit.
template <class In>
bool add_type() {
  add_shape<In, 128, 1>();
  add_shape<In, 128, 4>();
  add_shape<In, 128, 16>();
  add_shape<In, 256, 1>();
  add_shape<In, 256, 4>();
  add_shape<In, 256, 16>();
  add_shape<In, 512, 1>();
  add_shape<In, 512, 4>();
  add_shape<In, 512, 16>();
  return true;
}

} // namespace tcr_block_bench
