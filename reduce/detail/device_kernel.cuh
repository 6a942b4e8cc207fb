// tcr: the one-launch device reduction kernel behind tcr::DeviceReduce (implementation detail).
//
// One kernel for every n. Each block reduces a grid-stride share of the input into a per-thread
// accumulator (16-byte vector loads, U in flight), merges its threads with BlockReduce and writes
// one partial accumulator to temporary storage; the last block to arrive merges all partials in
// block order (so the result does not depend on which block is last) and writes the result.
// A grid of one block skips the partials and the arrival counter.
//
// Arrival counter without a memset: the user's temporary storage is not initialised, so its
// first 8 bytes hold a word W = (key << 16) | count, key a 48-bit hash of the storage address
// and the grid size. A block that finds W carrying the key increments it (atomicAdd, no
// contention); a block that finds another key treats the count as 0 and installs key | 1 with
// atomicCAS (only the first arrivals of a call on fresh storage do this). The last block resets
// W to key | 0 when it is done, so the next call on the same storage takes the atomicAdd path
// from its first arrival. Residual risk: storage whose first word happens to equal key | c with
// c != 0 before the first call (probability 2^-48 for arbitrary contents) makes that call wrong.
//
// Latency: a block's arrival costs three dependent L2 round trips after its block reduction
// (the partial's store under a release fence, the atomic, the last block's loads of the
// partials). W is read at kernel start, while the block still loads its input: any value W
// holds during the call (or the previous call's reset) is a valid hint, since the key, once
// installed, stays until the last block of this call resets it, and a stale hint only sends a
// block through the compare-and-swap loop, which re-reads W. The reset is a plain store at the
// very end, so no fence waits for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include "compensated/accumulator.cuh"
#include "reduce/block.cuh"

namespace tcr {
namespace detail {
namespace device {

inline constexpr int block_threads = 256;
// Inputs of more than bytes_per_block bytes, but at most single_block_items elements and one
// round of 4 vectors per thread of one block of single_block_threads_v<K> threads, run as that
// one block: no partials and no arrival protocol, whose three dependent L2 round trips cost
// more than the block's extra reduction levels. 1024 threads (64 KiB), or 512 (32 KiB) where
// the thread state is the wide double machinery, which would spill under the 64-register cap of
// 1024-thread blocks. Measured on the H200 (bench/results/2026-11-30-h200-8bf8d38, cold L2, time
// against CUB): one block at 2^14 elements: f16 0.73x, f32 0.79x, e4m3 0.58x (the grid protocol
// there: 1.0-1.05x); but a second round of loads, or more than 2^15 elements on one SM, costs more
// than the protocol: 2^16 f16 elements (128 KiB, two rounds) 1.23x, 2^15 f32 (two rounds) 1.02x,
// 2^16 e4m3 Dot / Nrm2 (one round, compute on one SM) 1.20x / 1.27x.
// Whether K's thread state is the double machinery (partials wider than two doubles).
template <class K>
inline constexpr bool wide_partials_v = sizeof(typename K::partial_type) > 16;
template <class K>
inline constexpr int single_block_threads_v = wide_partials_v<K> ? 512 : 1024;
template <class K>
inline constexpr std::int64_t single_block_bytes_v = std::int64_t(single_block_threads_v<K>) * 64;
inline constexpr std::int64_t single_block_items = std::int64_t(1) << 15;
inline constexpr int max_grid = 2048;                  // partials in temp storage, at most
inline constexpr std::int64_t bytes_per_block = 16384; // of input, at least, per block
inline constexpr std::size_t header_bytes = 256;       // arrival word, padded
inline constexpr std::size_t storage_align = 256;

// A raw load of B bytes (B a power of two, 1..16) through the read-only path.
template <int B>
struct raw;
template <>
struct raw<16> {
  using type = uint4;
};
template <>
struct raw<8> {
  using type = uint2;
};
template <>
struct raw<4> {
  using type = unsigned int;
};
template <>
struct raw<2> {
  using type = unsigned short;
};
template <>
struct raw<1> {
  using type = unsigned char;
};

template <class T, int N>
__device__ __forceinline__ void load_vec(const T* p, T (&v)[N]) {
  using R = typename raw<static_cast<int>(sizeof(T)) * N>::type;
  static_assert(sizeof(R) == sizeof(T) * N, "vector loads of 1, 2, 4, 8 or 16 bytes");
  const R r = __ldg(reinterpret_cast<const R*>(p));
  std::memcpy(&v, &r, sizeof r);
}

// Loads a value written by another block of this grid (L2, never a stale L1 line).
template <class T>
__device__ __forceinline__ T load_cg(const T* p) {
  T v;
  if constexpr (sizeof(T) % 8 == 0) {
    unsigned long long w[sizeof(T) / 8];
#pragma unroll
    for (std::size_t i = 0; i < sizeof(T) / 8; ++i)
      w[i] = __ldcg(reinterpret_cast<const unsigned long long*>(p) + i);
    std::memcpy(&v, w, sizeof v);
  } else if constexpr (sizeof(T) % 4 == 0) {
    unsigned int w[sizeof(T) / 4];
#pragma unroll
    for (std::size_t i = 0; i < sizeof(T) / 4; ++i)
      w[i] = __ldcg(reinterpret_cast<const unsigned int*>(p) + i);
    std::memcpy(&v, w, sizeof v);
  } else {
    unsigned char w[sizeof(T)];
    for (std::size_t i = 0; i < sizeof(T); ++i)
      w[i] = *(reinterpret_cast<const volatile unsigned char*>(p) + i);
    std::memcpy(&v, w, sizeof v);
  }
  return v;
}

// True for exactly one block of the grid: the last to arrive. `seen`: a value read from word
// earlier in this call (see the header comment). The last block resets word with reset_arrival.
__device__ __forceinline__ bool arrive_last(unsigned long long* word, unsigned long long key,
                                            unsigned grid, unsigned long long seen) {
  constexpr unsigned long long count_mask = 0xffffull;
  for (;;) {
    if ((seen & ~count_mask) == key) {
      const unsigned long long old = atomicAdd(word, 1ull);
      // The key stays until the last block of this call resets the word, so old carries it.
      return (old & count_mask) + 1 == grid;
    }
    const bool last = grid == 1;
    const unsigned long long prev = atomicCAS(word, seen, last ? key : (key | 1ull));
    if (prev == seen)
      return last;
    seen = prev; // another block got there first: look again
  }
}

__device__ __forceinline__ unsigned long long peek_arrival(const unsigned long long* word) {
  return *reinterpret_cast<const volatile unsigned long long*>(word);
}

// After every block has arrived: the next call on this storage finds key | 0.
__device__ __forceinline__ void reset_arrival(unsigned long long* word, unsigned long long key) {
  *reinterpret_cast<volatile unsigned long long*>(word) = key;
}

struct kernel_params {
  const void* x;
  const void* y; // second operand (Dot), else null
  std::int64_t n;
  std::int64_t head; // elements before the vector region, handled one by one
  std::int64_t nvec; // vectors of K::vec_items elements in the vector region
  void* out;
  unsigned char* partials;     // [gridDim.x] accumulators (grid > 1)
  unsigned long long* arrival; // the arrival word (grid > 1)
  unsigned long long key;      // 48-bit key << 16
};

// K: the reduction's thread-level traits (see device_traits.cuh), passed by value:
//   K::acc_type (a thread's accumulator), K::partial_type (what threads and blocks combine),
//   K::x_type, K::y_type (void when unary), K::vec_items,
//   k.add_vec(acc, x[vec_items], y[vec_items]), k.add_vecs(acc, x[U][vec_items], y[U][...]),
//   k.add_one(acc, x, y), k.merge(acc, acc), k.to_partial(acc), k.merge_partials(p, p),
//   k.store(out, p) (p: the grid's total, combined in a fixed order).
// BT: threads per block (block_threads, or single_block_threads for a grid of one block).
template <class K, int Unroll, int BT = block_threads>
__global__ void __launch_bounds__(BT) reduce_kernel(kernel_params p, K k) {
  using Acc = typename K::acc_type;
  using P = typename K::partial_type;
  using X = typename K::x_type;
  using Y = typename K::y_type;
  constexpr bool binary = !std::is_void_v<Y>;
  using YL = std::conditional_t<binary, Y, X>; // a placeholder type when unary
  constexpr int V = K::vec_items;
  using BR = BlockReduce<P, BT>;
  // Blocks whose partials are all in the common form (K::fast_type: no rare-path content)
  // combine that smaller form instead: fewer words per shuffle, shorter merges.
  using F = std::conditional_t<K::has_fast, typename K::fast_type, P>;
  using FBR = BlockReduce<F, BT>;
  __shared__ typename BR::TempStorage s_reduce;
  __shared__ typename FBR::TempStorage s_fast;
  __shared__ bool s_last;

  const X* g_x = static_cast<const X*>(p.x);
  const YL* g_y = static_cast<const YL*>(p.y);
  const std::int64_t tid = static_cast<std::int64_t>(blockIdx.x) * BT + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * BT;

  // The arrival word, read now so that the read overlaps the loads (see the header comment).
  unsigned long long r_seen = 0;
  if (gridDim.x > 1 && threadIdx.x == 0)
    r_seen = peek_arrival(p.arrival);

  Acc r_acc{}; // this thread's elements, in a fixed order

  // Vectors v, v + stride, ... (at most Unroll of them, those below nvec): loaded at once, added
  // one by one in order, on the CUDA cores.
  // (Generic, so that it is instantiated only where vectors exist: V > 1.)
  const auto add_rest = [&](std::int64_t v, const auto* g_xv, const auto* g_yv) {
    X r_x[Unroll][V];
    YL r_y[Unroll][V];
#pragma unroll
    for (int u = 0; u < Unroll; ++u) {
      if (v + u * stride < p.nvec) {
        load_vec(g_xv + (v + u * stride) * V, r_x[u]);
        if constexpr (binary)
          load_vec(g_yv + (v + u * stride) * V, r_y[u]);
      }
    }
#pragma unroll
    for (int u = 0; u < Unroll; ++u) {
      if (v + u * stride < p.nvec) {
        if constexpr (binary)
          k.add_vec(r_acc, r_x[u], r_y[u]);
        else
          k.add_vec(r_acc, r_x[u], r_x[u]);
      }
    }
  };

  // Vector region on tensor cores: the warp-wide MMAs need every lane, so the unrolled loop runs
  // while the warp's last lane still has Unroll vectors (a warp-uniform condition: v - lane is
  // the same for all lanes); the remaining vectors go through the CUDA-core loop below.
  if constexpr (K::tensor_core) {
    typename K::acc_type r_tc{};
    const std::int64_t lane = threadIdx.x & 31;
    const X* g_xv = g_x + p.head;
    std::int64_t v = tid;
    for (; v - lane + 31 + (Unroll - 1) * stride < p.nvec; v += Unroll * stride) {
      X r_x[Unroll][V];
#pragma unroll
      for (int u = 0; u < Unroll; ++u)
        load_vec(g_xv + (v + u * stride) * V, r_x[u]);
      k.tc_add(r_tc, r_acc, r_x);
    }
    for (; v < p.nvec; v += Unroll * stride) // the rest, on the CUDA cores
      add_rest(v, g_xv, g_xv);
    r_acc = k.merge(r_acc, k.tc_share(r_tc));
  } else if constexpr (V > 1) {
    // Vector region: vectors v = tid, tid + stride, ...; Unroll loads in flight.
    const X* g_xv = g_x + p.head;
    const YL* g_yv = binary ? g_y + p.head : nullptr;
    std::int64_t v = tid;
    for (; v + (Unroll - 1) * stride < p.nvec; v += Unroll * stride) {
      X r_x[Unroll][V];
      YL r_y[Unroll][V];
#pragma unroll
      for (int u = 0; u < Unroll; ++u) {
        load_vec(g_xv + (v + u * stride) * V, r_x[u]);
        if constexpr (binary)
          load_vec(g_yv + (v + u * stride) * V, r_y[u]);
      }
      k.add_vecs(r_acc, r_x, r_y);
    }
    if (v < p.nvec) // the rest: fewer than Unroll vectors
      add_rest(v, g_xv, g_yv);
  }
  // Scalar region: [0, head) and [head + nvec * V, n), one element at a time.
  {
    const std::int64_t tail_begin = p.head + p.nvec * V;
    const std::int64_t scalars = p.head + (p.n - tail_begin);
    for (std::int64_t j = tid; j < scalars; j += stride) {
      const std::int64_t i = j < p.head ? j : tail_begin + (j - p.head);
      if constexpr (binary) {
        k.add_one(r_acc, g_x[i], g_y[i]);
      } else {
        k.add_one(r_acc, g_x[i], g_x[i]);
      }
    }
  }

  const auto merge = [&k](const P& a, const P& b) { return k.merge_partials(a, b); };
  // The block's combination of one P per thread; every thread calls (block-uniform branch).
  const auto combine = [&](const P& part) -> P {
    if constexpr (K::has_fast) {
      if (__syncthreads_and(k.is_fast(part))) {
        const auto fast_merge = [&k](const F& a, const F& b) { return k.merge_fast(a, b); };
        return k.from_fast(FBR(s_fast).Reduce(k.to_fast(part), fast_merge));
      }
    }
    return BR(s_reduce).Reduce(part, merge); // ends with a barrier
  };
  const P block_total = combine(k.to_partial(r_acc));
  if (gridDim.x == 1) {
    if (threadIdx.x == 0)
      k.store(p.out, block_total);
    return;
  }
  P* g_partials = reinterpret_cast<P*>(p.partials);
  if (threadIdx.x == 0) {
    g_partials[blockIdx.x] = block_total;
    __threadfence(); // release: the partial is visible before the arrival is
    const bool last = arrive_last(p.arrival, p.key, gridDim.x, r_seen);
    if (last)
      __threadfence(); // acquire: every partial is visible to this block after the barrier
    s_last = last;
  }
  __syncthreads();
  if (!s_last)
    return;
  // Thread t merges partials t, t + BT, ... (at most max_grid / BT: 8 for 256 threads) in block
  // order, so the result does not depend on which block came last; the loads go out together.
  constexpr int per_thread = max_grid / BT;
  constexpr int batch = sizeof(P) <= 16 ? per_thread : 2;
  static_assert(per_thread % batch == 0, "partials per thread");
  const int grid = static_cast<int>(gridDim.x);
  P r_merged{};
#pragma unroll 1
  for (int b0 = threadIdx.x; b0 < grid; b0 += batch * BT) {
    P r_part[batch];
#pragma unroll
    for (int j = 0; j < batch; ++j)
      if (b0 + j * BT < grid)
        r_part[j] = load_cg(g_partials + b0 + j * BT);
#pragma unroll
    for (int j = 0; j < batch; ++j)
      if (b0 + j * BT < grid)
        r_merged = k.merge_partials(r_merged, r_part[j]);
  }
  const P total = combine(r_merged);
  if (threadIdx.x == 0) {
    k.store(p.out, total);
    reset_arrival(p.arrival, p.key);
  }
}

} // namespace device
} // namespace detail
} // namespace tcr
