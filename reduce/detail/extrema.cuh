// SPDX-License-Identifier: BSD-3-Clause
// tcr: the accumulators of Min, Max, ArgMin and ArgMax (implementation detail of
// reduce/device.cuh; they model the accumulator concept of compensated/reductions.cuh).
//
// CUB's rules, applied in tcr's fixed combining order:
//   Min: a < b ? a : b        Max: a < b ? b : a        (cuda::minimum / cuda::maximum)
//   ArgMin: b wins over a if b.value < a.value, or the values are equal and b's index is smaller
//   ArgMax: b wins over a if b.value > a.value, or the values are equal and b's index is smaller
// so ties go to the first (smallest) index. The comparisons are the type's own (half, bfloat16 and
// fp8 compared as the floats they are). A NaN compares false with everything, so which value a
// NaN-containing input gives depends on where the NaN meets the others in the combining order
// (as in CUB, whose order is another one); the order is fixed, so the result is reproducible.
// One difference from CUB: CUB folds its initial value numeric_limits<T>::max() (Min; lowest()
// for Max) into the reduction, so that a Min over +inf elements gives max() there; tcr reduces
// the elements only, and writes max() / lowest() (and, for ArgMin / ArgMax, index 1, as CUB)
// only for an empty input.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include "../../compensated/config.cuh"
#include "../key_value_pair.cuh"

namespace tcr {
namespace detail {
namespace device {

template <class T>
inline constexpr bool is_narrow_float_v =
    std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16> ||
    std::is_same_v<T, __nv_fp8_e4m3> || std::is_same_v<T, __nv_fp8_e5m2>;

// a < b and a == b in T's own order (the narrow floating types as floats).
template <class T>
TCR_HD bool less(const T& a, const T& b) {
  if constexpr (is_narrow_float_v<T>)
    return static_cast<float>(a) < static_cast<float>(b);
  else
    return a < b;
}
template <class T>
TCR_HD bool equal(const T& a, const T& b) {
  if constexpr (is_narrow_float_v<T>)
    return static_cast<float>(a) == static_cast<float>(b);
  else
    return a == b;
}

// v converted to O (the narrow floating types through float, which holds them exactly).
template <class O, class T>
TCR_HD O value_cast(const T& v) {
  if constexpr (std::is_same_v<O, T>)
    return v;
  else if constexpr (is_narrow_float_v<T>)
    return static_cast<O>(static_cast<float>(v));
  else
    return static_cast<O>(v);
}

// std::numeric_limits' values as constants (host constexpr functions cannot run on the device).
template <class T>
inline constexpr T limits_max_v = std::numeric_limits<T>::max();
template <class T>
inline constexpr T limits_lowest_v = std::numeric_limits<T>::lowest();

// numeric_limits<T>::max() (Lowest: lowest()), also for the narrow floating types: their largest
// finite values (half 65504, bfloat16 0x1.fep127, e4m3 448, e5m2 57344), negated by the sign bit.
template <class T, bool Lowest>
TCR_HD T finite_limit() {
  if constexpr (std::is_same_v<T, __half>) {
    return __ushort_as_half(Lowest ? 0xfbff : 0x7bff);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __ushort_as_bfloat16(Lowest ? 0xff7f : 0x7f7f);
  } else if constexpr (is_narrow_float_v<T>) {
    T v;
    v.__x = static_cast<__nv_fp8_storage_t>((std::is_same_v<T, __nv_fp8_e4m3> ? 0x7e : 0x7b) |
                                            (Lowest ? 0x80 : 0));
    return v;
  } else {
    return Lowest ? limits_lowest_v<T> : limits_max_v<T>;
  }
}

// Types Min / Max / ArgMin / ArgMax take: the narrow floating types, and types with operator<,
// operator== and std::numeric_limits.
template <class T, class = void>
struct has_order : std::false_type {};
template <class T>
struct has_order<T, std::void_t<decltype(std::declval<const T&>() < std::declval<const T&>()),
                                decltype(std::declval<const T&>() == std::declval<const T&>())>>
    : std::true_type {};
template <class T>
inline constexpr bool has_extremum_rules_v = is_narrow_float_v<T> ||
                                             (has_order<T>::value &&
                                              std::numeric_limits<T>::is_specialized);

// Whether Min / Max / ArgMin / ArgMax take T; a misuse stops at this static_assert (shared by
// DeviceReduce and DeviceSegmentedReduce).
template <class T>
constexpr bool extremum_types_ok() {
  static_assert(has_extremum_rules_v<T>,
                "tcr: Min / Max / ArgMin / ArgMax: the value type needs operator< and "
                "std::numeric_limits (for the result of an empty input)");
  return has_extremum_rules_v<T>;
}

// Min (Max = true: Max) over elements of type T; the partial carries a validity flag, so no
// identity element is needed.
template <class T, bool Max>
struct extremum_accumulator {
  struct partial_type {
    T value;
    bool valid;
  };
  using compact_type = void;
  partial_type state{T{}, false};

  TCR_HD static T pick(const T& a, const T& b) {
    if constexpr (Max)
      return less(a, b) ? b : a;
    else
      return less(a, b) ? a : b;
  }
  template <class X, int N>
  TCR_HD void add(const X (&x)[N]) {
    TCR_UNROLL
    for (int i = 0; i < N; ++i) {
      const T v = static_cast<T>(x[i]);
      state = {state.valid ? pick(state.value, v) : v, true};
    }
  }
  TCR_HD partial_type partial() const { return state; }
  TCR_HD partial_type merge(const partial_type& a, const partial_type& b) const {
    if (!b.valid)
      return a;
    if (!a.valid)
      return b;
    return {pick(a.value, b.value), true};
  }
  template <class O>
  TCR_HD O finish(const partial_type& p) const {
    return value_cast<O>(p.valid ? p.value : empty());
  }
  template <class O>
  TCR_HD O empty_result() const {
    return value_cast<O>(empty());
  }
  TCR_HD static T empty() { return finite_limit<T, Max>(); }
};

// ArgMin (Max = true: ArgMax) over elements {index, value} (indexed_source).
template <class T, bool Max>
struct arg_extremum_accumulator {
  using pair = KeyValuePair<std::int64_t, T>;
  struct partial_type {
    pair value;
    bool valid;
  };
  using compact_type = void;
  partial_type state{pair{}, false};

  TCR_HD static pair pick(const pair& a, const pair& b) {
    const bool better = Max ? less(a.value, b.value) : less(b.value, a.value);
    return better || (equal(a.value, b.value) && b.key < a.key) ? b : a;
  }
  template <int N>
  TCR_HD void add(const pair (&x)[N]) {
    TCR_UNROLL
    for (int i = 0; i < N; ++i)
      state = {state.valid ? pick(state.value, x[i]) : x[i], true};
  }
  TCR_HD partial_type partial() const { return state; }
  TCR_HD partial_type merge(const partial_type& a, const partial_type& b) const {
    if (!b.valid)
      return a;
    if (!a.valid)
      return b;
    return {pick(a.value, b.value), true};
  }
  // O: a KeyValuePair<K, V> (the index converted to K, the extremum to V).
  template <class O>
  TCR_HD O finish(const partial_type& p) const {
    const pair r = p.valid ? p.value : empty();
    return O{static_cast<typename O::Key>(r.key), value_cast<typename O::Value>(r.value)};
  }
  template <class O>
  TCR_HD O empty_result() const {
    return finish<O>(partial_type{pair{}, false});
  }
  TCR_HD static pair empty() { return {1, finite_limit<T, Max>()}; }
};

} // namespace device
} // namespace detail
} // namespace tcr
