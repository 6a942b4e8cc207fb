// tcr block-level benchmark: each block reduces many tiles held in registers (BLOCK threads x N
// items), back to back on one TempStorage, filling the GPU (blocks = SMs x resident blocks).
//
// Variants per input type and N:
//   cub_plain          cub::BlockReduce<float (double for f64)>::Sum of the widened items, plus
//                      the __syncthreads() CUB requires before its TempStorage is reused
//                      (tcr's calls end with that barrier themselves); result in thread 0 only
//   tcr_fast_shuffle   tcr::BlockReduce<float>, shuffle_tree
//   tcr_comp_shuffle   tcr::BlockReduce<tcr::neumaier<float>>, shuffle_tree (compensated)
//   tcr_fast_chain     tcr::BlockReduce<float>, tensor_core_chain
//   tcr_comp_fold      tcr::BlockReduce<tcr::neumaier<float>>, tensor_core_fold (compensated)
//   tcr_comp_chain     tcr::BlockReduce<tcr::neumaier<float>>, tensor_core_chain
// Counters: ns_per_iter (one BlockReduce call in every resident block), vs_cub (time / the
// cub_plain time of the same type and N; needs cub_plain in the same run). Target
// (DESIGN.md section 6): compensated <= 1.3x cub_plain. Timing: CUDA events around one launch,
// manual time. Items are laundered through an empty asm each iteration so nothing is hoisted.
//   tcr_bench_block --benchmark_out=bench/results/block_h200.json --benchmark_out_format=json
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <cub/block/block_reduce.cuh>
#include <map>
#include <string>
#include <type_traits>
#include "compensated/accumulators.cuh"
#include "reduce/block.cuh"

namespace {

enum class variant {
  cub_plain,
  tcr_fast_shuffle,
  tcr_comp_shuffle,
  tcr_fast_chain,
  tcr_comp_fold,
  tcr_comp_chain
};

const char* name_of(variant v) {
  switch (v) {
    case variant::cub_plain: return "cub_plain";
    case variant::tcr_fast_shuffle: return "tcr_fast_shuffle";
    case variant::tcr_comp_shuffle: return "tcr_comp_shuffle";
    case variant::tcr_fast_chain: return "tcr_fast_chain";
    case variant::tcr_comp_fold: return "tcr_comp_fold";
    case variant::tcr_comp_chain: return "tcr_comp_chain";
  }
  return "?";
}

template <class In>
const char* type_name() {
  if constexpr (std::is_same_v<In, float>) return "f32";
  else if constexpr (std::is_same_v<In, double>) return "f64";
  else if constexpr (std::is_same_v<In, __half>) return "f16";
  else if constexpr (std::is_same_v<In, __nv_bfloat16>) return "bf16";
  else if constexpr (std::is_same_v<In, __nv_fp8_e4m3>) return "e4m3";
  else return "e5m2";
}

#define CHECK_CUDA(x)                                                                   \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::abort();                                                                     \
    }                                                                                   \
  } while (0)

template <variant V, class In>
struct variant_types {
  using Plain = std::conditional_t<std::is_same_v<In, double>, double, float>;
  using T = std::conditional_t<V == variant::tcr_comp_shuffle || V == variant::tcr_comp_fold ||
                                   V == variant::tcr_comp_chain,
                               tcr::neumaier<Plain>, Plain>;
};

__host__ __device__ constexpr tcr::BlockReduceAlgorithm algorithm_of(variant v) {
  return v == variant::tcr_fast_chain || v == variant::tcr_comp_chain
             ? tcr::BlockReduceAlgorithm::tensor_core_chain
         : v == variant::tcr_comp_fold ? tcr::BlockReduceAlgorithm::tensor_core_fold
                                       : tcr::BlockReduceAlgorithm::shuffle_tree;
}

template <variant V, class In, int BLOCK, int N>
__global__ void __launch_bounds__(BLOCK) block_bench_kernel(const In* g_in, double* g_out, int iters) {
  static_assert((N * sizeof(In)) % 4 == 0, "N items must fill whole 32-bit words");
  constexpr int W = N * sizeof(In) / 4;
  using Types = variant_types<V, In>;
  using Plain = typename Types::Plain;
  const uint32_t* src =
      reinterpret_cast<const uint32_t*>(g_in) + (static_cast<long>(blockIdx.x) * BLOCK + threadIdx.x) * W;
  uint32_t r_words[W];
#pragma unroll
  for (int j = 0; j < W; ++j) r_words[j] = src[j];
  Plain total = 0;
  if constexpr (V == variant::cub_plain) {
    using BR = cub::BlockReduce<Plain, BLOCK>;
    __shared__ typename BR::TempStorage s_reduce;
    for (int it = 0; it < iters; ++it) {
#pragma unroll
      for (int j = 0; j < W; ++j) asm volatile("" : "+r"(r_words[j]));
      In items[N];
      std::memcpy(items, r_words, sizeof(items));
      Plain wide[N];
#pragma unroll
      for (int i = 0; i < N; ++i) wide[i] = tcr::widen<Plain>(items[i]);
      total += BR(s_reduce).Sum(wide);
      __syncthreads();  // CUB: required before s_reduce is reused
    }
  } else {
    using BR = tcr::BlockReduce<typename Types::T, BLOCK, algorithm_of(V)>;
    __shared__ typename BR::TempStorage s_reduce;
    for (int it = 0; it < iters; ++it) {
#pragma unroll
      for (int j = 0; j < W; ++j) asm volatile("" : "+r"(r_words[j]));
      In items[N];
      std::memcpy(items, r_words, sizeof(items));
      total += tcr::result(BR(s_reduce).Sum(items));
    }
  }
  if (threadIdx.x == 0) g_out[blockIdx.x] = double(total);
}

std::map<std::string, double>& cub_times() {
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
  const int blocks = sms * (per_sm > 0 ? per_sm : 1);
  const int iters = static_cast<int>(state.range(0));
  const std::size_t n = std::size_t(blocks) * BLOCK * N;
  // Data: values 1 + i/n, rounded to In (only the speed matters here).
  std::vector<In> host(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = In(float(1.0 + double(i % 1024) / 1024.0));
  In* d_in = nullptr;
  double* d_out = nullptr;
  CHECK_CUDA(cudaMalloc(&d_in, n * sizeof(In)));
  CHECK_CUDA(cudaMalloc(&d_out, blocks * sizeof(double)));
  CHECK_CUDA(cudaMemcpy(d_in, host.data(), n * sizeof(In), cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  kernel<<<blocks, BLOCK>>>(d_in, d_out, iters);  // warm-up
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  double sum_s = 0;
  long count = 0;
  for (auto _ : state) {
    CHECK_CUDA(cudaEventRecord(start));
    kernel<<<blocks, BLOCK>>>(d_in, d_out, iters);
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
  const std::string key = std::string(type_name<In>()) + "/N:" + std::to_string(N);
  if (V == variant::cub_plain) cub_times()[key] = mean_s;
  state.counters["ns_per_iter"] = mean_s * 1e9 / iters;
  state.counters["blocks"] = blocks;
  if (V != variant::cub_plain && cub_times().count(key) && cub_times()[key] > 0)
    state.counters["vs_cub"] = mean_s / cub_times()[key];
  state.SetItemsProcessed(state.iterations() * int64_t(iters) * int64_t(n));
  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(stop));
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFree(d_out));
}

constexpr int block_threads = 256;
constexpr int kernel_iters = 512;

template <variant V, class In, int N>
void add() {
  const std::string name = std::string("block/") + type_name<In>() + "/N:" + std::to_string(N) +
                           "/" + name_of(V);
  benchmark::RegisterBenchmark(name.c_str(), run<V, In, block_threads, N>)
      ->Arg(kernel_iters)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

template <class In, int N>
void add_type() {
  add<variant::cub_plain, In, N>();  // first: the others report vs_cub against it
  add<variant::tcr_fast_shuffle, In, N>();
  add<variant::tcr_comp_shuffle, In, N>();
  if constexpr (!std::is_same_v<In, double>) {
    add<variant::tcr_fast_chain, In, N>();
    add<variant::tcr_comp_fold, In, N>();
    add<variant::tcr_comp_chain, In, N>();
  }
}

}  // namespace

int main(int argc, char** argv) {
  add_type<float, 4>();
  add_type<float, 16>();
  add_type<__half, 4>();
  add_type<__half, 16>();
  add_type<__nv_bfloat16, 4>();
  add_type<__nv_bfloat16, 16>();
  add_type<__nv_fp8_e4m3, 4>();
  add_type<__nv_fp8_e4m3, 16>();
  add_type<__nv_fp8_e5m2, 4>();
  add_type<__nv_fp8_e5m2, 16>();
  // N = 64: a block reducing many tiles' worth of items per call (the combine amortised)
  add_type<float, 64>();
  add_type<__half, 64>();
  add_type<__nv_bfloat16, 64>();
  add_type<__nv_fp8_e4m3, 64>();
  add_type<__nv_fp8_e5m2, 64>();
  add_type<double, 4>();
  add_type<double, 16>();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIP: no CUDA device\n");
    return 0;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
