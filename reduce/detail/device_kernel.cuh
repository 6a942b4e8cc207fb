// SPDX-License-Identifier: BSD-3-Clause
// tcr: the one-launch device reduction kernel behind tcr::DeviceReduce (implementation detail).
//
// One kernel for every n, generic over an accumulator from compensated/reductions.cuh:
//   load -> accumulate -> block reduce -> arrive -> the last block merges.
// Each block folds a grid-stride share of the input into one accumulator per thread (16-byte
// vector loads, Unroll per operand in flight; a head and a tail of single elements), combines its
// threads' partials with BlockReduce and writes one partial to temporary storage; the last block
// to arrive merges all partials in block order (so the result does not depend on which block is
// last) and writes the result. A grid of one block skips the partials and the arrival counter.
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
#include <utility>
#include <cooperative_groups.h>
#include "../../compensated/convert.cuh"
#include "../block.cuh"
#include "../warp.cuh"

namespace tcr {
namespace detail {
namespace device {

inline constexpr int max_grid = 2048;                  // partials in temp storage, at most
inline constexpr std::int64_t bytes_per_block = 16384; // of input, at least, per block
inline constexpr std::size_t header_bytes = 256;       // arrival word, padded
inline constexpr std::size_t storage_align = 256;

// Element types loaded as 16-byte vectors from a pointer: the floating-point input types and
// the integers.
template <class T>
inline constexpr bool is_vector_element_v = is_input_type_v<T> ||
                                            (std::is_integral_v<T> && !std::is_same_v<T, bool>);

// Accumulators with per-thread state outside their own bytes (the shared-memory bins of
// compensated/exact_binned.cuh) offer prepare(), which the kernel calls once per thread first.
template <class A, class = void>
struct has_prepare : std::false_type {};
template <class A>
struct has_prepare<A, std::void_t<decltype(std::declval<A&>().prepare())>> : std::true_type {};

// Accumulators that combine a whole block themselves (the binned exact accumulators: integer
// digits summed by warps and shared adds, cheaper than a tree of their partials) offer the
// collectives block_partial() and merge_partials(g, count), each returning a reference to its
// result in shared memory, read by every thread: the kernel copies a partial out with all its
// threads (store_by_block) and never holds one in registers (double's exact partial is 536 bytes).
template <class A, class = void>
struct has_block_partial : std::false_type {};
template <class A>
struct has_block_partial<A, std::void_t<decltype(std::declval<const A&>().block_partial())>>
    : std::true_type {};

// Whether accumulator A rounds a partial into Out by a whole warp together (warp_finish).
template <class A, class Out, class = void>
struct has_warp_finish : std::false_type {};
template <class A, class Out>
struct has_warp_finish<A, Out,
                       std::void_t<decltype(std::declval<const A&>().template warp_finish<Out>(
                           std::declval<const typename A::partial_type&>()))>> : std::true_type {};

// How a warp folds full rounds of vectors.
enum class engine_kind {
  cuda_core,         // every lane adds its own vectors to its accumulator
  tensor_core_exact, // e4m3 / e5m2 sums: exact f16 MMAs (WarpReduceAlgorithm::tensor_core_exact)
  tensor_core_chain, // half / bfloat16 sums, Accuracy::fast: one rounding MMA chain per round
};

// What a reduction is, at compile time: its accumulator, the element types it consumes (Y void
// when unary), the result type, whether inputs enter as magnitudes (Asum), where the elements
// come from (XIn, YIn: pointers, or anything with operator[](std::int64_t) on the device: a
// random-access iterator, or one of the sources of reduce/detail/sources.cuh), where the result
// goes (OutIt: a pointer or an output iterator), and its vector width.
template <class Accumulator, class X, class Y, class Out, bool Magnitudes, class XIn = const X*,
          class YIn = const std::conditional_t<std::is_void_v<Y>, X, Y>*, class OutIt = Out*>
struct reduction {
  using accumulator = Accumulator;
  using x_type = X;
  using y_type = Y;
  using out_type = Out;
  using x_source = XIn;
  using y_source = YIn;
  using out_iterator = OutIt;
  static constexpr bool binary = !std::is_void_v<Y>;
  static constexpr bool magnitudes = Magnitudes;
  using y_storage = std::conditional_t<binary, Y, X>; // a placeholder type when unary
  static constexpr int elem_bytes = sizeof(X) > sizeof(y_storage) ? sizeof(X) : sizeof(y_storage);
  // 16-byte vectors where both operands come from pointers to the floating-point input types or
  // to integers; other sources go one element at a time.
  static constexpr bool vectorised =
      std::is_same_v<XIn, const X*> && std::is_same_v<YIn, const y_storage*> &&
      is_vector_element_v<X> && is_vector_element_v<y_storage> && 16 % elem_bytes == 0;
  static constexpr int vector_items = vectorised ? 16 / elem_bytes : 1;
};

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

// Loads N elements at p (aligned to N elements) into r[0, N); Magnitudes: their absolute values
// (the sign bits cleared in the loaded words, one logical operation per word).
template <int N, bool Magnitudes, class T>
__device__ __forceinline__ void load_vec(const T* p, T* r) {
  using R = typename raw<static_cast<int>(sizeof(T)) * N>::type;
  static_assert(sizeof(R) == sizeof(T) * N, "vector loads of 1, 2, 4, 8 or 16 bytes");
  R v = __ldg(reinterpret_cast<const R*>(p));
  if constexpr (Magnitudes) {
    static_assert(sizeof(R) % 4 == 0, "magnitudes of whole 32-bit words");
    std::uint32_t w[sizeof(R) / 4];
    std::memcpy(w, &v, sizeof v);
    clear_signs<T>(w);
    std::memcpy(&v, w, sizeof v);
  }
  std::memcpy(r, &v, sizeof v);
}

// Asum's magnitudes: taken by the accumulator after widening, where it offers add_magnitudes and
// the CUDA cores add (a free source modifier of its additions), else cleared in the loaded words
// (the tensor-core engines need them before their MMAs).
template <class R, bool CudaCores>
inline constexpr bool magnitudes_at_load =
    R::magnitudes &&
    !(CudaCores && has_add_magnitudes_v<typename R::accumulator, typename R::x_type>);

// Loaded elements (and their pairs) into acc, on the CUDA cores.
template <class R, bool CudaCores, class Acc, class X, class Y, int N, int M>
__device__ __forceinline__ void add_loaded(Acc& acc, const X (&x)[N], const Y (&y)[M]) {
  if constexpr (R::binary) {
    static_assert(M == N, "both operands of a dot product have N elements");
    acc.add(x, y);
  } else if constexpr (R::magnitudes && !magnitudes_at_load<R, CudaCores>) {
    acc.add_magnitudes(x);
  } else {
    acc.add(x);
  }
}
// Whether accumulator A takes reserve(n) and then unchecked adds (add<false>) of up to n inputs.
template <class A, class = void>
struct has_reserve : std::false_type {};
template <class A>
struct has_reserve<A, std::void_t<decltype(std::declval<A&>().reserve(0u))>> : std::true_type {};
// add_loaded after a reserve (has_reserve<Acc>, inputs already magnitudes where Asum): no check.
template <class R, class Acc, class X, class Y, int N, int M>
__device__ __forceinline__ void add_reserved(Acc& acc, const X (&x)[N], const Y (&y)[M]) {
  if constexpr (R::binary)
    acc.template add<false>(x, y);
  else
    acc.template add<false>(x);
}

// *dst = src, by the block's Threads threads, a word each in turn (src readable by every thread:
// shared memory), so that no thread holds the whole of a large value. A collective; the
// caller's barrier follows.
template <int Threads, class T>
__device__ __forceinline__ void store_by_block(T* dst, const T& src) {
  using W = std::conditional_t<
      sizeof(T) % 8 == 0 && alignof(T) >= 8, unsigned long long,
      std::conditional_t<sizeof(T) % 4 == 0 && alignof(T) >= 4, unsigned int, unsigned char>>;
  const W* s = reinterpret_cast<const W*>(&src);
  W* d = reinterpret_cast<W*>(dst);
  for (int k = threadIdx.x; k < int(sizeof(T) / sizeof(W)); k += Threads)
    d[k] = s[k];
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

// What one launch reads and writes: R's sources and output, and the cut of [0, n) into a head of
// single elements, the vector region and a tail.
template <class R>
struct kernel_params {
  typename R::x_source x;
  typename R::y_source y; // second operand (Dot); unused when unary
  std::int64_t n;
  std::int64_t head; // elements before the vector region, handled one by one
  std::int64_t nvec; // vectors of vector_items elements in the vector region
  typename R::out_iterator out;
  unsigned char* partials;     // [gridDim.x] partials (grid > 1)
  unsigned long long* arrival; // the arrival word (grid > 1)
  unsigned long long key;      // 48-bit key << 16
};

// The result's store: through the output iterator (write_result is overloaded for the paired
// outputs of ArgMin / ArgMax in reduce/detail/sources.cuh).
template <class OutIt, class V>
__device__ __forceinline__ void write_result(OutIt& out, const V& v) {
  *out = v;
}

// One thread's accumulation: its own accumulator and, for the tensor-core engines, the lane's
// share of the warp's MMA results (lanes l and l ^ 1 hold the same values; LaneShare keeps one).
// Asum's inputs arrive as magnitudes where load_magnitudes; else add_alone takes them.
template <class R, engine_kind E>
struct thread_state {
  using Acc = typename R::accumulator;
  using X = typename R::x_type;
  using Y = typename R::y_storage;
  using exact_warp = WarpReduce<Acc, WarpReduceAlgorithm::tensor_core_exact>;
  using chain_warp = WarpReduce<float, WarpReduceAlgorithm::tensor_core_chain>;
  using share_warp =
      WarpReduce<Acc, E == engine_kind::tensor_core_exact ? WarpReduceAlgorithm::tensor_core_exact
                                                          : WarpReduceAlgorithm::tensor_core_chain>;

  Acc acc;
  Acc tc; // tensor-core engines only
  static constexpr bool cuda_core = E == engine_kind::cuda_core;
  // Where Asum's loads clear the sign bits (else add_alone takes the magnitudes).
  static constexpr bool load_magnitudes = magnitudes_at_load<R, cuda_core>;

  // N elements per operand (y: N elements, or unused when unary). The tensor-core engines need
  // all 32 lanes (a warp-uniform call).
  template <int N, int M>
  __device__ __forceinline__ void add(X (&x)[N], const Y (&y)[M]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    // No m16n8k16 MMAs on this architecture: the host launches the tensor-core engines only on
    // GPUs of compute capability 8.0 or newer; this pass of a fat binary adds on the CUDA cores.
    constexpr bool cuda_cores_only = true;
#else
    constexpr bool cuda_cores_only = cuda_core;
#endif
    if constexpr (cuda_cores_only) {
      add_alone(x, y);
    } else if constexpr (E == engine_kind::tensor_core_exact) {
      exact_warp().AccumulateLane(tc, x);
    } else if constexpr (E == engine_kind::tensor_core_chain) {
      // The chain's D. A chain that meets Inf, NaN or a float overflow (bfloat16 row sums) is
      // dropped, and every lane adds its own elements on the CUDA cores (a warp-uniform rare
      // path), so Inf and NaN propagate as in plain summation and no spurious Inf arises.
      float d = 0.f;
      chain_warp().AccumulateLane(d, x);
      if (__any_sync(full_warp_mask, !isfinite(d)))
        acc.add(x);
      else
        tc.add(d);
    }
  }
  // The same on the CUDA cores, for any lane on its own (partial rounds, single elements).
  template <int N, int M>
  __device__ __forceinline__ void add_alone(X (&x)[N], const Y (&y)[M]) {
    add_loaded<R, cuda_core>(acc, x, y);
  }
  // Whether a partial round may reserve its adds before its loads (reserve, add_alone_reserved).
  static constexpr bool reserves =
      cuda_core && has_reserve<Acc>::value && !(R::magnitudes && !load_magnitudes);
  __device__ __forceinline__ void reserve(std::uint32_t n) {
    if constexpr (reserves)
      acc.reserve(n);
  }
  template <int N, int M>
  __device__ __forceinline__ void add_alone_reserved(X (&x)[N], const Y (&y)[M]) {
    if constexpr (reserves)
      add_reserved<R>(acc, x, y);
    else
      add_alone(x, y);
  }
  __device__ __forceinline__ typename Acc::partial_type partial() const {
    if constexpr (cuda_core) {
      return acc.partial();
    } else {
      Acc total = acc;
      total.merge(share_warp().LaneShare(tc));
      return total.partial();
    }
  }
};

// R: a reduction (above), passed its empty accumulator `fresh` (which may carry Reduce's op and
// init). Threads: threads per block; Unroll: vectors per operand in flight; E: the engine.
// Grid: the kernel of a grid (partials, arrival, the last block merges); false: a grid of one
// block, compiled without that code (a smaller kernel: with a cold L2 every launch fetches the
// kernel's whole code from DRAM, which is most of a small reduction's time).
// The kernel's body (reduce_kernel below), also the phases of the certify-first kernels.
// PartialOnly (with Grid): each block's thread 0 stores the block's partial to
// p.partials[blockIdx.x] and nothing else follows (no arrival, no merge, no result).
template <class R, int Threads, int Unroll, engine_kind E, bool Grid, bool PartialOnly = false>
__device__ __forceinline__ void reduce_block(kernel_params<R> p, typename R::accumulator fresh) {
  using Acc = typename R::accumulator;
  using P = typename Acc::partial_type;
  using C = typename Acc::compact_type;
  using X = typename R::x_type;
  using Y = typename R::y_storage;
  constexpr int V = R::vector_items;
  constexpr bool has_compact = !std::is_void_v<C>;
  // Warp totals combined by one warp: shared memory of one partial per warp, whatever its size.
  using BlockP =
      BlockReduce<P, Threads, BlockReduceAlgorithm::shuffle_tree, BlockCombine::warp_totals>;
  using BlockC = BlockReduce<std::conditional_t<has_compact, C, P>, Threads,
                             BlockReduceAlgorithm::shuffle_tree, BlockCombine::warp_totals>;
  __shared__ union {
    typename BlockP::TempStorage partials;
    typename BlockC::TempStorage compact;
  } s_reduce;

  const std::int64_t tid = static_cast<std::int64_t>(blockIdx.x) * Threads + threadIdx.x;
  const std::int64_t stride = Grid ? static_cast<std::int64_t>(gridDim.x) * Threads : Threads;

  // The arrival word, read now so that the read overlaps the loads (see the header comment).
  [[maybe_unused]] unsigned long long r_seen = 0; // read by the grid kernel only
  if constexpr (Grid && !PartialOnly)
    if (threadIdx.x == 0)
      r_seen = peek_arrival(p.arrival);

  thread_state<R, E> r_state{fresh, fresh};
  if constexpr (has_prepare<Acc>::value)
    r_state.acc.prepare();

  // 1. Load -> accumulate. Vector region: vectors v = tid, tid + stride, ..., Unroll per round.
  constexpr int YV = R::binary ? V : 1; // the second operand's registers (unused when unary)
  constexpr bool mask_signs = thread_state<R, E>::load_magnitudes;
  if constexpr (V > 1) {
    const X* g_xv = p.x + p.head;
    const Y* g_yv = p.y + p.head;
    // Full rounds, no bounds checks. The tensor-core engines need every lane of the warp, so
    // their rounds run while the warp's last lane still has a full round (v - lane is the same
    // for all lanes: a warp-uniform condition).
    const std::int64_t lane_slack = E == engine_kind::cuda_core ? 0 : 31 - (threadIdx.x & 31);
    std::int64_t v = tid;
    for (; v + lane_slack + (Unroll - 1) * stride < p.nvec; v += Unroll * stride) {
      X r_x[Unroll * V];
      Y r_y[Unroll * YV];
#pragma unroll
      for (int u = 0; u < Unroll; ++u) {
        load_vec<V, mask_signs>(g_xv + (v + u * stride) * V, r_x + u * V);
        if constexpr (R::binary)
          load_vec<V, mask_signs>(g_yv + (v + u * stride) * V, r_y + u * V);
      }
      r_state.add(r_x, r_y);
    }
    // The rest: fewer than Unroll vectors for every lane (the full rounds stop where the warp's
    // last lane has fewer, and stride >= 32), loaded together, then added one vector at a time on
    // the CUDA cores.
    if (v < p.nvec) {
      // Accumulators that spill now and then (the exact modes' bins) do it before the loads, so
      // that no loaded vector is live across a possible spill (it would go to local memory).
      r_state.reserve(std::uint32_t(Unroll * V));
      X r_x[Unroll][V];
      Y r_y[Unroll][YV];
#pragma unroll
      for (int u = 0; u < Unroll; ++u) {
        if (v + u * stride < p.nvec) {
          load_vec<V, mask_signs>(g_xv + (v + u * stride) * V, r_x[u]);
          if constexpr (R::binary)
            load_vec<V, mask_signs>(g_yv + (v + u * stride) * V, r_y[u]);
        }
      }
#pragma unroll
      for (int u = 0; u < Unroll; ++u)
        if (v + u * stride < p.nvec)
          r_state.add_alone_reserved(r_x[u], r_y[u]);
    }
  }
  // Scalar region: [0, head) and [head + nvec * V, n), one element at a time.
  {
    const std::int64_t tail_begin = p.head + p.nvec * V;
    const std::int64_t scalars = p.head + (p.n - tail_begin);
    for (std::int64_t j = tid; j < scalars; j += stride) {
      const std::int64_t i = j < p.head ? j : tail_begin + (j - p.head);
      X r_x[1] = {static_cast<X>(p.x[i])};
      if constexpr (mask_signs)
        magnitudes(r_x);
      Y r_y[1] = {};
      if constexpr (R::binary)
        r_y[0] = static_cast<Y>(p.y[i]);
      r_state.add_alone(r_x, r_y);
    }
  }

  // 2. Block reduce: one P per thread, in a fixed order; every thread calls (block-uniform
  // branch). Blocks whose partials all fit the compact form combine that instead. With
  // Limited (std::true_type), only the first `valid` threads' partials are combined (the others
  // hold nothing): a tree of log2(valid) levels, at the price of a second tree's code.
  const auto combine = [&](const P& part, auto limited, int valid) -> P {
    constexpr bool Limited = decltype(limited)::value;
    const auto reduce = [&](auto block, const auto& x, auto op) {
      if constexpr (Limited)
        return block.Reduce(x, op, valid);
      else
        return block.Reduce(x, op);
    };
    if constexpr (has_compact) {
      C compact{};
      const bool fits = fresh.to_compact(part, compact);
      if (__syncthreads_and(fits)) {
        const auto merge_c = [&](const C& a, const C& b) { return fresh.merge(a, b); };
        return fresh.from_compact(reduce(BlockC(s_reduce.compact), compact, merge_c));
      }
    }
    const auto merge_p = [&](const P& a, const P& b) { return fresh.merge(a, b); };
    return reduce(BlockP(s_reduce.partials), part, merge_p); // ends with a barrier
  };
  using Out = typename R::out_type;
  // The block's partial: in thread 0 (combine), or, where the accumulator combines the block
  // itself, a reference to its copy in shared memory, which every thread reads.
  constexpr bool shared_total = has_block_partial<Acc>::value;
  const P& block_total = [&]() -> decltype(auto) {
    if constexpr (shared_total)
      return r_state.acc.block_partial(); // collective
    else
      return combine(r_state.partial(), std::false_type{}, Threads);
  }();
  // The result of a block-level total that every thread can read (shared memory), written by
  // thread 0: rounded by warp 0 together where the accumulator can (warp_finish), else by
  // thread 0 alone. Then `after` (thread 0).
  const auto write_total = [&](const P& total, auto after) {
    if constexpr (has_warp_finish<Acc, Out>::value) {
      if (threadIdx.x < 32) {
        const Out v = fresh.template warp_finish<Out>(total);
        if (threadIdx.x == 0) {
          write_result(p.out, v);
          after();
        }
      }
    } else if (threadIdx.x == 0) {
      write_result(p.out, fresh.template finish<Out>(total));
      after();
    }
  };
  if constexpr (!Grid) {
    if constexpr (shared_total) {
      if (p.n == 0) {
        if (threadIdx.x == 0)
          write_result(p.out, fresh.template empty_result<Out>());
      } else {
        write_total(block_total, [] {});
      }
    } else if (threadIdx.x == 0) {
      write_result(p.out, p.n == 0 ? fresh.template empty_result<Out>()
                                   : fresh.template finish<Out>(block_total));
    }
  } else if constexpr (PartialOnly) {
    static_assert(!shared_total, "PartialOnly: accumulators whose block partial is in thread 0");
    if (threadIdx.x == 0)
      reinterpret_cast<P*>(p.partials)[blockIdx.x] = block_total;
  } else {
    // 3. Arrive. A partial in shared memory goes out by every thread, each fencing its own
    // stores before the barrier; thread 0's arrival then releases them all.
    P* g_partials = reinterpret_cast<P*>(p.partials);
    __shared__ bool s_last;
    if constexpr (shared_total) {
      store_by_block<Threads>(g_partials + blockIdx.x, block_total);
      __threadfence();
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      if constexpr (!shared_total)
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

    if constexpr (shared_total) {
      const P& total = fresh.merge_partials(g_partials, static_cast<int>(gridDim.x));
      write_total(total, [&] { reset_arrival(p.arrival, p.key); });
    } else {
      // 4. The last block merges: thread t takes partials t, t + Threads, ... (at most
      // max_grid / Threads) in block order, the loads of a batch in flight together.
      constexpr int per_thread = max_grid / Threads;
      constexpr int batch = sizeof(P) <= 16 ? per_thread : 2;
      static_assert(per_thread % batch == 0, "partials per thread");
      const int grid = static_cast<int>(gridDim.x);
      P r_merged = fresh.partial();
#pragma unroll 1
      for (int b0 = threadIdx.x; b0 < grid; b0 += batch * Threads) {
        P r_part[batch];
#pragma unroll
        for (int j = 0; j < batch; ++j)
          if (b0 + j * Threads < grid)
            r_part[j] = load_cg(g_partials + b0 + j * Threads);
#pragma unroll
        for (int j = 0; j < batch; ++j)
          if (b0 + j * Threads < grid)
            r_merged = fresh.merge(r_merged, r_part[j]);
      }
      // Heavy partials (the double machinery's) combine a grid smaller than the block over its
      // first `grid` threads only (log2(grid) merge levels); a float partial's merge is one
      // addition, not worth the second tree's code.
      constexpr bool fewer_levels = sizeof(P) > 16;
      const P total =
          combine(r_merged, std::bool_constant<fewer_levels>{}, grid < Threads ? grid : Threads);
      if (threadIdx.x == 0) {
        write_result(p.out, fresh.template finish<Out>(total));
        reset_arrival(p.arrival, p.key);
      }
    }
  }
}

template <class R, int Threads, int Unroll, engine_kind E, bool Grid>
__global__ void __launch_bounds__(Threads)
    reduce_kernel(kernel_params<R> p, typename R::accumulator fresh) {
  reduce_block<R, Threads, Unroll, E, Grid>(p, fresh);
}

// The exact modes' one-block inputs into a float or a double (reduce/device.cuh, run_exact;
// Sum, Asum, Dot, Nrm2):
// where `certify`, first a certified reduction RC of the same data into shared memory
// (compensated/certified.cuh's certify_first_accumulator). For a float result, a
// certified<double> {v, b}: |v - s| <= b for the exact result s, b at most about 2^-53 |v| +
// 2^-73 S (S the sum of magnitudes); RD(v - b) <= s <= RU(v + b) and RN_float is monotone, so
// where RN_float(RD(v - b)) equals RN_float(RU(v + b)), that float is RN_float(s)
// (decides_float). For a double result and for Nrm2's sum of squares s, a certified_double_word
// {hi, lo, b} with s in
// [hi + lo - b, hi + lo + b], which decides RN_double(s) = hi where that interval lies strictly
// inside hi's rounding interval (decides_double); Nrm2's result is then the norm's rounding of
// sqrt(RN_double(s)). Decision::apply(certificate, result) says which (reduce/device.cuh's
// decide_rounding, decide_norm). Either way the exact modes' result, the same bits as the exact
// reduction RE gives. Otherwise (s within b of a midpoint: exact ties, and for
// generic data with a probability that grows with the condition number, the running bound being
// usually far below its worst case; a zero, Inf or NaN, whose sign and special cases the exact
// path decides; an overflow on the way) RE runs over the same data (now in L2) in the same
// block. The decision reads one shared value: block-uniform. RC's one pass has all the block's
// vectors in flight (UnrollC) and no bins, block combine of limbs or exact rounding.
template <class RC, class RE, class Decision, int Threads, int UnrollC, int UnrollE>
__global__ void __launch_bounds__(Threads)
    certify_first_kernel(kernel_params<RC> pc, typename RC::accumulator fc, kernel_params<RE> pe,
                         typename RE::accumulator fe, bool certify) {
  __shared__ typename RC::out_type s_cert;
  if (certify) {
    pc.out = &s_cert;
    reduce_block<RC, Threads, UnrollC, engine_kind::cuda_core, false>(pc, fc);
    __syncthreads();
    typename RE::out_type f;
    if (Decision::apply(s_cert, f)) {
      if (threadIdx.x == 0)
        write_result(pe.out, f);
      return;
    }
  }
  reduce_block<RE, Threads, UnrollE, engine_kind::cuda_core, false>(pe, fe);
}

// The end of the certify-first grid and cluster kernels: thread 0 decides from the merged
// certified partial `total` (held by thread 0 alone; every block merged the same partials in the
// same order, so every block decides alike); then block 0 writes the decided result, or, where
// it is undecided, every block runs the exact grid reduction RE over the same data.
template <class RC, class RE, class Decision, int Threads, int UnrollE>
__device__ __forceinline__ void decide_or_exact(const typename RC::accumulator::partial_type& total,
                                                const typename RC::accumulator& fc,
                                                const kernel_params<RE>& pe,
                                                const typename RE::accumulator& fe) {
  using Out = typename RE::out_type;
  __shared__ bool s_decided;
  __shared__ Out s_value;
  if (threadIdx.x == 0) {
    Out v{};
    s_decided = Decision::apply(fc.template finish<typename RC::out_type>(total), v);
    s_value = v;
  }
  __syncthreads();
  if (s_decided) {
    if (blockIdx.x == 0 && threadIdx.x == 0)
      write_result(pe.out, s_value);
    return;
  }
  reduce_block<RE, Threads, UnrollE, engine_kind::cuda_core, true>(pe, fe);
}

// The same decision over a grid (reduce/device.cuh: inputs beyond one block), launched
// cooperatively, so that every block is resident at once and may wait for the others. Each block
// stores its certified partial (RC, at pc.partials[blockIdx.x]); after a grid-wide barrier every
// block merges all of them in block order and combines them (the same code and order in every
// block: every block reaches the same decision). Where the certificate decides, block 0 writes
// the result and the grid returns; otherwise every block runs the exact grid reduction RE (its own
// arrival word and partials, pe) over the same data.
template <class RC, class RE, class Decision, int Threads, int UnrollC, int UnrollE>
__global__ void __launch_bounds__(Threads)
    certify_first_grid_kernel(kernel_params<RC> pc, typename RC::accumulator fc,
                              kernel_params<RE> pe, typename RE::accumulator fe) {
  using PC = typename RC::accumulator::partial_type;
  using Block =
      BlockReduce<PC, Threads, BlockReduceAlgorithm::shuffle_tree, BlockCombine::warp_totals>;
  __shared__ typename Block::TempStorage s_merge;
  reduce_block<RC, Threads, UnrollC, engine_kind::cuda_core, true, true>(pc, fc);
  cooperative_groups::this_grid().sync(); // every partial stored and visible
  const PC* g_parts = reinterpret_cast<const PC*>(pc.partials);
  PC r_merged = fc.partial();
  for (int b = threadIdx.x; b < int(gridDim.x); b += Threads)
    r_merged = fc.merge(r_merged, load_cg(g_parts + b));
  const PC total =
      Block(s_merge).Reduce(r_merged, [&](const PC& a, const PC& b) { return fc.merge(a, b); });
  decide_or_exact<RC, RE, Decision, Threads, UnrollE>(total, fc, pe, fe);
}

// The same decision where the whole grid is one thread-block cluster of at most
// max_certify_cluster blocks (compute capability 9.0 and newer; reduce/device.cuh launches it for
// inputs of up to cluster_certify_bytes): the hardware schedules a cluster's blocks together, so
// the blocks wait at the cluster's barrier (barrier.cluster, release / acquire at cluster scope:
// every block's certified partial, stored before it, is visible after it) instead of a
// cooperative launch's grid barrier, and warp 0 of every block merges the at most 32 partials
// alone: lane l loads partial l, then a shuffle tree in a fixed order (the same in every block:
// every block reaches the same decision). H100, f32 Sum, cold L2, 20 calls back to back
// (bench/certify_probe.cu): 2^15 7.34 -> 4.80 us and 2^16 7.09 -> 4.68 us against the cooperative
// grid (CUB 4.89 / 4.94); the cluster barrier 0.43 us against the grid barrier's 0.9, the warp's
// merge 0.6 us against 1.2-2.9 for the block's. Undecided: the exact grid reduction RE over the
// cluster's blocks, as certify_first_grid_kernel. Built for older architectures as the exact pass
// alone (never launched there).
inline constexpr int max_certify_cluster = 16;
template <class RC, class RE, class Decision, int Threads, int UnrollC, int UnrollE>
__global__ void __launch_bounds__(Threads)
    certify_first_cluster_kernel(kernel_params<RC> pc, typename RC::accumulator fc,
                                 kernel_params<RE> pe, typename RE::accumulator fe) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using PC = typename RC::accumulator::partial_type;
  static_assert(max_certify_cluster <= 32, "one partial per lane of warp 0");
  reduce_block<RC, Threads, UnrollC, engine_kind::cuda_core, true, true>(pc, fc);
  cooperative_groups::this_cluster().sync(); // every partial stored and visible
  PC r_merged = fc.partial();
  if (threadIdx.x < 32) {
    if (threadIdx.x < gridDim.x)
      r_merged = load_cg(reinterpret_cast<const PC*>(pc.partials) + threadIdx.x);
    for (int delta = 16; delta >= 1; delta /= 2)
      r_merged = fc.merge(r_merged, detail::shfl_down(full_warp_mask, r_merged, delta));
  }
  decide_or_exact<RC, RE, Decision, Threads, UnrollE>(r_merged, fc, pe, fe);
#else
  reduce_block<RE, Threads, UnrollE, engine_kind::cuda_core, true>(pe, fe);
#endif
}

} // namespace device
} // namespace detail
} // namespace tcr
