// SPDX-License-Identifier: BSD-3-Clause
// Krylov example: device buffers, error checks, launch shapes and the grid-wide reduction that
// every fused kernel ends with (each block reduces its partial with tcr::BlockReduce, the last
// block to arrive merges the partials in block order and runs the kernel's scalar step).
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>
#include <tcr/compensated/accumulators.cuh>
#include <tcr/reduce/block.cuh>

namespace krylov {

inline void check_cuda(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}
#define KRYLOV_CUDA(expr) ::krylov::check_cuda((expr), #expr)

// A device array that frees itself (move-only).
template <class T>
class dev_array {
public:
  dev_array() = default;
  explicit dev_array(std::size_t n) : n_(n) {
    if (n)
      KRYLOV_CUDA(cudaMalloc(&p_, n * sizeof(T)));
    if (n)
      KRYLOV_CUDA(cudaMemset(p_, 0, n * sizeof(T)));
  }
  explicit dev_array(const std::vector<T>& h) : dev_array(h.size()) { upload(h); }
  dev_array(dev_array&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr, o.n_ = 0; }
  dev_array& operator=(dev_array&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  dev_array(const dev_array&) = delete;
  dev_array& operator=(const dev_array&) = delete;
  ~dev_array() {
    if (p_)
      cudaFree(p_);
  }
  void upload(const std::vector<T>& h) {
    if (h.size() != n_)
      throw std::runtime_error("dev_array::upload: size mismatch");
    if (n_)
      KRYLOV_CUDA(cudaMemcpy(p_, h.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> h(n_);
    if (n_)
      KRYLOV_CUDA(cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
  T* get() const { return p_; }
  std::size_t size() const { return n_; }

private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

// One value in device memory, read back by the host (the solvers' scalar state).
template <class T>
T read_back(const T* d) {
  T h;
  KRYLOV_CUDA(cudaMemcpy(&h, d, sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

inline constexpr int block_threads = 256;
// Blocks per SM in a grid-stride launch: 8 x 256 threads fill an H100/H200 SM (2048 threads).
inline constexpr int blocks_per_sm = 8;

// The launch shape, fixed by the problem size, the GPU's SM count and the kernel's residency
// alone, so that the reductions' combining order (and so every bit of a run) is the same run to
// run.
struct launch_shape {
  int sms = 0;
  int max_blocks() const { return sms * blocks_per_sm; } // the grid workspace's partials
  // Blocks for `items` work items of `per_block` each, grid-stride beyond per_sm blocks an SM
  // (per_sm <= blocks_per_sm: the blocks of the kernel an SM holds at once, spmv.cuh).
  int blocks(std::int64_t items, std::int64_t per_block, int per_sm = blocks_per_sm) const {
    const std::int64_t b = (items + per_block - 1) / per_block, cap = std::int64_t{sms} * per_sm;
    return static_cast<int>(b < 1 ? 1 : (b > cap ? cap : b));
  }
  static launch_shape current() {
    int dev = 0, sms = 0;
    KRYLOV_CUDA(cudaGetDevice(&dev));
    KRYLOV_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return {sms};
  }
};

// K accumulators merged elementwise, so that the K dot products of a fused kernel share one
// block reduction and one grid-wide merge.
template <class A, int K>
struct acc_array {
  static_assert(K >= 1, "acc_array: at least one accumulator");
  A a[K] = {};
  __host__ __device__ void merge(const acc_array& o) {
#pragma unroll
    for (int k = 0; k < K; ++k)
      a[k] = tcr::merge(a[k], o.a[k]);
  }
};

// The product x * y folded into a: dot2's error-free product and sum for accumulators, a + x y
// in A (one rounding each, as cuBLAS does) for plain types.
template <class A, class X, class Y>
__device__ __forceinline__ void add_product(A& a, X x, Y y) {
  if constexpr (tcr::is_accumulator_v<A>) {
    a.add(x, y);
  } else {
    a = a + static_cast<A>(x) * static_cast<A>(y);
  }
}

// Scratch for the grid-wide merge: one partial per block and the arrival counter (zero between
// kernels: the last block resets it).
struct grid_workspace {
  void* partials = nullptr;
  unsigned* counter = nullptr;
};

inline constexpr std::size_t grid_workspace_bytes = 1 << 20;

// A trivially copyable value loaded through L2 (ld.global.cg), word by word: partials written by
// other blocks must not be read from a stale L1 line.
template <class T>
__device__ __forceinline__ T load_cg(const T* p) {
  static_assert(sizeof(T) % 4 == 0, "load_cg: whole 32-bit words");
  T r;
  const unsigned* w = reinterpret_cast<const unsigned*>(p);
  unsigned* o = reinterpret_cast<unsigned*>(&r);
#pragma unroll
  for (int i = 0; i < static_cast<int>(sizeof(T) / 4); ++i)
    o[i] = __ldcg(w + i);
  return r;
}

// Reduces every thread's r_acc over the grid. Returns true in the last block to arrive, whose
// threads then all hold the total in r_acc (partials merged in block order, then one
// BlockReduce: the order depends on the grid size alone); false elsewhere. All threads of every
// block must call.
template <class Acc>
__device__ bool grid_reduce(Acc& r_acc, grid_workspace ws) {
  using block_reduce = tcr::BlockReduce<Acc, block_threads>;
  __shared__ typename block_reduce::TempStorage s_reduce;
  __shared__ bool s_last;
  const Acc block_total = block_reduce(s_reduce).Sum(r_acc);
  Acc* g_partials = static_cast<Acc*>(ws.partials);
  if (threadIdx.x == 0) {
    g_partials[blockIdx.x] = block_total;
    __threadfence(); // the partial is visible before the arrival is counted
    s_last = atomicAdd(ws.counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!s_last)
    return false;
  __threadfence();
  Acc mine{};
  for (unsigned b = threadIdx.x; b < gridDim.x; b += block_threads)
    mine = tcr::merge(mine, load_cg(g_partials + b));
  r_acc = block_reduce(s_reduce).Sum(mine);
  if (threadIdx.x == 0)
    *ws.counter = 0;
  return true;
}

// FNV-1a over the bytes of a host array (run-to-run identity of solutions).
template <class T>
std::uint64_t fnv1a(const std::vector<T>& v) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  for (std::size_t i = 0; i < v.size() * sizeof(T); ++i)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

} // namespace krylov
