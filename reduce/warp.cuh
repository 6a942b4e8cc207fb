// tcr: warp-level reductions.
//
// tcr::WarpReduce<T> reduces one value per lane of a full warp with a shuffle tree. T is a plain
// arithmetic type or an accumulator from compensated/ (anything trivially copyable with
// tcr::merge). Every lane receives the same result, bit for bit; the combining order is fixed,
// so results are reproducible run to run. All 32 lanes must call it (the shuffles use the full
// mask).
#pragma once

#include <cstdint>
#include <type_traits>
#include "compensated/accumulator.cuh"

namespace tcr {

namespace detail {

inline constexpr unsigned full_warp_mask = 0xffffffffu;

__device__ __forceinline__ unsigned lane_id() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

// Shuffle an arbitrary trivially copyable value, 32 bits at a time.
template <class T>
__device__ __forceinline__ T shfl_down(unsigned mask, const T& v, int delta) {
  static_assert(std::is_trivially_copyable_v<T>, "shuffled values must be trivially copyable");
  constexpr int words = (sizeof(T) + 3) / 4;
  union {
    T value;
    uint32_t w[words];
  } in{v}, out{};
#pragma unroll
  for (int i = 0; i < words; ++i) out.w[i] = __shfl_down_sync(mask, in.w[i], delta);
  return out.value;
}

template <class T>
__device__ __forceinline__ T shfl(unsigned mask, const T& v, int src_lane) {
  static_assert(std::is_trivially_copyable_v<T>, "shuffled values must be trivially copyable");
  constexpr int words = (sizeof(T) + 3) / 4;
  union {
    T value;
    uint32_t w[words];
  } in{v}, out{};
#pragma unroll
  for (int i = 0; i < words; ++i) out.w[i] = __shfl_sync(mask, in.w[i], src_lane);
  return out.value;
}

// The functor form of tcr::merge, used where an operator is expected.
struct merge_op {
  template <class A>
  __host__ __device__ __forceinline__ A operator()(const A& a, const A& b) const {
    return tcr::merge(a, b);
  }
};

}  // namespace detail

template <class T>
class WarpReduce {
  static_assert(std::is_trivially_copyable_v<T>,
                "tcr::WarpReduce<T>: T must be trivially copyable (a number or an accumulator)");
  static_assert(std::is_default_constructible_v<T>,
                "tcr::WarpReduce<T>: T must default-construct to the empty sum");

 public:
  // Shuffles only: no shared memory is needed. Kept so code reads like CUB's.
  struct TempStorage {};

  __device__ __forceinline__ explicit WarpReduce(TempStorage&) {}
  __device__ __forceinline__ WarpReduce() {}

  // Reduce one value per lane with op (associative; applied in a fixed tree order, and always
  // as op(lower lanes, higher lanes), so it need not be commutative). Every lane gets the result.
  template <class Op>
  __device__ __forceinline__ T Reduce(const T& x, Op op) const {
    return Reduce(x, op, 32);
  }

  // As above over lanes [0, valid_lanes) only; valid_lanes in [1, 32]. The other lanes' values
  // are never passed to op.
  template <class Op>
  __device__ __forceinline__ T Reduce(T x, Op op, int valid_lanes) const {
    using namespace detail;
    const int lane = static_cast<int>(lane_id());
#pragma unroll
    for (int delta = 1; delta < 32; delta *= 2) {
      const T other = shfl_down(full_warp_mask, x, delta);
      if (lane + delta < valid_lanes) x = op(x, other);
    }
    return shfl(full_warp_mask, x, 0);
  }

  // The sum (merge, for accumulators) of one value per lane. Every lane gets the result.
  __device__ __forceinline__ T Sum(const T& x) const { return Reduce(x, detail::merge_op{}); }

  // Each lane first accumulates its N items in order (tcr::accumulate), then the warp merges.
  template <class In, int N>
  __device__ __forceinline__ T Sum(const In (&items)[N]) const {
    T acc{};
#pragma unroll
    for (int i = 0; i < N; ++i) acc = tcr::accumulate(acc, items[i]);
    return Sum(acc);
  }
};

}  // namespace tcr
