// SPDX-License-Identifier: BSD-3-Clause
// tcr: where the device-wide reductions read their elements and write their result
// (implementation detail of reduce/device.cuh).
//
// A source is anything the kernel can index on the device, s[i] for i in [0, n): a pointer (read
// as 16-byte vectors where the type allows), a random-access iterator (one element at a time), or
// one of the adaptors below. The host checks a source's pointers, where it has any, before a
// launch (null_source, misaligned_source).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <utility>
#include "../../compensated/config.cuh"
#include "../key_value_pair.cuh"

namespace tcr {
namespace detail {
namespace device {

// The value type of an input iterator (cv dropped).
template <class It>
using it_value_t = std::remove_cv_t<typename std::iterator_traits<It>::value_type>;

// The value type an output iterator takes; Fallback where it names none (void), as CUB does.
template <class It, class Fallback>
using out_value_t =
    std::conditional_t<std::is_void_v<typename std::iterator_traits<It>::value_type>, Fallback,
                       std::remove_cv_t<typename std::iterator_traits<It>::value_type>>;

// Iterators that wrap a raw device pointer and hand it out with get() (thrust::device_ptr): read
// through that pointer, so that they take the vector path.
template <class It, class = void>
struct has_raw_get : std::false_type {};
template <class It>
struct has_raw_get<It, std::void_t<decltype(std::declval<const It&>().get())>>
    : std::bool_constant<
          std::is_pointer_v<decltype(std::declval<const It&>().get())> &&
          std::is_same_v<
              std::remove_cv_t<std::remove_pointer_t<decltype(std::declval<const It&>().get())>>,
              it_value_t<It>>> {};

// The source the kernel reads for an input iterator: const T* for pointers and pointer wrappers,
// the iterator itself otherwise.
template <class It>
auto source_of(const It& it) {
  if constexpr (std::is_pointer_v<It>)
    return static_cast<const it_value_t<It>*>(it);
  else if constexpr (has_raw_get<It>::value)
    return static_cast<const it_value_t<It>*>(it.get());
  else
    return it;
}

// s[i] = {i, x[i]}: the elements of ArgMin / ArgMax, each with its index.
template <class It, class T>
struct indexed_source {
  It it;
  __device__ __forceinline__ KeyValuePair<std::int64_t, T> operator[](std::int64_t i) const {
    return {i, static_cast<T>(it[i])};
  }
};

// s[i] = f(x[i]): TransformReduce's elements.
template <class It, class F, class T>
struct transform_source {
  It it;
  F f;
  __device__ __forceinline__ T operator[](std::int64_t i) const { return static_cast<T>(f(it[i])); }
};

// s[i] = p[i * inc]: the elements of a vector with an element stride (BLAS's incx, any sign;
// the caller moves p to the vector's first element). Iterator traits, so that it stands where an
// input iterator does; indexed only.
template <class T>
struct strided_source {
  using iterator_category = std::random_access_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = const T*;
  using reference = const T&;
  const T* p;
  std::int64_t inc;
  __device__ __forceinline__ T operator[](std::int64_t i) const { return p[i * inc]; }
};

// ArgMin / ArgMax's two outputs: the extremum and its index, written from one KeyValuePair.
template <class ExtremumIt, class IndexIt>
struct paired_output {
  ExtremumIt extremum;
  IndexIt index;
};

template <class ExtremumIt, class IndexIt, class K, class V>
__device__ __forceinline__ void write_result(paired_output<ExtremumIt, IndexIt>& out,
                                             const KeyValuePair<K, V>& r) {
  *out.extremum = r.value;
  *out.index = r.key;
}

// A null pointer among a source's pointers (iterators have none the host can check).
template <class S>
bool null_source(const S& s) {
  if constexpr (std::is_pointer_v<S>)
    return s == nullptr;
  else
    return false;
}
template <class It, class T>
bool null_source(const indexed_source<It, T>& s) {
  return null_source(s.it);
}
template <class It, class F, class T>
bool null_source(const transform_source<It, F, T>& s) {
  return null_source(s.it);
}
template <class T>
bool null_source(const strided_source<T>& s) {
  return s.p == nullptr;
}
template <class ExtremumIt, class IndexIt>
bool null_source(const paired_output<ExtremumIt, IndexIt>& o) {
  return null_source(o.extremum) || null_source(o.index);
}

// A pointer not aligned to its element type.
template <class S>
bool misaligned_source(const S& s) {
  if constexpr (std::is_pointer_v<S>)
    return reinterpret_cast<std::uintptr_t>(s) % alignof(std::remove_pointer_t<S>) != 0;
  else
    return false;
}
template <class It, class T>
bool misaligned_source(const indexed_source<It, T>& s) {
  return misaligned_source(s.it);
}
template <class It, class F, class T>
bool misaligned_source(const transform_source<It, F, T>& s) {
  return misaligned_source(s.it);
}
template <class T>
bool misaligned_source(const strided_source<T>& s) {
  return misaligned_source(s.p);
}
template <class ExtremumIt, class IndexIt>
bool misaligned_source(const paired_output<ExtremumIt, IndexIt>& o) {
  return misaligned_source(o.extremum) || misaligned_source(o.index);
}

} // namespace device
} // namespace detail
} // namespace tcr
